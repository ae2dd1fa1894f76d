/* cache.c - the build-id cache in perf's ~/.debug layout.
 *
 *   DIR/<dso>/<hex>/{elf,debug,kallsyms,vdso}
 *   DIR/.build-id/<hex[0:2]>/<hex[2:]> -> ../../<dso>/<hex>
 *
 * Publishing protocol (see buildid.h): data goes to DIR/<dso>/<hex>/.tmp-*,
 * is fsync'ed and validated, then renamed to its final name with
 * RENAME_NOREPLACE (or link(2), which never replaces, where renameat2 is not
 * supported).  The .build-id link is created the same way from a temporary
 * symlink, so two adders racing for the same id never replace each other's
 * work and a reader sees either nothing or a complete entry.
 */
#include "buildid/buildid.h"
#include "buildid/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const kind_names[] = {
    [PA_BCACHE_ELF] = "elf",   [PA_BCACHE_DEBUG] = "debug",       [PA_BCACHE_KALLSYMS] = "kallsyms",
    [PA_BCACHE_VDSO] = "vdso", [PA_BCACHE_PERF_MAP] = "perf-map", [PA_BCACHE_KCORE] = "kcore",
};

bool pa_bcache_kind_has_buildid(enum pa_bcache_kind kind)
{
	return kind != PA_BCACHE_KALLSYMS && kind != PA_BCACHE_KCORE;
}

const char *pa_bcache_kind_name(enum pa_bcache_kind kind)
{
	if ((unsigned)kind < PA_ARRAY_SIZE(kind_names))
		return kind_names[kind];
	return NULL;
}

/* ---- open / close -------------------------------------------------------- */

struct pa_bcache *pa_bcache_open(const char *dir, struct pa_err *err)
{
	struct pa_bcache *c;
	char *d;
	size_t n;

	if (dir && !*dir) {
		pa_err_set(err, -EINVAL, "empty build-id cache directory");
		errno = EINVAL;
		return NULL;
	}
	if (!dir) {
		const char *env = getenv("PERF_BUILDID_DIR");
		const char *home = getenv("HOME");
		if (env && *env) {
			d = strdup(env);
		} else if (home && *home) {
			d = pa_asprintf("%s/.debug", home);
		} else {
			pa_err_set(err, PA_ERR_USAGE,
				   "no build-id cache directory: HOME is not set");
			errno = EINVAL;
			return NULL;
		}
	} else {
		d = strdup(dir);
	}
	c = calloc(1, sizeof(*c));
	if (!d || !c) {
		free(d);
		free(c);
		ENOMEM_ERR(err);
		errno = ENOMEM;
		return NULL;
	}
	n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = 0;
	c->dir = d;
	return c;
}

void pa_bcache_close(struct pa_bcache *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c);
}

const char *pa_bcache_dir(const struct pa_bcache *c)
{
	return c ? c->dir : NULL;
}

/* ---- names --------------------------------------------------------------- */

/* A path component that may appear under DIR. */
static bool good_component(const char *p, size_t l)
{
	if (l == 0 || l > NAME_MAX)
		return false;
	if ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
		return false;
	return true;
}

/* Relative path of a DSO under DIR, pointing into dso_name. */
int pa_bcache__dso_rel(const char *name, const char **rel, struct pa_err *err)
{
	const char *p;
	size_t n;
	bool first = true;

	if (!name || !*name)
		return pa_err_set(err, -EINVAL, "empty dso name");
	n = strlen(name);
	if (n >= PATH_MAX)
		return pa_err_set(err, -ENAMETOOLONG, "'%.64s...': dso name too long", name);
	if (name[0] == '[') {
		if (n < 3 || name[n - 1] != ']' || strchr(name, '/') || n > NAME_MAX)
			return pa_err_set(err, -EINVAL, "'%s': invalid dso name", name);
		*rel = name;
		return 0;
	}
	if (name[0] != '/')
		return pa_err_set(err, -EINVAL, "'%s': dso name is not an absolute path", name);
	for (p = name + 1;;) {
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (!good_component(p, l) || (first && l == 9 && !memcmp(p, ".build-id", 9)))
			return pa_err_set(err, -EINVAL, "'%s': invalid dso path", name);
		first = false;
		if (!e)
			break;
		p = e + 1;
	}
	*rel = name + 1;
	return 0;
}

/* The <dso>/<hex> part of a link target "../../<dso>/<hex>" (perf may write
 * "../..//<dso>/<hex>" when its directory had a trailing slash), or NULL when
 * the target has another shape (it would point outside the cache). */
const char *pa_bcache__target_rel(const char *t)
{
	const char *p;

	if (strncmp(t, "../..", 5) || t[5] != '/')
		return NULL;
	p = t + 5;
	while (*p == '/')
		p++;
	for (const char *q = p;;) {
		const char *e = strchr(q, '/');
		size_t l = e ? (size_t)(e - q) : strlen(q);
		if (!good_component(q, l))
			return NULL;
		if (!e)
			break;
		q = e + 1;
	}
	return p;
}

bool pa_bcache__is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

int pa_bcache__check_id(const struct pa_buildid *id, char hex[41], struct pa_err *err)
{
	if (!id || !pa_buildid_is_defined(id))
		return pa_err_set(err, -EINVAL, "undefined build-id");
	pa_buildid_to_hex(id, hex);
	return 0;
}

char *pa_bcache__link_path(const struct pa_bcache *c, const char *hex)
{
	return pa_asprintf("%s/.build-id/%.2s/%s", c->dir, hex, hex + 2);
}

/* readlink into a malloc'd string; NULL with *e = errno on failure. */
char *pa_bcache__read_link(const char *path, int *e)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	char *s;

	if (n < 0) {
		*e = errno;
		return NULL;
	}
	buf[n] = 0;
	s = strdup(buf);
	if (!s)
		*e = ENOMEM;
	return s;
}

static bool is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *pa_bcache_find_perf_kcore(const struct pa_bcache *c, const struct pa_buildid *id)
{
	char hex[41], best[64] = "", *dir, *p = NULL;
	struct dirent *de;
	DIR *d;
	if (!c || pa_bcache__check_id(id, hex, NULL) < 0 ||
	    !(dir = pa_asprintf("%s/[kernel.kcore]/%s", c->dir, hex)))
		return NULL;
	if ((d = opendir(dir))) {
		/* perf names each copy by its time, YYYYmmddHHMMSS + 2 digits */
		while ((de = readdir(d))) {
			size_t n = strlen(de->d_name);
			if (n < sizeof(best) && n == strspn(de->d_name, "0123456789") &&
			    (n > strlen(best) ||
			     (n == strlen(best) && strcmp(de->d_name, best) > 0))) {
				char *k = pa_asprintf("%s/%s/kcore", dir, de->d_name);
				if (k && is_regular(k))
					memcpy(best, de->d_name, n + 1);
				free(k);
			}
		}
		closedir(d);
	}
	if (best[0])
		p = pa_asprintf("%s/%s/kcore", dir, best);
	free(dir);
	return p;
}

bool pa_bcache__is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- small file-system helpers ------------------------------------------- */

static int mkdir_p(char *path, struct pa_err *err)
{
	struct stat st;

	for (char *p = path + 1;; p++) {
		if (*p == '/' || *p == 0) {
			char save = *p;
			*p = 0;
			if (mkdir(path, 0755) < 0 && errno != EEXIST) {
				int e = errno;
				pa_err_set(err, -e, "'%s': %s", path, strerror(e));
				*p = save;
				return -e;
			}
			*p = save;
			if (!save)
				break;
		}
	}
	if (stat(path, &st) < 0)
		return pa_err_set(err, -errno, "'%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return pa_err_set(err, -ENOTDIR, "'%s': not a directory (old-style cache entry?)",
				  path);
	return 0;
}

static int fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		ret = -errno;
	close(fd);
	return ret;
}

/* Publish tmp as final without ever replacing final.  0, -EEXIST, or -errno. */
static int publish_noreplace(const char *tmp, const char *final)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP)
		return -errno;
	/* No RENAME_NOREPLACE on this file system: link(2) never replaces
	 * either (and links a symlink itself, not its target). */
	if (linkat(AT_FDCWD, tmp, AT_FDCWD, final, 0) < 0)
		return -errno;
	unlink(tmp);
	return 0;
}

/* A unique-enough suffix for temporary names; uniqueness is finally
 * guaranteed by O_EXCL / symlink() failing with EEXIST and retrying. */
static uint64_t tmp_token(void)
{
	uint64_t v;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return pa_hash64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
			 ((uint64_t)getpid() << 20) ^ (uint64_t)(uintptr_t)&v);
}

/* Create dir/.tmp-link-<token> -> target; malloc'd path in *out. */
static int make_tmp_symlink(const char *dir, const char *target, char **out,
			    struct pa_err *err)
{
	for (int i = 0; i < 32; i++) {
		char *p = pa_asprintf("%s/.tmp-link-%016llx", dir, (unsigned long long)tmp_token());
		if (!p)
			return ENOMEM_ERR(err);
		if (symlink(target, p) == 0) {
			*out = p;
			return 0;
		}
		int e = errno;
		free(p);
		if (e != EEXIST)
			return pa_err_set(err, -e, "'%s': symlink: %s", dir, strerror(e));
	}
	return pa_err_set(err, -EEXIST, "'%s': cannot create a temporary link", dir);
}

/* ---- lookups ------------------------------------------------------------- */

/* The "<dso>/<hex>" the link of id points at, malloc'd; NULL with err set. */
static char *linked_rel(const struct pa_bcache *c, const struct pa_buildid *id,
			struct pa_err *err)
{
	char hex[41], *lp, *t, *rel = NULL;
	const char *tr;
	int e = 0;

	if (!c)
		return pa_err_set(err, -EINVAL, "invalid argument"), NULL;
	if (pa_bcache__check_id(id, hex, err) < 0)
		return NULL;
	lp = pa_bcache__link_path(c, hex);
	if (!lp)
		return ENOMEM_ERR(err), NULL;
	t = pa_bcache__read_link(lp, &e);
	if (!t) {
		if (e == ENOENT)
			pa_err_set(err, PA_ERR_NOT_FOUND, "build-id %s is not cached", hex);
		else if (e == EINVAL)
			pa_err_set(err, PA_ERR_NOT_FOUND, "'%s': old-style cache entry", lp);
		else
			pa_err_set(err, -e, "'%s': %s", lp, strerror(e));
		free(lp);
		return NULL;
	}
	tr = pa_bcache__target_rel(t);
	if (!tr)
		pa_err_set(err, PA_ERR_FORMAT, "'%s': unexpected link target '%s'", lp, t);
	else if (!(rel = strdup(tr)))
		ENOMEM_ERR(err);
	free(t);
	free(lp);
	return rel;
}

char *pa_bcache_find(const struct pa_bcache *c, const struct pa_buildid *id,
		     enum pa_bcache_kind kind, struct pa_err *err)
{
	const char *kname = pa_bcache_kind_name(kind);
	char hex[41], *p, *lp, *rel;
	struct stat st;

	if (!c || !kname)
		return pa_err_set(err, -EINVAL, "invalid argument"), NULL;
	if (pa_bcache__check_id(id, hex, err) < 0)
		return NULL;

	if (kind == PA_BCACHE_KALLSYMS) {
		/* perf looks here without the link, then at the old layout
		 * where the id itself was the file. */
		p = pa_asprintf("%s/[kernel.kallsyms]/%s/kallsyms", c->dir, hex);
		if (p && is_regular(p))
			return p;
		free(p);
		p = pa_asprintf("%s/[kernel.kallsyms]/%s", c->dir, hex);
		if (p && is_regular(p))
			return p;
		free(p);
	}

	lp = pa_bcache__link_path(c, hex);
	if (!lp)
		return ENOMEM_ERR(err), NULL;
	if (lstat(lp, &st) == 0 && S_ISREG(st.st_mode))
		return lp; /* old style: the link path is the file */
	free(lp);

	rel = linked_rel(c, id, err);
	if (!rel)
		return NULL;
	p = pa_asprintf("%s/%s/%s", c->dir, rel, kname);
	free(rel);
	if (!p)
		return ENOMEM_ERR(err), NULL;
	if (is_regular(p))
		return p;
	free(p);
	pa_err_set(err, PA_ERR_NOT_FOUND, "build-id %s has no cached %s file", hex, kname);
	return NULL;
}

char *pa_bcache_entry_dir(const struct pa_bcache *c, const struct pa_buildid *id,
			  struct pa_err *err)
{
	char *rel = linked_rel(c, id, err), *p;

	if (!rel)
		return NULL;
	p = pa_asprintf("%s/%s", c->dir, rel);
	free(rel);
	if (!p)
		return ENOMEM_ERR(err), NULL;
	return p;
}

/* "/usr/lib/x.so" or "[kernel.kallsyms]" from "usr/lib/x.so/<hex>". */
char *pa_bcache__rel_to_dso_name(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	int n = slash ? (int)(slash - rel) : (int)strlen(rel);

	if (rel[0] == '[')
		return pa_asprintf("%.*s", n, rel);
	return pa_asprintf("/%.*s", n, rel);
}

char *pa_bcache_dso_name(const struct pa_bcache *c, const struct pa_buildid *id,
			 struct pa_err *err)
{
	char *rel = linked_rel(c, id, err), *name;

	if (!rel)
		return NULL;
	name = pa_bcache__rel_to_dso_name(rel);
	free(rel);
	if (!name)
		ENOMEM_ERR(err);
	return name;
}

/* ---- add ----------------------------------------------------------------- */

struct src {
	int fd;			  /* or -1 */
	bool regular;		  /* fd is a regular file: pread works */
	const unsigned char *mem; /* or NULL */
	size_t len;
	mode_t mode;
	const char *what;
};

/* 1 if fd's content equals the source's, 0 if not, negative on error. */
static int same_content(int fd, const struct src *s)
{
	unsigned char a[32768], b[32768];
	struct stat st, ss;
	off_t off = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (s->mem) {
		if ((uint64_t)st.st_size != s->len)
			return 0;
	} else {
		if (fstat(s->fd, &ss) < 0)
			return -errno;
		if (st.st_size != ss.st_size)
			return 0;
	}
	for (;;) {
		size_t na, nb;
		int r = pa_pread_full(fd, a, sizeof(a), (uint64_t)off, &na);
		if (r)
			return r;
		if (s->mem) {
			size_t left = s->len - (size_t)off;
			nb = left < sizeof(a) ? left : sizeof(a);
			memcpy(b, s->mem + off, nb);
		} else if ((r = pa_pread_full(s->fd, b, sizeof(b), (uint64_t)off, &nb))) {
			return r;
		}
		if (na != nb || memcmp(a, b, na))
			return 0;
		if (na == 0)
			return 1;
		off += (off_t)na;
	}
}

static int copy_src(int tfd, const struct src *s)
{
	unsigned char buf[65536];

	if (s->mem)
		return pa_write_all(tfd, s->mem, s->len);
	for (;;) {
		ssize_t n = read(s->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		int r = pa_write_all(tfd, buf, (size_t)n);
		if (r < 0)
			return r;
	}
}

/* Make DIR/.build-id/xx/rest point at ../../<rel>/<hex>. */
static int ensure_link(struct pa_bcache *c, const char *rel, const char *hex, struct pa_err *err)
{
	char *ldir = pa_asprintf("%s/.build-id/%.2s", c->dir, hex);
	char *lp = pa_asprintf("%s/.build-id/%.2s/%s", c->dir, hex, hex + 2);
	char *target = pa_asprintf("../../%s/%s", rel, hex);
	char *want = pa_asprintf("%s/%s", rel, hex);
	char *tmp = NULL, *cur = NULL;
	int ret;

	if (!ldir || !lp || !target || !want) {
		ret = ENOMEM_ERR(err);
		goto out;
	}
	ret = mkdir_p(ldir, err);
	if (ret < 0)
		goto out;
	for (int tries = 0;; tries++) {
		int e = 0;
		const char *tr;
		struct stat st;

		if (tries == 16) {
			ret = pa_err_set(err, -EAGAIN, "'%s': link keeps changing", lp);
			goto out;
		}
		free(cur);
		cur = pa_bcache__read_link(lp, &e);
		if (cur) {
			tr = pa_bcache__target_rel(cur);
			if (tr && !strcmp(tr, want))
				break; /* already ours */
			if (stat(lp, &st) == 0)
				break; /* first name wins, as in perf */
			/* Dangling: replace it (a racing replacer also
			 * points at a complete entry, so either may win). */
			ret = make_tmp_symlink(ldir, target, &tmp, err);
			if (ret < 0)
				goto out;
			if (rename(tmp, lp) < 0) {
				ret = pa_err_set(err, -errno, "'%s': %s", lp, strerror(errno));
				goto out;
			}
			free(tmp);
			tmp = NULL;
			break;
		}
		if (e == EINVAL)
			break; /* not a symlink: perf's old layout, keep it */
		if (e != ENOENT) {
			ret = pa_err_set(err, -e, "'%s': %s", lp, strerror(e));
			goto out;
		}
		ret = make_tmp_symlink(ldir, target, &tmp, err);
		if (ret < 0)
			goto out;
		ret = publish_noreplace(tmp, lp);
		if (ret == 0) {
			free(tmp);
			tmp = NULL;
			break;
		}
		unlink(tmp);
		free(tmp);
		tmp = NULL;
		if (ret != -EEXIST) {
			ret = pa_err_set(err, ret, "'%s': %s", lp, strerror(-ret));
			goto out;
		}
		/* lost a race: look at the winner */
	}
	ret = fsync_dir(ldir);
	if (ret < 0)
		pa_err_set(err, ret, "'%s': fsync: %s", ldir, strerror(-ret));
out:
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(cur);
	free(ldir);
	free(lp);
	free(target);
	free(want);
	return ret;
}

/* An entry already at final (open as ffd) against the source: 0 when it
 * holds the same bytes, else the error (said). */
static int same_as_cached(int ffd, const struct src *s, const char *final, struct pa_err *err)
{
	int ret = same_content(ffd, s);
	if (ret < 0)
		return pa_err_set(err, ret, "'%s': %s", final, strerror(-ret));
	if (ret == 0)
		return pa_err_set(err, PA_ERR_BUILDID_MISMATCH,
		                  "'%s': already cached with different content", final);
	return 0;
}

/* The source copied into the temporary file tmp (open as tfd), made
 * durable, and (id not NULL) checked to carry build-id id (hex). 0 or
 * the error (said). */
static int fill_tmp(int tfd, const char *tmp, const struct src *s, const struct pa_buildid *id,
                    const char *hex, struct pa_err *err)
{
	int ret = copy_src(tfd, s);
	if (ret < 0)
		return pa_err_set(err, ret, "copying '%s' to '%s': %s", s->what, tmp,
		                  strerror(-ret));
	if (fchmod(tfd, s->mode) < 0 || fsync(tfd) < 0)
		return pa_err_set(err, -errno, "'%s': %s", tmp, strerror(errno));
	if (!id)
		return 0;
	if (lseek(tfd, 0, SEEK_SET) < 0)
		return pa_err_set(err, -errno, "'%s': %s", tmp, strerror(errno));
	ret = pa_buildid__fd_matches(tfd, s->what, id, err);
	if (ret == 0)
		ret = pa_err_set(err, PA_ERR_BUILDID_MISMATCH,
		                 "'%s': content does not have build-id %s", s->what, hex);
	return ret < 0 ? ret : 0;
}

static int add_common(struct pa_bcache *c, const struct src *s, const char *dso_name,
		      const struct pa_buildid *id, enum pa_bcache_kind kind, struct pa_err *err)
{
	const char *kname = pa_bcache_kind_name(kind), *rel;
	char hex[41], *entry = NULL, *final = NULL, *tmp = NULL;
	bool tmp_live = false;
	int tfd = -1, ffd = -1, ret;

	if (!c || !kname)
		return pa_err_set(err, -EINVAL, "invalid argument");
	ret = pa_bcache__check_id(id, hex, err);
	if (ret < 0)
		return ret;
	ret = pa_bcache__dso_rel(dso_name, &rel, err);
	if (ret < 0)
		return ret;
	entry = pa_asprintf("%s/%s/%s", c->dir, rel, hex);
	final = entry ? pa_asprintf("%s/%s", entry, kname) : NULL;
	tmp = entry ? pa_asprintf("%s/.tmp-%s-XXXXXX", entry, kname) : NULL;
	if (!entry || !final || !tmp) {
		ret = ENOMEM_ERR(err);
		goto out;
	}
	ret = mkdir_p(entry, err);
	if (ret < 0)
		goto out;

	/* Already there?  Compare without copying when the source allows. */
	ffd = open(final, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (ffd < 0 && errno != ENOENT) {
		ret = pa_err_set(err, -errno, "'%s': %s", final, strerror(errno));
		goto out;
	}
	if (ffd >= 0 && (s->mem || s->regular)) {
		ret = same_as_cached(ffd, s, final, err);
		if (ret < 0)
			goto out;
		goto link;
	}
	if (ffd >= 0) {
		close(ffd);
		ffd = -1;
	}

	tfd = mkostemp(tmp, O_CLOEXEC);
	if (tfd < 0) {
		ret = pa_err_set(err, -errno, "'%s': %s", tmp, strerror(errno));
		goto out;
	}
	tmp_live = true;
	ret = fill_tmp(tfd, tmp, s, pa_bcache_kind_has_buildid(kind) ? id : NULL, hex, err);
	if (ret < 0)
		goto out;

	ret = publish_noreplace(tmp, final);
	if (ret == -EEXIST) {
		/* Someone else published first: fine if it is the same. */
		struct src t = {.fd = tfd, .regular = true, .what = tmp};
		ffd = open(final, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (ffd < 0) {
			ret = pa_err_set(err, -errno, "'%s': %s", final, strerror(errno));
			goto out;
		}
		ret = same_as_cached(ffd, &t, final, err);
		if (ret < 0)
			goto out;
	} else if (ret < 0) {
		pa_err_set(err, ret, "'%s': %s", final, strerror(-ret));
		goto out;
	} else {
		tmp_live = false;
		ret = fsync_dir(entry);
		if (ret < 0) {
			pa_err_set(err, ret, "'%s': fsync: %s", entry, strerror(-ret));
			goto out;
		}
	}
link:
	ret = ensure_link(c, rel, hex, err);
out:
	if (ffd >= 0)
		close(ffd);
	if (tfd >= 0)
		close(tfd);
	if (tmp_live)
		unlink(tmp);
	free(tmp);
	free(final);
	free(entry);
	return ret;
}

int pa_bcache_add_file(struct pa_bcache *c, const char *src_path, const char *dso_name,
		       const struct pa_buildid *id, enum pa_bcache_kind kind, struct pa_err *err)
{
	struct src s = {.fd = -1, .what = src_path};
	struct stat st;
	int ret;

	if (!c || !src_path)
		return pa_err_set(err, -EINVAL, "invalid argument");
	s.fd = open(src_path, O_RDONLY | O_CLOEXEC);
	if (s.fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", src_path, strerror(errno));
	if (fstat(s.fd, &st) < 0) {
		ret = pa_err_set(err, -errno, "'%s': %s", src_path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = pa_err_set(err, -EISDIR, "'%s': is a directory", src_path);
		goto out;
	}
	s.regular = S_ISREG(st.st_mode);
	s.mode = (s.regular && (st.st_mode & 0111)) ? 0755 : 0644;
	ret = add_common(c, &s, dso_name, id, kind, err);
out:
	close(s.fd);
	return ret;
}

int pa_bcache_add_mem(struct pa_bcache *c, const void *data, size_t len, const char *dso_name,
		      const struct pa_buildid *id, enum pa_bcache_kind kind, struct pa_err *err)
{
	struct src s = {.fd = -1, .mem = data ? data : (const void *)"", .len = len, .mode = 0644,
			.what = "<memory>"};

	if (!data && len)
		return pa_err_set(err, -EINVAL, "invalid argument");
	return add_common(c, &s, dso_name, id, kind, err);
}
