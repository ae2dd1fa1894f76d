/* flame.h - flame graphs: merge stacks into a tree, write SVG or HTML.
 *
 * Invariants:
 * - A flame graph is a tree under one root frame, "all". A frame is a
 *   (name, kind) pair under its parent: one function reached by two paths
 *   is two frames. A frame's value is the sum of the values of the stacks
 *   that pass through it (samples, or periods: the unit is the caller's).
 * - The input is neutral: stacks arrive one at a time, outermost frame
 *   first (for perf data the first frame is usually the comm, like
 *   stackcollapse-perf.pl's output). Nothing here knows perf.data.
 * - Output is deterministic: siblings are ordered by name (bytes, like
 *   flamegraph.pl's sort of the folded lines) then kind; colours come from a
 *   hash of the name, never from a random source.
 * - Names are bytes. The writers escape them for XML, HTML and JavaScript
 *   and replace invalid UTF-8 and control characters.
 * - Nothing is quadratic: names are interned and children found through
 *   hash tables; ordering is one sort of the unique names plus one sort of
 *   each sibling list. Nodes and names live in an arena owned by the
 *   pa_flame, so freeing is one pass. Traversals are iterative (no
 *   recursion on stack depth).
 *
 * - A differential graph is one tree with two values per frame: stacks
 *   added after pa_flame_set_baseline(fg, true) count as the baseline
 *   profile, the others as the new one. The graph keeps the new profile's
 *   shape (widths, order, minwidth); a frame's colour says how its self
 *   share changed (growth red, shrink blue, white unchanged). Frames only
 *   in the baseline have no width: they are not drawn, their parent's hover
 *   text and the legend count them.
 *
 * Lifecycle: pa_flame_new() -> pa_flame_add_stack() / pa_flame_add_folded()
 * / pa_flame_read_folded() any number of times (a differential graph: the
 * baseline's between pa_flame_set_baseline(fg, true) and (fg, false)) ->
 * pa_flame_write() (may be called more than once) -> pa_flame_free().
 *
 * Folded differences (struct pa_flame_diff) are separate: two folded
 * inputs merged into FlameGraph's difffolded.pl text.
 */
#ifndef PA_FLAME_H
#define PA_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/util.h"

/* What runs a frame: decides its colour in the "kind" palette. In folded
 * files a name suffix says it: "_[k]" kernel, "_[j]" JIT, "_[i]" inlined. */
enum pa_flame_kind {
	PA_FLAME_USER = 0,
	PA_FLAME_KERNEL = 1,
	PA_FLAME_JIT = 2,
	PA_FLAME_INLINE = 3,
	PA_FLAME_NKINDS
};

enum pa_flame_format {
	PA_FLAME_FMT_NONE = 0,
	PA_FLAME_SVG = 1,  /* flamegraph.pl-style SVG with embedded script */
	PA_FLAME_HTML = 2, /* one self-contained HTML page */
};

enum pa_flame_palette {
	PA_FLAME_PAL_KIND = 0, /* kernel orange, user warm, JIT green, inline aqua */
	PA_FLAME_PAL_HOT,      /* everything warm (flamegraph.pl's default) */
	PA_FLAME_PAL_MEM,      /* greens and blues */
	PA_FLAME_PAL_IO,       /* blues */
};

/* Writer settings. Zero (or NULL opts) means the default for every field.
 * sz must be sizeof(struct pa_flame_opts) as the caller knows it: fields
 * beyond sz are not read, and a larger struct's unknown tail must be zero. */
struct pa_flame_opts {
	size_t sz;
	const char *title;    /* default "Flame Graph", "Icicle Graph" when inverted */
	const char *subtitle; /* a second line under the title; default none */
	const char *unit;     /* what values count; default "samples" */
	unsigned width;       /* SVG image width in pixels, default 1200; HTML fills the window */
	/* Leave out frames (and what they call) whose value is below this
	 * percentage of the total. 0: SVG drops frames under 0.1 pixel like
	 * flamegraph.pl; HTML keeps every frame so that zooming shows them. */
	double minwidth;
	bool inverted; /* icicle graph: root at the top, stacks grow down */
	enum pa_flame_palette palette;
	/* Differential graphs: colour by the change of self samples instead of
	 * the change of self share (each side's self samples over its total,
	 * which is the default: difffolded.pl -n's normalisation). */
	bool diff_raw;
};

/* One frame as pa_flame_foreach_frame() shows it. */
struct pa_flame_frame {
	const char *name; /* NUL-terminated; may also contain NUL bytes (name_len) */
	size_t name_len;
	enum pa_flame_kind kind;
	unsigned depth; /* 0 for the root "all" */
	uint64_t value; /* this frame and everything it calls */
	uint64_t self;  /* value minus the children's values */
	uint64_t x;     /* sum of the values of the frames left of it in its row */
	uint64_t base;  /* differential graphs: the baseline's value, else 0 */
	uint64_t base_self;
};

struct pa_flame;

/* ---- building ---- */

/* Returns NULL and sets errno (ENOMEM). Free with pa_flame_free(). */
struct pa_flame *pa_flame_new(void);
void pa_flame_free(struct pa_flame *fg);

/* From now on (on) or no longer (!on), stacks added belong to the
 * baseline profile: the graph becomes a differential one (for good). */
void pa_flame_set_baseline(struct pa_flame *fg, bool on);
/* Has a baseline been set (pa_flame_set_baseline)? */
bool pa_flame_is_diff(const struct pa_flame *fg);

/* Add one stack: frames[0] is the outermost frame, frames[n-1] the leaf.
 * kinds may be NULL (all PA_FLAME_USER). n == 0 adds value to the root
 * only. Returns 0, -EINVAL (bad kind, NULL frame), -ENOMEM, or
 * -PA_ERR_LIMIT when the total would overflow 64 bits or there are more
 * than 2^32-2 frames. On error no value is added: the graph shows what it
 * showed (frames made on the way stay empty, and empty frames are never
 * shown or visited). */
int pa_flame_add_stack(struct pa_flame *fg, const char *const *frames, const uint8_t *kinds,
		       size_t n, uint64_t value);

/* Add one line of a folded file ("comm;outer;...;leaf 123", the format of
 * stackcollapse-*.pl and `pa folded`; a trailing "\n" or "\r\n" is
 * allowed). The count follows the last space or tab. Name suffixes "_[k]",
 * "_[j]", "_[i]" set the kind and are removed. Empty lines are ignored.
 * Returns 0 or a negative code with err filled (no offset: the caller
 * knows where the line was). */
int pa_flame_add_folded(struct pa_flame *fg, const char *line, size_t len, struct pa_err *err);

/* Read a whole folded stream. Errors carry the byte offset of the bad
 * line and its number in the message. */
int pa_flame_read_folded(struct pa_flame *fg, FILE *in, struct pa_err *err);

/* ---- reading ---- */

uint64_t pa_flame_total(const struct pa_flame *fg);
/* The baseline's total (differential graphs; else 0). */
uint64_t pa_flame_base_total(const struct pa_flame *fg);
/* Frames including the root. */
size_t pa_flame_frame_count(const struct pa_flame *fg);

/* Visit every frame, parents before children, siblings in output order.
 * Non-zero from fn stops the walk and is returned. */
typedef int (*pa_flame_frame_fn)(void *ctx, const struct pa_flame_frame *f);
int pa_flame_foreach_frame(struct pa_flame *fg, pa_flame_frame_fn fn, void *ctx);

/* ---- writing ---- */

/* ".svg" -> PA_FLAME_SVG, ".html"/".htm" -> PA_FLAME_HTML (any case),
 * anything else PA_FLAME_FMT_NONE. */
enum pa_flame_format pa_flame_format_from_path(const char *path);
/* "svg", "html" -> the format, else PA_FLAME_FMT_NONE. */
enum pa_flame_format pa_flame_format_from_name(const char *name);
/* "kind", "hot", "mem", "io" (also "java" = "kind") -> 0 and *pal; else -EINVAL. */
int pa_flame_palette_from_name(const char *name, enum pa_flame_palette *pal);

/* Write the graph to out. Returns 0, or a negative code with err filled
 * (bad options, write error). The caller owns out and checks its own
 * fclose(). */
int pa_flame_write(struct pa_flame *fg, FILE *out, enum pa_flame_format fmt,
		   const struct pa_flame_opts *opts, struct pa_err *err);

/* ---- folded differences (difffolded.pl) ----
 *
 * Lines of two folded inputs, side 0 (the baseline) and side 1 (the new
 * profile), merged by stack and written as "STACK COUNT0 COUNT1", one line
 * per stack that either side has, 0 where a side lacks it: the output of
 * FlameGraph's difffolded.pl, byte for byte, except the order of the
 * lines (the script prints them in Perl's hash order, which changes from
 * run to run; here they are sorted by the stack's bytes). Its rules:
 * - a line is "STACK COUNT": COUNT (digits, optionally ".digits") follows
 *   the last blank; the stack is what precedes that one blank (a second
 *   blank before it stays in the stack); one trailing "\n" is dropped, a
 *   "\r" is not. A line without a count (blank lines too) names the empty
 *   stack with no count: it prints as " 0 0".
 * - strip_hex: each "0x" followed by hex digits becomes "0x..." before
 *   the stacks are merged (-s).
 * - normalize (-n): when the totals differ, COUNT0 becomes
 *   int(COUNT0 * TOTAL1 / TOTAL0), computed as Perl computes it (an exact
 *   integer division where it divides, else in doubles, truncated). A
 *   baseline total of 0 is an error where the script dies dividing.
 * - counts: whole numbers add exactly; fractions are doubles, printed with
 *   15 significant digits like Perl. */
struct pa_flame_diff;

/* NULL and errno (ENOMEM). Free with pa_flame_diff_free(). */
struct pa_flame_diff *pa_flame_diff_new(bool strip_hex);
void pa_flame_diff_free(struct pa_flame_diff *d);
/* One line (with or without its "\n") for side 0 or 1. 0, -EINVAL,
 * -ENOMEM or -PA_ERR_LIMIT. */
int pa_flame_diff_add(struct pa_flame_diff *d, int side, const char *line, size_t len);
/* Every line of in for side. */
int pa_flame_diff_read(struct pa_flame_diff *d, int side, FILE *in, struct pa_err *err);
/* Write the merged lines (sorted by stack). May be called again. */
int pa_flame_diff_write(struct pa_flame_diff *d, FILE *out, bool normalize, struct pa_err *err);

#endif
