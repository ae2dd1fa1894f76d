/* view.h - `pa view`: one self-contained HTML page (inline CSS and script,
 * no network) to explore a recording: its header, a top-down call tree, a
 * bottom-up (callers) tree, a flat function table, a flame graph, the
 * selected function's source lines and a per-thread timeline, with
 * filters (event, comm, thread, DSO, time range) and regular-expression
 * search, all recomputed in the page.
 *
 * Invariants:
 * - The page holds aggregated stacks, not samples: the trace's samples
 *   summed by (event, thread and comm, time bucket, stack) into a count
 *   and a period. About 500 time buckets span the recording; a time range
 *   chosen in the page is a run of whole buckets, which the page also
 *   shows as `--time start,stop` (pa report's filter, both ends included).
 * - A frame is pa report's dso,sym entry: a symbol by its DSO (short
 *   name) and address range, an inline frame's also by its name (shown
 *   with " (inlined)" after it), an unresolved address by the address perf
 *   shows (a call-chain entry's raw ip, a sample's map-relative one). Each
 *   stack ends with the frame of the sample's own ip (pa report's self
 *   entry). Percentages are of the total period of the event's samples in
 *   the page's time range, as pa report computes them with the same
 *   filters (--comms, --pid, --tid, --dsos, --symbols hide rows, not the
 *   total; as perf, a row is shown as the first sample that reaches it
 *   passes them, with the period of every sample that reaches it).
 * - The source view: samples summed by their own frame and source line
 *   (perf's srcline, pa report --sort srcline), with the line's text when
 *   the file is readable here (its path from the DWARF line table).
 * - With inline frames, perf's --children entries depend on the shape of
 *   its hist-entry tree (its symbol comparison is not an order): the page
 *   then holds each sample's aggregate in order and replays that tree.
 * - Names are bytes: written as JSON strings with '<', '>' and '&'
 *   escaped, so that nothing in a name ends the page's script.
 *
 * Library code: writes only to the FILE it is given, prints nothing else.
 */
#ifndef PA_VIEW_H
#define PA_VIEW_H

#include <stdio.h>

#include "resolver/resolver.h"

struct pa_view_opts {
	size_t sz;
	const char *title; /* the page's title (default: the input's base name) */
	/* the filters the trace was made with, shown in the page (may be NULL) */
	const char *filters;
	unsigned nr_buckets; /* time buckets, 0: 500 */
	/* the page's initial row filters (may be NULL): its dsos, comms,
	 * symbols, pids and tids (comma lists, as pa report's options), which
	 * hide rows and keep the total; the other fields are not read */
	const struct pa_filter_spec *rows;
};

/* The page of a trace that has been run (pa_trace_run(): call chains kept
 * for the trees) to out. 0 or a negative error with err set. */
int pa_view_write(struct pa_trace *t, const struct pa_view_opts *opts, FILE *out,
                  struct pa_err *err);

#endif
