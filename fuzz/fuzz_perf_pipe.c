/* fuzz_perf_pipe.c - a pipe-mode stream (`perf record -o - | pa dump -i -`)
 * read through a real pipe on standard input: no size, no mmap, records
 * arrive through the read buffer, zstd COMPRESSED records are inflated
 * through the bounded window. Then the same bytes as a regular file, which
 * must give the same events (a differential check).
 */
#include "fuzz_common.h"

#include <string.h>

int pa_print_header(FILE *out, struct pa_file *f); /* cli/cmd-header.c */

struct trace {
	uint64_t events, hash, touched;
	int opened, rc;
	struct pa_err err;
	bool pipe;
};

static void run(const char *path, struct trace *t)
{
	struct pa_err err = {0};
	memset(t, 0, sizeof(*t));
	struct pa_file *f = pa_file_open(path, NULL, &err);
	if (!f) {
		t->err = err;
		if (err.code >= 0)
			fuzz_fail("pa_file_open failed with code %d", err.code);
		return;
	}
	t->opened = 1;
	t->pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;
	struct pa_event ev;
	int r;
	while ((r = pa_file_next(f, &ev, &err)) > 0) {
		t->events++;
		t->hash = t->hash * 1000003u + (ev.type ^ ((uint64_t)ev.size << 32) ^ ev.offset ^
					       (ev.dec_offset << 20) ^ ev.misc);
		t->touched += fuzz_touch_event(&ev);
	}
	t->rc = r;
	if (r < 0) {
		t->err = err;
		if (!err.msg[0])
			fuzz_fail("error %d without a message", r);
	}
	if (r == 0 && t->pipe) /* what `pa header -i -` prints after the stream */
		pa_print_header(fuzz_devnull(), f);
	pa_file_close(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file ff;
	struct trace piped, regular;
	if (size > 65536)
		return 0; /* what fits in a default pipe buffer */
	if (fuzz_pipe_open(&ff, data, size))
		return 0;
	run(ff.path, &piped);
	fuzz_file_close(&ff);
	if (fuzz_file_open(&ff, data, size))
		return 0;
	run(ff.path, &regular);
	fuzz_file_close(&ff);
	/* A file-mode header cannot be read from a pipe: only pipe-mode
	 * streams are comparable. Where the data is bad, the two may stop at
	 * different places (a file knows its size before reading a record, a
	 * pipe finds out after: it may deliver the record whose payload is
	 * then cut short), but both must fail; where it is good, they must
	 * give the same events. */
	if (piped.opened && regular.opened && regular.pipe &&
	    ((piped.rc < 0) != (regular.rc < 0) ||
	     (piped.rc == 0 && (piped.events != regular.events || piped.hash != regular.hash))))
		fuzz_fail("pipe and file differ: events %llu/%llu rc %d/%d err '%s'@%llu / '%s'@%llu",
			  (unsigned long long)piped.events, (unsigned long long)regular.events,
			  piped.rc, regular.rc, piped.err.msg, (unsigned long long)piped.err.offset,
			  regular.err.msg, (unsigned long long)regular.err.offset);
	fuzz_sink += piped.touched + regular.touched;
	return 0;
}
