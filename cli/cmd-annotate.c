/* cmd-annotate.c - `pa annotate`: perf annotate's flags and --stdio text,
 * wiring only (the samples are a pa_trace's, the text annotate/'s). */
#include "annotate/annotate.h"
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void print_note(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "pa: annotate: %s\n", msg);
}

struct html_ctx {
	struct pa_annotate *a;
};

static int write_html(void *ctx, FILE *f, struct pa_err *err)
{
	struct html_ctx *h = ctx;
	return pa_annotate_print_html(h->a, f, err);
}

static int check_opts(const struct pa_annotate_opts *ao, const char *percent_type,
                      enum pa_annotate_percent *pt, const char *html_out, bool html)
{
	if (percent_type && pa_annotate_percent_parse(percent_type, pt)) {
		fprintf(stderr,
		        "pa: annotate: --percent-type takes local-period, global-period, "
		        "local-hits or global-hits, not '%s'\n",
		        percent_type);
		return -1;
	}
	if (ao->style && strcmp(ao->style, "att") && strcmp(ao->style, "intel")) {
		fprintf(stderr, "pa: annotate: -M takes att or intel, not '%s'\n", ao->style);
		return -1;
	}
	const char *why = ao->objdump ? NULL : pa_annotate_capstone_why();
	if (why) {
		fprintf(stderr, "pa: annotate: no capstone (%s): disassemble with --objdump PATH\n",
		        why);
		return -1;
	}
	if (html != (html_out != NULL)) {
		fprintf(stderr, "pa: annotate: --html writes to the file -o names\n");
		return -1;
	}
	return 0;
}

/* The symbols' text (or page) once the trace has run. */
static int annotate_output(struct pa_trace *t, struct pa_annotate_opts *ao, const char *html_out,
                           bool no_pager, const char *path)
{
	struct pa_err err = {0};
	int status = 0;
	struct pa_annotate *a = pa_annotate_new(t, ao, &err);
	if (!a)
		return pa_cli_fail("annotate", path, &err);
	if (ao->symbol && !pa_annotate_nr_symbols(a))
		fprintf(stderr, "pa: annotate: no samples in symbol '%s'\n", ao->symbol);
	if (html_out) {
		struct html_ctx h = {.a = a};
		status = pa_cli_write_output(html_out, write_html, &h);
	} else {
		struct pa_pager pager;
		pa_pager_start(&pager, no_pager);
		if (pa_annotate_print(a, stdout, &err))
			status = pa_cli_fail("annotate", path, &err);
		status = pa_pager_finish(&pager, status);
	}
	pa_annotate_free(a);
	return status;
}

int cmd_annotate(int argc, const char **argv)
{
	const char *input = NULL, *percent_type = NULL, *html_out = NULL;
	bool stdio_ = false, source = true, no_pager = false, demangle = true, html = false;
	int verbose = 0;
	struct pa_trace_opts to = {.sz = sizeof(to), .res = {.sz = sizeof(to.res)}};
	struct pa_annotate_opts ao = {.sz = sizeof(ao), .note = print_note};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    OPT_BOOL(0, "stdio", &stdio_, "use the stdio interface (the only one)"),
	    OPT_STRING('s', "symbol", &ao.symbol, "symbol", "annotate only this symbol"),
	    OPT_BOOL('n', "show-nr-samples", &ao.show_nr_samples,
	             "show the number of samples of each instruction"),
	    OPT_BOOL(0, "show-total-period", &ao.show_total_period,
	             "show the period of each instruction"),
	    OPT_STRING(0, "percent-type", &percent_type, "type",
	               "local-period (default), global-period, local-hits or global-hits"),
	    OPT_DOUBLE(0, "percent-limit", &ao.percent_limit, "percent",
	               "skip symbols under this share of their event"),
	    OPT_BOOL(0, "asm-raw", &ao.asm_raw, "show the instructions' bytes"),
	    OPT_BOOL('l', "print-line", &ao.print_line,
	             "first a summary of the symbol's hottest source lines"),
	    OPT_BOOL(0, "source", &source, "interleave source lines (default; --no-source)"),
	    OPT_BOOL('P', "full-paths", &ao.full_path, "show the DSO's whole path"),
	    OPT_STRING(0, "objdump", &ao.objdump, "path",
	               "disassemble by running this objdump, as perf does (perf's exact text)"),
	    OPT_STRING('M', "disassembler-style", &ao.style, "style", "att or intel (x86)"),
	    OPT_BOOL(0, "html", &html, "write one HTML page (to the file -o names) instead"),
	    OPT_STRING('o', "output", &html_out, "file", "the HTML page's file (- for stdout)"),
	    PA_OPT_NO_PAGER(&no_pager),
	    OPT_COUNT('v', "verbose", &verbose, "accepted (as perf's)"),
	    PA_OPTS_REPORT_FILTERS(&to.filter, 0, 'C'),
	    PA_OPTS_SYMBOLS(&to.res),
	    OPT_BOOL(0, "demangle", &demangle, "demangle symbol names (default; --no-demangle)"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa annotate [options] [symbol]");
	if (n < 0)
		return n;
	if (n > 1 || (n == 1 && ao.symbol)) {
		fprintf(stderr, "pa: annotate: one symbol at most\n");
		return PA_EXIT_USAGE;
	}
	if (n == 1)
		ao.symbol = argv[0];
	if (check_opts(&ao, percent_type, &ao.percent_type, html_out, html))
		return PA_EXIT_USAGE;
	if (to.res.vmlinux && access(to.res.vmlinux, R_OK)) {
		fprintf(stderr, "pa: annotate: --vmlinux '%s': %s\n", to.res.vmlinux,
		        strerror(errno));
		return PA_EXIT_USAGE;
	}
	ao.no_source = !source;
	ao.symfs = to.res.symfs;
	ao.buildid_dir = to.res.buildid_dir;
	ao.vmlinux = to.res.vmlinux;
	to.res.no_demangle = !demangle;
	to.no_inline = true;
	const char *path = input ? input : "perf.data";
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_err err = {0};
	struct pa_session *s = NULL;
	struct pa_trace *t = pa_cli_trace(f, &to, NULL, &s, &err);
	if (!t || pa_trace_run(t, &err))
		status = pa_cli_fail("annotate", path, &err);
	else
		status = annotate_output(t, &ao, html ? html_out : NULL, no_pager, path);
	pa_trace_free(t);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}
