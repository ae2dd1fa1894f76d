/* inline.c - perf 6.1's inline frames of DWARF-unwound call-chain entries.
 *
 * perf (its default --inline) replaces a call-chain entry the unwinder
 * gave, when it has a map and a symbol, by the records `addr2line -i -f`
 * prints for its address (append_inlines), innermost first: each with the
 * record's function name (demangled like a symbol), and the record's
 * srcline; the entry's own symbol where the names are equal, else a new
 * symbol over the same range marked inlined (new_inline_sym). Where
 * addr2line has no answer the entry stays. pa_srcinfo gives addr2line's
 * records (symbols/srcinfo.c); each location is expanded once.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 256

/* A symbol like perf's new_inline_sym: base's range, the record's name. */
static const struct pa_sym *inline_sym(struct pa_resolver *r, const struct pa_sym *base,
                                       const char *raw)
{
	char *dem = r->opts.no_demangle ? NULL : pa_sym_demangle(raw, r->opts.demangle_params);
	const char *name = dem ? dem : raw;
	const struct pa_sym *out = base;
	if (strcmp(name, base->name)) {
		struct pa_sym *s = pa_arena_alloc(&r->arena, sizeof(*s));
		const char *n = pa_arena_strdup(&r->arena, name);
		out = s && n ? s : NULL;
		if (out)
			*s = (struct pa_sym){.start = base->start,
			                     .end = base->end,
			                     .name = n,
			                     .binding = base->binding,
			                     .type = base->type,
			                     .inlined = true};
	}
	free(dem);
	return out;
}

static int add_loc(struct pa_resolver *r, const struct pa_loc *tmpl, uint32_t *out)
{
	if (r->nr_locs == r->cap_locs) {
		size_t old = r->cap_locs;
		if (PA_GROW(r->locs, r->cap_locs, r->nr_locs + 1, 1024))
			return -ENOMEM;
		atomic_fetch_add_explicit(&r->mem, (r->cap_locs - old) * sizeof(*r->locs),
		                          memory_order_relaxed);
	}
	r->locs[r->nr_locs] = *tmpl;
	*out = (uint32_t)r->nr_locs++;
	return 0;
}

/* The inline frames of location i (appended to r->locs and r->inl). */
static int expand(struct pa_resolver *r, size_t i, struct pa_srcinfo_frame *fr)
{
	uint64_t addr;
	struct pa_srcinfo *src = pa_resolver_srcinfo(r, &r->locs[i], &addr);
	size_t n = src ? pa_srcinfo_frames(src, addr, fr, MAX_FRAMES) : 0;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (!n)
		return 0;
	if (PA_GROW(r->inl, r->cap_inl, r->nr_inl + n, 1024))
		return -ENOMEM;
	uint32_t first = (uint32_t)r->nr_inl;
	for (size_t k = 0; k < n; k++) {
		struct pa_loc t = r->locs[i];
		t.sym = inline_sym(r, r->locs[i].sym, fr[k].name);
		t.srcline = fr[k].srcline;
		t.decl_line = fr[k].decl_line;
		t.nr_inl = 0;
		t.match = 0;
		t.inl_frame = true;
		if (!t.sym || add_loc(r, &t, &r->inl[r->nr_inl]))
			return -ENOMEM;
		r->nr_inl++;
	}
	r->locs[i].inl = first;
	r->locs[i].nr_inl = (uint16_t)n;
	return 0;
}

int pa_resolver_add_inlines(struct pa_resolver *r)
{
	struct pa_srcinfo_frame *fr = malloc(MAX_FRAMES * sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	int ret = 0;
	size_t nr = r->nr_locs; /* (not the frames made here) */
	for (size_t i = 0; i < nr && !ret; i++) {
		const struct pa_loc *l = &r->locs[i];
		/* perf: a map and a symbol; no addr2line for the kernel, JIT
		 * maps and the vdso (pa_resolver_srcinfo has none for them) */
		if (l->unwound && l->dso && l->sym && !l->kernel)
			ret = expand(r, i, fr);
	}
	free(fr);
	return ret;
}

int pa_resolver_chain_frames(const struct pa_resolver *r, const uint32_t *ids, uint32_t nr,
                             uint32_t **frames, size_t *cap)
{
	const struct pa_loc *locs = r->locs;
	size_t n = 0;
	for (uint32_t i = 0; i < nr; i++)
		n += locs[ids[i]].nr_inl ? locs[ids[i]].nr_inl : 1;
	if (pa_grow(frames, cap, n + 1, sizeof(**frames), 256))
		return -ENOMEM;
	uint32_t *fr = *frames;
	n = 0;
	for (uint32_t i = 0; i < nr; i++) {
		const struct pa_loc *l = &locs[ids[i]];
		if (!l->nr_inl)
			fr[n++] = ids[i];
		for (uint32_t k = 0; k < l->nr_inl; k++)
			fr[n++] = r->inl[l->inl + k];
	}
	return (int)n;
}
