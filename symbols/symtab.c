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
#include <sys/mman.h>

/* ---- builder: util/rbtree.c's tree plus a parallel array of symbols ----- */

void pa_symb_init(struct pa_symb *b)
{
	memset(b, 0, sizeof(*b));
	b->rb.root = PA_RB_NIL;
}

void pa_symb_release(struct pa_symb *b)
{
	free(b->nodes);
	pa_rb_release(&b->rb);
	pa_symb_init(b);
}

/* perf's __symbols__insert(): smaller starts to the left, equal ones to
 * the right (after). */
static int symb_dir(void *ctx, uint32_t new_idx, uint32_t existing_idx)
{
	const struct pa_symb_node *N = ctx;
	return N[new_idx].start < N[existing_idx].start ? -1 : 1;
}

int pa_symb_insert(struct pa_symb *b, uint64_t start, uint64_t vstart, uint64_t size,
                   uint8_t binding, uint8_t type, const char *name)
{
	if (b->n == b->cap) {
		/* indices stay below PA_SYMB_NIL */
		if (b->cap && b->cap * 2 >= PA_SYMB_NIL)
			return -ENOMEM;
		int r = PA_GROW(b->nodes, b->cap, b->n + 1, 256);
		if (r || (r = pa_rb_reserve(&b->rb, b->cap)))
			return r;
	}
	uint32_t idx = (uint32_t)b->n++;
	b->nodes[idx] = (struct pa_symb_node){
	    .start = start,
	    .end = size ? start + size : start,
	    .vstart = vstart,
	    .name = name,
	    .binding = binding,
	    .type = type,
	};
	pa_rb_insert(&b->rb, idx, symb_dir, b->nodes);
	b->live++;
	return 0;
}

void pa_symb_erase(struct pa_symb *b, uint32_t node)
{
	pa_rb_erase(&b->rb, node);
	b->live--;
}

uint32_t pa_symb_first(const struct pa_symb *b)
{
	return pa_rb_first(&b->rb);
}

uint32_t pa_symb_next(const struct pa_symb *b, uint32_t n)
{
	return pa_rb_next(&b->rb, n);
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
		s->linkage_name = N[nd].linkage_name;
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
		const struct pa_rb_node *r = &b->rb.node[nd];
		x->left = r->left == PA_SYMB_NIL ? PA_SYMB_NIL : pos[r->left];
		x->right = r->right == PA_SYMB_NIL ? PA_SYMB_NIL : pos[r->right];
	}
	t->root = pos[b->rb.root];
	t->overlaps = has_overlaps(t->tree, n);
	free(pos);
	return 0;
}

void pa_symtab_free(struct pa_symtab *t)
{
	if (!t)
		return;
	pa_symtab_free(t->adopted);
	if (t->map)
		munmap(t->map, t->map_len);
	if (t->lazy) {
		free(t->syms);
		free(t->modules);
	}
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

/* entry i, filled first where the table is lazy (an index's) */
static const struct pa_sym *sym_at(const struct pa_symtab *t, size_t i)
{
	if (t->lazy && !t->syms[i].name)
		t->fill(t, i);
	return &t->syms[i];
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
		return addr < x[lo].end || addr == x[lo].start ? sym_at(t, lo) : NULL;
	}
	/* (i < n: a damaged index's link ends the walk, as NIL does) */
	uint32_t i = t->root;
	for (int depth = 0; i < t->n && depth < PA_SYMTAB_MAX_DEPTH; depth++) {
		if (addr < x[i].start)
			i = x[i].left;
		else if (addr > x[i].end || (addr == x[i].end && addr != x[i].start))
			i = x[i].right;
		else
			return sym_at(t, i);
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
	return t && i < t->n ? sym_at(t, i) : NULL;
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
	switch (pa_opts_check(opts, sizeof(*out))) {
	case 0:
		break;
	case -EINVAL:
		return pa_err_set(err, -EINVAL, "symbols: opts.sz %zu too small", opts->sz);
	default:
		return pa_err_set(err, -EINVAL, "symbols: unknown non-zero opts fields");
	}
	pa_opts_copy(out, sizeof(*out), opts);
	out->sz = sizeof(*out);
	return 0;
}
