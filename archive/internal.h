/* internal.h - helpers shared by the files of archive/.  Other layers include
 * archive/archive.h only. */
#ifndef PA_ARCHIVE_INTERNAL_H
#define PA_ARCHIVE_INTERNAL_H

#include "archive/archive.h"

/* Normalize a member name into out (PATH_MAX bytes); -PA_ERR_UNSAFE. */
int pa_archive__normalize(const char *name, char *out, struct pa_err *err);

/* pa_opts_check() (util/util.h) with the archive layer's messages: 0 if
 * the bytes of opts beyond what this version knows are zero. */
int pa_archive__check_opts(const void *opts, size_t known, struct pa_err *err);

/* NULL when libarchive is there (opened now if not yet), else why not
 * (libarchive.c). */
const char *pa_archive__lib_why(void);

#endif
