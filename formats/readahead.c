/* readahead.c - a mapped input's next megabytes touched on a second CPU.
 *
 * The reader walks records by their sizes, one dependent load after
 * another: where records are large (a call chain of a hundred frames is
 * a kilobyte), each one's first line is a miss to memory, and the first
 * touch of each page a fault. A helper thread touches every line of the
 * window ahead of the reader (independent loads, as fast as memory
 * gives them), so the reader finds its lines in the shared cache and its
 * pages mapped. It sleeps while it is a window ahead, and ends at the end
 * of the mapping or at stop.
 */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* (a millisecond of the reader at least; the pages it maps count in the
 * process's resident memory) */
#define WINDOW (4u << 20)
#define STEP   (256u << 10)

struct pa_readahead {
	const uint8_t *map;
	size_t len;
	_Atomic size_t pos; /* the reader's */
	atomic_bool stop;
	pthread_t th;
};

static void *ahead_main(void *arg)
{
	struct pa_readahead *ra = arg;
	const volatile uint8_t *m = ra->map; /* (so that the loads are made) */
	size_t done = 0;
	while (!atomic_load_explicit(&ra->stop, memory_order_relaxed)) {
		size_t pos = atomic_load_explicit(&ra->pos, memory_order_relaxed);
		if (done < pos)
			done = pos & ~(size_t)63;
		size_t limit = ra->len - pos > WINDOW ? pos + WINDOW : ra->len;
		if (done >= limit) {
			if (limit == ra->len)
				break;
			nanosleep(&(struct timespec){0, 50000}, NULL);
			continue;
		}
		size_t end = limit - done > STEP ? done + STEP : limit;
		for (; done < end; done += 64)
			(void)m[done];
	}
	return NULL;
}

struct pa_readahead *pa_readahead_start(const uint8_t *map, size_t len)
{
	struct pa_readahead *ra = calloc(1, sizeof(*ra));
	if (!ra)
		return NULL;
	ra->map = map;
	ra->len = len;
	atomic_init(&ra->pos, 0);
	atomic_init(&ra->stop, false);
	if (pthread_create(&ra->th, NULL, ahead_main, ra)) {
		free(ra);
		return NULL;
	}
	return ra;
}

void pa_readahead_at(struct pa_readahead *ra, size_t pos)
{
	atomic_store_explicit(&ra->pos, pos, memory_order_relaxed);
}

void pa_readahead_stop(struct pa_readahead *ra)
{
	if (!ra)
		return;
	atomic_store_explicit(&ra->stop, true, memory_order_relaxed);
	pthread_join(ra->th, NULL);
	free(ra);
}
