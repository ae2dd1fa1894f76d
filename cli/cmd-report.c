/* cmd-report.c - `pa report`: perf report's flags, wiring only. */
#include "cli.h"
#include "report/report.h"

#include <string.h>

static void print_dso_note(void *ctx, const struct pa_dso *dso, const char *why)
{
	(void)ctx;
	char hex[41];
	pa_hex(hex, dso->build_id, dso->build_id_size);
	fprintf(stderr, "pa: no symbols for '%s'%s%s: %s\n", dso->long_name,
		dso->build_id_size ? " build-id " : "", hex, why);
}

int cmd_report(int argc, const char **argv)
{
	const char *input = NULL, *callgraph = NULL, *percentage = NULL;
	bool header_only = false, header = false, stdio_ = false, children = false, no_children = false;
	int quiet = 0, verbose = 0;
	double percent_limit = 0;
	struct pa_report_opts ro = {.sz = sizeof(ro)};
	const struct pa_option opts[] = {
		OPT_STRING('i', "input", &input, "file", "input file name (default perf.data, - for stdin)"),
		OPT_BOOL(0, "header-only", &header_only, "print the header and stop"),
		OPT_BOOL(0, "header", &header, "print the header, then the report"),
		OPT_BOOL(0, "stdio", &stdio_, "use the stdio interface (the only one)"),
		OPT_COUNT('q', "quiet", &quiet, "print rows only"),
		OPT_COUNT('v', "verbose", &verbose, "say why DSOs have no symbols"),
		OPT_BOOL(0, "children", &children, "accumulate callchains of children (not yet)"),
		OPT_BOOL(0, "no-children", &no_children, "do not accumulate children (the default here)"),
		OPT_STRING_OPTARG('g', "call-graph", &callgraph, "mode", "call graph mode (only 'none' so far)", "graph"),
		OPT_STRING('s', "sort", &ro.sort, "keys", "sort by keys: comm,pid,tid,dso,sym,cpu"),
		OPT_STRING('F', "fields", &ro.fields, "keys", "output fields: overhead,sample,period + sort keys"),
		OPT_STRING('d', "dsos", &ro.dsos, "list", "only consider these DSOs"),
		OPT_STRING('c', "comms", &ro.comms, "list", "only consider these comms"),
		OPT_STRING('S', "symbols", &ro.symbols, "list", "only consider these symbols"),
		OPT_STRING(0, "pid", &ro.pids, "list", "only consider these pids"),
		OPT_STRING(0, "tid", &ro.tids, "list", "only consider these tids"),
		OPT_STRING('C', "cpu", &ro.cpus, "list", "only consider these cpus"),
		OPT_STRING(0, "time", &ro.time, "start,stop", "only consider samples in this time window"),
		OPT_DOUBLE(0, "percent-limit", &percent_limit, "percent", "hide rows below this percentage"),
		OPT_STRING(0, "percentage", &percentage, "relative|absolute", "how filtered rows are counted"),
		OPT_STRING(0, "symfs", &ro.symfs, "dir", "look for files relative to this directory"),
		OPT_STRING(0, "buildid-dir", &ro.buildid_dir, "dir", "build-id cache (default ~/.debug)"),
		OPT_STRING(0, "kallsyms", &ro.kallsyms, "file", "kallsyms file to use for the kernel"),
		OPT_BOOL(0, "no-demangle", &ro.no_demangle, "do not demangle symbol names"),
		OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa report [options]");
	if (n < 0)
		return n;
	const char *path = input ? input : "perf.data";
	if (callgraph && strncmp(callgraph, "none", 4)) {
		fprintf(stderr, "pa: report: only '-g none' is supported so far\n");
		return PA_EXIT_USAGE;
	}
	if (children) {
		fprintf(stderr, "pa: report: --children is not supported yet; use --no-children\n");
		return PA_EXIT_USAGE;
	}
	if (percentage && strcmp(percentage, "relative") && strcmp(percentage, "absolute")) {
		fprintf(stderr, "pa: report: --percentage takes relative or absolute\n");
		return PA_EXIT_USAGE;
	}
	ro.relative = percentage && !strcmp(percentage, "relative");
	ro.quiet = quiet > 0;
	ro.percent_limit = percent_limit;

	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	if (header_only) {
		status = pa_cli_print_header(f, path);
		pa_file_close(f);
		return status;
	}
	if (header) {
		if (pa_file_mode(f) == PA_FILE_MODE_PIPE) {
			fprintf(stderr, "pa: report: --header needs a file, not a pipe\n");
			pa_file_close(f);
			return PA_EXIT_USAGE;
		}
		pa_print_header(stdout, f);
	}
	struct pa_err err = {0};
	struct pa_session_opts so = {.sz = sizeof(so), .no_callchains = true};
	struct pa_session *s = pa_session_new(f, &so, &err);
	struct pa_report *r = s ? pa_report_new(s, &ro, &err) : NULL;
	if (!r || pa_report_run(r, &err) || pa_report_print(r, stdout, &err)) {
		status = err.code == -PA_ERR_USAGE || err.code == PA_ERR_USAGE ? PA_EXIT_USAGE
									    : pa_cli_error(path, &err);
		if (status == PA_EXIT_USAGE)
			fprintf(stderr, "pa: report: %s\n", err.msg);
	} else {
		if (verbose)
			pa_report_foreach_dso_note(r, print_dso_note, NULL);
		if (pa_file_was_truncated(f))
			fprintf(stderr, "pa: '%s': warning: data cut short, reported up to the last "
					"complete record\n",
				path);
	}
	pa_report_free(r);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}
