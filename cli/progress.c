/* progress.c - one line on stderr that says how far long work is, as
 * perf's "Processing events" bar: redrawn in place at most ten times a
 * second, only once the work has taken a second, and erased when done
 * (before the command's output or its pager starts). Never when stderr
 * is not a terminal, with --quiet, or when the command's text goes to
 * stdout and stdout is not that terminal (redirected, or a pager's pipe). */
#include "cli.h"
#include "session/session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_NS (100 * 1000000ull)
#define DELAY_NS  (1000 * 1000000ull)

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pa_progress_init(struct pa_progress *p, const char *what, bool quiet, bool text_on_stdout)
{
	*p = (struct pa_progress){.what = what};
	const char *env = getenv("PA_PROGRESS");
	if (quiet || !isatty(STDERR_FILENO) || (text_on_stdout && !isatty(STDOUT_FILENO)) ||
	    (env && !strcmp(env, "0")))
		return;
	p->on = true;
	p->start = now_ns();
	/* PA_PROGRESS_DELAY_MS: how long work runs unseen (tests use 0) */
	const char *delay = getenv("PA_PROGRESS_DELAY_MS");
	p->delay = delay && *delay ? strtoull(delay, NULL, 10) * 1000000ull : DELAY_NS;
}

/* Is it time to draw (always when forced, once shown)? */
static bool due(struct pa_progress *p, bool force)
{
	if (!p->on)
		return false;
	uint64_t t = now_ns();
	if (t - p->start < p->delay || (!force && t < p->next))
		return false;
	p->next = t + REDRAW_NS;
	return true;
}

void pa_progress_bytes(struct pa_progress *p, uint64_t done, uint64_t total, uint64_t samples,
                       bool last)
{
	if (!due(p, last && p->shown))
		return;
	char a[32], b[32];
	if (last && total) /* (the file may end with more than events) */
		done = total;
	fprintf(stderr, "\r%s: %s", p->what, pa_fmt_size(a, done));
	if (total && done <= total)
		fprintf(stderr, " of %s (%" PRIu64 "%%)", pa_fmt_size(b, total),
		        done * 100 / total);
	fprintf(stderr, ", %" PRIu64 " samples%s%s\033[K", samples, last && p->then ? ", " : "",
	        last && p->then ? p->then : "");
	fflush(stderr);
	p->shown = true;
}

void pa_progress_items(struct pa_progress *p, uint64_t done, uint64_t total, const char *unit)
{
	if (!due(p, done == total && p->shown))
		return;
	if (total)
		fprintf(stderr, "\r%s: %" PRIu64 " of %" PRIu64 " %s\033[K", p->what, done, total,
		        unit);
	else
		fprintf(stderr, "\r%s: %" PRIu64 " %s\033[K", p->what, done, unit);
	fflush(stderr);
	p->shown = true;
}

void pa_progress_clear(struct pa_progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
	p->next = 0;
}

void pa_progress_end(struct pa_progress *p)
{
	pa_progress_clear(p);
	p->on = false;
}

/* pa_session_opts.progress: the input read of the file's size */
static void session_progress(void *ctx, uint64_t pos, uint64_t samples, bool done)
{
	struct pa_progress *p = ctx;
	pa_progress_bytes(p, pos, p->total, samples, done);
}

void pa_progress_session(struct pa_progress *p, struct pa_file *f, struct pa_session_opts *so)
{
	if (!p || !p->on)
		return;
	const struct pa_file_layout *l = pa_file_layout(f);
	p->total = l ? l->file_size : 0;
	so->progress = session_progress;
	so->progress_ctx = p;
}
