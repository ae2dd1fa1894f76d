/* cmd-buildid-cache.c - `pa buildid-cache`: perf buildid-cache's flags and
 * lines (-v lines "Adding HEX FILE: Ok" on stderr, --list and --missing
 * lines on stdout), on perf's ~/.debug layout.  Errors follow pa's rule:
 * one line naming the file, a non-zero exit status. */
#include "cli.h"
#include "buildid/buildid.h"
#include "session/session.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct bc {
	struct pa_finder *finder; /* owns the cache */
	struct pa_bcache *cache;
	int verbose;
	int status;
};

static void worse(struct bc *b, int status)
{
	if (status > b->status)
		b->status = status;
}

static int fail(struct bc *b, const char *path, int code, const char *msg)
{
	struct pa_err e = {0};
	pa_err_set(&e, code, "%s", msg);
	int st = pa_cli_error(path, &e);
	worse(b, st);
	return st;
}

/* The id pa files a binary under: its build-id note, or for an ELF file
 * without one, the SHA-1 of its content. */
static int file_id(struct bc *b, const char *path, struct pa_buildid *id)
{
	struct pa_err err = {0};
	int r = pa_buildid_read_elf(path, id, &err);

	if (r == -PA_ERR_NOT_FOUND)
		r = pa_buildid_sha1_file(path, id, &err);
	if (r == -PA_ERR_FORMAT)
		return fail(b, path, PA_ERR_FORMAT, "not an ELF file");
	if (r < 0) {
		int st = pa_cli_error(path, &err);
		worse(b, st);
		return st;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "a,b,c" -> calls fn for each non-empty item, in perf's order: its string
 * lists are sorted sets. */
static void each_item(struct bc *b, const char *list, void (*fn)(struct bc *, const char *))
{
	char *dup = strdup(list), *save = NULL, **items = NULL;
	size_t n = 0;

	if (dup)
		items = calloc(strlen(list) / 2 + 2, sizeof(*items));
	if (!dup || !items) {
		free(dup);
		fail(b, list, -ENOMEM, "out of memory");
		return;
	}
	for (char *it = strtok_r(dup, ",", &save); it; it = strtok_r(NULL, ",", &save))
		items[n++] = it;
	qsort(items, n, sizeof(*items), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(items[i], items[i - 1]))
			fn(b, items[i]);
	free(items);
	free(dup);
}

static void add_one(struct bc *b, const char *file)
{
	char real[PATH_MAX], hex[PA_BUILDID_HEX_MAX], *dpath = NULL;
	struct pa_buildid id;
	struct pa_err err = {0};

	if (!realpath(file, real)) {
		fail(b, file, -errno, strerror(errno));
		return;
	}
	if (file_id(b, real, &id))
		return;
	pa_buildid_to_hex(&id, hex);
	if (pa_bcache_add_file(b->cache, real, real, &id, PA_BCACHE_ELF, &err) < 0) {
		if (b->verbose)
			fprintf(stderr, "Adding %s %s: FAIL\n", hex, file);
		worse(b, pa_cli_error(file, &err));
		return;
	}
	/* and its separate debug file, as perf does (/usr/lib/debug) */
	if (pa_finder_find_debug(b->finder, &id, &dpath) == PA_FIND_OK) {
		struct pa_err e2 = {0};
		char *cached = pa_bcache_find(b->cache, &id, PA_BCACHE_DEBUG, NULL);
		if (!cached &&
		    pa_bcache_add_file(b->cache, dpath, real, &id, PA_BCACHE_DEBUG, &e2) < 0)
			fprintf(stderr, "pa: '%s': debug file not added: %s\n", dpath, e2.msg);
		free(cached);
		free(dpath);
	}
	if (b->verbose)
		fprintf(stderr, "Adding %s %s: Ok\n", hex, file);
}

static void remove_one(struct bc *b, const char *file)
{
	char hex[PA_BUILDID_HEX_MAX];
	struct pa_buildid id;
	struct pa_err err = {0};

	if (file_id(b, file, &id))
		return;
	pa_buildid_to_hex(&id, hex);
	int r = pa_bcache_remove(b->cache, &id, &err);
	if (r == -PA_ERR_NOT_FOUND) {
		/* not an error for perf: the cache is as asked */
		if (b->verbose)
			fprintf(stderr, "Removing %s %s: FAIL\n%s wasn't in the cache\n", hex, file,
			        file);
		return;
	}
	if (r < 0) {
		if (b->verbose)
			fprintf(stderr, "Removing %s %s: FAIL\n", hex, file);
		worse(b, pa_cli_error(file, &err));
		return;
	}
	if (b->verbose)
		fprintf(stderr, "Removing %s %s: Ok\n", hex, file);
}

struct purge_ctx {
	const char *name, *shown;
	int verbose;
};

static int print_purged(void *ctx, const struct pa_buildid *id, const char *dso_name,
                        const char *path)
{
	struct purge_ctx *pc = ctx;
	char hex[PA_BUILDID_HEX_MAX];

	(void)path;
	if (dso_name && !strcmp(dso_name, pc->name) && pc->verbose) {
		pa_buildid_to_hex(id, hex);
		fprintf(stderr, "Removing %s %s: Ok\n", hex, pc->shown);
	}
	return 0;
}

static void purge_one(struct bc *b, const char *path)
{
	char real[PATH_MAX];
	const char *name = real;
	struct pa_err err = {0};

	/* perf purges by the real path; a file deleted since can still be
	 * purged by its absolute name */
	if (!realpath(path, real)) {
		if (path[0] != '/') {
			fail(b, path, -errno, strerror(errno));
			return;
		}
		name = path;
	}
	struct purge_ctx pc = {.name = name, .shown = path, .verbose = b->verbose};
	pa_bcache_foreach(b->cache, print_purged, &pc, NULL);
	int r = pa_bcache_purge(b->cache, name, &err);
	if (r == -PA_ERR_NOT_FOUND) {
		if (b->verbose)
			fprintf(stderr, "Purging %s: FAIL\n%s wasn't in the cache\n", path, path);
		return;
	}
	if (r < 0) {
		if (b->verbose)
			fprintf(stderr, "Purging %s: FAIL\n", path);
		worse(b, pa_cli_error(path, &err));
		return;
	}
	if (b->verbose)
		fprintf(stderr, "Purging %s: Ok\n", path);
}

struct idlist {
	struct pa_buildid *ids;
	char **names;
	size_t n, cap;
};

static int collect_id(void *ctx, const struct pa_buildid *id, const char *dso_name,
                      const char *path)
{
	struct idlist *l = ctx;
	(void)path;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct pa_buildid *ni = realloc(l->ids, cap * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		l->ids = ni;
		char **nn = realloc(l->names, cap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		l->names = nn;
		l->cap = cap;
	}
	l->names[l->n] = strdup(dso_name ? dso_name : "");
	if (!l->names[l->n])
		return -ENOMEM;
	l->ids[l->n++] = *id;
	return 0;
}

static void purge_all(struct bc *b)
{
	struct idlist l = {0};
	struct pa_err err = {0};

	if (pa_bcache_foreach(b->cache, collect_id, &l, &err) < 0) {
		worse(b, pa_cli_error(pa_bcache_dir(b->cache), &err));
	} else {
		for (size_t i = 0; i < l.n; i++) {
			char hex[PA_BUILDID_HEX_MAX];
			struct pa_err e = {0};
			pa_buildid_to_hex(&l.ids[i], hex);
			int r = pa_bcache_remove(b->cache, &l.ids[i], &e);
			if (r < 0 && r != -PA_ERR_NOT_FOUND) {
				worse(b, pa_cli_error(pa_bcache_dir(b->cache), &e));
				continue;
			}
			if (b->verbose) /* perf's words for --purge-all */
				fprintf(stderr, "Removing %s (%s): Ok\n", l.names[i], hex);
		}
		if (b->verbose && b->status == 0)
			fprintf(stderr, "Purged all: Ok\n");
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.names[i]);
	free(l.names);
	free(l.ids);
}

/* The running kernel's kallsyms, under its build-id (what perf record does). */
static void add_kallsyms(struct bc *b)
{
	struct pa_buildid id;
	struct pa_err err = {0};
	char hex[PA_BUILDID_HEX_MAX], *path = NULL;

	if (pa_buildid_running_kernel(NULL, &id, &err) < 0) {
		worse(b, pa_cli_error("/sys/kernel/notes", &err));
		return;
	}
	pa_buildid_to_hex(&id, hex);
	enum pa_find_result fr = pa_finder_find_kallsyms(b->finder, &id, &path);
	if (fr != PA_FIND_OK) {
		fail(b, "/proc/kallsyms", -EACCES,
		     "kernel addresses are hidden (kernel.kptr_restrict, or not root)");
		return;
	}
	const char *dir = pa_bcache_dir(b->cache);
	if (strncmp(path, dir, strlen(dir)) &&
	    pa_bcache_add_file(b->cache, path, "[kernel.kallsyms]", &id, PA_BCACHE_KALLSYMS, &err) <
	        0) {
		if (b->verbose)
			fprintf(stderr, "Adding %s [kernel.kallsyms]: FAIL\n", hex);
		worse(b, pa_cli_error(path, &err));
		free(path);
		return;
	}
	free(path);
	if (b->verbose)
		fprintf(stderr, "Adding %s [kernel.kallsyms]: Ok\n", hex);
}

/* perf lists an entry only when it is "valid" here: the file at its
 * original path still has that build-id (for the kernel: the running one
 * has).  A cache filled from another machine's archive lists nothing; --all
 * shows every entry. */
static bool valid_here(const struct pa_buildid *id, const char *dso_name)
{
	struct pa_buildid got;

	if (!strcmp(dso_name, "[kernel.kallsyms]"))
		return pa_buildid_running_kernel(NULL, &got, NULL) == 0 &&
		       pa_buildid_equal(&got, id);
	return dso_name[0] == '/' && pa_buildid_read_elf(dso_name, &got, NULL) == 0 &&
	       pa_buildid_equal(&got, id);
}

static int print_listed(void *ctx, const struct pa_buildid *id, const char *dso_name,
                        const char *path)
{
	const bool *all = ctx;
	char hex[PA_BUILDID_HEX_MAX];
	(void)path;
	if (!dso_name)
		return 0; /* perf's old layout: no name to show */
	if (!*all && !valid_here(id, dso_name))
		return 0;
	pa_buildid_to_hex(id, hex);
	printf("%s %s\n", hex, dso_name);
	return 0;
}

static void list_all(struct bc *b, bool all)
{
	struct pa_err err = {0};
	if (pa_bcache_foreach(b->cache, print_listed, &all, &err) < 0)
		worse(b, pa_cli_error(pa_bcache_dir(b->cache), &err));
}

/* perf buildid-cache --missing: DSOs of the file (its build-id table, like
 * buildid-list without --with-hits) whose file is not in the cache. */
static void missing(struct bc *b, const char *path)
{
	int status = 0;
	struct pa_file *f = pa_cli_open(path, &status);
	struct pa_err err = {0};

	if (!f) {
		worse(b, status);
		return;
	}
	struct pa_session_opts so = {.sz = sizeof(so), .no_callchains = true};
	struct pa_session *s = pa_session_new(f, &so, &err);
	const struct pa_header_info *h = pa_file_header(f);
	bool events =
	    pa_file_mode(f) == PA_FILE_MODE_PIPE || !pa_header_has_feat(h, PA_FEAT_BUILD_ID);
	if (!s || (events && pa_session_process(s, NULL, NULL, &err) < 0)) {
		worse(b, pa_cli_error(path, &err));
		goto out;
	}
	for (unsigned i = 0; i < pa_session_nr_machines(s); i++) {
		struct pa_machine *m = pa_session_machine(s, i);
		for (unsigned k = 0; k < pa_machine_nr_dsos(m); k++) {
			const struct pa_dso *d = pa_machine_dso(m, k);
			struct pa_buildid id = {.size = d->build_id_size};
			enum pa_bcache_kind kind = d->kind == PA_DSO_KERNEL ? PA_BCACHE_KALLSYMS
			                           : d->kind == PA_DSO_VDSO ? PA_BCACHE_VDSO
			                                                    : PA_BCACHE_ELF;
			char hex[PA_BUILDID_HEX_MAX];
			if (!d->build_id_size)
				continue;
			memcpy(id.data, d->build_id, d->build_id_size);
			char *p = pa_bcache_find(b->cache, &id, kind, NULL);
			if (p) {
				free(p);
				continue;
			}
			pa_buildid_to_hex(&id, hex);
			printf("%-40s %s\n", hex, d->long_name);
		}
	}
out:
	pa_session_free(s);
	pa_file_close(f);
}

int cmd_buildid_cache(int argc, const char **argv)
{
	const char *add = NULL, *remove = NULL, *purge = NULL, *missing_file = NULL;
	const char *buildid_dir = NULL;
	bool list = false, purge_everything = false, kallsyms = false, force = false, all = false;
	int verbose = 0;
	const struct pa_option opts[] = {
	    OPT_STRING('a', "add", &add, "file list", "file(s) to add"),
	    OPT_BOOL('f', "force", &force, "accepted for perf compatibility"),
	    OPT_BOOL('l', "list", &list, "list the cached files valid here (as perf does)"),
	    OPT_BOOL(0, "all", &all, "with --list: every cached file, also other machines'"),
	    OPT_STRING('M', "missing", &missing_file, "file",
	               "to find missing build ids in the cache"),
	    OPT_STRING('p', "purge", &purge, "file list",
	               "file(s) to remove (remove old caches too)"),
	    OPT_BOOL('P', "purge-all", &purge_everything, "purge all cached files"),
	    OPT_STRING('r', "remove", &remove, "file list", "file(s) to remove"),
	    OPT_BOOL(0, "kallsyms", &kallsyms,
	             "add the running kernel's /proc/kallsyms under its build-id"),
	    OPT_STRING(0, "buildid-dir", &buildid_dir, "dir", "build-id cache (default ~/.debug)"),
	    OPT_COUNT('v', "verbose", &verbose, "be more verbose"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa buildid-cache [<options>]");
	if (n < 0)
		return n;
	if (n > 0) {
		fprintf(stderr, "pa: buildid-cache: unexpected argument '%s'\n", argv[0]);
		return PA_EXIT_USAGE;
	}
	if (!add && !remove && !purge && !missing_file && !list && !purge_everything && !kallsyms) {
		pa_usage(stderr, opts, "pa buildid-cache [<options>]");
		return PA_EXIT_USAGE;
	}
	struct pa_err err = {0};
	struct pa_finder_opts fo =
	    PA_FINDER_OPTS(.buildid_dir = buildid_dir, .no_debuginfod = true);
	struct bc b = {.verbose = verbose};
	b.finder = pa_finder_new(&fo, &err);
	if (!b.finder)
		return pa_cli_error(buildid_dir ? buildid_dir : "~/.debug", &err);
	b.cache = pa_finder_cache(b.finder);
	if (add)
		each_item(&b, add, add_one);
	if (remove)
		each_item(&b, remove, remove_one);
	if (purge)
		each_item(&b, purge, purge_one);
	if (purge_everything)
		purge_all(&b);
	if (kallsyms)
		add_kallsyms(&b);
	if (missing_file)
		missing(&b, missing_file);
	if (list)
		list_all(&b, all);
	pa_finder_free(b.finder);
	return b.status;
}
