/* util.h - errors, arenas and small helpers shared by every layer.
 *
 * Invariants: nothing here keeps global mutable state; an error is a
 * negative errno or a negative PA_ERR_* code, with its message carried in a
 * struct pa_err that the caller owns.
 */
#ifndef PA_UTIL_H
#define PA_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PA_ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))
#define PA_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((uint64_t)(a)-1))
#define PA_CMP(a, b)      (((a) > (b)) - ((a) < (b)))

#if defined(__GNUC__)
#define PA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PA_UNUSED       __attribute__((unused))
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
int pa_err_set_at(struct pa_err *e, int code, uint64_t off, const char *fmt, ...) PA_PRINTF(4, 5);
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
/* s[0, n) with each tab expanded to spaces up to the next multiple of 8
 * columns (perf's expand_tabs), NUL-terminated, in the arena. */
char *pa_arena_expand_tabs(struct pa_arena *a, const char *s, size_t n);

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

/* Allocation helpers. pa_asprintf/pa_vasprintf: a malloc'd string (free
 * it), NULL when out of memory or on a bad format. */
char *pa_asprintf(const char *fmt, ...) PA_PRINTF(1, 2);
char *pa_vasprintf(const char *fmt, va_list ap) PA_PRINTF(1, 0);

/* Make room for need elements in the array *arrp (a pointer to the array
 * pointer) of *cap elements of elem bytes: when need > *cap the capacity
 * doubles, starting from min_cap when it is 0, until it covers need. 0, or
 * -ENOMEM with the array and *cap left as they were. */
int pa_grow(void *arrp, size_t *cap, size_t need, size_t elem, size_t min_cap);
#define PA_GROW(arr, cap, need, min_cap) pa_grow(&(arr), &(cap), (need), sizeof(*(arr)), (min_cap))

/* A zeroed object of size bytes at an address that is a multiple of align
 * (a power of two that size is a multiple of, as a struct's _Alignof and
 * sizeof are): for a struct whose groups of fields sit on cache lines of
 * their own. free() it; NULL when out of memory. */
void *pa_zalloc_aligned(size_t align, size_t size);
#define PA_ZALLOC_ALIGNED(type) ((type *)pa_zalloc_aligned(_Alignof(type), sizeof(type)))

/* The edit distance (Levenshtein: insertions, deletions, substitutions)
 * between a and b, counting at most max: returns min(distance, max + 1)
 * (so that "too far" costs little). For "did you mean" hints. */
size_t pa_edit_distance(const char *a, const char *b, size_t max);

/* Write all n bytes to fd, retrying after EINTR and short writes; 0 or
 * -errno. */
int pa_write_all(int fd, const void *p, size_t n);
/* Read n bytes from fd (at off for pa_pread_full), retrying after EINTR
 * and short reads: 0 or -errno, *got the bytes read (fewer than n only at
 * the end of the file, or before an error). */
int pa_read_full(int fd, void *p, size_t n, size_t *got);
int pa_pread_full(int fd, void *p, size_t n, uint64_t off, size_t *got);

/* UTF-8 text for output formats. pa_utf8_next: one character of s[0..len)
 * (len >= 1): returns the bytes used (>= 1), the code point in *cp;
 * invalid sequences, C0 controls, DEL and the XML non-characters
 * U+FFFE/U+FFFF become U+FFFD. pa_put_utf8: one code point, encoded. */
size_t pa_utf8_next(const unsigned char *s, size_t len, uint32_t *cp);
void pa_put_utf8(FILE *out, uint32_t cp);
/* s as a string literal with its quotes, cleaned as pa_utf8_next does:
 * valid JSON and JavaScript, safe inside an HTML <script> and CDATA
 * ('<', '>', '&', U+2028/9 escaped). */
void pa_put_json_str(FILE *out, const char *s, size_t len);
/* s[0..len) as XML/HTML text or attribute value, cleaned as pa_utf8_next
 * does (& < > " ' escaped), at most maxcp characters. */
void pa_put_xml(FILE *out, const char *s, size_t len, size_t maxcp);

/* Options structs that can grow (libbpf's): a struct starts with size_t
 * sz, its size as the caller knew it; opts NULL means defaults.
 * PA_OPTS_HAS: does opts cover field (type is the struct type)?
 * PA_OPTS_GET: the field when covered, else def. */
#define PA_OPTS_HAS(opts, type, field)                                                             \
	((opts) && (opts)->sz >= offsetof(type, field) + sizeof((opts)->field))
#define PA_OPTS_GET(opts, type, field, def) (PA_OPTS_HAS(opts, type, field) ? (opts)->field : (def))
/* 0 when opts is NULL, or its sz holds at least sz itself and every byte
 * from known (this version's sizeof) up to sz is zero. -EINVAL: sz too
 * small; -E2BIG: a non-zero field this version does not know. */
int pa_opts_check(const void *opts, size_t known);
/* Copy the part of opts both sides know, min(opts->sz, size) bytes, over
 * dst (which the caller has filled with defaults); nothing when opts is
 * NULL. Unchecked: see pa_opts_check(). */
void pa_opts_copy(void *dst, size_t size, const void *opts);

/* ELF notes in a byte buffer (no libelf): a list of {n_namesz, n_descsz,
 * n_type} 32-bit words, each followed by the name and the desc, both
 * padded to align bytes: 4, or 8 for libelf's ELF_T_NHDR8 (then the desc
 * starts 8-aligned). The layout checks are libelf's gelf_getnote()'s. */
#define PA_NT_GNU_BUILD_ID 3
struct pa_note {
	uint32_t namesz, descsz, type;
	const char *name;    /* namesz bytes, in the buffer */
	const uint8_t *desc; /* descsz bytes, in the buffer */
};
/* The note at off of buf[0, len): header words in host order, or byte
 * swapped when swap. Returns the offset of the next note, or 0 when no
 * whole note starts at off (end of the list, truncated, malformed). */
size_t pa_note_next(const void *buf, size_t len, size_t off, unsigned align, bool swap,
                    struct pa_note *out);
/* The first NT_GNU_BUILD_ID note owned by "GNU" with a non-empty desc, up
 * to the first malformed note: at most max bytes of its desc copied to
 * out. Returns the number of bytes copied, 0 when there is none. */
size_t pa_note_gnu_build_id(const void *buf, size_t len, unsigned align, bool swap, uint8_t *out,
                            size_t max);

/* An open-addressing index table (slots hold index + 1, 0 = empty) kept at
 * most half full: doubled (from 1024) and rehashed with hash(ctx, index)
 * when count + 1 entries would pass that. 0 or -ENOMEM. */
int pa_index_table_grow(uint32_t **table, size_t *cap, size_t count,
                        uint64_t (*hash)(void *, uint32_t), void *ctx);

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

/* Hashes of n bytes, and of a string, mixed with pa_hash64. */
uint64_t pa_hash_bytes(const void *p, size_t n);
uint64_t pa_hash_str(const char *s);

/* The slots of a cache sized from its input: a slot per per_slot bytes,
 * rounded up to a power of two within [min, max] (powers of two); max when
 * the size is not known (0). */
static inline uint32_t pa_slots_for(uint64_t bytes, uint32_t per_slot, uint32_t min, uint32_t max)
{
	uint32_t n = min;
	if (!bytes)
		return max;
	while (n < max && (uint64_t)n * per_slot < bytes)
		n *= 2;
	return n;
}

/* ---- A set of u32 sequences (stacks of frame ids), each kept once ----
 * Sequences are numbered 0, 1, ... in the order they are first added;
 * their values live in one pool. Zeroed: empty. */
struct pa_seq {
	size_t off; /* into the pool */
	uint32_t len;
	uint64_t hash;
};
struct pa_seqset {
	uint32_t *pool;
	size_t pool_len, pool_cap;
	struct pa_seq *seqs;
	size_t nr, cap;
	uint32_t *tab; /* index + 1 of a sequence, 0: empty */
	size_t tab_cap;
};
/* The number of v[0, n) in s, added when new: 0 or -ENOMEM. */
int pa_seqset_add(struct pa_seqset *s, const uint32_t *v, uint32_t n, uint32_t *out);
/* The same, with h = pa_seqset_hash(v, n) made beforehand (e.g. to fetch
 * the table slot ahead with pa_seqset_prefetch). */
int pa_seqset_add_hashed(struct pa_seqset *s, const uint32_t *v, uint32_t n, uint64_t h,
                         uint32_t *out);
uint64_t pa_seqset_hash(const uint32_t *v, uint32_t n);
void pa_seqset_prefetch(const struct pa_seqset *s, uint64_t h);
/* Bytes held; the lookup table alone dropped (no more adds after that). */
size_t pa_seqset_bytes(const struct pa_seqset *s);
void pa_seqset_drop_table(struct pa_seqset *s);
/* Sequence i's values (its length in *n). */
static inline const uint32_t *pa_seqset_get(const struct pa_seqset *s, uint32_t i, uint32_t *n)
{
	*n = s->seqs[i].len;
	return s->pool + s->seqs[i].off;
}
void pa_seqset_release(struct pa_seqset *s);

/* ---- Source files' text by line (textfile.c) ----
 * Each file is read once, whole, when a line of it is first asked for; a
 * file that cannot be read is remembered as such. Zeroed: empty. */
struct pa_textfiles {
	struct pa_textfile *files;
	size_t nr, cap;
};
/* Line n (from 1) of the file at path, without its newline; NULL when the
 * file cannot be read, has no such line, or on ENOMEM. The text lives
 * until pa_textfiles_release(). */
const char *pa_textfiles_line(struct pa_textfiles *t, const char *path, unsigned n);
void pa_textfiles_release(struct pa_textfiles *t);

#endif
