/* internal.h - private helpers shared by the files of buildid/.  Other layers
 * include buildid/buildid.h only. */
#ifndef PA_BUILDID_INTERNAL_H
#define PA_BUILDID_INTERNAL_H

#include <stdbool.h>

#include "buildid/buildid.h"

/* fd-based variants; "what" names the file in error messages.  They read
 * from the current offset (identify/matches rewind before hashing). */
int pa_buildid__read_elf_fd(int fd, const char *what, struct pa_buildid *out, struct pa_err *err);
int pa_buildid__sha1_fd(int fd, const char *what, struct pa_buildid *out, struct pa_err *err);
int pa_buildid__identify_fd(int fd, const char *what, struct pa_buildid *out, bool *is_fallback,
			    struct pa_err *err);
/* 1 match, 0 other file, negative error. */
int pa_buildid__fd_matches(int fd, const char *what, const struct pa_buildid *id,
			   struct pa_err *err);

#endif
