/* trace.c - the session and trace of the commands that read every sample
 * (script, export, annotate). */
#include "cli.h"
#include "resolver/resolver.h"
#include "session/session.h"

#include <stdlib.h>

struct pa_trace *pa_cli_trace(struct pa_file *f, struct pa_trace_opts *to, struct pa_progress *prog,
                              struct pa_session **s, struct pa_err *err)
{
	to->res.no_threads = pa_cli_no_threads();
	to->res.slow_unwind = getenv("PA_SLOW_UNWIND") != NULL;
	/* (call chains copied only for a trace that reads them) */
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .order_needs_ids = true,
	                             .no_callchains = !to->callchains,
	                             .keep_user_stacks = to->callchains && pa_cli_user_stacks(f),
	                             .keep_branches = to->branches,
	                             .keep_raw = to->raw,
	                             .lazy_sample_loc = true};
	pa_progress_session(prog, f, &so);
	*s = pa_session_new(f, &so, err);
	return *s ? pa_trace_new(*s, to, err) : NULL;
}
