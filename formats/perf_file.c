/* perf_file.c - open perf.data (file or pipe layout), stream its records.
 *
 * Access: a regular file is mmapped (zero copy); stdin, pipes and files
 * that cannot be mapped are read through a buffer. COMPRESSED records are
 * inflated through a bounded window, so a record may straddle two of them
 * and a small input cannot make us allocate a lot.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define MAGIC2 0x32454c4946524550ull /* "PERFILE2" read little-endian */
#define MAGIC1 0x454c494646524550ull /* "PERFFILE" */
#define FILE_HEADER_SIZE 104u
#define FILE_HEADER_V0_SIZE 72u /* before the feature bitmap */
#define PIPE_HEADER_SIZE 16u
#define READ_BUF_SIZE (1u << 20)
#define DECOMP_WINDOW (1u << 20)
#define MAX_RECORD (1u << 16)

#define HOST_BIG_ENDIAN PA_HOST_BIG_ENDIAN

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
	bool no_helper; /* pa_file_set_no_helper */
};

void pa_file_warn(struct pa_file *f, uint64_t off, const char *fmt, ...)
{
	if (!f->opts.warn)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f->opts.warn(f->opts.warn_ctx, f->path, off, msg);
}

enum pa_file_mode pa_file_mode(const struct pa_file *f)
{
	return f->mode;
}

bool pa_file_needs_swap(const struct pa_file *f)
{
	return f->swap;
}

bool pa_file_big_endian(const struct pa_file *f)
{
	return HOST_BIG_ENDIAN != f->swap;
}

const char *pa_file_path(const struct pa_file *f)
{
	return f->path;
}

const struct pa_header_info *pa_file_header(const struct pa_file *f)
{
	return &f->hdr;
}

struct pa_header_info *pa_file_header_mut(struct pa_file *f)
{
	return &f->hdr;
}

const struct pa_file_layout *pa_file_layout(const struct pa_file *f)
{
	return &f->layout;
}

struct pa_arena *pa_file_arena(struct pa_file *f)
{
	return &f->arena;
}

struct pa_scratch *pa_file_scratch(struct pa_file *f)
{
	return &f->scratch;
}

unsigned pa_file_nr_evsels(const struct pa_file *f)
{
	return f->nr_evsels;
}

bool pa_file_records_user_stacks(const struct pa_file *f)
{
	uint64_t both = PA_SAMPLE_REGS_USER | PA_SAMPLE_STACK_USER;
	for (unsigned i = 0; i < f->nr_evsels; i++)
		if ((pa_file_evsel(f, i)->attr.sample_type & both) == both)
			return true;
	return false;
}

const struct pa_evsel *pa_file_evsel(const struct pa_file *f, unsigned idx)
{
	return idx < f->nr_evsels ? f->evsels[idx] : NULL;
}

const struct pa_evsel *pa_file_evsel_by_id(const struct pa_file *f, uint64_t id)
{
	return pa_u64map_get(&f->ids, id);
}

uint64_t pa_file_count(const struct pa_file *f, uint32_t type)
{
	return type < PA_REC_USER_MAX ? f->counts[type] : 0;
}

uint64_t pa_file_unknown_count(const struct pa_file *f)
{
	return f->unknown;
}

bool pa_file_was_truncated(const struct pa_file *f)
{
	return f->truncated;
}

enum pa_file_format pa_file_format(const struct pa_file *f)
{
	return f->syscap ? PA_FILE_FORMAT_SYSCAP : PA_FILE_FORMAT_PERF;
}

const struct pa_syscap_info *pa_file_syscap_info(const struct pa_file *f)
{
	return f->syscap ? pa_syscap_info(f->syscap) : NULL;
}

const struct pa_jit_sym *pa_file_jit_syms(const struct pa_file *f, size_t *nr)
{
	*nr = 0;
	return f->syscap ? pa_syscap_jit(f->syscap, nr) : NULL;
}

void pa_file_set_foreign(struct pa_file *f, bool swap, uint64_t header_size, uint64_t size)
{
	f->swap = swap;
	f->mode = PA_FILE_MODE_FILE;
	f->layout.header_size = header_size;
	f->layout.data_offset = header_size;
	f->layout.data_size = size - header_size;
	f->layout.file_size = size;
}

int pa_file_add_buildid(struct pa_file *f, const struct pa_buildid_entry *e)
{
	if (f->nr_bids == f->cap_bids) {
		uint32_t cap = f->cap_bids ? f->cap_bids * 2 : 16;
		void *p = realloc(f->bids, cap * sizeof(*f->bids));
		if (!p)
			return -ENOMEM;
		f->bids = p;
		f->cap_bids = cap;
	}
	f->bids[f->nr_bids++] = *e;
	f->hdr.buildids = f->bids;
	f->hdr.nr_buildids = f->nr_bids;
	return 0;
}

/* perf's id positions, used to find the evsel of a record. */
static int calc_id_pos(uint64_t t)
{
	if (t & PA_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & PA_SAMPLE_ID))
		return -1;
	return !!(t & PA_SAMPLE_IP) + !!(t & PA_SAMPLE_TID) + !!(t & PA_SAMPLE_TIME) +
	       !!(t & PA_SAMPLE_ADDR);
}

static int calc_is_pos(uint64_t t)
{
	if (t & PA_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & PA_SAMPLE_ID))
		return -1;
	return 1 + !!(t & PA_SAMPLE_CPU) + !!(t & PA_SAMPLE_STREAM_ID);
}

struct pa_evsel *pa_file_add_evsel(struct pa_file *f, const struct pa_attr *attr,
				   const uint64_t *ids, uint32_t nr_ids, uint64_t off,
				   struct pa_err *err)
{
	if (f->nr_evsels >= PA_FILE_MAX_EVSELS) {
		pa_err_set_at(err, -PA_ERR_LIMIT, off, "more than %u event attributes",
			      PA_FILE_MAX_EVSELS);
		return NULL;
	}
	if (f->nr_evsels == f->cap_evsels) {
		unsigned cap = f->cap_evsels ? f->cap_evsels * 2 : 8;
		void *p = realloc(f->evsels, cap * sizeof(*f->evsels));
		if (!p) {
			pa_err_set_at(err, -ENOMEM, off, "out of memory");
			return NULL;
		}
		f->evsels = p;
		f->cap_evsels = cap;
	}
	struct pa_evsel *e = pa_arena_alloc(&f->arena, sizeof(*e));
	if (!e) {
		pa_err_set_at(err, -ENOMEM, off, "out of memory");
		return NULL;
	}
	e->idx = f->nr_evsels;
	e->attr = *attr;
	e->ids = ids;
	e->nr_ids = nr_ids;
	e->sample_size = 8u * (uint32_t)__builtin_popcountll(attr->sample_type & 0x1fffff);
	e->id_pos = calc_id_pos(attr->sample_type);
	e->is_pos = calc_is_pos(attr->sample_type);
	/* IDENTIFIER, IP, TID, TIME: the first fixed slots, in that order */
	uint64_t t = attr->sample_type;
	if (t & PA_SAMPLE_IP)
		e->ip_pos = 8 + 8 * (uint32_t)__builtin_popcountll(t & PA_SAMPLE_IDENTIFIER);
	if (t & PA_SAMPLE_TID)
		e->tid_pos = 8 + 8 * (uint32_t)__builtin_popcountll(
		                         t & (PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP));
	if (t & PA_SAMPLE_TIME)
		e->time_pos =
		    8 + 8 * (uint32_t)__builtin_popcountll(
		                t & (PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP | PA_SAMPLE_TID));
	/* ... then ADDR, ID, STREAM_ID, CPU, PERIOD */
	uint64_t before_cpu = PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_TIME |
	                      PA_SAMPLE_ADDR | PA_SAMPLE_ID | PA_SAMPLE_STREAM_ID;
	if (t & PA_SAMPLE_CPU)
		e->cpu_pos = 8 + 8 * (uint32_t)__builtin_popcountll(t & before_cpu);
	if (t & PA_SAMPLE_PERIOD)
		e->period_pos =
		    8 + 8 * (uint32_t)__builtin_popcountll(t & (before_cpu | PA_SAMPLE_CPU));
	for (uint32_t i = 0; i < nr_ids; i++) {
		int created;
		void **slot = pa_u64map_slot(&f->ids, ids[i], &created);
		if (!slot) {
			pa_err_set_at(err, -ENOMEM, off, "out of memory");
			return NULL;
		}
		if (created)
			*slot = e;
	}
	f->evsels[f->nr_evsels++] = e;
	return e;
}

void pa_file_evsels_changed(struct pa_file *f)
{
	(void)f; /* id positions are read from evsel 0 on use */
}

/* ---- reading bytes ---------------------------------------------------- */

/* Records are walked by their sizes, one dependent load after another,
 * which the hardware prefetcher does not follow across pages: ask for
 * the data a little ahead. Where records are of 256 bytes to a kilobyte
 * (decide_readahead), each header is a cache miss the hardware does not
 * foresee, and the walk would wait for memory once per record: there
 * every line from the last one asked for up to PREFETCH_AHEAD bytes past
 * the record is asked for, so the walk runs at the memory's bandwidth
 * rather than its latency (cxx.data's 770-byte records: a bare walk
 * 0.55 of the time, `pa dump --stats` 0.90; bench/README.md). Smaller
 * records the hardware finds by itself, and of larger ones most lines
 * are never read (a recorded user stack's). */
#define PREFETCH_AHEAD 4096
#define PREFETCH_LINE  64

static void fetch_lines_to(struct pa_file *f, uint64_t upto)
{
	uint64_t at = f->fetched > f->pos ? f->fetched : f->pos & ~(uint64_t)(PREFETCH_LINE - 1);
	if (upto > f->map_len)
		upto = f->map_len;
	for (; at < upto; at += PREFETCH_LINE)
		__builtin_prefetch(f->map + at);
	f->fetched = at;
}

static const uint8_t *buffer_need(struct pa_file *f, size_t n, size_t *avail, int *ioerr);

/* n bytes at the stream position, or NULL with *avail set to what there is. */
static inline const uint8_t *stream_need(struct pa_file *f, size_t n, size_t *avail, int *ioerr)
{
	*ioerr = 0;
	if (f->map) {
		uint64_t left = f->pos < f->map_len ? f->map_len - f->pos : 0;
		if (left > PREFETCH_AHEAD)
			__builtin_prefetch(f->map + f->pos + PREFETCH_AHEAD);
		*avail = left < n ? (size_t)left : n;
		return left >= n ? f->map + f->pos : NULL;
	}
	return buffer_need(f, n, avail, ioerr);
}

/* stream_need from a read() buffer. */
static const uint8_t *buffer_need(struct pa_file *f, size_t n, size_t *avail, int *ioerr)
{
	if (f->buf_len - f->buf_pos >= n)
		return f->buf + f->buf_pos;
	if (f->buf_pos) {
		memmove(f->buf, f->buf + f->buf_pos, f->buf_len - f->buf_pos);
		f->buf_len -= f->buf_pos;
		f->buf_pos = 0;
	}
	if (n > f->buf_cap) {
		uint8_t *p = realloc(f->buf, n);
		if (!p) {
			*ioerr = -ENOMEM;
			*avail = 0;
			return NULL;
		}
		f->buf = p;
		f->buf_cap = n;
	}
	size_t got;
	*ioerr = pa_read_full(f->fd, f->buf + f->buf_len, f->buf_cap - f->buf_len, &got);
	f->buf_len += got;
	/* pa_read_full stops early only at EOF; fine for a pipe. */
	if (f->buf_len < n) {
		*avail = f->buf_len;
		return NULL;
	}
	*avail = n;
	return f->buf;
}

/* Drop mapped pages we are done with, so a 10 GB file does not end up
 * resident: keep a margin behind the cursor for the current event. */
#define RELEASE_STEP (4u << 20)
#define RELEASE_MARGIN (1u << 20)

static void release_consumed(struct pa_file *f)
{
	if (f->pos < f->released + RELEASE_STEP + RELEASE_MARGIN)
		return;
	uint64_t upto = (f->pos - RELEASE_MARGIN) & ~(uint64_t)(RELEASE_STEP - 1);
	if (upto <= f->released)
		return;
	madvise((void *)(f->map + f->released), (size_t)(upto - f->released), MADV_DONTNEED);
	f->released = upto;
}

/* After a record, where decide_readahead chose so: the lines ahead asked
 * for, the helper told. (Out of line, behind one flag for both: a walk of
 * small records pays one test per record, as it did for the helper
 * alone; inlined into the walk, the two cost big.data's decode some 5%.) */
static __attribute__((noinline)) void read_ahead(struct pa_file *f)
{
	if (f->fetch_lines)
		fetch_lines_to(f, f->pos + PREFETCH_AHEAD);
	if (f->ra && f->pos >= f->ra_next)
		f->ra_next = pa_readahead_at(f->ra, (size_t)f->pos);
}

static inline void stream_advance(struct pa_file *f, size_t n)
{
	f->pos += n;
	if (!f->map) {
		f->buf_pos += n;
		return;
	}
	if (f->ahead)
		read_ahead(f);
	release_consumed(f);
}

/* Skip payload bytes that follow a record (AUXTRACE data, tracing data). */
static int stream_skip(struct pa_file *f, uint64_t n)
{
	if (f->map) {
		f->pos += n;
		return 0;
	}
	uint64_t inbuf = f->buf_len - f->buf_pos;
	uint64_t k = n < inbuf ? n : inbuf;
	f->buf_pos += (size_t)k;
	f->pos += k;
	n -= k;
	while (n) {
		size_t chunk = n < f->buf_cap ? (size_t)n : f->buf_cap, got;
		f->buf_pos = f->buf_len = 0;
		int r = pa_read_full(f->fd, f->buf, chunk, &got);
		if (r)
			return r;
		if (got < chunk)
			return -PA_ERR_TRUNCATED;
		f->pos += got;
		n -= got;
	}
	return 0;
}

/* ---- header ----------------------------------------------------------- */

static int err_at(struct pa_err *err, int code, uint64_t off, const char *what)
{
	return pa_err_set_at(err, code, off, "%s", what);
}

/* Read len bytes at off: a pointer into the map, or a malloc'd copy in
 * *tmp that the caller frees. len is a u64 from the file: it is checked
 * against the file's size before anything narrows it to size_t (32-bit). */
static const uint8_t *file_bytes(struct pa_file *f, uint64_t off, uint64_t len, uint8_t **tmp)
{
	*tmp = NULL;
	if (off > f->layout.file_size || len > f->layout.file_size - off || len > SIZE_MAX)
		return NULL;
	if (f->map)
		return f->map + off;
	*tmp = malloc(len ? (size_t)len : 1);
	size_t got = 0;
	if (!*tmp || pa_pread_full(f->fd, *tmp, (size_t)len, off, &got) || got < len) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return *tmp;
}

/* Bit N of the feature bitmap as written by a host with "word"-byte longs
 * in big-endian order (little-endian order is the same for any word). */
static bool feat_bit_be(const uint8_t *bm, unsigned bit, unsigned word)
{
	unsigned wbits = word * 8;
	unsigned byte = (bit / wbits) * word + (word - 1 - (bit % wbits) / 8);
	return (bm[byte] >> (bit % 8)) & 1;
}

static void decode_feature_bitmap(struct pa_file *f, const uint8_t *bm)
{
	uint8_t *out = f->hdr.feat_present;
	if (!pa_file_big_endian(f)) {
		memcpy(out, bm, PA_FEAT_BITS / 8);
		return;
	}
	/* The bitmap is an array of unsigned long: its layout on a big-endian
	 * writer depends on the writer's word size. Like perf, try 64-bit
	 * first and take the one that has HOSTNAME (always written since
	 * 2012); failing both, assume only BUILD_ID. */
	static const unsigned words[] = {8, 4};
	for (unsigned w = 0; w < 2; w++) {
		if (!feat_bit_be(bm, PA_FEAT_HOSTNAME, words[w]))
			continue;
		for (unsigned bit = 0; bit < PA_FEAT_BITS; bit++)
			if (feat_bit_be(bm, bit, words[w]))
				out[bit / 8] |= (uint8_t)(1u << (bit % 8));
		return;
	}
	out[PA_FEAT_BUILD_ID / 8] |= 1u << (PA_FEAT_BUILD_ID % 8);
}

static int read_attrs(struct pa_file *f, struct pa_err *err)
{
	const struct pa_file_layout *l = &f->layout;
	if (l->attr_size < 64 + 16)
		return err_at(err, PA_ERR_FORMAT, 16, "bad attr size in file header");
	uint64_t nr = l->attrs_size / l->attr_size;
	uint8_t *tmp;
	const uint8_t *p = file_bytes(f, l->attrs_offset, l->attrs_size, &tmp);
	if (!p) /* name the header field that points out of the file */
		return err_at(err, PA_ERR_TRUNCATED, 24, "attribute section past the end of the file");
	int ret = 0;
	uint64_t ids_total = 0;
	for (uint64_t i = 0; i < nr && !ret; i++) {
		const uint8_t *e = p + i * l->attr_size;
		uint64_t eoff = l->attrs_offset + i * l->attr_size;
		struct pa_attr attr;
		size_t attr_bytes = (size_t)l->attr_size - 16;
		if (!pa_attr_decode(&attr, e, attr_bytes, f->swap, pa_file_big_endian(f))) {
			ret = err_at(err, PA_ERR_FORMAT, eoff, "bad event attribute");
			break;
		}
		uint64_t ids_off = ld64(e + attr_bytes, f->swap);
		uint64_t ids_size = ld64(e + attr_bytes + 8, f->swap);
		uint8_t *tmp2;
		const uint8_t *ip = file_bytes(f, ids_off, ids_size, &tmp2);
		/* Id sections do not overlap in a real file: together they fit
		 * in it. Without this, n attrs naming one big section would
		 * cost n times the file in memory. */
		ids_total += ids_size;
		if (!ip || ids_size % 8 || ids_total > l->file_size) {
			free(tmp2);
			ret = err_at(err, PA_ERR_FORMAT, eoff + attr_bytes,
				     "attribute id section out of bounds");
			break;
		}
		uint32_t n = (uint32_t)(ids_size / 8);
		uint64_t *ids = pa_arena_alloc(&f->arena, (n + 1) * sizeof(*ids));
		if (!ids) {
			free(tmp2);
			ret = pa_err_set(err, -ENOMEM, "out of memory");
			break;
		}
		for (uint32_t k = 0; k < n; k++)
			ids[k] = ld64(ip + k * 8, f->swap);
		free(tmp2);
		if (!pa_file_add_evsel(f, &attr, ids, n, eoff, err))
			ret = err ? err->code : -ENOMEM;
	}
	free(tmp);
	return ret;
}

static int read_features(struct pa_file *f, struct pa_err *err)
{
	unsigned nr = 0;
	for (unsigned b = 0; b < PA_FEAT_BITS; b++)
		nr += pa_header_has_feat(&f->hdr, b);
	if (!nr)
		return 0;
	uint64_t off = f->layout.feat_offset;
	uint8_t *tmp;
	const uint8_t *sec = file_bytes(f, off, nr * 16u, &tmp);
	if (!sec)
		return err_at(err, PA_ERR_TRUNCATED, off, "feature table past the end of the file");
	int ret = 0;
	unsigned idx = 0;
	uint8_t present[PA_FEAT_BITS / 8];
	memcpy(present, f->hdr.feat_present, sizeof(present));
	for (unsigned b = 0; b < PA_FEAT_BITS && !ret; b++) {
		if (!((present[b / 8] >> (b % 8)) & 1))
			continue;
		uint64_t soff = ld64(sec + idx * 16, f->swap);
		uint64_t ssize = ld64(sec + idx * 16 + 8, f->swap);
		idx++;
		if (b >= PA_FEAT_LAST_KNOWN || b == PA_FEAT_TRACING_DATA)
			continue; /* skipped by size */
		uint8_t *tmp2;
		const uint8_t *p = file_bytes(f, soff, ssize, &tmp2);
		if (!p) {
			/* past the end: the file was cut (a section that is
			 * there but does not parse is only warned about) */
			ret = pa_err_set_at(err, PA_ERR_TRUNCATED, off + (idx - 1) * 16u,
					    "%s feature section out of bounds", pa_feat_name(b));
			break;
		}
		ret = pa_feat_parse(f, b, p, (size_t)ssize, soff, err);
		free(tmp2);
	}
	free(tmp);
	return ret;
}

static int parse_file_header(struct pa_file *f, const uint8_t *h, size_t hsize, struct pa_err *err)
{
	struct pa_file_layout *l = &f->layout;
	bool s = f->swap;
	l->header_size = ld64(h + 8, s);
	l->attr_size = ld64(h + 16, s);
	l->attrs_offset = ld64(h + 24, s);
	l->attrs_size = ld64(h + 32, s);
	l->data_offset = ld64(h + 40, s);
	l->data_size = ld64(h + 48, s);
	if (l->header_size != FILE_HEADER_SIZE && l->header_size != FILE_HEADER_V0_SIZE)
		return err_at(err, PA_ERR_FORMAT, 8, "unsupported file header size");
	if (hsize < l->header_size)
		return err_at(err, PA_ERR_TRUNCATED, hsize, "file header cut short");
	if (l->header_size == FILE_HEADER_SIZE)
		decode_feature_bitmap(f, h + 72);
	if (l->data_offset > l->file_size)
		return err_at(err, PA_ERR_TRUNCATED, 40, "data section starts past the end of the file");
	if (l->data_size == 0 && l->file_size > l->data_offset) {
		/* The writer died before it could fix up the header. */
		f->size_unknown = true;
		l->data_size = l->file_size - l->data_offset;
		memset(f->hdr.feat_present, 0, sizeof(f->hdr.feat_present));
	}
	if (l->data_size > l->file_size - l->data_offset)
		return err_at(err, PA_ERR_TRUNCATED, 48, "data section ends past the end of the file");
	l->feat_offset = l->data_offset + l->data_size;
	int ret = read_attrs(f, err);
	if (!ret)
		ret = read_features(f, err);
	f->pos = l->data_offset;
	f->end = l->data_offset + l->data_size;
	return ret;
}

/* perf 0.x "PERFFILE" files say nothing of their byte order; perf infers
 * it from a size it knows (attr entry size, or the pipe header size). */
static bool legacy_swap(uint64_t raw_size, bool pipe, bool *swap)
{
	static const uint64_t attr_sizes[] = {64, 72, 80, 96, 104};
	if (pipe) {
		if (raw_size == PIPE_HEADER_SIZE)
			return (*swap = false), true;
		if (swap64(raw_size) == PIPE_HEADER_SIZE)
			return (*swap = true), true;
		return false;
	}
	for (unsigned i = 0; i < PA_ARRAY_SIZE(attr_sizes); i++) {
		uint64_t ref = attr_sizes[i] + 16;
		if (raw_size == ref)
			return (*swap = false), true;
		if (swap64(raw_size) == ref)
			return (*swap = true), true;
	}
	return false;
}

static int detect(struct pa_file *f, const uint8_t *h, size_t n, struct pa_err *err)
{
	if (n < 16)
		return err_at(err, n ? PA_ERR_TRUNCATED : PA_ERR_FORMAT, n,
			      n ? "file too short for a perf.data header" : "empty file");
	uint64_t le_magic = ld64(h, HOST_BIG_ENDIAN); /* the magic read little-endian */
	if (le_magic == MAGIC2 || le_magic == swap64(MAGIC2)) {
		/* Writers store the u64 MAGIC2 in their own order: a
		 * little-endian one's bytes spell "PERFILE2". */
		bool writer_be = le_magic != MAGIC2;
		f->swap = writer_be != HOST_BIG_ENDIAN;
		f->layout.version = 2;
		f->mode = ld64(h + 8, f->swap) == PIPE_HEADER_SIZE ? PA_FILE_MODE_PIPE
								    : PA_FILE_MODE_FILE;
		return 0;
	}
	if (le_magic == MAGIC1 || le_magic == swap64(MAGIC1)) {
		uint64_t raw;
		bool sw;
		f->layout.version = 1;
		memcpy(&raw, h + 8, 8);
		if (legacy_swap(raw, true, &sw)) {
			f->mode = PA_FILE_MODE_PIPE;
			f->swap = sw;
			return 0;
		}
		if (n >= 24) {
			memcpy(&raw, h + 16, 8);
			if (legacy_swap(raw, false, &sw)) {
				f->mode = PA_FILE_MODE_FILE;
				f->swap = sw;
				return 0;
			}
		}
		return err_at(err, PA_ERR_FORMAT, 16, "cannot tell the byte order of a PERFFILE file");
	}
	return err_at(err, PA_ERR_FORMAT, 0, "not a perf.data file (bad magic)");
}

static int open_input(struct pa_file *f, const char *path, struct pa_err *err)
{
	if (strcmp(path, "-") == 0) {
		f->fd = 0;
		f->own_fd = false;
	} else {
		f->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			return pa_err_set(err, -errno, "%s", strerror(errno));
		f->own_fd = true;
	}
	struct stat st;
	if (fstat(f->fd, &st))
		return pa_err_set(err, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return pa_err_set(err, -EISDIR, "is a directory");
	if (S_ISREG(st.st_mode)) {
		f->layout.file_size = (uint64_t)st.st_size;
		if (!f->opts.no_mmap && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, f->fd, 0);
			if (m != MAP_FAILED) {
				f->map = m;
				f->map_len = (size_t)st.st_size;
				madvise(m, f->map_len, MADV_SEQUENTIAL);
			}
		}
	} else {
		f->layout.file_size = UINT64_MAX;
	}
	if (!f->map) {
		f->buf_cap = READ_BUF_SIZE;
		f->buf = malloc(f->buf_cap);
		if (!f->buf)
			return pa_err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* A sysprof capture is read as a whole: from the map, or else into the
 * read buffer, which holds what detection read from offset 0 already (a
 * pipe; a regular file is read with pread and its offset is still 0). It
 * grows with the input, never past it. */
static int open_syscap(struct pa_file *f, struct pa_err *err)
{
	if (!f->map) {
		for (;;) {
			if (f->buf_len == f->buf_cap) {
				if (f->buf_cap > SIZE_MAX / 2)
					return pa_err_set(err, -ENOMEM, "out of memory");
				uint8_t *p = realloc(f->buf, f->buf_cap * 2);
				if (!p)
					return pa_err_set(err, -ENOMEM, "out of memory");
				f->buf = p;
				f->buf_cap *= 2;
			}
			size_t got;
			int r =
			    pa_read_full(f->fd, f->buf + f->buf_len, f->buf_cap - f->buf_len, &got);
			f->buf_len += got;
			if (r)
				return pa_err_set_at(err, r, f->buf_len, "read error: %s", strerror(-r));
			if (f->buf_len < f->buf_cap)
				break; /* pa_read_full stops short only at the end */
		}
	}
	const uint8_t *data = f->map ? f->map : f->buf;
	size_t size = f->map ? f->map_len : f->buf_len;
	f->syscap = pa_syscap_open(f, data, size, err);
	return f->syscap ? 0 : (err ? err->code : -ENOMEM);
}

struct pa_file *pa_file_open(const char *path, const struct pa_file_opts *opts, struct pa_err *err)
{
	struct pa_file *f = calloc(1, sizeof(*f));
	if (!f) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	f->fd = -1;
	pa_opts_copy(&f->opts, sizeof(f->opts), opts);
	pa_arena_init(&f->arena, 64 * 1024);
	f->path = strdup(path);
	f->scratch.cap = 4 * MAX_RECORD;
	f->scratch.mem = malloc(f->scratch.cap);
	if (!f->path || !f->scratch.mem) {
		pa_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (open_input(f, path, err))
		goto fail;

	bool regular = f->layout.file_size != UINT64_MAX;
	uint8_t *tmp = NULL;
	const uint8_t *h;
	size_t hn;
	if (regular) {
		hn = f->layout.file_size < 24 ? (size_t)f->layout.file_size : 24;
		h = file_bytes(f, 0, hn, &tmp);
	} else {
		int ioerr;
		h = stream_need(f, PIPE_HEADER_SIZE, &hn, &ioerr);
		if (ioerr) {
			pa_err_set(err, ioerr, "read error: %s", strerror(-ioerr));
			goto fail;
		}
		if (!h)
			h = f->buf;
	}
	if (h && pa_syscap_magic(h, hn)) {
		free(tmp);
		if (open_syscap(f, err))
			goto fail;
		return f;
	}
	int dret = detect(f, h ? h : (const uint8_t *)"", h ? hn : 0, err);
	free(tmp);
	if (dret)
		goto fail;
	if (f->mode == PA_FILE_MODE_PIPE) {
		f->end = regular ? f->layout.file_size : UINT64_MAX;
		if (regular) {
			f->pos = PIPE_HEADER_SIZE;
			if (!f->map && lseek(f->fd, PIPE_HEADER_SIZE, SEEK_SET) < 0) {
				pa_err_set(err, -errno, "seek failed: %s", strerror(errno));
				goto fail;
			}
		} else {
			stream_advance(f, PIPE_HEADER_SIZE);
		}
		return f;
	}
	if (f->layout.file_size == UINT64_MAX) {
		pa_err_set_at(err, PA_ERR_FORMAT, 0,
			      "file-mode perf.data cannot be read from a pipe (record with -o -)");
		goto fail;
	}
	const uint8_t *fh = file_bytes(f, 0, FILE_HEADER_SIZE, &tmp);
	size_t hsize = FILE_HEADER_SIZE;
	if (!fh) {
		hsize = f->layout.file_size < FILE_HEADER_V0_SIZE ? 0 : FILE_HEADER_V0_SIZE;
		fh = hsize ? file_bytes(f, 0, hsize, &tmp) : NULL;
	}
	if (!fh) {
		pa_err_set_at(err, PA_ERR_TRUNCATED, f->layout.file_size, "file header cut short");
		goto fail;
	}
	int ret = parse_file_header(f, fh, hsize, err);
	free(tmp);
	if (ret)
		goto fail;
	if (!f->map && lseek(f->fd, (off_t)f->pos, SEEK_SET) < 0) {
		pa_err_set(err, -errno, "seek failed: %s", strerror(errno));
		goto fail;
	}
	return f;
fail:
	pa_file_close(f);
	return NULL;
}

void pa_file_close(struct pa_file *f)
{
	if (!f)
		return;
	pa_syscap_free(f->syscap);
	pa_readahead_stop(f->ra);
	if (f->map)
		munmap((void *)f->map, f->map_len);
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	ZSTD_freeDCtx(f->zd);
	free(f->dbuf);
	free(f->buf);
	free(f->scratch.mem);
	free(f->evsels);
	free(f->bids);
	free(f->path);
	pa_u64map_release(&f->ids);
	pa_arena_release(&f->arena);
	free(f);
}

/* ---- records ---------------------------------------------------------- */

static void count_record(struct pa_file *f, uint32_t type)
{
	if (type == PA_REC_SAMPLE || (type < PA_REC_USER_MAX && pa_rec_type_name(type)))
		f->counts[type]++;
	else
		f->unknown++;
}

void pa_file_count_event(struct pa_file *f, uint32_t type)
{
	count_record(f, type);
}

void pa_file_count_unknown(struct pa_file *f)
{
	f->unknown++;
}

/* Bytes a record drags behind it that its header size does not count. */
static int trailing_payload(struct pa_file *f, uint32_t type, const uint8_t *rec, size_t size,
			    uint64_t *extra)
{
	*extra = 0;
	if (type == PA_REC_AUXTRACE) {
		if (size < 16)
			return -1;
		*extra = ld64(rec + 8, f->swap);
	} else if (type == PA_REC_HEADER_TRACING_DATA) {
		if (size < 12)
			return -1;
		*extra = PA_ALIGN_UP((uint64_t)ld32(rec + 8, f->swap), 8);
	}
	return 0;
}

static int start_decompress(struct pa_file *f, const uint8_t *rec, size_t size, uint32_t type,
			    uint64_t off, struct pa_err *err)
{
	size_t hdr = 8;
	size_t len = size - 8;
	if (type == PA_REC_COMPRESSED2) {
		if (size < 16)
			return err_at(err, PA_ERR_FORMAT, off, "bad COMPRESSED2 record");
		uint64_t dsize = ld64(rec + 8, f->swap);
		hdr = 16;
		if (dsize > size - 16)
			return err_at(err, PA_ERR_FORMAT, off + 8,
				      "COMPRESSED2 data size past the record");
		len = (size_t)dsize;
	}
	if (!f->zd) {
		f->zd = ZSTD_createDCtx();
		f->dbuf = malloc(DECOMP_WINDOW);
		if (!f->zd || !f->dbuf)
			return pa_err_set(err, -ENOMEM, "out of memory");
	}
	f->zin = rec + hdr;
	f->zin_len = len;
	f->zin_pos = 0;
	f->zrec_off = off;
	f->zout = 0;
	f->zlimit = (uint64_t)len * PA_MAX_INFLATE_RATIO + 4096;
	return 0;
}

/* Inflate more of the current COMPRESSED payload into the window. */
static int inflate_more(struct pa_file *f, struct pa_err *err)
{
	if (f->dpos) {
		memmove(f->dbuf, f->dbuf + f->dpos, f->dlen - f->dpos);
		f->dconsumed += f->dpos;
		f->dlen -= f->dpos;
		f->dpos = 0;
	}
	ZSTD_inBuffer in = {f->zin, f->zin_len, f->zin_pos};
	ZSTD_outBuffer out = {f->dbuf, DECOMP_WINDOW, f->dlen};
	size_t r = ZSTD_decompressStream(f->zd, &out, &in);
	if (ZSTD_isError(r))
		return pa_err_set_at(err, PA_ERR_DECOMPRESS, f->zrec_off, "zstd: %s",
				     ZSTD_getErrorName(r));
	bool progress = in.pos != f->zin_pos || out.pos != f->dlen;
	f->zout += out.pos - f->dlen;
	f->zin_pos = in.pos;
	f->dlen = out.pos;
	/* perf's writer compresses what one ring buffer held (a few times the
	 * record, at most): a record inflating to GBs is a bomb, and would
	 * keep every command busy for minutes */
	if (f->zout > f->zlimit)
		return pa_err_set_at(err, PA_ERR_LIMIT, f->zrec_off,
				     "compressed record inflates to more than %u times its size",
				     PA_MAX_INFLATE_RATIO);
	if (!progress && f->zin_pos < f->zin_len)
		return pa_err_set_at(err, PA_ERR_DECOMPRESS, f->zrec_off, "zstd made no progress");
	return 0;
}

static void fill_basics(struct pa_event *ev, const uint8_t *rec, bool swap)
{
	ev->type = ld32(rec, swap);
	ev->misc = ld16(rec + 4, swap);
	ev->size = ld16(rec + 6, swap);
}

/* 1: an event from the decompressed window; 0: the window needs input. */
static int next_inflated(struct pa_file *f, struct pa_event *ev, struct pa_err *err)
{
	for (;;) {
		size_t avail = f->dlen - f->dpos;
		if (avail >= 8) {
			const uint8_t *rec = f->dbuf + f->dpos;
			uint16_t size = ld16(rec + 6, f->swap);
			if (size < 8)
				return pa_err_set_at(err, PA_ERR_FORMAT, f->zrec_off,
						     "record of size %u at decompressed byte %llu of "
						     "the compressed data",
						     size,
						     (unsigned long long)(f->dconsumed + f->dpos));
			if (avail >= size) {
				fill_basics(ev, rec, f->swap);
				ev->offset = f->zrec_off;
				ev->dec_offset = f->dconsumed + f->dpos;
				ev->compressed = true;
				f->dpos += size;
				count_record(f, ev->type);
				if (ev->type == PA_REC_COMPRESSED || ev->type == PA_REC_COMPRESSED2 ||
				    ev->type == PA_REC_AUXTRACE ||
				    ev->type == PA_REC_HEADER_TRACING_DATA)
					return pa_err_set_at(err, PA_ERR_FORMAT, f->zrec_off,
							     "record type %u inside compressed "
							     "data",
							     ev->type);
				int r = pa_rec_decode(f, ev, rec, size, err);
				return r ? r : 1;
			}
		}
		if (f->zin_pos >= f->zin_len)
			return 0; /* a partial record waits for the next chunk */
		int r = inflate_more(f, err);
		if (r)
			return r;
	}
}

/* ---- Chromium OS pipe header records ---------------------------------- */

/* Chromium OS's perf of the kernel 3.x era, before upstream had
 * HEADER_FEATURE, wrote each header feature of a pipe as a record of its
 * own numbered after FINISHED_ROUND: 69 HOSTNAME, 70 OSRELEASE, 71 VERSION,
 * 72 ARCH, 73 NRCPUS, 74 CPUDESC, 75 CPUID, 76 TOTAL_MEM, 77 CMDLINE,
 * 78 EVENT_DESC, 79 CPU_TOPOLOGY, 80 NUMA_TOPOLOGY, 81 PMU_MAPPINGS (no
 * record for BRANCH_STACK, which has no data). The payload after the
 * record header is the feature section's bytes, as in file mode. That is
 * how quipper (perf_reader.cc's ReadPipedData, kernel/perf_internals.h in
 * google/autofdo's and Chromium OS's copies) read them before it followed
 * upstream's numbering, where 69..81 are ID_INDEX, AUXTRACE_INFO,
 * AUXTRACE, ... HEADER_FEATURE, COMPRESSED. */
#define CROS_REC_FIRST 69u
#define CROS_REC_LAST  81u

static unsigned cros_feat(uint32_t type)
{
	if (type < CROS_REC_FIRST || type > CROS_REC_LAST)
		return 0;
	/* 69..80 follow the feature bits from HOSTNAME (3) on */
	if (type == CROS_REC_LAST)
		return PA_FEAT_PMU_MAPPINGS;
	return type - CROS_REC_FIRST + PA_FEAT_HOSTNAME;
}

/* Whether upstream's record of this type could be this size and start.
 * Loose: only what upstream's writers can never produce fails. Upstream's
 * records 69..79 are whole u64s; Chromium OS's string records (u32 length,
 * text padded to 64 bytes) are 4 bytes off. */
static bool upstream_plausible(const struct pa_file *f, uint32_t type, const uint8_t *rec,
                               size_t size)
{
	bool aligned = size % 8 == 0;
	uint64_t w = size >= 16 ? ld64(rec + 8, f->swap) : 0;
	switch (type) {
	case PA_REC_ID_INDEX:
		return aligned && size >= 16 && w <= (size - 16) / 32;
	case PA_REC_AUXTRACE_INFO:
		return aligned && size >= 16;
	case PA_REC_AUXTRACE:
		/* w: the trace bytes that follow the record */
		if (!aligned || size < 48)
			return false;
		return f->end == UINT64_MAX ? w < (1ull << 40) : w <= f->end - f->pos - size;
	case PA_REC_AUXTRACE_ERROR:
		return aligned && size >= 40;
	case PA_REC_THREAD_MAP:
		return aligned && size >= 16 && w <= (size - 16) / 24;
	case PA_REC_CPU_MAP:
		return aligned && size >= 16;
	case PA_REC_STAT_CONFIG:
		return aligned && size >= 16 && w <= (size - 16) / 16;
	case PA_REC_STAT:
		return aligned && size >= 48;
	case PA_REC_STAT_ROUND:
		return aligned && size >= 24;
	case PA_REC_EVENT_UPDATE:
		return aligned && size >= 24;
	case PA_REC_TIME_CONV:
		return aligned && size >= 32;
	case PA_REC_HEADER_FEATURE:
		return size >= 16 && w < PA_FEAT_BITS;
	default:
		return true; /* COMPRESSED: any bytes */
	}
}

/* The feature a pipe record 69..81 carries in Chromium OS's numbering, or
 * 0 to read it as upstream's. Until one record is a well-formed Chromium
 * OS feature record and cannot be upstream's (or the reverse), records are
 * upstream's; after that the whole stream is read in the numbering found.
 * *count: see pa_feat_check(). */
static unsigned pipe_cros_feat(struct pa_file *f, uint32_t type, const uint8_t *rec, size_t size,
                               uint32_t *count)
{
	unsigned feat = cros_feat(type);
	*count = 0;
	if (!feat || f->mode != PA_FILE_MODE_PIPE || f->flavor == PIPE_UPSTREAM)
		return 0;
	bool cros = pa_feat_check(feat, rec + 8, size - 8, f->swap, count) == 0;
	if (f->flavor == PIPE_CROS)
		return feat;
	bool up = upstream_plausible(f, type, rec, size);
	if (cros && !up) {
		f->flavor = PIPE_CROS;
		return feat;
	}
	if (up && !cros)
		f->flavor = PIPE_UPSTREAM;
	return 0;
}

/* A Chromium OS header record, handed out as the HEADER_FEATURE record
 * upstream writes for it. A payload that does not parse makes the feature
 * damaged (warned about), as a HEADER_FEATURE record's would. */
static int cros_record(struct pa_file *f, struct pa_event *ev, const uint8_t *rec, size_t size,
                       unsigned feat, uint32_t nr_pmu, struct pa_err *err)
{
	const uint8_t *p = rec + 8;
	size_t n = size - 8;

	ev->type = PA_REC_HEADER_FEATURE;
	memset(&ev->u, 0, sizeof(ev->u));
	memset(&ev->sample, 0, sizeof(ev->sample));
	ev->evsel = NULL;
	ev->u.feature.feat = feat;
	count_record(f, ev->type);
	if (feat == PA_FEAT_PMU_MAPPINGS && nr_pmu && ld32(p, f->swap) == 0) {
		/* the count a pipe could not fix up: quipper counts the entries */
		uint8_t *fixed = scratch_alloc(&f->scratch, n);
		if (!fixed)
			return pa_err_set(err, -ENOMEM, "out of memory");
		memcpy(fixed, p, n);
		uint32_t v = f->swap ? swap32(nr_pmu) : nr_pmu;
		memcpy(fixed, &v, 4);
		p = fixed;
	}
	return pa_feat_parse(f, feat, p, n, ev->offset + 8, err);
}

static int next_outer(struct pa_file *f, struct pa_event *ev, struct pa_err *err)
{
	if (f->pending_skip) {
		uint64_t n = f->pending_skip;
		f->pending_skip = 0;
		int r = stream_skip(f, n);
		if (r)
			return pa_err_set_at(err, PA_ERR_TRUNCATED, f->pos,
					     "record payload cut short");
	}
	if (f->pos >= f->end)
		return 0;
	size_t avail = 0;
	int ioerr;
	const uint8_t *rec = stream_need(f, 8, &avail, &ioerr);
	if (ioerr)
		return pa_err_set_at(err, ioerr, f->pos, "read error: %s", strerror(-ioerr));
	if (!rec) {
		if (avail == 0 && f->mode == PA_FILE_MODE_PIPE)
			return 0;
		if (f->size_unknown) {
			f->truncated = true;
			return 0;
		}
		return pa_err_set_at(err, PA_ERR_TRUNCATED, f->pos, "truncated record header");
	}
	uint16_t size = ld16(rec + 6, f->swap);
	if (size < 8)
		return pa_err_set_at(err, PA_ERR_FORMAT, f->pos, "record size %u is too small",
				     size);
	if (f->end - f->pos < size) {
		if (f->size_unknown) {
			f->truncated = true;
			return 0;
		}
		return pa_err_set_at(err, PA_ERR_TRUNCATED, f->pos,
				     "record of size %u runs past the end of the data", size);
	}
	rec = stream_need(f, size, &avail, &ioerr);
	if (ioerr)
		return pa_err_set_at(err, ioerr, f->pos, "read error: %s", strerror(-ioerr));
	if (!rec) {
		if (f->size_unknown) {
			f->truncated = true;
			return 0;
		}
		return pa_err_set_at(err, PA_ERR_TRUNCATED, f->pos + avail, "truncated record");
	}
	fill_basics(ev, rec, f->swap);
	ev->offset = f->pos;
	ev->dec_offset = 0;
	ev->compressed = false;
	uint32_t nr_pmu;
	unsigned cfeat = pipe_cros_feat(f, ev->type, rec, size, &nr_pmu);
	if (cfeat) {
		int r = cros_record(f, ev, rec, size, cfeat, nr_pmu, err);
		stream_advance(f, size);
		return r ? r : 1;
	}
	count_record(f, ev->type);
	uint64_t extra;
	if (trailing_payload(f, ev->type, rec, size, &extra))
		return pa_err_set_at(err, PA_ERR_FORMAT, f->pos, "malformed %s record",
				     pa_rec_type_name(ev->type));
	if (extra > f->end - f->pos - size)
		return pa_err_set_at(err, PA_ERR_TRUNCATED, f->pos,
				     "%s payload of %llu bytes runs past the end of the data",
				     pa_rec_type_name(ev->type), (unsigned long long)extra);
	if (ev->type == PA_REC_COMPRESSED || ev->type == PA_REC_COMPRESSED2) {
		int r = start_decompress(f, rec, size, ev->type, f->pos, err);
		stream_advance(f, size);
		if (r)
			return r;
		memset(&ev->u, 0, sizeof(ev->u));
		memset(&ev->sample, 0, sizeof(ev->sample));
		ev->evsel = NULL;
		return f->opts.show_containers ? 1 : 2;
	}
	/* (a mapping in host order: the bytes stay where they are) */
	bool in_place = f->map && !f->swap;
	int r = 0;
	if (!in_place || !f->lazy_samples || ev->type != PA_REC_SAMPLE ||
	    pa_rec_decode_time(f, ev, rec, size))
		r = pa_rec_decode(f, ev, rec, size, err);
	ev->raw = in_place ? rec : NULL;
	stream_advance(f, size);
	f->pending_skip = extra;
	return r ? r : 1;
}

void pa_file_set_lazy_samples(struct pa_file *f, bool on)
{
	f->lazy_samples = on;
}

void pa_file_set_no_helper(struct pa_file *f, bool on)
{
	f->no_helper = on;
}

void pa_file_sample_sums(const struct pa_file *f, const struct pa_event *ev, uint32_t *cpu,
                         uint64_t *period)
{
	(void)f; /* (a lazy sample is in host order, raw in the mapping) */
	const struct pa_evsel *e = ev->evsel;
	const uint8_t *p = ev->raw;
	if (!ev->lazy || !e || !p) {
		*cpu = ev->sample.cpu;
		*period = ev->sample.period;
		return;
	}
	*cpu = e->cpu_pos ? ld32(p + e->cpu_pos, false) : 0;
	/* (perf's period of an event that does not record one) */
	*period = e->period_pos ? ld64(p + e->period_pos, false) : e->attr.sample_period;
}

int pa_file_decode_raw(struct pa_file *f, const void *raw, struct pa_event *ev, struct pa_err *err)
{
	const uint8_t *rec = raw;
	if (!f->map || f->swap || rec < f->map || rec >= f->map + f->map_len ||
	    (size_t)(f->map + f->map_len - rec) < 8)
		return pa_err_set(err, -EINVAL, "not a record of the mapped file");
	fill_basics(ev, rec, false);
	if (ev->size < 8 || ev->size > (size_t)(f->map + f->map_len - rec))
		return pa_err_set(err, -EINVAL, "not a record of the mapped file");
	ev->offset = (uint64_t)(rec - f->map);
	ev->dec_offset = 0;
	ev->compressed = false;
	ev->raw = raw;
	ev->lazy = false;
	f->scratch.used = 0;
	return pa_rec_decode(f, ev, rec, ev->size, err);
}

enum pa_ahead pa_file_reads_ahead(const struct pa_file *f)
{
	return f->ra_touch;
}

/* A mapped input with 16 MB or more still to read, two CPUs and threads
 * not refused: where a second CPU may take part of the reading (the
 * readahead helper, or a reader's own second thread). */
static bool second_cpu_pays(const struct pa_file *f)
{
	return f->map && !f->opts.no_threads && f->end - f->pos >= (16u << 20) &&
	       sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

bool pa_file_leaves_cpu(const struct pa_file *f)
{
	return f->ra_decided && f->ra_touch != PA_AHEAD_LINES && second_cpu_pays(f);
}

bool pa_file_decoded_in_place(const struct pa_file *f)
{
	return !f->scratch.used;
}

/* The mean size of the (up to) 256 records from the stream position, in
 * the mapping; 0 when there are none. */
static uint64_t mean_record_size(const struct pa_file *f)
{
	uint64_t at = f->pos, n = 0;
	while (n < 256 && at < f->end && f->end - at >= 8) {
		uint16_t size = ld16(f->map + at + 6, f->swap);
		if (size < 8)
			break;
		at += size;
		n++;
	}
	return n ? (at - f->pos) / n : 0;
}

/* At the first record: for records of 256 bytes to a kilobyte on
 * average (call chains), their lines asked for ahead (fetch_lines_to).
 * Then, where a second CPU pays (16 MB or more mapped, two CPUs, threads
 * not refused), a helper thread (readahead.c) mapping in the window
 * ahead:
 * - touching every line of those same call chains, whose first lines
 *   the hardware prefetcher does not find, and of which the reader
 *   touches a good part of every line the helper does; not where the
 *   second CPU's time is taken (pa_file_set_no_helper) nor for recorded
 *   user stacks (--call-graph dwarf), most of whose bytes are never read
 *   by a pass that reads samples lazily (paired runs: 1.09 of without).
 *   Over the reader's own prefetch of those lines it still pays where
 *   little else is done per record (cxx.data's `dump --stats`: 1.12 of
 *   the time without it, `buildid-list --with-hits` 0.99);
 * - touching a page of records larger than a kilobyte (user stacks),
 *   where the reader reads a few lines a page and the kernel's mapping
 *   of the pages is most of a pass that reads only the headers
 *   (cxx-dwarf.data's flat reports: 0.79-0.90 of without, its default
 *   report the same);
 * - none for smaller records, the most of a page's time being the
 *   reader's (big.data's 66-byte ones: 1.04-1.12 with pages touched). */
static enum pa_ahead helper_mode(const struct pa_file *f, uint64_t mean)
{
	if (!second_cpu_pays(f))
		return PA_AHEAD_NONE;
	if (f->fetch_lines && !f->no_helper)
		return PA_AHEAD_LINES;
	return mean > 1024 ? PA_AHEAD_PAGES : PA_AHEAD_NONE;
}

static void decide_readahead(struct pa_file *f)
{
	f->ra_decided = true;
	if (!f->map)
		return;
	uint64_t mean = mean_record_size(f);
	f->fetch_lines = !pa_file_records_user_stacks(f) && mean >= 256 && mean <= 1024;
	enum pa_ahead mode = helper_mode(f, mean);
	if (mode != PA_AHEAD_NONE &&
	    (f->ra = pa_readahead_start(f->map, (size_t)f->end, mode, (size_t)f->pos))) {
		f->ra_touch = mode;
		f->ra_next = f->pos;
	}
	f->ahead = f->fetch_lines || f->ra;
}

int pa_file_next(struct pa_file *f, struct pa_event *ev, struct pa_err *err)
{
	ev->raw = NULL;
	ev->lazy = false;
	if (f->syscap)
		return pa_syscap_next(f->syscap, ev, err);
	if (!f->ra_decided)
		decide_readahead(f);
	f->scratch.used = 0;
	for (;;) {
		if (f->zin) {
			int r = next_inflated(f, ev, err);
			if (r)
				return r;
			f->zin = NULL; /* chunk used up; leftovers stay in the window */
		}
		int r = next_outer(f, ev, err);
		if (r == 2)
			continue;
		if (r == 0 && f->dlen > f->dpos) {
			/* the compressed stream ended inside a record: tolerable
			 * only when the writer died (data size unknown) */
			if (!f->size_unknown)
				return pa_err_set_at(err, PA_ERR_TRUNCATED, f->zrec_off,
						     "compressed data ends inside a record");
			f->truncated = true;
			f->dpos = f->dlen;
		}
		return r;
	}
}
