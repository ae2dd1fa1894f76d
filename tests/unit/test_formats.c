/* test_formats.c - unit tests for formats/: the attr flag word in both
 * layouts, and minimal perf.data files (file and pipe mode, little- and
 * big-endian) built here byte by byte and read back through pa_file_*. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "formats/formats.h"
#include "formats/internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BE true
#else
#define HOST_BE false
#endif

/* ---- the attr flag word ---------------------------------------------------- */

#define BIT(n) (1ull << (n))

/* The flag word as a compiler of the given byte order lays out the kernel's
 * bit-fields, then stores it: little-endian allocates from the least
 * significant bit, big-endian from the most significant one, and a 2-bit
 * field keeps its own most significant bit first in either case. "single"
 * has bit N set for one-bit flag N; precise_ip occupies flags 15-16. */
static void flag_word(uint8_t out[8], bool be, uint64_t single, unsigned precise_ip)
{
	uint64_t v = 0;
	if (!be) {
		v = single | (uint64_t)precise_ip << PA_ATTR_PRECISE_IP;
		for (int i = 0; i < 8; i++)
			out[i] = (uint8_t)(v >> (8 * i));
		return;
	}
	for (int n = 0; n < 64; n++)
		if (single & BIT(n))
			v |= BIT(63 - n);
	v |= (uint64_t)precise_ip << (63 - (PA_ATTR_PRECISE_IP + 1));
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static void test_flags_single(void **state)
{
	(void)state;
	static const enum pa_attr_flag flags[] = {
		PA_ATTR_DISABLED,	  PA_ATTR_INHERIT,   PA_ATTR_EXCLUDE_KERNEL,
		PA_ATTR_FREQ,		  PA_ATTR_WATERMARK, PA_ATTR_MMAP_DATA,
		PA_ATTR_SAMPLE_ID_ALL,	  PA_ATTR_MMAP2,     PA_ATTR_COMM_EXEC,
		PA_ATTR_CONTEXT_SWITCH,	  PA_ATTR_BUILD_ID,  PA_ATTR_SIGTRAP,
		PA_ATTR_EXCLUDE_CALLCHAIN_USER,
	};
	for (int be = 0; be <= 1; be++) {
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
			uint8_t raw[8];
			uint32_t pip = 99;
			flag_word(raw, be, BIT(flags[i]), 0);
			uint64_t got = pa_attr_decode_flags(raw, be, &pip);
			assert_int_equal(got, BIT(flags[i]));
			assert_int_equal(pip, 0);
		}
		/* all of them at once */
		uint64_t all = 0;
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			all |= BIT(flags[i]);
		uint8_t raw[8];
		flag_word(raw, be, all, 0);
		assert_int_equal(pa_attr_decode_flags(raw, be, NULL), all);
	}
}

static void test_flags_precise_ip(void **state)
{
	(void)state;
	/* the neighbours of precise_ip set, to see that nothing bleeds */
	uint64_t around = BIT(PA_ATTR_WATERMARK) | BIT(PA_ATTR_MMAP_DATA);
	for (int be = 0; be <= 1; be++) {
		for (unsigned v = 0; v <= 3; v++) {
			for (int with = 0; with <= 1; with++) {
				uint8_t raw[8];
				uint32_t pip = 99;
				uint64_t others = with ? around : 0;
				flag_word(raw, be, others, v);
				uint64_t got = pa_attr_decode_flags(raw, be, &pip);
				assert_int_equal(pip, v);
				assert_int_equal(got, others | (uint64_t)v << PA_ATTR_PRECISE_IP);
			}
		}
	}
}

/* The same bytes spelled out, independent of flag_word(). */
static void test_flags_bytes(void **state)
{
	(void)state;
	static const struct {
		bool be;
		uint8_t raw[8];
		uint64_t flags;
		uint32_t precise_ip;
	} cases[] = {
		{false, {0x01}, BIT(PA_ATTR_DISABLED), 0},
		{true, {0x80}, BIT(PA_ATTR_DISABLED), 0},
		{false, {0x00, 0x80}, 1ull << PA_ATTR_PRECISE_IP, 1},
		{false, {0x00, 0x00, 0x01}, 2ull << PA_ATTR_PRECISE_IP, 2},
		{true, {0x00, 0x00, 0x80}, 1ull << PA_ATTR_PRECISE_IP, 1},
		{true, {0x00, 0x01, 0x00}, 2ull << PA_ATTR_PRECISE_IP, 2},
		{true, {0x00, 0x01, 0x80}, 3ull << PA_ATTR_PRECISE_IP, 3},
		{false, {0x00, 0x00, 0x04}, BIT(PA_ATTR_SAMPLE_ID_ALL), 0},
		{true, {0x00, 0x00, 0x20}, BIT(PA_ATTR_SAMPLE_ID_ALL), 0},
		{false, {0, 0, 0, 0, 0x20}, BIT(PA_ATTR_SIGTRAP), 0},
		{true, {0, 0, 0, 0, 0x04}, BIT(PA_ATTR_SIGTRAP), 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t pip = 99;
		uint64_t got = pa_attr_decode_flags(cases[i].raw, cases[i].be, &pip);
		assert_int_equal(got, cases[i].flags);
		assert_int_equal(pip, cases[i].precise_ip);
	}
}

/* This compiler's own layout of the kernel's declaration: under qemu for
 * s390x this is a real big-endian layout. */
struct kernel_flags {
	uint64_t disabled : 1, inherit : 1, pinned : 1, exclusive : 1, exclude_user : 1,
		exclude_kernel : 1, exclude_hv : 1, exclude_idle : 1, mmap : 1, comm : 1, freq : 1,
		inherit_stat : 1, enable_on_exec : 1, task : 1, watermark : 1, precise_ip : 2,
		mmap_data : 1, sample_id_all : 1, exclude_host : 1, exclude_guest : 1,
		exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1, comm_exec : 1,
		use_clockid : 1, context_switch : 1, write_backward : 1, namespaces : 1, ksymbol : 1,
		bpf_event : 1, aux_output : 1, cgroup : 1, text_poke : 1, build_id : 1,
		inherit_thread : 1, remove_on_exec : 1, sigtrap : 1, reserved : 26;
};

static void test_flags_native_compiler(void **state)
{
	(void)state;
	_Static_assert(sizeof(struct kernel_flags) == 8, "one u64");
	for (unsigned v = 0; v <= 3; v++) {
		struct kernel_flags k;
		memset(&k, 0, sizeof(k));
		k.disabled = 1;
		k.watermark = 1;
		k.precise_ip = v & 3;
		k.mmap_data = 1;
		k.comm_exec = 1;
		k.sigtrap = 1;
		uint8_t raw[8];
		memcpy(raw, &k, 8);
		uint32_t pip = 99;
		uint64_t got = pa_attr_decode_flags(raw, HOST_BE, &pip);
		assert_int_equal(pip, v);
		assert_int_equal(got, BIT(PA_ATTR_DISABLED) | BIT(PA_ATTR_WATERMARK) |
					      (uint64_t)v << PA_ATTR_PRECISE_IP |
					      BIT(PA_ATTR_MMAP_DATA) | BIT(PA_ATTR_COMM_EXEC) |
					      BIT(PA_ATTR_SIGTRAP));
	}
}

/* ---- synthetic perf.data ------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool be;
};

static void wgrow(struct wbuf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	b->cap = (b->len + n) * 2 + 256;
	b->p = realloc(b->p, b->cap);
	assert_non_null(b->p);
}

static void wbytes(struct wbuf *b, const void *p, size_t n)
{
	wgrow(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void wzero(struct wbuf *b, size_t n)
{
	wgrow(b, n);
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static void wuint(struct wbuf *b, uint64_t v, unsigned n)
{
	uint8_t t[8];
	for (unsigned i = 0; i < n; i++)
		t[b->be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	wbytes(b, t, n);
}

static void w16(struct wbuf *b, uint64_t v) { wuint(b, v, 2); }
static void w32(struct wbuf *b, uint64_t v) { wuint(b, v, 4); }
static void w64(struct wbuf *b, uint64_t v) { wuint(b, v, 8); }

/* Overwrite n bytes at off with v in the buffer's order. */
static void wpatch(struct wbuf *b, size_t off, uint64_t v, unsigned n)
{
	size_t keep = b->len;
	b->len = off;
	wuint(b, v, n);
	b->len = keep;
}

/* A string padded with NULs to n bytes. */
static void wstr(struct wbuf *b, const char *s, size_t n)
{
	size_t l = strlen(s);
	assert_true(l < n);
	wbytes(b, s, l);
	wzero(b, n - l);
}

/* Frees the bytes of each buffer of the list, which NULL ends. */
static void free_bufs(struct wbuf *b, ...)
{
	va_list ap;
	va_start(ap, b);
	for (; b; b = va_arg(ap, struct wbuf *))
		free(b->p);
	va_end(ap);
}

/* What the synthetic files hold. The two halves of every u32 pair differ,
 * so that a reader swapping them as one u64 is caught. */
#define T_PID 1234u
#define T_TID 5678u
#define T_CPU 3u
#define T_TIME 0x0102030405060708ull
#define T_ID 0x77ull
#define T_IP 0x00007f0011223344ull
#define T_PERIOD 4000ull
#define T_CONFIG 0x1122334455667788ull
#define T_SAMPLE_TYPE                                                                              \
	(PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_ID | PA_SAMPLE_CPU |            \
	 PA_SAMPLE_PERIOD | PA_SAMPLE_CALLCHAIN)
#define T_FLAGS                                                                                    \
	(BIT(PA_ATTR_DISABLED) | BIT(PA_ATTR_EXCLUDE_KERNEL) | BIT(PA_ATTR_FREQ) |                 \
	 BIT(PA_ATTR_SAMPLE_ID_ALL) | BIT(PA_ATTR_MMAP2) | BIT(PA_ATTR_COMM_EXEC))
#define T_PRECISE 2u
#define T_MMAP_START 0x400000ull
#define T_MMAP_LEN 0x2000ull
#define T_MMAP_PGOFF 0x1000ull
static const uint64_t t_chain[3] = {PA_CONTEXT_USER, T_IP, 0x00007f0011220000ull};
static const uint8_t t_build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,	3,  4,	5,  6,
				       7,    8,	   9,	 10,   11, 12, 13, 14, 15, 16};

#define ATTR_SIZE 128u
#define ATTR_KNOWN 136u /* VER8: up to config3 */
#define ATTR_VER0  64u
#define T_CONFIG3  0x3333444455556666ull

/* What an attr says that the tests vary; the rest is fixed (see
 * w_attr_t). size is the attr's own size field. */
struct tattr {
	uint32_t type, size;
	uint64_t config, sample_type, read_format, flags, branch_sample_type;
	uint32_t precise;
};

#define T_ATTR_INIT                                                                                \
	{                                                                                          \
		.type = 1, .size = ATTR_SIZE, .config = T_CONFIG, .sample_type = T_SAMPLE_TYPE,    \
		.read_format = PA_FORMAT_ID, .flags = T_FLAGS, .precise = T_PRECISE,               \
	}

/* The kernel's perf_event_attr (VER8, 136 bytes) with t's values, cut to
 * its first n bytes, or followed by n - 136 bytes of "tail" (a newer
 * kernel's fields). */
static void w_attr_t(struct wbuf *b, const struct tattr *t, size_t n, uint8_t tail)
{
	size_t start = b->len;
	w32(b, t->type);
	w32(b, t->size);
	w64(b, t->config);
	w64(b, T_PERIOD);
	w64(b, t->sample_type);
	w64(b, t->read_format);
	uint8_t fw[8];
	flag_word(fw, b->be, t->flags, t->precise);
	wbytes(b, fw, 8);
	w32(b, 7);      /* wakeup_events */
	w32(b, 0);      /* bp_type */
	w64(b, 0xdead); /* config1 */
	w64(b, 0xbeef); /* config2 */
	w64(b, t->branch_sample_type);
	w64(b, 0);    /* sample_regs_user */
	w32(b, 0);    /* sample_stack_user */
	w32(b, 1);    /* clockid */
	w64(b, 0);    /* sample_regs_intr */
	w32(b, 0x55); /* aux_watermark */
	w16(b, 127);  /* sample_max_stack */
	w16(b, 0);
	w32(b, 0x66); /* aux_sample_size */
	w32(b, 0);    /* aux_action */
	w64(b, 0x99); /* sig_data */
	w64(b, T_CONFIG3);
	assert_int_equal(b->len - start, ATTR_KNOWN);
	if (n <= ATTR_KNOWN) {
		b->len = start + n;
		return;
	}
	for (size_t i = ATTR_KNOWN; i < n; i++)
		wbytes(b, &tail, 1);
}

static void w_attr(struct wbuf *b)
{
	struct tattr t = T_ATTR_INIT;
	w_attr_t(b, &t, ATTR_SIZE, 0);
}

static void w_trailer(struct wbuf *b)
{
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, T_TIME);
	w64(b, T_ID);
	w32(b, T_CPU);
	w32(b, 0);
}

static void w_header(struct wbuf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	w32(b, type);
	w16(b, misc);
	w16(b, size);
}

/* A SAMPLE's body in T_SAMPLE_TYPE's layout: ip, the slots of the trailer
 * (the same ones in the same order), period and t_chain. */
static void w_sample_body(struct wbuf *b, uint64_t ip, uint64_t period)
{
	w64(b, ip);
	w_trailer(b);
	w64(b, period);
	w64(b, 3);
	for (int i = 0; i < 3; i++)
		w64(b, t_chain[i]);
}

/* The data records shared by both modes: COMM, MMAP2, SAMPLE, MMAP2 with a
 * build-id, FINISHED_ROUND. */
static void w_records(struct wbuf *b)
{
	w_header(b, PA_REC_COMM, PA_MISC_COMM_EXEC, 8 + 8 + 8 + 32);
	w32(b, T_PID);
	w32(b, T_TID);
	wstr(b, "synth", 8);
	w_trailer(b);

	w_header(b, PA_REC_MMAP2, PA_MISC_USER, 8 + 8 + 24 + 8 + 16 + 8 + 16 + 32);
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, T_MMAP_START);
	w64(b, T_MMAP_LEN);
	w64(b, T_MMAP_PGOFF);
	w32(b, 8);  /* maj */
	w32(b, 1);  /* min */
	w64(b, 42); /* ino */
	w64(b, 0);  /* ino_generation */
	w32(b, 5);  /* prot */
	w32(b, 2);  /* flags */
	wstr(b, "/bin/synth", 16);
	w_trailer(b);

	w_header(b, PA_REC_SAMPLE, PA_MISC_USER, 8 + 6 * 8 + 8 + 3 * 8);
	w_sample_body(b, T_IP, T_PERIOD);

	w_header(b, PA_REC_MMAP2, PA_MISC_USER | PA_MISC_MMAP_BUILD_ID,
		 8 + 8 + 24 + 24 + 8 + 16 + 32);
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, T_MMAP_START + 0x10000);
	w64(b, T_MMAP_LEN);
	w64(b, 0);
	uint8_t bid_hdr[4] = {20, 0, 0, 0};
	wbytes(b, bid_hdr, 4);
	wbytes(b, t_build_id, 20);
	w32(b, 5);
	w32(b, 2);
	wstr(b, "/lib/libsyn.so", 24 - 8);
	w_trailer(b);

	w_header(b, PA_REC_FINISHED_ROUND, 0, 8);
}

/* HOSTNAME: u32 length, then the NUL-padded string. */
static void w_hostname(struct wbuf *b)
{
	w32(b, 16);
	wstr(b, "synth-host", 16);
}

static void w_magic(struct wbuf *b)
{
	w64(b, 0x32454c4946524550ull); /* "PERFILE2" when little-endian */
}

#define F_ATTRS_OFF 104u
#define F_IDS_OFF (F_ATTRS_OFF + ATTR_SIZE + 16)
#define F_DATA_OFF (F_IDS_OFF + 8)

/* build_file's records, then n samples (a round every 1000) with call
 * chains of depth entries each, then a hostname feature. */
static struct wbuf build_file_chains(bool be, size_t *data_size, size_t n, uint16_t depth)
{
	struct wbuf b = {.be = be};
	w_magic(&b);
	w64(&b, 104);                 /* header size */
	w64(&b, ATTR_SIZE + 16);      /* attr_size */
	w64(&b, F_ATTRS_OFF);         /* attrs */
	w64(&b, ATTR_SIZE + 16);
	w64(&b, F_DATA_OFF);          /* data, size patched below */
	w64(&b, 0);
	w64(&b, 0);                   /* event_types */
	w64(&b, 0);
	w64(&b, BIT(PA_FEAT_HOSTNAME)); /* adds_features: four u64 */
	w64(&b, 0);
	w64(&b, 0);
	w64(&b, 0);
	assert_int_equal(b.len, F_ATTRS_OFF);
	w_attr(&b);
	w64(&b, F_IDS_OFF); /* ids section */
	w64(&b, 8);
	w64(&b, T_ID);
	assert_int_equal(b.len, F_DATA_OFF);
	w_records(&b);
	for (size_t i = 0; i < n; i++) {
		w_header(&b, PA_REC_SAMPLE, PA_MISC_USER, (uint16_t)(8 + 6 * 8 + 8 + depth * 8));
		w64(&b, T_IP + i);
		w_trailer(&b);
		w64(&b, T_PERIOD + i % 7);
		w64(&b, depth);
		for (int k = 0; k < depth; k++)
			w64(&b, t_chain[k % 3] + (uint64_t)k);
		if (i % 1000 == 999)
			w_header(&b, PA_REC_FINISHED_ROUND, 0, 8);
	}
	*data_size = b.len - F_DATA_OFF;
	wpatch(&b, 48, *data_size, 8);
	/* feature table (one section), then the section */
	size_t sec = b.len + 16;
	w64(&b, sec);
	w64(&b, 20);
	w_hostname(&b);
	return b;
}

/* build_file_chains with chains of 40 entries (384-byte samples). */
static struct wbuf build_file_n(bool be, size_t *data_size, size_t n)
{
	return build_file_chains(be, data_size, n, 40);
}

static struct wbuf build_file(bool be, size_t *data_size)
{
	return build_file_n(be, data_size, 0);
}

/* A pipe-mode file whose attr is t, n bytes long (tail as w_attr_t). */
static struct wbuf build_pipe_t(bool be, const struct tattr *t, size_t n, uint8_t tail)
{
	struct wbuf b = {.be = be};
	w_magic(&b);
	w64(&b, 16);
	w_header(&b, PA_REC_HEADER_ATTR, 0, (uint16_t)(8 + n + 8));
	w_attr_t(&b, t, n, tail);
	w64(&b, T_ID);
	w_header(&b, PA_REC_HEADER_FEATURE, 0, 8 + 8 + 24);
	w64(&b, PA_FEAT_HOSTNAME);
	w_hostname(&b);
	wzero(&b, 4);
	w_records(&b);
	return b;
}

static struct wbuf build_pipe(bool be)
{
	struct tattr t = T_ATTR_INIT;
	return build_pipe_t(be, &t, ATTR_SIZE, 0);
}

static char *write_temp(const struct wbuf *b, size_t len)
{
	char *path = strdup("/tmp/pa-test-formats-XXXXXX");
	assert_non_null(path);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->p, len), (ssize_t)len);
	close(fd);
	return path;
}

static struct pa_file *open_buf(const struct wbuf *b, const struct pa_file_opts *opts, char **path)
{
	*path = write_temp(b, b->len);
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(*path, opts, &err);
	if (!f)
		fail_msg("pa_file_open: %s", err.msg);
	return f;
}

static void close_buf(struct pa_file *f, char *path)
{
	pa_file_close(f);
	unlink(path);
	free(path);
}

/* b opened by open_buf() with the default options but no_mmap. */
static struct pa_file *open_read(const struct wbuf *b, bool no_mmap, char **path)
{
	struct pa_file_opts opts = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap);
	return open_buf(b, &opts, path);
}

/* An attr written by w_attr_t(t, n): the fields past its size (the size
 * field's, or n when shorter) are 0, the bytes past VER8 ignored. */
static void check_attr_t(const struct pa_attr *a, const struct tattr *t, size_t n)
{
	size_t have = t->size ? t->size : ATTR_VER0;
	if (n < have)
		have = n;
#define IF_HAVE(off, len, v) ((off) + (len) <= have ? (v) : 0)
	assert_int_equal(a->type, t->type);
	assert_int_equal(a->size, t->size);
	assert_int_equal(a->config, t->config);
	assert_int_equal(a->sample_period, T_PERIOD);
	assert_int_equal(a->sample_type, t->sample_type);
	assert_int_equal(a->read_format, t->read_format);
	assert_int_equal(a->flags, t->flags | (uint64_t)t->precise << PA_ATTR_PRECISE_IP);
	assert_int_equal(a->precise_ip, t->precise);
	assert_int_equal(a->wakeup_events, 7);
	assert_int_equal(a->bp_type, 0);
	assert_int_equal(a->config1, 0xdead);
	assert_int_equal(a->config2, IF_HAVE(64, 8, 0xbeef));
	assert_int_equal(a->branch_sample_type, IF_HAVE(72, 8, t->branch_sample_type));
	assert_int_equal(a->sample_regs_user, 0);
	assert_int_equal(a->sample_stack_user, 0);
	assert_int_equal(a->clockid, IF_HAVE(92, 4, 1));
	assert_int_equal(a->sample_regs_intr, 0);
	assert_int_equal(a->aux_watermark, IF_HAVE(104, 4, 0x55));
	assert_int_equal(a->sample_max_stack, IF_HAVE(108, 2, 127));
	assert_int_equal(a->aux_sample_size, IF_HAVE(112, 4, 0x66));
	assert_int_equal(a->aux_action, 0);
	assert_int_equal(a->sig_data, IF_HAVE(120, 8, 0x99));
	assert_int_equal(a->config3, IF_HAVE(128, 8, T_CONFIG3));
#undef IF_HAVE
}

static void check_attr(const struct pa_attr *a)
{
	struct tattr t = T_ATTR_INIT;
	check_attr_t(a, &t, ATTR_SIZE);
	assert_true(pa_attr_flag(a, PA_ATTR_SAMPLE_ID_ALL));
	assert_false(pa_attr_flag(a, PA_ATTR_INHERIT));
}

static void check_trailer(const struct pa_event *ev)
{
	assert_int_equal(ev->sample.pid, T_PID);
	assert_int_equal(ev->sample.tid, T_TID);
	assert_int_equal(ev->sample.time, T_TIME);
	assert_int_equal(ev->sample.id, T_ID);
	assert_int_equal(ev->sample.cpu, T_CPU);
}

static void next_ok(struct pa_file *f, struct pa_event *ev)
{
	struct pa_err err = {0};
	int r = pa_file_next(f, ev, &err);
	if (r != 1)
		fail_msg("pa_file_next: %d: %s", r, err.msg);
}

/* Where the events check_records() saw came from. */
#define LOG_MAX 16
struct ev_log {
	unsigned n;
	struct {
		uint32_t type;
		uint64_t offset, dec_offset;
		bool compressed;
	} e[LOG_MAX];
};

static void next_ok_log(struct pa_file *f, struct pa_event *ev, struct ev_log *log)
{
	next_ok(f, ev);
	if (!log)
		return;
	assert_true(log->n < LOG_MAX);
	log->e[log->n].type = ev->type;
	log->e[log->n].offset = ev->offset;
	log->e[log->n].dec_offset = ev->dec_offset;
	log->e[log->n].compressed = ev->compressed;
	log->n++;
}

/* Records common to both modes, after any HEADER_* ones; log (or NULL)
 * gets where each came from. */
static void check_records(struct pa_file *f, const struct pa_evsel *evsel, struct ev_log *log)
{
	struct pa_event ev;
	struct pa_err err = {0};

	next_ok_log(f, &ev, log);
	assert_int_equal(ev.type, PA_REC_COMM);
	assert_int_equal(ev.misc, PA_MISC_COMM_EXEC);
	assert_int_equal(ev.u.comm.pid, T_PID);
	assert_int_equal(ev.u.comm.tid, T_TID);
	assert_string_equal(ev.u.comm.comm, "synth");
	assert_ptr_equal(ev.evsel, evsel);
	check_trailer(&ev);

	next_ok_log(f, &ev, log);
	assert_int_equal(ev.type, PA_REC_MMAP2);
	assert_int_equal(ev.u.mmap.pid, T_PID);
	assert_int_equal(ev.u.mmap.tid, T_TID);
	assert_int_equal(ev.u.mmap.start, T_MMAP_START);
	assert_int_equal(ev.u.mmap.len, T_MMAP_LEN);
	assert_int_equal(ev.u.mmap.pgoff, T_MMAP_PGOFF);
	assert_int_equal(ev.u.mmap.maj, 8);
	assert_int_equal(ev.u.mmap.min, 1);
	assert_int_equal(ev.u.mmap.ino, 42);
	assert_int_equal(ev.u.mmap.prot, 5);
	assert_int_equal(ev.u.mmap.flags, 2);
	assert_int_equal(ev.u.mmap.build_id_size, 0);
	assert_string_equal(ev.u.mmap.filename, "/bin/synth");
	check_trailer(&ev);

	next_ok_log(f, &ev, log);
	assert_int_equal(ev.type, PA_REC_SAMPLE);
	assert_ptr_equal(ev.evsel, evsel);
	assert_int_equal(ev.sample.ip, T_IP);
	assert_int_equal(ev.sample.pid, T_PID);
	assert_int_equal(ev.sample.tid, T_TID);
	assert_int_equal(ev.sample.time, T_TIME);
	assert_int_equal(ev.sample.id, T_ID);
	assert_int_equal(ev.sample.cpu, T_CPU);
	assert_int_equal(ev.sample.period, T_PERIOD);
	assert_int_equal(ev.sample.callchain_nr, 3);
	assert_non_null(ev.sample.callchain);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ev.sample.callchain[i], t_chain[i]);

	next_ok_log(f, &ev, log);
	assert_int_equal(ev.type, PA_REC_MMAP2);
	assert_true(ev.misc & PA_MISC_MMAP_BUILD_ID);
	assert_int_equal(ev.u.mmap.start, T_MMAP_START + 0x10000);
	assert_int_equal(ev.u.mmap.build_id_size, 20);
	assert_memory_equal(ev.u.mmap.build_id, t_build_id, 20);
	assert_int_equal(ev.u.mmap.prot, 5);
	assert_string_equal(ev.u.mmap.filename, "/lib/libsyn.so");
	check_trailer(&ev);

	next_ok_log(f, &ev, log);
	assert_int_equal(ev.type, PA_REC_FINISHED_ROUND);

	assert_int_equal(pa_file_next(f, &ev, &err), 0);
	assert_int_equal(pa_file_count(f, PA_REC_COMM), 1);
	assert_int_equal(pa_file_count(f, PA_REC_MMAP2), 2);
	assert_int_equal(pa_file_count(f, PA_REC_SAMPLE), 1);
	assert_int_equal(pa_file_count(f, PA_REC_FINISHED_ROUND), 1);
	assert_int_equal(pa_file_unknown_count(f), 0);
	assert_false(pa_file_was_truncated(f));
}

static void read_file_mode(bool be, bool no_mmap)
{
	size_t data_size;
	struct wbuf b = build_file(be, &data_size);
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);

	assert_int_equal(pa_file_mode(f), PA_FILE_MODE_FILE);
	assert_int_equal(pa_file_needs_swap(f), be != HOST_BE);
	const struct pa_file_layout *l = pa_file_layout(f);
	assert_int_equal(l->version, 2);
	assert_int_equal(l->header_size, 104);
	assert_int_equal(l->attr_size, ATTR_SIZE + 16);
	assert_int_equal(l->attrs_offset, F_ATTRS_OFF);
	assert_int_equal(l->data_offset, F_DATA_OFF);
	assert_int_equal(l->data_size, data_size);
	assert_int_equal(l->feat_offset, F_DATA_OFF + data_size);
	assert_int_equal(l->file_size, b.len);

	const struct pa_header_info *h = pa_file_header(f);
	assert_true(pa_header_has_feat(h, PA_FEAT_HOSTNAME));
	assert_false(pa_header_has_feat(h, PA_FEAT_BUILD_ID));
	assert_non_null(h->hostname);
	assert_string_equal(h->hostname, "synth-host");

	assert_int_equal(pa_file_nr_evsels(f), 1);
	const struct pa_evsel *e = pa_file_evsel(f, 0);
	assert_non_null(e);
	check_attr(&e->attr);
	assert_int_equal(e->nr_ids, 1);
	assert_int_equal(e->ids[0], T_ID);
	assert_ptr_equal(pa_file_evsel_by_id(f, T_ID), e);

	check_records(f, e, NULL);
	close_buf(f, path);
	free(b.p);
}

static void test_file_le(void **state)
{
	(void)state;
	read_file_mode(false, false);
	read_file_mode(false, true);
}

static void test_file_be(void **state)
{
	(void)state;
	read_file_mode(true, false);
	read_file_mode(true, true);
}

/* ev->raw is set exactly where the record stays in place (a mapped file in
 * host byte order), and pa_file_decode_raw() gives back what
 * pa_file_next() gave, after later records were read. */
static void read_raw(bool be, bool no_mmap, bool lazy)
{
	size_t data_size;
	struct wbuf b = build_file(be, &data_size);
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	bool in_place = !no_mmap && be == HOST_BE;
	pa_file_set_lazy_samples(f, lazy);
	struct pa_event ev, again;
	struct pa_err err = {0};
	const void *raw[LOG_MAX];
	struct pa_event seen[LOG_MAX];
	unsigned n = 0;
	while (n < LOG_MAX && pa_file_next(f, &ev, &err) == 1) {
		assert_true((ev.raw != NULL) == in_place);
		/* lazy: a sample in place, its time and event alone */
		assert_int_equal(ev.lazy, lazy && in_place && ev.type == PA_REC_SAMPLE);
		if (ev.lazy) {
			assert_int_equal(ev.sample.time, T_TIME);
			assert_non_null(ev.evsel);
			assert_true(ev.sample.type & PA_SAMPLE_TIME);
		}
		raw[n] = ev.raw;
		seen[n++] = ev;
	}
	assert_true(n >= 4);
	for (unsigned i = 0; i < n && in_place; i++) {
		memset(&again, 0xa5, sizeof(again));
		assert_int_equal(pa_file_decode_raw(f, raw[i], &again, &err), 0);
		assert_ptr_equal(again.raw, raw[i]);
		assert_false(again.lazy);
		assert_int_equal(again.type, seen[i].type);
		assert_int_equal(again.misc, seen[i].misc);
		assert_int_equal(again.size, seen[i].size);
		assert_int_equal(again.offset, seen[i].offset);
		assert_ptr_equal(again.evsel, seen[i].evsel);
		if (again.type != PA_REC_SAMPLE)
			continue;
		assert_ptr_equal(again.evsel, pa_file_evsel(f, 0));
		assert_int_equal(again.sample.ip, T_IP);
		assert_int_equal(again.sample.pid, T_PID);
		assert_int_equal(again.sample.tid, T_TID);
		assert_int_equal(again.sample.time, T_TIME);
		assert_int_equal(again.sample.period, T_PERIOD);
		assert_int_equal(again.sample.callchain_nr, 3);
		for (int k = 0; k < 3; k++)
			assert_int_equal(again.sample.callchain[k], t_chain[k]);
	}
	/* anything else is refused, not read */
	uint64_t outside = 0;
	assert_true(pa_file_decode_raw(f, &outside, &again, &err) < 0);
	close_buf(f, path);
	free(b.p);
}

static void test_decode_raw(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++)
		for (int no_mmap = 0; no_mmap <= 1; no_mmap++)
			for (int lazy = 0; lazy <= 1; lazy++)
				read_raw(be, no_mmap, lazy);
}

/* A pipe-mode file b (build_pipe()'s records), read back. */
static void read_pipe_buf(struct wbuf b, bool be, bool no_mmap, const struct tattr *t, size_t n)
{
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	assert_int_equal(pa_file_mode(f), PA_FILE_MODE_PIPE);
	assert_int_equal(pa_file_needs_swap(f), be != HOST_BE);
	assert_int_equal(pa_file_nr_evsels(f), 0); /* attrs arrive as records */

	struct pa_event ev;
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_HEADER_ATTR);
	assert_int_equal(ev.offset, 16);
	assert_int_equal(pa_file_nr_evsels(f), 1);
	const struct pa_evsel *e = pa_file_evsel(f, 0);
	assert_ptr_equal(ev.u.header_attr.evsel, e);
	check_attr_t(&e->attr, t, n);
	assert_int_equal(e->nr_ids, 1);
	assert_int_equal(e->ids[0], T_ID);

	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_HEADER_FEATURE);
	assert_int_equal(ev.u.feature.feat, PA_FEAT_HOSTNAME);
	const struct pa_header_info *h = pa_file_header(f);
	assert_true(pa_header_has_feat(h, PA_FEAT_HOSTNAME));
	assert_non_null(h->hostname);
	assert_string_equal(h->hostname, "synth-host");

	check_records(f, e, NULL);
	assert_int_equal(pa_file_count(f, PA_REC_HEADER_ATTR), 1);
	assert_int_equal(pa_file_count(f, PA_REC_HEADER_FEATURE), 1);
	close_buf(f, path);
	free(b.p);
}

static void read_pipe_mode(bool be, bool no_mmap)
{
	struct tattr t = T_ATTR_INIT;
	read_pipe_buf(build_pipe(be), be, no_mmap, &t, ATTR_SIZE);
}

static void test_pipe_le(void **state)
{
	(void)state;
	read_pipe_mode(false, false);
	read_pipe_mode(false, true);
}

static void test_pipe_be(void **state)
{
	(void)state;
	read_pipe_mode(true, false);
	read_pipe_mode(true, true);
}

/* Chromium OS's pipe header records (69 HOSTNAME .. 81 PMU_MAPPINGS, the
 * payload a feature section): VERSION (71, upstream's AUXTRACE) decides
 * the numbering, PMU_MAPPINGS (81, upstream's COMPRESSED) keeps the
 * count 0 that such a pipe has; the records after them read as usual. */
static void read_cros_pipe(bool be, bool no_mmap)
{
	struct wbuf b = {.be = be};
	w_magic(&b);
	w64(&b, 16);
	w_header(&b, PA_REC_HEADER_ATTR, 0, (uint16_t)(8 + ATTR_SIZE + 8));
	w_attr(&b);
	w64(&b, T_ID);
	w_header(&b, 71, 0, 8 + 4 + 16);
	w32(&b, 16);
	wstr(&b, "3.8.11", 16);
	w_header(&b, 73, 0, 8 + 8);
	w32(&b, 4); /* available */
	w32(&b, 2); /* online */
	w_header(&b, 81, 0, 8 + 4 + 2 * (4 + 4 + 16));
	w32(&b, 0);
	w32(&b, 4);
	w32(&b, 16);
	wstr(&b, "cpu", 16);
	w32(&b, 1);
	w32(&b, 16);
	wstr(&b, "software", 16);
	w_records(&b);

	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	struct pa_event ev;
	const struct pa_header_info *h = pa_file_header(f);
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_HEADER_ATTR);
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_HEADER_FEATURE);
	assert_int_equal(ev.u.feature.feat, PA_FEAT_VERSION);
	assert_string_equal(h->version, "3.8.11");
	next_ok(f, &ev);
	assert_int_equal(ev.u.feature.feat, PA_FEAT_NRCPUS);
	assert_int_equal(h->nr_cpus_avail, 4);
	assert_int_equal(h->nr_cpus_online, 2);
	next_ok(f, &ev);
	assert_int_equal(ev.u.feature.feat, PA_FEAT_PMU_MAPPINGS);
	assert_int_equal(h->nr_pmu_mappings, 2);
	assert_string_equal(h->pmu_mappings[1].name, "software");
	assert_int_equal(h->pmu_mappings[1].type, 1);
	check_records(f, pa_file_evsel(f, 0), NULL);
	assert_int_equal(pa_file_count(f, PA_REC_HEADER_FEATURE), 3);
	assert_int_equal(pa_file_count(f, PA_REC_AUXTRACE), 0);
	close_buf(f, path);
	free(b.p);
}

/* Once a record 69..81 could only be upstream's (an empty ID_INDEX), the
 * stream keeps upstream's numbering: a later record 71 that would be a
 * Chromium OS VERSION is a (malformed) AUXTRACE. */
static void read_upstream_first(bool be)
{
	struct wbuf b = {.be = be};
	w_magic(&b);
	w64(&b, 16);
	w_header(&b, PA_REC_HEADER_ATTR, 0, (uint16_t)(8 + ATTR_SIZE + 8));
	w_attr(&b);
	w64(&b, T_ID);
	w_header(&b, PA_REC_ID_INDEX, 0, 16);
	w64(&b, 0);
	w_header(&b, 71, 0, 8 + 4 + 16);
	w32(&b, 16);
	wstr(&b, "3.8.11", 16);

	char *path;
	struct pa_file *f = open_read(&b, false, &path);
	struct pa_event ev;
	struct pa_err err = {0};
	next_ok(f, &ev);
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_ID_INDEX);
	assert_true(pa_file_next(f, &ev, &err) < 0);
	assert_int_equal(pa_file_count(f, PA_REC_AUXTRACE), 1);
	assert_null(pa_file_header(f)->version);
	close_buf(f, path);
	free(b.p);
}

static void test_pipe_cros(void **state)
{
	(void)state;
	read_cros_pipe(false, false);
	read_cros_pipe(true, true);
	read_cros_pipe(true, false);
	read_upstream_first(false);
	read_upstream_first(true);
}

/* Every proper prefix of a file-mode file is broken somewhere (the header
 * promises sections up to the last byte): open or a later next must fail
 * with an offset inside the file, never crash or succeed. */
static void truncations(bool be)
{
	size_t data_size;
	struct wbuf b = build_file(be, &data_size);
	for (size_t len = 0; len < b.len; len++) {
		char *path = write_temp(&b, len);
		struct pa_err err = {0};
		struct pa_file *f = pa_file_open(path, NULL, &err);
		int r = 0;
		if (f) {
			struct pa_event ev;
			while ((r = pa_file_next(f, &ev, &err)) > 0)
				;
			pa_file_close(f);
		}
		if (f && r == 0)
			fail_msg("%s file cut to %zu of %zu bytes read without error",
				 be ? "big-endian" : "little-endian", len, b.len);
		assert_true(err.code < 0);
		assert_true(err.msg[0] != 0);
		if (err.has_offset && err.offset > len)
			fail_msg("cut to %zu bytes: error offset %llu past the end: %s", len,
				 (unsigned long long)err.offset, err.msg);
		unlink(path);
		free(path);
	}
	free(b.p);
}

static void test_truncated_le(void **state)
{
	(void)state;
	truncations(false);
}

static void test_truncated_be(void **state)
{
	(void)state;
	truncations(true);
}

/* The file's sample record: its offset in b (records walked by size). */
static size_t sample_offset(const struct wbuf *b)
{
	for (size_t off = F_DATA_OFF; off + 8 <= b->len;) {
		const uint8_t *h = b->p + off;
		uint32_t type = b->be ? (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
		                            (uint32_t)h[2] << 8 | h[3]
		                      : (uint32_t)h[3] << 24 | (uint32_t)h[2] << 16 |
		                            (uint32_t)h[1] << 8 | h[0];
		uint16_t size = b->be ? (uint16_t)(h[6] << 8 | h[7]) : (uint16_t)(h[7] << 8 | h[6]);
		if (type == PA_REC_SAMPLE)
			return off;
		assert_true(size >= 8);
		off += size;
	}
	fail_msg("no sample record");
	return 0;
}

/* A sample's call chain count patched to nr; 1: read, 0: refused. The
 * host-order file takes the fixed-slot fast path, the other byte order the
 * general one: both must agree. */
static int read_with_chain_nr(bool be, uint64_t nr, struct pa_event *ev, struct pa_err *err,
                              size_t *at, uint64_t *chain1)
{
	size_t data_size;
	struct wbuf b = build_file(be, &data_size);
	*at = sample_offset(&b);
	wpatch(&b, *at + 8 + 6 * 8, nr, 8);
	char *path = write_temp(&b, b.len);
	struct pa_file_opts opts = PA_OPTS_INIT(pa_file_opts);
	struct pa_file *f = pa_file_open(path, &opts, err);
	if (!f)
		fail_msg("pa_file_open: %s", err->msg);
	next_ok(f, ev); /* COMM */
	next_ok(f, ev); /* MMAP2 */
	int r = pa_file_next(f, ev, err);
	/* (the event points into the file's memory) */
	*chain1 = r == 1 && ev->sample.callchain_nr > 1 ? ev->sample.callchain[1] : 0;
	close_buf(f, path);
	free(b.p);
	return r;
}

static void test_sample_chain_bounds(void **state)
{
	(void)state;
	for (int be = 0; be < 2; be++) {
		struct pa_event ev;
		struct pa_err err = {0};
		size_t at;
		/* fewer entries than the record holds: the rest is ignored */
		uint64_t chain1;
		assert_int_equal(read_with_chain_nr(be, 2, &ev, &err, &at, &chain1), 1);
		assert_int_equal(ev.type, PA_REC_SAMPLE);
		assert_int_equal(ev.sample.callchain_nr, 2);
		assert_int_equal(chain1, t_chain[1]);
		assert_int_equal(ev.sample.period, T_PERIOD);
		assert_null(ev.sample.raw);
		assert_null(ev.sample.user_stack.data);
		/* more than it holds: refused at the record, whatever the path */
		uint64_t huge[] = {4, 1ull << 60, UINT64_MAX};
		for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
			memset(&err, 0, sizeof(err));
			assert_true(read_with_chain_nr(be, huge[i], &ev, &err, &at, &chain1) < 0);
			assert_int_equal(err.code, -PA_ERR_FORMAT);
			assert_true(err.has_offset);
			assert_int_equal(err.offset, at);
			assert_non_null(strstr(err.msg, "malformed SAMPLE record"));
		}
	}
}

/* ---- assembled file-mode files: any attrs, data and features ------------ */

#define MAX_ATTRS 4
#define MAX_FEATS 8
#define MAGIC1    0x454c494646524550ull /* "PERFFILE" when little-endian */

struct fspec {
	const uint8_t *magic; /* the 8 bytes as they lie; NULL: PERFILE2 */
	unsigned bitmap_word; /* bytes in a long of the feature bitmap: 8 (0) or 4 */
	size_t attr_bytes;    /* each attr's bytes in the attrs section */
	unsigned nr_attrs;
	const struct wbuf *attrs; /* nr_attrs attrs of attr_bytes each */
	const uint64_t *ids[MAX_ATTRS];
	uint32_t nr_ids[MAX_ATTRS];
	const struct wbuf *data;
	unsigned nr_feats;
	unsigned feats[MAX_FEATS]; /* ascending */
	const struct wbuf *feat_secs[MAX_FEATS];
};

/* header | attrs (each with its ids section) | ids | data | feature table |
 * feature sections, in the byte order of s->data. */
static struct wbuf assemble(const struct fspec *s, size_t *data_off)
{
	struct wbuf b = {.be = s->data->be};
	if (s->magic)
		wbytes(&b, s->magic, 8);
	else
		w_magic(&b);
	size_t entry = s->attr_bytes + 16;
	size_t nids = 0;
	for (unsigned i = 0; i < s->nr_attrs; i++)
		nids += s->nr_ids[i];
	size_t ids_off = F_ATTRS_OFF + s->nr_attrs * entry;
	size_t doff = ids_off + nids * 8;
	w64(&b, 104);
	w64(&b, entry);
	w64(&b, F_ATTRS_OFF);
	w64(&b, s->nr_attrs * entry);
	w64(&b, doff);
	w64(&b, s->data->len);
	w64(&b, 0); /* event_types */
	w64(&b, 0);
	unsigned word = s->bitmap_word ? s->bitmap_word : 8;
	for (unsigned w = 0; w < 32 / word; w++) {
		uint64_t v = 0;
		for (unsigned i = 0; i < s->nr_feats; i++)
			if (s->feats[i] / (8 * word) == w)
				v |= 1ull << (s->feats[i] % (8 * word));
		wuint(&b, v, word);
	}
	assert_int_equal(b.len, F_ATTRS_OFF);
	assert_int_equal(s->attrs->len, s->nr_attrs * s->attr_bytes);
	size_t at = ids_off;
	for (unsigned i = 0; i < s->nr_attrs; i++) {
		wbytes(&b, s->attrs->p + i * s->attr_bytes, s->attr_bytes);
		w64(&b, at);
		w64(&b, s->nr_ids[i] * 8);
		at += s->nr_ids[i] * 8;
	}
	for (unsigned i = 0; i < s->nr_attrs; i++)
		for (uint32_t k = 0; k < s->nr_ids[i]; k++)
			w64(&b, s->ids[i][k]);
	assert_int_equal(b.len, doff);
	wbytes(&b, s->data->p, s->data->len);
	size_t sec = b.len + s->nr_feats * 16;
	for (unsigned i = 0; i < s->nr_feats; i++) {
		w64(&b, sec);
		w64(&b, s->feat_secs[i]->len);
		sec += s->feat_secs[i]->len;
	}
	for (unsigned i = 0; i < s->nr_feats; i++)
		wbytes(&b, s->feat_secs[i]->p, s->feat_secs[i]->len);
	if (data_off)
		*data_off = doff;
	return b;
}

/* Feature feat (above those already in s) with its section sec. */
static void add_feat(struct fspec *s, unsigned feat, const struct wbuf *sec)
{
	s->feats[s->nr_feats] = feat;
	s->feat_secs[s->nr_feats++] = sec;
}

/* A file of one attr (attrs: attr_bytes of it) with the id T_ID, data and,
 * unless host is NULL, a HOSTNAME section host; add_feat() adds more. */
static struct fspec one_attr_spec(const struct wbuf *attrs, size_t attr_bytes,
                                  const struct wbuf *data, const struct wbuf *host)
{
	static const uint64_t id = T_ID;
	struct fspec s = {
	    .attr_bytes = attr_bytes,
	    .nr_attrs = 1,
	    .attrs = attrs,
	    .ids = {&id},
	    .nr_ids = {1},
	    .data = data,
	};
	if (host)
		add_feat(&s, PA_FEAT_HOSTNAME, host);
	return s;
}

/* A record begun here, its size patched in by rec_end(). */
static size_t rec_begin(struct wbuf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;
	w_header(b, type, misc, 0);
	return at;
}

static void rec_end(struct wbuf *b, size_t at)
{
	size_t n = b->len - at;
	assert_true(n % 8 == 0 && n < 65536);
	wpatch(b, at + 6, n, 2);
}

static struct wbuf hostname_sec(bool be)
{
	struct wbuf s = {.be = be};
	w_hostname(&s);
	return s;
}

/* A file of the default attr written n bytes long, w_records() and a
 * HOSTNAME section; magic as in struct fspec. */
static struct wbuf build_file_t(bool be, const uint8_t *magic, const struct tattr *t, size_t n,
                                uint8_t tail)
{
	struct wbuf attrs = {.be = be}, data = {.be = be}, host = hostname_sec(be);
	w_attr_t(&attrs, t, n, tail);
	w_records(&data);
	struct fspec s = one_attr_spec(&attrs, n, &data, &host);
	s.magic = magic;
	struct wbuf b = assemble(&s, NULL);
	free_bufs(&attrs, &data, &host, NULL);
	return b;
}

/* Read a build_file_t() file back: every field as written. */
static void read_file_t(const struct wbuf *b, bool be, int version, const struct tattr *t, size_t n,
                        bool no_mmap)
{
	char *path;
	struct pa_file *f = open_read(b, no_mmap, &path);
	assert_int_equal(pa_file_mode(f), PA_FILE_MODE_FILE);
	assert_int_equal(pa_file_needs_swap(f), be != HOST_BE);
	const struct pa_file_layout *l = pa_file_layout(f);
	assert_int_equal(l->version, version);
	assert_int_equal(l->attr_size, n + 16);
	assert_int_equal(l->attrs_size, n + 16);
	assert_string_equal(pa_file_header(f)->hostname, "synth-host");
	assert_int_equal(pa_file_nr_evsels(f), 1);
	const struct pa_evsel *e = pa_file_evsel(f, 0);
	check_attr_t(&e->attr, t, n);
	assert_int_equal(e->nr_ids, 1);
	assert_int_equal(e->ids[0], T_ID);
	check_records(f, e, NULL);
	close_buf(f, path);
}

/* ---- perf_event_attr sizes ------------------------------------------------ */

/* VER0 (64 bytes, size field 64 or 0) and an attr longer than VER8 whose
 * unknown tail is not zero: accepted, the tail ignored, the known fields
 * and the ids after the attr read at their places. File and pipe mode. */
static void test_attr_sizes(void **state)
{
	(void)state;
	static const struct {
		uint32_t size_field;
		size_t n;
		uint8_t tail;
	} cases[] = {
	    {ATTR_VER0, ATTR_VER0, 0}, {0, ATTR_VER0, 0}, {ATTR_KNOWN, ATTR_KNOWN, 0},
	    {160, 160, 0xab},          {168, 168, 0xff},
	};
	for (int be = 0; be <= 1; be++) {
		for (size_t i = 0; i < PA_ARRAY_SIZE(cases); i++) {
			struct tattr t = T_ATTR_INIT;
			t.size = cases[i].size_field;
			for (int no_mmap = 0; no_mmap <= 1; no_mmap++) {
				struct wbuf b =
				    build_file_t(be, NULL, &t, cases[i].n, cases[i].tail);
				read_file_t(&b, be, 2, &t, cases[i].n, no_mmap);
				free(b.p);
				read_pipe_buf(build_pipe_t(be, &t, cases[i].n, cases[i].tail), be,
				              no_mmap, &t, cases[i].n);
			}
		}
	}
}

/* ---- the legacy "PERFFILE" magic ------------------------------------------ */

/* perf 0.x files: the byte order is inferred from the attr entry size
 * (one of the attr sizes of that time plus 16) or, in pipe mode, from the
 * header size 16. The magic may lie as the string or as the writer's u64. */
static void test_perffile_legacy(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++) {
		uint8_t as_u64[8];
		for (int i = 0; i < 8; i++)
			as_u64[be ? 7 - i : i] = (uint8_t)(MAGIC1 >> (8 * i));
		const uint8_t *magics[] = {(const uint8_t *)"PERFFILE", as_u64};
		for (int m = 0; m < 2; m++) {
			static const size_t sizes[] = {64, 72, 80, 96, 104};
			for (size_t i = 0; i < PA_ARRAY_SIZE(sizes); i++) {
				struct tattr t = T_ATTR_INIT;
				t.size = (uint32_t)sizes[i];
				struct wbuf b = build_file_t(be, magics[m], &t, sizes[i], 0);
				read_file_t(&b, be, 1, &t, sizes[i], false);
				read_file_t(&b, be, 1, &t, sizes[i], true);
				free(b.p);
			}
			/* pipe mode: the header size says the order */
			for (int no_mmap = 0; no_mmap <= 1; no_mmap++) {
				struct tattr t = T_ATTR_INIT;
				struct wbuf b = build_pipe(be);
				memcpy(b.p, magics[m], 8);
				read_pipe_buf(b, be, no_mmap, &t, ATTR_SIZE);
			}
			/* an attr size perf 0.x never wrote: no way to tell */
			struct tattr t = T_ATTR_INIT;
			struct wbuf b = build_file_t(be, magics[m], &t, ATTR_SIZE, 0);
			char *path = write_temp(&b, b.len);
			struct pa_err err = {0};
			assert_null(pa_file_open(path, NULL, &err));
			assert_int_equal(err.code, -PA_ERR_FORMAT);
			assert_non_null(strstr(err.msg, "byte order"));
			unlink(path);
			free(path);
			free(b.p);
		}
	}
}

/* ---- feature sections ----------------------------------------------------- */

/* A BUILD_ID feature entry as perf writes one: the header (type 0), the
 * pid unless "old" (perf before 2010), 24 bytes of id (its size at byte 20
 * with PA_MISC_BUILD_ID_SIZE), the name padded to 64. */
static void w_bid_entry(struct wbuf *b, bool old, uint16_t misc, int32_t pid, const uint8_t *id,
                        uint8_t id_size, const char *name)
{
	size_t name_len = PA_ALIGN_UP(strlen(name) + 1, 64);
	w_header(b, 0, misc, (uint16_t)(8 + (old ? 0 : 4) + 24 + name_len));
	if (!old)
		w32(b, (uint32_t)pid);
	uint8_t raw[24] = {0};
	memcpy(raw, id, id_size);
	if (misc & PA_MISC_BUILD_ID_SIZE)
		raw[20] = id_size;
	wbytes(b, raw, 24);
	wstr(b, name, name_len);
}

static const uint8_t t_build_id2[20] = {0xca, 0xfe, 0xba, 0xbe, 9,    8,    7,    6,    5,    4,
                                        3,    2,    1,    0,    0xf0, 0xe0, 0xd0, 0xc0, 0xb0, 0xa0};

static void check_bid(const struct pa_buildid_entry *e, int32_t pid, uint16_t misc,
                      const uint8_t *id, uint8_t size, const char *name)
{
	assert_int_equal(e->pid, pid);
	assert_int_equal(e->misc, misc);
	assert_int_equal(e->size, size);
	assert_memory_equal(e->id, id, size);
	assert_string_equal(e->filename, name);
}

/* BUILD_ID in both layouts, next to HOSTNAME: the old one (no pid) is told
 * by its first entry, the kernel, whose name then sits 4 bytes early. */
static void read_build_ids(bool be, bool old, bool no_mmap)
{
	struct wbuf attrs = {.be = be}, data = {.be = be}, host = hostname_sec(be);
	struct wbuf bids = {.be = be};
	w_attr(&attrs);
	w_records(&data);
	if (old) {
		w_bid_entry(&bids, true, PA_MISC_KERNEL, 0, t_build_id, 20, "[kernel.kallsyms]");
		w_bid_entry(&bids, true, PA_MISC_USER, 0, t_build_id2, 20, "/usr/lib/libold.so.1");
	} else {
		w_bid_entry(&bids, false, PA_MISC_KERNEL | PA_MISC_BUILD_ID_SIZE, -1, t_build_id,
		            20, "[kernel.kallsyms]");
		w_bid_entry(&bids, false, PA_MISC_USER | PA_MISC_BUILD_ID_SIZE, (int32_t)T_PID,
		            t_build_id2, 16, "/usr/lib/libnew.so.1");
		w_bid_entry(
		    &bids, false, PA_MISC_USER, (int32_t)T_TID, t_build_id2, 20,
		    "/usr/lib/a-name-longer-than-sixty-four-bytes/to-take-two-blocks/lib.so");
	}
	struct fspec s = one_attr_spec(&attrs, ATTR_SIZE, &data, NULL);
	add_feat(&s, PA_FEAT_BUILD_ID, &bids);
	add_feat(&s, PA_FEAT_HOSTNAME, &host);
	struct wbuf b = assemble(&s, NULL);
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	const struct pa_header_info *h = pa_file_header(f);
	assert_true(pa_header_has_feat(h, PA_FEAT_BUILD_ID));
	assert_string_equal(h->hostname, "synth-host");
	if (old) {
		assert_int_equal(h->nr_buildids, 2);
		check_bid(&h->buildids[0], -1, PA_MISC_KERNEL, t_build_id, 20, "[kernel.kallsyms]");
		check_bid(&h->buildids[1], -1, PA_MISC_USER, t_build_id2, 20,
		          "/usr/lib/libold.so.1");
	} else {
		assert_int_equal(h->nr_buildids, 3);
		check_bid(&h->buildids[0], -1, PA_MISC_KERNEL | PA_MISC_BUILD_ID_SIZE, t_build_id,
		          20, "[kernel.kallsyms]");
		check_bid(&h->buildids[1], (int32_t)T_PID, PA_MISC_USER | PA_MISC_BUILD_ID_SIZE,
		          t_build_id2, 16, "/usr/lib/libnew.so.1");
		check_bid(&h->buildids[2], (int32_t)T_TID, PA_MISC_USER, t_build_id2, 20,
		          "/usr/lib/a-name-longer-than-sixty-four-bytes/to-take-two-blocks/lib.so");
	}
	check_records(f, pa_file_evsel(f, 0), NULL);
	close_buf(f, path);
	free_bufs(&b, &attrs, &data, &host, &bids, NULL);
}

/* A TRACING_DATA section written in its own byte order tbe (perf's
 * trace-event-info.c layout), inside a file of byte order be. */
static void w_text(struct wbuf *b, const char *t, unsigned size_bytes)
{
	wuint(b, strlen(t), size_bytes);
	wbytes(b, t, strlen(t));
}

static void read_tracing_data(bool be, bool tbe)
{
	static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	/* (HOSTNAME too: a big-endian file's feature bitmap is read by it) */
	struct wbuf attrs = {.be = be}, data = {.be = be}, tr = {.be = tbe},
	            host = hostname_sec(be);
	w_attr(&attrs);
	w_records(&data);
	wbytes(&tr, magic, sizeof(magic));
	wbytes(&tr, "0.6", 4);
	uint8_t flags[2] = {tbe, 4};
	wbytes(&tr, flags, 2);
	w32(&tr, 8192);
	wbytes(&tr, "header_page", 12);
	w_text(&tr, "field: u64 timestamp;", 8);
	wbytes(&tr, "header_event", 13);
	w_text(&tr, "# compressed entry header", 8);
	w32(&tr, 1); /* ftrace: one format */
	w_text(&tr, "name: function", 8);
	w32(&tr, 2); /* two systems */
	wbytes(&tr, "sched", 6);
	w32(&tr, 2);
	w_text(&tr, "name: sched_switch", 8);
	w_text(&tr, "name: sched_wakeup", 8);
	wbytes(&tr, "irq", 4);
	w32(&tr, 1);
	w_text(&tr, "name: irq_handler_entry", 8);
	w_text(&tr, "ffffffff81000000 T _text", 4);
	w_text(&tr, "0x1 : \"%s\"", 4);
	w64(&tr, 0); /* saved cmdlines */
	struct fspec s = one_attr_spec(&attrs, ATTR_SIZE, &data, NULL);
	add_feat(&s, PA_FEAT_TRACING_DATA, &tr);
	add_feat(&s, PA_FEAT_HOSTNAME, &host);
	struct wbuf b = assemble(&s, NULL);
	char *path;
	struct pa_file *f = open_read(&b, false, &path);
	const struct pa_tracing_data *t = pa_file_header(f)->tracing;
	assert_non_null(t);
	assert_int_equal(t->big_endian, tbe);
	assert_int_equal(t->long_size, 4);
	assert_int_equal(t->page_size, 8192);
	assert_string_equal(t->header_page, "field: u64 timestamp;");
	assert_int_equal(t->header_page_len, strlen("field: u64 timestamp;"));
	assert_string_equal(t->header_event, "# compressed entry header");
	assert_int_equal(t->nr_ftrace, 1);
	assert_string_equal(t->ftrace[0].text, "name: function");
	assert_int_equal(t->nr_events, 3);
	assert_string_equal(t->events[0].system, "sched");
	assert_string_equal(t->events[1].text, "name: sched_wakeup");
	assert_string_equal(t->events[2].system, "irq");
	assert_string_equal(t->events[2].text, "name: irq_handler_entry");
	assert_string_equal(t->kallsyms, "ffffffff81000000 T _text");
	assert_string_equal(t->printk, "0x1 : \"%s\"");
	close_buf(f, path);
	free_bufs(&b, &attrs, &data, &tr, &host, NULL);
}

/* The section in either byte order in files of either: its own byte
 * decides. */
static void test_tracing_data(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++)
		for (int tbe = 0; tbe <= 1; tbe++)
			read_tracing_data(be, tbe);
}

static void test_build_id_layouts(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++)
		for (int old = 0; old <= 1; old++)
			for (int no_mmap = 0; no_mmap <= 1; no_mmap++)
				read_build_ids(be, old, no_mmap);
}

/* The feature bitmap as a writer with "word"-byte longs lays it out (only
 * a big-endian one differs): HOSTNAME, by which the reader tells the
 * layouts apart, NRCPUS, SAMPLE_TIME and CLOCKID (other bytes of the first
 * 32-bit word) and an unknown feature 40 (in the second word), whose
 * sections follow in bit order and must each land where they belong. */
static void read_feature_bitmap(bool be, unsigned word)
{
	struct wbuf attrs = {.be = be}, data = {.be = be}, host = hostname_sec(be);
	struct wbuf nrcpus = {.be = be}, stime = {.be = be}, clk = {.be = be}, f40 = {.be = be};
	w_attr(&attrs);
	w_records(&data);
	w32(&nrcpus, 8); /* available */
	w32(&nrcpus, 6); /* online */
	w64(&stime, T_TIME);
	w64(&stime, T_TIME + 1000);
	w64(&clk, 40);
	wstr(&f40, "unknown feature", 24);
	struct fspec s = one_attr_spec(&attrs, ATTR_SIZE, &data, &host);
	s.bitmap_word = word;
	add_feat(&s, PA_FEAT_NRCPUS, &nrcpus);
	add_feat(&s, PA_FEAT_SAMPLE_TIME, &stime);
	add_feat(&s, PA_FEAT_CLOCKID, &clk);
	add_feat(&s, 40, &f40);
	struct wbuf b = assemble(&s, NULL);
	for (int no_mmap = 0; no_mmap <= 1; no_mmap++) {
		char *path;
		struct pa_file *f = open_read(&b, no_mmap, &path);
		const struct pa_header_info *h = pa_file_header(f);
		for (unsigned bit = 0; bit < PA_FEAT_BITS; bit++) {
			bool want = bit == PA_FEAT_HOSTNAME || bit == PA_FEAT_NRCPUS ||
			            bit == PA_FEAT_SAMPLE_TIME || bit == PA_FEAT_CLOCKID ||
			            bit == 40;
			if (pa_header_has_feat(h, bit) != want)
				fail_msg("%s file, %u-byte longs: feature %u %s", be ? "BE" : "LE",
				         word, bit, want ? "missing" : "present");
		}
		assert_string_equal(h->hostname, "synth-host");
		assert_int_equal(h->nr_cpus_avail, 8);
		assert_int_equal(h->nr_cpus_online, 6);
		assert_int_equal(h->first_sample_time, T_TIME);
		assert_int_equal(h->last_sample_time, T_TIME + 1000);
		assert_int_equal(h->clockid_res_ns, 40);
		check_records(f, pa_file_evsel(f, 0), NULL);
		close_buf(f, path);
	}
	free_bufs(&b, &attrs, &data, &host, &nrcpus, &stime, &clk, &f40, NULL);
}

static void test_feature_bitmap_words(void **state)
{
	(void)state;
	read_feature_bitmap(true, 4);
	read_feature_bitmap(true, 8);
	read_feature_bitmap(false, 4);
	read_feature_bitmap(false, 8);
}

/* ---- COMPRESSED and COMPRESSED2 ------------------------------------------- */

/* A compressed record holding src as one zstd frame (perf's writer ends a
 * frame per record). COMPRESSED2 carries the data size and pads to 8: the
 * padding here is 4-11 junk bytes, which zstd would refuse (or take for
 * the start of the next frame) if a reader inflated them. */
static void w_compressed(struct wbuf *b, uint32_t type, const uint8_t *src, size_t n)
{
	size_t cap = ZSTD_compressBound(n);
	uint8_t *z = malloc(cap);
	assert_non_null(z);
	size_t zn = ZSTD_compress(z, cap, src, n, 3);
	assert_false(ZSTD_isError(zn));
	if (type == PA_REC_COMPRESSED) {
		w_header(b, type, 0, (uint16_t)(8 + zn));
		wbytes(b, z, zn);
	} else {
		size_t pad = 8 - zn % 8;
		if (pad < 4)
			pad += 8;
		w_header(b, type, 0, (uint16_t)(16 + zn + pad));
		w64(b, zn);
		wbytes(b, z, zn);
		for (size_t i = 0; i < pad; i++)
			wbytes(b, "\xa5", 1);
	}
	free(z);
}

#define MAX_CHUNKS 4

/* Where the records of a stream start, and (at [n]) where it ends. */
static size_t record_starts(const struct wbuf *raw, size_t *start)
{
	size_t n = 0;
	for (size_t off = 0; off < raw->len; n++) {
		assert_true(n < LOG_MAX && off + 8 <= raw->len);
		start[n] = off;
		uint16_t size = raw->be ? (uint16_t)(raw->p[off + 6] << 8 | raw->p[off + 7])
		                        : (uint16_t)(raw->p[off + 7] << 8 | raw->p[off + 6]);
		assert_true(size >= 8);
		off += size;
	}
	start[n] = raw->len;
	return n;
}

/* w_records() compressed into nr chunks, chunk i holding bytes cut[i-1]
 * (0 for the first) to cut[i] (the end for the last) as a record of type
 * types[i]; read back, with and without the containers shown. */
static void read_compressed(bool be, unsigned nr, const size_t *cut, const uint32_t *types,
                            bool no_mmap)
{
	struct wbuf raw = {.be = be};
	w_records(&raw);
	size_t from[MAX_CHUNKS + 1];
	from[0] = 0;
	for (unsigned i = 1; i < nr; i++)
		from[i] = cut[i - 1];
	from[nr] = raw.len;
	struct wbuf data = {.be = be};
	size_t chunk_off[MAX_CHUNKS];
	for (unsigned i = 0; i < nr; i++) {
		assert_true(from[i] < from[i + 1]);
		chunk_off[i] = data.len;
		w_compressed(&data, types[i], raw.p + from[i], from[i + 1] - from[i]);
	}
	size_t rec_start[LOG_MAX + 1];
	size_t nrec = record_starts(&raw, rec_start);

	struct wbuf attrs = {.be = be}, host = hostname_sec(be), comp = {.be = be};
	w_attr(&attrs);
	w32(&comp, 2);      /* version */
	w32(&comp, 1);      /* type: zstd */
	w32(&comp, 3);      /* level */
	w32(&comp, 5);      /* ratio */
	w32(&comp, 528384); /* mmap_len */
	struct fspec s = one_attr_spec(&attrs, ATTR_SIZE, &data, &host);
	add_feat(&s, PA_FEAT_COMPRESSED, &comp);
	size_t doff;
	struct wbuf b = assemble(&s, &doff);

	/* the contents */
	char *path;
	struct pa_file_opts opts = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap);
	struct pa_file *f = open_buf(&b, &opts, &path);
	const struct pa_header_info *h = pa_file_header(f);
	assert_int_equal(h->compressed.version, 2);
	assert_int_equal(h->compressed.type, 1);
	assert_int_equal(h->compressed.level, 3);
	assert_int_equal(h->compressed.ratio, 5);
	assert_int_equal(h->compressed.mmap_len, 528384);
	const struct pa_evsel *e = pa_file_evsel(f, 0);
	check_attr(&e->attr);
	struct ev_log log = {0};
	check_records(f, e, &log);
	assert_int_equal(log.n, nrec);
	for (size_t r = 0; r < nrec; r++) {
		assert_true(log.e[r].compressed);
		assert_int_equal(log.e[r].dec_offset, rec_start[r]);
		/* the chunk a record starts in, or the one it ends in */
		unsigned first = 0, last = 0;
		for (unsigned i = 0; i < nr; i++) {
			if (from[i] <= rec_start[r])
				first = i;
			if (from[i] < rec_start[r + 1])
				last = i;
		}
		if (log.e[r].offset != doff + chunk_off[first] &&
		    log.e[r].offset != doff + chunk_off[last])
			fail_msg("record %zu (chunks %u-%u): offset %llu", r, first, last,
			         (unsigned long long)log.e[r].offset);
	}
	unsigned n81 = 0, n83 = 0;
	for (unsigned i = 0; i < nr; i++)
		types[i] == PA_REC_COMPRESSED ? n81++ : n83++;
	assert_int_equal(pa_file_count(f, PA_REC_COMPRESSED), n81);
	assert_int_equal(pa_file_count(f, PA_REC_COMPRESSED2), n83);
	close_buf(f, path);

	/* the containers too: each before the records it completes */
	opts.show_containers = true;
	f = open_buf(&b, &opts, &path);
	struct pa_event ev;
	struct pa_err err = {0};
	unsigned chunk = 0;
	size_t r = 0;
	int ret;
	while ((ret = pa_file_next(f, &ev, &err)) == 1) {
		if (ev.type == PA_REC_COMPRESSED || ev.type == PA_REC_COMPRESSED2) {
			assert_true(chunk < nr);
			assert_int_equal(ev.type, types[chunk]);
			assert_false(ev.compressed);
			assert_int_equal(ev.offset, doff + chunk_off[chunk]);
			assert_null(ev.evsel);
			/* shown once the records before it are out */
			size_t done = 0;
			while (done < nrec && rec_start[done + 1] <= from[chunk])
				done++;
			assert_int_equal(r, done);
			chunk++;
			continue;
		}
		assert_true(r < nrec);
		assert_true(ev.compressed);
		assert_int_equal(ev.dec_offset, rec_start[r]);
		/* all of it has been handed over */
		assert_true(chunk == nr || from[chunk] >= rec_start[r + 1]);
		r++;
	}
	if (ret < 0)
		fail_msg("pa_file_next: %s", err.msg);
	assert_int_equal(chunk, nr);
	assert_int_equal(r, nrec);
	close_buf(f, path);

	free_bufs(&b, &raw, &data, &attrs, &host, &comp, NULL);
}

static void test_compressed_whole(void **state)
{
	(void)state;
	static const uint32_t types[] = {PA_REC_COMPRESSED, PA_REC_COMPRESSED2};
	for (int be = 0; be <= 1; be++)
		for (size_t t = 0; t < 2; t++)
			for (int no_mmap = 0; no_mmap <= 1; no_mmap++)
				read_compressed(be, 1, NULL, &types[t], no_mmap);
}

/* Two chunks cut at every byte of the stream, so that some record (or
 * record header) straddles them, with every pair of record types. */
static void test_compressed_split(void **state)
{
	(void)state;
	static const uint32_t pairs[4][2] = {
	    {PA_REC_COMPRESSED, PA_REC_COMPRESSED},
	    {PA_REC_COMPRESSED2, PA_REC_COMPRESSED2},
	    {PA_REC_COMPRESSED, PA_REC_COMPRESSED2},
	    {PA_REC_COMPRESSED2, PA_REC_COMPRESSED},
	};
	struct wbuf raw = {0};
	w_records(&raw);
	size_t len = raw.len;
	free(raw.p);
	for (int be = 0; be <= 1; be++)
		for (size_t p = 0; p < 4; p++)
			for (size_t cut = 1; cut < len; cut++)
				read_compressed(be, 2, &cut, pairs[p], cut % 37 == 0);
}

/* One record (the sample: the third) in three chunks, and a chunk with a
 * single byte. */
static void test_compressed_three(void **state)
{
	(void)state;
	static const uint32_t types[] = {PA_REC_COMPRESSED2, PA_REC_COMPRESSED, PA_REC_COMPRESSED2,
	                                 PA_REC_COMPRESSED};
	struct wbuf raw = {0};
	w_records(&raw);
	size_t start[LOG_MAX + 1];
	assert_int_equal(record_starts(&raw, start), 5);
	free(raw.p);
	size_t sample = start[2];
	assert_true(start[3] - sample > 64);
	const size_t cuts[][3] = {
	    {sample + 5, sample + 40, sample + 41},
	    {sample + 8, sample + 9, sample + 60},
	};
	for (int be = 0; be <= 1; be++)
		for (size_t c = 0; c < PA_ARRAY_SIZE(cuts); c++)
			for (int no_mmap = 0; no_mmap <= 1; no_mmap++)
				read_compressed(be, 4, cuts[c], types, no_mmap);
}

/* Compressed data that ends inside a record (the fourth, MMAP2): an error
 * at the compressed record when the header gives the data size; when it
 * does not (perf was killed), the end of the file, marked truncated. */
static void read_compressed_cut(bool be, bool size_known, uint32_t type, bool no_mmap)
{
	struct wbuf raw = {.be = be};
	w_records(&raw);
	size_t start[LOG_MAX + 1];
	assert_int_equal(record_starts(&raw, start), 5);
	struct wbuf data = {.be = be};
	w_compressed(&data, type, raw.p, start[3] + 20);
	struct wbuf attrs = {.be = be}, host = hostname_sec(be);
	w_attr(&attrs);
	struct fspec s = one_attr_spec(&attrs, ATTR_SIZE, &data, size_known ? &host : NULL);
	size_t doff;
	struct wbuf b = assemble(&s, &doff);
	if (!size_known)
		wpatch(&b, 48, 0, 8);
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	struct pa_event ev;
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_COMM);
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_MMAP2);
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_SAMPLE);
	assert_int_equal(ev.sample.ip, T_IP);
	assert_int_equal(ev.sample.callchain_nr, 3);
	struct pa_err err = {0};
	int r = pa_file_next(f, &ev, &err);
	if (size_known) {
		assert_true(r < 0);
		assert_int_equal(err.code, -PA_ERR_TRUNCATED);
		assert_true(err.has_offset);
		assert_int_equal(err.offset, doff);
		assert_false(pa_file_was_truncated(f));
	} else {
		if (r != 0)
			fail_msg("pa_file_next: %d: %s", r, err.msg);
		assert_true(pa_file_was_truncated(f));
		assert_int_equal(pa_file_next(f, &ev, &err), 0);
	}
	assert_int_equal(pa_file_count(f, PA_REC_SAMPLE), 1);
	close_buf(f, path);
	free_bufs(&b, &raw, &data, &attrs, &host, NULL);
}

static void test_compressed_cut(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++)
		for (int known = 0; known <= 1; known++)
			for (int no_mmap = 0; no_mmap <= 1; no_mmap++) {
				read_compressed_cut(be, known, PA_REC_COMPRESSED, no_mmap);
				read_compressed_cut(be, known, PA_REC_COMPRESSED2, no_mmap);
			}
}

/* A zstd frame that inflates to more than the reader's window (1 MiB), as
 * one of perf's 64 KiB COMPRESSED records of well-compressing data does,
 * in one to three records. The samples come from a small pool (zstd finds
 * them again: a ratio of a few tens); an uncompressed FINISHED_ROUND
 * follows and must come after all of them. In one record, 12000 and 12400
 * samples fill the window up while the frame's last block is inflated:
 * zstd then holds back the last input byte, and the reader must come back
 * for the rest before it takes the next record. */
static void read_compressed_big(bool be, unsigned nr_samples, unsigned nr_records, bool no_mmap)
{
	struct wbuf raw = {.be = be};
	uint64_t pool_ip[64], x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 64; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		pool_ip[i] = T_IP + (x & 0xffff);
	}
	uint8_t *pick = malloc(nr_samples);
	assert_non_null(pick);
	for (unsigned i = 0; i < nr_samples; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		pick[i] = (uint8_t)(x % 64);
		size_t at = rec_begin(&raw, PA_REC_SAMPLE, PA_MISC_USER);
		w_sample_body(&raw, pool_ip[pick[i]], pick[i]); /* period: the pool index */
		rec_end(&raw, at);
	}
	/* one zstd frame, in nr_records records */
	size_t cap = ZSTD_compressBound(raw.len);
	uint8_t *z = malloc(cap);
	assert_non_null(z);
	size_t zn = ZSTD_compress(z, cap, raw.p, raw.len, 3);
	assert_false(ZSTD_isError(zn));
	if (zn / nr_records + 24 >= 65536 || raw.len / zn >= PA_MAX_INFLATE_RATIO)
		fail_msg("%zu bytes compress to %zu", raw.len, zn);
	struct wbuf data = {.be = be};
	for (unsigned r = 0; r < nr_records; r++) {
		size_t from = zn * r / nr_records, to = zn * (r + 1) / nr_records;
		size_t pad = (8 - (to - from) % 8) % 8;
		w_header(&data, PA_REC_COMPRESSED2, 0, (uint16_t)(16 + to - from + pad));
		w64(&data, to - from);
		wbytes(&data, z + from, to - from);
		wzero(&data, pad);
	}
	free(z);
	w_header(&data, PA_REC_FINISHED_ROUND, 0, 8);

	struct wbuf attrs = {.be = be}, host = hostname_sec(be);
	w_attr(&attrs);
	struct fspec s = one_attr_spec(&attrs, ATTR_SIZE, &data, &host);
	struct wbuf b = assemble(&s, NULL);
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	struct pa_event ev;
	struct pa_err err = {0};
	unsigned n = 0;
	int ret;
	while ((ret = pa_file_next(f, &ev, &err)) == 1 && ev.type == PA_REC_SAMPLE) {
		assert_true(n < nr_samples);
		assert_int_equal(ev.sample.ip, pool_ip[pick[n]]);
		assert_int_equal(ev.sample.period, pick[n]);
		assert_int_equal(ev.dec_offset, (uint64_t)n * 88);
		assert_int_equal(ev.sample.callchain_nr, 3);
		n++;
	}
	if (ret < 0)
		fail_msg("%u samples of %u: pa_file_next: %s", n, nr_samples, err.msg);
	if (n != nr_samples)
		fail_msg("%u samples of %u (%u records of %zu bytes inflating to %zu)", n,
		         nr_samples, nr_records, zn, raw.len);
	assert_int_equal(ret, 1);
	assert_int_equal(ev.type, PA_REC_FINISHED_ROUND);
	assert_false(ev.compressed);
	assert_int_equal(pa_file_next(f, &ev, &err), 0);
	close_buf(f, path);
	free(pick);
	free_bufs(&b, &raw, &data, &attrs, &host, NULL);
}

static void test_compressed_big(void **state)
{
	(void)state;
	/* 88-byte samples: about 0.9, 1.05, 1.1 and 1.25 MiB */
	static const unsigned sizes[] = {10000, 12000, 12400, 15000};
	for (int be = 0; be <= 1; be++)
		for (size_t i = 0; i < PA_ARRAY_SIZE(sizes); i++)
			for (unsigned records = 1; records <= 3; records++)
				read_compressed_big(be, sizes[i], records, records == 2);
}

/* ---- sample layouts ------------------------------------------------------- */

/* Three events whose samples differ, each found by its IDENTIFIER:
 *   A: READ (one value: enabled, running, id, lost), RAW, BRANCH_STACK
 *      with hw_idx, WEIGHT; ids 0x101 and 0x102;
 *   B: CPU, READ (a group: nr, enabled, {value, id} x nr), CALLCHAIN,
 *      WEIGHT, no TIME; id 0x201;
 *   C: the fixed slots and a call chain only (the host-order fast path).
 * Records with a sample_id trailer are told apart the same way. */
#define SA                                                                                         \
	(PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_PERIOD | \
	 PA_SAMPLE_READ | PA_SAMPLE_RAW | PA_SAMPLE_BRANCH_STACK | PA_SAMPLE_WEIGHT)
#define RA                                                                                         \
	(PA_FORMAT_TOTAL_TIME_ENABLED | PA_FORMAT_TOTAL_TIME_RUNNING | PA_FORMAT_ID |              \
	 PA_FORMAT_LOST)
#define SB                                                                                         \
	(PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_CPU | PA_SAMPLE_READ |    \
	 PA_SAMPLE_CALLCHAIN | PA_SAMPLE_WEIGHT)
#define RB (PA_FORMAT_GROUP | PA_FORMAT_ID | PA_FORMAT_TOTAL_TIME_ENABLED)
#define SC                                                                                         \
	(PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_CPU |    \
	 PA_SAMPLE_PERIOD | PA_SAMPLE_CALLCHAIN)
#define ID_A1   0x101ull
#define ID_A2   0x102ull
#define ID_B    0x201ull
#define ID_C    0x301ull
#define BR_TYPE (PA_BRANCH_HW_INDEX | 8)
#define S_FLAGS (BIT(PA_ATTR_DISABLED) | BIT(PA_ATTR_SAMPLE_ID_ALL))

static const uint64_t t_branches[6] = {0x1000, 0x2000, 0x11, 0x3000, 0x4000, 0x22};

/* A flags word (mispred:1 predicted:1 ... cycles:16 ..., little-endian
 * layout) as a big-endian kernel lays it out: bit-fields from bit 63. The
 * reader gives the little-endian layout back. */
static uint64_t be_branch_flags(uint64_t v)
{
	return (v & 1) << 63 | (v >> 1 & 1) << 62 | (v >> 2 & 1) << 61 | (v >> 3 & 1) << 60 |
	       (v >> 4 & 0xffff) << 44 | (v >> 20 & 0xf) << 40;
}
static const uint64_t t_read_a[5] = {111111, 2000, 1500, ID_A1, 3};
static const uint64_t t_read_a2[5] = {2, 3, 4, ID_A2, 0};
static const uint64_t t_read_b[6] = {2, 5000, 777, ID_B, 888, ID_C};
static const uint64_t t_chain_b[2] = {PA_CONTEXT_USER, T_IP + 0x20};

static void w_sample_a(struct wbuf *b, uint64_t id, uint64_t ip, uint64_t time, uint64_t period,
                       const uint64_t *read, const uint8_t *raw, uint32_t raw_size, uint64_t nr_br,
                       uint64_t hw_idx, uint64_t weight)
{
	size_t at = rec_begin(b, PA_REC_SAMPLE, PA_MISC_USER);
	w64(b, id);
	w64(b, ip);
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, time);
	w64(b, period);
	for (int i = 0; i < 5; i++)
		w64(b, read[i]);
	w32(b, raw_size);
	wbytes(b, raw, raw_size);
	w64(b, nr_br);
	w64(b, hw_idx);
	for (uint64_t i = 0; i < nr_br * 3; i++)
		w64(b, i % 3 == 2 && b->be ? be_branch_flags(t_branches[i]) : t_branches[i]);
	w64(b, weight);
	rec_end(b, at);
}

static void w_sample_records(struct wbuf *b, const uint8_t *raw12)
{
	/* COMM of A, its trailer: TID, TIME, IDENTIFIER */
	size_t at = rec_begin(b, PA_REC_COMM, 0);
	w32(b, T_PID);
	w32(b, T_TID);
	wstr(b, "comm-a", 8);
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, T_TIME);
	w64(b, ID_A2);
	rec_end(b, at);
	/* COMM of B, its trailer: TID, CPU, IDENTIFIER */
	at = rec_begin(b, PA_REC_COMM, 0);
	w32(b, T_PID + 1);
	w32(b, T_TID + 1);
	wstr(b, "comm-b", 8);
	w32(b, T_PID + 1);
	w32(b, T_TID + 1);
	w32(b, 5);
	w32(b, 0);
	w64(b, ID_B);
	rec_end(b, at);

	w_sample_a(b, ID_A1, T_IP + 0x10, T_TIME + 1, 1000, t_read_a, raw12, 12, 2, 7, 0x1234);

	at = rec_begin(b, PA_REC_SAMPLE, PA_MISC_USER);
	w64(b, ID_B);
	w64(b, T_IP + 0x20);
	w32(b, T_PID);
	w32(b, T_TID);
	w32(b, 5); /* cpu */
	w32(b, 0);
	for (int i = 0; i < 6; i++)
		w64(b, t_read_b[i]);
	w64(b, 2);
	for (int i = 0; i < 2; i++)
		w64(b, t_chain_b[i]);
	w64(b, 0x5678);
	rec_end(b, at);

	at = rec_begin(b, PA_REC_SAMPLE, PA_MISC_USER);
	w64(b, ID_C);
	w64(b, T_IP + 0x30);
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, T_TIME + 3);
	w32(b, 6); /* cpu */
	w32(b, 0);
	w64(b, 4242);
	w64(b, 1);
	w64(b, T_IP + 0x30);
	rec_end(b, at);

	static const uint8_t raw4[4] = {1, 2, 3, 4};
	w_sample_a(b, ID_A2, T_IP + 0x40, T_TIME + 4, 2000, t_read_a2, raw4, 4, 0, UINT64_MAX, 9);
}

/* ev: a sample of evsel e, its type, id and ip as given, from T_PID and
 * T_TID. */
static void check_sample_head(const struct pa_event *ev, const struct pa_evsel *e, uint64_t type,
                              uint64_t id, uint64_t ip)
{
	assert_int_equal(ev->type, PA_REC_SAMPLE);
	assert_ptr_equal(ev->evsel, e);
	assert_int_equal(ev->sample.type, type);
	assert_int_equal(ev->sample.id, id);
	assert_int_equal(ev->sample.ip, ip);
	assert_int_equal(ev->sample.pid, T_PID);
	assert_int_equal(ev->sample.tid, T_TID);
}

static void check_sample_a(const struct pa_event *ev, const struct pa_evsel *a, uint64_t id,
                           uint64_t ip, uint64_t time, uint64_t period, const uint64_t *read,
                           const uint8_t *raw, uint32_t raw_size, uint64_t nr_br, uint64_t hw_idx,
                           uint64_t weight)
{
	const struct pa_sample *s = &ev->sample;
	check_sample_head(ev, a, SA, id, ip);
	assert_int_equal(s->time, time);
	assert_int_equal(s->period, period);
	assert_int_equal(s->cpu, 0);
	assert_int_equal(s->read.nr_values, 5);
	assert_non_null(s->read.values);
	assert_memory_equal(s->read.values, read, 5 * 8);
	assert_int_equal(s->raw_size, raw_size);
	assert_non_null(s->raw);
	assert_memory_equal(s->raw, raw, raw_size); /* as written, whatever the order */
	assert_int_equal(s->branch.nr, nr_br);
	assert_int_equal(s->branch.hw_idx, hw_idx);
	if (nr_br)
		assert_memory_equal(s->branch.entries, t_branches, nr_br * 3 * 8);
	assert_null(s->branch.counters);
	assert_int_equal(s->weight, weight);
	assert_int_equal(s->callchain_nr, 0);
}

static void read_sample_layouts(bool be, bool no_mmap)
{
	struct tattr ta = {.type = 0,
	                   .size = ATTR_SIZE,
	                   .config = 0,
	                   .sample_type = SA,
	                   .read_format = RA,
	                   .flags = S_FLAGS,
	                   .branch_sample_type = BR_TYPE};
	struct tattr tb = {.type = 1,
	                   .size = ATTR_SIZE,
	                   .config = 0,
	                   .sample_type = SB,
	                   .read_format = RB,
	                   .flags = S_FLAGS};
	struct tattr tc = {
	    .type = 1, .size = ATTR_SIZE, .config = 1, .sample_type = SC, .flags = S_FLAGS};
	struct wbuf attrs = {.be = be}, data = {.be = be}, host = hostname_sec(be);
	w_attr_t(&attrs, &ta, ATTR_SIZE, 0);
	w_attr_t(&attrs, &tb, ATTR_SIZE, 0);
	w_attr_t(&attrs, &tc, ATTR_SIZE, 0);
	/* a RAW payload: a u32 in the writer's order, then bytes */
	uint8_t raw12[12];
	for (int i = 0; i < 4; i++)
		raw12[be ? 3 - i : i] = (uint8_t)(0x11223344u >> (8 * i));
	memcpy(raw12 + 4, "ABCDEFGH", 8);
	w_sample_records(&data, raw12);
	static const uint64_t ids_a[] = {ID_A1, ID_A2}, ids_b[] = {ID_B}, ids_c[] = {ID_C};
	struct fspec s = {
	    .attr_bytes = ATTR_SIZE,
	    .nr_attrs = 3,
	    .attrs = &attrs,
	    .ids = {ids_a, ids_b, ids_c},
	    .nr_ids = {2, 1, 1},
	    .data = &data,
	    .nr_feats = 1,
	    .feats = {PA_FEAT_HOSTNAME},
	    .feat_secs = {&host},
	};
	struct wbuf b = assemble(&s, NULL);
	char *path;
	struct pa_file *f = open_read(&b, no_mmap, &path);
	assert_int_equal(pa_file_nr_evsels(f), 3);
	const struct pa_evsel *ea = pa_file_evsel(f, 0), *eb = pa_file_evsel(f, 1),
	                      *ec = pa_file_evsel(f, 2);
	check_attr_t(&ea->attr, &ta, ATTR_SIZE);
	check_attr_t(&eb->attr, &tb, ATTR_SIZE);
	check_attr_t(&ec->attr, &tc, ATTR_SIZE);
	assert_ptr_equal(pa_file_evsel_by_id(f, ID_A1), ea);
	assert_ptr_equal(pa_file_evsel_by_id(f, ID_A2), ea);
	assert_ptr_equal(pa_file_evsel_by_id(f, ID_B), eb);
	assert_ptr_equal(pa_file_evsel_by_id(f, ID_C), ec);

	struct pa_event ev;
	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_COMM);
	assert_ptr_equal(ev.evsel, ea);
	assert_string_equal(ev.u.comm.comm, "comm-a");
	assert_int_equal(ev.sample.pid, T_PID);
	assert_int_equal(ev.sample.tid, T_TID);
	assert_int_equal(ev.sample.time, T_TIME);
	assert_int_equal(ev.sample.id, ID_A2);
	assert_int_equal(ev.sample.cpu, 0);

	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_COMM);
	assert_ptr_equal(ev.evsel, eb);
	assert_string_equal(ev.u.comm.comm, "comm-b");
	assert_int_equal(ev.u.comm.pid, T_PID + 1);
	assert_int_equal(ev.sample.pid, T_PID + 1);
	assert_int_equal(ev.sample.tid, T_TID + 1);
	assert_int_equal(ev.sample.time, 0);
	assert_int_equal(ev.sample.cpu, 5);
	assert_int_equal(ev.sample.id, ID_B);

	next_ok(f, &ev);
	check_sample_a(&ev, ea, ID_A1, T_IP + 0x10, T_TIME + 1, 1000, t_read_a, raw12, 12, 2, 7,
	               0x1234);

	next_ok(f, &ev);
	check_sample_head(&ev, eb, SB, ID_B, T_IP + 0x20);
	assert_int_equal(ev.sample.cpu, 5);
	assert_int_equal(ev.sample.time, 0);
	/* no PERIOD recorded: perf's period is the event's sample_period */
	assert_int_equal(ev.sample.period, eb->attr.sample_period);
	assert_int_not_equal(eb->attr.sample_period, 0);
	assert_int_equal(ev.sample.read.nr_values, 6);
	assert_memory_equal(ev.sample.read.values, t_read_b, sizeof(t_read_b));
	assert_int_equal(ev.sample.callchain_nr, 2);
	assert_memory_equal(ev.sample.callchain, t_chain_b, sizeof(t_chain_b));
	assert_int_equal(ev.sample.weight, 0x5678);
	assert_null(ev.sample.raw);
	assert_int_equal(ev.sample.branch.nr, 0);

	next_ok(f, &ev);
	check_sample_head(&ev, ec, SC, ID_C, T_IP + 0x30);
	assert_int_equal(ev.sample.time, T_TIME + 3);
	assert_int_equal(ev.sample.cpu, 6);
	assert_int_equal(ev.sample.period, 4242);
	assert_int_equal(ev.sample.callchain_nr, 1);
	assert_int_equal(ev.sample.callchain[0], T_IP + 0x30);
	assert_int_equal(ev.sample.read.nr_values, 0);
	assert_int_equal(ev.sample.weight, 0);

	next_ok(f, &ev);
	static const uint8_t raw4[4] = {1, 2, 3, 4};
	check_sample_a(&ev, ea, ID_A2, T_IP + 0x40, T_TIME + 4, 2000, t_read_a2, raw4, 4, 0,
	               UINT64_MAX, 9);

	struct pa_err err = {0};
	assert_int_equal(pa_file_next(f, &ev, &err), 0);
	assert_int_equal(pa_file_count(f, PA_REC_SAMPLE), 4);
	assert_int_equal(pa_file_count(f, PA_REC_COMM), 2);
	close_buf(f, path);
	free_bufs(&b, &attrs, &data, &host, NULL);
}

static void test_sample_layouts(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++)
		for (int no_mmap = 0; no_mmap <= 1; no_mmap++)
			read_sample_layouts(be, no_mmap);
}

/* A stack copy's 8-byte units are reversed in a big-endian file of an x86
 * recording (testdata/be-dwarf.data, perf inject's swap as u64s), not in
 * the little-endian twin; formats says so, the byte order's only reader. */
static const char *g_testdata;

static void test_user_stack_units(void **state)
{
	(void)state;
	assert_non_null(g_testdata);
	for (int be = 0; be <= 1; be++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s-dwarf.data", g_testdata, be ? "be" : "le");
		struct pa_err err = {0};
		struct pa_file *f = pa_file_open(path, NULL, &err);
		if (!f)
			fail_msg("%s: %s", path, err.msg);
		struct pa_event ev;
		size_t stacks = 0;
		int r;
		while ((r = pa_file_next(f, &ev, &err)) > 0) {
			if (ev.type != PA_REC_SAMPLE || !ev.sample.user_stack.data)
				continue;
			stacks++;
			assert_int_equal(ev.sample.user_stack.units_reversed, be);
		}
		assert_int_equal(r, 0);
		assert_true(stacks > 0);
		pa_file_close(f);
	}
}

/* Every event of path, folded into a digest (type, offset, ip, period,
 * the call chain); *reads_ahead: what the reader's helper thread touched
 * (readahead.c). */
static uint64_t digest_events(const char *path, const struct pa_file_opts *o, size_t *n,
                              enum pa_ahead *reads_ahead)
{
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(path, o, &err);
	if (!f)
		fail_msg("pa_file_open: %s", err.msg);
	struct pa_event ev;
	uint64_t h = 0;
	int r;
	*n = 0;
	while ((r = pa_file_next(f, &ev, &err)) == 1) {
		h = (h ^ ev.type ^ ev.offset * 31 ^ ev.sample.ip * 7 ^ ev.sample.period) *
		    0x100000001b3ull;
		for (uint64_t k = 0; ev.type == PA_REC_SAMPLE && k < ev.sample.callchain_nr; k++)
			h = (h ^ ev.sample.callchain[k]) * 0x100000001b3ull;
		(*n)++;
	}
	assert_int_equal(r, 0);
	*reads_ahead = pa_file_reads_ahead(f);
	pa_file_close(f);
	return h;
}

/* A large mapped file (17 MB or more of call-chain samples) is read with
 * a helper thread touching it ahead where there are two CPUs: every line
 * of 384-byte records, a page of 1664-byte ones. The same events as
 * without the helper and as through read(), in both byte orders (run
 * under the sanitizers too). */
static void test_readahead(void **state)
{
	(void)state;
	bool two = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	static const struct {
		size_t n;
		uint16_t depth;
		enum pa_ahead touch;
	} cases[] = {{46000, 40, PA_AHEAD_LINES}, {12000, 200, PA_AHEAD_PAGES}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (int be = 0; be < 2; be++) {
			size_t data_size;
			struct wbuf b =
			    build_file_chains(be, &data_size, cases[c].n, cases[c].depth);
			assert_true(data_size > (16u << 20));
			char *path = write_temp(&b, b.len);
			struct pa_file_opts with = {.sz = sizeof(with)};
			struct pa_file_opts without = {.sz = sizeof(without), .no_threads = true};
			struct pa_file_opts nomap = {.sz = sizeof(nomap), .no_mmap = true};
			size_t n1, n2, n3;
			enum pa_ahead ra1, ra2, ra3;
			uint64_t h1 = digest_events(path, &with, &n1, &ra1);
			uint64_t h2 = digest_events(path, &without, &n2, &ra2);
			uint64_t h3 = digest_events(path, &nomap, &n3, &ra3);
			assert_int_equal(ra1, two ? cases[c].touch : PA_AHEAD_NONE);
			assert_int_equal(ra2, PA_AHEAD_NONE);
			assert_int_equal(ra3, PA_AHEAD_NONE);
			assert_true(n1 > cases[c].n);
			assert_int_equal(n1, n2);
			assert_int_equal(n1, n3);
			assert_true(h1 == h2 && h1 == h3);
			unlink(path);
			free(path);
			free(b.p);
		}
	}
}

int main(int argc, char **argv)
{
	g_testdata = argc > 1 ? argv[1] : NULL;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flags_single),
	    cmocka_unit_test(test_flags_precise_ip),
	    cmocka_unit_test(test_flags_bytes),
	    cmocka_unit_test(test_flags_native_compiler),
	    cmocka_unit_test(test_file_le),
	    cmocka_unit_test(test_file_be),
	    cmocka_unit_test(test_decode_raw),
	    cmocka_unit_test(test_pipe_le),
	    cmocka_unit_test(test_pipe_be),
	    cmocka_unit_test(test_pipe_cros),
	    cmocka_unit_test(test_truncated_le),
	    cmocka_unit_test(test_truncated_be),
	    cmocka_unit_test(test_sample_chain_bounds),
	    cmocka_unit_test(test_attr_sizes),
	    cmocka_unit_test(test_perffile_legacy),
	    cmocka_unit_test(test_build_id_layouts),
	    cmocka_unit_test(test_tracing_data),
	    cmocka_unit_test(test_feature_bitmap_words),
	    cmocka_unit_test(test_compressed_whole),
	    cmocka_unit_test(test_compressed_split),
	    cmocka_unit_test(test_compressed_three),
	    cmocka_unit_test(test_compressed_big),
	    cmocka_unit_test(test_compressed_cut),
	    cmocka_unit_test(test_sample_layouts),
	    cmocka_unit_test(test_user_stack_units),
	    cmocka_unit_test(test_readahead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
