/* cmd-export.c - `pa export --format pprof|speedscope -o FILE`: the
 * recording's samples, symbolized here, for pprof (and Pyroscope, Parca)
 * or speedscope. Wiring only: the trace is resolver/'s, the formats
 * export/'s. */
#include "cli.h"
#include "export/export.h"

#include <string.h>

struct export_out {
	struct pa_trace *t;
	const struct pa_export_opts *eo;
	bool pprof;
};

static int write_export(void *ctx, FILE *f, struct pa_err *err)
{
	struct export_out *x = ctx;
	return x->pprof ? pa_export_pprof(x->t, x->eo, f, err)
	                : pa_export_speedscope(x->t, x->eo, f, err);
}

int cmd_export(int argc, const char **argv)
{
	const char *input = NULL, *format = NULL, *output = NULL;
	bool inline_ = true;
	long max_stack = 0;
	struct pa_trace_opts to = {.sz = sizeof(to), .res = {.sz = sizeof(to.res)}};
	struct pa_export_opts eo = {.sz = sizeof(eo)};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    OPT_STRING(
	        0, "format", &format, "pprof|speedscope",
	        "output format (default: from -o's suffix: .pb.gz, .pb: pprof; .json: speedscope)"),
	    OPT_STRING('o', "output", &output, "file", "output file (- for stdout)"),
	    OPT_BOOL(0, "cpu-label", &eo.cpu_label, "pprof: label each sample with its cpu"),
	    OPT_BOOL(0, "per-process", &eo.per_process,
	             "speedscope: one profile per process instead of per thread"),
	    PA_OPTS_TRACE(&to, &max_stack, &inline_),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts,
	                         "pa export --format pprof|speedscope -o FILE [options]");
	if (n < 0)
		return n;
	if (!output) {
		fprintf(stderr, "pa: export: -o FILE is required\n");
		return PA_EXIT_USAGE;
	}
	if (!format) {
		size_t len = strlen(output);
		if ((len > 6 && !strcmp(output + len - 6, ".pb.gz")) ||
		    (len > 3 && !strcmp(output + len - 3, ".pb")))
			format = "pprof";
		else if (len > 5 && !strcmp(output + len - 5, ".json"))
			format = "speedscope";
	}
	if (!format || (strcmp(format, "pprof") && strcmp(format, "speedscope"))) {
		fprintf(stderr, "pa: export: --format pprof or --format speedscope\n");
		return PA_EXIT_USAGE;
	}
	if (max_stack < 0) {
		fprintf(stderr, "pa: export: --max-stack takes a positive number\n");
		return PA_EXIT_USAGE;
	}
	to.max_stack = (int)max_stack;
	to.no_inline = !inline_;
	to.callchains = true;
	const char *path = input ? input : "perf.data";
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_err err = {0};
	struct pa_session *s = NULL;
	struct pa_progress prog;
	bool to_stdout = !strcmp(output, "-");
	pa_progress_init(&prog, "Processing events", false, to_stdout);
	prog.then = "writing";
	struct pa_trace *t = pa_cli_trace(f, &to, &prog, &s, &err);
	int rt = !t || pa_trace_run(t, &err);
	if (rt || to_stdout)
		pa_progress_end(&prog);
	if (rt) {
		status = pa_cli_fail("export", path, &err);
	} else {
		struct export_out x = {t, &eo, !strcmp(format, "pprof")};
		status = pa_cli_write_output(output, write_export, &x);
		pa_progress_end(&prog);
	}
	pa_trace_free(t);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}
