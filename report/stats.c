/* stats.c - perf report --stats: how many records of each type the file
 * holds (perf's events_stats: TOTAL, then each type perf 6.1 names that
 * occurs, with its share of the total), then each event's samples and
 * lost samples. The counts are the reader's (pa_file_count), taken as the
 * session reads the whole file; nothing is resolved. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Per event (by evsel idx; a pipe's events come as records). */
struct ev_counts {
	uint64_t samples, lost;
};

struct stats_ctx {
	struct ev_counts *ev;
	size_t cap;
};

/* The counts of event e, made when new: NULL without an event, or (with
 * *nomem) without memory. */
static struct ev_counts *counts_of(struct stats_ctx *c, const struct pa_evsel *e, int *nomem)
{
	if (!e)
		return NULL;
	size_t old = c->cap;
	if (PA_GROW(c->ev, c->cap, (size_t)e->idx + 1, 8)) {
		*nomem = -ENOMEM;
		return NULL;
	}
	memset(c->ev + old, 0, (c->cap - old) * sizeof(*c->ev));
	return &c->ev[e->idx];
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
                     struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)s, (void)t, (void)loc;
	int nomem = 0;
	struct ev_counts *n = counts_of(ctx, ev->evsel, &nomem);
	if (n)
		n->samples++;
	return nomem;
}

static int on_lost(void *ctx, struct pa_session *s, const struct pa_event *ev, struct pa_thread *t)
{
	(void)s, (void)t;
	int nomem = 0;
	struct ev_counts *n = counts_of(ctx, ev->evsel, &nomem);
	if (n)
		n->lost += ev->u.lost_samples.lost;
	return nomem;
}

/* perf 6.1's name of a record type: the reader's without "HEADER_" (ATTR,
 * BUILD_ID); NULL for the types it has no name for (it counts them in
 * TOTAL, not apart). */
static const char *perf_name(uint32_t t)
{
	bool known = (t >= PA_REC_MMAP && t <= PA_REC_AUX_OUTPUT_HW_ID) ||
	             (t >= PA_REC_HEADER_ATTR && t <= PA_REC_FINISHED_INIT);
	const char *n = known ? pa_rec_type_name(t) : NULL;
	return n && !strncmp(n, "HEADER_", 7) ? n + 7 : n;
}

static void print_stats(struct pa_file *f, const struct stats_ctx *c, FILE *out)
{
	uint64_t total = pa_file_unknown_count(f);
	for (uint32_t t = 0; t < PA_REC_USER_MAX; t++)
		total += pa_file_count(f, t);
	fprintf(out, "\nAggregated stats:\n");
	fprintf(out, "%16s events: %10u\n", "TOTAL", (unsigned)total);
	for (uint32_t t = 0; t < PA_REC_USER_MAX; t++) {
		uint64_t n = pa_file_count(f, t);
		if (!n || !perf_name(t))
			continue;
		fprintf(out, "%16s events: %10u  (%4.1f%%)\n", perf_name(t), (unsigned)n,
		        100.0 * (double)n / (double)total);
	}
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++) {
		uint64_t ns = i < c->cap ? c->ev[i].samples : 0,
		         nl = i < c->cap ? c->ev[i].lost : 0;
		if (!ns && !nl)
			continue;
		char name[128];
		fprintf(out, "%s stats:\n", pa_evsel_name(pa_file_evsel(f, i), name, sizeof(name)));
		if (ns)
			fprintf(out, "%16s events: %10u\n", "SAMPLE", (unsigned)ns);
		if (nl)
			fprintf(out, "%16s events: %10u\n", "LOST_SAMPLES", (unsigned)nl);
	}
}

int pa_report_stats(struct pa_session *s, FILE *out, struct pa_err *err)
{
	struct stats_ctx c = {0};
	pa_session_set_side_fn(s, 1ull << PA_REC_LOST_SAMPLES, on_lost, &c);
	int ret = pa_session_process(s, on_sample, &c, err);
	if (!ret)
		print_stats(pa_session_file(s), &c, out);
	free(c.ev);
	return ret;
}
