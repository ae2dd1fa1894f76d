/* resolve.c - per-DSO symbol tables, loaded once, through the build-id
 * finder; a DSO that failed remembers why and is never retried. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

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
static bool recorded_here(struct pa_report *r)
{
	const struct pa_header_info *h = pa_file_header(pa_session_file(r->session));
	struct utsname u;
	if (uname(&u) || !h->hostname || !h->osrelease || !h->arch)
		return false;
	return !strcmp(h->hostname, u.nodename) && !strcmp(h->osrelease, u.release) &&
	       !strcmp(h->arch, u.machine);
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
static bool kernel_ref(struct pa_report *r, char *name, size_t size, uint64_t *addr)
{
	const char *ref = NULL;
	*addr = 0;
	if (!pa_session_kernel_ref(r->session, &ref, addr))
		return false;
	snprintf(name, size, "%s", ref);
	return *addr && *name;
}

/* A reason naming the file (path NULL: the message does), kept in the
 * report's arena. */
static void vmlinux_fail(struct pa_report *r, struct dso_syms *ds, const char *path,
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
static char *vmlinux_path(struct pa_report *r)
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
static void vmlinux_remap_locs(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
{
	uint64_t size = ds->vml_end - ds->vml_start;
	if (ds->vml_start < ds->vml_pgoff + size && ds->vml_pgoff < ds->vml_end)
		return;
	for (size_t i = 0; i < r->nr_locs; i++) {
		struct loc *l = &r->locs[i];
		if (l->dso == d && l->addr >= ds->vml_start && l->addr < ds->vml_end)
			l->addr = l->addr - ds->vml_start + ds->vml_pgoff;
	}
	ds->vml_remapped = true;
}

static void load_vmlinux(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
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

void pa_report_load_kernel(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = NULL;
	struct pa_err err = {0};
	if (r->opts.kallsyms) {
		path = strdup(r->opts.kallsyms);
	} else if (r->opts.vmlinux) {
		load_vmlinux(r, d, ds);
		return;
	} else {
		struct pa_buildid id = {.size = d->build_id_size};
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
	struct pa_sym_opts so = {.sz = sizeof(so), .demangle = !r->opts.no_demangle};
	ds->tab = pa_symtab_load_kallsyms(path, &so, &err);
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
 * build-id (perf record -z, pipe mode): perf does the same. The image is
 * added to the cache under its build-id. */
static bool running_vdso_id(struct pa_report *r, struct pa_buildid *id)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	if (!img || memcmp(img, "\177ELF", 4))
		return false;
	/* the image ends with its section header table */
	size_t size;
	if (img[4] == 2) {
		uint64_t shoff;
		uint16_t shentsize, shnum;
		memcpy(&shoff, img + 0x28, 8);
		memcpy(&shentsize, img + 0x3a, 2);
		memcpy(&shnum, img + 0x3c, 2);
		size = (size_t)shoff + (size_t)shentsize * shnum;
	} else {
		uint32_t shoff;
		uint16_t shentsize, shnum;
		memcpy(&shoff, img + 0x20, 4);
		memcpy(&shentsize, img + 0x2e, 2);
		memcpy(&shnum, img + 0x30, 2);
		size = (size_t)shoff + (size_t)shentsize * shnum;
	}
	if (size < 64 || size > (1u << 20))
		return false;
	struct pa_err err = {0};
	if (pa_buildid_read_elf_mem(img, size, id, &err))
		return false;
	/* an entry perf made (the whole mapping) is just as good */
	pa_bcache_add_mem(pa_finder_cache(r->finder), img, size, "[vdso]", id, PA_BCACHE_VDSO,
			  &err);
	return true;
}

/* Separate debug info the way perf looks for it: by build-id first (the
 * cache's "debug" file, /usr/lib/debug/.build-id, debuginfod), then the
 * symbols layer's own debuglink search. Without the cache step an archive
 * unpacked on another machine loses the debug file it carried. */
static char *find_debuginfo(void *ctx, const char *main_path, const uint8_t *build_id,
			    size_t build_id_len, const char *debuglink, uint32_t crc)
{
	struct pa_report *r = ctx;
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

static void load_elf(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = NULL;
	const char *origin = NULL;
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	if (!id.size && d->kind == PA_DSO_VDSO && recorded_here(r) && !running_vdso_id(r, &id))
		id.size = 0;
	enum pa_find_result fr = pa_finder_find_elf(r->finder, d->long_name, &id, &path, &origin);
	if (fr != PA_FIND_OK) {
		dso_fail(ds, find_result_why(fr));
		return;
	}
	struct pa_err err = {0};
	struct pa_sym_opts so = {.sz = sizeof(so),
				 .demangle = !r->opts.no_demangle,
				 .find_debuginfo = find_debuginfo,
				 .find_ctx = r};
	ds->tab = pa_symtab_load_elf(path, &so, &err);
	ds->elf_path = path; /* for source lines; freed with the report */
	if (!ds->tab)
		dso_fail(ds, "no symbol table");
	else
		ds->state = 1;
}

static void load_perf_map(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
{
	struct pa_err err = {0};
	struct pa_sym_opts so = {.sz = sizeof(so), .demangle = !r->opts.no_demangle};
	ds->tab = pa_symtab_load_perf_map(d->long_name, &so, &err);
	if (!ds->tab)
		dso_fail(ds, "JIT map not found");
	else
		ds->state = 1;
}

struct dso_syms *pa_report_dso_syms(struct pa_report *r, const struct pa_dso *d)
{
	struct dso_syms *ds = &r->dsyms[d->idx];
	if (ds->state)
		return ds;
	switch (d->kind) {
	case PA_DSO_KERNEL:
		pa_report_load_kernel(r, d, ds);
		break;
	case PA_DSO_KERNEL_MODULE: {
		/* module symbols come with the kernel's kallsyms */
		const struct pa_dso *k = NULL;
		for (unsigned i = 0; i < pa_session_nr_dsos(r->session); i++)
			if (pa_session_dso(r->session, i)->kind == PA_DSO_KERNEL)
				k = pa_session_dso(r->session, i);
		struct dso_syms *ks = k ? pa_report_dso_syms(r, k) : NULL;
		if (ks && ks->vmlinux) {
			/* perf reads the modules' own .ko files then */
			dso_fail(ds, "module symbols come with kallsyms, which --vmlinux replaces "
				     "(pa does not read .ko files)");
		} else if (ks && ks->state > 0) {
			ds->tab = NULL;
			ds->state = 2; /* borrow */
			ds->borrow = ks;
		} else {
			dso_fail(ds, ks ? ks->why : "no kernel symbols");
		}
		break;
	}
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

const struct pa_sym *pa_report_lookup(struct pa_report *r, const struct pa_dso *d, uint64_t addr)
{
	if (!d)
		return NULL;
	struct dso_syms *ds = pa_report_dso_syms(r, d);
	if (ds->state == 3) {
		/* one symbol per JIT address; lookups are once per location */
		const char *name = pa_file_jit_name(pa_session_file(r->session), addr);
		struct pa_sym *sym = name ? pa_arena_alloc(&r->arena, sizeof(*sym)) : NULL;
		if (sym)
			*sym = (struct pa_sym){.start = addr, .end = addr + 1, .name = name};
		return sym;
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

/* The srcline value perf 6.1 shows: addr2line's answer for ELF DSOs (the
 * file the symbols came from, and its separate debug file), else its
 * fallbacks: "SYM+OFF", "DSO[ADDR]", or "??:0" without a map. */
const char *pa_report_srcline(struct pa_report *r, const struct loc *l)
{
	char buf[512];
	if (!l->dso)
		return PA_SRCLINE_UNKNOWN;
	struct dso_syms *ds = pa_report_dso_syms(r, l->dso);
	/* where the ELF table looks the location up: its file offset (a
	 * vmlinux's: through the kernel map perf made of its .text) */
	uint64_t addr = l->addr;
	bool elf = ds->state == 1 && ds->elf_path && ds->tab &&
		   pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF && l->dso->kind != PA_DSO_VDSO;
	if (ds->vmlinux && !vmlinux_offset(ds, l->addr, &addr))
		elf = false;
	if (elf) {
		if (!ds->src) {
			const char *sf = pa_symtab_symbol_file(ds->tab);
			struct pa_err err = {0};
			ds->src = pa_srcinfo_open(ds->elf_path,
						  sf && strcmp(sf, ds->elf_path) ? sf : NULL, &err);
		}
		if (ds->src) {
			uint64_t off = l->sym ? addr - pa_sym_key(ds->tab, l->sym) : 0;
			const char *s = pa_srcinfo_srcline(ds->src, addr, l->dso->short_name,
							   l->sym ? l->sym->name : NULL, off);
			if (s)
				return s;
		}
	}
	uint64_t base = l->sym ? (ds->state == 1 && ds->tab && pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF
					  ? pa_sym_key(ds->tab, l->sym)
					  : l->sym->start)
			       : 0;
	pa_srcline_fallback(buf, sizeof(buf), l->dso->short_name, l->addr,
			    l->sym ? l->sym->name : NULL, addr - base);
	return pa_arena_strdup(&r->arena, buf);
}
