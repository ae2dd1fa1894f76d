/* resolve.c - per-DSO symbol tables, loaded once, through the build-id
 * finder; a DSO that failed remembers why and is never retried. */
#include "internal.h"

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

static void load_kernel(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = NULL;
	struct pa_err err = {0};
	if (r->opts.kallsyms) {
		path = strdup(r->opts.kallsyms);
	} else {
		struct pa_buildid id = {.size = d->build_id_size};
		memcpy(id.data, d->build_id, d->build_id_size);
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
	if (!ds->tab)
		dso_fail(ds, "kallsyms unreadable");
	else
		ds->state = 1;
}

static void load_elf(struct pa_report *r, const struct pa_dso *d, struct dso_syms *ds)
{
	char *path = NULL;
	const char *origin = NULL;
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	enum pa_find_result fr = pa_finder_find_elf(r->finder, d->long_name, &id, &path, &origin);
	if (fr != PA_FIND_OK) {
		dso_fail(ds, find_result_why(fr));
		return;
	}
	struct pa_err err = {0};
	struct pa_sym_opts so = {.sz = sizeof(so), .demangle = !r->opts.no_demangle};
	ds->tab = pa_symtab_load_elf(path, &so, &err);
	free(path);
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
		load_kernel(r, d, ds);
		break;
	case PA_DSO_KERNEL_MODULE: {
		/* module symbols come with the kernel's kallsyms */
		const struct pa_dso *k = NULL;
		for (unsigned i = 0; i < pa_session_nr_dsos(r->session); i++)
			if (pa_session_dso(r->session, i)->kind == PA_DSO_KERNEL)
				k = pa_session_dso(r->session, i);
		struct dso_syms *ks = k ? pa_report_dso_syms(r, k) : NULL;
		if (ks && ks->state > 0) {
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
	if (ds->state == 2)
		ds = ds->borrow;
	if (ds->state <= 0 || !ds->tab)
		return NULL;
	if (pa_symtab_kind(ds->tab) == PA_SYMTAB_ELF) {
		uint64_t vaddr;
		if (pa_symtab_offset_to_vaddr(ds->tab, addr, &vaddr))
			return NULL;
		addr = vaddr;
	}
	return pa_symtab_find(ds->tab, addr);
}
