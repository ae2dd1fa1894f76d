/* cmd-diff.c - `pa diff`: perf diff's flags, wiring only. */
#include "cli.h"
#include "report/report.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* perf's setup_compute: NAME or wdiff:W1,W2. 0, or -1 after saying why. */
static int parse_compute(const char *s, struct pa_diff_opts *o)
{
	static const struct {
		const char *name;
		enum pa_diff_compute c;
	} names[] = {{"delta", PA_DIFF_DELTA},
	             {"delta-abs", PA_DIFF_DELTA_ABS},
	             {"ratio", PA_DIFF_RATIO},
	             {"wdiff", PA_DIFF_WDIFF}};
	size_t n = strcspn(s, ":");
	if (n == 6 && !strncmp(s, "cycles", 6)) {
		fprintf(stderr, "pa: diff: -c cycles needs recordings with branch stacks "
		                "(perf record -b), which pa does not read yet\n");
		return -1;
	}
	for (size_t i = 0; i < PA_ARRAY_SIZE(names); i++) {
		if (strlen(names[i].name) != n || strncmp(s, names[i].name, n))
			continue;
		o->compute = names[i].c;
		if (o->compute != PA_DIFF_WDIFF && s[n]) {
			fprintf(stderr, "pa: diff: Failed: extra option specified '%s'\n",
			        s + n + 1);
			return -1;
		}
		if (o->compute != PA_DIFF_WDIFF)
			return 0;
		char *end = NULL;
		const char *w = s[n] ? s + n + 1 : "";
		o->w1 = strtoll(w, &end, 10);
		o->w2 = *end == ',' ? strtoll(end + 1, NULL, 10) : 0;
		if (!o->w1 || !o->w2) {
			fprintf(stderr, "pa: diff: Failed: wrong weight data, use 'wdiff:w1,w2'\n");
			return -1;
		}
		return 0;
	}
	fprintf(stderr,
	        "pa: diff: Failed: '%s' is not computation method (use 'delta','ratio' "
	        "or 'wdiff')\n",
	        s);
	return -1;
}

/* perf diff's --time: one range for all files, or "A:B:..." one per file
 * (files past the last range: none). */
static const char *time_of(const char *time, unsigned i, char *buf, size_t size)
{
	if (!time || !strchr(time, ':'))
		return time;
	for (; i && time; i--)
		time = strchr(time, ':') ? strchr(time, ':') + 1 : NULL;
	if (!time)
		return NULL;
	snprintf(buf, size, "%.*s", (int)strcspn(time, ":"), time);
	return buf;
}

/* One recording: read on its own thread (they share nothing), its
 * failure said by the main thread. */
struct input {
	const char *path;
	struct pa_report_opts ro;
	uint64_t max_mem;
	struct pa_file *f;
	struct pa_session *s;
	struct pa_report *r;
	struct pa_err err;
	bool failed;
	pthread_t th;
	bool started;
};

static void *read_input(void *arg)
{
	struct input *in = arg;
	struct pa_file_opts fo = pa_cli_file_opts();
	in->f = pa_file_open(in->path, &fo, &in->err);
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .order_needs_ids = true,
	                             .no_callchains = true,
	                             .max_memory = in->max_mem,
	                             .lazy_sample_loc = true};
	in->s = in->f ? pa_session_new(in->f, &so, &in->err) : NULL;
	in->r = in->s ? pa_report_new(in->s, &in->ro, &in->err) : NULL;
	in->failed = !in->r || pa_report_run(in->r, &in->err);
	return NULL;
}

/* Read every recording, the others beside the first on threads of their
 * own (PA_NO_THREADS: one after the other); an exit status. */
static int read_inputs(struct input *in, unsigned n)
{
	for (unsigned i = 1; i < n && !pa_cli_no_threads(); i++)
		in[i].started = !pthread_create(&in[i].th, NULL, read_input, &in[i]);
	for (unsigned i = 0; i < n; i++)
		if (!in[i].started)
			read_input(&in[i]);
	for (unsigned i = 1; i < n; i++)
		if (in[i].started)
			pthread_join(in[i].th, NULL);
	for (unsigned i = 0; i < n; i++) {
		if (in[i].failed) /* perf stops at the first file it cannot read */
			return pa_cli_fail("diff", in[i].path, &in[i].err);
		if (pa_file_was_truncated(in[i].f))
			fprintf(stderr,
			        "pa: '%s': warning: data cut short, compared up to the last "
			        "complete record\n",
			        in[i].path);
	}
	return 0;
}

int cmd_diff(int argc, const char **argv)
{
	const char *compute = NULL, *percentage = NULL, *max_memory = NULL;
	int quiet = 0, verbose = 0;
	bool force = false, no_pager = false;
	long order = 1;
	struct pa_diff_opts o = {.sz = sizeof(o), .compute = PA_DIFF_DELTA_ABS};
	struct pa_report_opts ro = {.sz = sizeof(ro)};
	const struct pa_option opts[] = {
	    OPT_BOOL('b', "baseline-only", &o.baseline_only,
	             "show only entries with a match in the baseline"),
	    OPT_STRING('c', "compute", &compute, "method",
	               "delta, delta-abs (default), ratio, wdiff:w1,w2: how entries are compared"),
	    OPT_BOOL('p', "period", &o.period, "show the periods"),
	    OPT_BOOL('F', "formula", &o.formula, "show the formula of each change"),
	    OPT_INT('o', "order", &order, "n",
	            "sort by the change of file n first (0: none; default 1)"),
	    OPT_COUNT('q', "quiet", &quiet, "print rows only"),
	    OPT_COUNT('v', "verbose", &verbose,
	              "list the data files also for two files; long DSO names, symbol addresses"),
	    OPT_BOOL('f', "force", &force, "accepted for perf's command lines"),
	    PA_OPT_NO_PAGER(&no_pager),
	    OPT_STRING(
	        's', "sort", &ro.sort, "keys",
	        "match and sort by keys: comm,pid,tid,dso,sym,cpu,srcline (default dso,sym)"),
	    PA_OPTS_REPORT_FILTERS(&ro, 'C', 0),
	    OPT_STRING(0, "percentage", &percentage, "relative|absolute",
	               "how filtered entries are counted"),
	    OPT_DOUBLE(0, "percent-limit", &o.percent_limit, "percent",
	               "leave out entries below this share in every file (pa's)"),
	    PA_OPTS_SYMBOLS(&ro),
	    OPT_BOOL(0, "no-demangle", &ro.no_demangle, "do not demangle symbol names"),
	    OPT_STRING(0, "max-memory", &max_memory, "size", PA_MAX_MEMORY_HELP),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa diff [options] [old_file] [new_file ...]");
	if (n < 0)
		return n;
	uint64_t max_mem = 0;
	if (pa_cli_size_opt("max-memory", max_memory, &max_mem) ||
	    (compute && parse_compute(compute, &o)))
		return PA_EXIT_USAGE;
	if (percentage && strcmp(percentage, "relative") && strcmp(percentage, "absolute")) {
		fprintf(stderr, "pa: diff: --percentage takes relative or absolute\n");
		return PA_EXIT_USAGE;
	}
	/* perf diff: perf.data.old and perf.data, or old and the one given */
	const char *defaults[2] = {"perf.data.old", "perf.data"};
	const char **paths = n >= 2 ? argv : defaults;
	unsigned nf = n >= 2 ? (unsigned)n : 2;
	if (n == 1)
		defaults[1] = argv[0];
	if (order < 0 || (unsigned long)order >= nf || nf > 64) {
		fprintf(stderr, "pa: diff: %s\n",
		        nf > 64 ? "at most 64 files" : "Order option out of limit.");
		return PA_EXIT_USAGE;
	}
	o.order = (unsigned)order;
	o.quiet = quiet > 0;
	o.verbose = verbose > 0;
	/* (perf's -v: report's verbose columns too, unless -q) */
	ro.verbose_columns = verbose > 0 && !quiet;
	o.paths = paths;
	ro.relative = percentage && !strcmp(percentage, "relative");
	if (!ro.sort)
		ro.sort = "dso,sym";
	ro.no_threads = pa_cli_no_threads();

	struct input *in = calloc(nf, sizeof(*in));
	struct pa_report **rs = calloc(nf, sizeof(*rs));
	char tbuf[64][128]; /* each file's --time, alive with its report */
	int status = in && rs ? 0 : PA_EXIT_USAGE;
	for (unsigned i = 0; !status && i < nf; i++) {
		in[i] = (struct input){.path = paths[i], .ro = ro, .max_mem = max_mem};
		in[i].ro.time = time_of(ro.time, i, tbuf[i], sizeof(tbuf[i]));
	}
	if (!status)
		status = read_inputs(in, nf);
	for (unsigned i = 0; !status && i < nf; i++)
		rs[i] = in[i].r;
	struct pa_err err = {0};
	struct pa_pager pager;
	pa_pager_start(&pager, no_pager || status);
	if (!status && pa_report_diff_print(rs, nf, &o, stdout, &err))
		status = pa_cli_fail("diff", paths[0], &err);
	else if (!status)
		pa_cli_filter_hints("diff", rs, nf, &ro);
	status = pa_pager_finish(&pager, status);
	for (unsigned i = 0; in && i < nf; i++) {
		pa_report_free(in[i].r);
		pa_session_free(in[i].s);
		if (in[i].f)
			pa_file_close(in[i].f);
	}
	free(in);
	free(rs);
	return status;
}
