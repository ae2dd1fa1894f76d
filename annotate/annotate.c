/* annotate.c - the annotation's lifecycle: options, the binaries of DSOs,
 * each symbol's listing, and the --stdio walk. */
#include "annotate/internal.h"

#include <fcntl.h>
#include <gelf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pa_annotate_percent_parse(const char *s, enum pa_annotate_percent *out)
{
	static const char *const names[] = {"local-period", "global-period", "local-hits",
	                                    "global-hits"};
	for (unsigned i = 0; i < PA_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum pa_annotate_percent)i;
			return 0;
		}
	return -EINVAL;
}

/* an event's name, or perf's evsel__group_desc for a group's leader:
 * "anon group { a, b }" (or the group's recorded name) */
static void event_name(struct pa_file *f, struct ann_event *ev, unsigned e, const char *group)
{
	char buf[128];
	const struct pa_evsel *es = e < pa_file_nr_evsels(f) ? pa_file_evsel(f, e) : NULL;
	const char *n = es ? pa_evsel_name(es, buf, sizeof(buf)) : NULL;
	size_t o = 0, size = sizeof(ev->name);
	if (ev->nr_members < 2) {
		snprintf(ev->name, size, "%s", n ? n : "");
		return;
	}
	o += (size_t)snprintf(ev->name, size, "%s { %s", group ? group : "anon group", n ? n : "");
	for (unsigned m = 1; m < ev->nr_members && o < size; m++) {
		es = pa_file_evsel(f, e + m);
		n = es ? pa_evsel_name(es, buf, sizeof(buf)) : NULL;
		o += (size_t)snprintf(ev->name + o, size - o, ", %s", n ? n : "");
	}
	if (o < size)
		snprintf(ev->name + o, size - o, " }");
}

/* Events by group (GROUP_DESC), as perf shows them: members beside their
 * leader. */
int ann_events_init(struct pa_annotate *a)
{
	struct pa_file *f = pa_session_file(pa_trace_session(a->trace));
	const struct pa_header_info *h = pa_file_header(f);
	unsigned nev = pa_file_nr_evsels(f);
	if (!(a->events = calloc(nev ? nev : 1, sizeof(*a->events))))
		return -ENOMEM;
	a->nr_events = nev;
	for (unsigned e = 0; e < nev;) {
		unsigned nr = 1;
		const char *name = NULL;
		for (uint32_t i = 0; i < h->nr_groups; i++) {
			const struct pa_group_desc *d = &h->groups[i];
			if (d->leader_idx == e && d->nr_members > 1 && e + d->nr_members <= nev &&
			    d->nr_members <= 64) {
				nr = d->nr_members;
				name = d->name && strcmp(d->name, "{anon_group}") ? d->name : NULL;
			}
		}
		for (unsigned m = 0; m < nr; m++) {
			a->events[e + m].leader = e;
			a->events[e + m].member = m;
		}
		a->events[e].nr_members = nr;
		event_name(f, &a->events[e], e, name);
		e += nr;
	}
	return 0;
}

struct pa_annotate *pa_annotate_new(struct pa_trace *t, const struct pa_annotate_opts *opts,
                                    struct pa_err *err)
{
	struct pa_annotate *a = calloc(1, sizeof(*a));
	if (!a) {
		pa_err_set(err, -ENOMEM, "annotate: %s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	if (opts && pa_opts_check(opts, sizeof(*opts))) {
		pa_err_set(err, -EINVAL, "annotate: unknown options");
		goto fail;
	}
	a->opts = (struct pa_annotate_opts){.sz = sizeof(a->opts)};
	if (opts)
		pa_opts_copy(&a->opts, sizeof(a->opts), opts);
	a->trace = t;
	a->res = pa_trace_resolver(t);
	pa_arena_init(&a->arena, 64 << 10);
	struct pa_finder_opts fo =
	    PA_FINDER_OPTS(.symfs = a->opts.symfs, .buildid_dir = a->opts.buildid_dir);
	if (ann_events_init(a)) {
		pa_err_set(err, -ENOMEM, "annotate: %s", strerror(ENOMEM));
		goto fail;
	}
	if (!(a->finder = pa_finder_new(&fo, err)) || ann_hist_gather(a, err))
		goto fail;
	return a;
fail:
	pa_annotate_free(a);
	errno = err ? -err->code : EINVAL;
	return NULL;
}

void pa_annotate_free(struct pa_annotate *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_syms; i++) {
		free(a->syms[i]->addrs);
	}
	free(a->syms);
	free(a->events);
	free(a->last_path);
	free(a->kcore);
	pa_u64map_release(&a->map);
	pa_u64map_release(&a->noted);
	pa_finder_free(a->finder);
	pa_arena_release(&a->arena);
	free(a);
}

size_t pa_annotate_nr_symbols(const struct pa_annotate *a)
{
	return a->nr_shown;
}

const char *ann_dso_name(const struct pa_annotate *a, const struct pa_dso *d)
{
	if (d->kind != PA_DSO_KERNEL)
		return d->long_name;
	return a->opts.vmlinux ? a->opts.vmlinux : a->kcore ? a->kcore : d->long_name;
}

/* An x86 ELF core: perf leaves its symbols' trailing nops out (kallsyms
 * has no sizes, so a symbol may end in padding); it knows nops on x86 only */
static bool x86_core(const char *path)
{
	GElf_Ehdr eh;
	bool x86 = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh))
		x86 = eh.e_type == ET_CORE && (eh.e_machine == EM_X86_64 || eh.e_machine == EM_386);
	if (e)
		elf_end(e);
	close(fd);
	return x86;
}

/* The kernel's code without -k: perf's kcore copy in the build-id cache
 * (or pa's copy of it from an archive), else this host's /proc/kcore for a
 * recording of the running kernel */
static char *kernel_kcore(struct pa_annotate *a, const struct pa_dso *d, const char **why)
{
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	if (!a->kcore) {
		if (pa_finder_find_kcore(a->finder, &id, &a->kcore) != PA_FIND_OK) {
			*why = "kernel code: no image of it to read bytes from (give one with "
			       "-k/--vmlinux, or cache a kcore copy: perf buildid-cache --kcore)";
			return NULL;
		}
		a->kcore_x86 = x86_core(a->kcore);
	}
	char *p = strdup(a->kcore);
	if (!p)
		*why = strerror(ENOMEM);
	return p;
}

char *ann_binary_path(struct pa_annotate *a, const struct pa_dso *d, const char **why)
{
	switch (d->kind) {
	case PA_DSO_KERNEL:
		/* the image the resolver took the symbols from (when its
		 * build-id matched: else these are kallsyms' and the image's
		 * sections hold none of them, which the disassembler says) */
		if (a->opts.vmlinux) {
			char *p = strdup(a->opts.vmlinux);
			if (!p)
				*why = strerror(ENOMEM);
			return p;
		}
		return kernel_kcore(a, d, why);
	case PA_DSO_KERNEL_MODULE:
		*why = "kernel module code: its bytes are not read";
		return NULL;
	case PA_DSO_ANON:
	case PA_DSO_JIT:
		*why = "JIT code: its symbol map holds names, not bytes";
		return NULL;
	case PA_DSO_OTHER:
		*why = "no file behind this mapping";
		return NULL;
	default:
		break;
	}
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	char *path = NULL;
	if (pa_finder_find_elf(a->finder, d->long_name, &id, &path, NULL) != PA_FIND_OK) {
		*why = d->build_id_size ? "no binary with the recorded build-id found"
		                        : "binary not found";
		free(path);
		return NULL;
	}
	return path;
}

int ann_make_listing(struct pa_annotate *a, const struct ann_sym *s, struct ann_listing *l,
                     const char **why, struct pa_err *err)
{
	char *path = ann_binary_path(a, s->dso, why);
	if (!path)
		return -PA_ERR_NOT_FOUND;
	int rc = a->opts.objdump ? ann_disasm_objdump(a, s, path, l, err)
	                         : ann_disasm_capstone(a, s, path, l, err);
	if (!rc && ann_from_kcore(a, s) && a->kcore_x86)
		ann_listing_drop_last_nops(l);
	if (rc == -PA_ERR_NOT_FOUND)
		*why = err->msg;
	free(path);
	return rc;
}

/* one note per DSO without bytes */
static void note_once(struct pa_annotate *a, const struct ann_sym *s, const char *why)
{
	int created = 0;
	void **slot = pa_u64map_slot(&a->noted, (uint64_t)(uintptr_t)s->dso, &created);
	if (!a->opts.note || (slot && !created))
		return;
	char msg[768];
	snprintf(msg, sizeof(msg), "no bytes for '%s' in '%s': %s", s->sym->name, s->dso->long_name,
	         why);
	a->opts.note(a->opts.note_ctx, msg);
}

int pa_annotate_print(struct pa_annotate *a, FILE *out, struct pa_err *err)
{
	int rc = 0;
	for (size_t i = 0; i < a->nr_syms && !rc; i++) {
		const struct ann_sym *s = a->syms[i];
		if (s->hidden)
			continue;
		struct ann_listing l;
		const char *why = NULL;
		struct pa_err e = {0};
		ann_listing_init(&l);
		rc = ann_make_listing(a, s, &l, &why, &e);
		if (rc == -PA_ERR_NOT_FOUND) {
			note_once(a, s, why);
			rc = 0;
		} else if (rc) {
			if (err)
				*err = e;
		} else if ((rc = ann_print_stdio(a, s, &l, out))) {
			pa_err_set(err, rc, "annotate: write error: %s", strerror(-rc));
		}
		ann_listing_release(&l);
	}
	return rc;
}
