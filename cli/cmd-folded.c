/* cmd-folded.c - `pa folded`: one line per unique stack, what
 * `perf script | stackcollapse-perf.pl` prints (FlameGraph's folded
 * format), straight from perf.data. `pa folded --diff BASELINE NEW`: the
 * two inputs (recordings folded the same way, or folded files) side by
 * side, as FlameGraph's difffolded.pl prints them. Wiring only: the stacks
 * are the report layer's, the differences flame/'s. */
#include "cli.h"
#include "flame/flame.h"
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct out_ctx {
	FILE *out;
	bool period;
	/* --diff: each line goes to diff's side instead of out */
	struct pa_flame_diff *diff;
	int side;
	struct pa_buf line;
	int rc;
};

/* The line pa folded prints for st (its count or period v), in o->line:
 * one write per line (a stdio call per frame was a tenth of pa folded on
 * deep chains). */
static int format_line(struct out_ctx *o, const struct pa_stack *st, uint64_t v)
{
	o->line.len = 0;
	int rc = pa_buf_add(&o->line, st->process, strlen(st->process));
	for (uint32_t i = 0; !rc && i < st->nr_frames; i++) {
		rc = pa_buf_add(&o->line, ";", 1);
		if (!rc)
			rc = pa_buf_add(&o->line, st->frames[i].name, strlen(st->frames[i].name));
	}
	return rc ? rc : pa_buf_addf(&o->line, " %" PRIu64 "\n", v);
}

static int print_stack(void *ctx, const struct pa_stack *st)
{
	struct out_ctx *o = ctx;
	int rc = format_line(o, st, o->period ? st->period : st->count);
	if (!rc && o->diff) /* read back as difffolded.pl reads it */
		rc = pa_flame_diff_add(o->diff, o->side, o->line.data, o->line.len);
	else if (!rc)
		return fwrite(o->line.data, 1, o->line.len, o->out) == o->line.len ? 0 : -1;
	return rc ? (o->rc = rc) : 0;
}

/* Fold the recording f (opened from path) into o. Returns an exit status. */
static int fold(struct pa_file *f, const char *path, struct pa_report_opts *ro, uint64_t max_mem,
		struct out_ctx *o)
{
	struct pa_err err = {0};
	int status = 0;
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .order_needs_ids = true, /* (perf script's) */
	                             .max_memory = max_mem,
	                             .keep_user_stacks = pa_cli_user_stacks(f),
	                             .lazy_sample_loc = true,
	                             .keys_ahead = true};
	struct pa_progress prog;
	pa_progress_init(&prog, "Processing events", false, true);
	prog.then = "folding";
	pa_progress_session(&prog, f, &so);
	struct pa_session *s = pa_session_new(f, &so, &err);
	struct pa_report *r = s ? pa_report_new(s, ro, &err) : NULL;
	int rr = !r || pa_report_run(r, &err);
	pa_progress_end(&prog);
	if (rr) {
		status = pa_cli_fail("folded", path, &err);
	} else {
		int ret = pa_report_foreach_stack(r, print_stack, o);
		if (ret < 0 && o->rc) {
			fprintf(stderr, "pa: '%s': %s\n", path,
			        o->rc == -PA_ERR_LIMIT ? "too many stacks" : pa_strerror(o->rc));
			status = PA_EXIT_BADINPUT;
		} else if (ret < 0 && !ferror(stdout)) {
			fprintf(stderr, "pa: '%s': %s\n", path, pa_strerror(ret));
			status = PA_EXIT_BADINPUT;
		}
		if (ret >= 0)
			pa_cli_filter_hints("folded", &r, 1, ro);
		if (pa_file_was_truncated(f))
			fprintf(stderr,
			        "pa: '%s': warning: data cut short, folded up to the last "
			        "complete record\n",
			        path);
	}
	pa_report_free(r);
	pa_session_free(s);
	return status;
}

/* ---- --diff inputs ---- */

/* One side of --diff: a recording folded with ro, or a folded file read
 * line by line. Returns an exit status. */
static int diff_side(struct out_ctx *o, int side, const char *path, struct pa_report_opts *ro,
		     uint64_t max_mem)
{
	struct pa_cli_input ci;
	struct pa_err err = {0};
	int status = pa_cli_input_open(&ci, path);
	if (status || !ci.recording) {
		if (!status && pa_flame_diff_read(o->diff, side, ci.in, &err))
			status = pa_cli_error(path, &err);
		pa_cli_input_close(&ci);
		return status;
	}
	struct pa_file_opts fo = pa_cli_file_opts();
	struct pa_file *f = pa_file_open(ci.open_path, &fo, &err);
	if (!f) {
		status = pa_cli_error(path, &err);
	} else {
		o->side = side;
		status = fold(f, path, ro, max_mem, o);
		pa_file_close(f);
	}
	pa_cli_input_close(&ci);
	return status;
}

/* --diff: both sides, then the merged lines on stdout. */
static int fold_diff(const char *base, const char *new_, struct pa_report_opts *ro,
		     uint64_t max_mem, bool period, bool normalize, bool strip_hex)
{
	struct out_ctx o = {.out = stdout, .period = period, .diff = pa_flame_diff_new(strip_hex)};
	if (!o.diff) {
		fprintf(stderr, "pa: folded: %s\n", strerror(errno));
		return PA_EXIT_USAGE;
	}
	int status = diff_side(&o, 0, base, ro, max_mem);
	if (!status)
		status = diff_side(&o, 1, new_, ro, max_mem);
	struct pa_err err = {0};
	if (!status && pa_flame_diff_write(o.diff, stdout, normalize, &err))
		status = ferror(stdout) ? PA_EXIT_USAGE : pa_cli_fail("folded", base, &err);
	pa_buf_release(&o.line);
	pa_flame_diff_free(o.diff);
	return status;
}

int cmd_folded(int argc, const char **argv)
{
	const char *input = NULL, *max_memory = NULL;
	bool all = false, period = false, count = false, exclude_idle = false, inline_ = true;
	bool diff = false, normalize = false, strip_hex = false;
	long max_stack = 0;
	/* today's stackcollapse-perf.pl: stacks weigh perf script's period,
	 * idle stacks stay; --count and --exclude-idle: bcc's profile */
	struct pa_report_opts ro = {.sz = sizeof(ro), .include_idle = true};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    PA_OPTS_STACKS(&ro, &exclude_idle, &period, &count, &max_stack, &max_memory, &inline_),
	    OPT_BOOL('a', "all", &all, "annotate kernel (_[k]) and JIT (_[j]) frames"),
	    OPT_BOOL(0, "kernel", &ro.annotate_kernel, "annotate kernel frames with _[k]"),
	    OPT_BOOL(0, "jit", &ro.annotate_jit, "annotate JIT frames with _[j]"),
	    OPT_BOOL(
	        0, "diff", &diff,
	        "BASELINE NEW (perf.data or folded files): both side by side, as difffolded.pl"),
	    OPT_BOOL(
	        'n', "normalize", &normalize,
	        "with --diff: scale the baseline's counts to the new total (difffolded.pl -n)"),
	    OPT_BOOL('s', "strip-hex", &strip_hex,
	             "with --diff: \"0x\" and hex digits become \"0x...\" (difffolded.pl -s)"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts,
	                         "pa folded [-i FILE] [options]\n"
	                         "   or: pa folded --diff [-n] [-s] [options] BASELINE NEW");
	if (n < 0)
		return n;
	period = !count;
	if (exclude_idle)
		ro.include_idle = false;
	if (diff ? n != 2 : n != 0) {
		if (diff)
			fprintf(stderr, "pa: folded: --diff takes two inputs, BASELINE and NEW\n");
		else
			fprintf(stderr, "pa: folded: unexpected argument '%s' (the input goes after -i)\n",
			        argv[0]);
		return PA_EXIT_USAGE;
	}
	if (diff && input) {
		fprintf(stderr, "pa: folded: --diff takes its inputs as BASELINE NEW, not -i\n");
		return PA_EXIT_USAGE;
	}
	if (!diff && (normalize || strip_hex)) {
		fprintf(stderr, "pa: folded: -n and -s go with --diff\n");
		return PA_EXIT_USAGE;
	}
	if (diff && !strcmp(argv[0], "-") && !strcmp(argv[1], "-")) {
		fprintf(stderr, "pa: folded: --diff: standard input can be one side only\n");
		return PA_EXIT_USAGE;
	}
	uint64_t max_mem = 0;
	if (pa_cli_size_opt("max-memory", max_memory, &max_mem))
		return PA_EXIT_USAGE;
	pa_cli_stream_heap();
	if (ro.user_only && ro.kernel_only) {
		fprintf(stderr, "pa: folded: -U and -K exclude each other\n");
		return PA_EXIT_USAGE;
	}
	if (max_stack < 0) {
		fprintf(stderr, "pa: folded: --max-stack takes a positive number\n");
		return PA_EXIT_USAGE;
	}
	if (all)
		ro.annotate_kernel = ro.annotate_jit = true;
	ro.no_inline = !inline_;
	ro.max_stack = (int)max_stack;
	ro.callchain = true;
	ro.call_graph = "none";
	ro.quiet = true;
	ro.no_threads = pa_cli_no_threads();
	ro.sz = sizeof(ro);
	if (diff)
		return fold_diff(argv[0], argv[1], &ro, max_mem, period, normalize, strip_hex);
	const char *path = input ? input : "perf.data";
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct out_ctx o = {.out = stdout, .period = period};
	status = fold(f, path, &ro, max_mem, &o);
	pa_buf_release(&o.line);
	pa_file_close(f);
	return status;
}
