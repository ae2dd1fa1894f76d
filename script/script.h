/* script.h - perf script's text: one block per sample (and per side record
 * asked for), perf 6.1's fields and layout, from a run pa_trace.
 *
 * Fields (-F) are perf's, with its syntax: "f1,f2" replaces the fields of
 * every event type, "+f"/"-f" adds or removes, "TYPE:f1,f2" (hw, sw,
 * trace, raw, break, synth) sets one type's. Defaults and the fields a
 * recording cannot give (the event does not sample what they show) are
 * perf's: dropped quietly from defaults and typed lists, an error from a
 * list for all types. What pa does not print: PA_SCRIPT_UNSUPPORTED.
 *
 * Library code: prints only to the FILE it is given.
 */
#ifndef PA_SCRIPT_H
#define PA_SCRIPT_H

#include <stdio.h>

#include "resolver/resolver.h"

struct pa_script_opts {
	size_t sz;
	const char *fields;    /* -F; NULL: perf's defaults */
	bool ns;               /* --ns: nanoseconds */
	bool reltime;          /* --reltime: time since the first sample */
	bool deltatime;        /* --deltatime: time since the previous sample */
	bool hide_call_graph;  /* -G */
	bool show_kernel_path; /* --show-kernel-path */
	const char *stop_bt;   /* --stop-bt: comma list of symbols ending a call chain */
};

struct pa_script;

/* Parses the fields (-F syntax; perf's checks against the recording's
 * events come when printing: a pipe names its events as it goes). NULL
 * with err set (PA_ERR_USAGE: a bad -F, with perf's message). The trace
 * keeps call chains unless -G, and branch stacks when
 * pa_script_reads_branches(). */
struct pa_script *pa_script_new(const struct pa_script_opts *opts, struct pa_err *err);
void pa_script_free(struct pa_script *sc);
/* Some type prints brstack, brstacksym or brstackoff: the trace must keep
 * branch stacks (pa_trace_opts.branches). */
bool pa_script_reads_branches(const struct pa_script *sc);
/* Print every sample and side record of the (run) trace. 0, or a negative
 * error (with err set: PA_ERR_USAGE when a field asked for all events is
 * not recorded, perf's message, nothing printed); a write error of out is
 * the caller's to see. */
int pa_script_print(struct pa_script *sc, struct pa_trace *t, FILE *out, struct pa_err *err);
/* The -F fields pa accepts but prints nothing for (perf prints them from
 * what pa does not keep or decode). */
#define PA_SCRIPT_UNSUPPORTED                                                                      \
	"trace,iregs,uregs,brstackinsn,brstackinsnlen,insn,insnlen,"                               \
	"bpf-output,synth,metric,srccode,ipc,tod,data_src,weight,phys_addr,data_page_size,"        \
	"code_page_size,ins_lat,flags"

#endif
