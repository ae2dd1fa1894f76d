/* tree.c - the flame graph's tree: interning, merging, ordering. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_NAME "all"
#define MAX_NODES (UINT32_MAX - 1)

uint32_t pa_flame_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* ---- names ---- */

static int name_tab_grow(struct pa_flame *fg)
{
	size_t cap = fg->name_tab_cap ? fg->name_tab_cap * 2 : 1024;
	uint32_t *tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (uint32_t id = 0; id < fg->nnames; id++) {
		size_t i = fg->names[id].hash & (cap - 1);
		while (tab[i])
			i = (i + 1) & (cap - 1);
		tab[i] = id + 1;
	}
	free(fg->name_tab);
	fg->name_tab = tab;
	fg->name_tab_cap = cap;
	return 0;
}

/* Returns the name's id, or a negative code. */
static int64_t intern(struct pa_flame *fg, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return -PA_ERR_LIMIT;
	uint32_t h = pa_flame_hash(s, len);
	size_t mask = fg->name_tab_cap - 1, i = h & mask;
	for (uint32_t e; (e = fg->name_tab[i]); i = (i + 1) & mask) {
		const struct pa_flame_name *nm = &fg->names[e - 1];
		if (nm->hash == h && nm->len == len && !memcmp(nm->s, s, len))
			return e - 1;
	}
	if (fg->nnames >= MAX_NODES)
		return -PA_ERR_LIMIT;
	if (fg->nnames == fg->names_cap) {
		uint32_t cap = fg->names_cap ? fg->names_cap * 2 : 256;
		struct pa_flame_name *n = realloc(fg->names, (size_t)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		fg->names = n;
		fg->names_cap = cap;
	}
	char *copy = pa_arena_strndup(&fg->arena, s, len);
	if (!copy)
		return -ENOMEM;
	uint32_t id = fg->nnames++;
	fg->names[id] = (struct pa_flame_name){.s = copy, .len = (uint32_t)len, .hash = h};
	fg->ranks_stale = true;
	if ((size_t)fg->nnames * 2 > fg->name_tab_cap) {
		if (name_tab_grow(fg)) {
			/* the name stays in names[] but not in the table: undo */
			fg->nnames--;
			return -ENOMEM;
		}
	} else {
		fg->name_tab[i] = id + 1;
	}
	return id;
}

/* ---- nodes ---- */

static size_t node_slot(uint32_t parent, uint32_t name, uint8_t kind, size_t mask)
{
	return (size_t)pa_hash64(((uint64_t)parent << 32 | name) ^ ((uint64_t)kind << 62)) & mask;
}

static int node_tab_grow(struct pa_flame *fg)
{
	size_t cap = fg->tab_cap ? fg->tab_cap * 2 : 1024;
	struct pa_flame_node **tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (size_t j = 0; j < fg->tab_cap; j++) {
		struct pa_flame_node *n = fg->tab[j];
		if (!n)
			continue;
		size_t i = node_slot(n->parent->id, n->name, n->kind, cap - 1);
		while (tab[i])
			i = (i + 1) & (cap - 1);
		tab[i] = n;
	}
	free(fg->tab);
	fg->tab = tab;
	fg->tab_cap = cap;
	return 0;
}

/* The child (name, kind) of parent, created when missing; NULL on ENOMEM
 * or when there are too many nodes (*rc says which). */
static struct pa_flame_node *child(struct pa_flame *fg, struct pa_flame_node *parent, uint32_t name,
				   uint8_t kind, int *rc)
{
	size_t mask = fg->tab_cap - 1, i = node_slot(parent->id, name, kind, mask);
	for (struct pa_flame_node *n; (n = fg->tab[i]); i = (i + 1) & mask)
		if (n->parent == parent && n->name == name && n->kind == kind)
			return n;
	if (fg->nnodes >= MAX_NODES) {
		*rc = -PA_ERR_LIMIT;
		return NULL;
	}
	if ((size_t)fg->nnodes * 2 > fg->tab_cap) {
		if (node_tab_grow(fg)) {
			*rc = -ENOMEM;
			return NULL;
		}
		mask = fg->tab_cap - 1;
		i = node_slot(parent->id, name, kind, mask);
		while (fg->tab[i])
			i = (i + 1) & mask;
	}
	struct pa_flame_node *n = pa_arena_alloc(&fg->arena, sizeof(*n));
	if (!n) {
		*rc = -ENOMEM;
		return NULL;
	}
	n->parent = parent;
	n->next = parent->child;
	parent->child = n;
	n->id = fg->nnodes++;
	n->name = name;
	n->kind = kind;
	n->depth = parent->depth + 1;
	fg->tab[i] = n;
	return n;
}

struct pa_flame *pa_flame_new(void)
{
	struct pa_flame *fg = calloc(1, sizeof(*fg));
	if (!fg)
		return NULL;
	pa_arena_init(&fg->arena, 1 << 20);
	if (name_tab_grow(fg) || node_tab_grow(fg))
		goto fail;
	int64_t root_name = intern(fg, ROOT_NAME, strlen(ROOT_NAME));
	fg->root = pa_arena_alloc(&fg->arena, sizeof(*fg->root));
	if (root_name < 0 || !fg->root)
		goto fail;
	fg->root->name = (uint32_t)root_name;
	fg->nnodes = 1;
	return fg;
fail:
	pa_flame_free(fg);
	errno = ENOMEM;
	return NULL;
}

void pa_flame_free(struct pa_flame *fg)
{
	if (!fg)
		return;
	pa_arena_release(&fg->arena);
	free(fg->tab);
	free(fg->names);
	free(fg->name_tab);
	free(fg);
}

/* One frame of a stack being added, from either entry point. */
struct frame_in {
	const char *s;
	size_t len;
	uint8_t kind;
};

/* Walk down from the root creating frames, then add value along the path.
 * Nothing is added unless every frame was found or created. */
static int add_path(struct pa_flame *fg, const struct frame_in *f, size_t n, uint64_t value)
{
	if (value > UINT64_MAX - (fg->baseline ? fg->root->base : fg->root->value))
		return -PA_ERR_LIMIT;
	if (n >= MAX_NODES)
		return -PA_ERR_LIMIT;
	struct pa_flame_node *leaf = fg->root;
	for (size_t i = 0; i < n; i++) {
		int rc = 0;
		int64_t name = intern(fg, f[i].s, f[i].len);
		if (name < 0)
			return (int)name;
		leaf = child(fg, leaf, (uint32_t)name, f[i].kind, &rc);
		if (!leaf)
			return rc;
	}
	for (struct pa_flame_node *p = leaf; p; p = p->parent) {
		if (fg->baseline)
			p->base += value;
		else
			p->value += value;
	}
	fg->order_stale = true; /* new frames to sort, or x offsets to move */
	return 0;
}

void pa_flame_set_baseline(struct pa_flame *fg, bool on)
{
	fg->baseline = on;
	fg->diff |= on;
}

bool pa_flame_is_diff(const struct pa_flame *fg)
{
	return fg->diff;
}

int pa_flame_add_stack(struct pa_flame *fg, const char *const *frames, const uint8_t *kinds,
		       size_t n, uint64_t value)
{
	if (!fg || (n && !frames))
		return -EINVAL;
	if (!value)
		return 0;
	struct frame_in small[64], *f = small;
	if (n > PA_ARRAY_SIZE(small)) {
		if (n > SIZE_MAX / sizeof(*f))
			return -PA_ERR_LIMIT;
		f = malloc(n * sizeof(*f));
		if (!f)
			return -ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t k = kinds ? kinds[i] : PA_FLAME_USER;
		if (!frames[i] || k >= PA_FLAME_NKINDS) {
			rc = -EINVAL;
			goto out;
		}
		f[i] = (struct frame_in){frames[i], strlen(frames[i]), k};
	}
	rc = add_path(fg, f, n, value);
out:
	if (f != small)
		free(f);
	return rc;
}

/* ---- folded input ---- */

/* Split "a;b_[k];c" into frames; kinds from the suffixes. */
static int add_folded_stack(struct pa_flame *fg, const char *s, size_t len, uint64_t value)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += s[i] == ';';
	struct frame_in small[128], *f = small;
	if (n > PA_ARRAY_SIZE(small)) {
		f = malloc(n * sizeof(*f));
		if (!f)
			return -ENOMEM;
	}
	size_t k = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != ';')
			continue;
		struct frame_in *fr = &f[k++];
		fr->s = s + start;
		fr->len = i - start;
		fr->kind = PA_FLAME_USER;
		if (fr->len >= 4 && fr->s[fr->len - 4] == '_' && fr->s[fr->len - 3] == '[' &&
		    fr->s[fr->len - 1] == ']') {
			switch (fr->s[fr->len - 2]) {
			case 'k':
				fr->kind = PA_FLAME_KERNEL;
				break;
			case 'j':
				fr->kind = PA_FLAME_JIT;
				break;
			case 'i':
				fr->kind = PA_FLAME_INLINE;
				break;
			default:
				break;
			}
			if (fr->kind != PA_FLAME_USER)
				fr->len -= 4;
		}
		start = i + 1;
	}
	int rc = add_path(fg, f, n, value);
	if (f != small)
		free(f);
	return rc;
}

int pa_flame_add_folded(struct pa_flame *fg, const char *line, size_t len, struct pa_err *err)
{
	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	size_t end = len;
	while (end && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	if (!end)
		return 0; /* blank line */
	size_t sp = end;
	while (sp && line[sp - 1] != ' ' && line[sp - 1] != '\t')
		sp--;
	if (!sp)
		return pa_err_set(err, PA_ERR_FORMAT, "not a folded stack line (no count)");
	uint64_t v = 0;
	for (size_t i = sp; i < end; i++) {
		unsigned d = (unsigned char)line[i] - '0';
		if (d > 9)
			return pa_err_set(err, PA_ERR_FORMAT,
					  "not a folded stack line (count is not a whole number)");
		if (v > (UINT64_MAX - d) / 10)
			return pa_err_set(err, PA_ERR_LIMIT, "count too large");
		v = v * 10 + d;
	}
	/* the stack ends before the blanks that separate it from the count */
	size_t slen = sp;
	while (slen && (line[slen - 1] == ' ' || line[slen - 1] == '\t'))
		slen--;
	if (!v)
		return 0;
	int rc = slen ? add_folded_stack(fg, line, slen, v) : add_path(fg, NULL, 0, v);
	if (rc)
		return pa_err_set(err, rc, "%s",
				  rc == -PA_ERR_LIMIT ? "too many samples or frames"
						      : pa_strerror(rc));
	return 0;
}

int pa_flame_read_folded(struct pa_flame *fg, FILE *in, struct pa_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t off = 0, lineno = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		if (memchr(line, 0, (size_t)n)) {
			rc = pa_err_set_at(err, PA_ERR_FORMAT, off,
					   "line %llu: not a folded stack file (binary data)",
					   (unsigned long long)lineno);
			break;
		}
		struct pa_err e = {0};
		rc = pa_flame_add_folded(fg, line, (size_t)n, &e);
		if (rc) {
			rc = pa_err_set_at(err, rc, off, "line %llu: %s",
					   (unsigned long long)lineno, e.msg);
			break;
		}
		off += (uint64_t)n;
	}
	if (!rc && ferror(in))
		rc = pa_err_set(err, -errno, "read error: %s", strerror(errno));
	free(line);
	return rc;
}

/* ---- ordering ---- */

struct name_ref {
	const char *s;
	size_t len;
	uint32_t id;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
	return c ? c : PA_CMP(x->len, y->len);
}

/* Give every name its rank in byte order (one sort of the unique names). */
static int rank_names(struct pa_flame *fg)
{
	struct name_ref *v = malloc((size_t)fg->nnames * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < fg->nnames; i++)
		v[i] = (struct name_ref){fg->names[i].s, fg->names[i].len, i};
	qsort(v, fg->nnames, sizeof(*v), cmp_name_ref);
	for (uint32_t i = 0; i < fg->nnames; i++)
		fg->names[v[i].id].rank = i;
	free(v);
	fg->ranks_stale = false;
	return 0;
}

struct sib {
	uint64_t key; /* rank << 8 | kind: unique among siblings */
	struct pa_flame_node *n;
};

static int cmp_sib(const void *a, const void *b)
{
	return PA_CMP(((const struct sib *)a)->key, ((const struct sib *)b)->key);
}

int pa_flame_prepare(struct pa_flame *fg)
{
	if (fg->ranks_stale && rank_names(fg))
		return -ENOMEM;
	if (!fg->order_stale)
		return 0;
	struct sib *v = NULL;
	size_t cap = 0;
	for (struct pa_flame_node *p = fg->root; p; p = pa_flame_next(p, false)) {
		size_t k = 0;
		for (struct pa_flame_node *c = p->child; c; c = c->next) {
			if (PA_GROW(v, cap, k + 1, 64)) {
				free(v);
				return -ENOMEM;
			}
			v[k].key = (uint64_t)fg->names[c->name].rank << 8 | c->kind;
			v[k++].n = c;
		}
		if (!k)
			continue;
		qsort(v, k, sizeof(*v), cmp_sib);
		uint64_t x = p->x;
		p->child = v[0].n;
		for (size_t i = 0; i < k; i++) {
			v[i].n->next = i + 1 < k ? v[i + 1].n : NULL;
			v[i].n->x = x;
			x += v[i].n->value;
		}
	}
	free(v);
	fg->order_stale = false;
	return 0;
}

/* ---- reading ---- */

uint64_t pa_flame_total(const struct pa_flame *fg)
{
	return fg->root->value;
}

uint64_t pa_flame_base_total(const struct pa_flame *fg)
{
	return fg->root->base;
}

size_t pa_flame_frame_count(const struct pa_flame *fg)
{
	return fg->nnodes;
}

int pa_flame_foreach_frame(struct pa_flame *fg, pa_flame_frame_fn fn, void *ctx)
{
	int rc = pa_flame_prepare(fg);
	if (rc)
		return rc;
	for (struct pa_flame_node *n = fg->root; n;) {
		if (!n->value && n != fg->root) { /* left by a failed add: not a frame */
			n = pa_flame_next(n, true);
			continue;
		}
		uint64_t kids = 0, base_kids = 0;
		for (struct pa_flame_node *c = n->child; c; c = c->next) {
			kids += c->value;
			base_kids += c->base;
		}
		const struct pa_flame_name *nm = &fg->names[n->name];
		struct pa_flame_frame f = {
		    .name = nm->s,
		    .name_len = nm->len,
		    .kind = (enum pa_flame_kind)n->kind,
		    .depth = n->depth,
		    .value = n->value,
		    .self = n->value - kids,
		    .x = n->x,
		    .base = n->base,
		    .base_self = n->base - base_kids,
		};
		if ((rc = fn(ctx, &f)))
			return rc;
		n = pa_flame_next(n, false);
	}
	return 0;
}
