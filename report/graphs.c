/* graphs.c - the call graphs of a report's rows, made on two CPUs.
 *
 * Printing a row's call graph is mostly making it (its chains split level
 * by level, pa_cg_render_chain), and each row's is made from what the
 * report finished before printing: a second thread makes the graphs of the
 * rows ahead while the printer writes them, in row order. A row's graph is
 * made by whichever thread claims it first: both claim the first row no one
 * has, the printer whenever the row it is at is not made yet (rather than
 * wait while the helper makes it), and neither goes more than AHEAD rows
 * past the printer, so the graphs waiting in memory stay few. (A small
 * recording's default report spent a third of its time making graphs:
 * bench/README.md.)
 *
 * Without a second CPU, with --no-threads, or when making a graph looks
 * things up as it goes (pa_cg_render_shareable), every graph is made on
 * the printer's thread when its row comes.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define AHEAD 16

struct slot {
	char *buf;
	size_t len;
	int ret;
	bool done;
};

struct pa_graphs {
	struct pa_report *r;
	const struct pa_graph_job *jobs;
	size_t n;
	uint64_t total;
	struct slot *slots;
	/* with a helper: next = the first row no one has claimed, taken = the
	 * rows the printer has taken (both under mu) */
	bool threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next, taken;
	bool stop;
};

static void render(struct pa_graphs *g, size_t i, struct slot *s)
{
	const struct pa_graph_job *j = &g->jobs[i];
	s->ret = pa_cg_render_chain(g->r, j->e, g->total, j->parent, &s->buf, &s->len);
}

static void *helper(void *arg)
{
	struct pa_graphs *g = arg;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->stop && g->next < g->n && g->next >= g->taken + AHEAD)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop || g->next >= g->n)
			break;
		size_t i = g->next++;
		pthread_mutex_unlock(&g->mu);
		struct slot s = {0};
		render(g, i, &s);
		pthread_mutex_lock(&g->mu);
		s.done = true;
		g->slots[i] = s;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

struct pa_graphs *pa_graphs_start(struct pa_report *r, const struct pa_graph_job *jobs, size_t n,
                                  uint64_t total)
{
	struct pa_graphs *g = calloc(1, sizeof(*g));
	struct slot *slots = calloc(n + 1, sizeof(*slots));
	if (!g || !slots) {
		free(slots);
		free(g);
		return NULL;
	}
	*g = (struct pa_graphs){.r = r, .jobs = jobs, .n = n, .total = total, .slots = slots};
	if (n < 2 || r->opts.no_threads || !pa_cg_render_shareable(r) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return g;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->threaded = !pthread_create(&g->th, NULL, helper, g);
	if (!g->threaded) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
	return g;
}

/* The printer's turn at row i (not made yet), under mu: true when it made
 * a graph (row i's or, while the helper makes row i's, the next unclaimed
 * row's within AHEAD: the largest graphs often come first, one after
 * another), false when there is nothing for it to do but wait. */
static bool printer_makes_one(struct pa_graphs *g, size_t i)
{
	if (g->next >= g->n || g->next >= i + AHEAD)
		return false;
	size_t j = g->next++;
	pthread_mutex_unlock(&g->mu);
	struct slot s = {0};
	render(g, j, &s);
	pthread_mutex_lock(&g->mu);
	s.done = true;
	g->slots[j] = s;
	pthread_cond_broadcast(&g->cv);
	return true;
}

int pa_graphs_take(struct pa_graphs *g, size_t i, char **buf, size_t *len)
{
	struct slot *s = &g->slots[i];
	if (!g->threaded) {
		render(g, i, s);
	} else {
		pthread_mutex_lock(&g->mu);
		while (!s->done)
			if (!printer_makes_one(g, i))
				pthread_cond_wait(&g->cv, &g->mu);
		g->taken = i + 1;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	*buf = s->buf;
	*len = s->len;
	s->buf = NULL;
	return s->ret;
}

void pa_graphs_stop(struct pa_graphs *g)
{
	if (!g)
		return;
	if (g->threaded) {
		pthread_mutex_lock(&g->mu);
		g->stop = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->th, NULL);
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
	for (size_t i = 0; i < g->n; i++)
		free(g->slots[i].buf);
	free(g->slots);
	free(g);
}
