/* cache_walk.c - removing from the build-id cache and walking it: an
 * entry by id (perf buildid-cache --remove), a DSO's entries (--purge),
 * and every entry or every id of a DSO, in perf's ~/.debug layout
 * (cache.c has the layout, the lookups and the adding). */
#include "buildid/buildid.h"
#include "buildid/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- remove / purge ------------------------------------------------------ */

/* The directory of dso_name's entries (malloc'd; *rel: its path in the
 * cache), NULL with *ret set. */
static char *dso_dir(const struct pa_bcache *c, const char *dso_name, const char **rel, int *ret,
                     struct pa_err *err)
{
	*ret = pa_bcache__dso_rel(dso_name, rel, err);
	if (*ret < 0)
		return NULL;
	char *p = pa_asprintf("%s/%s", c->dir, *rel);
	if (!p)
		*ret = ENOMEM_ERR(err);
	return p;
}

int pa_bcache_remove(struct pa_bcache *c, const struct pa_buildid *id, struct pa_err *err)
{
	char hex[41], *lp, *t = NULL, *entry = NULL;
	const char *tr;
	struct stat st;
	int ret, e = 0;

	if (!c)
		return pa_err_set(err, -EINVAL, "invalid argument");
	ret = pa_bcache__check_id(id, hex, err);
	if (ret < 0)
		return ret;
	lp = pa_bcache__link_path(c, hex);
	if (!lp)
		return ENOMEM_ERR(err);
	if (lstat(lp, &st) < 0) {
		if (errno == ENOENT)
			ret = pa_err_set(err, PA_ERR_NOT_FOUND, "build-id %s is not cached", hex);
		else
			ret = pa_err_set(err, -errno, "'%s': %s", lp, strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) { /* old style */
		if (unlink(lp) < 0)
			ret = pa_err_set(err, -errno, "'%s': %s", lp, strerror(errno));
		goto out;
	}
	if (!S_ISLNK(st.st_mode)) {
		ret = pa_err_set(err, PA_ERR_FORMAT, "'%s': not a link", lp);
		goto out;
	}
	t = pa_bcache__read_link(lp, &e);
	if (!t) {
		ret = pa_err_set(err, e == ENOENT ? PA_ERR_NOT_FOUND : -e, "'%s': %s", lp,
		                 strerror(e));
		goto out;
	}
	/* Unlink first: the entry disappears atomically for readers. */
	if (unlink(lp) < 0) {
		ret = pa_err_set(err, errno == ENOENT ? PA_ERR_NOT_FOUND : -errno, "'%s': %s", lp,
		                 strerror(errno));
		goto out;
	}
	tr = pa_bcache__target_rel(t);
	if (!tr)
		goto out; /* a foreign link: removing it is all we dare do */
	entry = pa_asprintf("%s/%s", c->dir, tr);
	if (!entry) {
		ret = ENOMEM_ERR(err);
		goto out;
	}
	ret = pa_rm_rf_at(AT_FDCWD, entry);
	if (ret < 0)
		pa_err_set(err, ret, "'%s': %s", entry, strerror(-ret));
out:
	free(entry);
	free(t);
	free(lp);
	return ret;
}

/* An id directory holds only files (elf, debug, probes, temporaries...); a
 * hex-named directory with subdirectories is part of some other DSO path. */
static bool only_files(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	bool ok = true;
	DIR *d;

	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
			ok = false;
			break;
		}
	}
	closedir(d);
	return ok;
}

int pa_bcache_purge(struct pa_bcache *c, const char *dso_name, struct pa_err *err)
{
	const char *rel;
	char *dpath;
	struct dirent *de;
	DIR *d;
	int ret, count = 0;

	if (!c)
		return pa_err_set(err, -EINVAL, "invalid argument");
	if (!(dpath = dso_dir(c, dso_name, &rel, &ret, err)))
		return ret;
	d = opendir(dpath);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			ret = pa_err_set(err, PA_ERR_NOT_FOUND, "'%s': nothing cached", dso_name);
		else
			ret = pa_err_set(err, -errno, "'%s': %s", dpath, strerror(errno));
		free(dpath);
		return ret;
	}
	while ((de = readdir(d)) != NULL) {
		struct pa_buildid id;
		struct stat st;
		char hex[41], *lp, *t, *want;
		int e = 0;

		if (pa_buildid_from_hex(de->d_name, &id) < 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && !only_files(dirfd(d), de->d_name))
			continue;
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			continue;
		pa_buildid_to_hex(&id, hex);
		lp = pa_bcache__link_path(c, hex);
		want = pa_asprintf("%s/%s", rel, de->d_name);
		if (!lp || !want) {
			free(lp);
			free(want);
			ret = ENOMEM_ERR(err);
			break;
		}
		t = pa_bcache__read_link(lp, &e);
		if (t) {
			const char *tr = pa_bcache__target_rel(t);
			if (tr && !strcmp(tr, want))
				unlink(lp);
			free(t);
		}
		free(lp);
		free(want);
		ret = pa_rm_rf_at(dirfd(d), de->d_name);
		if (ret < 0) {
			pa_err_set(err, ret, "'%s/%s': %s", dpath, de->d_name, strerror(-ret));
			break;
		}
		count++;
	}
	closedir(d);
	free(dpath);
	return ret < 0 ? ret : count;
}

/* ---- foreach ------------------------------------------------------------- */

static int filter_head(const struct dirent *de)
{
	return strlen(de->d_name) == 2 && pa_bcache__is_hex(de->d_name, 2);
}

static int filter_tail(const struct dirent *de)
{
	size_t n = strlen(de->d_name);
	return n >= 2 && n <= 2 * PA_BUILDID_MAX - 2 && n % 2 == 0 &&
	       pa_bcache__is_hex(de->d_name, n);
}

static void free_dirents(struct dirent **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int pa_bcache_foreach(const struct pa_bcache *c,
                      int (*cb)(void *ctx, const struct pa_buildid *id, const char *dso_name,
                                const char *path),
                      void *ctx, struct pa_err *err)
{
	struct dirent **heads = NULL;
	char *top;
	int nh, ret = 0;

	if (!c || !cb)
		return pa_err_set(err, -EINVAL, "invalid argument");
	top = pa_asprintf("%s/.build-id", c->dir);
	if (!top)
		return ENOMEM_ERR(err);
	nh = scandir(top, &heads, filter_head, alphasort);
	if (nh < 0) {
		if (errno == ENOENT)
			ret = 0; /* no cache yet: nothing to list */
		else
			ret = pa_err_set(err, -errno, "'%s': %s", top, strerror(errno));
		free(top);
		return ret;
	}
	for (int i = 0; i < nh && ret == 0; i++) {
		struct dirent **tails = NULL;
		char *sub = pa_asprintf("%s/%s", top, heads[i]->d_name);
		int nt;

		if (!sub) {
			ret = ENOMEM_ERR(err);
			break;
		}
		nt = scandir(sub, &tails, filter_tail, alphasort);
		if (nt < 0) {
			free(sub);
			continue; /* not a directory, or vanished */
		}
		for (int j = 0; j < nt && ret == 0; j++) {
			char hex[41], *lp, *t, *entry = NULL, *name = NULL;
			struct pa_buildid id;
			struct stat st;
			int e = 0;

			snprintf(hex, sizeof(hex), "%.2s%.38s", heads[i]->d_name, tails[j]->d_name);
			if (pa_buildid_from_hex(hex, &id) < 0)
				continue;
			lp = pa_asprintf("%s/%s", sub, tails[j]->d_name);
			if (!lp) {
				ret = ENOMEM_ERR(err);
				break;
			}
			if (lstat(lp, &st) == 0 && S_ISREG(st.st_mode)) {
				ret = cb(ctx, &id, NULL, lp);
				free(lp);
				continue;
			}
			t = pa_bcache__read_link(lp, &e);
			if (t) {
				const char *tr = pa_bcache__target_rel(t);
				if (tr) {
					entry = pa_asprintf("%s/%s", c->dir, tr);
					name = pa_bcache__rel_to_dso_name(tr);
					if (!entry || !name)
						ret = ENOMEM_ERR(err);
					else if (pa_bcache__is_dir(entry))
						ret = cb(ctx, &id, name, entry);
				}
				free(t);
			}
			free(entry);
			free(name);
			free(lp);
		}
		free_dirents(tails, nt);
		free(sub);
	}
	free_dirents(heads, nh);
	free(top);
	return ret;
}

static int filter_id_dir(const struct dirent *de)
{
	size_t n = strlen(de->d_name);
	return n >= 2 && n <= 2 * PA_BUILDID_MAX && n % 2 == 0 && pa_bcache__is_hex(de->d_name, n);
}

int pa_bcache_foreach_dso(const struct pa_bcache *c, const char *dso_name,
                          int (*cb)(void *ctx, const struct pa_buildid *id, const char *dso_name,
                                    const char *path),
                          void *ctx, struct pa_err *err)
{
	struct dirent **ents = NULL;
	const char *rel;
	char *dpath;
	int n, ret;

	if (!c || !cb)
		return pa_err_set(err, -EINVAL, "invalid argument");
	if (!(dpath = dso_dir(c, dso_name, &rel, &ret, err)))
		return ret;
	n = scandir(dpath, &ents, filter_id_dir, alphasort);
	if (n < 0) {
		ret = errno == ENOENT || errno == ENOTDIR
		          ? 0
		          : pa_err_set(err, -errno, "'%s': %s", dpath, strerror(errno));
		free(dpath);
		return ret;
	}
	for (int i = 0; i < n && ret == 0; i++) {
		struct pa_buildid id;
		char *entry;
		if (pa_buildid_from_hex(ents[i]->d_name, &id) < 0)
			continue;
		entry = pa_asprintf("%s/%s", dpath, ents[i]->d_name);
		if (!entry) {
			ret = ENOMEM_ERR(err);
			break;
		}
		if (pa_bcache__is_dir(entry) && only_files(AT_FDCWD, entry))
			ret = cb(ctx, &id, dso_name, entry);
		free(entry);
	}
	free_dirents(ents, n);
	free(dpath);
	return ret;
}
