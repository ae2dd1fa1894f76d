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
struct stats_ctx {
	uint64_t *samples, *lost;
	size_t cap;
};

static int slot(struct stats_ctx *c, const struct pa_evsel *e)
{
	if (!e)
		return -1;
	size_t need = (size_t)e->idx + 1, cap = c->cap ? c->cap : 8;
	if (need <= c->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	uint64_t *a = realloc(c->samples, cap * sizeof(*a));
	if (a)
		c->samples = a;
	uint64_t *b = a ? realloc(c->lost, cap * sizeof(*b)) : NULL;
	if (!b)
		return -ENOMEM;
	c->lost = b;
	memset(a + c->cap, 0, (cap - c->cap) * sizeof(*a));
	memset(b + c->cap, 0, (cap - c->cap) * sizeof(*b));
	c->cap = cap;
	return 0;
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
                     struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)s, (void)t, (void)loc;
	struct stats_ctx *c = ctx;
	int r = slot(c, ev->evsel);
	if (!r)
		c->samples[ev->evsel->idx]++;
	return r < 0 ? r : 0;
}

static int on_lost(void *ctx, struct pa_session *s, const struct pa_event *ev, struct pa_thread *t)
{
	(void)s, (void)t;
	struct stats_ctx *c = ctx;
	int r = slot(c, ev->evsel);
	if (!r)
		c->lost[ev->evsel->idx] += ev->u.lost_samples.lost;
	return r < 0 ? r : 0;
}

/* The record types perf 6.1 has names for (others it counts in TOTAL
 * but does not list). */
static bool perf_names(uint32_t t)
{
	return (t >= PA_REC_MMAP && t <= PA_REC_AUX_OUTPUT_HW_ID) ||
	       (t >= PA_REC_HEADER_ATTR && t <= PA_REC_FINISHED_INIT);
}

/* perf's name of a type: the reader's without "HEADER_" (ATTR, BUILD_ID) */
static const char *perf_name(uint32_t t)
{
	const char *n = pa_rec_type_name(t);
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
		if (!n || !perf_names(t) || !perf_name(t))
			continue;
		fprintf(out, "%16s events: %10u  (%4.1f%%)\n", perf_name(t), (unsigned)n,
		        100.0 * (double)n / (double)total);
	}
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++) {
		uint64_t ns = i < c->cap ? c->samples[i] : 0, nl = i < c->cap ? c->lost[i] : 0;
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
	if (ret == -ENOMEM)
		pa_err_set(err, ret, "out of memory");
	if (!ret)
		print_stats(pa_session_file(s), &c, out);
	free(c.samples);
	free(c.lost);
	return ret;
}
