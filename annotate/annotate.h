/* annotate.h - perf annotate: where in a function the samples fell.
 *
 * An annotation is made on a pa_trace that has run (pa_trace_run): its
 * samples are gathered per event and per symbol into a histogram of the
 * symbol's byte offsets (perf's sym_hist), the symbols ranked as perf
 * annotate ranks its hist entries (period, then comm, DSO and symbol name,
 * each symbol shown once, at its first entry), and each symbol printed in
 * perf annotate --stdio's layout (perf 6.1): its header, then one line per
 * line of disassembly with the percentage of the symbol's samples that fell
 * on that instruction.
 *
 * Disassembly comes from capstone (any recording's arch on any host; the
 * arch from the ELF header) or, with opts.objdump, from running that
 * objdump the way perf 6.1 does, whose lines are parsed with perf's rules:
 * then the output is perf's, byte for byte. Source lines come from the
 * DWARF line tables of the binary (symbols/ pa_dwlines), inline-aware: a line of code
 * inlined from another function names that function first ("mix():").
 *
 * Invariants: the annotation borrows the trace (and its session and
 * resolver), which must outlive it; it never prints by itself: text goes
 * to the FILE given, notes (a symbol without bytes) to opts.note.
 *
 * Lifecycle: pa_annotate_new() -> pa_annotate_print() or
 * pa_annotate_print_html() -> pa_annotate_free().
 */
#ifndef PA_ANNOTATE_H
#define PA_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "resolver/resolver.h"

/* perf's --percent-type */
enum pa_annotate_percent {
	PA_ANNOTATE_LOCAL_PERIOD, /* default */
	PA_ANNOTATE_GLOBAL_PERIOD,
	PA_ANNOTATE_LOCAL_HITS,
	PA_ANNOTATE_GLOBAL_HITS,
};

/* A note for the user (a symbol that cannot be disassembled): one line,
 * without a newline. */
typedef void (*pa_annotate_note_fn)(void *ctx, const char *msg);

struct pa_annotate_opts {
	size_t sz;
	const char *symbol; /* only this symbol (perf's -s or its argument) */
	enum pa_annotate_percent percent_type;
	double percent_limit;            /* hide symbols below this share of the event */
	bool show_nr_samples;            /* -n: sample counts instead of percentages */
	bool show_total_period;          /* --show-total-period: periods instead */
	bool asm_raw;                    /* --asm-raw: the instruction bytes too */
	bool no_source;                  /* --no-source: no source lines */
	bool print_line;                 /* -l: perf's summary of the hottest source lines */
	bool full_path;                  /* --full-paths: the DSO's whole path in headers */
	const char *objdump;             /* --objdump PATH: disassemble with it (perf's text) */
	const char *style;               /* -M: "att" or "intel" (x86) */
	const char *symfs, *buildid_dir; /* where binaries are found (as the resolver's) */
	const char *vmlinux;             /* the kernel's image (-k): its code is read there */
	pa_annotate_note_fn note;
	void *note_ctx;
};

/* NULL when capstone disassembles (its library is opened now if not yet),
 * else why not (pa built without it, the library missing): then only
 * opts.objdump disassembles. */
const char *pa_annotate_capstone_why(void);

/* parse perf's --percent-type value; 0 or -EINVAL */
int pa_annotate_percent_parse(const char *s, enum pa_annotate_percent *out);

struct pa_annotate;

/* Gather the trace's samples. NULL with err set (-ENOMEM, -EINVAL for
 * bad opts); free with pa_annotate_free() (accepts NULL). */
struct pa_annotate *pa_annotate_new(struct pa_trace *t, const struct pa_annotate_opts *opts,
                                    struct pa_err *err);
void pa_annotate_free(struct pa_annotate *a);

/* How many symbols are to be shown (after the symbol filter and
 * --percent-limit), over all events. */
size_t pa_annotate_nr_symbols(const struct pa_annotate *a);

/* perf annotate --stdio's text for every symbol shown into out. Symbols
 * without bytes (kernel without an image, JIT maps) are skipped with one
 * note each. 0 or a negative error with err set. */
int pa_annotate_print(struct pa_annotate *a, FILE *out, struct pa_err *err);

/* One self-contained HTML page: the symbols ranked, each with its source
 * lines and assembly side by side, hot lines shaded. */
int pa_annotate_print_html(struct pa_annotate *a, FILE *out, struct pa_err *err);

#endif
