/* readahead.c - a mapped input's next megabytes mapped in on a second CPU.
 *
 * The kernel's work for a mapped file is per page, on its first touch.
 * Where the page cache holds the file in small folios, as perf's own
 * writes leave a --call-graph dwarf recording, that is most of a pass
 * that reads only the records' headers (101 MB: some 13 ms of page
 * faults). A helper thread touches a page (PA_AHEAD_PAGES) of the window
 * ahead of the reader, so the reader finds them mapped.
 *
 * Or every line (PA_AHEAD_LINES), for records of a few hundred bytes
 * (call chains): the reader walks them by their sizes, one dependent load
 * after another, and each one's first line would be a miss to memory.
 *
 * The helper sleeps when it is a window ahead; the reader wakes it once
 * per STEP of its progress.
 */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

/* (a millisecond of the reader at least; the pages it maps count in the
 * process's resident memory) */
#define WINDOW (4u << 20)
#define STEP   (256u << 10)

struct pa_readahead {
	const uint8_t *map;
	size_t len;
	size_t unit; /* bytes between two touches */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu: */
	size_t pos;  /* the reader's */
	size_t done; /* touched below this (from pos) */
	bool stop;
	pthread_t th;
};

/* The next window's step under ra->mu, touched without it; false when
 * there is none. */
static bool ahead_work(struct pa_readahead *ra)
{
	if (ra->stop)
		return false;
	if (ra->done < ra->pos)
		ra->done = ra->pos & ~(ra->unit - 1);
	size_t limit = ra->len - ra->pos > WINDOW ? ra->pos + WINDOW : ra->len;
	if (ra->done >= limit)
		return false;
	size_t from = ra->done, to = limit - from > STEP ? from + STEP : limit;
	pthread_mutex_unlock(&ra->mu);
	const volatile uint8_t *m = ra->map; /* (so that the loads are made) */
	for (size_t at = from; at < to; at += ra->unit)
		(void)m[at];
	pthread_mutex_lock(&ra->mu);
	if (ra->done < to)
		ra->done = to;
	return true;
}

static void *ahead_main(void *arg)
{
	struct pa_readahead *ra = arg;
	pthread_mutex_lock(&ra->mu);
	for (;;) {
		if (ahead_work(ra))
			continue;
		if (ra->stop)
			break;
		pthread_cond_wait(&ra->cv, &ra->mu);
	}
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

struct pa_readahead *pa_readahead_start(const uint8_t *map, size_t len, enum pa_ahead touch,
                                        size_t pos)
{
	struct pa_readahead *ra = calloc(1, sizeof(*ra));
	if (!ra)
		return NULL;
	ra->map = map;
	ra->len = len;
	ra->unit = touch == PA_AHEAD_LINES ? 64 : 4096;
	ra->pos = pos;
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->th, NULL, ahead_main, ra)) {
		pthread_cond_destroy(&ra->cv);
		pthread_mutex_destroy(&ra->mu);
		free(ra);
		return NULL;
	}
	return ra;
}

size_t pa_readahead_at(struct pa_readahead *ra, size_t pos)
{
	pthread_mutex_lock(&ra->mu);
	ra->pos = pos;
	pthread_cond_signal(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return pos + STEP;
}

void pa_readahead_stop(struct pa_readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = true;
	pthread_cond_signal(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->th, NULL);
	pthread_cond_destroy(&ra->cv);
	pthread_mutex_destroy(&ra->mu);
	free(ra);
}
