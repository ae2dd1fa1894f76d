/* idx_damage.h - what the symbol index tests share (test_ksymcache.c,
 * test_elfcache.c); after cmocka.h and symbols/internal.h. */
#ifndef PA_TEST_IDX_DAMAGE_H
#define PA_TEST_IDX_DAMAGE_H

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* n bytes at off of the index rewritten in place, and the file given back
 * the modification time its header records: damage its stamp cannot see
 * (bit rot, or a hostile file made to look as written). */
static inline void damage_unseen(const char *idx, size_t off, const void *b, size_t n)
{
	int fd = open(idx, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, b, n, (off_t)off), (ssize_t)n);
	struct pa_idx_head h;
	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {h.mtime_sec, h.mtime_nsec}};
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
}

#endif
