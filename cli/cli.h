/* cli.h - what the command files share. Only cli/ prints and exits. */
#ifndef PA_CLI_H
#define PA_CLI_H

#include <stdio.h>

#include "formats/formats.h"
#include "options.h"

/* Exit statuses: 0 fine, 1 usage or environment, 2 bad input. */
enum { PA_EXIT_OK = 0, PA_EXIT_USAGE = 1, PA_EXIT_BADINPUT = 2 };

/* Print "pa: 'PATH': message at offset N" and return the exit status. */
int pa_cli_error(const char *path, const struct pa_err *err);

/* The session of f and its trace with opts (threads as PA_NO_THREADS
 * says, DWARF stacks unwound by libdwfl alone when PA_SLOW_UNWIND is set:
 * resolver.h's slow_unwind, for tests; user stacks kept when call chains
 * are asked for and recorded, reading shown by prog unless NULL): NULL
 * with err set (and *s, when made, to free after the trace). */
struct pa_trace_opts;
struct pa_session;
struct pa_progress;
struct pa_trace *pa_cli_trace(struct pa_file *f, struct pa_trace_opts *opts,
                              struct pa_progress *prog, struct pa_session **s,
                              struct pa_err *err);

/* A command's failure: a usage error as "pa: CMD: message" (exit 1), else
 * as pa_cli_error() says it. Returns the exit status. */
int pa_cli_fail(const char *cmd, const char *path, const struct pa_err *err);

/* A size option's value ("512M", "4G"...) into *out; unset (NULL) leaves
 * *out alone. -1 after printing why when it is not a size. */
int pa_cli_size_opt(const char *name, const char *s, uint64_t *out);

#define PA_MAX_MEMORY_HELP                                                                         \
	"cap on the memory of threads, maps, samples and stacks (like 512M; default: 4G, and at "  \
	"most 256M + 64 x the input read; 1G on 32-bit hosts)"

/* PA_NO_THREADS set: everything on one thread (for profiling pa itself). */
bool pa_cli_no_threads(void);

/* Does the recording keep user stacks to unwind (pa_session_opts.keep_user_stacks
 * for commands that read call chains)? In cmd-report.c. */
bool pa_cli_user_stacks(struct pa_file *f);

/* The reader's options of every command: its warnings (damaged optional
 * sections) printed on stderr, one line each; no helper thread with
 * PA_NO_THREADS. */
struct pa_file_opts pa_cli_file_opts(void);

/* Open an input the way every command does (default "perf.data"). */
struct pa_file *pa_cli_open(const char *path, int *status);

/* The heap of a command that streams a whole recording (report, script,
 * folded). The session frees each round's queue memory (256 KB blocks)
 * and allocates the next one's: freed memory stays in the heap instead
 * of being unmapped and faulted back in, round after round. Tables of 4 MB
 * and more are mapped on their own, so that growing one moves its pages
 * (mremap) instead of leaving its old copy as a hole in the heap (big.data's
 * default report: a peak of 92 MiB against 99, as fast; bench/README.md).
 * The commands' second threads allocate little: one arena for all. */
void pa_cli_stream_heap(void);

/* The header block of `perf report --header-only`. */
int pa_print_header(FILE *out, struct pa_file *f);
/* The same on stdout, reading a pipe's feature records first: the file is
 * consumed in pipe mode. Returns an exit status. */
int pa_cli_print_header(struct pa_file *f, const char *path);

/* An input that is a recording or folded text (input.c): path ("-":
 * standard input) opened, copied to a temporary file when it cannot seek,
 * and told apart by its first bytes. A recording is to be opened by
 * open_path; folded text is read from in. Returns an exit status (after
 * printing why); pa_cli_input_close() in any case. */
struct pa_cli_input {
	bool recording;
	const char *open_path; /* path, or the temporary copy */
	FILE *in;              /* folded text, at its start */
	char *spooled;
};
int pa_cli_input_open(struct pa_cli_input *ci, const char *path);
void pa_cli_input_close(struct pa_cli_input *ci);

/* Write an output file with write(ctx, f, err): whole or not at all
 * (a temporary file renamed over out once write returned 0 and the file
 * closed); "-" is stdout. Prints why it failed; returns an exit status. */
typedef int (*pa_cli_writer_fn)(void *ctx, FILE *f, struct pa_err *err);
int pa_cli_write_output(const char *out, pa_cli_writer_fn write, void *ctx);

/* The options of commands that read a pa_trace (script, export): perf's
 * sample filters into a pa_filter_spec, and the symbol options into a
 * pa_resolver_opts. One table each, spliced into the commands' tables. */
#define PA_OPTS_TRACE_FILTERS(f)                                                                   \
	OPT_STRING('c', "comms", &(f)->comms, "list", "only these comms"),                         \
	    OPT_STRING(0, "pid", &(f)->pids, "list", "only these pids"),                           \
	    OPT_STRING(0, "tid", &(f)->tids, "list", "only these tids"),                           \
	    OPT_STRING('C', "cpu", &(f)->cpus, "list", "only these cpus"),                         \
	    OPT_STRING(0, "time", &(f)->time, "start,stop", "only samples in this time window"),   \
	    OPT_STRING(0, "dsos", &(f)->dsos, "list", "only samples whose ip is in these DSOs"),   \
	    OPT_STRING('S', "symbols", &(f)->symbols, "list", "only samples in these symbols")
/* perf report's sample filters (also perf diff's, whose -C is --comms and
 * whose --cpu has no short name) into a pa_report_opts. */
#define PA_OPTS_REPORT_FILTERS(ro, comms_short, cpu_short)                                         \
	OPT_STRING('d', "dsos", &(ro)->dsos, "list", "only consider these DSOs"),                  \
	    OPT_STRING(comms_short, "comms", &(ro)->comms, "list", "only consider these comms"),   \
	    OPT_STRING('S', "symbols", &(ro)->symbols, "list", "only consider these symbols"),     \
	    OPT_STRING(0, "pid", &(ro)->pids, "list", "only consider these pids"),                 \
	    OPT_STRING(0, "tid", &(ro)->tids, "list", "only consider these tids"),                 \
	    OPT_STRING(cpu_short, "cpu", &(ro)->cpus, "list", "only consider these cpus"),         \
	    OPT_STRING(0, "time", &(ro)->time, "start,stop",                                       \
	               "only consider samples in this time window")
/* (also into a pa_report_opts, whose fields have these names too) */
#define PA_OPTS_SYMBOLS(r)                                                                         \
	OPT_STRING(0, "symfs", &(r)->symfs, "dir", "look for files relative to this directory"),   \
	    OPT_STRING(0, "buildid-dir", &(r)->buildid_dir, "dir",                                 \
	               "build-id cache (default ~/.debug)"),                                       \
	    OPT_STRING(0, "kallsyms", &(r)->kallsyms, "file", "kallsyms file to use for the kernel"), \
	    OPT_STRING('k', "vmlinux", &(r)->vmlinux, "file",                                      \
	               "vmlinux for the kernel's symbols (if its build-id matches)")

/* The pager (pager.c), as perf and git run it: when stdout is a terminal,
 * the command's text goes through $PA_PAGER, else $PERF_PAGER, else
 * $PAGER, else `less` (run by sh -c, LESS=FRSX when LESS is unset); ""
 * or "cat" means none, and so does off (--no-pager; `pa --no-pager CMD`
 * sets PA_PAGER=cat). Stderr goes to the pager too when it is a terminal.
 * start -> the text on stdout -> finish: finish waits for the pager and
 * returns status; a write error of the closed pipe (the user quit the
 * pager) is cleared, not reported. Nothing runs when it is not wanted or
 * cannot start (pid -1). */
struct pa_pager {
	int pid; /* -1: no pager */
	int saved_out, saved_err;
};
void pa_pager_start(struct pa_pager *p, bool off);
int pa_pager_finish(struct pa_pager *p, int status);
#define PA_OPT_NO_PAGER(v) OPT_BOOL(0, "no-pager", (v), "do not pipe the output into a pager")

/* A one-line progress indicator on stderr (progress.c), perf's
 * "Processing events": drawn when work has run a second
 * (PA_PROGRESS_DELAY_MS sets that delay, PA_PROGRESS=0 turns it off),
 * only on a terminal, not with quiet, and, when the command's text goes
 * to stdout (text_on_stdout), only while stdout is that terminal.
 * init -> bytes/items as the work goes -> end (which erases it: before
 * any output, and before pa_pager_start). Items: "WHAT: N of M UNIT"
 * (M 0: unknown). A new phase: clear, then set what. */
struct pa_progress {
	bool on, shown;
	const char *what;
	const char *then; /* said once the input is read (e.g. "sorting"), or NULL */
	uint64_t total;   /* the input's bytes (0: unknown, a pipe) */
	uint64_t start, next, delay;
};
struct pa_session_opts;
void pa_progress_init(struct pa_progress *p, const char *what, bool quiet, bool text_on_stdout);
void pa_progress_bytes(struct pa_progress *p, uint64_t done, uint64_t total, uint64_t samples,
                       bool last);
void pa_progress_items(struct pa_progress *p, uint64_t done, uint64_t total, const char *unit);
/* clear: erase the line for another message (the next call redraws it) */
void pa_progress_clear(struct pa_progress *p);
void pa_progress_end(struct pa_progress *p);
/* Hook p (NULL: none) into a session of f: "N MB of M MB (P%), S samples". */
void pa_progress_session(struct pa_progress *p, struct pa_file *f, struct pa_session_opts *so);

/* Filters that match nothing say so (hint.c): for each name of the
 * --dsos, --comms and --symbols lists of ro that none of the nr reports'
 * samples had, one line on stderr, "pa: CMD: --dsos 'libc.so' matches no
 * sampled DSO; did you mean 'libc.so.6'?" with the closest names (edit
 * distance or prefix). After pa_report_run(). */
struct pa_report;
struct pa_report_opts;
void pa_cli_filter_hints(const char *cmd, struct pa_report *const *r, unsigned nr,
                         const struct pa_report_opts *ro);

/* The options of a command made on a pa_trace (export, view): its
 * filters, symbol sources, --max-stack (into a long), --event,
 * --no-demangle and --[no-]inline (into a bool, true by default). */
#define PA_OPTS_TRACE(to, max_stack, inline_)                                                      \
	OPT_INT(0, "max-stack", max_stack, "n", "at most n call-chain entries (default 127)"),     \
	    OPT_STRING(0, "event", &(to)->filter.events, "list", "only these events"),             \
	    PA_OPTS_TRACE_FILTERS(&(to)->filter), PA_OPTS_SYMBOLS(&(to)->res),                     \
	    OPT_BOOL(0, "no-demangle", &(to)->res.no_demangle, "do not demangle symbol names"),    \
	    OPT_BOOL(0, "inline", inline_,                                                         \
	             "inline frames of DWARF-unwound call chains, as perf (default; --no-inline)")

/* The options of the commands that fold stacks (folded, flamegraph): the
 * frames, the weights and the sample filters into a pa_report_opts, the
 * others into the variables given (bools; max_stack a long, max_memory a
 * string; inline_ true by default). */
#define PA_OPTS_STACKS(ro, exclude_idle, period, count, max_stack, max_memory, inline_)            \
	OPT_BOOL(0, "pid", &(ro)->stack_pid, "process frames as COMM-PID"),                        \
	    OPT_BOOL(0, "tid", &(ro)->stack_tid, "process frames as COMM-PID/TID"),                \
	    OPT_BOOL('d', "delimiter", &(ro)->delimiter,                                           \
	             "a \"-\" frame between user and kernel frames"),                              \
	    OPT_BOOL('U', "user-stacks-only", &(ro)->user_only, "user frames only"),               \
	    OPT_BOOL('K', "kernel-stacks-only", &(ro)->kernel_only, "kernel frames only"),         \
	    OPT_BOOL(                                                                              \
	        'I', "include-idle", &(ro)->include_idle,                                          \
	        "keep the idle task's stacks (pid 0; the default, as stackcollapse-perf.pl)"),     \
	    OPT_BOOL(0, "exclude-idle", exclude_idle,                                              \
	             "drop the idle task's stacks (pid 0), as bcc's profile without -I"),          \
	    OPT_BOOL(0, "period", period,                                                          \
	             "weight stacks by period (the default, as stackcollapse-perf.pl)"),           \
	    OPT_BOOL(0, "count", count, "weight stacks by sample count, as bcc's profile"),        \
	    OPT_STRING(0, "trim-frames", &(ro)->trim_frames, "regex",                              \
	               "drop leaf-side frames that match (the recorder's own)"),                   \
	    OPT_INT(0, "max-stack", max_stack, "n", "at most n call-chain entries (default 127)"), \
	    OPT_STRING('e', "event", &(ro)->events, "list",                                        \
	               "only these events (default: the first one sampled, like stackcollapse)"),  \
	    OPT_STRING('c', "comms", &(ro)->comms, "list", "only these comms"),                    \
	    OPT_STRING(0, "dsos", &(ro)->dsos, "list", "only samples whose ip is in these DSOs"),  \
	    OPT_STRING(0, "pids", &(ro)->pids, "list", "only these pids"),                         \
	    OPT_STRING(0, "tids", &(ro)->tids, "list", "only these tids"),                         \
	    OPT_STRING('C', "cpu", &(ro)->cpus, "list", "only these cpus"),                        \
	    OPT_STRING(0, "time", &(ro)->time, "start,stop", "only samples in this time window"),  \
	    PA_OPTS_SYMBOLS(ro),                                                                   \
	    OPT_STRING(0, "max-memory", max_memory, "size", PA_MAX_MEMORY_HELP),                   \
	    OPT_BOOL(0, "no-demangle", &(ro)->no_demangle, "do not demangle symbol names"),        \
	    OPT_BOOL(0, "inline", inline_,                                                         \
	             "inline frames of DWARF-unwound call chains, as perf (default; --no-inline)")

int cmd_annotate(int argc, const char **argv);
int cmd_archive(int argc, const char **argv);
int cmd_buildid_cache(int argc, const char **argv);
int cmd_buildid_list(int argc, const char **argv);
int cmd_header(int argc, const char **argv);
int cmd_diff(int argc, const char **argv);
int cmd_dump(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_script(int argc, const char **argv);
int cmd_folded(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_flamegraph(int argc, const char **argv);
int cmd_view(int argc, const char **argv);
/* pa view's page of input into output (cmd-view.c), shared with `pa report
 * --html`: the trace options' row filters (dsos, comms, symbols, pids, tids)
 * become the page's, which keep the total; vo may be NULL. An exit status. */
struct pa_view_opts;
int pa_cli_view_write(const char *input, const char *output, struct pa_trace_opts *to,
                      const struct pa_view_opts *vo);

#endif
