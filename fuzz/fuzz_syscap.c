/* fuzz_syscap.c - GNOME sysprof captures through pa_file_open() (regular
 * file, mapped and read through the buffer, and a real pipe: all three
 * must agree), every event touched, the capture's JIT table, metadata and
 * marks walked, and the events run through the session layer as
 * `pa report` does with a capture.
 */
#include "fuzz_common.h"
#include "formats/internal.h" /* pa_syscap_magic() */
#include "session/session.h"

#include <string.h>

struct trace {
	uint64_t events, hash, touched;
	int opened, rc;
	struct pa_err err;
};

static void touch_info(struct pa_file *f, struct trace *t)
{
	const struct pa_syscap_info *si = pa_file_syscap_info(f);
	if (!si)
		return;
	t->touched += fuzz_touch_str(si->capture_time) + si->version;
	for (uint32_t i = 0; i < si->nr_metadata; i++)
		t->touched += fuzz_touch_str(si->metadata[i].id) + fuzz_touch_str(si->metadata[i].value);
	for (uint32_t i = 0; i < si->nr_marks; i++)
		t->touched += fuzz_touch_str(si->marks[i].group) + fuzz_touch_str(si->marks[i].name) +
			      fuzz_touch_str(si->marks[i].message);
	size_t nr = 0;
	const struct pa_jit_sym *j = pa_file_jit_syms(f, &nr);
	for (size_t i = 0; i < nr; i++) {
		if (i && j[i].addr <= j[i - 1].addr)
			fuzz_fail("JIT table not sorted and unique at %zu", i);
		t->touched += fuzz_touch_str(j[i].name);
		if (pa_file_jit_name(f, j[i].addr) != j[i].name)
			fuzz_fail("pa_file_jit_name misses entry %zu", i);
	}
}

static void run(const char *path, bool no_mmap, struct trace *t)
{
	struct pa_file_opts o = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap);
	struct pa_err err = {0};
	memset(t, 0, sizeof(*t));
	struct pa_file *f = pa_file_open(path, &o, &err);
	if (!f) {
		t->err = err;
		return;
	}
	t->opened = 1;
	touch_info(f, t);
	struct pa_event ev;
	int r;
	while ((r = pa_file_next(f, &ev, &err)) > 0) {
		t->events++;
		t->hash = t->hash * 1000003u + (ev.type ^ ((uint64_t)ev.size << 32) ^ ev.offset ^ ev.misc);
		t->touched += fuzz_touch_event(&ev);
		if (ev.type == PA_REC_SAMPLE && ev.sample.callchain)
			for (uint64_t i = 0; i < ev.sample.callchain_nr; i++)
				t->touched += (uintptr_t)pa_file_jit_name(f, ev.sample.callchain[i]);
	}
	t->rc = r;
	if (r < 0) {
		t->err = err;
		if (!err.msg[0])
			fuzz_fail("error %d without a message", r);
	}
	pa_file_close(f);
}

static void differ(const struct trace *a, const struct trace *b, const char *what)
{
	if (a->opened != b->opened || a->events != b->events || a->hash != b->hash ||
	    a->rc != b->rc || a->err.code != b->err.code)
		fuzz_fail("%s differ: opened %d/%d events %llu/%llu rc %d/%d err '%s' / '%s'", what,
			  a->opened, b->opened, (unsigned long long)a->events,
			  (unsigned long long)b->events, a->rc, b->rc, a->err.msg, b->err.msg);
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
		     struct pa_thread *t, const struct pa_addr_loc *loc)
{
	uint64_t *h = ctx;
	(void)s;
	(void)ev;
	*h += fuzz_touch_str(pa_thread_comm(t)) + loc->addr;
	if (loc->dso)
		*h += fuzz_touch_str(loc->dso->long_name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file ff;
	struct trace mapped, readbuf, piped;
	if (fuzz_file_open(&ff, data, size))
		return 0;
	run(ff.path, false, &mapped);
	run(ff.path, true, &readbuf);
	differ(&mapped, &readbuf, "mmap and read()");

	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(ff.path, NULL, &err);
	struct pa_session_opts so = {.sz = sizeof(so)};
	struct pa_session *s = f ? pa_session_new(f, &so, &err) : NULL;
	uint64_t h = 0;
	if (s)
		pa_session_process(s, on_sample, &h, &err);
	pa_session_free(s);
	pa_file_close(f);
	fuzz_file_close(&ff);

	if (size <= 65536 && fuzz_pipe_open(&ff, data, size) == 0) {
		run(ff.path, false, &piped);
		fuzz_file_close(&ff);
		if (mapped.opened && pa_syscap_magic(data, size))
			differ(&mapped, &piped, "file and pipe");
	}
	fuzz_sink += mapped.touched + readbuf.touched + h;
	return 0;
}
