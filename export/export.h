/* export.h - a recording's resolved samples handed to other profilers:
 * pprof's profile.proto (gzip-compressed) and speedscope's JSON file
 * format. Both read a pa_trace (resolver.h) that has been run, so they get
 * the trace's filters and symbol options, inline frames and srclines.
 *
 * Library code: writes only to the FILE it is given, prints nothing else.
 */
#ifndef PA_EXPORT_H
#define PA_EXPORT_H

#include <stdio.h>

#include "resolver/resolver.h"

struct pa_export_opts {
	size_t sz;
	bool cpu_label;   /* pprof: a "cpu" label on every sample */
	bool per_process; /* speedscope: one profile per process, not per thread */
	const char *name; /* speedscope: the file's name field (default: the input's) */
};

/* gzip-compressed profile.proto to out. 0 or a negative error with err set. */
int pa_export_pprof(struct pa_trace *t, const struct pa_export_opts *opts, FILE *out,
                    struct pa_err *err);
/* speedscope's JSON to out. 0 or a negative error with err set. */
int pa_export_speedscope(struct pa_trace *t, const struct pa_export_opts *opts, FILE *out,
                         struct pa_err *err);

#endif
