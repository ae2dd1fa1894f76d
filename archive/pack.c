/* pack.c - `pa archive`: the cache entries of a recording's DSOs in one
 * tarball, perf's ~/.debug layout plus a manifest.
 *
 * Per DSO: make sure the cache has its files (adding them from where the
 * recording host keeps them, each validated by build-id), then take every
 * known file of its cache entry (elf, debug, kallsyms, vdso) and its
 * .build-id link.  The tarball is written under a temporary name next to
 * the output and renamed into place only when complete.
 */
#include "archive/internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pfile {
	char *path;   /* in the cache */
	char *member; /* <rel>/<hex>/<kind> */
	char hex[PA_BUILDID_HEX_MAX];
	enum pa_bcache_kind kind;
	uint64_t size;
	const char *orig; /* the DSO's recorded name (the caller's string) */
};

struct plink {
	char *member, *target;
};

struct packer {
	struct pa_finder *f;    /* the whole chain (debug files, kallsyms) */
	struct pa_finder *fbin; /* binaries: no system debug dir */
	struct pa_bcache *c;
	const char *symfs;
	bool recorded_here;
	struct pfile *files;
	size_t nfiles, capfiles;
	struct plink *links;
	size_t nlinks, caplinks;
	struct pa_buildid *seen;
	size_t nseen, capseen;
	char whybuf[320]; /* a "why" that needs formatting (valid during the callback) */
};

enum pa_archive_compression pa_archive_compression_for(const char *path)
{
	static const struct {
		const char *suffix;
		enum pa_archive_compression c;
	} tab[] = {
	    {".tar.gz", PA_ARCHIVE_GZIP},   {".tgz", PA_ARCHIVE_GZIP},
	    {".tar.bz2", PA_ARCHIVE_BZIP2}, {".tbz2", PA_ARCHIVE_BZIP2},
	    {".tbz", PA_ARCHIVE_BZIP2},     {".tar.xz", PA_ARCHIVE_XZ},
	    {".txz", PA_ARCHIVE_XZ},        {".tar.zst", PA_ARCHIVE_ZSTD},
	    {".tzst", PA_ARCHIVE_ZSTD},     {".tar", PA_ARCHIVE_NONE},
	};
	size_t n = path ? strlen(path) : 0;

	for (size_t i = 0; i < PA_ARRAY_SIZE(tab); i++) {
		size_t l = strlen(tab[i].suffix);
		if (n > l && !strcmp(path + n - l, tab[i].suffix))
			return tab[i].c;
	}
	return PA_ARCHIVE_ZSTD;
}

/* ---- getting the files into the cache ------------------------------------ */

static bool cached(struct packer *p, const struct pa_buildid *id, enum pa_bcache_kind kind)
{
	char *path = pa_bcache_find(p->c, id, kind, NULL);
	free(path);
	return path != NULL;
}

/* Add path to the cache if it is the file with this id: 1 added, 0 not
 * that file (or not there), negative on error. */
static int add_if_match(struct packer *p, const char *path, const char *dso_name,
                        const struct pa_buildid *id, enum pa_bcache_kind kind, bool *mismatch,
                        struct pa_err *err)
{
	struct stat st;
	int r;

	if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	r = pa_buildid_file_matches(path, id, NULL);
	if (r == 0 && mismatch)
		*mismatch = true;
	if (r != 1)
		return 0;
	r = pa_bcache_add_file(p->c, path, dso_name, id, kind, err);
	return r < 0 ? r : 1;
}

/* The cache name of a DSO: its recorded name without " (deleted)". */
static char *cache_name(const struct pa_archive_dso *d)
{
	const char *s = " (deleted)";
	size_t n = strlen(d->name), l = strlen(s);

	if (d->kind == PA_ARCHIVE_DSO_KERNEL && d->name[0] != '[')
		return strdup("[kernel.kallsyms]");
	if (n > l && !strcmp(d->name + n - l, s))
		n -= l;
	return strndup(d->name, n);
}

/* Make sure the cache holds the main file of d; why is set when it cannot. */
static int ensure_main(struct packer *p, const struct pa_archive_dso *d, const char *name,
                       bool *added, const char **why, struct pa_err *err)
{
	const struct pa_buildid *id = &d->id;
	bool mismatch = false;
	char *path = NULL;
	int r;

	switch (d->kind) {
	case PA_ARCHIVE_DSO_KERNEL: {
		if (cached(p, id, PA_BCACHE_KALLSYMS))
			return 0;
		enum pa_find_result fr = pa_finder_find_kallsyms(p->f, id, &path);
		if (fr == PA_FIND_OK) {
			r = pa_bcache_add_file(p->c, path, name, id, PA_BCACHE_KALLSYMS, err);
			free(path);
			if (r < 0)
				return r;
			*added = true;
			return 0;
		}
		*why = fr == PA_FIND_MISMATCH
		           ? "kallsyms not in the cache, and the running kernel is another "
		             "one (its build-id differs)"
		           : "kallsyms not in the cache, and /proc/kallsyms cannot be used "
		             "(kernel build-id unreadable, or addresses hidden by "
		             "kptr_restrict)";
		return 0;
	}
	case PA_ARCHIVE_DSO_PERF_MAP:
		if (!cached(p, id, PA_BCACHE_PERF_MAP))
			*why = "JIT map not in the cache";
		return 0;
	case PA_ARCHIVE_DSO_VDSO: {
		size_t size;
		const void *img;
		struct pa_buildid rid;
		if (cached(p, id, PA_BCACHE_VDSO) || cached(p, id, PA_BCACHE_ELF))
			return 0;
		img = pa_buildid_running_vdso(&size);
		if (img && pa_buildid_read_elf_mem(img, size, &rid, NULL) == 0 &&
		    pa_buildid_equal(&rid, id)) {
			r = pa_bcache_add_mem(p->c, img, size, name, id, PA_BCACHE_VDSO, err);
			if (r < 0)
				return r;
			*added = true;
			return 0;
		}
		*why = "vdso image not in the cache (perf record caches it; recorded on "
		       "another machine or boot?)";
		return 0;
	}
	default:
		break;
	}
	if (cached(p, id, PA_BCACHE_ELF))
		return 0;
	if (name[0] == '/') {
		char *sp = p->symfs ? pa_asprintf("%s%s", p->symfs, name) : NULL;
		r = add_if_match(p, sp, name, id, PA_BCACHE_ELF, &mismatch, err);
		free(sp);
		if (r == 0)
			r = add_if_match(p, name, name, id, PA_BCACHE_ELF, &mismatch, err);
		if (r < 0)
			return r;
		if (r == 1) {
			*added = true;
			return 0;
		}
	}
	/* debuginfod (and whatever else the binary chain knows) */
	const char *origin = NULL;
	enum pa_find_result fr = pa_finder_find_elf(p->fbin, d->name, id, &path, &origin);
	if (fr == PA_FIND_OK) {
		bool in_cache = !strncmp(path, pa_bcache_dir(p->c), strlen(pa_bcache_dir(p->c)));
		r = 0;
		if (!in_cache)
			r = pa_bcache_add_file(p->c, path, name, id, PA_BCACHE_ELF, err);
		free(path);
		if (r < 0)
			return r;
		if (cached(p, id, PA_BCACHE_ELF)) {
			*added = !in_cache || !strcmp(origin, "debuginfod");
			return 0;
		}
	}
	if (fr == PA_FIND_MISMATCH)
		mismatch = true;
	if (d->kind == PA_ARCHIVE_DSO_MODULE)
		*why = "module file not found (pa report takes module symbols from the kernel's "
		       "kallsyms)";
	else if (mismatch)
		*why = "not in the cache, and the file at that path has another build-id "
		       "(rebuilt or upgraded since the recording?)";
	else
		*why = "not in the cache, and not found at that path (nor by debuginfod)";
	return 0;
}

/* perf's newest kcore copy of the kernel id (perf buildid-cache --kcore)
 * filed as the kernel entry's "kcore", for pa annotate elsewhere. The live
 * /proc/kcore is not copied: it spans the whole address space. */
static int ensure_kcore(struct packer *p, const struct pa_buildid *id, const char *name,
                        bool *added, struct pa_err *err)
{
	if (cached(p, id, PA_BCACHE_KCORE))
		return 0;
	char *path = pa_bcache_find_perf_kcore(p->c, id);
	int r = path ? pa_bcache_add_file(p->c, path, name, id, PA_BCACHE_KCORE, err) : 0;
	if (path && r == 0)
		*added = true;
	free(path);
	return r;
}

/* A separate debug file for id (/usr/lib/debug, debuginfod) into the cache. */
static int ensure_debug(struct packer *p, const struct pa_buildid *id, const char *name,
                        bool *added, struct pa_err *err)
{
	char *path = NULL, *dso = NULL;
	int r = 0;

	if (cached(p, id, PA_BCACHE_DEBUG))
		return 0;
	if (pa_finder_find_debug(p->f, id, &path) != PA_FIND_OK)
		return 0;
	if (!cached(p, id, PA_BCACHE_DEBUG)) {
		dso = pa_bcache_dso_name(p->c, id, NULL);
		r = pa_bcache_add_file(p->c, path, dso ? dso : name, id, PA_BCACHE_DEBUG, err);
		if (r == 0)
			*added = true;
	}
	free(dso);
	free(path);
	return r;
}

/* ---- collecting the members --------------------------------------------- */

static int collect(struct packer *p, const struct pa_archive_dso *d,
                   struct pa_archive_dso_result *res, struct pa_err *err)
{
	const char *cdir = pa_bcache_dir(p->c);
	size_t cl = strlen(cdir);
	char hex[PA_BUILDID_HEX_MAX], *entry;
	struct pa_err e = {0};

	pa_buildid_to_hex(&d->id, hex);
	entry = pa_bcache_entry_dir(p->c, &d->id, &e);
	if (!entry && d->kind == PA_ARCHIVE_DSO_KERNEL) {
		/* perf finds kallsyms without the link: so do we */
		char *ks = pa_bcache_find(p->c, &d->id, PA_BCACHE_KALLSYMS, NULL);
		char *slash = ks ? strrchr(ks, '/') : NULL;
		if (slash && !strcmp(slash, "/kallsyms")) {
			*slash = 0;
			entry = ks;
		} else {
			free(ks);
		}
	}
	if (!entry) {
		if (e.code == -ENOMEM)
			return pa_err_set(err, -ENOMEM, "out of memory");
		res->why = e.code == -PA_ERR_NOT_FOUND ? res->why : "unusable cache entry";
		return 0;
	}
	if (strncmp(entry, cdir, cl) || entry[cl] != '/') {
		free(entry);
		res->why = "unusable cache entry";
		return 0;
	}
	const char *rel = entry + cl + 1;
	for (int k = PA_BCACHE_ELF; k < PA_BCACHE_NR_KINDS; k++) {
		const char *kn = pa_bcache_kind_name((enum pa_bcache_kind)k);
		char *path = pa_asprintf("%s/%s", entry, kn);
		struct stat st;
		if (!path) {
			free(entry);
			return pa_err_set(err, -ENOMEM, "out of memory");
		}
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		/* a cached ELF must still be what its name says */
		if (pa_bcache_kind_has_buildid((enum pa_bcache_kind)k) &&
		    pa_buildid_file_matches(path, &d->id, NULL) != 1) {
			free(path);
			res->why = "a cached file does not have its build-id (damaged cache?)";
			continue;
		}
		if (PA_GROW(p->files, p->capfiles, p->nfiles + 1, 16)) {
			free(path);
			free(entry);
			return pa_err_set(err, -ENOMEM, "out of memory");
		}
		struct pfile *pf = &p->files[p->nfiles];
		pf->path = path;
		pf->member = pa_asprintf("%s/%s", rel, kn);
		pf->kind = (enum pa_bcache_kind)k;
		pf->size = (uint64_t)st.st_size;
		pf->orig = d->name;
		memcpy(pf->hex, hex, sizeof(hex));
		if (!pf->member) {
			free(path);
			free(entry);
			return pa_err_set(err, -ENOMEM, "out of memory");
		}
		p->nfiles++;
		res->kinds |= 1u << k;
		res->bytes += pf->size;
	}
	if (res->kinds) {
		if (PA_GROW(p->links, p->caplinks, p->nlinks + 1, 16)) {
			free(entry);
			return pa_err_set(err, -ENOMEM, "out of memory");
		}
		struct plink *nl = p->links;
		nl[p->nlinks].member = pa_asprintf(".build-id/%.2s/%s", hex, hex + 2);
		nl[p->nlinks].target = pa_asprintf("../../%s", rel);
		p->nlinks++;
		if (!nl[p->nlinks - 1].member || !nl[p->nlinks - 1].target) {
			free(entry);
			return pa_err_set(err, -ENOMEM, "out of memory");
		}
	}
	free(entry);
	return 0;
}

static bool seen(struct packer *p, const struct pa_buildid *id)
{
	for (size_t i = 0; i < p->nseen; i++)
		if (pa_buildid_equal(&p->seen[i], id))
			return true;
	if (!PA_GROW(p->seen, p->capseen, p->nseen + 1, 16))
		p->seen[p->nseen++] = *id;
	return false;
}

/* A DSO recorded without a build-id: if the file at its path (or under
 * symfs) is an ELF without a build-id note, it gets the SHA-1 of its content
 * as its id (1; *id set), which pa report matches by name.  0 otherwise,
 * with *why set. */
static int content_id(struct packer *p, const struct pa_archive_dso *d, struct pa_buildid *id,
                      const char **why)
{
	char *cands[2] = {p->symfs ? pa_asprintf("%s%s", p->symfs, d->name) : NULL,
	                  strdup(d->name)};
	int found = 0;

	*why = "no build-id recorded for it (perf record -z, or a pipe?): nothing to match it by";
	for (int i = 0; i < 2 && !found; i++) {
		struct pa_buildid note;
		struct stat st;
		bool fallback = false;
		if (!cands[i] || stat(cands[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (pa_buildid_read_elf(cands[i], &note, NULL) != -PA_ERR_NOT_FOUND)
			continue; /* not ELF, or it has a note the recording lacks */
		if (pa_buildid_identify(cands[i], id, &fallback, NULL) == 0 && fallback) {
			found = 1;
			*why = NULL;
			if (pa_bcache_add_file(p->c, cands[i], d->name, id, PA_BCACHE_ELF, NULL) <
			    0) {
				*why = "no build-id note, and it cannot be added to the cache";
				found = 0;
			}
		}
	}
	free(cands[0]);
	free(cands[1]);
	return found;
}

/* A JIT's /tmp/perf-PID.map (no build-id): its id is the SHA-1 of the file
 * read there when the recording was made on this host (put into the cache
 * under that id), else of the one copy the cache holds. 1 with *id set, 0
 * with *why set, or -ENOMEM. */
static int perf_map_id(struct packer *p, const struct pa_archive_dso *d, struct pa_buildid *id,
                       bool *added, const char **why)
{
	char *path = NULL;
	const char *origin = NULL;
	enum pa_find_result fr =
	    pa_finder_find_perf_map(p->f, d->name, p->recorded_here, &path, &origin, id);
	if (fr == PA_FIND_ERROR)
		return -ENOMEM;
	if (fr != PA_FIND_OK) {
		*why = pa_finder_perf_map_why(fr, p->recorded_here);
		return 0;
	}
	int r = 0;
	if (!strcmp(origin, "path")) {
		r = pa_bcache_add_file(p->c, path, d->name, id, PA_BCACHE_PERF_MAP, NULL);
		*added = r == 0;
	}
	free(path);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*why = "JIT map: it cannot be added to the cache";
		return 0;
	}
	return 1;
}

static int pack_dso(struct packer *p, const struct pa_archive_dso *dso, pa_archive_pack_fn cb,
                    void *ctx, struct pa_err *err)
{
	struct pa_archive_dso dd = *dso, *d = &dd;
	struct pa_archive_dso_result res = {.name = d->name, .id = d->id};
	char *name = NULL;
	int ret = 0;

	if (d->kind == PA_ARCHIVE_DSO_PERF_MAP) {
		ret = perf_map_id(p, d, &d->id, &res.added_to_cache, &res.why);
		if (ret < 0)
			goto out;
		if (ret == 0)
			goto report;
		ret = 0;
		res.id = d->id;
	} else if (!pa_buildid_is_defined(&d->id)) {
		if (d->kind != PA_ARCHIVE_DSO_USER || d->name[0] != '/' ||
		    !content_id(p, d, &d->id, &res.why))
			goto report;
		res.id = d->id;
		res.content_id = true;
	}
	if (seen(p, &d->id))
		return 0;
	name = cache_name(d);
	if (!name)
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (name[0] != '/' && name[0] != '[') {
		res.why = "not a file name";
		goto report;
	}
	struct pa_err e = {0};
	ret = ensure_main(p, d, name, &res.added_to_cache, &res.why, &e);
	if (ret == -ENOMEM)
		goto out;
	if (ret < 0) {
		/* one DSO the cache refuses (odd name, conflict) is not fatal */
		ret = 0;
		snprintf(p->whybuf, sizeof(p->whybuf), "cannot add it to the cache: %s", e.msg);
		res.why = p->whybuf;
	}
	if (d->kind == PA_ARCHIVE_DSO_USER || d->kind == PA_ARCHIVE_DSO_MODULE ||
	    (d->kind == PA_ARCHIVE_DSO_KERNEL && !res.why)) {
		struct pa_err e2 = {0};
		ret = d->kind == PA_ARCHIVE_DSO_KERNEL
		          ? ensure_kcore(p, &d->id, name, &res.added_to_cache, &e2)
		          : ensure_debug(p, &d->id, name, &res.added_to_cache, &e2);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
	}
	ret = collect(p, d, &res, err);
	if (ret < 0)
		goto out;
	if (!res.kinds && !res.why)
		res.why = "nothing cached for it";
report:
	if (cb)
		cb(ctx, &res);
	ret = res.kinds ? 1 : 0;
out:
	free(name);
	if (ret == -ENOMEM)
		pa_err_set(err, -ENOMEM, "out of memory");
	return ret;
}

/* ---- writing ------------------------------------------------------------- */

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct pfile *)a)->member, ((const struct pfile *)b)->member);
}

static int cmp_link(const void *a, const void *b)
{
	return strcmp(((const struct plink *)a)->member, ((const struct plink *)b)->member);
}

/* Errors about the output do not name it: the caller does. */
static int la_fail(struct archive *a, const char *out, struct pa_err *err)
{
	const char *s = archive_error_string(a);
	int e = archive_errno(a);
	(void)out;
	return pa_err_set(err, e > 0 ? -e : -EIO, "%s", s ? s : "write error");
}

static int set_filter(struct archive *a, enum pa_archive_compression c)
{
	switch (c) {
	case PA_ARCHIVE_NONE:
		return archive_write_add_filter_none(a);
	case PA_ARCHIVE_GZIP:
		return archive_write_add_filter_gzip(a);
	case PA_ARCHIVE_BZIP2:
		return archive_write_add_filter_bzip2(a);
	case PA_ARCHIVE_XZ:
		return archive_write_add_filter_xz(a);
	default:
		return archive_write_add_filter_zstd(a);
	}
}

static int write_member(struct archive *a, const char *name, const void *data, size_t len, int fd,
                        uint64_t size, unsigned perm, time_t mtime, const char *out,
                        struct pa_err *err)
{
	struct archive_entry *e = archive_entry_new2(a);
	char buf[65536];
	int ret = 0;

	if (!e)
		return pa_err_set(err, -ENOMEM, "out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, perm);
	archive_entry_set_size(e, (la_int64_t)(data ? len : size));
	archive_entry_set_mtime(e, mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		ret = la_fail(a, out, err);
		goto out;
	}
	if (data) {
		if (archive_write_data(a, data, len) != (la_ssize_t)len)
			ret = la_fail(a, out, err);
		goto out;
	}
	for (uint64_t left = size; left;) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = pa_err_set(err, n < 0 ? -errno : -EIO, "'%s': %s", name,
			                 n < 0 ? strerror(errno) : "file shrank while packing");
			goto out;
		}
		if (archive_write_data(a, buf, (size_t)n) != n) {
			ret = la_fail(a, out, err);
			goto out;
		}
		left -= (uint64_t)n;
	}
out:
	archive_entry_free(e);
	return ret;
}

static int write_link(struct archive *a, const struct plink *l, time_t mtime, const char *out,
                      struct pa_err *err)
{
	struct archive_entry *e = archive_entry_new2(a);
	int ret = 0;

	if (!e)
		return pa_err_set(err, -ENOMEM, "out of memory");
	archive_entry_set_pathname(e, l->member);
	archive_entry_set_filetype(e, AE_IFLNK);
	archive_entry_set_perm(e, 0777);
	archive_entry_set_symlink(e, l->target);
	archive_entry_set_size(e, 0);
	archive_entry_set_mtime(e, mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		ret = la_fail(a, out, err);
	archive_entry_free(e);
	return ret;
}

static int build_manifest(struct packer *p, struct pa_buf *b)
{
	int r = pa_buf_addf(b, "# pa archive manifest 1\n"
	                       "# build-id\tkind\tsize\tmember\toriginal path\n");
	for (size_t i = 0; i < p->nfiles && r >= 0; i++) {
		const struct pfile *f = &p->files[i];
		r = pa_buf_addf(b, "%s\t%s\t%llu\t%s\t%s\n", f->hex, pa_bcache_kind_name(f->kind),
		                (unsigned long long)f->size, f->member, f->orig);
	}
	return r < 0 ? -ENOMEM : 0;
}

static int write_archive(struct packer *p, const char *out, enum pa_archive_compression comp,
                         struct pa_err *err)
{
	struct archive *a = NULL;
	struct pa_buf man = {0};
	char *tmp = pa_asprintf("%s.tmp-XXXXXX", out);
	bool tmp_live = false;
	int fd = -1, ret;

	if (!tmp)
		return pa_err_set(err, -ENOMEM, "out of memory");
	qsort(p->files, p->nfiles, sizeof(*p->files), cmp_file);
	qsort(p->links, p->nlinks, sizeof(*p->links), cmp_link);
	/* a DSO recorded under two names is one entry: drop repeated members */
	size_t k = 0;
	for (size_t i = 0; i < p->nfiles; i++) {
		if (k && !strcmp(p->files[k - 1].member, p->files[i].member)) {
			free(p->files[i].path);
			free(p->files[i].member);
			continue;
		}
		p->files[k++] = p->files[i];
	}
	p->nfiles = k;
	if (build_manifest(p, &man) < 0) {
		ret = pa_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = pa_err_set(err, -errno, "%s", strerror(errno));
		goto out;
	}
	tmp_live = true;
	fchmod(fd, 0644);
	a = archive_write_new();
	if (!a) {
		ret = pa_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    set_filter(a, comp) != ARCHIVE_OK || archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		ret = la_fail(a, out, err);
		goto out;
	}
	time_t now = time(NULL);
	ret = write_member(a, PA_ARCHIVE_MANIFEST, man.data, man.len, -1, 0, 0644, now, out, err);
	for (size_t i = 0; i < p->nfiles && ret == 0; i++) {
		const struct pfile *f = &p->files[i];
		struct stat st;
		int ffd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (ffd < 0 || fstat(ffd, &st) < 0) {
			ret = pa_err_set(err, -errno, "'%s': %s", f->path, strerror(errno));
		} else if ((uint64_t)st.st_size != f->size) {
			ret = pa_err_set(err, -EIO, "'%s': changed while packing", f->path);
		} else {
			ret = write_member(a, f->member, NULL, 0, ffd, f->size,
			                   st.st_mode & 0111 ? 0755 : 0644, st.st_mtime, out, err);
		}
		if (ffd >= 0)
			close(ffd);
	}
	for (size_t i = 0; i < p->nlinks && ret == 0; i++)
		if (!i || strcmp(p->links[i].member, p->links[i - 1].member))
			ret = write_link(a, &p->links[i], now, out, err);
	if (ret == 0 && archive_write_close(a) != ARCHIVE_OK)
		ret = la_fail(a, out, err);
	if (ret == 0 && fsync(fd) < 0)
		ret = pa_err_set(err, -errno, "%s", strerror(errno));
	if (ret == 0 && rename(tmp, out) < 0)
		ret = pa_err_set(err, -errno, "%s", strerror(errno));
	if (ret == 0)
		tmp_live = false;
out:
	if (a)
		archive_write_free(a);
	if (fd >= 0)
		close(fd);
	if (tmp_live)
		unlink(tmp);
	free(tmp);
	pa_buf_release(&man);
	return ret;
}

int pa_archive_pack(const struct pa_archive_dso *dsos, size_t n, const char *out_path,
                    const struct pa_archive_pack_opts *opts, pa_archive_pack_fn cb, void *ctx,
                    struct pa_err *err)
{
	struct packer p = {0};
	int ret, packed = 0;

	if (!out_path || (n && !dsos))
		return pa_err_set(err, -EINVAL, "invalid argument");
	ret = pa_archive__check_opts(opts, sizeof(*opts), err);
	if (ret < 0)
		return ret;
	const char *why = pa_archive__lib_why();
	if (why)
		return pa_err_set(err, -ENOSYS, "libarchive cannot be opened: %s", why);
	const char *symfs = PA_OPTS_GET(opts, struct pa_archive_pack_opts, symfs, NULL);
	struct pa_finder_opts fo = {
	    .sz = sizeof(fo),
	    .symfs = symfs,
	    .buildid_dir = PA_OPTS_GET(opts, struct pa_archive_pack_opts, buildid_dir, NULL),
	    .no_debuginfod = PA_OPTS_GET(opts, struct pa_archive_pack_opts, no_debuginfod, false),
	    .kernel_notes = PA_OPTS_GET(opts, struct pa_archive_pack_opts, kernel_notes, NULL),
	    .proc_kallsyms = PA_OPTS_GET(opts, struct pa_archive_pack_opts, proc_kallsyms, NULL),
	};
	p.symfs = symfs && *symfs ? symfs : NULL;
	p.recorded_here = PA_OPTS_GET(opts, struct pa_archive_pack_opts, recorded_here, false);
	p.f = pa_finder_new(&fo, err);
	fo.no_system_debug = true;
	p.fbin = p.f ? pa_finder_new(&fo, err) : NULL;
	if (!p.fbin) {
		ret = err ? err->code : -ENOMEM;
		goto out;
	}
	p.c = pa_finder_cache(p.f);
	for (size_t i = 0; i < n; i++) {
		if (!dsos[i].name) {
			ret = pa_err_set(err, -EINVAL, "invalid argument");
			goto out;
		}
		ret = pack_dso(&p, &dsos[i], cb, ctx, err);
		if (ret < 0)
			goto out;
		packed += ret;
	}
	if (!p.nfiles) {
		ret = pa_err_set(err, PA_ERR_NOT_FOUND, "nothing to pack");
		goto out;
	}
	enum pa_archive_compression comp =
	    PA_OPTS_GET(opts, struct pa_archive_pack_opts, compression, PA_ARCHIVE_BY_SUFFIX);
	if (comp == PA_ARCHIVE_BY_SUFFIX)
		comp = pa_archive_compression_for(out_path);
	ret = write_archive(&p, out_path, comp, err);
	if (ret == 0)
		ret = packed;
out:
	for (size_t i = 0; i < p.nfiles; i++) {
		free(p.files[i].path);
		free(p.files[i].member);
	}
	for (size_t i = 0; i < p.nlinks; i++) {
		free(p.links[i].member);
		free(p.links[i].target);
	}
	free(p.files);
	free(p.links);
	free(p.seen);
	pa_finder_free(p.fbin);
	pa_finder_free(p.f);
	return ret;
}
