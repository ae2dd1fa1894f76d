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
