/* trie.c - a trie of (parent, value) pairs (util.h, pa_trie): call stacks
 * kept once each, 8 bytes a node, no allocation per insert. */
#include "util.h"

#include <errno.h>
#include <stdlib.h>

struct pa_trie_slot {
	uint32_t parent, value, id; /* id: node + 1, 0 = empty */
};

static uint64_t slot_hash(uint32_t parent, uint32_t value)
{
	return pa_hash64((uint64_t)parent << 32 | value);
}

static int table_grow(struct pa_trie *t)
{
	size_t ncap = t->table_cap ? 2 * t->table_cap : 4096;
	struct pa_trie_slot *tab = calloc(ncap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < t->table_cap; i++) {
		struct pa_trie_slot e = t->table[i];
		if (!e.id)
			continue;
		size_t j = slot_hash(e.parent, e.value) & (ncap - 1);
		while (tab[j].id)
			j = (j + 1) & (ncap - 1);
		tab[j] = e;
	}
	free(t->table);
	t->table = tab;
	t->table_cap = ncap;
	return 0;
}

void pa_trie_prefetch(const struct pa_trie *t, uint32_t parent, uint32_t value)
{
	if (t->table_cap)
		__builtin_prefetch(&t->table[slot_hash(parent, value) & (t->table_cap - 1)]);
}

int pa_trie_child(struct pa_trie *t, uint32_t parent, uint32_t value, uint32_t *out)
{
	if (!t->nr) {
		/* node 0: the root */
		t->cap = 1024;
		if (!(t->nodes = malloc(t->cap * sizeof(*t->nodes))))
			return -ENOMEM;
		t->nodes[0] = (struct pa_trie_node){UINT32_MAX, UINT32_MAX};
		t->nr = 1;
	}
	if ((t->nr + 1) * 3 >= t->table_cap * 2 && table_grow(t))
		return -ENOMEM;
	size_t mask = t->table_cap - 1;
	size_t j = slot_hash(parent, value) & mask;
	for (; t->table[j].id; j = (j + 1) & mask) {
		const struct pa_trie_slot *e = &t->table[j];
		if (e->parent == parent && e->value == value) {
			*out = e->id - 1;
			return 0;
		}
	}
	if (t->nr == t->cap && PA_GROW(t->nodes, t->cap, t->nr + 1, 1024))
		return -ENOMEM;
	t->nodes[t->nr] = (struct pa_trie_node){parent, value};
	t->table[j] = (struct pa_trie_slot){parent, value, (uint32_t)++t->nr};
	*out = (uint32_t)(t->nr - 1);
	return 0;
}

size_t pa_trie_bytes(const struct pa_trie *t)
{
	return t->cap * sizeof(*t->nodes) + t->table_cap * sizeof(*t->table);
}

void pa_trie_drop_table(struct pa_trie *t)
{
	free(t->table);
	t->table = NULL;
	t->table_cap = 0;
}

void pa_trie_release(struct pa_trie *t)
{
	free(t->nodes);
	free(t->table);
	*t = (struct pa_trie){0};
}
