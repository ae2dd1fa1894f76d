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

/* ---- the cache (cache.c): its layout's names and links, for
 * cache_walk.c (each described where it is defined) */
struct pa_bcache {
	char *dir;
};

#define ENOMEM_ERR(err) pa_err_set(err, -ENOMEM, "out of memory")

int pa_bcache__dso_rel(const char *name, const char **rel, struct pa_err *err);
const char *pa_bcache__target_rel(const char *t);
bool pa_bcache__is_hex(const char *s, size_t n);
int pa_bcache__check_id(const struct pa_buildid *id, char hex[41], struct pa_err *err);
char *pa_bcache__link_path(const struct pa_bcache *c, const char *hex);
char *pa_bcache__read_link(const char *path, int *e);
bool pa_bcache__is_dir(const char *path);
char *pa_bcache__rel_to_dso_name(const char *rel);

#endif
