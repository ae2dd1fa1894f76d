/* resolver.c - the resolver's life: locations interned once, the running
 * kernel's symbols preloaded beside the stream, every location named once
 * after it, and what -v says of the DSOs. */
#include "resolver/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pa_resolver *pa_resolver_new(struct pa_session *s, const struct pa_resolver_opts *opts,
                                    struct pa_err *err)
{
	struct pa_resolver *r = calloc(1, sizeof(*r));
	if (!r) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	r->session = s;
	pa_opts_copy(&r->opts, sizeof(r->opts), opts);
	r->opts.sz = sizeof(r->opts);
	pa_arena_init(&r->arena, 64 * 1024);
	/* perf's --symfs also moves the build-id cache to SYMFS/.debug
	 * (symbol__config_symfs); an explicit build-id dir is kept */
	if (r->opts.symfs && !r->opts.buildid_dir) {
		char *dir = pa_asprintf("%s/.debug", r->opts.symfs);
		r->opts.buildid_dir = dir ? pa_arena_strdup(&r->arena, dir) : NULL;
		free(dir);
		if (!r->opts.buildid_dir) {
			pa_err_set(err, -ENOMEM, "out of memory");
			pa_resolver_free(r);
			return NULL;
		}
	}
	/* read-only: what debuginfod sends stays in its client's cache */
	struct pa_finder_opts fo = {.sz = sizeof(fo),
	                            .symfs = r->opts.symfs,
	                            .buildid_dir = r->opts.buildid_dir,
	                            .no_cache_add = true};
	if (!(r->finder = pa_finder_new(&fo, err))) {
		pa_resolver_free(r);
		return NULL;
	}
	r->elf_index_dir = pa_sym_elf_cache_default_dir(); /* (NULL: no index) */
	return r;
}

static void dso_syms_free(struct dso_syms *ds);
static void upreload_free(struct kpreload *k);

void pa_resolver_free(struct pa_resolver *r)
{
	if (!r)
		return;
	pa_resolver_abort(r);
	upreload_free(&r->kp);
	for (unsigned i = 0; i < r->nr_dsyms; i++)
		dso_syms_free(&r->dsyms[i]);
	free(r->dsyms);
	free(r->locs);
	free(r->inl);
	free(r->loc_table);
	pa_finder_free(r->finder);
	free(r->elf_index_dir);
	pa_arena_release(&r->arena);
	free(r);
}

/* ---- locations ------------------------------------------------------------ */

static void mem_grew(struct pa_resolver *r, size_t old_bytes, size_t new_bytes)
{
	atomic_fetch_add_explicit(&r->mem, (uint64_t)new_bytes - (uint64_t)old_bytes,
	                          memory_order_relaxed);
}

uint64_t pa_resolver_mem(const struct pa_resolver *r)
{
	return atomic_load_explicit(&r->mem, memory_order_relaxed);
}

static uint64_t loc_hash(const struct pa_dso *d, uint64_t addr, uint64_t ip, char level)
{
	return pa_hash64(addr ^ ((uint64_t)(d ? d->idx + 1 : 0) << 40) ^
	                 ((uint64_t)(uint8_t)level << 56) ^ pa_hash64(ip));
}

static uint64_t loc_hash_idx(void *ctx, uint32_t i)
{
	const struct pa_loc *l = &((struct pa_resolver *)ctx)->locs[i];
	return loc_hash(l->dso, l->addr, l->ip, l->level);
}

int pa_resolver_intern(struct pa_resolver *r, struct pa_dso *d, uint64_t addr, uint64_t ip,
                       char level, unsigned flags, uint32_t *out)
{
	size_t old_cap = r->loc_table_cap;
	if (pa_index_table_grow(&r->loc_table, &r->loc_table_cap, r->nr_locs, loc_hash_idx, r))
		return -ENOMEM;
	if (old_cap != r->loc_table_cap)
		mem_grew(r, old_cap * 4, r->loc_table_cap * 4);
	size_t j = loc_hash(d, addr, ip, level) & (r->loc_table_cap - 1);
	for (; r->loc_table[j]; j = (j + 1) & (r->loc_table_cap - 1)) {
		const struct pa_loc *l = &r->locs[r->loc_table[j] - 1];
		if (l->dso == d && l->addr == addr && l->ip == ip && l->level == level &&
		    l->unwound == !!(flags & PA_LOC_UNWOUND)) {
			*out = r->loc_table[j] - 1;
			return 0;
		}
	}
	if (r->nr_locs == r->cap_locs) {
		size_t old = r->cap_locs;
		if (PA_GROW(r->locs, r->cap_locs, r->nr_locs + 1, 1024))
			return -ENOMEM;
		mem_grew(r, old * sizeof(*r->locs), r->cap_locs * sizeof(*r->locs));
	}
	r->locs[r->nr_locs] =
	    (struct pa_loc){.dso = d,
	                    .addr = addr,
	                    .ip = ip,
	                    .level = level,
	                    .kernel = flags & PA_LOC_KERNEL,
	                    .unwound = flags & PA_LOC_UNWOUND};
	r->loc_table[j] = (uint32_t)++r->nr_locs;
	*out = (uint32_t)(r->nr_locs - 1);
	return 0;
}

struct pa_loc *pa_resolver_locs(const struct pa_resolver *r)
{
	return r->locs;
}

size_t pa_resolver_nr_locs(const struct pa_resolver *r)
{
	return r->nr_locs;
}

const uint32_t *pa_resolver_inlines(const struct pa_resolver *r)
{
	return r->inl;
}

/* ---- the kernel, beside the stream ----------------------------------------
 * Reading /proc/kallsyms takes the kernel a good part of a second's tenth:
 * when the recording names its kernel's build-id (which then cannot
 * change), its symbols are loaded on a thread of their own while the
 * stream runs. Not for --vmlinux, which needs the kernel map from the
 * stream. */

static void *kpreload_main(void *arg)
{
	struct kpreload *k = arg;
	if (k->d)
		pa_resolver_load_kernel(k->r, &k->snap, &k->ds);
	for (size_t i = 0; i < k->nr_u && !atomic_load(&k->stop); i++) {
		pa_resolver_load_user(k->r, &k->u[i].snap, &k->u[i].ds, k->src);
		k->u[i].loaded = true;
	}
	return NULL;
}

static void dso_syms_free(struct dso_syms *ds)
{
	pa_symtab_free(ds->tab);
	pa_srcinfo_free(ds->src);
	free(ds->elf_path);
}

/* The preloaded user DSOs not taken. */
static void upreload_free(struct kpreload *k)
{
	for (size_t i = 0; i < k->nr_u; i++)
		if (!k->u[i].taken)
			dso_syms_free(&k->u[i].ds);
	free(k->u);
	k->u = NULL;
	k->nr_u = 0;
}

/* The host's user DSOs of the build-id table (perf record's DSOs with
 * samples), to preload; the list may come out empty without memory. */
static void upreload_list(struct pa_resolver *r, struct kpreload *k)
{
	const struct pa_machine *host = pa_session_machine(r->session, 0);
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < pa_session_nr_dsos(r->session); i++) {
			const struct pa_dso *d = pa_session_dso(r->session, i);
			if (d->kind != PA_DSO_USER || !d->header_build_id || d->machine != host)
				continue;
			if (pass)
				k->u[k->nr_u++] = (struct upreload){.d = d, .snap = *d};
			n++;
		}
		if (!pass && (!n || !(k->u = calloc(n, sizeof(*k->u)))))
			return;
	}
}

void pa_resolver_preload(struct pa_resolver *r, bool srclines, bool inlines)
{
	struct kpreload *k = &r->kp;
	memset(k, 0, sizeof(*k));
	atomic_init(&k->stop, false);
	if (r->opts.vmlinux || r->opts.no_threads || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	for (unsigned i = 0; i < pa_session_nr_dsos(r->session) && !k->d; i++) {
		const struct pa_dso *d = pa_session_dso(r->session, i);
		if (d->kind == PA_DSO_KERNEL && d->build_id_size &&
		    d->machine == pa_session_machine(r->session, 0))
			k->d = d;
	}
	if (k->d)
		k->snap = *k->d;
	upreload_list(r, k);
	if (!k->d && !k->nr_u)
		return;
	k->src = srclines || (inlines && pa_file_records_user_stacks(pa_session_file(r->session)));
	k->r = r;
	k->started = !pthread_create(&k->th, NULL, kpreload_main, k);
	if (!k->started)
		upreload_free(k);
}

/* Join; with install, its kernel result becomes the kernel's entry of
 * r->dsyms (the user DSOs' wait for pa_resolver_take_preloaded), without,
 * everything it loaded goes. */
static void kpreload_finish(struct pa_resolver *r, bool install)
{
	struct kpreload *k = &r->kp;
	if (!k->started)
		return;
	atomic_store(&k->stop, true);
	pthread_join(k->th, NULL);
	k->started = false;
	if (install && r->dsyms && k->d && k->d->idx < r->nr_dsyms)
		r->dsyms[k->d->idx] = k->ds;
	else if (k->d)
		pa_symtab_free(k->ds.tab);
	if (!install)
		upreload_free(k);
}

bool pa_resolver_take_preloaded(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	struct kpreload *k = &r->kp;
	for (size_t i = 0; i < k->nr_u && !k->started; i++) {
		struct upreload *u = &k->u[i];
		if (u->d != d || u->taken || !u->loaded)
			continue;
		/* (loaded from the DSO as it was when the stream began) */
		if (d->kind != u->snap.kind || d->long_name != u->snap.long_name ||
		    d->build_id_size != u->snap.build_id_size ||
		    memcmp(d->build_id, u->snap.build_id, d->build_id_size))
			return false;
		*ds = u->ds;
		u->taken = true;
		return true;
	}
	return false;
}

void pa_resolver_abort(struct pa_resolver *r)
{
	kpreload_finish(r, false);
}

/* Kernel addresses no map covered: perf, reading the running kernel's
 * /proc/kcore, still finds them in [kernel.kallsyms] (e.g. the init text
 * of idle stacks). Only for the running kernel, like perf. */
static void resolve_kcore(struct pa_resolver *r)
{
	struct pa_dso *k = NULL;
	for (unsigned i = 0; i < pa_session_nr_dsos(r->session) && !k; i++)
		if (pa_session_dso(r->session, i)->kind == PA_DSO_KERNEL &&
		    pa_session_machine(r->session, 0) == pa_session_dso(r->session, i)->machine)
			k = pa_session_dso(r->session, i);
	if (!k)
		return;
	bool any = false;
	for (size_t i = 0; i < r->nr_locs && !any; i++)
		any = !r->locs[i].dso && r->locs[i].level == 'k';
	if (!any || !pa_resolver_dso_syms(r, k)->live)
		return;
	for (size_t i = 0; i < r->nr_locs; i++) {
		struct pa_loc *l = &r->locs[i];
		if (l->dso || l->level != 'k')
			continue;
		const struct pa_sym *sym = pa_resolver_lookup(r, k, l->addr);
		if (sym) {
			l->dso = k;
			l->sym = sym;
			k->hit = true;
		}
	}
}

int pa_resolver_locate(struct pa_resolver *r)
{
	r->nr_dsyms = pa_session_nr_dsos(r->session);
	r->dsyms = calloc(r->nr_dsyms + 1, sizeof(*r->dsyms));
	kpreload_finish(r, true);
	if (!r->dsyms)
		return -ENOMEM;
	resolve_kcore(r);
	for (size_t i = 0; i < r->nr_locs; i++)
		r->locs[i].sym = NULL;
	return 0;
}

int pa_resolver_symbolize(struct pa_resolver *r, bool srclines, bool inlines)
{
	r->nr_dsyms = pa_session_nr_dsos(r->session);
	r->dsyms = calloc(r->nr_dsyms + 1, sizeof(*r->dsyms));
	kpreload_finish(r, true);
	if (!r->dsyms)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_locs; i++)
		r->locs[i].sym = pa_resolver_lookup(r, r->locs[i].dso, r->locs[i].addr);
	resolve_kcore(r);
	/* the inline frames first: perf asks addr2line for a sample's chain
	 * before the srcline of its ip, whose address the chain's first
	 * entry has (addr2line's answers depend on the order, symbols.h) */
	size_t nr = r->nr_locs;
	if (inlines && pa_resolver_add_inlines(r))
		return -ENOMEM;
	for (size_t k = 0; srclines && k < nr; k++)
		if (!r->locs[k].ip)
			r->locs[k].srcline = pa_resolver_srcline(r, &r->locs[k]);
	/* what only interning needed */
	mem_grew(r, r->loc_table_cap * sizeof(*r->loc_table), 0);
	free(r->loc_table);
	r->loc_table = NULL;
	r->loc_table_cap = 0;
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && !strcmp(s + n - m, tail);
}

/* (perf tries a debuglink's file first, then the cache's copy and its
 * debug file, the system debug directories, the path itself: the letter
 * is of the first that had a .symtab, else of the first with .dynsym) */
char pa_resolver_dso_origin(const struct pa_resolver *r, const struct pa_dso *d)
{
	if (!d || d->idx >= r->nr_dsyms)
		return '!';
	const struct dso_syms *ds = &r->dsyms[d->idx];
	if (ds->state == 2)
		return 'k'; /* a module's share of kallsyms */
	if (ds->state == 3)
		return 'j';
	if (ds->state != 1 || !ds->tab)
		return '!';
	const char *o = pa_symtab_origin(ds->tab);
	/* (a file without .symtab or .dynsym: perf keeps none of it; one
	 * whose tables define no function is still where they came from) */
	if (!strcmp(o, "none"))
		return '!';
	if (ds->vmlinux)
		return 'v';
	if (!strcmp(o, "kallsyms"))
		return 'k';
	if (!strcmp(o, "perf-map"))
		return 'j';
	if (ds->kmod_ko && ds->elf_path)
		return ends_with(ds->elf_path, ".ko") ? 'K' : 'm';
	if (!strncmp(o, "debuglink:", 10)) {
		const char *p = o + 10;
		if (ends_with(p, "/debug"))
			return 'D';
		return strstr(p, "/.build-id/") ? 'b' : 'l';
	}
	if (ds->where && !strncmp(ds->where, "cache", 5))
		return 'B';
	if (ds->where && !strcmp(ds->where, "system-debug"))
		return 'b';
	if (ds->where && !strcmp(ds->where, "debuginfod"))
		return 'B'; /* (perf adds what debuginfod gave to the cache) */
	return 'd';
}

bool pa_resolver_dso_from_elf(const struct pa_resolver *r, const struct pa_dso *d)
{
	return d->idx < r->nr_dsyms && r->dsyms[d->idx].state == 1 && r->dsyms[d->idx].elf_path;
}

void pa_resolver_foreach_dso_note(const struct pa_resolver *r, pa_resolver_dso_note_fn fn,
                                  void *ctx)
{
	for (unsigned i = 0; i < r->nr_dsyms; i++) {
		const struct dso_syms *ds = &r->dsyms[i];
		if (ds->why)
			fn(ctx, pa_session_dso(r->session, i), false, ds->why);
		else if (ds->from)
			fn(ctx, pa_session_dso(r->session, i), true, ds->from);
	}
}
