/* util.h - errors, arenas and small helpers shared by every layer.
 *
 * Invariants: nothing here keeps global mutable state; an error is a
 * negative errno or a negative PA_ERR_* code, with its message carried in a
 * struct pa_err that the caller owns.
 */
#ifndef PA_UTIL_H
#define PA_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define PA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PA_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((uint64_t)(a)-1))
#define PA_CMP(a, b) (((a) > (b)) - ((a) < (b)))

#if defined(__GNUC__)
#define PA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PA_UNUSED __attribute__((unused))
#else
#define PA_PRINTF(f, a)
#define PA_UNUSED
#endif

/* pa-specific error codes live above errno's range. */
#define PA_ERRORS(X)                                                                               \
	X(PA_ERR_FORMAT, 4000, "bad file format")                                                  \
	X(PA_ERR_TRUNCATED, 4001, "truncated file")                                                \
	X(PA_ERR_UNSUPPORTED, 4002, "unsupported feature")                                         \
	X(PA_ERR_BUILDID_MISMATCH, 4003, "build-id mismatch")                                      \
	X(PA_ERR_FOREIGN_KERNEL, 4004, "recorded on another kernel")                               \
	X(PA_ERR_LIMIT, 4005, "resource limit exceeded")                                           \
	X(PA_ERR_DECOMPRESS, 4006, "decompression failed")                                         \
	X(PA_ERR_NOT_FOUND, 4007, "not found")                                                     \
	X(PA_ERR_USAGE, 4008, "invalid usage")                                                     \
	X(PA_ERR_UNSAFE, 4009, "unsafe archive entry")

enum pa_errno {
#define PA_ERR_ENUM(name, val, str) name = val,
	PA_ERRORS(PA_ERR_ENUM)
#undef PA_ERR_ENUM
};

/* Returns a static string for a negative errno or PA_ERR_* code. */
const char *pa_strerror(int err);

/* An error with its message; "offset" names the byte in the input where
 * the problem was seen, when there is one. */
struct pa_err {
	int code; /* negative */
	int has_offset;
	uint64_t offset;
	char msg[256];
};

/* Fill *e (if not NULL) and return code (negative). */
int pa_err_set(struct pa_err *e, int code, const char *fmt, ...) PA_PRINTF(3, 4);
int pa_err_set_at(struct pa_err *e, int code, uint64_t off, const char *fmt, ...)
	PA_PRINTF(4, 5);
void pa_err_clear(struct pa_err *e);

/* Arena: bump allocation in chunks, freed all at once by release.
 * init/release pair; the arena itself is embedded by its owner. */
struct pa_arena_chunk;
struct pa_arena {
	struct pa_arena_chunk *head;
	size_t chunk_size;
	size_t used_total;
};

void pa_arena_init(struct pa_arena *a, size_t chunk_size);
void pa_arena_release(struct pa_arena *a);
/* Returns 8-byte aligned zeroed memory, or NULL when out of memory. */
void *pa_arena_alloc(struct pa_arena *a, size_t size);
/* The same without zeroing, for memory the caller fills at once. */
void *pa_arena_alloc_raw(struct pa_arena *a, size_t size);
char *pa_arena_strndup(struct pa_arena *a, const char *s, size_t n);
char *pa_arena_strdup(struct pa_arena *a, const char *s);

/* Growable byte buffer (git's strbuf, reduced). */
struct pa_buf {
	char *data;
	size_t len, cap;
};
int pa_buf_grow(struct pa_buf *b, size_t extra);
int pa_buf_add(struct pa_buf *b, const void *p, size_t n);
int pa_buf_addf(struct pa_buf *b, const char *fmt, ...) PA_PRINTF(2, 3);
void pa_buf_release(struct pa_buf *b);

/* Remove name under dirfd (AT_FDCWD for a path) recursively, never
 * following symlinks. 0 (also when it does not exist) or -errno. */
int pa_rm_rf_at(int dirfd, const char *name);

/* Lower-case hex of n bytes into out (2n+1 bytes). */
void pa_hex(char *out, const uint8_t *p, size_t n);

/* Parse "12K", "3M", "4G", "1T" (optionally "KB"/"KiB"...) or a plain byte
 * count; 0 or -EINVAL. */
int pa_parse_size(const char *s, uint64_t *out);
/* "16 MiB", "300 KiB", "12 bytes": whole units, rounded down. */
const char *pa_fmt_size(char buf[32], uint64_t n);

/* Open-addressing hash map from u64 keys to pointers (keys != 0 reserved
 * by nothing: presence is tracked separately). */
struct pa_u64map {
	uint64_t *keys;
	void **vals;
	uint8_t *used;
	size_t cap, count;
};
void **pa_u64map_slot(struct pa_u64map *m, uint64_t key, int *created);
void *pa_u64map_get(const struct pa_u64map *m, uint64_t key);
void pa_u64map_release(struct pa_u64map *m);

static inline uint64_t pa_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
