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
	uint32_t decl_line; /* an inline frame's: where its function is declared, 0 unknown */
	const struct pa_sym *sym;
	const char *srcline; /* with srclines, and of every inline frame */
};

/* pa_resolver_intern's flags: part of a location's identity */
#define PA_LOC_KERNEL 1u  /* found in the kernel's maps */
#define PA_LOC_UNWOUND 2u /* a user call-chain entry from the DWARF unwinder */

struct pa_resolver_opts {
	size_t sz;
	bool no_demangle;
	bool demangle_params; /* C++ names with their parameters (perf's -v) */
	bool no_threads; /* no kernel preload on a thread of its own */
	/* every frame of a DWARF unwinding stepped by libdwfl, none by the
	 * fast path (unwind.c): the reference that path is tested against */
	bool slow_unwind;
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
 * --vmlinux, no_threads or one CPU); then those of the user DSOs the
 * recording's build-id table names, and their source lines when
 * pa_resolver_symbolize() will be given srclines, or inlines for a
 * recording with user stacks (the inline frames are of unwound entries). */
void pa_resolver_preload(struct pa_resolver *r, bool srclines, bool inlines);
/* Whether pa unwinds the user stacks (--call-graph dwarf) of a recording
 * of arch, perf's uname -m (NULL or "": this machine's, as perf takes it):
 * x86_64 and i386. */
bool pa_resolver_unwinds_arch(const char *arch);
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
/* Instead of pa_resolver_symbolize, for an output that shows no symbol
 * (sorted by comm, pid, dso...): no symbol table is read but the running
 * kernel's, and only when kernel addresses no map covered need it for
 * their DSO (as pa_resolver_symbolize places them); locations keep sym
 * NULL. 0 or -ENOMEM. */
int pa_resolver_locate(struct pa_resolver *r);
/* perf's srcline of a location at its map-relative address (what
 * pa_resolver_symbolize gives samples' locations): addr2line's answer, or
 * its fallbacks "SYM+OFF", "DSO[ADDR]", "??:0". NULL on ENOMEM. */
/* The kernel symbol at addr (in the host's kernel maps, as perf's
 * machine__resolve_kernel_addr finds it): its name, *start its address,
 * *module its module's short name (NULL: the kernel's); NULL if none. */
const char *pa_resolver_kernel_sym(struct pa_resolver *r, uint64_t addr, uint64_t *start,
                                   const char **module);
const char *pa_resolver_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* The source file and line of a location's srcline (pa_resolver_srcline)
 * when addr2line names both: the file's path as the DWARF gives it (perf
 * shows its base name), *line not 0. NULL otherwise (kernel modules, no
 * line table). */
const char *pa_resolver_source_file(struct pa_resolver *r, const struct pa_loc *l, unsigned *line);
/* perf's srcline of a call-chain entry as -g address prints it after the
 * name (its callchain_srcline): an inline frame's own, else addr2line's
 * answer at the map-relative address or "+OFF" from the symbol (or
 * "DSO[ADDR]"); NULL without a map (or on ENOMEM). */
const char *pa_resolver_chain_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* Where the function of a location is declared (DW_AT_decl_line): an
 * inline frame's function, else the out-of-line function holding the
 * address; 0 when DWARF does not say (or no DWARF). */
unsigned pa_resolver_decl_line(struct pa_resolver *r, const struct pa_loc *l);
/* perf's offset of a location from the start of its symbol (perf script's
 * "symoff"; an inline frame's from the function it was inlined into). */
uint64_t pa_resolver_sym_offset(struct pa_resolver *r, const struct pa_loc *l);
/* After pa_resolver_symbolize: perf's letter for where d's symbols came
 * from (its dso__symtab_origin, which perf report -v prints): 'B' the
 * build-id cache's copy, 'D' the cache's debug file, 'b' a debug file
 * under /usr/lib/debug/.build-id, 'l' one a debuglink named, 'd' the file
 * at its path (or under --symfs), 'k' kallsyms, 'v' a vmlinux, 'K' or 'm'
 * a module's .ko (compressed), 'j' a JIT map, '!' none. */
char pa_resolver_dso_origin(const struct pa_resolver *r, const struct pa_dso *d);
/* After pa_resolver_symbolize: d's symbols were read from an ELF file. */
bool pa_resolver_dso_from_elf(const struct pa_resolver *r, const struct pa_dso *d);
/* perf's srcline of an address in a map, as perf script prints it (its
 * map__srcline without a symbol): addr2line's answer, else "DSO[ADDR]";
 * NULL without a map (or on ENOMEM). */
const char *pa_resolver_map_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* perf's srcline of a call-chain entry's own hist entry (--children with
 * the srcline key): perf asks it of the entry's raw ip as if it were
 * map-relative, so that only non-PIE executables answer; the others get
 * "SYM+OFF" with the offset from the raw ip (or "DSO[ADDR]"). NULL on
 * ENOMEM. */
const char *pa_resolver_ip_srcline(struct pa_resolver *r, const struct pa_loc *l);
/* The locations' inline frames: a location l stands for the ids
 * pa_resolver_inlines(r)[l->inl, l->inl + l->nr_inl). */
const uint32_t *pa_resolver_inlines(const struct pa_resolver *r);
/* A call chain of n location ids, leaf first, each location replaced by
 * its inline frames: into *frames, grown as needed. How many, or -ENOMEM. */
int pa_resolver_chain_frames(const struct pa_resolver *r, const uint32_t *locs, uint32_t n,
                             uint32_t **frames, size_t *cap);
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
 * (the cut of the recorded part, and the order addr2line is asked in);
 * input_bytes: the size of the samples, which sizes its caches (0: the
 * largest). */
struct pa_chainer;
struct pa_chainer *pa_chainer_new(struct pa_resolver *r, int max_stack, bool caller,
                                  uint64_t input_bytes);
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
/* The session's ahead callback (pa_session_ahead_fn) in call-graph mode:
 * the user stacks of the run's samples that wanted[k] marks (those the
 * caller will chain) are unwound now, on this thread and a helper thread
 * at once, for pa_chainer_chain to take as their samples come. Call it
 * for every run the session shows ahead. 0 or -ENOMEM. */
int pa_chainer_ahead(struct pa_chainer *c, struct pa_session *s, const struct pa_event *evs,
                     size_t n, const bool *wanted);

/* ---- Filters: perf report's and perf script's sample filters ----------
 * Parsed once from their option strings (comma lists; pids and tids are
 * numbers, cpus ranges "0-3,5", time perf's "start,stop" in seconds with
 * either side empty, events names matched with or without ":modifiers"),
 * into the given arena. */
struct pa_filter_spec {
	const char *dsos, *comms, *symbols, *pids, *tids, *cpus, *time, *events;
	/* the recording's first and last sample times (its header's), which
	 * --time's percentages are of; both 0: not recorded */
	uint64_t first_time, last_time;
};

/* One of --time's ranges, in ns: 0 leaves that side open (perf's). */
struct pa_time_range {
	uint64_t start, end;
};

struct pa_filter {
	char **dsos, **comms, **syms, **events;
	size_t nr_dsos, nr_comms, nr_syms, nr_events;
	long *pids, *tids;
	size_t nr_pids, nr_tids;
	bool has_cpus;
	uint8_t cpus[4096 / 8];
	/* --time: perf's ranges, absolute (start,stop, several apart by
	 * spaces) or percentages of the recording's time (10%/2, 0%-10%,...) */
	struct pa_time_range *times;
	size_t nr_times;
	/* pa_filter_evsel's answers by event index: 0 not asked, 1 passes,
	 * 2 does not (in the arena given to pa_filter_parse) */
	struct pa_arena *arena;
	uint8_t *event_ok;
	size_t nr_event_ok;
};

/* 0, -ENOMEM, or PA_ERR_USAGE with err saying which value is bad. */
int pa_filter_parse(struct pa_filter *f, struct pa_arena *a, const struct pa_filter_spec *spec,
                    struct pa_err *err);
/* cpu (UINT32_MAX: not recorded) and time pass --cpu and --time */
bool pa_filter_cpu_time(const struct pa_filter *f, uint32_t cpu, uint64_t time);
/* the thread and comm pass --pid, --tid and --comms; the DSO (NULL: no
 * map) --dsos, by short or long name */
bool pa_filter_thread(const struct pa_filter *f, const struct pa_thread *t, const char *comm);
bool pa_filter_dso(const struct pa_filter *f, const struct pa_dso *d);
/* a symbol's name (NULL: none) passes --symbols */
bool pa_filter_sym(const struct pa_filter *f, const char *name);
/* an event's name passes --event */
bool pa_filter_event(const struct pa_filter *f, const char *name);
/* the event of index idx (e: its evsel, NULL: none, named "") passes
 * --event; the answer is kept per index */
bool pa_filter_evsel(struct pa_filter *f, const struct pa_evsel *e, unsigned idx);
/* a sample passes --event, --cpu and --time: what perf drops before
 * anything counts it */
bool pa_filter_sample_counted(struct pa_filter *f, const struct pa_event *ev);

/* ---- A trace: every sample of a recording, resolved (script, export) ----
 * The session's samples in time order, each kept small (64 bytes, no
 * copy of its record; its call chain an id of a set of location chains),
 * symbolized once after the stream (so kept until then: about 64 bytes a
 * sample); then walked in the same order. Filters as perf
 * script's (and report's): a filtered sample is not kept. Guest samples
 * are dropped, as perf report/script hide them. The trace owns its
 * resolver; strings (comms) stay valid until pa_trace_free().
 *
 * Side records (mmap, comm, fork/exit, context switch) are kept too when
 * opts.side_records asks for them, in the same order (perf script's
 * --show-*-events). */
struct pa_trace_opts {
	size_t sz;
	struct pa_resolver_opts res;
	/* perf script's filters (dsos and symbols: of the sample's own ip) */
	struct pa_filter_spec filter;
	bool callchains; /* keep call chains (and unwind --call-graph dwarf stacks) */
	int max_stack;   /* perf's --max-stack, 0: 127 */
	bool srclines;   /* a srcline for every location (perf script -F srcline) */
	bool no_inline;  /* no inline frames for unwound entries (perf's --no-inline) */
	/* PA_TRACE_SIDE_* bits: keep these records */
	unsigned side_records;
	bool no_idle;    /* drop pid 0's samples (perf script keeps them) */
	bool branches;   /* keep branch stacks, each end a location */
	bool raw;        /* keep raw payloads (tracepoints'), as recorded */
};

/* A branch stack entry of a kept sample: the raw addresses and flags word
 * (pa_branch_flags), and each end's location, in the map perf finds for
 * it in any cpumode (user first). */
struct pa_trace_branch {
	uint64_t from, to, flags;
	uint32_t from_loc, to_loc;
};

#define PA_TRACE_SIDE_MMAP   1u /* MMAP, MMAP2 */
#define PA_TRACE_SIDE_TASK   2u /* COMM, FORK, EXIT */
#define PA_TRACE_SIDE_SWITCH 4u /* SWITCH, SWITCH_CPU_WIDE */

struct pa_trace_sample {
	unsigned evsel;      /* index of its event (pa_file_evsel) */
	int32_t pid, tid;
	uint32_t cpu;        /* UINT32_MAX when not recorded */
	const char *comm;    /* the thread's comm at sample time */
	uint64_t time, period, ip, addr;
	uint64_t sample_type;/* of its event: which of the fields above were recorded */
	uint8_t cpumode;     /* PA_MISC_* cpumode of the sample */
	uint32_t loc;        /* the location of its own ip */
	/* With opts.callchains: perf's callchain cursor, leaf first, each
	 * inline-expanded (unless no_inline): nr_frames locations. Empty
	 * without a call chain. Valid during the callback only. */
	const uint32_t *frames;
	uint32_t nr_frames;
	/* With opts.branches: its branch stack, most recent first. */
	const struct pa_trace_branch *branches;
	uint32_t nr_branches;
	/* With opts.raw: its raw payload, in the writer's byte order. */
	const void *raw;
	uint32_t raw_size;
};

/* A side record: the event (only its type, misc, the union's part for
 * its type, and sample's pid/tid/time/cpu where recorded are valid; names
 * it points to stay valid until pa_trace_free()). */
struct pa_trace_side {
	const struct pa_event *ev;
	const char *comm; /* the comm of the thread it names, after the record */
	int32_t pid, tid; /* that thread's */
};

struct pa_trace;
struct pa_trace *pa_trace_new(struct pa_session *s, const struct pa_trace_opts *opts,
                              struct pa_err *err);
void pa_trace_free(struct pa_trace *t); /* accepts NULL */
/* Stream the session and symbolize; 0 or a negative error with err set. */
int pa_trace_run(struct pa_trace *t, struct pa_err *err);
/* Walk the kept samples (and side records) in time order. A non-zero
 * return of a callback stops the walk and is returned. side may be NULL. */
typedef int (*pa_trace_sample_fn)(void *ctx, const struct pa_trace_sample *sm);
typedef int (*pa_trace_side_fn)(void *ctx, const struct pa_trace_side *sd);
int pa_trace_foreach(struct pa_trace *t, pa_trace_sample_fn fn, pa_trace_side_fn side,
                     void *ctx);
struct pa_resolver *pa_trace_resolver(struct pa_trace *t);
struct pa_session *pa_trace_session(struct pa_trace *t);
/* Samples kept. */
uint64_t pa_trace_nr_samples(const struct pa_trace *t);

#endif
