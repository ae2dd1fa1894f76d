/* cmd-script.c - `pa script`: perf script's text, wiring only (the trace
 * is resolver/'s, the text script/'s). */
#include "cli.h"
#include "script/script.h"

#include <string.h>

int cmd_script(int argc, const char **argv)
{
	const char *input = NULL;
	bool inline_ = true, demangle = true, header = false, show_mmap = false, show_task = false,
	     show_switch = false, no_pager = false;
	long max_stack = 0;
	struct pa_trace_opts to = {.sz = sizeof(to), .res = {.sz = sizeof(to.res)}};
	struct pa_script_opts so = {.sz = sizeof(so)};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    OPT_STRING('F', "fields", &so.fields, "str",
	               "perf script's fields: comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,addr,"
	               "period,srcline,misc,callindent,brstack,brstacksym,brstackoff (TYPE:list, "
	               "+field, -field); accepted, "
	               "printing nothing: " PA_SCRIPT_UNSUPPORTED),
	    OPT_BOOL('G', "hide-call-graph", &so.hide_call_graph, "do not print call chains"),
	    OPT_BOOL(0, "ns", &so.ns, "nanoseconds in time stamps"),
	    OPT_BOOL(0, "reltime", &so.reltime, "time stamps relative to the first sample"),
	    OPT_BOOL(0, "deltatime", &so.deltatime, "time stamps relative to the previous sample"),
	    OPT_BOOL(0, "header", &header, "print the data header first"),
	    PA_OPT_NO_PAGER(&no_pager),
	    OPT_BOOL(0, "show-mmap-events", &show_mmap, "print mmap records too"),
	    OPT_BOOL(0, "show-task-events", &show_task, "print comm, fork and exit records too"),
	    OPT_BOOL(0, "show-switch-events", &show_switch, "print context switch records too"),
	    OPT_BOOL(0, "show-kernel-path", &so.show_kernel_path, "kernel DSOs by their path"),
	    OPT_STRING(0, "stop-bt", &so.stop_bt, "list", "end call chains at these symbols"),
	    OPT_INT(0, "max-stack", &max_stack, "n", "at most n call-chain entries (default 127)"),
	    PA_OPTS_TRACE_FILTERS(&to.filter),
	    PA_OPTS_SYMBOLS(&to.res),
	    OPT_BOOL(0, "demangle", &demangle, "demangle symbol names (default; --no-demangle)"),
	    OPT_BOOL(0, "inline", &inline_,
	             "inline frames of DWARF-unwound call chains, as perf (default; --no-inline)"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa script [options]");
	if (n < 0)
		return n;
	if (max_stack < 0) {
		fprintf(stderr, "pa: script: --max-stack takes a positive number\n");
		return PA_EXIT_USAGE;
	}
	pa_cli_stream_heap();
	to.max_stack = (int)max_stack;
	to.no_inline = !inline_;
	to.res.no_demangle = !demangle;
	to.callchains = !so.hide_call_graph;
	to.side_records = (show_mmap ? PA_TRACE_SIDE_MMAP : 0) |
	                  (show_task ? PA_TRACE_SIDE_TASK : 0) |
	                  (show_switch ? PA_TRACE_SIDE_SWITCH : 0);
	const char *path = input ? input : "perf.data";
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_err err = {0};
	struct pa_session *s = NULL;
	struct pa_script *sc = pa_script_new(&so, &err);
	to.branches = sc && pa_script_reads_branches(sc);
	/* (tracepoints' fields: a pipe's tracing data comes with its records) */
	to.raw = pa_file_header(f)->tracing || pa_file_mode(f) == PA_FILE_MODE_PIPE;
	struct pa_trace *t = sc ? pa_cli_trace(f, &to, NULL, &s, &err) : NULL;
	struct pa_pager pager;
	pa_pager_start(&pager, no_pager || !t);
	if (t && header && pa_file_mode(f) == PA_FILE_MODE_FILE)
		pa_print_header(stdout, f);
	if (!t || pa_trace_run(t, &err) || pa_script_print(sc, t, stdout, &err)) {
		status = pa_cli_fail("script", path, &err);
	} else if (pa_file_was_truncated(f)) {
		fprintf(stderr,
		        "pa: '%s': warning: data cut short, printed up to the last complete "
		        "record\n",
		        path);
	}
	status = pa_pager_finish(&pager, status);
	pa_script_free(sc);
	pa_trace_free(t);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}
