/* test_syscap.c - unit tests for formats/syscap.c: sysprof captures built
 * here byte by byte, in both byte orders, read back through pa_file_*; the
 * events must be the same whichever order wrote the capture. Malformed
 * captures must give one error with the right offset. */
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

/* ---- building captures ------------------------------------------------------ */

struct cap {
	uint8_t *buf;
	size_t len, cap;
	bool be;
};

static void put(struct cap *c, size_t off, uint64_t v, unsigned n)
{
	assert_true(off + n <= c->len);
	for (unsigned i = 0; i < n; i++) {
		unsigned shift = c->be ? 8 * (n - 1 - i) : 8 * i;
		c->buf[off + i] = (uint8_t)(v >> shift);
	}
}

static size_t grow(struct cap *c, size_t n)
{
	if (c->len + n > c->cap) {
		c->cap = (c->len + n) * 2;
		c->buf = realloc(c->buf, c->cap);
		assert_non_null(c->buf);
	}
	memset(c->buf + c->len, 0, n);
	size_t at = c->len;
	c->len += n;
	return at;
}

static void cap_init(struct cap *c, bool be)
{
	memset(c, 0, sizeof(*c));
	c->be = be;
	grow(c, 256);
	/* the magic is little-endian whoever writes it */
	c->buf[0] = 0x5e, c->buf[1] = 0x97, c->buf[2] = 0xca, c->buf[3] = 0xfd;
	c->buf[4] = 1;		/* version: the first byte of the bit-field word */
	c->buf[5] = be ? 0 : 1; /* little_endian */
	strcpy((char *)c->buf + 8, "2024-05-06T07:08:09Z");
	put(c, 72, 1000, 8);
	put(c, 80, 9000, 8);
}

/* A frame of body bytes (rounded up to 8); returns its offset. */
static size_t frame(struct cap *c, unsigned type, int cpu, int32_t pid, int64_t time, size_t body)
{
	size_t len = (24 + body + 7) & ~(size_t)7;
	size_t at = grow(c, len);
	put(c, at, len, 2);
	put(c, at + 2, (uint16_t)(int16_t)cpu, 2);
	put(c, at + 4, (uint32_t)pid, 4);
	put(c, at + 8, (uint64_t)time, 8);
	c->buf[at + 16] = (uint8_t)type; /* type: first byte of its bit-field word */
	return at;
}

static size_t f_process(struct cap *c, int32_t pid, int64_t t, const char *cmd)
{
	size_t at = frame(c, PA_SYSCAP_PROCESS, -1, pid, t, strlen(cmd) + 1);
	strcpy((char *)c->buf + at + 24, cmd);
	return at;
}

static size_t f_map(struct cap *c, int32_t pid, int64_t t, uint64_t start, uint64_t end,
		    uint64_t off, uint64_t ino, const char *name, const char *bid)
{
	size_t extra = bid ? strlen(bid) + 2 : 0;
	size_t at = frame(c, PA_SYSCAP_MAP, 0, pid, t, 32 + strlen(name) + 1 + extra);
	put(c, at + 24, start, 8);
	put(c, at + 32, end, 8);
	put(c, at + 40, off, 8);
	put(c, at + 48, ino, 8);
	strcpy((char *)c->buf + at + 56, name);
	if (bid) {
		c->buf[at + 56 + strlen(name) + 1] = '@';
		strcpy((char *)c->buf + at + 56 + strlen(name) + 2, bid);
	}
	return at;
}

static size_t f_fork(struct cap *c, int32_t pid, int64_t t, int32_t child)
{
	size_t at = frame(c, PA_SYSCAP_FORK, 1, pid, t, 4);
	put(c, at + 24, (uint32_t)child, 4);
	return at;
}

static size_t f_sample(struct cap *c, int cpu, int32_t pid, int32_t tid, int64_t t,
		       const uint64_t *a, unsigned n)
{
	size_t at = frame(c, PA_SYSCAP_SAMPLE, cpu, pid, t, 8 + 8 * n);
	put(c, at + 24, n, 2); /* n_addrs: the first u16 of its bit-field word */
	put(c, at + 28, (uint32_t)tid, 4);
	for (unsigned i = 0; i < n; i++)
		put(c, at + 32 + 8 * i, a[i], 8);
	return at;
}

struct jit_in {
	uint64_t addr;
	const char *name;
};

static size_t f_jitmap(struct cap *c, int32_t pid, int64_t t, const struct jit_in *j, unsigned n)
{
	size_t body = 4;
	for (unsigned i = 0; i < n; i++)
		body += 8 + strlen(j[i].name) + 1;
	size_t at = frame(c, PA_SYSCAP_JITMAP, -1, pid, t, body);
	put(c, at + 24, n, 4);
	size_t q = at + 28;
	for (unsigned i = 0; i < n; i++) {
		put(c, q, j[i].addr, 8); /* unaligned, in the writer's order */
		strcpy((char *)c->buf + q + 8, j[i].name);
		q += 8 + strlen(j[i].name) + 1;
	}
	return at;
}

static char *write_tmp(const struct cap *c)
{
	char *path = strdup("/tmp/pa-test-syscap.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, c->buf, c->len), (ssize_t)c->len);
	close(fd);
	return path;
}

/* ---- reading them back --------------------------------------------------------- */

/* Every event as one line of text: what must not depend on byte order. */
static char *events_text(const char *path, bool no_mmap, struct pa_err *err_out)
{
	struct pa_err err = {0};
	struct pa_file_opts o = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap);
	struct pa_file *f = pa_file_open(path, &o, &err);
	char *text = NULL;
	size_t tlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	if (!f) {
		*err_out = err;
		fclose(out);
		return text;
	}
	struct pa_event ev;
	int r;
	while ((r = pa_file_next(f, &ev, &err)) > 0) {
		fprintf(out, "%s@%llu misc=%#x", pa_rec_type_name(ev.type),
			(unsigned long long)ev.offset, ev.misc);
		const struct pa_sample *s = &ev.sample;
		if (s->type & PA_SAMPLE_TIME)
			fprintf(out, " t=%llu", (unsigned long long)s->time);
		if (s->type & PA_SAMPLE_TID)
			fprintf(out, " %u/%u", s->pid, s->tid);
		if (s->type & PA_SAMPLE_CPU)
			fprintf(out, " cpu=%d", (int)s->cpu);
		switch (ev.type) {
		case PA_REC_COMM:
			fprintf(out, " comm %u/%u '%s'", ev.u.comm.pid, ev.u.comm.tid, ev.u.comm.comm);
			break;
		case PA_REC_MMAP:
		case PA_REC_MMAP2:
			fprintf(out, " map %d/%u %#llx+%#llx @%#llx ino=%llu prot=%u '%s'",
				(int)ev.u.mmap.pid, ev.u.mmap.tid,
				(unsigned long long)ev.u.mmap.start, (unsigned long long)ev.u.mmap.len,
				(unsigned long long)ev.u.mmap.pgoff, (unsigned long long)ev.u.mmap.ino,
				ev.u.mmap.prot, ev.u.mmap.filename);
			for (unsigned i = 0; i < ev.u.mmap.build_id_size; i++)
				fprintf(out, "%s%02x", i ? "" : " bid=", ev.u.mmap.build_id[i]);
			break;
		case PA_REC_FORK:
		case PA_REC_EXIT:
			fprintf(out, " (%d:%d)<-(%d:%d)", (int)ev.u.fork.pid, (int)ev.u.fork.tid,
				(int)ev.u.fork.ppid, (int)ev.u.fork.ptid);
			break;
		case PA_REC_SAMPLE:
			assert_non_null(ev.evsel);
			fprintf(out, " '%s' ip=%#llx period=%llu chain", ev.evsel->name,
				(unsigned long long)s->ip, (unsigned long long)s->period);
			for (uint64_t i = 0; i < s->callchain_nr; i++)
				fprintf(out, " %#llx", (unsigned long long)s->callchain[i]);
			break;
		}
		fputc('\n', out);
	}
	if (r < 0) {
		*err_out = err;
		fprintf(out, "error\n");
	}
	fclose(out);
	pa_file_close(f);
	return text;
}

#define K1 0xffffffff81000010ull
#define K2 0xffffffff81000020ull
#define U1 0x401010ull
#define U2 0x401020ull
#define J1 0xe000000000000001ull
#define J2 0xe000000000000002ull
#define J3 0xe000000000000003ull

/* One capture of every kind of frame; jitmap_last puts the JITMAP frames
 * after the samples that use their addresses, as sysprof's writer may. */
static void build_full(struct cap *c, bool be)
{
	cap_init(c, be);
	frame(c, PA_SYSCAP_TIMESTAMP, -1, -1, 1000, 0);
	size_t md = frame(c, PA_SYSCAP_METADATA, -1, -1, 1000, 40 + 6);
	strcpy((char *)c->buf + md + 24, "origin");
	strcpy((char *)c->buf + md + 64, "tests");
	f_process(c, 100, 1100, "/usr/bin/app --flag");
	f_map(c, 100, 1200, 0x400000, 0x402000, 0x1000, 77, "/usr/bin/app",
	      "0123456789abcdef0123456789abcdef01234567");
	f_fork(c, 100, 1300, 101);
	f_fork(c, 101, 1310, 101); /* a new thread: no tid to give it */
	size_t log = frame(c, PA_SYSCAP_LOG, -1, 100, 1320, 40 + 4);
	strcpy((char *)c->buf + log + 32, "domain");
	uint64_t s1[] = {PA_CONTEXT_KERNEL, K1, K2, PA_CONTEXT_USER, U1, J1};
	f_sample(c, 2, 100, 100, 1400, s1, 6);
	uint64_t s2[] = {K1, U2, J2}; /* no markers: sysprof's collector */
	f_sample(c, -1, 101, 102, 1500, s2, 3);
	uint64_t s3[] = {U1};
	f_sample(c, 0, 100, 100, 1600, s3, 1);
	size_t mk = frame(c, PA_SYSCAP_MARK, 0, 100, 1700, 72 + 4);
	put(c, mk + 24, 250, 8);
	strcpy((char *)c->buf + mk + 32, "group");
	strcpy((char *)c->buf + mk + 56, "name");
	strcpy((char *)c->buf + mk + 96, "msg");
	/* out of order, and J2 given twice: the later name wins */
	struct jit_in j1[] = {{J2, "old_j2"}, {J1, "js_one"}};
	f_jitmap(c, 100, 1800, j1, 2);
	struct jit_in j2[] = {{J3, "js_three"}, {J2, "js_two"}};
	f_jitmap(c, 100, 1900, j2, 2);
	frame(c, PA_SYSCAP_EXIT, 1, 101, 2000, 0);
}

static void test_events(void **state)
{
	(void)state;
	struct cap le, be;
	build_full(&le, false);
	build_full(&be, true);
	assert_int_equal(le.len, be.len);
	char *pl = write_tmp(&le), *pb = write_tmp(&be);
	struct pa_err err = {0};
	char *tl = events_text(pl, false, &err);
	assert_int_equal(err.code, 0);
	char *tb = events_text(pb, false, &err);
	assert_int_equal(err.code, 0);
	char *tr = events_text(pb, true, &err); /* read() instead of mmap */
	assert_int_equal(err.code, 0);
	static const char expect[] =
		"COMM@352 misc=0x2000 t=1100 100/100 cpu=-1 comm 100/100 'app'\n"
		"MMAP2@400 misc=0x4002 t=1200 100/100 cpu=0 map 100/100 0x400000+0x2000 @0x1000 "
		"ino=77 prot=5 '/usr/bin/app' bid=0123456789abcdef0123456789abcdef01234567\n"
		"FORK@512 misc=0 t=1300 100/100 cpu=1 (101:101)<-(100:100)\n"
		"MMAP@648 misc=0x1 map -1/0 0+0xffffffffffffffff @0 ino=0 prot=0 "
		"'[kernel.kallsyms]_text'\n"
		"MMAP2@648 misc=0x2 t=1400 100/100 cpu=2 map 100/100 0xe000000000000001+0x3 "
		"@0xe000000000000001 ino=0 prot=5 '[sysprof-jit]'\n"
		"SAMPLE@648 misc=0x1 t=1400 100/100 cpu=2 'cpu-clock' ip=0xffffffff81000010 period=1 "
		"chain 0xffffffffffffff80 0xffffffff81000010 0xffffffff81000020 0xfffffffffffffe00 "
		"0x401010 0xe000000000000001\n"
		"MMAP2@728 misc=0x2 t=1500 101/101 cpu=-1 map 101/101 0xe000000000000001+0x3 "
		"@0xe000000000000001 ino=0 prot=5 '[sysprof-jit]'\n"
		"SAMPLE@728 misc=0x1 t=1500 101/102 cpu=-1 'cpu-clock' ip=0xffffffff81000010 "
		"period=1 chain 0xffffffffffffff80 0xffffffff81000010 0xfffffffffffffe00 0x401020 "
		"0xe000000000000002\n"
		"SAMPLE@784 misc=0x2 t=1600 100/100 cpu=0 'cpu-clock' ip=0x401010 period=1 chain "
		"0xfffffffffffffe00 0x401010\n"
		"EXIT@1056 misc=0 t=2000 101/101 cpu=1 (101:101)<-(-1:-1)\n";
	assert_string_equal(tl, expect);
	assert_string_equal(tb, expect);
	assert_string_equal(tr, expect);

	/* facts of the whole capture */
	struct pa_file *f = pa_file_open(pb, NULL, &err);
	assert_non_null(f);
	assert_int_equal(pa_file_format(f), PA_FILE_FORMAT_SYSCAP);
	assert_int_equal(pa_file_mode(f), PA_FILE_MODE_FILE);
	const struct pa_syscap_info *in = pa_file_syscap_info(f);
	assert_non_null(in);
	assert_int_equal(in->version, 1);
	assert_true(in->big_endian);
	assert_string_equal(in->capture_time, "2024-05-06T07:08:09Z");
	assert_int_equal(in->start_time, 1000);
	assert_int_equal(in->end_time, 9000);
	assert_int_equal(in->first_time, 1000);
	assert_int_equal(in->last_time, 2000);
	assert_int_equal(in->nr_metadata, 1);
	assert_string_equal(in->metadata[0].id, "origin");
	assert_string_equal(in->metadata[0].value, "tests");
	assert_int_equal(in->nr_marks, 1);
	assert_int_equal(in->marks[0].time, 1700);
	assert_int_equal(in->marks[0].duration, 250);
	assert_int_equal(in->marks[0].pid, 100);
	assert_string_equal(in->marks[0].group, "group");
	assert_string_equal(in->marks[0].name, "name");
	assert_string_equal(in->marks[0].message, "msg");
	assert_int_equal(in->frames[PA_SYSCAP_SAMPLE], 3);
	assert_int_equal(in->frames[PA_SYSCAP_FORK], 2);
	assert_int_equal(in->frames[PA_SYSCAP_JITMAP], 2);
	assert_int_equal(in->frames[PA_SYSCAP_LOG], 1);
	assert_string_equal(pa_syscap_frame_name(PA_SYSCAP_JITMAP), "JITMAP");
	size_t nj;
	const struct pa_jit_sym *js = pa_file_jit_syms(f, &nj);
	assert_int_equal(nj, 3);
	assert_true(js[0].addr == J1 && !strcmp(js[0].name, "js_one"));
	assert_true(js[1].addr == J2 && !strcmp(js[1].name, "js_two"));
	assert_true(js[2].addr == J3 && !strcmp(js[2].name, "js_three"));
	assert_string_equal(pa_file_jit_name(f, J2), "js_two");
	assert_null(pa_file_jit_name(f, J3 + 1));
	assert_null(pa_file_jit_name(f, 0));
	assert_int_equal(pa_file_nr_evsels(f), 1);
	assert_string_equal(pa_file_evsel(f, 0)->name, "cpu-clock");
	struct pa_event ev;
	while (pa_file_next(f, &ev, &err) > 0)
		;
	assert_int_equal(pa_file_count(f, PA_REC_SAMPLE), 3);
	assert_int_equal(pa_file_count(f, PA_REC_MMAP2), 3);
	assert_int_equal(pa_file_count(f, PA_REC_MMAP), 1);
	assert_int_equal(pa_file_unknown_count(f), 1); /* the LOG frame */
	assert_int_equal(in->skipped_forks, 1);
	pa_file_close(f);

	unlink(pl);
	unlink(pb);
	free(pl);
	free(pb);
	free(tl);
	free(tb);
	free(tr);
	free(le.buf);
	free(be.buf);
}

/* The comm a PROCESS frame gives. */
static void test_comm(void **state)
{
	(void)state;
	static const struct {
		const char *in, *comm;
	} cases[] = {
		{"gnome-shell", "gnome-shell"},
		{"Web Content", "Web Content"}, /* a perf comm, spaces and all */
		{"/usr/bin/python3 -m http.server", "python3"},
		{"a-rather-long-process-name", "a-rather-long-p"},
		{"/usr/libexec/some-really-long-daemon --x", "some-really-lon"},
		{"", ""},
	};
	for (int be = 0; be <= 1; be++) {
		struct cap c;
		cap_init(&c, be);
		for (size_t i = 0; i < PA_ARRAY_SIZE(cases); i++)
			f_process(&c, (int32_t)(10 + i), 5, cases[i].in);
		char *path = write_tmp(&c);
		struct pa_err err = {0};
		struct pa_file *f = pa_file_open(path, NULL, &err);
		assert_non_null(f);
		struct pa_event ev;
		for (size_t i = 0; i < PA_ARRAY_SIZE(cases); i++) {
			assert_int_equal(pa_file_next(f, &ev, &err), 1);
			assert_int_equal(ev.type, PA_REC_COMM);
			assert_int_equal(ev.u.comm.pid, 10 + i);
			assert_string_equal(ev.u.comm.comm, cases[i].comm);
		}
		assert_int_equal(pa_file_next(f, &ev, &err), 0);
		pa_file_close(f);
		unlink(path);
		free(path);
		free(c.buf);
	}
}

/* A capture with a frame tampered with: the first error, its code and the
 * offset it names. */
static void expect_error(const struct cap *c, int code, uint64_t offset, const char *words)
{
	char *path = write_tmp(c);
	struct pa_err err = {0};
	char *text = events_text(path, false, &err);
	if (err.code != -code || !err.has_offset || err.offset != offset ||
	    !strstr(err.msg, words))
		fail_msg("%s capture: got code %d offset %llu '%s', want %d at %llu with '%s'",
			 c->be ? "big-endian" : "little-endian", err.code,
			 (unsigned long long)err.offset, err.msg, -code,
			 (unsigned long long)offset, words);
	unlink(path);
	free(path);
	free(text);
}

static void test_errors(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++) {
		struct cap c;
		uint64_t a[] = {U1, U2};
		size_t at;

		cap_init(&c, be);
		c.len = 100;
		expect_error(&c, PA_ERR_TRUNCATED, 100, "header cut short");
		free(c.buf);

		cap_init(&c, be);
		c.buf[4] = 2;
		expect_error(&c, PA_ERR_UNSUPPORTED, 4, "version 2");
		free(c.buf);

		cap_init(&c, be);
		f_process(&c, 1, 1, "x");
		grow(&c, 10);
		expect_error(&c, PA_ERR_TRUNCATED, 288, "frame header cut short");
		free(c.buf);

		cap_init(&c, be);
		f_process(&c, 1, 1, "x");
		at = frame(&c, PA_SYSCAP_EXIT, 0, 1, 2, 0);
		put(&c, at, 0, 2);
		expect_error(&c, PA_ERR_FORMAT, at, "zero-length frame");
		put(&c, at, 12, 2);
		expect_error(&c, PA_ERR_FORMAT, at, "length 12 is not");
		put(&c, at, 30, 2);
		expect_error(&c, PA_ERR_FORMAT, at, "length 30 is not");
		put(&c, at, 32, 2);
		expect_error(&c, PA_ERR_TRUNCATED, at, "runs past the end of the file");
		free(c.buf);

		cap_init(&c, be);
		at = f_sample(&c, 0, 1, 1, 5, a, 2);
		put(&c, at + 24, 3, 2);
		expect_error(&c, PA_ERR_FORMAT, at + 24, "room for 2 addresses, not 3");
		put(&c, at + 24, 0xffff, 2);
		expect_error(&c, PA_ERR_FORMAT, at + 24, "not 65535");
		free(c.buf);

		cap_init(&c, be);
		at = f_map(&c, 1, 5, 0x1000, 0x2000, 0, 0, "/bin/x", NULL);
		memset(c.buf + at + 56, 'x', c.len - at - 56);
		expect_error(&c, PA_ERR_FORMAT, at + 56, "without its NUL");
		free(c.buf);

		cap_init(&c, be);
		f_map(&c, 1, 5, 0x3000, 0x2000, 0, 0, "/bin/x", NULL);
		expect_error(&c, PA_ERR_FORMAT, 256 + 32, "before its start");
		free(c.buf);

		cap_init(&c, be);
		at = f_process(&c, 1, 1, "1234567");
		c.buf[at + 31] = 'x';
		expect_error(&c, PA_ERR_FORMAT, at + 24, "without its NUL");
		free(c.buf);

		cap_init(&c, be);
		struct jit_in j[] = {{J1, "abc"}, {J2, "defghij"}};
		at = f_jitmap(&c, 1, 5, j, 2);
		memset(c.buf + at + 28 + 12 + 8, 'x', c.len - (at + 28 + 12 + 8));
		expect_error(&c, PA_ERR_FORMAT, at + 28 + 12, "JITMAP entry 1 runs past its frame");
		put(&c, at + 24, 1000000, 4);
		expect_error(&c, PA_ERR_FORMAT, at + 24, "cannot hold 1000000 entries");
		free(c.buf);

		cap_init(&c, be);
		at = frame(&c, PA_SYSCAP_FORK, 0, 1, 5, 0);
		expect_error(&c, PA_ERR_FORMAT, at, "FORK frame of 24 bytes is too short");
		free(c.buf);
	}
}

/* Not a capture: the perf.data reader's own error, unchanged. */
static void test_not_syscap(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, false);
	c.buf[0] = 0x5f;
	char *path = write_tmp(&c);
	struct pa_err err = {0};
	assert_null(pa_file_open(path, NULL, &err));
	assert_non_null(strstr(err.msg, "bad magic"));
	unlink(path);
	free(path);
	free(c.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_not_syscap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
