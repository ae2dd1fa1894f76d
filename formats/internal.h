/* internal.h - shared by the formats/ sources only. */
#ifndef PA_FORMATS_INTERNAL_H
#define PA_FORMATS_INTERNAL_H

#include "formats.h"

#include <string.h>
#include <zstd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PA_HOST_BIG_ENDIAN true
#else
#define PA_HOST_BIG_ENDIAN false
#endif

/* A cursor over bytes in the writer's byte order. Every read is bounds
 * checked; a failed read sets "bad" and returns 0 so that decoders can
 * read a whole struct and check once. */
struct pa_cur {
	const uint8_t *p, *end;
	const uint8_t *base;
	bool swap;
	bool bad;
};

static inline void cur_init(struct pa_cur *c, const void *p, size_t n, bool swap)
{
	c->p = c->base = p;
	c->end = c->p + n;
	c->swap = swap;
	c->bad = false;
}

static inline size_t cur_left(const struct pa_cur *c)
{
	return (size_t)(c->end - c->p);
}

static inline size_t cur_pos(const struct pa_cur *c)
{
	return (size_t)(c->p - c->base);
}

static inline const uint8_t *cur_take(struct pa_cur *c, size_t n)
{
	if (c->bad || cur_left(c) < n) {
		c->bad = true;
		return NULL;
	}
	const uint8_t *r = c->p;
	c->p += n;
	return r;
}

static inline uint16_t swap16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

static inline uint32_t swap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static inline uint64_t swap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

static inline uint16_t ld16(const void *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? swap16(v) : v;
}

static inline uint32_t ld32(const void *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? swap32(v) : v;
}

static inline uint64_t ld64(const void *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? swap64(v) : v;
}

static inline uint8_t cur_u8(struct pa_cur *c)
{
	const uint8_t *p = cur_take(c, 1);
	return p ? *p : 0;
}

static inline uint16_t cur_u16(struct pa_cur *c)
{
	const uint8_t *p = cur_take(c, 2);
	return p ? ld16(p, c->swap) : 0;
}

static inline uint32_t cur_u32(struct pa_cur *c)
{
	const uint8_t *p = cur_take(c, 4);
	return p ? ld32(p, c->swap) : 0;
}

static inline uint64_t cur_u64(struct pa_cur *c)
{
	const uint8_t *p = cur_take(c, 8);
	return p ? ld64(p, c->swap) : 0;
}

/* Scratch memory for host-order copies; reset for every event. */
struct pa_file;

struct pa_scratch {
	uint8_t *mem;
	size_t cap, used;
};

void *scratch_alloc(struct pa_scratch *s, size_t n);

/* An array of n u64 at p: zero copy when possible, else a swapped copy. */
const uint64_t *cur_u64_array(struct pa_cur *c, uint64_t n, struct pa_scratch *s);

/* A NUL-terminated string inside the next n bytes (the record's tail). */
const char *cur_str(struct pa_cur *c, size_t n);

/* Decode a perf_event_attr of "avail" bytes. Returns the attr's own size
 * (VER0 when it says 0), or 0 if the bytes cannot be an attr. */
uint32_t pa_attr_decode(struct pa_attr *a, const uint8_t *p, size_t avail, bool swap,
			bool big_endian);

/* A warning through the file's pa_file_opts.warn, when set. */
void pa_file_warn(struct pa_file *f, uint64_t off, const char *fmt, ...) PA_PRINTF(3, 4);

/* Features: parse one feature section's bytes into the file's header info.
 * A section that does not parse is warned about, marked damaged and
 * ignored (0); negative only for -ENOMEM, with err filled. */
int pa_feat_parse(struct pa_file *f, unsigned feat, const uint8_t *p, size_t n, uint64_t base_off,
		  struct pa_err *err);
/* Whether n bytes at p are exactly one well-formed feature section of
 * feat, in the given byte order, without looking at anything else. Only
 * the features Chromium OS's pipe records carry (HOSTNAME..NUMA_TOPOLOGY,
 * PMU_MAPPINGS) are known; others are -1. For PMU_MAPPINGS, *count gets
 * the number of entries (the section's own count may be 0). 0 or -1. */
int pa_feat_check(unsigned feat, const uint8_t *p, size_t n, bool swap, uint32_t *count);
/* Mark a feature damaged: warn ("WHAT NAME feature section" at off),
 * empty its fields, keep it present. */
void pa_feat_damaged(struct pa_file *f, unsigned feat, uint64_t off, const char *what);

/* Records: decode the record at p (size bytes, header included). */
/* A sample's event, time, ip, pid and tid only (pa_event.lazy), from a host-order
 * record: 0, or -1 when the record needs the whole decode to be judged. */
int pa_rec_decode_time(struct pa_file *f, struct pa_event *ev, const uint8_t *p, size_t size);
int pa_rec_decode(struct pa_file *f, struct pa_event *ev, const uint8_t *p, size_t size,
		  struct pa_err *err);

/* Evsel table helpers (perf_file.c). */
struct pa_evsel *pa_file_add_evsel(struct pa_file *f, const struct pa_attr *attr,
				   const uint64_t *ids, uint32_t nr_ids, uint64_t off,
				   struct pa_err *err);
void pa_file_evsels_changed(struct pa_file *f);
struct pa_arena *pa_file_arena(struct pa_file *f);
struct pa_scratch *pa_file_scratch(struct pa_file *f);
bool pa_file_big_endian(const struct pa_file *f);
struct pa_header_info *pa_file_header_mut(struct pa_file *f);
/* tracing.c: the TRACING_DATA section (p, n) into the header's tracing;
 * 0, -1 when it does not parse, -ENOMEM. */
int pa_tracing_parse(struct pa_file *f, const uint8_t *p, size_t n);
int pa_file_add_buildid(struct pa_file *f, const struct pa_buildid_entry *e);

/* Sysprof captures (syscap.c). perf_file.c recognizes the magic at open,
 * hands the whole input over and then forwards pa_file_next() to it. */
struct pa_syscap;
bool pa_syscap_magic(const uint8_t *p, size_t n);
/* data stays valid until pa_syscap_free(). Returns NULL with err filled. */
struct pa_syscap *pa_syscap_open(struct pa_file *f, const uint8_t *data, size_t size,
				 struct pa_err *err);
int pa_syscap_next(struct pa_syscap *sc, struct pa_event *ev, struct pa_err *err);
void pa_syscap_free(struct pa_syscap *sc);
const struct pa_syscap_info *pa_syscap_info(const struct pa_syscap *sc);
const struct pa_jit_sym *pa_syscap_jit(const struct pa_syscap *sc, size_t *nr);
/* What perf_file.c keeps for a foreign format: byte order and layout
 * (header_size, data_offset = header_size, data_size, file_size), and the
 * per-type counts behind pa_file_count() / pa_file_unknown_count(). */
void pa_file_set_foreign(struct pa_file *f, bool swap, uint64_t header_size, uint64_t size);
void pa_file_count_event(struct pa_file *f, uint32_t type);
void pa_file_count_unknown(struct pa_file *f);

/* readahead.c: a helper thread for a mapping of len bytes, touching
 * each page or line of the window ahead of the reader's position
 * (pa_readahead_at, which returns the position at which to call it
 * next). start: NULL when there is no thread; stop: joined and freed. */
enum pa_ahead { PA_AHEAD_NONE, PA_AHEAD_PAGES, PA_AHEAD_LINES };
struct pa_readahead;
struct pa_readahead *pa_readahead_start(const uint8_t *map, size_t len, enum pa_ahead touch,
                                        size_t pos);
size_t pa_readahead_at(struct pa_readahead *ra, size_t pos);
void pa_readahead_stop(struct pa_readahead *ra);
/* What f's reader's helper touches, if it has one (tests). */
enum pa_ahead pa_file_reads_ahead(const struct pa_file *f);

/* The file being read. perf_file.c opens it and reads its header;
 * stream.c reads its records. */
struct pa_file {
	char *path;
	int fd;
	bool own_fd;
	struct pa_file_opts opts;
	enum pa_file_mode mode;
	bool swap;
	struct pa_file_layout layout;
	struct pa_header_info hdr;
	struct pa_arena arena;
	struct pa_scratch scratch;

	struct pa_evsel **evsels;
	unsigned nr_evsels, cap_evsels;
	struct pa_u64map ids;

	struct pa_buildid_entry *bids;
	uint32_t nr_bids, cap_bids;

	/* outer stream */
	const uint8_t *map;
	size_t map_len;
	uint8_t *buf;
	size_t buf_cap, buf_pos, buf_len;
	uint64_t pos, end;
	uint64_t pending_skip;
	uint32_t pending_tracing; /* a pipe's tracing data: its bytes among them */
	uint64_t released; /* mapped bytes below this were given back */
	bool size_unknown, truncated;

	/* decompression */
	ZSTD_DCtx *zd;
	const uint8_t *zin;
	size_t zin_len, zin_pos;
	uint64_t zrec_off;
	uint8_t *dbuf;
	size_t dpos, dlen;
	uint64_t dconsumed;
	uint64_t zout, zlimit; /* bytes the current COMPRESSED record inflated to, and its cap */

	uint64_t counts[PA_REC_USER_MAX];
	uint64_t unknown;

	/* a pipe's numbering of records 69..81: upstream's, or Chromium
	 * OS's header records (decided by the first record that only one
	 * of them explains) */
	enum { PIPE_UNDECIDED, PIPE_UPSTREAM, PIPE_CROS } flavor;

	struct pa_syscap *syscap; /* a sysprof capture: syscap.c reads it */
	bool lazy_samples;        /* pa_file_set_lazy_samples */
	struct pa_readahead *ra;  /* large mappings, two CPUs: readahead.c */
	uint64_t ra_next;         /* when to tell ra the position next */
	bool ra_decided;
	enum pa_ahead ra_touch; /* what ra touches */
	bool fetch_lines;       /* every line asked for ahead (read_ahead) */
	bool ahead;             /* fetch_lines or ra: read_ahead */
	uint64_t fetched;       /* mapped bytes below this were asked for */
	bool no_helper;         /* pa_file_set_no_helper */
};

/* stream.c: n bytes at the stream position, or NULL with *avail set to
 * what there is; and the position moved past n bytes. */
const uint8_t *pa_file_stream_need(struct pa_file *f, size_t n, size_t *avail, int *ioerr);
void pa_file_stream_advance(struct pa_file *f, size_t n);

#endif
