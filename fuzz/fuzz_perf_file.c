/* fuzz_perf_file.c - perf.data through pa_file_open()/pa_file_next(), as a
 * regular file: once mapped (zero copy) and once read through the buffer
 * (opts.no_mmap). Both must give the same events and the same error (a
 * differential check), every pointer in every event must be readable, and
 * the header printer (`pa header`) must cope with whatever was parsed.
 */
#include "fuzz_common.h"

#include <string.h>

int pa_print_header(FILE *out, struct pa_file *f); /* cli/cmd-header.c */

struct trace {
	uint64_t events, hash, touched;
	int opened, rc;
	struct pa_err err;
	bool truncated;
};

static void run(const char *path, bool no_mmap, bool containers, struct trace *t)
{
	struct pa_file_opts o = PA_OPTS_INIT(pa_file_opts, .no_mmap = no_mmap,
					     .show_containers = containers);
	struct pa_err err = {0};
	memset(t, 0, sizeof(*t));
	struct pa_file *f = pa_file_open(path, &o, &err);
	if (!f) {
		t->err = err;
		if (err.code >= 0)
			fuzz_fail("pa_file_open failed with code %d", err.code);
		return;
	}
	t->opened = 1;
	if (pa_file_mode(f) == PA_FILE_MODE_FILE && !no_mmap && !containers)
		pa_print_header(fuzz_devnull(), f);
	struct pa_event ev;
	int r;
	/* A file of n bytes holds at most n / 8 records; allow for the ones
	 * that come out of compressed data (bounded by the window). */
	while ((r = pa_file_next(f, &ev, &err)) > 0) {
		t->events++;
		t->hash = t->hash * 1000003u + (ev.type ^ ((uint64_t)ev.size << 32) ^ ev.offset ^
					       (ev.dec_offset << 20) ^ ev.misc);
		t->touched += fuzz_touch_event(&ev);
		if (ev.size < 8)
			fuzz_fail("event of size %u", ev.size);
	}
	t->rc = r;
	if (r < 0) {
		t->err = err;
		if (!err.msg[0])
			fuzz_fail("error %d without a message", r);
	}
	t->truncated = pa_file_was_truncated(f);
	const struct pa_header_info *h = pa_file_header(f);
	for (uint32_t i = 0; i < h->nr_buildids; i++)
		t->touched += fuzz_touch_str(h->buildids[i].filename);
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++)
		t->touched += fuzz_touch_str(pa_file_evsel(f, i)->name);
	pa_file_close(f);
}

static void same(const struct trace *a, const struct trace *b, const char *what)
{
	if (a->opened != b->opened || a->events != b->events || a->hash != b->hash ||
	    a->rc != b->rc || a->truncated != b->truncated || a->err.code != b->err.code ||
	    a->err.has_offset != b->err.has_offset || a->err.offset != b->err.offset)
		fuzz_fail("%s differ: opened %d/%d events %llu/%llu rc %d/%d err '%s'@%llu / '%s'@%llu",
			  what, a->opened, b->opened, (unsigned long long)a->events,
			  (unsigned long long)b->events, a->rc, b->rc, a->err.msg,
			  (unsigned long long)a->err.offset, b->err.msg,
			  (unsigned long long)b->err.offset);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file ff;
	if (fuzz_file_open(&ff, data, size))
		return 0;
	struct trace mapped, readbuf, containers;
	run(ff.path, false, false, &mapped);
	run(ff.path, true, false, &readbuf);
	same(&mapped, &readbuf, "mmap and read()");
	run(ff.path, false, true, &containers);
	if (containers.rc != mapped.rc || containers.err.code != mapped.err.code ||
	    containers.events < mapped.events)
		fuzz_fail("show_containers changed the outcome");
	fuzz_sink += mapped.touched + readbuf.touched + containers.touched;
	fuzz_file_close(&ff);
	return 0;
}
