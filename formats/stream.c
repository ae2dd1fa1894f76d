/* stream.c - a perf.data file's records, one after another: the bytes at
 * the stream position (the mapping, or a read() buffer for pipes), the
 * COMPRESSED records inflated through a bounded window (a record may
 * straddle two of them, and a small input cannot make us allocate a lot),
 * Chromium OS's pipe records told from upstream's, and the reader's
 * prefetch and helper. perf_file.c opens the file and reads its header. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define DECOMP_WINDOW (1u << 20)

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

/* For the open: the pipe header before the first record. */
const uint8_t *pa_file_stream_need(struct pa_file *f, size_t n, size_t *avail, int *ioerr)
{
	return stream_need(f, n, avail, ioerr);
}

void pa_file_stream_advance(struct pa_file *f, size_t n)
{
	stream_advance(f, n);
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

/* (tracing data with the kernel's symbols in it is some 10 MB: a record
 * claiming much more is skipped, not read into memory) */
#define TRACING_MAX (64u << 20)

/* A pipe's HEADER_TRACING_DATA payload (what a file keeps in its
 * TRACING_DATA section), at the stream position: read as that section is.
 * (One cut short is reported by the skip over it.) */
static void read_tracing(struct pa_file *f, uint32_t size)
{
	size_t avail;
	int ioerr;
	const uint8_t *p = stream_need(f, size, &avail, &ioerr);
	if (p && pa_tracing_parse(f, p, size) == -1)
		pa_feat_damaged(f, PA_FEAT_TRACING_DATA, f->pos, "malformed");
}

static int start_decompress(struct pa_file *f, const uint8_t *rec, size_t size, uint32_t type,
			    uint64_t off, struct pa_err *err)
{
	size_t hdr = 8;
	size_t len = size - 8;
	if (type == PA_REC_COMPRESSED2) {
		if (size < 16)
			return pa_err_set_at(err, PA_ERR_FORMAT, off, "bad COMPRESSED2 record");
		uint64_t dsize = ld64(rec + 8, f->swap);
		hdr = 16;
		if (dsize > size - 16)
			return pa_err_set_at(err, PA_ERR_FORMAT, off + 8,
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
		uint32_t tracing = f->pending_tracing;
		f->pending_skip = 0;
		f->pending_tracing = 0;
		if (tracing && tracing <= n && tracing <= TRACING_MAX)
			read_tracing(f, tracing);
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
	f->pending_tracing =
	    ev->type == PA_REC_HEADER_TRACING_DATA && !r ? ld32(rec + 8, f->swap) : 0;
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
