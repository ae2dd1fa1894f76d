/* cmd-view.c - `pa view -o FILE.html`: one self-contained HTML page to
 * explore the recording (call trees, flat table, flame graph, timeline,
 * filters, search). Wiring only: the trace is resolver/'s, the page
 * view/'s. pa_cli_view_write() is the entry `pa report --html` shares. */
#include "cli.h"
#include "view/view.h"

#include <string.h>

struct view_out {
	struct pa_trace *t;
	const struct pa_view_opts *vo;
};

static int write_view(void *ctx, FILE *f, struct pa_err *err)
{
	struct view_out *x = ctx;
	return pa_view_write(x->t, x->vo, f, err);
}

/* The trace's filters, as a command line would say them (for the page). */
static void describe_filters(char *buf, size_t size, const struct pa_filter_spec *fs)
{
	const char *names[] = {"--cpu", "--time", "--event"};
	const char *vals[] = {fs->cpus, fs->time, fs->events};
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!vals[i] || len >= size)
			continue;
		int n =
		    snprintf(buf + len, size - len, "%s%s %s", len ? " " : "", names[i], vals[i]);
		if (n > 0)
			len += (size_t)n;
	}
}

int pa_cli_view_write(const char *input, const char *output, struct pa_trace_opts *to,
                      const struct pa_view_opts *vo)
{
	const char *path = input ? input : "perf.data";
	char filters[1024];
	struct pa_view_opts o = vo ? *vo : (struct pa_view_opts){.sz = sizeof(o)};
	/* --dsos, --comms, --symbols, --pid and --tid hide rows and keep the
	 * total (pa report's, perf's --percentage absolute): the page's
	 * initial filters, not the trace's. --cpu, --time and --event drop
	 * samples from the total too: the trace's. */
	struct pa_filter_spec rows = to->filter;
	to->filter.dsos = to->filter.comms = to->filter.symbols = NULL;
	to->filter.pids = to->filter.tids = NULL;
	if (!o.rows)
		o.rows = &rows;
	describe_filters(filters, sizeof(filters), &to->filter);
	if (!o.filters && filters[0])
		o.filters = filters;
	to->callchains = true;
	int status = 0;
	struct pa_err err = {0};
	/* the page's filters checked as the trace's would be (a bad pid) */
	struct pa_filter_spec page = {.dsos = o.rows->dsos,
	                              .comms = o.rows->comms,
	                              .symbols = o.rows->symbols,
	                              .pids = o.rows->pids,
	                              .tids = o.rows->tids};
	struct pa_filter check = {0};
	struct pa_arena arena;
	pa_arena_init(&arena, 4096);
	int ret = pa_filter_parse(&check, &arena, &page, &err);
	pa_arena_release(&arena);
	if (ret)
		return pa_cli_fail("view", path, &err);
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_session *s = NULL;
	struct pa_progress prog;
	bool to_stdout = !strcmp(output, "-");
	pa_progress_init(&prog, "Processing events", false, to_stdout);
	prog.then = "writing";
	struct pa_trace *t = pa_cli_trace(f, to, &prog, &s, &err);
	int rt = !t || pa_trace_run(t, &err);
	if (rt || to_stdout)
		pa_progress_end(&prog);
	if (rt) {
		status = pa_cli_fail("view", path, &err);
	} else {
		struct view_out x = {t, &o};
		status = pa_cli_write_output(output, write_view, &x);
		pa_progress_end(&prog);
	}
	pa_trace_free(t);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}

int cmd_view(int argc, const char **argv)
{
	const char *input = NULL, *output = NULL;
	bool inline_ = true;
	long max_stack = 0, buckets = 0;
	struct pa_trace_opts to = {.sz = sizeof(to), .res = {.sz = sizeof(to.res)}};
	struct pa_view_opts vo = {.sz = sizeof(vo)};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    OPT_STRING('o', "output", &output, "file", "output HTML file (- for stdout)"),
	    OPT_STRING(0, "title", &vo.title, "text",
	               "the page's title (default: the input's name)"),
	    OPT_INT(0, "buckets", &buckets, "n", "time buckets of the timeline (default 500)"),
	    PA_OPTS_TRACE(&to, &max_stack, &inline_),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa view -o FILE.html [options]");
	if (n < 0)
		return n;
	if (!output) {
		fprintf(stderr, "pa: view: -o FILE is required\n");
		return PA_EXIT_USAGE;
	}
	if (max_stack < 0 || buckets < 0 || buckets > 100000) {
		fprintf(stderr, "pa: view: --max-stack and --buckets take a positive number\n");
		return PA_EXIT_USAGE;
	}
	to.max_stack = (int)max_stack;
	to.no_inline = !inline_;
	vo.nr_buckets = (unsigned)buckets;
	return pa_cli_view_write(input, output, &to, &vo);
}
