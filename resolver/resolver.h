/* resolver.h - samples' addresses -> named frames, for every view.
 *
 * A resolver belongs to one session. It interns each unique location a
 * sample or call-chain entry landed on (DSO, map-relative address, raw ip,
 * level) once, and after the stream names every location once
 * (pa_resolver_symbolize): the finder chain of buildid/ (cache, symfs,
 * /usr/lib/debug, debuginfod), ELF, kallsyms, --vmlinux, kernel modules,
 * JIT maps and the running vdso, with perf 6.1's rules (its kernel and
 * module maps, /proc/kcore for the running kernel). It also unwinds user
 * stacks of --call-graph dwarf samples (pa_unwind_*). It writes no cache:
 * the running vdso is read in memory.
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
	uint32_t match; /* the user's tag (report: its call-graph match id), 0 at first */
	const struct pa_sym *sym;
	const char *srcline; /* with srclines only */
};

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
                       char level, bool kernel, uint32_t *out);
/* The locations by id: valid until the next pa_resolver_intern(). */
struct pa_loc *pa_resolver_locs(const struct pa_resolver *r);
size_t pa_resolver_nr_locs(const struct pa_resolver *r);
/* Bytes the resolver holds (for the session's memory cap). */
uint64_t pa_resolver_mem(const struct pa_resolver *r);

/* The running kernel's symbols are loaded on a thread of their own while
 * the stream runs, when the recording names its build-id (not with
 * --vmlinux, no_threads or one CPU). */
void pa_resolver_preload(struct pa_resolver *r);
/* After the stream: a symbol for every location (and its srcline, with
 * srclines); the interning table goes. 0 or -ENOMEM. After an error of
 * the stream, pa_resolver_abort() ends the preload instead. */
int pa_resolver_symbolize(struct pa_resolver *r, bool srclines);
void pa_resolver_abort(struct pa_resolver *r);

/* What -v says of the DSOs with samples: why one has no symbols
 * (has_symbols false), or where its symbols came from when that is worth
 * saying (the running vdso, read in memory). One call per such DSO. */
typedef void (*pa_resolver_dso_note_fn)(void *ctx, const struct pa_dso *dso, bool has_symbols,
                                        const char *why);
void pa_resolver_foreach_dso_note(const struct pa_resolver *r, pa_resolver_dso_note_fn fn,
                                  void *ctx);

/* User call chains from DWARF (perf record --call-graph dwarf): a sample's
 * user registers and stack copy unwound with libdwfl, as perf's
 * unwind__get_entries does. One thread. */
struct pa_unwind;
/* NULL with *why set when this recording's stacks cannot be unwound (its
 * arch); NULL with *why NULL when out of memory. Free with
 * pa_unwind_free(). */
struct pa_unwind *pa_unwind_new(struct pa_resolver *r, const char **why);
void pa_unwind_free(struct pa_unwind *u);
/* Up to max entries of the sample's user call chain into ips, leaf first:
 * the sampled user ip, then each caller's return address minus one.
 * Returns how many (0 without user registers and stack). */
size_t pa_unwind_sample(struct pa_unwind *u, struct pa_thread *t, const struct pa_sample *sm,
                        uint64_t *ips, size_t max);

#endif
