/* cmd-flamegraph.c - `pa flamegraph`: an SVG or HTML flame graph from a
 * recording (perf.data or a sysprof capture, through the report layer's
 * unique stacks, pa_report_foreach_stack()) or from a folded stack file
 * (stackcollapse-*.pl, `pa folded`). Wiring only: the graph is flame/'s.
 * The output appears whole or not at all (temporary file, then rename). */
#include "cli.h"
#include "flame/flame.h"
#include "report/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fg_args {
	const char *input, *output, *title, *subtitle, *colors, *format, *countname, *max_memory;
	uint64_t max_mem;
	long width, max_stack_l;
	double minwidth;
	bool inverted, period, count, exclude_idle, diff, diff_raw;
	struct pa_report_opts ro;
};

/* ---- input ---- */

static int add_folded(struct pa_flame *fg, const char *path, FILE *in)
{
	struct pa_err err = {0};
	if (pa_flame_read_folded(fg, in, &err))
		return pa_cli_error(path, &err);
	return 0;
}

struct stack_ctx {
	struct pa_flame *fg;
	bool period;
	const char **names;
	uint8_t *kinds;
	size_t cap;
	int rc;
};

static int add_one_stack(void *ctx, const struct pa_stack *st)
{
	struct stack_ctx *c = ctx;
	size_t n = (size_t)st->nr_frames + 1;
	if (n > c->cap) {
		size_t cap = n * 2;
		const char **names = realloc(c->names, cap * sizeof(*names));
		if (names)
			c->names = names;
		uint8_t *kinds = realloc(c->kinds, cap);
		if (kinds)
			c->kinds = kinds;
		if (!names || !kinds)
			return c->rc = -ENOMEM;
		c->cap = cap;
	}
	c->names[0] = st->process;
	c->kinds[0] = PA_FLAME_USER;
	for (uint32_t i = 0; i < st->nr_frames; i++) {
		const struct pa_frame *f = &st->frames[i];
		c->names[i + 1] = f->name;
		c->kinds[i + 1] = f->inlined                   ? PA_FLAME_INLINE
				  : f->kind == PA_FRAME_KERNEL ? PA_FLAME_KERNEL
				  : f->kind == PA_FRAME_JIT    ? PA_FLAME_JIT
							       : PA_FLAME_USER;
	}
	int rc =
	    pa_flame_add_stack(c->fg, c->names, c->kinds, n, c->period ? st->period : st->count);
	return rc ? (c->rc = rc) : 0;
}

static int add_perf_data(struct pa_flame *fg, const char *open_path, const char *path,
			 struct fg_args *a)
{
	struct pa_err err = {0};
	struct pa_file_opts fo = pa_cli_file_opts();
	struct pa_file *f = pa_file_open(open_path, &fo, &err);
	if (!f)
		return pa_cli_error(path, &err);
	int status = 0;
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .order_needs_ids = true, /* (perf script's) */
	                             .max_memory = a->max_mem,
	                             .keep_user_stacks = pa_cli_user_stacks(f),
	                             .lazy_sample_loc = true,
	                             .keys_ahead = true};
	a->ro.sz = sizeof(a->ro);
	a->ro.callchain = true;
	a->ro.no_threads = pa_cli_no_threads();
	struct pa_progress prog;
	pa_progress_init(&prog, "Processing events", false, !a->output || !strcmp(a->output, "-"));
	prog.then = "folding";
	pa_progress_session(&prog, f, &so);
	struct pa_session *s = pa_session_new(f, &so, &err);
	struct pa_report *r = s ? pa_report_new(s, &a->ro, &err) : NULL;
	struct stack_ctx c = {.fg = fg, .period = !a->count};
	int rc = 0;
	int rr = !r || pa_report_run(r, &err);
	pa_progress_end(&prog);
	if (rr) {
		status = pa_cli_fail("flamegraph", path, &err);
	} else if ((rc = pa_report_foreach_stack(r, add_one_stack, &c))) {
		fprintf(stderr, "pa: '%s': %s\n", path,
			c.rc == -PA_ERR_LIMIT ? "too many samples or frames"
					      : pa_strerror(c.rc ? c.rc : rc));
		status = PA_EXIT_BADINPUT;
	} else if (pa_file_was_truncated(f)) {
		fprintf(stderr,
			"pa: '%s': warning: data cut short, graphed up to the last complete "
			"record\n",
			path);
	}
	if (!status)
		pa_cli_filter_hints("flamegraph", &r, 1, &a->ro);
	free(c.names);
	free(c.kinds);
	pa_report_free(r);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}

/* Read the input path, whichever kind it is, into fg. Returns an exit
 * status. */
static int load(struct pa_flame *fg, struct fg_args *a, const char *path)
{
	struct pa_cli_input ci;
	int status = pa_cli_input_open(&ci, path);
	if (!status)
		status = ci.recording ? add_perf_data(fg, ci.open_path, path, a)
		                      : add_folded(fg, path, ci.in);
	pa_cli_input_close(&ci);
	return status;
}

/* ---- output ---- */

struct graph_out {
	struct pa_flame *fg;
	enum pa_flame_format fmt;
	const struct pa_flame_opts *fo;
};

static int write_graph_to(void *ctx, FILE *f, struct pa_err *err)
{
	struct graph_out *g = ctx;
	return pa_flame_write(g->fg, f, g->fmt, g->fo, err);
}

static int write_graph(struct pa_flame *fg, const char *out, enum pa_flame_format fmt,
		       const struct pa_flame_opts *fo)
{
	struct graph_out g = {fg, fmt, fo};
	return pa_cli_write_output(out, write_graph_to, &g);
}

/* The checks of the graph's options (fo: palette, width). Returns an exit
 * status. */
static int check_args(struct fg_args *a, struct pa_flame_opts *fo)
{
	if (a->colors && pa_flame_palette_from_name(a->colors, &fo->palette)) {
		fprintf(stderr, "pa: flamegraph: unknown palette '%s' (kind, hot, mem, io)\n",
			a->colors);
		return PA_EXIT_USAGE;
	}
	if (a->width && (a->width < 100 || a->width > 1000000)) {
		fprintf(stderr, "pa: flamegraph: --width %ld out of range (100 to 1000000)\n",
			a->width);
		return PA_EXIT_USAGE;
	}
	fo->width = (unsigned)a->width;
	if (!(a->minwidth >= 0 && a->minwidth <= 100)) {
		fprintf(stderr, "pa: flamegraph: --minwidth takes a percentage (0 to 100)\n");
		return PA_EXIT_USAGE;
	}
	if (a->max_stack_l < 0 || a->max_stack_l > 1000000) {
		fprintf(stderr, "pa: flamegraph: --max-stack %ld out of range\n", a->max_stack_l);
		return PA_EXIT_USAGE;
	}
	a->ro.max_stack = (int)a->max_stack_l;
	return 0;
}

/* The inputs and the output named right (n: the arguments after the
 * options): the output's format, or 0 (said why). */
static enum pa_flame_format check_io(const struct fg_args *a, int n, const char **argv)
{
	if (a->diff && n != 2) {
		fprintf(stderr, "pa: flamegraph: --diff takes two inputs, BASELINE and NEW\n");
		return 0;
	}
	if (!a->diff && n > 0) {
		fprintf(stderr,
		        "pa: flamegraph: unexpected argument '%s' (the input goes after -i)\n",
		        argv[0]);
		return 0;
	}
	if (a->diff && a->input) {
		fprintf(stderr,
		        "pa: flamegraph: --diff takes its inputs as BASELINE NEW, not -i\n");
		return 0;
	}
	if (a->diff_raw && !a->diff) {
		fprintf(stderr, "pa: flamegraph: --diff-raw goes with --diff\n");
		return 0;
	}
	if (a->diff && !strcmp(argv[0], "-") && !strcmp(argv[1], "-")) {
		fprintf(stderr, "pa: flamegraph: --diff: standard input can be one side only\n");
		return 0;
	}
	if (!a->output) {
		fprintf(stderr, "pa: flamegraph: -o OUT.svg or -o OUT.html is required\n");
		return 0;
	}
	enum pa_flame_format fmt =
	    a->format ? pa_flame_format_from_name(a->format) : pa_flame_format_from_path(a->output);
	if (!fmt) {
		if (a->format)
			fprintf(stderr, "pa: flamegraph: unknown format '%s' (svg or html)\n",
			        a->format);
		else
			fprintf(stderr,
			        "pa: flamegraph: '%s': name the output .svg or .html, or give "
			        "--format\n",
			        a->output);
		return 0;
	}
	return fmt;
}

/* The input (--diff: both, each its own session, with symbols from its
 * own build-ids) into fg. 0 or the exit status. */
static int load_inputs(struct pa_flame *fg, struct fg_args *a, const char **argv)
{
	int status = 0;
	if (a->diff) {
		pa_flame_set_baseline(fg, true);
		status = load(fg, a, argv[0]);
		pa_flame_set_baseline(fg, false);
		if (!status && !pa_flame_base_total(fg))
			fprintf(stderr, "pa: '%s': warning: no stacks\n", argv[0]);
		if (!status)
			status = load(fg, a, argv[1]);
		if (!status && !pa_flame_total(fg))
			fprintf(stderr, "pa: '%s': warning: no stacks\n", argv[1]);
	} else {
		status = load(fg, a, a->input ? a->input : "perf.data");
		if (!status && !pa_flame_total(fg))
			fprintf(stderr, "pa: '%s': warning: no stacks\n",
			        a->input ? a->input : "perf.data");
	}
	return status;
}

int cmd_flamegraph(int argc, const char **argv)
{
	/* recordings: today's stackcollapse-perf.pl (period weights, idle
	 * stacks kept), as pa folded */
	struct fg_args a = {.ro.include_idle = true};
	bool inline_ = true;
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &a.input, "file",
	               "perf.data (default), sysprof capture or folded stacks; - for stdin"),
	    OPT_STRING('o', "output", &a.output, "file",
	               "NAME.svg or NAME.html (- for stdout, with --format)"),
	    OPT_STRING(0, "format", &a.format, "svg|html",
	               "output format (default: from -o's suffix)"),
	    OPT_STRING(0, "title", &a.title, "text", "title (default \"Flame Graph\")"),
	    OPT_STRING(0, "subtitle", &a.subtitle, "text", "second title line"),
	    OPT_INT(0, "width", &a.width, "pixels", "SVG width (default 1200)"),
	    OPT_DOUBLE(0, "minwidth", &a.minwidth, "percent",
	               "omit frames under this share of all (default: SVG 0.1 pixel, HTML none)"),
	    OPT_BOOL(0, "inverted", &a.inverted, "icicle graph: roots at the top"),
	    OPT_STRING(
	        0, "colors", &a.colors, "palette",
	        "kind (kernel orange, user red/C++ yellow, JIT green, inlined aqua), hot, mem, io"),
	    OPT_STRING(0, "countname", &a.countname, "unit",
	               "what the counts are (default samples)"),
	    /* recordings (perf.data, sysprof): the options of pa folded */
	    PA_OPTS_STACKS(&a.ro, &a.exclude_idle, &a.period, &a.count, &a.max_stack_l,
	                   &a.max_memory, &inline_),
	    OPT_BOOL(0, "diff", &a.diff,
	             "BASELINE NEW: differential graph, NEW's shape coloured by the change of each "
	             "frame's self share (red grew, blue shrank)"),
	    OPT_BOOL(0, "diff-raw", &a.diff_raw,
	             "with --diff: colour by the change of self samples, not of self share"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts,
				 "pa flamegraph [-i FILE] -o OUT.svg|OUT.html [options]\n"
				 "   or: pa flamegraph --diff [--diff-raw] -o OUT.svg|OUT.html [options] BASELINE NEW");
	if (n < 0)
		return n;
	if (pa_cli_size_opt("max-memory", a.max_memory, &a.max_mem))
		return PA_EXIT_USAGE;
	a.ro.no_inline = !inline_;
	if (a.exclude_idle)
		a.ro.include_idle = false;
	enum pa_flame_format fmt = check_io(&a, n, argv);
	if (!fmt)
		return PA_EXIT_USAGE;
	char *diff_sub = NULL;
	if (a.diff && !a.subtitle)
		diff_sub = pa_asprintf("baseline %s, new %s", argv[0], argv[1]);
	struct pa_flame_opts fo = {
	    .sz = sizeof(fo),
	    .title = a.title ? a.title : a.diff ? "Differential Flame Graph" : NULL,
	    .subtitle = a.subtitle ? a.subtitle : diff_sub,
	    .diff_raw = a.diff_raw,
	    .unit = a.countname ? a.countname
		    : a.period  ? "period"
				: NULL,
	    .minwidth = a.minwidth,
	    .inverted = a.inverted,
	};
	int status = check_args(&a, &fo);
	struct pa_flame *fg = status ? NULL : pa_flame_new();
	if (!status && !fg) {
		fprintf(stderr, "pa: flamegraph: %s\n", strerror(errno));
		status = PA_EXIT_USAGE;
	}
	if (!status)
		status = load_inputs(fg, &a, argv);
	/* html.js draws only what is visible, but it still loads every frame:
	 * past a few million, loading takes seconds */
	if (!status && fmt == PA_FLAME_HTML && !a.minwidth && pa_flame_frame_count(fg) > 5000000)
		fprintf(stderr,
			"pa: flamegraph: warning: %zu frames make a slow page; --minwidth 0.001 "
			"leaves out those under 1/100000 of the samples\n",
			pa_flame_frame_count(fg));
	if (!status)
		status = write_graph(fg, a.output, fmt, &fo);
	pa_flame_free(fg);
	free(diff_sub);
	return status;
}
