/* fuzz_common.c - see fuzz_common.h. */
#include "fuzz_common.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

volatile uint64_t fuzz_sink;

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fuzz: invariant failed: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

int fuzz_file_open(struct fuzz_file *ff, const void *data, size_t size)
{
	ff->fd = -1;
	ff->unlink_on_close = 0;
	ff->saved_stdin = -1;
#ifdef MFD_CLOEXEC
	static int memfd_works = -1; /* -1 unknown, 0 no, 1 yes */
	if (memfd_works != 0) {
		int fd = memfd_create("pa-fuzz", MFD_CLOEXEC);
		if (fd >= 0) {
			snprintf(ff->path, sizeof(ff->path), "/proc/self/fd/%d", fd);
			if (pa_write_all(fd, data, size) == 0 && access(ff->path, R_OK) == 0) {
				memfd_works = 1;
				ff->fd = fd;
				return 0;
			}
			close(fd);
		}
		memfd_works = 0;
	}
#endif
	snprintf(ff->path, sizeof(ff->path), "%s/pa-fuzz-XXXXXX", tmp_dir());
	int fd = mkstemp(ff->path);
	if (fd < 0)
		return -1;
	if (pa_write_all(fd, data, size)) {
		close(fd);
		unlink(ff->path);
		return -1;
	}
	ff->fd = fd;
	ff->unlink_on_close = 1;
	return 0;
}

int fuzz_pipe_open(struct fuzz_file *ff, const void *data, size_t size)
{
	int p[2];
	ff->fd = -1;
	ff->unlink_on_close = 0;
	ff->saved_stdin = -1;
	if (pipe2(p, O_CLOEXEC))
		return -1;
#ifdef F_SETPIPE_SZ
	if (size > 65536)
		(void)fcntl(p[1], F_SETPIPE_SZ, size < (1u << 20) ? (int)size : 1 << 20);
#endif
	int cap = 65536;
#ifdef F_GETPIPE_SZ
	int c = fcntl(p[1], F_GETPIPE_SZ);
	if (c > 0)
		cap = c;
#endif
	if (size > (size_t)cap)
		size = (size_t)cap;
	int w = pa_write_all(p[1], data, size);
	close(p[1]);
	/* Opening a pipe by name waits for a writer: hand it over as standard
	 * input ("-"), the way a user pipes a recording into pa. */
	ff->saved_stdin = w ? -1 : dup(0);
	if (w || ff->saved_stdin < 0 || dup2(p[0], 0) < 0) {
		if (ff->saved_stdin >= 0)
			close(ff->saved_stdin);
		ff->saved_stdin = -1;
		close(p[0]);
		return -1;
	}
	close(p[0]);
	snprintf(ff->path, sizeof(ff->path), "-");
	return 0;
}

void fuzz_file_close(struct fuzz_file *ff)
{
	if (ff->saved_stdin >= 0) {
		dup2(ff->saved_stdin, 0);
		close(ff->saved_stdin);
		ff->saved_stdin = -1;
	}
	if (ff->fd >= 0)
		close(ff->fd);
	if (ff->unlink_on_close)
		unlink(ff->path);
	ff->fd = -1;
}

static char empty_dir[256];

/* The directory must still be empty at exit (nothing may write there), so
 * rmdir and not a recursive removal. */
static void remove_empty_dir(void)
{
	rmdir(empty_dir);
}

const char *fuzz_empty_dir(void)
{
	if (!empty_dir[0]) {
		snprintf(empty_dir, sizeof(empty_dir), "%s/pa-fuzz-empty-XXXXXX", tmp_dir());
		if (mkdtemp(empty_dir))
			atexit(remove_empty_dir);
		else
			snprintf(empty_dir, sizeof(empty_dir), "/nonexistent/pa-fuzz");
	}
	return empty_dir;
}

FILE *fuzz_devnull(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

uint64_t fuzz_touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = n;
	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		h = h * 31 + b[i];
	return h;
}

uint64_t fuzz_touch_str(const char *s)
{
	return s ? fuzz_touch(s, strlen(s) + 1) : 0;
}

uint64_t fuzz_touch_event(const struct pa_event *ev)
{
	const struct pa_sample *s = &ev->sample;
	uint64_t h = ev->type ^ ev->size ^ ev->offset;
	h += fuzz_touch(s->callchain, s->callchain ? s->callchain_nr * 8 : 0);
	h += fuzz_touch(s->raw, s->raw ? s->raw_size : 0);
	if (s->branch.entries)
		h += fuzz_touch(s->branch.entries, s->branch.nr * 24);
	if (s->branch.counters)
		h += fuzz_touch(s->branch.counters, s->branch.nr * 8);
	h += fuzz_touch(s->user_regs.regs, s->user_regs.regs ? s->user_regs.nr * 8u : 0);
	h += fuzz_touch(s->intr_regs.regs, s->intr_regs.regs ? s->intr_regs.nr * 8u : 0);
	h += fuzz_touch(s->user_stack.data, s->user_stack.data ? s->user_stack.size : 0);
	h += fuzz_touch(s->read.values, s->read.values ? s->read.nr_values * 8u : 0);
	h += fuzz_touch(s->aux.data, s->aux.data ? s->aux.size : 0);
	if (ev->evsel)
		h += ev->evsel->idx + fuzz_touch_str(ev->evsel->name) +
		     fuzz_touch(ev->evsel->ids, ev->evsel->nr_ids * 8u);
	switch (ev->type) {
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		h += fuzz_touch_str(ev->u.mmap.filename);
		break;
	case PA_REC_COMM:
		h += fuzz_touch_str(ev->u.comm.comm);
		break;
	case PA_REC_KSYMBOL:
		h += fuzz_touch_str(ev->u.ksymbol.name);
		break;
	case PA_REC_CGROUP:
		h += fuzz_touch_str(ev->u.cgroup.path);
		break;
	case PA_REC_HEADER_BUILD_ID:
		h += fuzz_touch_str(ev->u.build_id.filename);
		break;
	case PA_REC_HEADER_ATTR:
		if (ev->u.header_attr.evsel)
			h += fuzz_touch(ev->u.header_attr.evsel->ids,
					ev->u.header_attr.evsel->nr_ids * 8u);
		break;
	case PA_REC_CALLCHAIN_DEFERRED:
		if (ev->u.callchain_deferred.ips)
			h += fuzz_touch(ev->u.callchain_deferred.ips,
					ev->u.callchain_deferred.nr * 8);
		break;
	default:
		break;
	}
	return h;
}
