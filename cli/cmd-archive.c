/* cmd-archive.c - `pa archive`: pack the build-id cache entries a recording
 * needs (perf archive's job), and `pa archive --unpack`: put them into the
 * cache of the machine that analyzes it. */
#include "cli.h"
#include "archive/archive.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

struct pack_ctx {
	int verbose;
	bool all;
	unsigned quiet_skips; /* --all: DSOs without build-id and without samples */
	unsigned files;
	uint64_t bytes;
	unsigned not_packed;
	struct pa_progress prog;
	size_t done, n; /* DSOs */
};

static void kinds_str(unsigned kinds, char *out, size_t n)
{
	out[0] = 0;
	for (int k = PA_BCACHE_ELF; k < PA_BCACHE_NR_KINDS; k++) {
		if (!(kinds & (1u << k)))
			continue;
		if (out[0])
			strncat(out, ",", n - strlen(out) - 1);
		strncat(out, pa_bcache_kind_name((enum pa_bcache_kind)k), n - strlen(out) - 1);
	}
}

static void on_packed(void *ctx, const struct pa_archive_dso_result *r)
{
	struct pack_ctx *pc = ctx;
	char hex[PA_BUILDID_HEX_MAX], kinds[64];

	pa_progress_items(&pc->prog, ++pc->done, pc->n, "DSOs");
	if ((r->content_id && r->kinds) || (r->kinds && pc->verbose) || r->why)
		pa_progress_clear(&pc->prog); /* a message follows */
	pa_buildid_to_hex(&r->id, hex);
	kinds_str(r->kinds, kinds, sizeof(kinds));
	for (unsigned k = r->kinds; k; k &= k - 1)
		pc->files++;
	pc->bytes += r->bytes;
	if (r->kinds && pc->verbose)
		fprintf(stderr, "packed %s %s: %s (%llu bytes)%s\n", hex, r->name, kinds,
		        (unsigned long long)r->bytes,
		        r->added_to_cache ? ", added to the cache first" : "");
	if (r->content_id && r->kinds)
		fprintf(stderr,
		        "pa: '%s': no build-id note: packed the file found there now, by the SHA-1 "
		        "of its content (%s); it cannot be checked against the recording\n",
		        r->name, hex);
	if (!r->why)
		return;
	if (!r->id.size && pc->all && !pc->verbose) {
		pc->quiet_skips++;
		return;
	}
	pc->not_packed++;
	if (r->kinds)
		fprintf(stderr, "pa: '%s' (build-id %s): packed %s only: %s\n", r->name, hex, kinds,
		        r->why);
	else if (r->id.size)
		fprintf(stderr, "pa: '%s' (build-id %s): not packed: %s\n", r->name, hex, r->why);
	else
		fprintf(stderr, "pa: '%s': not packed: %s\n", r->name, r->why);
}

static bool map_kind(enum pa_dso_kind k, enum pa_archive_dso_kind *out)
{
	switch (k) {
	case PA_DSO_USER:
		*out = PA_ARCHIVE_DSO_USER;
		return true;
	case PA_DSO_KERNEL:
		*out = PA_ARCHIVE_DSO_KERNEL;
		return true;
	case PA_DSO_KERNEL_MODULE:
		*out = PA_ARCHIVE_DSO_MODULE;
		return true;
	case PA_DSO_VDSO:
		*out = PA_ARCHIVE_DSO_VDSO;
		return true;
	case PA_DSO_ANON: /* the session names it /tmp/perf-PID.map */
		*out = PA_ARCHIVE_DSO_PERF_MAP;
		return true;
	default:
		return false;
	}
}

/* The DSOs a call graph needs are packed with those samples hit (perf
 * archive takes the hit ones alone): their hits are marked here. */
static int mark_chain(void *ctx, struct pa_session *s, const struct pa_event *ev,
                      struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)ctx;
	(void)loc;
	pa_session_mark_chain(s, t, ev);
	return 0;
}

/* Packed without --all: a DSO a sample hit; one only a call chain names
 * when the recording gave it a build-id (else it is in no cache). */
static bool wanted(const struct pa_dso *d, bool all)
{
	return all || d->hit || (d->chain_hit && d->build_id_size);
}

static int do_pack(const char *input, const char *output, bool all, int verbose,
                   const struct pa_archive_pack_opts *po)
{
	const char *path = input ? input : "perf.data";
	struct pack_ctx pc = {.verbose = verbose, .all = all};
	struct pa_archive_dso *dsos = NULL;
	struct pa_err err = {0};
	char *out = NULL;
	size_t n = 0;
	int status = 0;

	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_session_opts so = {.sz = sizeof(so)};
	pa_progress_init(&pc.prog, "Processing events", false, false);
	pa_progress_session(&pc.prog, f, &so);
	struct pa_session *s = pa_session_new(f, &so, &err);
	int rp = s ? pa_session_process(s, mark_chain, NULL, &err) : -1;
	pa_progress_clear(&pc.prog);
	if (rp < 0) {
		status = pa_cli_error(path, &err);
		goto out;
	}
	dsos = calloc(pa_session_nr_dsos(s) + 1, sizeof(*dsos));
	if (!dsos) {
		fprintf(stderr, "pa: out of memory\n");
		status = PA_EXIT_USAGE;
		goto out;
	}
	for (unsigned i = 0; i < pa_session_nr_machines(s); i++) {
		struct pa_machine *m = pa_session_machine(s, i);
		for (unsigned k = 0; k < pa_machine_nr_dsos(m); k++) {
			const struct pa_dso *d = pa_machine_dso(m, k);
			enum pa_archive_dso_kind kind;
			if (!wanted(d, all))
				continue;
			if (!map_kind(d->kind, &kind))
				continue;
			dsos[n].name = d->long_name;
			dsos[n].kind = kind;
			dsos[n].id.size = d->build_id_size;
			memcpy(dsos[n].id.data, d->build_id, d->build_id_size);
			n++;
		}
	}
	if (output) {
		out = strdup(output);
	} else if (!strcmp(path, "-")) {
		out = strdup("perf.data.tar.zst");
	} else {
		size_t l = strlen(path) + 16;
		out = malloc(l);
		if (out)
			snprintf(out, l, "%s.tar.zst", path);
	}
	if (!out) {
		fprintf(stderr, "pa: out of memory\n");
		status = PA_EXIT_USAGE;
		goto out;
	}
	struct pa_archive_pack_opts o = *po;
	o.recorded_here = pa_session_recorded_here(s);
	pc.prog.what = "Packing";
	pc.n = n;
	int r = pa_archive_pack(dsos, n, out, &o, on_packed, &pc, &err);
	pa_progress_end(&pc.prog);
	if (r < 0) {
		if (err.code == -PA_ERR_NOT_FOUND)
			snprintf(err.msg, sizeof(err.msg), "nothing to pack%s",
			         n ? "" : " (no DSO with samples and a build-id)");
		status = pa_cli_error(err.code == -PA_ERR_NOT_FOUND ? path : out, &err);
		goto out;
	}
	if (pc.quiet_skips)
		fprintf(stderr, "pa: %u DSOs without a recorded build-id were not packed\n",
		        pc.quiet_skips);
	printf("packed %d DSOs (%u files, %llu bytes) into %s\n", r, pc.files,
	       (unsigned long long)pc.bytes, out);
	printf("On the machine that analyzes %s, run\n\n"
	       "  pa archive --unpack %s      (or: tar xf %s -C ~/.debug)\n\n"
	       "then 'pa report' (or 'perf report') there.\n",
	       path, out, out);
out:
	pa_progress_end(&pc.prog);
	free(out);
	free(dsos);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}

struct unpack_ctx {
	int verbose;
	const char *path;
	struct pa_progress prog;
	uint64_t members;
};

static void on_unpacked(void *ctx, enum pa_archive_event ev, const char *member, const char *msg)
{
	struct unpack_ctx *uc = ctx;

	pa_progress_items(&uc->prog, ++uc->members, 0, "files");
	if (ev == PA_ARCHIVE_CONFLICT || uc->verbose)
		pa_progress_clear(&uc->prog); /* a message may follow */
	switch (ev) {
	case PA_ARCHIVE_CONFLICT:
		fprintf(stderr, "pa: '%s': member '%s': kept the cached file: %s\n", uc->path,
		        member, msg);
		break;
	case PA_ARCHIVE_ADDED:
		if (uc->verbose)
			fprintf(stderr, "added %s\n", member);
		break;
	case PA_ARCHIVE_KEPT:
		if (uc->verbose)
			fprintf(stderr, "already cached %s\n", member);
		break;
	case PA_ARCHIVE_SKIPPED:
		if (uc->verbose > 1 || (uc->verbose && strstr(msg, "layout")))
			fprintf(stderr, "skipped %s: %s\n", member, msg);
		break;
	}
}

static int do_unpack(const char *path, const char *buildid_dir, const char *max_file,
                     const char *max_total, long max_ratio, int verbose)
{
	struct pa_archive_unpack_opts uo = PA_ARCHIVE_UNPACK_OPTS(.buildid_dir = buildid_dir);
	struct unpack_ctx uc = {.verbose = verbose, .path = path};
	struct pa_archive_unpack_stats st;
	struct pa_err err = {0};

	if (pa_cli_size_opt("max-file-size", max_file, &uo.max_file_size) ||
	    pa_cli_size_opt("max-total-size", max_total, &uo.max_total_size))
		return PA_EXIT_USAGE;
	if (max_ratio < -1 || (max_ratio > 0 && (unsigned long)max_ratio >= UINT32_MAX)) {
		fprintf(stderr, "pa: option '--max-ratio' expects 0 (off) or a ratio\n");
		return PA_EXIT_USAGE;
	}
	/* -1: not given (the default); 0: off */
	uo.max_ratio = max_ratio < 0 ? 0 : max_ratio == 0 ? UINT32_MAX : (uint32_t)max_ratio;
	pa_progress_init(&uc.prog, "Unpacking", false, false);
	int r = pa_archive_unpack(path, &uo, on_unpacked, &uc, &st, &err);
	pa_progress_end(&uc.prog);
	if (r < 0)
		return pa_cli_error(path, &err);
	struct pa_bcache *c = pa_bcache_open(buildid_dir, NULL);
	printf("unpacked %s: %u files added, %u already cached%s", path, st.added, st.kept,
	       st.conflicts ? ", " : "");
	if (st.conflicts)
		printf("%u conflicting (kept the cached ones)", st.conflicts);
	printf(" in %s\n", c ? pa_bcache_dir(c) : "the build-id cache");
	pa_bcache_close(c);
	return 0;
}

int cmd_archive(int argc, const char **argv)
{
	const char *input = NULL, *output = NULL, *unpack = NULL, *buildid_dir = NULL;
	const char *symfs = NULL, *max_file = NULL, *max_total = NULL;
	bool all = false, no_debuginfod = false;
	long max_ratio = -1;
	int verbose = 0;
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file", "perf.data to pack for (default perf.data)"),
	    OPT_STRING('o', "output", &output, "file",
	               "archive to write (default INPUT.tar.zst; .tar.gz/.bz2/.xz/.zst by suffix)"),
	    OPT_BOOL('a', "all", &all, "every DSO in the file, not only those with samples"),
	    OPT_STRING('u', "unpack", &unpack, "archive",
	               "put an archive (pa's or perf archive's) into the build-id cache"),
	    OPT_STRING(0, "buildid-dir", &buildid_dir, "dir", "build-id cache (default ~/.debug)"),
	    OPT_STRING(0, "symfs", &symfs, "dir", "look for the recorded files under this root"),
	    OPT_BOOL(0, "no-debuginfod", &no_debuginfod, "do not ask DEBUGINFOD_URLS servers"),
	    OPT_STRING(0, "max-file-size", &max_file, "size",
	               "--unpack: refuse larger members (default 4G)"),
	    OPT_STRING(0, "max-total-size", &max_total, "size",
	               "--unpack: refuse more data in all (default 16G)"),
	    OPT_INT(0, "max-ratio", &max_ratio, "n",
	            "--unpack: refuse data over n times the compressed size (default 100, 0: off)"),
	    OPT_COUNT('v', "verbose", &verbose, "say what is packed / unpacked"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts,
	                         "pa archive [-i perf.data] [-o OUT] [--all]\n"
	                         "    or: pa archive --unpack ARCHIVE [--buildid-dir DIR]");
	if (n < 0)
		return n;
	if (n > 1 || (n == 1 && (input || unpack))) {
		fprintf(stderr, "pa: archive: too many arguments\n");
		return PA_EXIT_USAGE;
	}
	if (n == 1)
		input = argv[0];
	if (unpack) {
		if (input || output || all || symfs) {
			fprintf(stderr,
			        "pa: archive: --unpack takes only --buildid-dir and limits\n");
			return PA_EXIT_USAGE;
		}
		return do_unpack(unpack, buildid_dir, max_file, max_total, max_ratio, verbose);
	}
	if (max_file || max_total || max_ratio != -1) {
		fprintf(stderr, "pa: archive: size limits apply to --unpack only\n");
		return PA_EXIT_USAGE;
	}
	struct pa_archive_pack_opts po =
	    PA_ARCHIVE_PACK_OPTS(.buildid_dir = buildid_dir, .symfs = symfs,
	                         .no_debuginfod = no_debuginfod);
	return do_pack(input, output, all, verbose, &po);
}
