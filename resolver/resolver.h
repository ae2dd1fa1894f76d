/* resolver.h - samples' addresses -> named frames, for every view.
 *
 * A resolver belongs to one session. It interns each unique location a
 * sample or call-chain entry landed on (DSO, map-relative address, raw ip,
 * level) once, and after the stream names every location once
 * (pa_resolver_symbolize): the finder chain of buildid/ (cache, symfs,
 * /usr/lib/debug, debuginfod), ELF, kallsyms, --vmlinux, kernel modules,
 * JIT maps and the running vdso, with perf 6.1's rules (its kernel and
 * module maps, /proc/kcore for the running kernel). It also unwinds user
 * stacks of --call-graph dwarf samples (pa_chainer_*) and gives their
 * entries perf's inline frames (pa_resolver_symbolize). It writes no
 * cache: the running vdso is read in memory.
 *
 * Order: addr2line (whose answers perf shows) names some inlined code
 * after the first question it was asked about it (symbols.h), so the
 * inline frames of unwound locations are made in the order the locations
 * were interned: the caller interns them in the order perf hands call-chain
 * entries to its cursor.
 *
 * Lifecycle: pa_resolver_new() -> pa_resolver_preload() -> interning while
 * the session streams -> pa_resolver_symbolize() -> lookups of locations
 * -> pa_resolver_free(). Interning may run on one thread other than the
 * caller's (the report's stream stage); everything else on the caller's.
 */
#ifndef PA_RESOLVER_H
#define PA_RESOLVER_H

#include "session/session.h"
#include "symbols/symbols.h"

/* A unique place samples or call-chain entries landed: symbolized once.
 * For a sample ip, addr is map-relative (the raw ip when no map covers
 * it) and ip is 0; a call-chain entry also keeps its raw ip, which perf
 * shows and compares for entries without a symbol. */
struct pa_loc {
	struct pa_dso *dso;
	uint64_t addr;
	uint64_t ip;
	char level;
	bool kernel;    /* found in the kernel's maps */
	bool unwound;   /* a call-chain entry the DWARF unwinder gave */
	bool inl_frame; /* one of another location's inline frames */
	uint16_t nr_inl; /* its inline frames (pa_resolver_inlines), 0: none */
	uint32_t inl;
	uint32_t match; /* the user's tag (report: its call-graph match id), 0 at first */
	const struct pa_sym *sym;
	const char *srcline; /* with srclines, and of every inline frame */
};

/* pa_resolver_intern's flags: part of a location's identity */
#define PA_LOC_KERNEL 1u  /* found in the kernel's maps */
#define PA_LOC_UNWOUND 2u /* a user call-chain entry from the DWARF unwinder */

struct pa_resolver_opts {
	size_t sz;
	bool no_demangle;
	bool no_threads; /* no kernel preload on a thread of its own */
	const char *symfs, *buildid_dir;
	const char *kallsyms; /* --kallsyms FILE */
	/* --vmlinux FILE: kernel symbols from this ELF's .symtab, as perf 6.1
	 * takes them (report.h says how) */
	const char *vmlinux;
};

/* NULL with err set; free with pa_resolver_free() (accepts NULL). */
struct pa_resolver *pa_resolver_new(struct pa_session *s, const struct pa_resolver_opts *opts,
                                    struct pa_err *err);
void pa_resolver_free(struct pa_resolver *r);

/* The location (d may be NULL: no map covered the address), made when new;
 * its id through *out. 0 or -ENOMEM. */
int pa_resolver_intern(struct pa_resolver *r, struct pa_dso *d, uint64_t addr, uint64_t ip,
                       char level, unsigned flags, uint32_t *out);
/* The locations by id: valid until the next pa_resolver_intern(). */
struct pa_loc *pa_resolver_locs(const struct pa_resolver *r);
size_t pa_resolver_nr_locs(const struct pa_resolver *r);
/* Bytes the resolver holds (for the session's memory cap). */
uint64_t pa_resolver_mem(const struct pa_resolver *r);

/* The running kernel's symbols are loaded on a thread of their own while
 * the stream runs, when the recording names its build-id (not with
 * --vmlinux, no_threads or one CPU). */
void pa_resolver_preload(struct pa_resolver *r);
/* After the stream: a symbol for every location (and, with srclines, the
 * srcline of every sample's location: ip 0); the interning table goes. With inlines, each unwound
 * location gets perf 6.1's inline frames (its append_inlines, which perf
 * runs for DWARF-unwound entries only, by default): where addr2line (the
 * file perf takes symbols from, its rules: symbols.h, pa_srcinfo_frames)
 * answers for a location with a symbol, nr_inl locations made here stand
 * for it in a call chain, innermost first: same DSO, addresses and level,
 * each with its function's name (demangled as symbols are) and its
 * srcline (the call site for the callers of inlined code); its symbol is
 * the location's own where the names are equal, else one marked inlined.
 * Kernel, JIT-map and vdso locations have none, as in perf. 0 or -ENOMEM.
 * After an error of the stream, pa_resolver_abort() ends the preload
 * instead. */
int pa_resolver_symbolize(struct pa_resolver *r, bool srclines, bool inlines);
/* perf's srcline of a location at its map-relative address (what
 * pa_resolver_symbolize gives samples' locations): addr2line's answer, or
 * its fallbacks "SYM+OFF", "DSO[ADDR]", "??:0". NULL on ENOMEM. */
const char *pa_resolver_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* perf's srcline of a call-chain entry as -g address prints it after the
 * name (its callchain_srcline): an inline frame's own, else addr2line's
 * answer at the map-relative address or "+OFF" from the symbol (or
 * "DSO[ADDR]"); NULL without a map (or on ENOMEM). */
const char *pa_resolver_chain_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* perf's srcline of a call-chain entry's own hist entry (--children with
 * the srcline key): perf asks it of the entry's raw ip as if it were
 * map-relative, so that only non-PIE executables answer; the others get
 * "SYM+OFF" with the offset from the raw ip (or "DSO[ADDR]"). NULL on
 * ENOMEM. */
const char *pa_resolver_ip_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* The locations' inline frames: a location l stands for the ids
 * pa_resolver_inlines(r)[l->inl, l->inl + l->nr_inl). */
const uint32_t *pa_resolver_inlines(const struct pa_resolver *r);
void pa_resolver_abort(struct pa_resolver *r);

/* What -v says of the DSOs with samples: why one has no symbols
 * (has_symbols false), or where its symbols came from when that is worth
 * saying (the running vdso, read in memory). One call per such DSO. */
typedef void (*pa_resolver_dso_note_fn)(void *ctx, const struct pa_dso *dso, bool has_symbols,
                                        const char *why);
void pa_resolver_foreach_dso_note(const struct pa_resolver *r, pa_resolver_dso_note_fn fn,
                                  void *ctx);

/* ---- A sample's call chain: perf's callchain cursor, in locations ----
 * One chainer per stream of samples (one thread), used in the session's
 * sample callback, where the address spaces are the sample's: what perf's
 * thread__resolve_callchain makes of the sample, each entry interned as a
 * location (chain.c says how). max_stack: perf's --max-stack (for the
 * recorded part and the unwound part each); caller: perf's caller order
 * (the cut of the recorded part, and the order addr2line is asked in). */
struct pa_chainer;
struct pa_chainer *pa_chainer_new(struct pa_resolver *r, int max_stack, bool caller);
void pa_chainer_free(struct pa_chainer *c); /* accepts NULL */
/* Whether the sample's user stack is unwound (its event records user
 * registers and stack, the sample has both, and its arch is one the
 * unwinder knows): 1 yes, 0 no, -ENOMEM. Then its chain may hold up to
 * max_stack entries more than it recorded. */
int pa_chainer_unwinds(struct pa_chainer *c, const struct pa_sample *sm);
/* The location of the sample's own ip (al: the session's, resolved here
 * when lazy); gen: pa_session_maps_generation(). 0 or -ENOMEM. */
int pa_chainer_sample_loc(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                          const struct pa_event *ev, const struct pa_addr_loc *al, uint64_t gen,
                          uint32_t *out);
/* The locations of its call chain into fr, leaf first, *n of them: the
 * recorded chain, then (unwind: pa_chainer_unwinds() said so) the unwound
 * user part. fr holds the recorded entries plus max_stack. 0 or -ENOMEM. */
int pa_chainer_chain(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                     const struct pa_event *ev, uint64_t gen, bool unwind, uint32_t *fr,
                     uint32_t *n);

#endif
