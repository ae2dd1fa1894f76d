/* common.c - small helpers of the archive layer. */
#include "archive/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *pa_archive__asprintf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static int rm_rf_at(int parent, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, ret = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int r = rm_rf_at(dirfd(d), de->d_name);
		if (r < 0 && !ret)
			ret = r;
	}
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}

int pa_archive__rm_rf(const char *path)
{
	return rm_rf_at(AT_FDCWD, path);
}

int pa_archive__check_opts(const void *opts, size_t known, struct pa_err *err)
{
	const unsigned char *b = opts;
	size_t sz;

	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return pa_err_set(err, -EINVAL, "options: bad size %zu", sz);
	for (size_t i = known; i < sz; i++)
		if (b[i])
			return pa_err_set(err, -EINVAL, "options: unknown option set");
	return 0;
}
