/* perf_file.c - open perf.data (file or pipe layout): its header, event
 * attributes and feature sections, and the file's accessors.
 *
 * Access: a regular file is mmapped (zero copy); stdin, pipes and files
 * that cannot be mapped are read through a buffer. stream.c reads the
 * records.
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
#define READ_BUF_SIZE       (1u << 20)
#define MAX_RECORD (1u << 16)

#define HOST_BIG_ENDIAN PA_HOST_BIG_ENDIAN

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
		if (b >= PA_FEAT_LAST_KNOWN)
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
		h = pa_file_stream_need(f, PIPE_HEADER_SIZE, &hn, &ioerr);
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
			pa_file_stream_advance(f, PIPE_HEADER_SIZE);
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
