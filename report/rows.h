/* rows.h - the rows of perf report --stdio (one per hist entry that is
 * printed), made by rows.c from buckets or call-graph entries and laid
 * out by print.c. Only those two include it. */
#ifndef PA_REPORT_ROWS_H
#define PA_REPORT_ROWS_H

#include "internal.h"

struct row {
	struct hkey k;
	unsigned member;        /* which event of the group, while collecting */
	uint64_t period, count; /* the leader's (or the only event's) */
	uint64_t *vals;         /* per member: period, then count (2 * nr_members) */
	uint32_t seq;           /* creation order (perf's first sample) */
	bool hidden;            /* filtered: in perf's trees, not printed */
	bool merged;            /* found equal to an earlier entry, added to it */
	/* call-graph mode */
	uint64_t acc_period; /* children */
	const struct cg_entry *e;
	const struct pa_thread *thread;
	uint32_t max_depth;
	uint64_t *accs; /* children, per member */
};

struct rows_ctx {
	const int *keys;
	unsigned nr_keys;
	unsigned nr_members;
};

/* Rows by the collapse keys of ctx (all of them, or the first nr_keys):
 * perf's collapse comparators, what makes two samples one row. */
int pa_rows_collapse_cmp(const struct row *a, const struct row *b, const struct rows_ctx *ctx);

/* Rows of one event group (members first..first+nr-1; a lone event is a
 * group of one): buckets -> collapsed rows in output order. *vals_out
 * holds the per-member sums the rows point into, nf the non-filtered
 * totals. *nr rows are printed; the others, up to *nr_all, are filtered
 * entries (hidden) or rows merged into another. NULL: no memory. */
struct row *pa_rows_build(struct pa_report *r, unsigned first, unsigned nr_members, size_t *nr,
                          size_t *nr_all, uint64_t **vals_out, uint64_t *nf);
/* The same from the call-graph entries (r->cgs): every row printed. */
struct row *pa_rows_build_cg(struct pa_report *r, unsigned first, unsigned nr_members, size_t *nr,
                             uint64_t **vals_out, uint64_t *nf);

#endif
