/* common.c - small helpers of the archive layer. */
#include "archive/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pa_archive__check_opts(const void *opts, size_t known, struct pa_err *err)
{
	size_t sz;

	switch (pa_opts_check(opts, known)) {
	case 0:
		return 0;
	case -EINVAL:
		memcpy(&sz, opts, sizeof(sz));
		return pa_err_set(err, -EINVAL, "options: bad size %zu", sz);
	default:
		return pa_err_set(err, -EINVAL, "options: unknown option set");
	}
}
