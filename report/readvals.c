/* readvals.c - perf report -T: the values of the READ records (a thread's
 * counts when it exits, perf record -s) summed by thread and event, and
 * printed after the report as perf's perf_read_values table: threads and
 * events in the order they first come, PID and TID columns at least 3
 * wide, an event's column as wide as its name or its largest value. (A
 * pipe's events come as records: the table grows with them.) */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct rv_thread {
	uint32_t pid, tid;
};

struct pa_readvals {
	struct rv_thread *threads;
	size_t nthreads, cap;
	struct pa_u64map by_thread; /* pid << 32 | tid -> index + 1 */
	struct pa_u64map by_evsel;  /* evsel idx -> column + 1 */
	const struct pa_evsel **cols;
	unsigned ncols, width; /* columns, and the room of a row */
	uint64_t *val;         /* nthreads rows of width values */
};

static int add_thread(struct pa_readvals *v, uint32_t pid, uint32_t tid, size_t *row)
{
	int created;
	void **slot = pa_u64map_slot(&v->by_thread, (uint64_t)pid << 32 | tid, &created);
	if (!slot)
		return -ENOMEM;
	if (!created) {
		*row = (size_t)(uintptr_t)*slot - 1;
		return 0;
	}
	if (v->nthreads == v->cap) {
		/* (the threads' room first: v->cap grows once the values' has) */
		size_t cap = v->cap;
		if (PA_GROW(v->threads, cap, v->nthreads + 1, 16))
			return -ENOMEM;
		uint64_t *val = realloc(v->val, (cap * v->width + 1) * sizeof(*val));
		if (!val)
			return -ENOMEM;
		v->val = val;
		v->cap = cap;
	}
	*row = v->nthreads++;
	v->threads[*row] = (struct rv_thread){pid, tid};
	memset(v->val + *row * v->width, 0, v->width * sizeof(*v->val));
	*slot = (void *)(uintptr_t)(*row + 1);
	return 0;
}

/* A column for the event, the rows widened when they have no room. */
static int add_column(struct pa_readvals *v, const struct pa_evsel *e, unsigned *col)
{
	int created;
	void **slot = pa_u64map_slot(&v->by_evsel, e->idx, &created);
	if (!slot)
		return -ENOMEM;
	if (!created) {
		*col = (unsigned)(uintptr_t)*slot - 1;
		return 0;
	}
	if (v->ncols == v->width) {
		unsigned width = v->width * 2;
		const struct pa_evsel **cols = realloc(v->cols, width * sizeof(*cols));
		if (cols)
			v->cols = cols;
		uint64_t *val = cols ? calloc(v->cap * width + 1, sizeof(*val)) : NULL;
		if (!val)
			return -ENOMEM;
		for (size_t i = 0; i < v->nthreads; i++)
			memcpy(val + i * width, v->val + i * v->width, v->width * sizeof(*val));
		free(v->val);
		v->val = val;
		v->width = width;
	}
	*col = v->ncols++;
	v->cols[*col] = e;
	*slot = (void *)(uintptr_t)(*col + 1);
	return 0;
}

static int on_read(void *ctx, struct pa_session *s, const struct pa_event *ev, struct pa_thread *t)
{
	(void)s, (void)t;
	struct pa_readvals *v = ctx;
	if (!ev->evsel || !ev->sample.read.nr_values)
		return 0;
	size_t row;
	unsigned col;
	if (add_column(v, ev->evsel, &col) || add_thread(v, ev->u.read.pid, ev->u.read.tid, &row))
		return -ENOMEM;
	/* perf's event->read.value: the record's first value (a group's:
	 * its count of members) */
	v->val[row * v->width + col] += ev->sample.read.values[0];
	return 0;
}

int pa_readvals_start(struct pa_report *r)
{
	struct pa_readvals *v = calloc(1, sizeof(*v));
	r->rv = v;
	if (!v || !(v->cols = malloc(4 * sizeof(*v->cols))) || !(v->val = malloc(sizeof(*v->val))))
		return -ENOMEM;
	v->width = 4;
	pa_session_set_side_fn(r->session, 1ull << PA_REC_READ, on_read, v);
	return 0;
}

int pa_readvals_print(const struct pa_report *r, FILE *out)
{
	const struct pa_readvals *v = r->rv;
	if (!v)
		return 0;
	unsigned nc = v->ncols;
	char(*names)[128] = malloc((nc + 1) * sizeof(*names));
	int *w = malloc((nc + 1) * sizeof(*w)), pidw = 3, tidw = 3;
	int ret = -ENOMEM;
	if (!names || !w)
		goto out;
	for (unsigned c = 0; c < nc; c++) {
		char buf[128];
		w[c] = snprintf(names[c], sizeof(names[c]), "%s",
		                pa_evsel_name(v->cols[c], buf, sizeof(buf)));
	}
	for (size_t i = 0; i < v->nthreads; i++) {
		int pw = snprintf(NULL, 0, "%d", (int)v->threads[i].pid);
		int tw = snprintf(NULL, 0, "%d", (int)v->threads[i].tid);
		pidw = pw > pidw ? pw : pidw;
		tidw = tw > tidw ? tw : tidw;
		for (unsigned c = 0; c < nc; c++) {
			int d = snprintf(NULL, 0, "%" PRIu64, v->val[i * v->width + c]);
			w[c] = d > w[c] ? d : w[c];
		}
	}
	fprintf(out, "# %*s  %*s", pidw, "PID", tidw, "TID");
	for (unsigned c = 0; c < nc; c++)
		fprintf(out, "  %*s", w[c], names[c]);
	fputc('\n', out);
	for (size_t i = 0; i < v->nthreads; i++) {
		fprintf(out, "  %*d  %*d", pidw, (int)v->threads[i].pid, tidw,
		        (int)v->threads[i].tid);
		for (unsigned c = 0; c < nc; c++)
			fprintf(out, "  %*" PRIu64, w[c], v->val[i * v->width + c]);
		fputc('\n', out);
	}
	ret = 0;
out:
	free(names);
	free(w);
	return ret;
}

void pa_readvals_free(struct pa_report *r)
{
	struct pa_readvals *v = r->rv;
	if (!v)
		return;
	free(v->threads);
	free(v->val);
	free(v->cols);
	pa_u64map_release(&v->by_thread);
	pa_u64map_release(&v->by_evsel);
	free(v);
	r->rv = NULL;
}
