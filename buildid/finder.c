/* finder.c - ordered, build-id validated lookup of ELF, debug and kallsyms
 * files (libdwfl's find-debuginfo policy, perf's search order). */
#include "buildid/buildid.h"
#include "buildid/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PA_HAVE_DEBUGINFOD
#include "util/dl.h"
#include <dlfcn.h>
#include <elfutils/debuginfod.h>

/* libdebuginfod, opened the first time a lookup asks a server (as
 * elfutils' own libdwfl does), not linked: linked, it and the libraries
 * it needs (curl, TLS, Kerberos, LDAP: some thirty) cost every pa run
 * their loading, more than a small report takes (bench/README.md). */
struct dlib {
	void *handle;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_verbose_fd)(debuginfod_client *, int);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
};
#endif

struct pa_finder {
	char *symfs;		/* NULL or "" = none */
	char *sysdebug;		/* system debug dir */
	char *kernel_notes;	/* NULL = default */
	char *proc_kallsyms;
	bool use_debuginfod;
	bool no_cache_add;
	bool no_system_debug;
	struct pa_bcache *cache;
#ifdef PA_HAVE_DEBUGINFOD
	struct dlib dl;
	debuginfod_client *dc;
	bool dc_failed;
#endif
};

static const char *const result_str[] = {
	[PA_FIND_OK] = "ok",
	[PA_FIND_NOT_FOUND] = "not found",
	[PA_FIND_MISMATCH] = "build-id mismatch",
	[PA_FIND_DELETED] = "deleted",
	[PA_FIND_ERROR] = "error",
};

const char *pa_find_result_str(enum pa_find_result r)
{
	if ((unsigned)r < PA_ARRAY_SIZE(result_str))
		return result_str[r];
	return "unknown";
}

#define OPT_GET(opts, field, def) PA_OPTS_GET(opts, struct pa_finder_opts, field, def)

static char *dup_opt(const char *s, bool *oom)
{
	char *d;
	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

struct pa_finder *pa_finder_new(const struct pa_finder_opts *opts, struct pa_err *err)
{
	struct pa_finder *f;
	const char *symfs, *sysdebug, *urls;
	bool oom = false;

	/* Reject options from a newer pa that this one would ignore. */
	switch (pa_opts_check(opts, sizeof(*opts))) {
	case 0:
		break;
	case -EINVAL:
		pa_err_set(err, -EINVAL, "finder options: bad size %zu", opts->sz);
		errno = EINVAL;
		return NULL;
	default:
		pa_err_set(err, -EINVAL, "finder options: unknown option set");
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		pa_err_set(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	symfs = OPT_GET(opts, symfs, NULL);
	if (symfs && *symfs) {
		f->symfs = dup_opt(symfs, &oom);
		/* "/sysroot/" + "/usr/lib/x" must not double the slash. */
		for (size_t n = f->symfs ? strlen(f->symfs) : 0; n > 1 && f->symfs[n - 1] == '/';)
			f->symfs[--n] = 0;
	}
	sysdebug = OPT_GET(opts, system_debug_dir, NULL);
	if (sysdebug && *sysdebug)
		f->sysdebug = dup_opt(sysdebug, &oom);
	else if (!(f->sysdebug = pa_asprintf("%s/usr/lib/debug", f->symfs ? f->symfs : "")))
		oom = true;
	f->kernel_notes = dup_opt(OPT_GET(opts, kernel_notes, NULL), &oom);
	f->proc_kallsyms = dup_opt(OPT_GET(opts, proc_kallsyms, NULL), &oom);
	if (!f->proc_kallsyms && !oom && !(f->proc_kallsyms = strdup("/proc/kallsyms")))
		oom = true;
	f->no_cache_add = OPT_GET(opts, no_cache_add, false);
	f->no_system_debug = OPT_GET(opts, no_system_debug, false);
	if (oom) {
		pa_finder_free(f);
		pa_err_set(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	f->cache = pa_bcache_open(OPT_GET(opts, buildid_dir, NULL), err);
	if (!f->cache) {
		int e = errno;
		pa_finder_free(f);
		errno = e;
		return NULL;
	}
	urls = getenv("DEBUGINFOD_URLS");
#ifdef PA_HAVE_DEBUGINFOD
	f->use_debuginfod = !OPT_GET(opts, no_debuginfod, false) && urls && *urls;
#else
	(void)urls;
	f->use_debuginfod = false;
#endif
	return f;
}

void pa_finder_free(struct pa_finder *f)
{
	if (!f)
		return;
#ifdef PA_HAVE_DEBUGINFOD
	if (f->dc)
		f->dl.end(f->dc);
	if (f->dl.handle)
		dlclose(f->dl.handle);
#endif
	pa_bcache_close(f->cache);
	free(f->symfs);
	free(f->sysdebug);
	free(f->kernel_notes);
	free(f->proc_kallsyms);
	free(f);
}

struct pa_bcache *pa_finder_cache(struct pa_finder *f)
{
	return f ? f->cache : NULL;
}

/* ---- the chain ----------------------------------------------------------- */

struct chain {
	const struct pa_buildid *id;
	bool mismatch; /* some candidate existed with another identity */
	bool oom;
};

/* Take ownership of path; true (and *out = path) if it is a regular file
 * identified by ch->id.  Unreadable candidates count as absent. */
static bool try_cand(struct chain *ch, char *path, char **out)
{
	struct stat st;
	int r;

	if (!path) {
		ch->oom = true;
		return false;
	}
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(path);
		return false;
	}
	r = pa_buildid_file_matches(path, ch->id, NULL);
	if (r == 1) {
		*out = path;
		return true;
	}
	if (r == 0)
		ch->mismatch = true;
	else if (r == -ENOMEM)
		ch->oom = true;
	free(path);
	return false;
}

static enum pa_find_result chain_end(const struct chain *ch)
{
	if (ch->oom)
		return PA_FIND_ERROR;
	return ch->mismatch ? PA_FIND_MISMATCH : PA_FIND_NOT_FOUND;
}

static bool try_cache(struct pa_finder *f, struct chain *ch, enum pa_bcache_kind kind, char **out)
{
	struct pa_err e = {0};
	char *p = pa_bcache_find(f->cache, ch->id, kind, &e);

	if (!p) {
		if (e.code == -ENOMEM)
			ch->oom = true;
		return false;
	}
	return try_cand(ch, p, out);
}

static bool try_sysdebug(struct pa_finder *f, struct chain *ch, bool debug, char **out)
{
	char hex[41];

	pa_buildid_to_hex(ch->id, hex);
	return try_cand(
	    ch,
	    pa_asprintf("%s/.build-id/%.2s/%s%s", f->sysdebug, hex, hex + 2, debug ? ".debug" : ""),
	    out);
}

#ifdef PA_HAVE_DEBUGINFOD
/* Open libdebuginfod into f->dl (util/dl.h). false: not there. */
static bool dlib_open(struct dlib *d)
{
	static const char *const names[] = {"debuginfod_begin", "debuginfod_end",
	                                    "debuginfod_set_progressfn",
	                                    "debuginfod_set_verbose_fd",
	                                    "debuginfod_find_debuginfo",
	                                    "debuginfod_find_executable"};
	void *syms[PA_ARRAY_SIZE(names)];
	void **slots[] = {(void **)&d->begin,          (void **)&d->end,
	                  (void **)&d->set_progressfn, (void **)&d->set_verbose_fd,
	                  (void **)&d->find_debuginfo, (void **)&d->find_executable};
	char why[160];
	d->handle =
	    pa_dl_open("libdebuginfod.so.1", names, syms, PA_ARRAY_SIZE(names), why, sizeof(why));
	/* (function pointers from dlsym's object pointers, through their bytes) */
	for (size_t i = 0; d->handle && i < PA_ARRAY_SIZE(names); i++)
		memcpy(slots[i], &syms[i], sizeof(syms[i]));
	return d->handle != NULL;
}

/* Ask debuginfod; on success add the download to the cache under dso_name
 * (or under the name the id is already linked to) and prefer the cache path. */
static bool try_debuginfod(struct pa_finder *f, struct chain *ch, bool debug,
			   const char *dso_name, char **out)
{
	enum pa_bcache_kind kind = debug ? PA_BCACHE_DEBUG : PA_BCACHE_ELF;
	char *path = NULL, *name = NULL, *cached;
	int fd;

	if (!f->use_debuginfod || f->dc_failed)
		return false;
	if (!f->dc) {
		if (!dlib_open(&f->dl) || !(f->dc = f->dl.begin())) {
			f->dc_failed = true;
			return false;
		}
		/* Library code never prints: drop the progress/verbose output
		 * libdebuginfod enables from DEBUGINFOD_PROGRESS/_VERBOSE. */
		f->dl.set_progressfn(f->dc, NULL);
		f->dl.set_verbose_fd(f->dc, -1);
	}
	fd = debug ? f->dl.find_debuginfo(f->dc, ch->id->data, ch->id->size, &path)
		   : f->dl.find_executable(f->dc, ch->id->data, ch->id->size, &path);
	if (fd < 0)
		return false;
	close(fd);
	if (!try_cand(ch, path, out))
		return false; /* try_cand freed path */
	if (f->no_cache_add)
		return true;
	if (!dso_name)
		dso_name = name = pa_bcache_dso_name(f->cache, ch->id, NULL);
	if (dso_name && pa_bcache_add_file(f->cache, *out, dso_name, ch->id, kind, NULL) == 0 &&
	    (cached = pa_bcache_find(f->cache, ch->id, kind, NULL)) != NULL) {
		free(*out);
		*out = cached;
	}
	free(name);
	return true;
}
#else
static bool try_debuginfod(struct pa_finder *f, struct chain *ch, bool debug,
			   const char *dso_name, char **out)
{
	(void)f, (void)ch, (void)debug, (void)dso_name, (void)out;
	return false;
}
#endif

/* A note-less file pa archive filed under the SHA-1 of its content: the one
 * entry under dso_name, if it is one (else NULL). */
struct one_entry {
	enum pa_bcache_kind kind; /* the file wanted in the entry */
	int count;
	struct pa_buildid id;
	char *path;
};

static int count_entry(void *ctx, const struct pa_buildid *id, const char *dso_name,
		       const char *path)
{
	struct one_entry *o = ctx;
	(void)dso_name;
	if (++o->count > 1)
		return 1; /* ambiguous: stop */
	o->id = *id;
	o->path = pa_asprintf("%s/%s", path, pa_bcache_kind_name(o->kind));
	return o->path ? 0 : -ENOMEM;
}

static char *cache_by_content(struct pa_finder *f, const char *dso_name)
{
	struct one_entry o = {.kind = PA_BCACHE_ELF};
	struct pa_buildid note;
	int r = pa_bcache_foreach_dso(f->cache, dso_name, count_entry, &o, NULL);

	if (r != 0 || o.count != 1 || o.id.size != PA_BUILDID_MAX ||
	    pa_buildid_read_elf(o.path, &note, NULL) != -PA_ERR_NOT_FOUND ||
	    pa_buildid_file_matches(o.path, &o.id, NULL) != 1) {
		free(o.path);
		return NULL;
	}
	return o.path;
}

enum pa_find_result pa_finder_find_perf_map(struct pa_finder *f, const char *orig_path,
					    bool use_path, char **path_out, const char **origin,
					    struct pa_buildid *id_out)
{
	struct one_entry o = {.kind = PA_BCACHE_PERF_MAP};
	struct stat st;

	if (path_out)
		*path_out = NULL;
	if (origin)
		*origin = NULL;
	if (!f || !orig_path || !path_out || orig_path[0] != '/')
		return PA_FIND_ERROR;
	if (use_path && stat(orig_path, &st) == 0 && S_ISREG(st.st_mode)) {
		int r = id_out ? pa_buildid_sha1_file(orig_path, id_out, NULL) : 0;
		if (r < 0)
			return r == -ENOMEM ? PA_FIND_ERROR : PA_FIND_NOT_FOUND;
		*path_out = strdup(orig_path);
		if (origin)
			*origin = "path";
		return *path_out ? PA_FIND_OK : PA_FIND_ERROR;
	}
	int r = pa_bcache_foreach_dso(f->cache, orig_path, count_entry, &o, NULL);
	if (r < 0 && r != -PA_ERR_NOT_FOUND) {
		free(o.path);
		return r == -ENOMEM ? PA_FIND_ERROR : PA_FIND_NOT_FOUND;
	}
	if (o.count > 1) {
		free(o.path);
		return PA_FIND_MISMATCH;
	}
	if (o.count == 0 || pa_buildid_file_matches(o.path, &o.id, NULL) != 1) {
		free(o.path);
		return PA_FIND_NOT_FOUND;
	}
	*path_out = o.path;
	if (origin)
		*origin = "cache-sha1";
	if (id_out)
		*id_out = o.id; /* its content was just checked against it */
	return PA_FIND_OK;
}

const char *pa_finder_perf_map_why(enum pa_find_result fr, bool use_path)
{
	if (fr == PA_FIND_MISMATCH)
		return "JIT map: several copies in the cache, none known to be this recording's";
	if (use_path)
		return "JIT map not found (nor a copy in the cache)";
	return "JIT map not in the cache (recorded on another host: its /tmp file is not used "
	       "here)";
}

#define DELETED_SUFFIX " (deleted)"

/* No build-id to check a candidate against: the file under the symfs,
 * else the file itself (or the cache's copy of the build-id it has, as
 * perf's dso__load takes it first), else the cache's copy of the same
 * content. *path may move to *out. */
static enum pa_find_result find_unverified(struct pa_finder *f, char **path, bool deleted,
                                           char **out, const char **where)
{
	const char *p = *path;
	struct stat st;
	if (p[0] == '/' && f->symfs && (*out = pa_asprintf("%s%s", f->symfs, p)) != NULL &&
	    stat(*out, &st) == 0 && S_ISREG(st.st_mode)) {
		*where = "symfs-unverified";
		return PA_FIND_OK;
	}
	free(*out);
	*out = NULL;
	/* (with a symfs, perf looks under it only: __symbol__join_symfs) */
	if (p[0] == '/' && !f->symfs && !deleted && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
		struct pa_buildid own;
		struct chain och = {.id = &own};
		if (!pa_buildid_read_elf(p, &own, NULL) &&
		    (try_cache(f, &och, PA_BCACHE_ELF, out) ||
		     try_cache(f, &och, PA_BCACHE_DEBUG, out))) {
			*where = "cache";
			return PA_FIND_OK;
		}
		if (och.oom)
			return PA_FIND_ERROR;
		*out = *path;
		*path = NULL;
		*where = "path-unverified";
		return PA_FIND_OK;
	}
	if (p[0] == '/' && (*out = cache_by_content(f, p)) != NULL) {
		*where = "cache-sha1";
		return PA_FIND_OK;
	}
	return deleted ? PA_FIND_DELETED : PA_FIND_NOT_FOUND;
}

/* Build-id id: the candidates in perf's order, each checked against it. */
static enum pa_find_result find_by_id(struct pa_finder *f, const char *path,
                                      const struct pa_buildid *id, bool deleted, char **out,
                                      const char **where)
{
	struct chain ch = {.id = id};
	/* Names like "[vdso]" or "[kernel.kallsyms]" are not files: only the
	 * build-id keyed candidates apply to them. */
	bool is_file = path[0] == '/';
	const char *dso_name = is_file || path[0] == '[' ? path : NULL;

	if (is_file && f->symfs && try_cand(&ch, pa_asprintf("%s%s", f->symfs, path), out)) {
		*where = "symfs";
		return PA_FIND_OK;
	}
	if ((!strcmp(path, "[vdso]") && try_cache(f, &ch, PA_BCACHE_VDSO, out)) ||
	    try_cache(f, &ch, PA_BCACHE_ELF, out) || try_cache(f, &ch, PA_BCACHE_DEBUG, out)) {
		*where = "cache";
		return PA_FIND_OK;
	}
	/* The original file before the system debug dir: a .debug file there
	 * holds symbols but no code (its segments are empty), so it must not
	 * stand in for a binary that is at hand; the symbol loader finds it
	 * next to the binary anyway. */
	if (is_file && !f->symfs && try_cand(&ch, strdup(path), out)) {
		*where = "path";
		return PA_FIND_OK;
	}
	if (!f->no_system_debug &&
	    (try_sysdebug(f, &ch, true, out) || try_sysdebug(f, &ch, false, out))) {
		*where = "system-debug";
		return PA_FIND_OK;
	}
	if (try_debuginfod(f, &ch, false, dso_name, out) ||
	    try_debuginfod(f, &ch, true, dso_name, out)) {
		*where = "debuginfod";
		return PA_FIND_OK;
	}
	enum pa_find_result r = chain_end(&ch);
	return deleted && r != PA_FIND_ERROR ? PA_FIND_DELETED : r;
}

enum pa_find_result pa_finder_find_elf(struct pa_finder *f, const char *orig_path,
                                       const struct pa_buildid *id, char **path_out,
                                       const char **origin)
{
	const char *where = NULL;
	char *out = NULL;

	if (path_out)
		*path_out = NULL;
	if (origin)
		*origin = NULL;
	if (!f || !orig_path || !path_out)
		return PA_FIND_ERROR;
	size_t n = strlen(orig_path);
	bool deleted = n > strlen(DELETED_SUFFIX) &&
	               !strcmp(orig_path + n - strlen(DELETED_SUFFIX), DELETED_SUFFIX);
	char *path = strndup(orig_path, deleted ? n - strlen(DELETED_SUFFIX) : n);
	if (!path)
		return PA_FIND_ERROR;
	enum pa_find_result r = !id || id->size == 0
	                            ? find_unverified(f, &path, deleted, &out, &where)
	                            : find_by_id(f, path, id, deleted, &out, &where);
	if (r == PA_FIND_OK) {
		*path_out = out;
		out = NULL;
		if (origin)
			*origin = where;
	}
	free(out);
	free(path);
	return r;
}

enum pa_find_result pa_finder_find_debug(struct pa_finder *f, const struct pa_buildid *id,
					 char **path_out)
{
	struct chain ch = {.id = id};
	char *out = NULL;

	if (path_out)
		*path_out = NULL;
	if (!f || !path_out)
		return PA_FIND_ERROR;
	if (!id || id->size == 0)
		return PA_FIND_NOT_FOUND;
	if (try_cache(f, &ch, PA_BCACHE_DEBUG, &out) || try_sysdebug(f, &ch, true, &out) ||
	    try_debuginfod(f, &ch, true, NULL, &out)) {
		*path_out = out;
		return PA_FIND_OK;
	}
	return chain_end(&ch);
}

/* Readable, and showing real addresses: with kptr_restrict (or without
 * privileges) every address reads as zero and the file is useless. */
static bool kallsyms_usable(const char *path)
{
	char line[256];
	bool ok = false;
	FILE *fp = fopen(path, "re");

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		char *end;
		unsigned long long addr = strtoull(line, &end, 16);
		if (end == line)
			continue;
		ok = addr != 0;
		if (ok)
			break;
		/* Some kernels list a few zero-address symbols first. */
		if (ftell(fp) > 65536)
			break;
	}
	fclose(fp);
	return ok;
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* A kernel file for id: the cache's (kind; a kcore also in perf's own
 * layout), else the running kernel's live one ONLY if the running kernel's
 * build-id equals id and usable(live) says it can be used. */
static enum pa_find_result kernel_file(struct pa_finder *f, const struct pa_buildid *id,
                                       enum pa_bcache_kind kind, const char *live,
                                       bool (*usable)(const char *), char **path_out)
{
	struct pa_buildid running;
	struct pa_err e = {0};
	char *p;

	if (path_out)
		*path_out = NULL;
	if (!f || !path_out)
		return PA_FIND_ERROR;
	if (!id || id->size == 0)
		return PA_FIND_NOT_FOUND;
	p = pa_bcache_find(f->cache, id, kind, &e);
	if (!p && e.code != -ENOMEM && kind == PA_BCACHE_KCORE)
		p = pa_bcache_find_perf_kcore(f->cache, id);
	if (p) {
		*path_out = p;
		return PA_FIND_OK;
	}
	if (e.code == -ENOMEM)
		return PA_FIND_ERROR;
	/* The local kernel's files only for a recording of this kernel. */
	if (pa_buildid_running_kernel(f->kernel_notes, &running, NULL) < 0)
		return PA_FIND_NOT_FOUND;
	if (!pa_buildid_equal(&running, id))
		return PA_FIND_MISMATCH;
	if (!usable(live))
		return PA_FIND_NOT_FOUND;
	*path_out = strdup(live);
	return *path_out ? PA_FIND_OK : PA_FIND_ERROR;
}

enum pa_find_result pa_finder_find_kallsyms(struct pa_finder *f, const struct pa_buildid *id,
                                            char **path_out)
{
	return kernel_file(f, id, PA_BCACHE_KALLSYMS, f ? f->proc_kallsyms : NULL, kallsyms_usable,
	                   path_out);
}

enum pa_find_result pa_finder_find_kcore(struct pa_finder *f, const struct pa_buildid *id,
                                         char **path_out)
{
	return kernel_file(f, id, PA_BCACHE_KCORE, "/proc/kcore", readable, path_out);
}

/* A candidate for pa_finder_kmod_candidates(): cb's answer, 0 when it is
 * not a regular file. Takes path. */
static int kmod_cand(char *path, const char *origin,
		     int (*cb)(void *ctx, const char *path, const char *origin), void *ctx)
{
	struct stat st;
	int r = 0;

	if (!path)
		return -ENOMEM;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		r = cb(ctx, path, origin);
	free(path);
	return r;
}

int pa_finder_kmod_candidates(struct pa_finder *f, const char *orig_path,
			      const struct pa_buildid *id,
			      int (*cb)(void *ctx, const char *path, const char *origin),
			      void *ctx)
{
	struct stat st;
	int r;

	if (!f || !orig_path || !cb)
		return -EINVAL;
	if (id && id->size) {
		/* perf's dso__build_id_filename(): the link, or a file in the
		 * directory it points to; a module without a path name counts
		 * as kallsyms there */
		const char *base = orig_path[0] == '/' ? "elf" : "kallsyms";
		const char *dbase = orig_path[0] == '/' ? "debug" : "kallsyms";
		char hex[41];
		char *link;

		pa_buildid_to_hex(id, hex);
		link = pa_asprintf("%s/.build-id/%.2s/%s", pa_bcache_dir(f->cache), hex, hex + 2);
		if (!link)
			return -ENOMEM;
		if (stat(link, &st) == 0 && S_ISREG(st.st_mode)) {
			r = cb(ctx, link, "cache");
			free(link);
			if (r)
				return r;
		} else {
			r = kmod_cand(pa_asprintf("%s/%s", link, base), "cache", cb, ctx);
			if (!r)
				r = kmod_cand(pa_asprintf("%s/%s", link, dbase), "cache-debug", cb,
				              ctx);
			free(link);
			if (r)
				return r;
		}
	}
	/* perf's __symbol__join_symfs() */
	if (f->symfs)
		return kmod_cand(pa_asprintf("%s/%s", f->symfs, orig_path), "path", cb, ctx);
	return kmod_cand(strdup(orig_path), "path", cb, ctx);
}
