/* libarchive.c - libarchive, opened when pa archive first calls it
 * (util/dl.h: linked, it and ICU, libxml2 and libstdc++ slowed every pa
 * start). The functions archive/ calls, by their own names. */
#include "internal.h"
#include "util/dl.h"

#include <archive.h>
#include <archive_entry.h>
#include <string.h>

#ifndef PA_SONAME_ARCHIVE
#define PA_SONAME_ARCHIVE NULL
#endif

/* (a failed open: the constructors return NULL, and nothing is called
 * without one; the rest say ARCHIVE_FATAL) */
#define E ARCHIVE_FATAL
#define A struct archive *a
#define N struct archive_entry *e
#define FUNCS(X, V)                                                                                \
	X(struct archive *, archive_read_new, (void), (), NULL)                                    \
	X(int, archive_read_support_filter_all, (A), (a), E)                                       \
	X(int, archive_read_support_format_tar, (A), (a), E)                                       \
	X(int, archive_read_open_fd, (A, int fd, size_t bs), (a, fd, bs), E)                       \
	X(int, archive_read_next_header, (A, struct archive_entry **ep), (a, ep), E)               \
	X(la_ssize_t, archive_read_data, (A, void *buf, size_t n), (a, buf, n), E)                 \
	X(int, archive_read_free, (A), (a), E)                                                     \
	X(struct archive *, archive_write_new, (void), (), NULL)                                   \
	X(int, archive_write_add_filter_bzip2, (A), (a), E)                                        \
	X(int, archive_write_add_filter_gzip, (A), (a), E)                                         \
	X(int, archive_write_add_filter_none, (A), (a), E)                                         \
	X(int, archive_write_add_filter_xz, (A), (a), E)                                           \
	X(int, archive_write_add_filter_zstd, (A), (a), E)                                         \
	X(int, archive_write_set_format_pax_restricted, (A), (a), E)                               \
	X(int, archive_write_open_fd, (A, int fd), (a, fd), E)                                     \
	X(int, archive_write_header, (A, N), (a, e), E)                                            \
	X(la_ssize_t, archive_write_data, (A, const void *buf, size_t n), (a, buf, n), E)          \
	X(int, archive_write_close, (A), (a), E)                                                   \
	X(int, archive_write_free, (A), (a), E)                                                    \
	X(la_int64_t, archive_filter_bytes, (A, int i), (a, i), -1)                                \
	X(int, archive_errno, (A), (a), -1)                                                        \
	X(const char *, archive_error_string, (A), (a), NULL)                                      \
	X(struct archive_entry *, archive_entry_new2, (A), (a), NULL)                              \
	V(archive_entry_free, (N), (e))                                                            \
	X(const char *, archive_entry_pathname, (N), (e), NULL)                                    \
	X(const char *, archive_entry_pathname_utf8, (N), (e), NULL)                               \
	X(const char *, archive_entry_hardlink, (N), (e), NULL)                                    \
	X(const char *, archive_entry_hardlink_utf8, (N), (e), NULL)                               \
	X(const char *, archive_entry_symlink, (N), (e), NULL)                                     \
	X(const char *, archive_entry_symlink_utf8, (N), (e), NULL)                                \
	X(__LA_MODE_T, archive_entry_filetype, (N), (e), 0)                                        \
	X(la_int64_t, archive_entry_size, (N), (e), 0)                                             \
	X(int, archive_entry_size_is_set, (N), (e), 0)                                             \
	V(archive_entry_set_pathname, (N, const char *p), (e, p))                                  \
	V(archive_entry_set_symlink, (N, const char *p), (e, p))                                   \
	V(archive_entry_set_filetype, (N, unsigned int t), (e, t))                                 \
	V(archive_entry_set_perm, (N, __LA_MODE_T m), (e, m))                                      \
	V(archive_entry_set_size, (N, la_int64_t s), (e, s))                                       \
	V(archive_entry_set_mtime, (N, time_t t, long ns), (e, t, ns))

#define PA_DL_THIS libarchive
PA_DL_DEFINE(PA_SONAME_ARCHIVE, FUNCS)

const char *pa_archive__lib_why(void)
{
	return pa_dl_lib_why(&libarchive);
}
