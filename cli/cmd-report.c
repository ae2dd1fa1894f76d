/* cmd-report.c - `pa report`: perf report's flags, wiring only. */
#include "cli.h"
#include "report/report.h"
#include "resolver/resolver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void print_dso_note(void *ctx, const struct pa_dso *dso, bool has_symbols, const char *why)
{
	(void)ctx;
	char hex[41];
	pa_hex(hex, dso->build_id, dso->build_id_size);
	fprintf(stderr, "pa: %ssymbols for '%s'%s%s: %s\n", has_symbols ? "" : "no ",
	        dso->long_name, dso->build_id_size ? " build-id " : "", hex, why);
}

/* perf report's branch mode: -b asks for it (refused without branch
 * stacks), --no-branch-stack refuses it, else the file's BRANCH_STACK
 * feature (perf record -b) turns it on. A pipe's features come as records:
 * off, as perf decides before reading them. Returns 0/1, or -1 (said). */
static int branch_mode(struct pa_file *f, int asked)
{
	bool has = false;
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++)
		has |= (pa_file_evsel(f, i)->attr.sample_type & PA_SAMPLE_BRANCH_STACK) != 0;
	if (asked == 1 && !has) {
		fprintf(stderr, "pa: report: -b, but the recording has no branch stacks "
		                "(perf record -b)\n");
		return -1;
	}
	if (asked >= 0)
		return asked;
	return pa_file_mode(f) != PA_FILE_MODE_PIPE &&
	       pa_header_has_feat(pa_file_header(f), PA_FEAT_BRANCH_STACK);
}

/* Does any event of a file-mode recording sample call chains? */
static bool file_has_callchains(struct pa_file *f)
{
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++)
		if (pa_file_evsel(f, i)->attr.sample_type & PA_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* Does any event record user registers and a user stack copy (perf record
 * --call-graph dwarf), whose user call chains the report unwinds? A pipe's
 * events are not known yet: yes (the session copies only what samples
 * carry). For pa_session_opts.keep_user_stacks. */
bool pa_cli_user_stacks(struct pa_file *f)
{
	return pa_file_mode(f) == PA_FILE_MODE_PIPE || pa_file_records_user_stacks(f);
}

/* -v: the user stacks of a recording from another arch stay as the kernel
 * recorded them (a recording that names no arch is taken for this
 * machine's, as perf does). */
static void print_unwind_note(struct pa_file *f)
{
	const char *arch = pa_file_header(f)->arch;
	struct utsname un;
	if (pa_resolver_unwinds_arch(arch) || !pa_file_records_user_stacks(f))
		return;
	fprintf(stderr,
	        "pa: user stacks not unwound (perf record --call-graph dwarf): the "
	        "recording's arch is '%s', pa unwinds x86 (x86_64, i386) only\n",
	        arch && *arch ? arch
	        : uname(&un)  ? ""
	                      : un.machine);
}

/* Whether a -g argument names an order (perf accepts any prefix). */
static bool names_order(const char *g)
{
	while (g && *g) {
		size_t n = strcspn(g, ",");
		if (n && (!strncmp(g, "caller", n) || !strncmp(g, "callee", n)))
			return true;
		g += n + (g[n] == ',');
	}
	return false;
}

/* perf parses options in order and both -g's threshold and --percent-limit
 * set the call-graph threshold: the last one given counts. */
static bool percent_limit_after_g(int argc, const char **argv)
{
	int last_g = -1, last_pl = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--percent-limit", 15))
			last_pl = i;
		else if (!strncmp(a, "--call-graph", 12) || (a[0] == '-' && a[1] == 'g'))
			last_g = i;
	}
	return last_pl > last_g;
}

/* --html FILE: pa view's page instead of the stdio report, with the
 * report's filters and symbol options (the page computes every sort). */
static int report_html(const char *input, const char *html, const struct pa_report_opts *ro)
{
	struct pa_trace_opts to = {.sz = sizeof(to), .res = {.sz = sizeof(to.res)}};
	to.filter = (struct pa_filter_spec){
	    .dsos = ro->dsos,
	    .comms = ro->comms,
	    .symbols = ro->symbols,
	    .pids = ro->pids,
	    .tids = ro->tids,
	    .cpus = ro->cpus,
	    .time = ro->time,
	    .events = ro->events,
	};
	to.res.no_demangle = ro->no_demangle;
	to.res.symfs = ro->symfs;
	to.res.buildid_dir = ro->buildid_dir;
	to.res.kallsyms = ro->kallsyms;
	to.res.vmlinux = ro->vmlinux;
	to.max_stack = ro->max_stack;
	to.no_inline = ro->no_inline;
	return pa_cli_view_write(input, html, &to, NULL);
}

/* What report's options give besides pa_report_opts. */
struct report_args {
	const char *input, *path, *callgraph, *percentage, *max_memory, *html;
	bool header_only, header, stdio_, children, inline_, no_pager, branch, no_branch, force,
	    stats, tasks;
	int quiet, verbose;
	long max_stack;
	double percent_limit;
	uint64_t max_mem;
};

/* The options' values checked, and what they set in ro before the file is
 * open. 0 or PA_EXIT_USAGE (said). */
static int check_args(struct report_args *a, struct pa_report_opts *ro, int argc, const char **argv)
{
	if (pa_cli_size_opt("max-memory", a->max_memory, &a->max_mem))
		return PA_EXIT_USAGE;
	if (a->percentage && strcmp(a->percentage, "relative") &&
	    strcmp(a->percentage, "absolute")) {
		fprintf(stderr, "pa: report: --percentage takes relative or absolute\n");
		return PA_EXIT_USAGE;
	}
	if (a->max_stack < 0) {
		fprintf(stderr, "pa: report: --max-stack takes a positive number\n");
		return PA_EXIT_USAGE;
	}
	/* perf refuses an unreadable --vmlinux before reading anything */
	if (ro->vmlinux && access(ro->vmlinux, R_OK)) {
		fprintf(stderr, "pa: report: --vmlinux '%s': %s\n", ro->vmlinux, strerror(errno));
		return PA_EXIT_USAGE;
	}
	a->path = a->input ? a->input : "perf.data";
	ro->relative = a->percentage && !strcmp(a->percentage, "relative");
	ro->no_inline = !a->inline_;
	ro->max_stack = (int)a->max_stack;
	ro->quiet = a->quiet > 0;
	ro->all_symbols = a->verbose > 0;
	/* (perf's -q makes it quiet whatever -v said: plain columns) */
	ro->verbose_columns = a->verbose > 0 && !a->quiet;
	ro->percent_limit = a->percent_limit;
	if (a->percent_limit > 0 && percent_limit_after_g(argc, argv)) {
		ro->has_call_graph_threshold = true;
		ro->call_graph_threshold = a->percent_limit;
	}
	return 0;
}

/* --header-only, --stats, --tasks: what they print instead of the report. */
static int report_info(struct pa_file *f, const struct report_args *a)
{
	struct pa_pager pager;
	int status = 0;
	if (a->header_only) {
		pa_pager_start(&pager, a->no_pager);
		status = pa_cli_print_header(f, a->path);
		return pa_pager_finish(&pager, status);
	}
	struct pa_err err = {0};
	/* (counts and threads: no call chain, no sample's map looked up) */
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .no_callchains = true,
	                             .lazy_sample_loc = true,
	                             .order_needs_ids = true};
	struct pa_session *s = pa_session_new(f, &so, &err);
	pa_pager_start(&pager, a->no_pager);
	if (!s || (a->stats ? pa_report_stats(s, stdout, &err) : pa_report_tasks(s, stdout, &err)))
		status = pa_cli_error(a->path, &err);
	pa_session_free(s);
	return pa_pager_finish(&pager, status);
}

/* What perf report decides from the file before reading samples: branch
 * mode, call chains, children, the call-graph order (*cg: an allocated
 * -g argument, the caller's to free). 0 or PA_EXIT_USAGE (said). A pipe's
 * events are not known yet: perf then keeps call graphs but cannot
 * accumulate children (its order default stays). */
static int decide_modes(struct pa_file *f, const struct report_args *a, struct pa_report_opts *ro,
                        char **cg)
{
	if (a->header && pa_file_mode(f) == PA_FILE_MODE_PIPE) {
		fprintf(stderr, "pa: report: --header needs a file, not a pipe\n");
		return PA_EXIT_USAGE;
	}
	bool pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;
	int bm = branch_mode(f, a->no_branch ? 0 : a->branch ? 1 : -1);
	if (bm < 0)
		return PA_EXIT_USAGE;
	ro->branch = bm;
	/* (branch mode keeps no call chains, recorded or not) */
	bool file_chains = pipe || file_has_callchains(f), has_chains = !bm && file_chains;
	const char *g = a->callgraph;
	bool graphs = !(g && !strncmp(g, "none", 4));
	bool wants_parent = ro->parent || (ro->sort && strstr(ro->sort, "parent"));
	if (!pipe && !file_chains && (wants_parent || (g && graphs))) {
		fprintf(stderr,
		        "pa: report: %s, but the recording has no call chains (perf record -g)\n",
		        wants_parent ? "parent symbols need call chains" : "-g needs call chains");
		return PA_EXIT_USAGE;
	}
	ro->children = a->children && has_chains && !pipe;
	ro->callchain = has_chains && (graphs || ro->children || wants_parent);
	ro->call_graph = graphs ? g : "none";
	/* --children makes callers the default order, even when a pipe
	 * cancels the accumulation */
	if (a->children && graphs && !names_order(g)) {
		if (asprintf(cg, "%s%scaller", g ? g : "", g ? "," : "") < 0) {
			*cg = NULL;
			return PA_EXIT_USAGE;
		}
		ro->call_graph = *cg;
	}
	ro->no_threads = pa_cli_no_threads();
	return 0;
}

/* The warnings after a report was printed. */
static void report_notes(struct pa_file *f, struct pa_report *r, const struct report_args *a,
                         const struct pa_report_opts *ro)
{
	pa_cli_filter_hints("report", &r, 1, ro);
	if (a->verbose)
		pa_report_foreach_dso_note(r, print_dso_note, NULL);
	if (a->verbose && ro->callchain)
		print_unwind_note(f);
	if (pa_report_no_samples(r))
		fprintf(stderr, "pa: '%s': warning: no samples to report%s\n", a->path,
		        ro->cpus || ro->time ? " in the --cpu and --time ranges" : "");
	if (pa_file_was_truncated(f))
		fprintf(stderr,
		        "pa: '%s': warning: data cut short, reported up to the last "
		        "complete record\n",
		        a->path);
}

/* The report itself: read, sort, print. */
static int run_report(struct pa_file *f, const struct report_args *a,
                      const struct pa_report_opts *ro)
{
	struct pa_err err = {0};
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .order_needs_ids = true,
	                             .no_callchains = !ro->callchain,
	                             .max_memory = a->max_mem,
	                             .keep_user_stacks = ro->callchain && pa_cli_user_stacks(f),
	                             .keep_branches = ro->branch,
	                             .lazy_sample_loc = true,
	                             .keys_ahead = ro->callchain};
	struct pa_progress prog;
	pa_progress_init(&prog, "Processing events", a->quiet, true);
	prog.then = "sorting";
	pa_progress_session(&prog, f, &so);
	struct pa_session *s = pa_session_new(f, &so, &err);
	struct pa_report *r = s ? pa_report_new(s, ro, &err) : NULL;
	int rr = !r || pa_report_run(r, &err);
	pa_progress_end(&prog);
	/* the pager once there is something to show (not for an error) */
	struct pa_pager pager;
	pa_pager_start(&pager, a->no_pager || (rr && !a->header));
	if (a->header)
		pa_print_header(stdout, f);
	int status = 0;
	if (rr || pa_report_print(r, stdout, &err))
		status = pa_cli_fail("report", a->path, &err);
	else
		report_notes(f, r, a, ro);
	status = pa_pager_finish(&pager, status);
	pa_report_free(r);
	pa_session_free(s);
	return status;
}

int cmd_report(int argc, const char **argv)
{
	struct report_args a = {.children = true, .inline_ = true};
	struct pa_report_opts ro = {.sz = sizeof(ro)};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &a.input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    OPT_BOOL(0, "header-only", &a.header_only, "print the header and stop"),
	    OPT_BOOL(0, "stats", &a.stats,
	             "only the number of records of each type, and of samples"),
	    OPT_BOOL(0, "tasks", &a.tasks, "only the threads, as a tree of who forked whom"),
	    OPT_BOOL(0, "header", &a.header, "print the header, then the report"),
	    OPT_BOOL(0, "stdio", &a.stdio_,
	             "use the stdio interface (the only one; pa view: an interactive one)"),
	    OPT_STRING(0, "html", &a.html, "file",
	               "write pa view's interactive HTML page to file instead (see pa view)"),
	    PA_OPT_NO_PAGER(&a.no_pager),
	    OPT_COUNT('q', "quiet", &a.quiet, "print rows only"),
	    OPT_BOOL('n', "show-nr-samples", &ro.show_nr_samples,
	             "show the number of samples of each row"),
	    OPT_BOOL(0, "show-total-period", &ro.show_total_period, "show the period of each row"),
	    OPT_BOOL('T', "threads", &ro.show_threads,
	             "per-thread event counts after the report (perf record -s)"),
	    OPT_COUNT('v', "verbose", &a.verbose, "say why DSOs have no symbols"),
	    OPT_BOOL(0, "children", &a.children,
	             "accumulate callchains of children (default; --no-children)"),
	    OPT_STRING_OPTARG('g', "call-graph", &a.callgraph, "mode",
	                      "graph|flat|fractal|folded|none,threshold,print_limit,caller|callee,"
	                      "function|address,percent|period|count",
	                      "graph,0.5,caller,function,percent"),
	    OPT_INT(0, "max-stack", &a.max_stack, "n",
	            "at most n call-chain entries (default 127)"),
	    OPT_STRING(0, "ignore-callees", &ro.ignore_callees, "regex",
	               "ignore callees of functions that match"),
	    OPT_STRING('p', "parent", &ro.parent, "regex",
	               "parent symbols (adds the parent column)"),
	    OPT_STRING('s', "sort", &ro.sort, "keys",
	               "sort by keys: comm,pid,tid,dso,sym,cpu,parent"),
	    OPT_STRING('F', "fields", &ro.fields, "keys",
	               "output fields: overhead,sample,period + sort keys"),
	    PA_OPTS_REPORT_FILTERS(&ro, 'c', 'C'),
	    OPT_DOUBLE(0, "percent-limit", &a.percent_limit, "percent",
	               "hide rows (and call-graph branches) below this percentage"),
	    OPT_STRING(0, "percentage", &a.percentage, "relative|absolute",
	               "how filtered rows are counted"),
	    PA_OPTS_SYMBOLS(&ro),
	    OPT_STRING(0, "max-memory", &a.max_memory, "size", PA_MAX_MEMORY_HELP),
	    OPT_BOOL(0, "no-demangle", &ro.no_demangle, "do not demangle symbol names"),
	    OPT_BOOL('f', "force", &a.force, "accepted for perf's command lines"),
	    OPT_BOOL('b', "branch-stack", &a.branch,
	             "branch mode: the samples' branch entries are the entries (default when "
	             "recorded with -b; --no-branch-stack)"),
	    OPT_BOOL(0, "no-branch-stack", &a.no_branch, "not branch mode, even for -b recordings"),
	    OPT_BOOL(0, "inline", &a.inline_,
	             "inline frames of DWARF-unwound call chains, as perf (default; --no-inline)"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa report [options]");
	if (n < 0)
		return n;
	int status = check_args(&a, &ro, argc, argv);
	if (status)
		return status;
	pa_cli_stream_heap();
	if (a.html)
		return report_html(a.input, a.html, &ro);
	struct pa_file *f = pa_cli_open(a.input, &status);
	if (!f)
		return status;
	char *cg = NULL;
	bool info = a.header_only || a.stats || a.tasks;
	/* perf report on a terminal is its interactive browser unless told
	 * --stdio; pa's is the stdio one, its interactive one pa view */
	if (!a.stdio_ && !a.quiet && !info && isatty(STDOUT_FILENO))
		fprintf(stderr, "pa: report: this is the --stdio report; for an interactive one: "
		                "pa view -o report.html\n");
	if (info)
		status = report_info(f, &a);
	else if (!(status = decide_modes(f, &a, &ro, &cg)))
		status = run_report(f, &a, &ro);
	pa_file_close(f);
	free(cg);
	return status;
}
