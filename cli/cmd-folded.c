/* cmd-folded.c - `pa folded`: one line per unique stack, what
 * `perf script | stackcollapse-perf.pl` prints (FlameGraph's folded
 * format), straight from perf.data. Wiring only: the stacks are the
 * report layer's. */
#include "cli.h"
#include "report/report.h"

#include <inttypes.h>
#include <malloc.h>
#include <string.h>

struct out_ctx {
	FILE *out;
	bool period;
};

static int print_stack(void *ctx, const struct pa_stack *st)
{
	struct out_ctx *o = ctx;
	fputs(st->process, o->out);
	for (uint32_t i = 0; i < st->nr_frames; i++) {
		fputc(';', o->out);
		fputs(st->frames[i].name, o->out);
	}
	fprintf(o->out, " %" PRIu64 "\n", o->period ? st->period : st->count);
	return ferror(o->out) ? -1 : 0;
}

int cmd_folded(int argc, const char **argv)
{
	const char *input = NULL, *max_memory = NULL;
	bool all = false, period = false, inline_ = true;
	long max_stack = 0;
	struct pa_report_opts ro = {.sz = sizeof(ro)};
	const struct pa_option opts[] = {
	    OPT_STRING('i', "input", &input, "file",
	               "input file name (default perf.data, - for stdin)"),
	    OPT_BOOL(0, "pid", &ro.stack_pid, "process frames as COMM-PID"),
	    OPT_BOOL(0, "tid", &ro.stack_tid, "process frames as COMM-PID/TID"),
	    OPT_BOOL('d', "delimiter", &ro.delimiter,
	             "a \"-\" frame between user and kernel frames"),
	    OPT_BOOL('a', "all", &all, "annotate kernel (_[k]) and JIT (_[j]) frames"),
	    OPT_BOOL(0, "kernel", &ro.annotate_kernel, "annotate kernel frames with _[k]"),
	    OPT_BOOL(0, "jit", &ro.annotate_jit, "annotate JIT frames with _[j]"),
	    OPT_BOOL('U', "user-stacks-only", &ro.user_only, "user frames only"),
	    OPT_BOOL('K', "kernel-stacks-only", &ro.kernel_only, "kernel frames only"),
	    OPT_BOOL('I', "include-idle", &ro.include_idle, "keep the idle task's stacks (pid 0)"),
	    OPT_BOOL(0, "period", &period, "weight stacks by period instead of sample count"),
	    OPT_STRING(0, "trim-frames", &ro.trim_frames, "regex",
	               "drop leaf-side frames that match (the recorder's own)"),
	    OPT_INT(0, "max-stack", &max_stack, "n", "at most n call-chain entries (default 127)"),
	    OPT_STRING('e', "event", &ro.events, "list",
	               "only these events (default: the first one sampled, like stackcollapse)"),
	    OPT_STRING('c', "comms", &ro.comms, "list", "only these comms"),
	    OPT_STRING(0, "dsos", &ro.dsos, "list", "only samples whose ip is in these DSOs"),
	    OPT_STRING(0, "pids", &ro.pids, "list", "only these pids"),
	    OPT_STRING(0, "tids", &ro.tids, "list", "only these tids"),
	    OPT_STRING('C', "cpu", &ro.cpus, "list", "only these cpus"),
	    OPT_STRING(0, "time", &ro.time, "start,stop", "only samples in this time window"),
	    OPT_STRING(0, "symfs", &ro.symfs, "dir", "look for files relative to this directory"),
	    OPT_STRING(0, "buildid-dir", &ro.buildid_dir, "dir",
	               "build-id cache (default ~/.debug)"),
	    OPT_STRING(0, "kallsyms", &ro.kallsyms, "file", "kallsyms file to use for the kernel"),
	    OPT_STRING('k', "vmlinux", &ro.vmlinux, "file",
	               "vmlinux for the kernel's symbols (if its build-id matches)"),
	    OPT_STRING(0, "max-memory", &max_memory, "size", PA_MAX_MEMORY_HELP),
	    OPT_BOOL(0, "no-demangle", &ro.no_demangle, "do not demangle symbol names"),
	    OPT_BOOL(0, "inline", &inline_, "inline frames of DWARF-unwound call chains, as perf (default; --no-inline)"),
	    OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa folded [options]");
	if (n < 0)
		return n;
	uint64_t max_mem = 0;
	if (pa_cli_size_opt("max-memory", max_memory, &max_mem))
		return PA_EXIT_USAGE;
	/* see cmd-report.c */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_ARENA_MAX, 1);
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
	const char *path = input ? input : "perf.data";
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	ro.no_threads = pa_cli_no_threads();
	struct pa_err err = {0};
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .max_memory = max_mem,
	                             .no_reader_thread = pa_cli_no_threads(),
	                             .keep_user_stacks = pa_cli_user_stacks(f),
	                             .lazy_sample_loc = true};
	struct pa_session *s = pa_session_new(f, &so, &err);
	struct pa_report *r = s ? pa_report_new(s, &ro, &err) : NULL;
	struct out_ctx o = {.out = stdout, .period = period};
	if (!r || pa_report_run(r, &err)) {
		status = pa_cli_fail("folded", path, &err);
	} else {
		int ret = pa_report_foreach_stack(r, print_stack, &o);
		if (ret < 0 && !ferror(stdout)) {
			fprintf(stderr, "pa: '%s': %s\n", path, pa_strerror(ret));
			status = PA_EXIT_BADINPUT;
		}
		if (pa_file_was_truncated(f))
			fprintf(stderr,
			        "pa: '%s': warning: data cut short, folded up to the last "
			        "complete record\n",
			        path);
	}
	pa_report_free(r);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}
