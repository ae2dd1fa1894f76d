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

#include "formats/formats.h"

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

static void w_attr(struct wbuf *b)
{
	size_t start = b->len;
	w32(b, 1);         /* type: software */
	w32(b, ATTR_SIZE); /* size */
	w64(b, T_CONFIG);
	w64(b, T_PERIOD);
	w64(b, T_SAMPLE_TYPE);
	w64(b, PA_FORMAT_ID);
	uint8_t fw[8];
	flag_word(fw, b->be, T_FLAGS, T_PRECISE);
	wbytes(b, fw, 8);
	w32(b, 7);      /* wakeup_events */
	w32(b, 0);      /* bp_type */
	w64(b, 0xdead); /* config1 */
	w64(b, 0xbeef); /* config2 */
	w64(b, 0);      /* branch_sample_type */
	w64(b, 0);      /* sample_regs_user */
	w32(b, 0);      /* sample_stack_user */
	w32(b, 1);      /* clockid */
	w64(b, 0);      /* sample_regs_intr */
	w32(b, 0x55);   /* aux_watermark */
	w16(b, 127);    /* sample_max_stack */
	w16(b, 0);
	w32(b, 0x66); /* aux_sample_size */
	w32(b, 0);
	w64(b, 0x99); /* sig_data */
	assert_int_equal(b->len - start, ATTR_SIZE);
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
	w64(b, T_IP);
	w32(b, T_PID);
	w32(b, T_TID);
	w64(b, T_TIME);
	w64(b, T_ID);
	w32(b, T_CPU);
	w32(b, 0);
	w64(b, T_PERIOD);
	w64(b, 3);
	for (int i = 0; i < 3; i++)
		w64(b, t_chain[i]);

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

static struct wbuf build_file(bool be, size_t *data_size)
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
	*data_size = b.len - F_DATA_OFF;
	wpatch(&b, 48, *data_size, 8);
	/* feature table (one section), then the section */
	size_t sec = b.len + 16;
	w64(&b, sec);
	w64(&b, 20);
	w_hostname(&b);
	return b;
}

static struct wbuf build_pipe(bool be)
{
	struct wbuf b = {.be = be};
	w_magic(&b);
	w64(&b, 16);
	w_header(&b, PA_REC_HEADER_ATTR, 0, 8 + ATTR_SIZE + 8);
	w_attr(&b);
	w64(&b, T_ID);
	w_header(&b, PA_REC_HEADER_FEATURE, 0, 8 + 8 + 24);
	w64(&b, PA_FEAT_HOSTNAME);
	w_hostname(&b);
	wzero(&b, 4);
	w_records(&b);
	return b;
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

static void check_attr(const struct pa_attr *a)
{
	assert_int_equal(a->type, 1);
	assert_int_equal(a->size, ATTR_SIZE);
	assert_int_equal(a->config, T_CONFIG);
	assert_int_equal(a->sample_period, T_PERIOD);
	assert_int_equal(a->sample_type, T_SAMPLE_TYPE);
	assert_int_equal(a->read_format, PA_FORMAT_ID);
	assert_int_equal(a->flags, T_FLAGS | (uint64_t)T_PRECISE << PA_ATTR_PRECISE_IP);
	assert_int_equal(a->precise_ip, T_PRECISE);
	assert_true(pa_attr_flag(a, PA_ATTR_SAMPLE_ID_ALL));
	assert_false(pa_attr_flag(a, PA_ATTR_INHERIT));
	assert_int_equal(a->wakeup_events, 7);
	assert_int_equal(a->config1, 0xdead);
	assert_int_equal(a->config2, 0xbeef);
	assert_int_equal(a->clockid, 1);
	assert_int_equal(a->aux_watermark, 0x55);
	assert_int_equal(a->sample_max_stack, 127);
	assert_int_equal(a->aux_sample_size, 0x66);
	assert_int_equal(a->sig_data, 0x99);
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

/* Records common to both modes, after any HEADER_* ones. */
static void check_records(struct pa_file *f, const struct pa_evsel *evsel)
{
	struct pa_event ev;
	struct pa_err err = {0};

	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_COMM);
	assert_int_equal(ev.misc, PA_MISC_COMM_EXEC);
	assert_int_equal(ev.u.comm.pid, T_PID);
	assert_int_equal(ev.u.comm.tid, T_TID);
	assert_string_equal(ev.u.comm.comm, "synth");
	assert_ptr_equal(ev.evsel, evsel);
	check_trailer(&ev);

	next_ok(f, &ev);
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

	next_ok(f, &ev);
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

	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_MMAP2);
	assert_true(ev.misc & PA_MISC_MMAP_BUILD_ID);
	assert_int_equal(ev.u.mmap.start, T_MMAP_START + 0x10000);
	assert_int_equal(ev.u.mmap.build_id_size, 20);
	assert_memory_equal(ev.u.mmap.build_id, t_build_id, 20);
	assert_int_equal(ev.u.mmap.prot, 5);
	assert_string_equal(ev.u.mmap.filename, "/lib/libsyn.so");
	check_trailer(&ev);

	next_ok(f, &ev);
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
	char *path = write_temp(&b, b.len);
	struct pa_file_opts opts = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap);
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(path, &opts, &err);
	if (!f)
		fail_msg("pa_file_open: %s", err.msg);

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

	check_records(f, e);
	pa_file_close(f);
	unlink(path);
	free(path);
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

static void read_pipe_mode(bool be, bool no_mmap)
{
	struct wbuf b = build_pipe(be);
	char *path = write_temp(&b, b.len);
	struct pa_file_opts opts = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap);
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(path, &opts, &err);
	if (!f)
		fail_msg("pa_file_open: %s", err.msg);
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
	check_attr(&e->attr);
	assert_int_equal(e->nr_ids, 1);
	assert_int_equal(e->ids[0], T_ID);

	next_ok(f, &ev);
	assert_int_equal(ev.type, PA_REC_HEADER_FEATURE);
	assert_int_equal(ev.u.feature.feat, PA_FEAT_HOSTNAME);
	const struct pa_header_info *h = pa_file_header(f);
	assert_true(pa_header_has_feat(h, PA_FEAT_HOSTNAME));
	assert_non_null(h->hostname);
	assert_string_equal(h->hostname, "synth-host");

	check_records(f, e);
	assert_int_equal(pa_file_count(f, PA_REC_HEADER_ATTR), 1);
	assert_int_equal(pa_file_count(f, PA_REC_HEADER_FEATURE), 1);
	pa_file_close(f);
	unlink(path);
	free(path);
	free(b.p);
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
	pa_file_close(f);
	unlink(path);
	free(path);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_single),
		cmocka_unit_test(test_flags_precise_ip),
		cmocka_unit_test(test_flags_bytes),
		cmocka_unit_test(test_flags_native_compiler),
		cmocka_unit_test(test_file_le),
		cmocka_unit_test(test_file_be),
		cmocka_unit_test(test_pipe_le),
		cmocka_unit_test(test_pipe_be),
		cmocka_unit_test(test_truncated_le),
		cmocka_unit_test(test_truncated_be),
		cmocka_unit_test(test_sample_chain_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
