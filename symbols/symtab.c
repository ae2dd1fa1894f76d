/* symtab.c - the perf-shaped symbol tree, freezing, lookup, accessors.
 *
 * perf keeps a DSO's symbols in a kernel-style red-black tree keyed by start
 * address (equal keys inserted to the right) and searches it with
 *     ip < start -> left; ip > end || (ip == end && ip != start) -> right;
 *     else found.
 * With overlapping symbols the result depends on the tree's shape, so the
 * builder below rebalances exactly like lib/rbtree.c (__rb_insert and
 * __rb_erase_augmented/____rb_erase_color case for case). The algorithms are
 * the classic ones; the code is ours.
 */
#include "symbols/internal.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- builder: a red-black tree over an index array ---------------------- */

void pa_symb_init(struct pa_symb *b)
{
	memset(b, 0, sizeof(*b));
	b->root = PA_SYMB_NIL;
}

void pa_symb_release(struct pa_symb *b)
{
	free(b->nodes);
	pa_symb_init(b);
}

static void change_child(struct pa_symb *b, uint32_t old, uint32_t new, uint32_t parent)
{
	struct pa_symb_node *N = b->nodes;
	if (parent == PA_SYMB_NIL)
		b->root = new;
	else if (N[parent].left == old)
		N[parent].left = new;
	else
		N[parent].right = new;
}

/* new takes old's parent and colour; old becomes new's child with colour red. */
static void rotate_set_parents(struct pa_symb *b, uint32_t old, uint32_t new, uint8_t red)
{
	struct pa_symb_node *N = b->nodes;
	uint32_t parent = N[old].parent;
	N[new].parent = parent;
	N[new].red = N[old].red;
	N[old].parent = new;
	N[old].red = red;
	change_child(b, old, new, parent);
}

static void set_parent_black(struct pa_symb_node *N, uint32_t node, uint32_t parent)
{
	N[node].parent = parent;
	N[node].red = 0;
}

static void insert_color(struct pa_symb *b, uint32_t node)
{
	struct pa_symb_node *N = b->nodes;
	uint32_t parent = N[node].parent, gparent, tmp;

	for (;;) {
		if (parent == PA_SYMB_NIL) {
			N[node].red = 0;
			break;
		}
		if (!N[parent].red)
			break;
		gparent = N[parent].parent;
		tmp = N[gparent].right;
		if (parent != tmp) { /* parent is gparent's left child */
			if (tmp != PA_SYMB_NIL && N[tmp].red) {
				/* uncle red: flip colours, go up */
				set_parent_black(N, tmp, gparent);
				set_parent_black(N, parent, gparent);
				node = gparent;
				parent = N[node].parent;
				N[node].red = 1;
				continue;
			}
			tmp = N[parent].right;
			if (node == tmp) {
				/* node is the right child: left rotate at parent */
				tmp = N[node].left;
				N[parent].right = tmp;
				N[node].left = parent;
				if (tmp != PA_SYMB_NIL)
					set_parent_black(N, tmp, parent);
				N[parent].parent = node;
				N[parent].red = 1;
				parent = node;
				tmp = N[node].right;
			}
			/* right rotate at gparent */
			N[gparent].left = tmp;
			N[parent].right = gparent;
			if (tmp != PA_SYMB_NIL)
				set_parent_black(N, tmp, gparent);
			rotate_set_parents(b, gparent, parent, 1);
			break;
		} else {
			tmp = N[gparent].left;
			if (tmp != PA_SYMB_NIL && N[tmp].red) {
				set_parent_black(N, tmp, gparent);
				set_parent_black(N, parent, gparent);
				node = gparent;
				parent = N[node].parent;
				N[node].red = 1;
				continue;
			}
			tmp = N[parent].left;
			if (node == tmp) {
				tmp = N[node].right;
				N[parent].left = tmp;
				N[node].right = parent;
				if (tmp != PA_SYMB_NIL)
					set_parent_black(N, tmp, parent);
				N[parent].parent = node;
				N[parent].red = 1;
				parent = node;
				tmp = N[node].left;
			}
			N[gparent].right = tmp;
			N[parent].left = gparent;
			if (tmp != PA_SYMB_NIL)
				set_parent_black(N, tmp, gparent);
			rotate_set_parents(b, gparent, parent, 1);
			break;
		}
	}
}

int pa_symb_insert(struct pa_symb *b, uint64_t start, uint64_t vstart, uint64_t size,
                   uint8_t binding, uint8_t type, const char *name)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		if (cap >= PA_SYMB_NIL)
			return -ENOMEM;
		struct pa_symb_node *p = realloc(b->nodes, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->nodes = p;
		b->cap = cap;
	}
	uint32_t idx = (uint32_t)b->n++;
	struct pa_symb_node *N = b->nodes;
	N[idx] = (struct pa_symb_node){
	    .start = start,
	    .end = size ? start + size : start,
	    .vstart = vstart,
	    .name = name,
	    .left = PA_SYMB_NIL,
	    .right = PA_SYMB_NIL,
	    .parent = PA_SYMB_NIL,
	    .binding = binding,
	    .type = type,
	    .red = 1,
	};

	uint32_t parent = PA_SYMB_NIL, cur = b->root;
	bool left = false;
	while (cur != PA_SYMB_NIL) {
		parent = cur;
		left = start < N[cur].start;
		cur = left ? N[cur].left : N[cur].right;
	}
	N[idx].parent = parent;
	if (parent == PA_SYMB_NIL)
		b->root = idx;
	else if (left)
		N[parent].left = idx;
	else
		N[parent].right = idx;
	insert_color(b, idx);
	b->live++;
	return 0;
}

static void erase_color(struct pa_symb *b, uint32_t parent)
{
	struct pa_symb_node *N = b->nodes;
	uint32_t node = PA_SYMB_NIL, sibling, tmp1, tmp2;

	for (;;) {
		sibling = N[parent].right;
		if (node != sibling) { /* node is parent's left child */
			if (N[sibling].red) {
				/* left rotate at parent */
				tmp1 = N[sibling].left;
				N[parent].right = tmp1;
				N[sibling].left = parent;
				set_parent_black(N, tmp1, parent);
				rotate_set_parents(b, parent, sibling, 1);
				sibling = tmp1;
			}
			tmp1 = N[sibling].right;
			if (tmp1 == PA_SYMB_NIL || !N[tmp1].red) {
				tmp2 = N[sibling].left;
				if (tmp2 == PA_SYMB_NIL || !N[tmp2].red) {
					/* sibling colour flip */
					N[sibling].red = 1;
					if (N[parent].red) {
						N[parent].red = 0;
					} else {
						node = parent;
						parent = N[node].parent;
						if (parent != PA_SYMB_NIL)
							continue;
					}
					break;
				}
				/* right rotate at sibling */
				tmp1 = N[tmp2].right;
				N[sibling].left = tmp1;
				N[tmp2].right = sibling;
				N[parent].right = tmp2;
				if (tmp1 != PA_SYMB_NIL)
					set_parent_black(N, tmp1, sibling);
				tmp1 = sibling;
				sibling = tmp2;
			}
			/* left rotate at parent + colour flips */
			tmp2 = N[sibling].left;
			N[parent].right = tmp2;
			N[sibling].left = parent;
			set_parent_black(N, tmp1, sibling);
			if (tmp2 != PA_SYMB_NIL)
				N[tmp2].parent = parent;
			rotate_set_parents(b, parent, sibling, 0);
			break;
		} else {
			sibling = N[parent].left;
			if (N[sibling].red) {
				tmp1 = N[sibling].right;
				N[parent].left = tmp1;
				N[sibling].right = parent;
				set_parent_black(N, tmp1, parent);
				rotate_set_parents(b, parent, sibling, 1);
				sibling = tmp1;
			}
			tmp1 = N[sibling].left;
			if (tmp1 == PA_SYMB_NIL || !N[tmp1].red) {
				tmp2 = N[sibling].right;
				if (tmp2 == PA_SYMB_NIL || !N[tmp2].red) {
					N[sibling].red = 1;
					if (N[parent].red) {
						N[parent].red = 0;
					} else {
						node = parent;
						parent = N[node].parent;
						if (parent != PA_SYMB_NIL)
							continue;
					}
					break;
				}
				tmp1 = N[tmp2].left;
				N[sibling].right = tmp1;
				N[tmp2].left = sibling;
				N[parent].left = tmp2;
				if (tmp1 != PA_SYMB_NIL)
					set_parent_black(N, tmp1, sibling);
				tmp1 = sibling;
				sibling = tmp2;
			}
			tmp2 = N[sibling].right;
			N[parent].left = tmp2;
			N[sibling].right = parent;
			set_parent_black(N, tmp1, sibling);
			if (tmp2 != PA_SYMB_NIL)
				N[tmp2].parent = parent;
			rotate_set_parents(b, parent, sibling, 0);
			break;
		}
	}
}

void pa_symb_erase(struct pa_symb *b, uint32_t node)
{
	struct pa_symb_node *N = b->nodes;
	uint32_t child = N[node].right, tmp = N[node].left, parent, rebalance;

	if (tmp == PA_SYMB_NIL) {
		/* at most one child, on the right */
		parent = N[node].parent;
		change_child(b, node, child, parent);
		if (child != PA_SYMB_NIL) {
			N[child].parent = parent;
			N[child].red = N[node].red;
			rebalance = PA_SYMB_NIL;
		} else {
			rebalance = N[node].red ? PA_SYMB_NIL : parent;
		}
	} else if (child == PA_SYMB_NIL) {
		/* one child, on the left */
		parent = N[node].parent;
		N[tmp].parent = parent;
		N[tmp].red = N[node].red;
		change_child(b, node, tmp, parent);
		rebalance = PA_SYMB_NIL;
	} else {
		uint32_t successor = child, child2;
		tmp = N[child].left;
		if (tmp == PA_SYMB_NIL) {
			/* the successor is the right child */
			parent = successor;
			child2 = N[successor].right;
		} else {
			/* the successor is leftmost in the right subtree */
			do {
				parent = successor;
				successor = tmp;
				tmp = N[tmp].left;
			} while (tmp != PA_SYMB_NIL);
			child2 = N[successor].right;
			N[parent].left = child2;
			N[successor].right = child;
			N[child].parent = successor;
		}
		tmp = N[node].left;
		N[successor].left = tmp;
		N[tmp].parent = successor;
		uint32_t np = N[node].parent;
		uint8_t ncolor = N[node].red;
		change_child(b, node, successor, np);
		if (child2 != PA_SYMB_NIL) {
			set_parent_black(N, child2, parent);
			rebalance = PA_SYMB_NIL;
		} else {
			rebalance = N[successor].red ? PA_SYMB_NIL : parent;
		}
		N[successor].parent = np;
		N[successor].red = ncolor;
	}
	if (rebalance != PA_SYMB_NIL)
		erase_color(b, rebalance);
	N[node].left = N[node].right = N[node].parent = PA_SYMB_NIL;
	b->live--;
}

uint32_t pa_symb_first(const struct pa_symb *b)
{
	uint32_t n = b->root;
	if (n == PA_SYMB_NIL)
		return n;
	while (b->nodes[n].left != PA_SYMB_NIL)
		n = b->nodes[n].left;
	return n;
}

uint32_t pa_symb_next(const struct pa_symb *b, uint32_t n)
{
	const struct pa_symb_node *N = b->nodes;
	if (N[n].right != PA_SYMB_NIL) {
		n = N[n].right;
		while (N[n].left != PA_SYMB_NIL)
			n = N[n].left;
		return n;
	}
	uint32_t p;
	while ((p = N[n].parent) != PA_SYMB_NIL && n == N[p].right)
		n = p;
	return p;
}

/* ---- perf's fixups ------------------------------------------------------ */

static uint64_t roundup_page(uint64_t x)
{
	return (x + 4095) / 4096 * 4096;
}

void pa_symb_fixup_end(struct pa_symb *b, bool is_kallsyms)
{
	struct pa_symb_node *N = b->nodes;
	uint32_t prev, curr = pa_symb_first(b);
	if (curr == PA_SYMB_NIL)
		return;
	for (uint32_t nd = pa_symb_next(b, curr); nd != PA_SYMB_NIL; nd = pa_symb_next(b, nd)) {
		prev = curr;
		curr = nd;
		if (N[prev].end != N[prev].start)
			continue;
		/* kallsyms: the last symbol before a kernel/module boundary
		 * ends at the next page (+4096), not at the far-away next
		 * symbol; module symbols carry "[module]" in their name. */
		if (is_kallsyms && (!strchr(N[prev].name, '[') != !strchr(N[curr].name, '[')))
			N[prev].end = roundup_page(N[prev].end + 4096);
		else
			N[prev].end = N[curr].start;
	}
	if (N[curr].end == N[curr].start)
		N[curr].end = roundup_page(N[curr].start) + 4096;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

bool pa_symb_choose_a(const struct pa_symb_node *a, const struct pa_symb_node *b)
{
	/* Sizes are compared as perf does, in signed 64 bits. */
	int64_t sa = (int64_t)(a->end - a->start), sb = (int64_t)(b->end - b->start);
	if (sb == 0 && sa > 0)
		return true;
	if (sa == 0 && sb > 0)
		return false;

	bool wa = a->binding == STB_WEAK, wb = b->binding == STB_WEAK;
	if (wb && !wa)
		return true;
	if (wa && !wb)
		return false;

	bool ga = a->binding == STB_GLOBAL, gb = b->binding == STB_GLOBAL;
	if (ga && !gb)
		return true;
	if (gb && !ga)
		return false;

	size_t ua = leading_underscores(a->name), ub = leading_underscores(b->name);
	if (ub > ua)
		return true;
	if (ua > ub)
		return false;

	size_t la = strlen(a->name), lb = strlen(b->name);
	if (la > lb)
		return true;
	if (la < lb)
		return false;

	/* perf's generic arch__choose_best_symbol(): avoid syscall aliases */
	if (!strncmp(a->name, "SyS", 3) || !strncmp(a->name, "compat_SyS", 10))
		return false;
	return true;
}

void pa_symb_fixup_duplicate(struct pa_symb *b)
{
	struct pa_symb_node *N = b->nodes;
	uint32_t nd = pa_symb_first(b), curr, next;

	while (nd != PA_SYMB_NIL) {
		curr = nd;
	again:
		nd = pa_symb_next(b, curr);
		if (nd == PA_SYMB_NIL)
			break;
		next = nd;
		if (N[curr].start != N[next].start)
			continue;
		if (pa_symb_choose_a(&N[curr], &N[next])) {
			pa_symb_erase(b, next);
			goto again;
		}
		nd = pa_symb_next(b, curr);
		pa_symb_erase(b, curr);
	}
}

/* ---- the frozen table --------------------------------------------------- */

struct pa_symtab *pa_symtab_new(enum pa_symtab_kind kind)
{
	struct pa_symtab *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->kind = kind;
	t->root = PA_SYMB_NIL;
	t->elf_type = -1;
	pa_arena_init(&t->arena, 256 * 1024);
	return t;
}

/* Can two symbols match one address (or does one match nothing, which
 * breaks the binary search's reasoning)? Nodes in order. */
static bool has_overlaps(const struct pa_symtab_node *x, size_t n)
{
	uint64_t reach = 0; /* first address not matched by earlier symbols */
	for (size_t i = 0; i < n; i++) {
		if (x[i].end < x[i].start || x[i].start == UINT64_MAX)
			return true;
		if (i && x[i].start < reach)
			return true;
		uint64_t r = x[i].end > x[i].start ? x[i].end : x[i].start + 1;
		if (r > reach)
			reach = r;
	}
	return false;
}

int pa_symtab_freeze(struct pa_symtab *t, const struct pa_symb *b, bool split_modules)
{
	size_t n = b->live;
	t->n = n;
	t->root = PA_SYMB_NIL;
	if (!n)
		return 0;
	t->syms = pa_arena_alloc(&t->arena, n * sizeof(*t->syms));
	t->tree = pa_arena_alloc(&t->arena, n * sizeof(*t->tree));
	if (split_modules)
		t->modules = pa_arena_alloc(&t->arena, n * sizeof(*t->modules));
	uint32_t *pos = malloc(b->n * sizeof(*pos));
	if (!t->syms || !t->tree || (split_modules && !t->modules) || !pos) {
		free(pos);
		return -ENOMEM;
	}

	const struct pa_symb_node *N = b->nodes;
	size_t i = 0;
	for (uint32_t nd = pa_symb_first(b); nd != PA_SYMB_NIL; nd = pa_symb_next(b, nd)) {
		struct pa_sym *s = &t->syms[i];
		s->start = N[nd].vstart;
		s->end = N[nd].vstart + (N[nd].end - N[nd].start);
		s->name = N[nd].name;
		s->binding = N[nd].binding;
		s->type = N[nd].type;
		if (split_modules) {
			/* "name\t[module]": cut at the tab, keep "module" */
			char *tab = strchr(N[nd].name, '\t');
			t->modules[i] = NULL;
			if (tab) {
				*tab = '\0';
				char *m = tab + 1;
				if (*m == '[') {
					m++;
					char *close = strchr(m, ']');
					if (close)
						*close = '\0';
				}
				t->modules[i] = m;
			}
		}
		pos[nd] = (uint32_t)i++;
	}
	for (uint32_t nd = pa_symb_first(b); nd != PA_SYMB_NIL; nd = pa_symb_next(b, nd)) {
		struct pa_symtab_node *x = &t->tree[pos[nd]];
		x->start = N[nd].start;
		x->end = N[nd].end;
		x->left = N[nd].left == PA_SYMB_NIL ? PA_SYMB_NIL : pos[N[nd].left];
		x->right = N[nd].right == PA_SYMB_NIL ? PA_SYMB_NIL : pos[N[nd].right];
	}
	t->root = pos[b->root];
	t->overlaps = has_overlaps(t->tree, n);
	free(pos);
	return 0;
}

void pa_symtab_free(struct pa_symtab *t)
{
	if (!t)
		return;
	pa_symtab_free(t->adopted);
	pa_arena_release(&t->arena);
	free(t);
}

void pa_symtab_adopt(struct pa_symtab *t, struct pa_symtab *other)
{
	while (t->adopted)
		t = t->adopted;
	t->adopted = other;
}

int pa_symb_insert_all(struct pa_symb *b, struct pa_arena *a, const struct pa_sym_insert *v,
                       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *nm = pa_arena_strdup(a, v[i].name ? v[i].name : "");
		if (!nm || pa_symb_insert(b, v[i].start, v[i].start, v[i].end - v[i].start,
		                          v[i].binding, v[i].type, nm))
			return -ENOMEM;
	}
	return 0;
}

struct pa_symtab *pa_symtab_from_syms(const struct pa_sym_insert *v, size_t n,
                                      struct pa_err *err)
{
	struct pa_symb b;
	struct pa_symtab *t = pa_symtab_new(PA_SYMTAB_KALLSYMS);
	pa_symb_init(&b);
	if (!t || pa_symb_insert_all(&b, &t->arena, v, n) || pa_symtab_freeze(t, &b, false)) {
		pa_symb_release(&b);
		pa_symtab_free(t);
		pa_err_set(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	pa_symb_release(&b);
	t->origin = "kallsyms";
	return t;
}

/* perf's symbols__find() in perf's space. */
static const struct pa_sym *lookup(const struct pa_symtab *t, uint64_t addr)
{
	if (!t || !t->n)
		return NULL;
	const struct pa_symtab_node *x = t->tree;
	if (!t->overlaps) {
		/* last symbol starting at or before addr (branch-free halving:
		 * the answer stays in [lo, lo + len)) */
		size_t lo = 0, len = t->n;
		while (len > 1) {
			size_t half = len / 2;
			lo = x[lo + half].start <= addr ? lo + half : lo;
			len -= half;
		}
		if (x[lo].start > addr)
			return NULL;
		return addr < x[lo].end || addr == x[lo].start ? &t->syms[lo] : NULL;
	}
	uint32_t i = t->root;
	while (i != PA_SYMB_NIL) {
		if (addr < x[i].start)
			i = x[i].left;
		else if (addr > x[i].end || (addr == x[i].end && addr != x[i].start))
			i = x[i].right;
		else
			return &t->syms[i];
	}
	return NULL;
}

const struct pa_sym *pa_symtab_find_offset(const struct pa_symtab *t, uint64_t addr)
{
	return lookup(t, addr);
}

const struct pa_sym *pa_symtab_find(const struct pa_symtab *t, uint64_t addr)
{
	if (!t || t->kind != PA_SYMTAB_ELF)
		return lookup(t, addr);
	/* vaddr -> file offset the way perf converts symbol addresses: the
	 * first PT_LOAD whose [vaddr, vaddr + max(filesz, memsz)) has it */
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct pa_symtab_seg *g = &t->segs[i];
		uint64_t sz = g->filesz > g->memsz ? g->filesz : g->memsz;
		if (addr >= g->vaddr && addr - g->vaddr < sz)
			return lookup(t, addr - g->vaddr + g->offset);
	}
	return NULL;
}

int pa_symtab_offset_to_vaddr(const struct pa_symtab *t, uint64_t file_off, uint64_t *vaddr)
{
	if (!t || t->kind != PA_SYMTAB_ELF)
		return -PA_ERR_NOT_FOUND;
	/* Bytes of the file first: a RELRO segment's memsz can reach into the
	 * next segment's file range. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < t->nsegs; i++) {
			const struct pa_symtab_seg *g = &t->segs[i];
			uint64_t sz = pass ? g->memsz : g->filesz;
			if (file_off >= g->offset && file_off - g->offset < sz) {
				*vaddr = g->vaddr + (file_off - g->offset);
				return 0;
			}
		}
	}
	return -PA_ERR_NOT_FOUND;
}

size_t pa_symtab_count(const struct pa_symtab *t)
{
	return t ? t->n : 0;
}

const struct pa_sym *pa_symtab_at(const struct pa_symtab *t, size_t i)
{
	return t && i < t->n ? &t->syms[i] : NULL;
}

size_t pa_sym_index(const struct pa_symtab *t, const struct pa_sym *s)
{
	return (size_t)(s - t->syms);
}

uint64_t pa_sym_key(const struct pa_symtab *t, const struct pa_sym *s)
{
	return t->tree[s - t->syms].start;
}

enum pa_symtab_kind pa_symtab_kind(const struct pa_symtab *t)
{
	return t->kind;
}

const char *pa_symtab_origin(const struct pa_symtab *t)
{
	return t->origin ? t->origin : "";
}

const char *pa_symtab_symbol_file(const struct pa_symtab *t)
{
	return t->symfile ? t->symfile : "";
}

int pa_symtab_elf_type(const struct pa_symtab *t)
{
	return t->elf_type;
}

const uint8_t *pa_symtab_build_id(const struct pa_symtab *t, size_t *len)
{
	if (len)
		*len = t->build_id_len;
	return t->build_id_len ? t->build_id : NULL;
}

int pa_symtab_kimage(const struct pa_symtab *t, struct pa_kimage *out)
{
	*out = t->kimage;
	return t->kimage.has_text ? 0 : -PA_ERR_NOT_FOUND;
}

const char *pa_sym_module(const struct pa_symtab *t, const struct pa_sym *s)
{
	if (!t->modules)
		return NULL;
	return t->modules[s - t->syms];
}

int pa_sym_opts_read(const struct pa_sym_opts *opts, struct pa_sym_opts *out, struct pa_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!opts) {
		*out = PA_SYM_OPTS_INIT;
		return 0;
	}
	size_t sz = opts->sz;
	if (sz < sizeof(size_t))
		return pa_err_set(err, -EINVAL, "symbols: opts.sz %zu too small", sz);
	if (sz > sizeof(*out)) {
		const unsigned char *tail = (const unsigned char *)opts + sizeof(*out);
		for (size_t i = 0; i < sz - sizeof(*out); i++)
			if (tail[i])
				return pa_err_set(err, -EINVAL,
				                  "symbols: unknown non-zero opts fields");
		sz = sizeof(*out);
	}
	memcpy(out, opts, sz);
	out->sz = sizeof(*out);
	return 0;
}
