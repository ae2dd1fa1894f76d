/* resolve.c - per-DSO symbol tables, loaded once, through the build-id
 * finder; a DSO that failed remembers why and is never retried. */
#include "resolver/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dso_fail(struct dso_syms *ds, const char *why)
{
	ds->state = -1;
	ds->why = why;
}

static const char *find_result_why(enum pa_find_result r)
{
	switch (r) {
	case PA_FIND_MISMATCH:
		return "build-id mismatch";
	case PA_FIND_DELETED:
		return "file deleted";
	case PA_FIND_NOT_FOUND:
		return "not found";
	default:
		return "lookup failed";
	}
}

/* A recording without the kernel's build-id (pipe mode): only when it
 * names this very host, release and machine do we take the running
 * kernel's id for it — never for a recording from elsewhere. */
static bool recorded_here(struct pa_resolver *r)
{
	return pa_session_recorded_here(r->session);
}

/* ---- --vmlinux -------------------------------------------------------------
 * perf 6.1 (dso__load_kernel_sym -> dso__load_vmlinux): a --vmlinux file is
 * used and only it: on a build-id mismatch, a file without a build-id note
 * (when the recording has the kernel's id), a stripped file, the kernel has
 * no symbols at all - no kallsyms, no /proc/kcore. */

/* perf's dso__build_id_equal(): a recorded 20-byte id may be a shorter one
 * padded with zeros (older perfs). */
static bool kernel_id_equal(const struct pa_dso *d, const uint8_t *id, size_t len)
{
	if (d->build_id_size > len && d->build_id_size == PA_BUILDID_MAX) {
		for (size_t i = len; i < d->build_id_size; i++)
			if (d->build_id[i])
				return false;
		return !memcmp(d->build_id, id, len);
	}
	return d->build_id_size == len && !memcmp(d->build_id, id, len);
}

/* perf's reference for relocating a vmlinux: the kernel's first MMAP
 * record, "[kernel.kallsyms]_text" with the runtime address of _text as
 * its pgoff. A reference at 0 (kptr_restrict when recording) counts as
 * none: perf would take the running kernel's, pa takes no local facts for
 * a recording. */
static bool kernel_ref(struct pa_resolver *r, char *name, size_t size, uint64_t *addr)
{
	const char *ref = NULL;
	*addr = 0;
	if (!pa_session_kernel_ref(r->session, &ref, addr))
		return false;
	snprintf(name, size, "%s", ref);
	return *addr && *name;
}

/* A reason naming the file (path NULL: the message does), kept in the
 * resolver's arena. */
static void vmlinux_fail(struct pa_resolver *r, struct dso_syms *ds, const char *path,
			 const char *fmt, const char *arg)
{
	char buf[512], msg[384];
	snprintf(msg, sizeof(msg), fmt, arg);
	if (path)
		snprintf(buf, sizeof(buf), "vmlinux '%s': %s", path, msg);
	else
		snprintf(buf, sizeof(buf), "vmlinux: %s", msg); /* msg names it */
	const char *why = pa_arena_strdup(&r->arena, buf);
	dso_fail(ds, why ? why : "vmlinux not used");
}

/* The --vmlinux file as perf opens it: a relative name under --symfs. */
static char *vmlinux_path(struct pa_resolver *r)
{
	const char *v = r->opts.vmlinux, *symfs = r->opts.symfs;
	char *p = NULL;
	if (v[0] == '/' || !symfs || !*symfs)
		return strdup(v);
	return asprintf(&p, "%s/%s", symfs, v) < 0 ? NULL : p;
}

/* A kernel location's file offset in the vmlinux: addr is either a runtime
 * address in perf's kernel map, or already the map-relative address
 * vmlinux_remap_locs() made of one. */
static bool vmlinux_offset(const struct dso_syms *ds, uint64_t addr, uint64_t *off)
{
	uint64_t size = ds->vml_end - ds->vml_start;
	if (addr >= ds->vml_start && addr < ds->vml_end) {
		*off = addr - ds->vml_start + ds->vml_pgoff;
		return true;
	}
	if (ds->vml_remapped && addr >= ds->vml_pgoff && addr - ds->vml_pgoff < size) {
		*off = addr;
		return true;
	}
	return false;
}

/* When perf loads a vmlinux it remaps the kernel map to the file's .text,
 * so the address perf keeps for a sample there (and prints when no symbol
 * covers it) becomes the file offset. Do the same to the kernel's
 * locations, unless the two address ranges overlap (then an address could
 * not be told from an offset; never the case for a real kernel). */
static void vmlinux_remap_locs(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	uint64_t size = ds->vml_end - ds->vml_start;
	if (ds->vml_start < ds->vml_pgoff + size && ds->vml_pgoff < ds->vml_end)
		return;
	for (size_t i = 0; i < r->nr_locs; i++) {
		struct pa_loc *l = &r->locs[i];
		if (l->dso == d && l->addr >= ds->vml_start && l->addr < ds->vml_end)
			l->addr = l->addr - ds->vml_start + ds->vml_pgoff;
	}
	ds->vml_remapped = true;
}

static void load_vmlinux(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = vmlinux_path(r);
	struct pa_err err = {0};
	if (!path) {
		dso_fail(ds, "out of memory");
		return;
	}
	if (d->build_id_size) {
		uint8_t id[PA_BUILDID_MAX]; /* perf reads at most 20 bytes */
		size_t n = 0;
		char hex[2 * sizeof(id) + 1];
		if (pa_sym_vmlinux_build_id(path, id, sizeof(id), &n, &err)) {
			vmlinux_fail(r, ds, NULL, "%s", err.msg);
		} else if (!n) {
			vmlinux_fail(r, ds, path, "%s",
				     "no build-id note to check against the recorded kernel's "
				     "(perf then uses no kernel symbols, not even kallsyms)");
		} else if (!kernel_id_equal(d, id, n)) {
			pa_hex(hex, id, n);
			vmlinux_fail(r, ds, path,
				     "build-id mismatch: the file is %s, not the recorded kernel "
				     "(perf then uses no kernel symbols, not even kallsyms)",
				     hex);
		}
		if (ds->state) {
			free(path);
			return;
		}
	}
	char ref[256] = "";
	uint64_t ref_addr = 0;
	bool has_ref = kernel_ref(r, ref, sizeof(ref), &ref_addr);
	/* perf does not demangle kernel symbols */
	struct pa_sym_opts so = {.sz = sizeof(so), .demangle = false};
	struct pa_symtab *tab = pa_symtab_load_vmlinux(path, has_ref ? ref : NULL, &so, &err);
	struct pa_kimage k;
	if (!tab || pa_symtab_kimage(tab, &k)) {
		if (tab)
			vmlinux_fail(r, ds, path, "%s", "no .text section");
		else
			vmlinux_fail(r, ds, NULL, "%s", err.msg);
		pa_symtab_free(tab);
		free(path);
		return;
	}
	uint64_t reloc = has_ref && k.has_ref ? ref_addr - k.ref_value : 0;
	ds->tab = tab;
	ds->elf_path = path; /* for source lines (perf hands addr2line the vmlinux) */
	ds->vmlinux = true;
	ds->vml_start = k.text_addr + reloc;
	ds->vml_end = ds->vml_start + k.text_size;
	ds->vml_pgoff = k.text_offset;
	ds->state = 1;
	vmlinux_remap_locs(r, d, ds);
}

void pa_resolver_load_kernel(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = NULL;
	struct pa_err err = {0};
	struct pa_buildid id = {0}; /* the kernel's, keying the kallsyms index */
	if (r->opts.kallsyms) {
		path = strdup(r->opts.kallsyms);
	} else if (r->opts.vmlinux) {
		load_vmlinux(r, d, ds);
		return;
	} else if (r->opts.symfs) {
		/* perf's dso__load_kernel_sym: "do not try local files if a
		 * symfs was given" (nor its cache's kallsyms) */
		dso_fail(ds, "a symfs was given: perf then reads no kallsyms, only --kallsyms or "
		             "--vmlinux");
		return;
	} else {
		id.size = d->build_id_size;
		memcpy(id.data, d->build_id, d->build_id_size);
		if (!id.size && recorded_here(r)) {
			struct pa_err e2 = {0};
			if (pa_buildid_running_kernel(NULL, &id, &e2))
				id.size = 0;
		}
		enum pa_find_result fr = pa_finder_find_kallsyms(r->finder, &id, &path);
		if (fr != PA_FIND_OK) {
			dso_fail(ds, fr == PA_FIND_MISMATCH ? "foreign kernel (its build-id differs "
							       "from the running kernel's, and no "
							       "cached kallsyms)"
							     : "no kallsyms for this kernel build-id");
			return;
		}
	}
	struct pa_sym_opts so = {.sz = sizeof(so),
	                         .demangle = !r->opts.no_demangle,
	                         .demangle_params = r->opts.demangle_params};
	/* through pa's index when a build-id vouches for the file (not for
	 * --kallsyms FILE); PA_NO_KSYM_CACHE turns it off */
	struct pa_ksym_cache kc = {.dir = id.size ? pa_ksym_cache_default_dir() : NULL,
				   .build_id = id.data,
				   .build_id_len = id.size};
	ds->tab = pa_symtab_load_kallsyms_cached(path, &kc, &so, &err);
	free((char *)kc.dir);
	free(path);
	if (!ds->tab) {
		dso_fail(ds, "kallsyms unreadable");
		return;
	}
	ds->state = 1;
	/* perf reads the running kernel through /proc/kcore, whose maps also
	 * cover what lies past the recorded kernel map (init text) */
	if (!r->opts.kallsyms && d->build_id_size) {
		struct pa_buildid run = {0};
		struct pa_err e2 = {0};
		ds->live = !pa_buildid_running_kernel(NULL, &run, &e2) &&
			   run.size == d->build_id_size &&
			   !memcmp(run.data, d->build_id, run.size);
	}
}

/* Our own vdso, for a recording made here that did not keep the vdso's
 * build-id (perf record -z, pipe mode): perf does the same (but not for a
 * recorded build-id its cache lacks). Its image (*img, *size) and
 * build-id; the cache is not written (the resolver is read-only): symbols
 * are read from the image when the cache has none. */
static bool running_vdso(const unsigned char **img_out, size_t *size_out, struct pa_buildid *id)
{
	size_t size;
	const unsigned char *img = pa_buildid_running_vdso(&size);
	struct pa_err err = {0};
	if (!img || pa_buildid_read_elf_mem(img, size, id, &err))
		return false;
	*img_out = img;
	*size_out = size;
	return true;
}

/* Separate debug info the way perf looks for it: by build-id first (the
 * cache's "debug" file, /usr/lib/debug/.build-id, debuginfod), then the
 * symbols layer's own debuglink search. Without the cache step an archive
 * unpacked on another machine loses the debug file it carried. */
static char *find_debuginfo(void *ctx, const char *main_path, const uint8_t *build_id,
			    size_t build_id_len, const char *debuglink, uint32_t crc)
{
	struct pa_resolver *r = ctx;
	if (build_id_len && build_id_len <= PA_BUILDID_MAX) {
		struct pa_buildid id = {.size = (uint8_t)build_id_len};
		char *p = NULL;
		memcpy(id.data, build_id, build_id_len);
		if (pa_finder_find_debug(r->finder, &id, &p) == PA_FIND_OK)
			return p;
	}
	return pa_sym_find_debuginfo_default(NULL, main_path, build_id, build_id_len, debuglink,
					     crc);
}

static void load_elf(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = NULL;
	const char *origin = NULL;
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	const unsigned char *vdso = NULL;
	size_t vdso_size = 0;
	if (!id.size && d->kind == PA_DSO_VDSO && recorded_here(r) &&
	    !running_vdso(&vdso, &vdso_size, &id))
		id.size = 0;
	enum pa_find_result fr = pa_finder_find_elf(r->finder, d->long_name, &id, &path, &origin);
	if (fr != PA_FIND_OK && !vdso) {
		dso_fail(ds, find_result_why(fr));
		return;
	}
	struct pa_err err = {0};
	struct pa_sym_opts so = {.sz = sizeof(so),
	                         .demangle = !r->opts.no_demangle,
	                         .demangle_params = r->opts.demangle_params,
	                         .find_debuginfo = find_debuginfo,
	                         .find_ctx = r,
	                         .index_dir = r->elf_index_dir};
	if (fr == PA_FIND_OK) {
		ds->tab = pa_symtab_load_elf(path, &so, &err);
		ds->elf_path = path; /* for source lines; freed with the resolver */
		ds->where = origin;
	} else {
		/* an entry perf made (the whole mapping) was just as good */
		ds->tab = pa_symtab_load_elf_mem(d->long_name, vdso, vdso_size, &so, &err);
		ds->from = "read from the running vdso (not in the build-id cache)";
	}
	if (!ds->tab) {
		dso_fail(ds, "no symbol table");
		return;
	}
	ds->state = 1;
	/* kept for its program headers and source lines, but -v says why
	 * its addresses stay unnamed (a stripped static binary) */
	if (!pa_symtab_count(ds->tab))
		ds->why = "no symbol table";
}

/* ---- kernel modules ---------------------------------------------------------
 * perf 6.1 loads a module's symbols when a sample or call-chain entry first
 * lands in it (map__load -> dso__load): from its .ko, found by build-id
 * (pa_finder_kmod_candidates, validated here); else the module keeps what
 * kallsyms gave it. That depends on when the kernel's own symbols were
 * loaded (its first sample):
 *  - before: perf's split of kallsyms moved the module's symbols into it,
 *    relative to the module map's start; a .ko then replaces them (perf
 *    deletes them first);
 *  - after: the split finds the module loaded, drops the first of each run
 *    of its symbols and inserts the rest anyway - beside the .ko's, if
 *    any, in the map's space then - for the samples that follow.
 * pa resolves locations, not samples: a location takes the state of its
 * first occurrence. --vmlinux: no kallsyms, so .ko files or nothing. */

/* The first location (in stream order) in d, or SIZE_MAX. */
static size_t first_loc(const struct pa_resolver *r, const struct pa_dso *d)
{
	for (size_t i = 0; i < r->nr_locs; i++)
		if (r->locs[i].dso == d)
			return i;
	return SIZE_MAX;
}

static const struct pa_dso *machine_kernel(struct pa_resolver *r, const struct pa_dso *d)
{
	for (unsigned i = 0; i < pa_session_nr_dsos(r->session); i++) {
		const struct pa_dso *k = pa_session_dso(r->session, i);
		if (k->kind == PA_DSO_KERNEL && k->machine == d->machine)
			return k;
	}
	return NULL;
}

/* A module location's map-relative address (see vmlinux_offset()). */
static bool kmod_offset(const struct dso_syms *ds, uint64_t addr, uint64_t *off)
{
	uint64_t size = ds->kmod_end - ds->kmod_start;
	if (addr >= ds->kmod_start && addr < ds->kmod_end) {
		*off = addr - ds->kmod_start + ds->kmod_pgoff;
		return true;
	}
	if (ds->kmod_remapped && addr >= ds->kmod_pgoff && addr - ds->kmod_pgoff < size) {
		*off = addr;
		return true;
	}
	return false;
}

/* perf keeps the map-relative address of a module sample (and prints it
 * when no symbol covers it): do the same to the module's locations. */
static void kmod_remap_locs(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	uint64_t size = ds->kmod_end - ds->kmod_start;
	if (ds->kmod_start < ds->kmod_pgoff + size && ds->kmod_pgoff < ds->kmod_end)
		return;
	for (size_t i = 0; i < r->nr_locs; i++) {
		struct pa_loc *l = &r->locs[i];
		if (l->dso == d && l->addr >= ds->kmod_start && l->addr < ds->kmod_end)
			l->addr = l->addr - ds->kmod_start + ds->kmod_pgoff;
	}
	ds->kmod_remapped = true;
}

static int cmp_addr_idx(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The map-relative addresses of d whose first location comes after the
 * kernel's first one (index kidx). false on ENOMEM. */
static bool kmod_late_addrs(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds,
			    size_t kidx)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < r->nr_locs; i++)
		n += r->locs[i].dso == d;
	uint64_t *v = malloc((n ? n : 1) * 2 * sizeof(*v));
	if (!v)
		return false;
	for (size_t i = 0, j = 0; i < r->nr_locs; i++)
		if (r->locs[i].dso == d) {
			uint64_t off = r->locs[i].addr;
			kmod_offset(ds, off, &off); /* as the lookups will */
			v[2 * j] = off;
			v[2 * j++ + 1] = i;
		}
	qsort(v, n, 2 * sizeof(*v), cmp_addr_idx);
	for (size_t i = 0; i < n; i++)
		if ((!i || v[2 * i] != v[2 * i - 2]) && v[2 * i + 1] > kidx)
			v[k++] = v[2 * i];
	ds->kmod_late_addrs = pa_arena_alloc(&r->arena, (k ? k : 1) * sizeof(uint64_t));
	if (ds->kmod_late_addrs)
		memcpy(ds->kmod_late_addrs, v, k * sizeof(uint64_t));
	ds->nr_kmod_late_addrs = k;
	free(v);
	return ds->kmod_late_addrs != NULL;
}

static bool kmod_is_late(const struct dso_syms *ds, uint64_t off)
{
	size_t lo = 0, hi = ds->nr_kmod_late_addrs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ds->kmod_late_addrs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ds->nr_kmod_late_addrs && ds->kmod_late_addrs[lo] == off;
}

/* The module's share of kallsyms as perf's split hands it over, in the
 * module map's space at pgoff: all of it for a module not loaded yet;
 * for a loaded one, not the first symbol of each run of its symbols (the
 * split checks "loaded" only when it switches to the module). *n = 0 and
 * NULL when none. */
static struct pa_sym_insert *kallsyms_share(const struct pa_symtab *k, const char *module,
					    uint64_t start, uint64_t pgoff, bool loaded, size_t *n)
{
	size_t count = pa_symtab_count(k), m = 0;
	struct pa_sym_insert *v = NULL;
	*n = 0;
	for (size_t pass = 0; pass < 2; pass++) {
		bool prev_in = false;
		m = 0;
		for (size_t i = 0; i < count; i++) {
			const struct pa_sym *s = pa_symtab_at(k, i);
			const char *mod = pa_sym_module(k, s);
			bool in = mod && !strcmp(mod, module);
			if (in && (!loaded || prev_in)) {
				if (v)
					v[m] = (struct pa_sym_insert){.start = s->start - start + pgoff,
								      .end = s->end - start + pgoff,
								      .name = s->name,
								      .binding = s->binding,
								      .type = s->type};
				m++;
			}
			prev_in = in;
		}
		if (!m || v)
			break;
		if (!(v = malloc(m * sizeof(*v))))
			return NULL;
	}
	*n = m;
	return v;
}

struct kmod_find {
	const struct pa_dso *d;
	enum pa_kmod_comp comp;
	struct pa_symtab *tab;
	char *path;
	char why[384]; /* the last candidate's rejection */
};

/* perf's symsrc__init() + "has a .symtab": the first candidate that is an
 * ELF file with the recorded build-id (when there is one) and a .symtab. */
static int kmod_try(void *ctx, const char *path, const char *origin)
{
	struct kmod_find *kf = ctx;
	struct pa_sym_opts so = {.sz = sizeof(so), .demangle = false};
	struct pa_err err = {0};
	struct pa_symtab *t = pa_symtab_load_kmod(path, kf->comp, NULL, 0, &so, &err);
	(void)origin;
	if (!t) {
		snprintf(kf->why, sizeof(kf->why), "%s", err.msg);
		return err.code == -ENOMEM ? -ENOMEM : 0;
	}
	size_t n = 0;
	const uint8_t *id = pa_symtab_build_id(t, &n);
	if (kf->d->build_id_size && (!n || !kernel_id_equal(kf->d, id, n))) {
		char hex[2 * PA_BUILDID_MAX + 1] = "";
		if (n)
			pa_hex(hex, id, n);
		snprintf(kf->why, sizeof(kf->why), "'%s': %s%s", path,
			 n ? "build-id mismatch: the file is " : "no build-id note", hex);
		pa_symtab_free(t);
		return 0;
	}
	if (!(kf->path = strdup(path))) {
		pa_symtab_free(t);
		return -ENOMEM;
	}
	kf->tab = t;
	return 1;
}

static void kmod_fail(struct pa_resolver *r, struct dso_syms *ds, const char *fmt, const char *a,
		      const char *b)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), fmt, a, b);
	const char *why = pa_arena_strdup(&r->arena, buf);
	dso_fail(ds, why ? why : "no module symbols");
}

static void load_module(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	const struct pa_dso *k = machine_kernel(r, d);
	struct dso_syms *ks = k ? pa_resolver_dso_syms(r, k) : NULL;
	if (ks && ks->live) {
		/* perf reads /proc/kcore then, which replaces the module maps:
		 * keep to the running kernel's kallsyms */
		if (ks->state > 0) {
			ds->state = 2; /* borrow */
			ds->borrow = ks;
		} else {
			dso_fail(ds, ks->why);
		}
		return;
	}
	size_t midx = first_loc(r, d), kidx = k ? first_loc(r, k) : SIZE_MAX;
	struct pa_addr_loc al;
	if (midx == SIZE_MAX || d->machine != pa_session_machine(r->session, 0) ||
	    !pa_session_find_map(r->session, NULL, PA_MISC_KERNEL, r->locs[midx].addr, &al) ||
	    al.dso != d) {
		dso_fail(ds, "no module map");
		return;
	}
	ds->kmod = true;
	ds->kmod_start = al.map->start;
	ds->kmod_end = al.map->end;
	/* kallsyms (not --vmlinux), loaded before or after the module */
	const struct pa_symtab *ktab = ks && ks->state == 1 && !ks->vmlinux && ks->tab &&
					       pa_symtab_kind(ks->tab) == PA_SYMTAB_KALLSYMS
					   ? ks->tab
					   : NULL;
	bool kernel_first = ktab && kidx < midx;
	bool kernel_later = ktab && kidx != SIZE_MAX && kidx > midx;
	char module[256];
	snprintf(module, sizeof(module), "%s", d->short_name[0] == '[' ? d->short_name + 1
								       : d->short_name);
	module[strcspn(module, "]")] = '\0';

	struct kmod_find kf = {.d = d, .comp = pa_kmod_comp_of(d->long_name)};
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	if (pa_finder_kmod_candidates(r->finder, d->long_name, &id, kmod_try, &kf) < 0) {
		dso_fail(ds, "out of memory");
		return;
	}
	struct pa_sym_insert *late = NULL;
	size_t nr_late = 0;
	struct pa_err err = {0};
	if (kf.tab) {
		struct pa_kimage ki;
		ds->kmod_ko = true;
		if (pa_symtab_count(kf.tab) && !pa_symtab_kimage(kf.tab, &ki))
			ds->kmod_pgoff = ki.text_offset;
		ds->tab = kf.tab;
		ds->state = 1;
		if (kernel_later)
			late = kallsyms_share(ktab, module, ds->kmod_start, ds->kmod_pgoff, true,
					      &nr_late);
		if (nr_late) {
			struct pa_sym_opts so = {.sz = sizeof(so), .demangle = false};
			ds->kmod_late =
			    pa_symtab_load_kmod(kf.path, kf.comp, late, nr_late, &so, &err);
		}
	} else if (kernel_first) {
		struct pa_sym_insert *v =
		    kallsyms_share(ktab, module, ds->kmod_start, 0, false, &nr_late);
		if (nr_late)
			ds->tab = pa_symtab_from_syms(v, nr_late, &err);
		free(v);
		nr_late = 0;
		if (ds->tab)
			ds->state = 1;
		else
			kmod_fail(r, ds, "no usable .ko%s%s, and kallsyms has no symbols of it",
				  kf.why[0] ? ": " : "", kf.why);
	} else if (kernel_later &&
		   (late = kallsyms_share(ktab, module, ds->kmod_start, 0, true, &nr_late)) &&
		   (ds->tab = pa_symtab_from_syms(NULL, 0, &err)) != NULL) {
		ds->kmod_late = pa_symtab_from_syms(late, nr_late, &err);
		ds->state = 1;
	} else {
		kmod_fail(r, ds,
			  ktab ? "no usable .ko%s%s, and the kernel's first sample came after the "
				 "module's (perf then has no kallsyms symbols for its samples)"
			       : "no usable .ko%s%s, and no kallsyms for the module's symbols",
			  kf.why[0] ? ": " : "", kf.why);
	}
	free(late);
	free(kf.path);
	if (ds->kmod_late)
		pa_symtab_adopt(ds->tab, ds->kmod_late);
	kmod_remap_locs(r, d, ds);
	if (ds->kmod_late && !kmod_late_addrs(r, d, ds, kidx))
		ds->kmod_late = NULL; /* freed with tab */
}

/* A JIT's /tmp/perf-PID.map: that file when the recording was made here
 * (perf reads it by its path), else the copy pa archive packed. */
static void load_perf_map(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds)
{
	struct pa_err err = {0};
	struct pa_sym_opts so = {.sz = sizeof(so),
	                         .demangle = !r->opts.no_demangle,
	                         .demangle_params = r->opts.demangle_params};
	char *path = NULL;
	bool here = recorded_here(r);
	enum pa_find_result fr =
	    pa_finder_find_perf_map(r->finder, d->long_name, here, &path, NULL, NULL);
	if (fr != PA_FIND_OK) {
		dso_fail(ds, pa_finder_perf_map_why(fr, here));
		return;
	}
	ds->tab = pa_symtab_load_perf_map(path, &so, &err);
	free(path);
	if (!ds->tab)
		dso_fail(ds, "JIT map unreadable");
	else
		ds->state = 1;
}

struct dso_syms *pa_resolver_dso_syms(struct pa_resolver *r, const struct pa_dso *d)
{
	struct dso_syms *ds = &r->dsyms[d->idx];
	if (ds->state || pa_resolver_take_preloaded(r, d, ds))
		return ds;
	switch (d->kind) {
	case PA_DSO_KERNEL:
		pa_resolver_load_kernel(r, d, ds);
		break;
	case PA_DSO_KERNEL_MODULE:
		load_module(r, d, ds);
		break;
	case PA_DSO_ANON:
		load_perf_map(r, d, ds);
		break;
	case PA_DSO_JIT:
		ds->state = 3; /* names come from the file's own JIT table */
		break;
	case PA_DSO_USER:
	case PA_DSO_VDSO:
		load_elf(r, d, ds);
		break;
	default:
		dso_fail(ds, "no symbols for this kind of mapping");
		break;
	}
	return ds;
}

const struct pa_sym *pa_resolver_lookup(struct pa_resolver *r, const struct pa_dso *d, uint64_t addr)
{
	if (!d)
		return NULL;
	struct dso_syms *ds = pa_resolver_dso_syms(r, d);
	if (ds->state == 3) {
		/* one symbol per JIT address; lookups are once per location */
		const char *name = pa_file_jit_name(pa_session_file(r->session), addr);
		struct pa_sym *sym = name ? pa_arena_alloc(&r->arena, sizeof(*sym)) : NULL;
		if (sym)
			*sym = (struct pa_sym){.start = addr, .end = addr + 1, .name = name};
		return sym;
	}
	if (ds->kmod) {
		uint64_t off;
		if (ds->state != 1 || !kmod_offset(ds, addr, &off))
			return NULL;
		bool late = ds->kmod_late && kmod_is_late(ds, off);
		return pa_symtab_find_offset(late ? ds->kmod_late : ds->tab, off);
	}
	if (ds->state == 2)
		ds = ds->borrow;
	if (ds->state <= 0 || !ds->tab)
		return NULL;
	if (ds->vmlinux) {
		/* outside .text perf has other maps (or none) */
		uint64_t off;
		return vmlinux_offset(ds, addr, &off) ? pa_symtab_find_offset(ds->tab, off) : NULL;
	}
	/* ELF tables are searched by file offset, as perf does: exact even
	 * when segments have different vaddr-offset gaps. */
	if (pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF)
		return pa_symtab_find_offset(ds->tab, addr);
	return pa_symtab_find(ds->tab, addr);
}

const char *pa_resolver_kernel_sym(struct pa_resolver *r, uint64_t addr, uint64_t *start,
                                   const char **module)
{
	struct pa_addr_loc al;
	if (!pa_session_find_map(r->session, NULL, PA_MISC_KERNEL, addr, &al) || !al.dso)
		return NULL;
	const struct pa_sym *sym = pa_resolver_lookup(r, al.dso, al.addr);
	if (!sym)
		return NULL;
	/* the symbol's start back in the map's addresses (perf's unmap_ip) */
	*start = al.map->identity ? sym->start : sym->start - al.map->pgoff + al.map->start;
	*module = al.dso->kind == PA_DSO_KERNEL_MODULE ? al.dso->short_name : NULL;
	return sym->name;
}

/* The source lines of ds's symbols file (and its debug file), not read
 * yet; NULL without memory. */
static struct pa_srcinfo *open_src(struct dso_syms *ds)
{
	const char *sf = pa_symtab_symbol_file(ds->tab);
	struct pa_err err = {0};
	ds->src = pa_srcinfo_open(ds->elf_path, sf && strcmp(sf, ds->elf_path) ? sf : NULL, &err);
	return ds->src;
}

struct pa_srcinfo *pa_resolver_srcinfo(struct pa_resolver *r, const struct pa_loc *l,
                                       uint64_t *addr)
{
	if (!l->dso)
		return NULL;
	struct dso_syms *ds = pa_resolver_dso_syms(r, l->dso);
	/* where the ELF table looks the location up: its file offset (a
	 * vmlinux's: through the kernel map perf made of its .text) */
	*addr = l->addr;
	if (ds->kmod || ds->state != 1 || !ds->elf_path || !ds->tab ||
	    pa_symtab_kind(ds->tab) != PA_SYMTAB_ELF || l->dso->kind == PA_DSO_VDSO)
		return NULL;
	if (ds->vmlinux && !vmlinux_offset(ds, l->addr, addr))
		return NULL;
	if (!ds->src)
		open_src(ds);
	return ds->src;
}

void pa_resolver_load_user(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds,
                           bool src)
{
	load_elf(r, d, ds);
	/* (the DSOs pa_resolver_srcinfo opens, the lookups' loading done now) */
	if (src && ds->state == 1 && ds->elf_path && pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF &&
	    d->kind == PA_DSO_USER && open_src(ds))
		pa_srcinfo_load(ds->src);
}

/* Where a symbol's offsets count from: an ELF table's key for its own
 * symbols, else the symbol's start (an inline frame's symbol is in no
 * table: it starts where the function holding it does). */
static uint64_t sym_base(const struct dso_syms *ds, const struct pa_sym *s)
{
	if (!s)
		return 0;
	if (ds->state == 1 && ds->tab && !s->inlined && pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF)
		return pa_sym_key(ds->tab, s);
	return s->start;
}

/* The srcline value perf 6.1 shows: addr2line's answer for ELF DSOs (the
 * file the symbols came from, and its separate debug file), else its
 * fallbacks: "SYM+OFF", "DSO[ADDR]", or "??:0" without a map. */
/* (show_sym: "SYM+OFF" when addr2line has nothing, else "+OFF"; no_sym:
 * as if the location had no symbol, "DSO[ADDR]") */
static const char *srcline_as(struct pa_resolver *r, const struct pa_loc *l, bool show_sym,
                              bool no_sym)
{
	const char *sym_name = !l->sym || no_sym ? NULL : show_sym ? l->sym->name : "";
	char buf[512];
	if (!l->dso)
		return PA_SRCLINE_UNKNOWN;
	struct dso_syms *ds = pa_resolver_dso_syms(r, l->dso);
	if (ds->kmod) {
		/* perf 6.1 hangs in addr2line on a .ko (ET_REL): its fallback.
		 * The objdump address of a .ko location is .text-relative. */
		uint64_t off = l->addr;
		kmod_offset(ds, l->addr, &off);
		pa_srcline_fallback(buf, sizeof(buf), l->dso->short_name,
				    ds->kmod_ko ? off - ds->kmod_pgoff : off,
				    sym_name, l->sym ? off - l->sym->start : 0);
		return pa_arena_strdup(&r->arena, buf);
	}
	uint64_t addr;
	struct pa_srcinfo *src = pa_resolver_srcinfo(r, l, &addr);
	if (src) {
		uint64_t off = l->sym ? addr - sym_base(ds, l->sym) : 0;
		const char *s = pa_srcinfo_srcline(src, addr, l->dso->short_name,
		                                   sym_name, off);
		if (s)
			return s;
	}
	pa_srcline_fallback(buf, sizeof(buf), l->dso->short_name, l->addr, sym_name,
	                    addr - sym_base(ds, l->sym));
	return pa_arena_strdup(&r->arena, buf);
}

const char *pa_resolver_srcline(struct pa_resolver *r, const struct pa_loc *l)
{
	return srcline_as(r, l, true, false);
}

const char *pa_resolver_source_file(struct pa_resolver *r, const struct pa_loc *l, unsigned *line)
{
	if (!l->dso || pa_resolver_dso_syms(r, l->dso)->kmod)
		return NULL;
	uint64_t addr;
	struct pa_srcinfo *src = pa_resolver_srcinfo(r, l, &addr);
	return src ? pa_srcinfo_file(src, addr, line) : NULL;
}

const char *pa_resolver_map_srcline(struct pa_resolver *r, const struct pa_loc *l)
{
	return l->dso ? srcline_as(r, l, true, true) : NULL;
}

const char *pa_resolver_chain_srcline(struct pa_resolver *r, const struct pa_loc *l)
{
	if (l->inl_frame)
		return l->srcline;
	return l->dso ? srcline_as(r, l, false, false) : NULL;
}

const char *pa_resolver_ip_srcline(struct pa_resolver *r, const struct pa_loc *l)
{
	char buf[512];
	if (!l->dso)
		return PA_SRCLINE_UNKNOWN;
	struct dso_syms *ds = pa_resolver_dso_syms(r, l->dso);
	uint64_t addr;
	struct pa_srcinfo *src = ds->kmod ? NULL : pa_resolver_srcinfo(r, l, &addr);
	uint64_t start = sym_base(ds, l->sym);
	if (src) {
		/* the raw ip taken for a file's objdump address */
		uint64_t base = pa_srcinfo_objdump_addr(src, 0);
		const char *s =
		    l->ip >= base ? pa_srcinfo_line(src, l->ip - base, NULL) : NULL;
		if (s)
			return s;
	}
	pa_srcline_fallback(buf, sizeof(buf), l->dso->short_name, l->ip,
			    l->sym ? l->sym->name : NULL, l->ip - start);
	return pa_arena_strdup(&r->arena, buf);
}

uint64_t pa_resolver_sym_offset(struct pa_resolver *r, const struct pa_loc *l)
{
	if (!l->sym)
		return 0;
	if (!l->dso)
		return l->addr - l->sym->start;
	/* where the location's table keys its symbols (as pa_resolver_lookup
	 * finds them): the offset from the key of the symbol there, the
	 * function an inline frame's code was inlined into (perf gives such
	 * a frame that function's start) */
	struct dso_syms *ds = pa_resolver_dso_syms(r, l->dso);
	const struct pa_symtab *tab = NULL;
	uint64_t off = l->addr;
	if (ds->kmod) {
		if (ds->state == 1 && kmod_offset(ds, l->addr, &off))
			tab = ds->kmod_late && kmod_is_late(ds, off) ? ds->kmod_late : ds->tab;
	} else {
		if (ds->state == 2)
			ds = ds->borrow;
		if (ds->state == 1 && ds->tab && ds->vmlinux)
			tab = vmlinux_offset(ds, l->addr, &off) ? ds->tab : NULL;
		else if (ds->state == 1 && ds->tab && pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF)
			tab = ds->tab;
	}
	const struct pa_sym *base = tab ? pa_symtab_find_offset(tab, off) : NULL;
	return base ? off - pa_sym_key(tab, base) : l->addr - l->sym->start;
}

unsigned pa_resolver_decl_line(struct pa_resolver *r, const struct pa_loc *l)
{
	if (l->inl_frame)
		return l->decl_line;
	uint64_t addr;
	struct pa_srcinfo *src = l->dso && l->sym ? pa_resolver_srcinfo(r, l, &addr) : NULL;
	struct pa_srcinfo_frame fr[16];
	size_t n = src ? pa_srcinfo_frames(src, addr, fr, PA_ARRAY_SIZE(fr)) : 0;
	/* the last frame is the out-of-line function (beyond 16 frames of
	 * inlining, unknown here) */
	return n && n <= PA_ARRAY_SIZE(fr) ? fr[n - 1].decl_line : 0;
}
