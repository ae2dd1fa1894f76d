/* report.h - aggregation, sort keys, filters and perf report's stdio output.
 *
 * Invariants: samples are aggregated as they stream by into buckets keyed
 * by (event, thread, cpu, location); a location is a unique (DSO,
 * map-relative address, level) and is symbolized once, after the stream.
 * Rows are built from buckets by the sort keys, then ordered like perf
 * (overhead, then the keys). Comparators are pure.
 *
 * Lifecycle: pa_report_new() -> pa_report_run() -> pa_report_print() ->
 * pa_report_free().
 */
#ifndef PA_REPORT_H
#define PA_REPORT_H

#include <stdio.h>

#include "session/session.h"

struct pa_report_opts {
	size_t sz;
	const char *sort;   /* comma list of comm,pid,tid,dso,sym,cpu; default comm,dso,sym */
	const char *fields; /* -F: overhead,sample,period plus sort keys */
	const char *dsos, *comms, *symbols; /* comma lists (filters) */
	const char *pids, *tids, *cpus;     /* comma lists of numbers / cpu ranges */
	const char *time;                   /* perf's --time start,stop (seconds) */
	double percent_limit;
	bool relative;   /* --percentage relative */
	bool quiet;      /* -q: rows only */
	bool no_demangle;
	const char *symfs, *buildid_dir;
	const char *kallsyms; /* --kallsyms FILE */
	bool use_local_kernel_anyway; /* never set by default */
};

struct pa_report;

/* Returns NULL and fills err (e.g. unknown sort key). Free with pa_report_free(). */
struct pa_report *pa_report_new(struct pa_session *s, const struct pa_report_opts *opts,
				struct pa_err *err);
void pa_report_free(struct pa_report *r);

/* Stream the session's events into the report. */
int pa_report_run(struct pa_report *r, struct pa_err *err);

/* Write perf report --stdio output to out. */
int pa_report_print(struct pa_report *r, FILE *out, struct pa_err *err);

/* Why a DSO with samples has no symbols: one call per such DSO. */
typedef void (*pa_report_dso_note_fn)(void *ctx, const struct pa_dso *dso, const char *why);
void pa_report_foreach_dso_note(struct pa_report *r, pa_report_dso_note_fn fn, void *ctx);

#endif
