/* report.h - aggregation, sort keys, filters and perf report's stdio output,
 * call graphs (--children, -g), and unique stacks (pa folded, flame graphs).
 *
 * Invariants: samples are aggregated as they stream by into buckets keyed
 * by (event, thread, comm, cpu, location[, stack]); a location is a unique
 * (DSO, map-relative address, level[, raw ip]) and is symbolized once,
 * after the stream. With call chains, each unique chain of locations is kept
 * once, whole; no allocation per sample. Rows
 * and hist entries are built from buckets by the sort keys, then ordered
 * like perf, whose rb-trees are replayed where its comparators are not
 * orders. Comparators are pure.
 *
 * Lifecycle: pa_report_new() -> pa_report_run() -> pa_report_print() and/or
 * pa_report_foreach_stack() -> pa_report_free().
 *
 * Threads: with two or more CPUs, pa_report_run() loads the DSOs' symbols
 * (and source lines, for inline frames and srclines) on a thread beside
 * the stream (pa_resolver_preload); with call chains it turns records into
 * buckets on a second thread, and unwinds half of each run of a
 * --call-graph dwarf recording's user stacks on a helper thread while the
 * session stands still, when the runs before needed libdwfl
 * (pa_chainer_ahead); all are joined before it returns (PA_NO_THREADS in
 * the environment keeps everything on one). The caller sees no
 * concurrency.
 *
 * Limits (what perf 6.1 prints that pa does not reproduce):
 *  - Inline frames (opts.no_inline unset): their names are addr2line's,
 *    and some of those depend on the questions addr2line was asked before
 *    (resolver.h); pa asks in perf's order of call-chain entries, but
 *    perf's --sort srcline questions go to the same addr2line in between:
 *    with both, a name may differ.
 *  - DWARF call chains (--call-graph dwarf) are unwound with libdwfl for
 *    x86_64 (and i386) recordings; other arches keep the recorded chain
 *    and -v says so. Where perf's libunwind build misreads a library's
 *    load address after exec or dlclose/dlopen, pa unwinds as perf's
 *    libdw build does.
 *  - Branch stacks (-b, --call-graph lbr), -g srcline (perf's srcline
 *    key of call-graph nodes), --branch-history, --hierarchy, -x.
 *  - --sort srcline with --symfs: perf hands addr2line the recorded paths
 *    themselves (outside the symfs) where a DSO has no file under it; pa
 *    reads only files under the symfs (its fallback "DSO[ADDR]" there).
 *  - Sort keys with sym: perf's comparator is not an order where
 *    unresolved addresses lie 2^63 or more apart, or (without the DSO key
 *    before sym) where resolved and unresolved addresses of several DSOs
 *    meet; its entry tree then changes shape under a key, and a later
 *    sample of the key may miss its entry and make a second row; so can
 *    inline frames' symbols, which perf compares by name (others by
 *    address), in --children entries. Without the DSO key before sym, or
 *    with inline frames and --children, pa keeps the samples' order and
 *    replays perf's entry trees sample by sample (split rows and their
 *    order as perf's; the stream's sample caches are off then), and
 *    perf's collapse (the comm key) merging split entries again, sums and
 *    call chains (but not the depth perf's output order compares). It does
 *    not where the DSO key comes first without inline frames (unresolved
 *    addresses without a DSO 2^63 apart: pa replays once per bucket, a
 *    thread's samples at one address, so it splits where perf's search
 *    misses for a bucket's first sample only). The sample count of every
 *    key is the same. (Call graphs are exact there: pa rebuilds perf's own
 *    tree chain by chain when siblings mix.) Seen once where it is not
 *    exact: --children with sym before dso (-g none --sort sym,dso) on a
 *    recording whose garbage chain entries hold unresolved addresses 0
 *    and 1 in both kernel and user context among others 2^63 apart,
 *    where perf merges the user entry of each into the kernel one and pa
 *    keeps it apart (one sample each).
 *  - --symfs on a --call-graph dwarf recording whose program is not under
 *    the symfs: perf's libunwind prints no user chain for such a sample,
 *    pa the sampled user ip (as it does where the file is missing without
 *    a symfs).
 *  - --sort srcline, the column's width: perf computes an entry's
 *    srcline when a comparison reaches the key, else only to print it,
 *    cut to the width the others set; pa models those comparisons (its
 *    first tree's, and its output sort's between rows tied before the
 *    key), but on some recordings perf computes one for a row of a single
 *    sample that pa then prints cut (report-symbols accepts that
 *    difference alone: same_cut_srclines).
 *  - DWARF unwinding through the dynamic linker's lazy-binding trampoline
 *    (_dl_runtime_resolve_xsavec, a sample in _dl_fixup): perf's
 *    libunwind goes on to the caller, pa stops there; the inline frames'
 *    names of a DSO whose addresses perf then asked about earlier may
 *    differ too (addr2line's history).
 *  - DWARF unwinding from exit handlers without CFI (a program's _fini,
 *    some of libstdc++'s and libgcc_s's): perf's libunwind often stops at
 *    __run_exit_handlers where libdwfl (and pa) go on to exit, main's
 *    caller and _start; seen in about one recording in four of a short
 *    C++ program.
 *  - --sort srcline on DSOs without line tables whose lookups often fail
 *    (stripped binaries of other processes in system-wide recordings):
 *    perf gives up on a DSO's addr2line after enough failures, so its
 *    answer ("??:0" or "DSO[ADDR]") depends on the order it asked; pa's
 *    does not.
 *  - A FORK that reuses the tid of a live thread (lost EXIT) makes a new
 *    thread named ":TID" until its first COMM overrides that name; perf
 *    shows the override for the new thread's samples only where they did
 *    not join an entry of the old thread first (same keys while both
 *    were ":TID"); pa shows it for all of them.
 *  - perf's "[...] (inlined)" in fractal graphs: perf reads an
 *    uninitialized bit there; pa prints "[...]".
 *  - --children with a srcline key: the chain entries' lookups of
 *    absolute addresses fail in perf's addr2line, and after 123 failures
 *    before a success perf stops asking about that DSO (A2L_FAIL_LIMIT,
 *    PA_SRCLINE_FAIL_LIMIT), so later rows print "SYM+OFF"; pa does not
 *    count perf's failures (it would need the order perf computes them
 *    in). Seen on a fresh frame-pointer recording of deep.cpp, and
 *    likely why perf printed "SYM+OFF" for a libc self entry whose line
 *    addr2line knows (clock_gettime) on a multi-threaded one.
 *  - A data object's row (NAME+0xOFFSET) made by a sample's own ip, not
 *    a call-chain entry: perf subtracts the symbol's load address from
 *    the map-relative address there, and prints what wraps around; pa
 *    prints the offset in the object (it keeps no raw ip of a sample's
 *    location to wrap it as perf does, as it does for a chain entry
 *    that --ignore-callees makes the sample's). A sampled ip is code:
 *    only a generated recording puts one in data.
 *  - DSO order among siblings of equal period follows perf's heap
 *    addresses of DSO objects; pa uses their order of creation, which is
 *    what those addresses give in practice, not always (malloc may reuse
 *    a freed chunk below an older DSO). The call-graph test then accepts
 *    that order alone, with a note (tests/integration/graphnorm.py).
 */
#ifndef PA_REPORT_H
#define PA_REPORT_H

#include <stdio.h>

#include "session/session.h"

struct pa_report_opts {
	size_t sz;
	const char *sort;   /* comma list of comm,pid,tid,dso,sym,cpu,parent; default comm,dso,sym */
	const char *fields; /* -F: overhead,sample,period plus sort keys */
	const char *dsos, *comms, *symbols; /* comma lists (filters) */
	const char *pids, *tids, *cpus;     /* comma lists of numbers / cpu ranges */
	const char *time;                   /* perf's --time start,stop (seconds) */
	double percent_limit;
	bool relative;   /* --percentage relative */
	bool quiet;      /* -q: rows only */
	bool no_demangle;
	const char *symfs, *buildid_dir;
	const char *kallsyms; /* --kallsyms FILE */
	/* read every sampled DSO's symbols even when the output shows none
	 * (for pa_report_foreach_dso_note) */
	bool all_symbols;
	/* -v's columns: the DSOs' long names, and before each symbol its
	 * address and where its symbols came from (perf's origin letter) */
	bool verbose_columns;
	bool use_local_kernel_anyway; /* never set by default */

	/* ---- call chains (perf report -g, --children) ----
	 * Any of these needs a session made with no_callchains = false. */
	bool callchain;       /* keep call chains: raw stacks, call graphs, stacks */
	bool children;        /* --children: Children + Self columns (accumulated) */
	/* -g's argument, perf's syntax: print type graph|flat|fractal|folded|none,
	 * threshold, print limit, caller|callee, function|address,
	 * percent|period|count, in any order, words abbreviable. NULL: perf's
	 * defaults (graph, 0.5, callee order, or caller with children). */
	const char *call_graph;
	int max_stack;        /* --max-stack; 0 means perf's default (127) */
	const char *ignore_callees; /* --ignore-callees REGEX (POSIX extended) */
	const char *parent;   /* --parent REGEX (adds the "parent" sort key) */
	const char *events;   /* NAME,...: only samples of these events (a name
			       * matches with or without its ":modifiers") */
	/* The call-graph threshold when it was set after -g (perf lets
	 * --percent-limit set it too; the last one given wins). */
	double call_graph_threshold;
	bool has_call_graph_threshold;

	/* ---- stacks (pa folded, pa flamegraph; see pa_report_foreach_stack) ---- */
	bool stack_pid;       /* process frame "comm-PID" */
	bool stack_tid;       /* process frame "comm-PID/TID" */
	bool include_idle;    /* keep samples of the idle task (pid 0, "swapper") */
	bool user_only;       /* -U: user frames only (stacks without any: dropped) */
	bool kernel_only;     /* -K: kernel frames only (likewise) */
	/* Kernel frames, for all of these, are stackcollapse-perf.pl's: DSO
	 * names in brackets ([kernel.kallsyms], modules, but also [vdso]) or
	 * ending in "vmlinux"; JIT frames: /tmp/perf-PID.map. */
	bool annotate_kernel; /* suffix "_[k]" on kernel frames */
	bool annotate_jit;    /* suffix "_[j]" on JIT frames */
	bool delimiter;       /* a "-" frame between user frames and kernel frames */
	/* REGEX (POSIX extended): drop the leaf-side frames that match, from
	 * the leaf until one does not (a recorder's own frames) */
	const char *trim_frames;

	/* --vmlinux FILE (-k): kernel symbols from this ELF's .symtab instead
	 * of kallsyms, as perf 6.1 takes them: only when its build-id equals
	 * the recorded kernel's (when one was recorded), relocated by the
	 * recorded "_text" address; otherwise the kernel has no symbols at all
	 * (no fallback to kallsyms; pa_report_foreach_dso_note says why). A
	 * relative path is looked up under symfs. --kallsyms wins over it. */
	const char *vmlinux;
	/* everything on the calling thread (no second thread for the stream,
	 * none for loading the kernel's symbols) */
	bool no_threads;
	/* -n: a Samples column after the overhead ones (not with fields) */
	bool show_nr_samples;
	/* --show-total-period: a Period column after those */
	bool show_total_period;
	/* --no-inline: call-chain entries of inlined code stay one frame.
	 * By default, as perf 6.1's --inline, each entry the DWARF unwinder
	 * gave (never a frame-pointer or kernel one: perf 6.1 expands those
	 * only) becomes the inline frames addr2line names there, innermost
	 * first, "f (inlined)" where f is not the entry's own symbol; the
	 * hist entries of --children, call graphs and stacks show them. */
	bool no_inline;
	/* perf's branch mode (-b; its default when every event records
	 * branch stacks, the file's BRANCH_STACK feature): each branch entry
	 * of a sample is a hist entry of period 1, sorted by default
	 * comm,dso_from,symbol_from,symbol_to,cycles; the branch keys
	 * (dso_from, dso_to, symbol_from, symbol_to, addr_from, addr_to,
	 * mispredict, in_tx, abort, cycles) only in this mode; no call
	 * chains, no children. perf 6.1 adds an ipc_lbr column to a --sort
	 * naming "symbol" in this mode, and crashes doing so on the
	 * recordings tried: pa prints the keys asked for. */
	bool branch;
	/* -T (--threads): after the report, perf's table of per-thread event
	 * counts, the sums of the READ records (perf record -s) by thread and
	 * event, threads and events in the order they first come */
	bool show_threads;
};

struct pa_report;

/* Returns NULL and fills err (e.g. unknown sort key). Free with pa_report_free(). */
struct pa_report *pa_report_new(struct pa_session *s, const struct pa_report_opts *opts,
				struct pa_err *err);
void pa_report_free(struct pa_report *r);

/* Stream the session's events into the report. */
int pa_report_run(struct pa_report *r, struct pa_err *err);

/* perf report --stats: reads the whole session (no report) and prints the
 * number of records of each type, then each event's samples and lost
 * samples, as perf 6.1 does. 0, or an error in err. */
int pa_report_stats(struct pa_session *s, FILE *out, struct pa_err *err);
/* perf report --tasks: reads the whole session and prints its threads as
 * a tree of who forked whom, as perf 6.1 does. 0, or an error in err. */
int pa_report_tasks(struct pa_session *s, FILE *out, struct pa_err *err);

/* Write perf report --stdio output to out. When no sample was left after
 * --time and --cpu (or the recording has none), only the two lines perf
 * 6.1 prints before it says "The ... data has no samples!" (none with
 * quiet): pa_report_no_samples() tells, for the caller to say so. */
int pa_report_print(struct pa_report *r, FILE *out, struct pa_err *err);
bool pa_report_no_samples(const struct pa_report *r);

/* ---- Stacks: one call per unique stack (pa folded, pa flame graphs) -----
 *
 * Set opts.callchain (and create the session with no_callchains = false),
 * run the report, then iterate. Each call gives one unique stack exactly as
 * `pa folded` prints it, i.e. as `perf script | stackcollapse-perf.pl`
 * would: the process frame, then frames from the outermost caller (e.g.
 * __libc_start_call_main, or the kernel entry for kernel-only stacks) to
 * the leaf (the sampled ip, perf's first call-chain entry). Stacks are
 * merged when their process frame and frame names are equal (addresses in
 * the same function merge), with stackcollapse-perf.pl's naming rules:
 * no "+0x..." offsets, everything from the first '(' cut (except a Go
 * method's or "(anonymous namespace)"), ';' becomes ':', quotes removed,
 * an address without a symbol in a known DSO is "[libfoo.so]" ("[" + the
 * DSO file's name + "]"), with no DSO "[unknown]"; a java process loses
 * the 'L' of "Lpkg/Class;". Call chains are resolved like perf's
 * (PERF_CONTEXT_* markers switch the cpumode and are not frames, an
 * unknown marker empties the chain) and cut to max_stack entries from the
 * leaf, like perf script's --max-stack.
 *
 * Filters: comms, dsos (of the sampled ip), pids, tids, cpus, time and
 * events apply. Without opts.events only the event of the first sample
 * counts, as stackcollapse-perf.pl keeps the first event type it sees.
 * Without include_idle, samples of the idle task (pid 0) are left out.
 * Then stack_pid/stack_tid, user_only/kernel_only, annotate_*, delimiter
 * and trim_frames shape the frames.
 *
 * Order: stacks come in byte order of their folded line (what `sort` with
 * LC_ALL=C gives, what stackcollapse prints), so output is deterministic.
 * Each stack is reported once; count and period are its sums.
 *
 * Frames and strings are owned by the report: names, DSO names and the
 * process name stay valid until pa_report_free(); the frames array only
 * during the callback. Cost: a walk over the unique stacks (not samples). */
enum pa_frame_kind {
	/* by stackcollapse-perf.pl's rule on the DSO name (see annotate_kernel) */
	PA_FRAME_USER,   /* executables, libraries, no DSO */
	PA_FRAME_KERNEL, /* [kernel.kallsyms], modules, [vdso], ...vmlinux */
	PA_FRAME_JIT,    /* JIT code symbolized from /tmp/perf-PID.map */
	PA_FRAME_DELIM,  /* the "-" frame of opts.delimiter */
};

struct pa_frame {
	const char *name; /* text of the frame in folded output (incl. _[k]/_[j]) */
	const char *dso;  /* DSO short name: "libc.so.6", "[kernel.kallsyms]",
			   * "[unknown]" when no map covered the address */
	enum pa_frame_kind kind;
	/* an inline frame (opts.no_inline unset, unwound chains: perf's
	 * "f (inlined)", named f here as stackcollapse-perf.pl names it), or
	 * a later part of a "caller->callee" name (stackcollapse's inline
	 * split, name ends in "_[i]") */
	bool inlined;
};

struct pa_stack {
	const char *process; /* the process frame: comm with ' ' as '_'
			      * (plus "-PID" or "-PID/TID" with stack_pid/tid) */
	const char *comm;    /* the comm at sample time, unchanged */
	int32_t pid, tid;    /* of the first sample seen with this stack */
	const struct pa_frame *frames; /* [0] outermost .. [nr_frames-1] leaf */
	uint32_t nr_frames;
	uint64_t count;  /* samples */
	uint64_t period; /* sum of their periods */
};

/* Return non-zero from fn to stop; that value is returned. */
typedef int (*pa_report_stack_fn)(void *ctx, const struct pa_stack *st);
/* Returns 0, fn's non-zero value, or a negative error (-ENOMEM; -EINVAL if
 * the report was not made with opts.callchain). */
int pa_report_foreach_stack(struct pa_report *r, pa_report_stack_fn fn, void *ctx);

/* What -v says of the DSOs with samples: why one has no symbols
 * (has_symbols false), or where its symbols came from when that is worth
 * saying (the running vdso, read in memory: a report writes no cache).
 * One call per such DSO. */
typedef void (*pa_report_dso_note_fn)(void *ctx, const struct pa_dso *dso, bool has_symbols,
				      const char *why);
void pa_report_foreach_dso_note(struct pa_report *r, pa_report_dso_note_fn fn, void *ctx);

/* The names the filters (--dsos, --comms, --symbols) compare, as the
 * recording's samples had them before any filter: after pa_report_run(),
 * fn(ctx, name) for each sampled DSO (short and long name), comm or
 * symbol, maybe more than once. Return non-zero from fn to stop; that
 * value is returned. So that a caller can tell a filter that matches
 * nothing from one that matches. */
enum pa_report_name { PA_REPORT_NAME_DSO, PA_REPORT_NAME_COMM, PA_REPORT_NAME_SYM };
typedef int (*pa_report_name_fn)(void *ctx, const char *name);
int pa_report_foreach_name(const struct pa_report *r, enum pa_report_name kind,
                           pa_report_name_fn fn, void *ctx);

/* ---- perf diff (diff.c) ---------------------------------------------------
 *
 * r[0] is the baseline, r[1..n) the recordings compared with it: reports
 * run with the same sort keys, no call chains. For each event of the
 * baseline, perf 6.1's `perf diff` stdio output: entries matched by their
 * keys' names (the symbol key by name, as perf diff compares symbols: two
 * recordings of two builds pair), the other files' events matched by type
 * and config, entries of the other files without a match added with no
 * baseline (perf's dummies), sorted by the change of file `order` (0:
 * none), the baseline's period, each file's change, the sort keys.
 * Each report's own filters and --percentage apply to it.
 *
 * Limits: perf diff -v also prints long DSO names and symbol addresses
 * (pa's -v lists the data files only); -c cycles (branch stacks) and
 * --stream are not done; perf 6.1 keeps no sample for a --symbols name
 * made of hex digits only (like "fa"), pa keeps the symbol's samples (as
 * pa report does). */
enum pa_diff_compute { PA_DIFF_DELTA, PA_DIFF_DELTA_ABS, PA_DIFF_RATIO, PA_DIFF_WDIFF };

struct pa_diff_opts {
	size_t sz;
	enum pa_diff_compute compute; /* -c */
	int64_t w1, w2;               /* -c wdiff:W1,W2 */
	unsigned order;               /* -o: 1 by default */
	bool period;                  /* -p: Base period / Period columns */
	bool formula;                 /* -F: Formula columns */
	bool baseline_only;           /* -b: only entries of the baseline with a pair */
	bool quiet;                   /* -q: rows only */
	bool verbose;                 /* -v: the data files' list also with two files */
	double percent_limit;         /* pa's own: leave out entries whose every share is below */
	const char *const *paths;     /* each file's name as given, for "# Data files" */
};

int pa_report_diff_print(struct pa_report *const *r, unsigned n, const struct pa_diff_opts *o,
                         FILE *out, struct pa_err *err);

#endif
