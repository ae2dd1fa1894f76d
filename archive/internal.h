/* internal.h - helpers shared by the files of archive/.  Other layers include
 * archive/archive.h only. */
#ifndef PA_ARCHIVE_INTERNAL_H
#define PA_ARCHIVE_INTERNAL_H

#include "archive/archive.h"

/* Normalize a member name into out (PATH_MAX bytes); -PA_ERR_UNSAFE. */
int pa_archive__normalize(const char *name, char *out, struct pa_err *err);

/* malloc'd printf, NULL on failure. */
char *pa_archive__asprintf(const char *fmt, ...) PA_PRINTF(1, 2);

/* Does opts (of opts->sz bytes) cover field?  (libbpf's OPTS_HAS.) */
#define PA_ARCHIVE_OPT_HAS(opts, type, field)                                                      \
	((opts) && (opts)->sz >= offsetof(struct type, field) + sizeof((opts)->field))
#define PA_ARCHIVE_OPT(opts, type, field, def)                                                     \
	(PA_ARCHIVE_OPT_HAS(opts, type, field) ? (opts)->field : (def))

/* 0 if the bytes of opts beyond what this version knows are zero. */
int pa_archive__check_opts(const void *opts, size_t known, struct pa_err *err);

#endif
