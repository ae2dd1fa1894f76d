/* internal.h - shared by report/ sources only.
 *
 * Data flow: samples stream in (report.c); each sample's ip becomes a
 * "loc" (a unique DSO, map-relative address, level) and, when call chains
 * are kept, its chain becomes a raw stack (stack.c: each unique chain of
 * frame locs kept once, numbered); samples are summed in buckets keyed by
 * (event, thread, comm, cpu, ip loc, stack). After the stream
 * every loc is symbolized once; the report then works on buckets only:
 * rows for --no-children -g none (print.c), perf's hist entries with their
 * call-graph trees (callgraph.c), or unique folded stacks (stack.c).
 */
#ifndef PA_REPORT_INTERNAL_H
#define PA_REPORT_INTERNAL_H

#include <regex.h>
#include <stdatomic.h>

#include "report.h"
#include "resolver/resolver.h"

/* The raw stacks (pa_seqset): stack 0 is the empty chain; a stack is a
 * call chain's locs from the sampled leaf to its outermost entry. */

struct bucket_slot {
	uint32_t tag, id; /* id: bucket + 1, 0 = empty */
};

struct bucket {
	struct pa_thread *thread;
	const char *comm; /* the comm when the sample was taken */
	uint64_t period, count;
	uint32_t cpu;
	uint32_t loc;
	/* raw stack (0 without call chains); in branch mode the
	 * entry's branch (branch.c: pa_branch_pair) */
	uint32_t stack;
	uint16_t evsel;
	bool filtered;    /* call-chain mode: a filter hides this sample's entries */
};

/* Direct-mapped front cache: a repeated (thread, ip, ...) goes straight
 * to its bucket while no address space changed. The repeats' sums wait in
 * the slot (period, count) and go to the bucket when the slot is taken or
 * the stream ends: a repeat then touches its slot alone, not also its
 * bucket, a second cache miss (one cache line a slot). */
struct fast_slot {
	uint64_t ip, generation;
	const void *thread;
	const char *comm;
	uint64_t period;
	uint64_t time; /* the earliest waiting sample's (UINT64_MAX: none) */
	uint32_t cpu;
	uint32_t evsel_mode; /* FAST_VALID | evsel << 8 | cpumode; 0: an empty slot */
	uint32_t bucket;
	uint32_t count;
};
#define FAST_VALID (UINT32_C(1) << 31)
#define FAST_SLOTS 8192

struct pa_stream; /* stream.c: call-chain mode's two-stage sample stream */

/* perf's callchain_param. */
enum cg_mode { CG_NONE, CG_GRAPH, CG_FRACTAL, CG_FLAT, CG_FOLDED };
enum cg_value { CG_PERCENT, CG_PERIOD, CG_COUNT };

struct cg_params {
	enum cg_mode mode;
	bool caller;          /* caller order (else callee) */
	bool address_key;     /* -g ...,address (else function) */
	enum cg_value value;
	double min_percent;
	uint32_t print_limit; /* 0: no limit */
	int max_stack;
	bool children;
	bool skip_first;      /* --sort starting with sym: graph's first entry */
};

struct cg_state;

/* Samples in perf's order (kept only when r->ordered): the bucket each
 * record of samples went to, in the order perf adds samples to its hist
 * entries, so that its entry trees can be replayed sample by sample. */
struct slog {
	uint32_t bucket, count;
	uint64_t period;
};

#define PA_MAX_OSORT 20 /* sort keys and fields (8 and 12 at most) */

struct pa_report {
	struct fast_slot *fast;
	struct pa_stream *stream;
	struct pa_session *session;
	struct pa_report_opts opts;
	struct pa_resolver *res; /* locations and their symbols */

	bool chains;   /* call chains are kept */
	bool need_cpu; /* chain mode: the cpu is part of the bucket key */

	/* What the stream's stage 2 writes record after record, on cache
	 * lines of their own: beside fields stage 1 reads a sample, they made
	 * those lines travel between the two CPUs (bench/README.md) */
	_Alignas(64) struct bucket *buckets;
	size_t nr_buckets, cap_buckets;
	struct bucket_slot *bucket_table; /* hash tags inline */
	size_t bucket_table_cap;
	int first_evsel; /* evsel of the first sample kept, -1 before */
	struct pa_seqset stacks; /* raw stacks */

	_Alignas(64) uint32_t *frames; /* scratch: one chain's frame locs */
	size_t cap_frames;

	/* per evsel totals, before filters */
	uint64_t *total_period, *total_samples;
	unsigned nr_evsels;

	int keys[8];
	unsigned nr_keys;
	int cols[12];
	unsigned nr_cols;
	/* perf's output sort list (hist_entry__sort): value columns and sort
	 * keys, in the order they decide */
	int osort[PA_MAX_OSORT];
	unsigned nr_osort;

	struct pa_filter filter;

	/* perf's entry comparator may not be an order under these sort keys
	 * (the symbol key without the DSO key before it: an unresolved
	 * address compares with a symbol by DSO, with another address by
	 * address), so that a sample's search may miss its entry after the
	 * tree changed and perf then makes a second one: the samples' order
	 * is kept (slog), the stream's caches that sum samples out of order
	 * are off, and the entry trees are replayed sample by sample */
	bool ordered;
	struct slog *slog;
	size_t nr_slog, cap_slog;
	/* a flat report that sums (pa_session_set_summing) gets each round's
	 * samples in the file's order, not in time: each bucket's earliest
	 * sample time, so that its rows are made in perf's order (the first
	 * row of an entry gives its -v address) */
	bool summing; /* ... and the session delivers in time order */
	uint64_t *first_time;
	size_t cap_first_time;

	struct cg_params cg;
	bool has_parent_re, has_ignore_re, has_trim_re;
	regex_t parent_re, ignore_re, trim_re;
	struct cg_state *cgs; /* built by pa_report_print in call-graph mode */

	struct pa_arena arena;

	/* branch mode (branch.c): the samples' branch entries are the entries */
	bool branch;
	struct pa_branches *br;
	const char *mp_last; /* the mispredict cell printed last */

	/* Bytes of the growing tables (locs, buckets, raw stacks, call-graph
	 * entries), counted against the session's memory cap: atomic, as the
	 * stream's second thread grows some of them. */
	_Atomic uint64_t mem;
	bool limit_hit; /* the memory cap stopped the report */

	struct pa_readvals *rv; /* -T (readvals.c) */
};

/* readvals.c: perf report -T, the READ records' values summed by thread
 * and event (perf's perf_read_values): the session's side callback for
 * them, and the table printed after the report. */
int pa_readvals_start(struct pa_report *r);
int pa_readvals_print(const struct pa_report *r, FILE *out);
void pa_readvals_free(struct pa_report *r);

/* --fields names every column (no leading '+', which adds to the default
 * ones): perf's "strict" field order */
static inline bool pa_report_strict_fields(const struct pa_report *r)
{
	return r->opts.fields && *r->opts.fields != '+';
}

/* report.c: a table grew from old_bytes to new_bytes (either thread). */
void pa_report_mem_grew(struct pa_report *r, size_t old_bytes, size_t new_bytes);
/* 0, or -PA_ERR_LIMIT (and limit_hit) when the session's bytes, the
 * report's and "more" pass the cap. Only where the session is not
 * running on another thread: its callback, or after the stream. */
int pa_report_mem_check(struct pa_report *r, uint64_t more);
/* The error for a report stopped by the cap: where the input was. */
int pa_report_limit_error(struct pa_report *r, struct pa_err *err);

/* Sort keys and columns; one list for report.c and print.c. */
enum key {
	K_OVERHEAD,
	K_SAMPLE,
	K_PERIOD,
	K_COMM,
	K_PID,
	K_TID,
	K_DSO,
	K_SYM,
	K_CPU,
	K_PARENT,
	K_CHILDREN,
	K_SRCLINE,
	/* branch mode's */
	K_DSO_FROM,
	K_DSO_TO,
	K_SYM_FROM,
	K_SYM_TO,
	K_MISPREDICT,
	K_IN_TX,
	K_ABORT,
	K_CYCLES,
	K_ADDR_FROM,
	K_ADDR_TO,
	K_SRCLINE_FROM,
	K_SRCLINE_TO
};
#define K_FIRST_BRANCH K_DSO_FROM

/* branch.c */
struct pa_branch_pair {
	uint32_t from; /* the source's location */
	/* the sample's own location, for the --symbols filter (which reads
	 * it in this mode): with that filter only, else UINT32_MAX */
	uint32_t sample;
	char level;     /* the sample's */
	uint64_t flags; /* the flags the sort keys read (formats.h layout) */
};
int pa_branches_new(struct pa_report *r);
void pa_branches_free(struct pa_report *r);
const struct pa_branch_pair *pa_branch_pair(const struct pa_report *r, uint32_t id);
/* A sample's branch entries into buckets, each of period 1 (the event's
 * totals count entries); al: the sample's own location, which perf's
 * --dsos/--symbols filters read in this mode too. */
int pa_branch_sample(struct pa_report *r, struct pa_session *s, const struct pa_event *ev,
                     const struct pa_addr_loc *al, unsigned evsel, uint32_t cpu);
/* perf's "Branch Statistics" after the report (nothing without typed
 * branches) */
void pa_branch_print_stats(const struct pa_report *r, FILE *out);

/* The report's locations (resolver.h), by id. */
static inline struct pa_loc *pa_report_locs(const struct pa_report *r)
{
	return pa_resolver_locs(r->res);
}

/* stack.c */
/* The stack id of a chain of n frame locs given leaf first, made when new
 * (stream thread); h: pa_stack_hash() of it. Stack 0 is the empty chain. */
uint64_t pa_stack_hash(const uint32_t *frames, uint32_t n);
int pa_stack_insert(struct pa_report *r, const uint32_t *frames, uint32_t n, uint64_t h,
                    uint32_t *id);
/* Fetch the table slot pa_stack_insert() of a chain of hash h looks at. */
void pa_stack_prefetch(const struct pa_report *r, uint64_t h);
/* The chain of a stack, leaf first (perf's callee order), each
 * location with inline frames replaced by them (the resolver's inline
 * frames, made only with perf's --inline, for unwound entries). Returns
 * the number of frames written to r->frames (grown as needed), or -ENOMEM. */
int pa_stack_frames(struct pa_report *r, uint32_t id);
/* The location's id (resolver.h), made when new. */
int pa_report_intern_loc(struct pa_report *r, struct pa_dso *d, uint64_t addr, uint64_t ip,
			 char level, unsigned flags, uint32_t *out);

/* stream.c: samples of call-chain mode. start/finish around the session;
 * a sample either goes to a second thread or is handled at once. */
int pa_stream_start(struct pa_report *r);
int pa_stream_sample(struct pa_report *r, struct pa_session *s, const struct pa_event *ev,
		     struct pa_thread *t, const struct pa_addr_loc *al, unsigned evsel,
		     uint32_t cpu, uint64_t period);
int pa_stream_finish(struct pa_report *r);
void pa_stream_free(struct pa_report *r);
bool pa_report_sample_filtered(struct pa_report *r, struct pa_thread *t, const char *comm,
			       const struct pa_addr_loc *al);
int pa_report_add_to_bucket(struct pa_report *r, unsigned evsel, struct pa_thread *t,
			    const char *comm, uint32_t cpu, uint32_t loc, uint32_t stack,
			    bool filtered, uint64_t period, uint64_t count, uint32_t *out);
/* The same in steps, so that a caller can fetch the table slot ahead:
 * h is pa_report_bucket_hash() of the key. */
uint64_t pa_report_bucket_hash(unsigned evsel, const void *thread, const char *comm, uint32_t cpu,
			       uint32_t loc, uint32_t stack);
void pa_report_prefetch_bucket(const struct pa_report *r, uint64_t h);
int pa_report_add_to_bucket_hashed(struct pa_report *r, uint64_t h, unsigned evsel,
				   struct pa_thread *t, const char *comm, uint32_t cpu, uint32_t loc,
				   uint32_t stack, bool filtered, uint64_t period, uint64_t count,
				   uint32_t *out);

/* Append a record of samples to the sample order (r->ordered only). */
int pa_report_log_samples(struct pa_report *r, uint32_t bucket, uint64_t period, uint64_t count);

/* callgraph.c: perf's hist entries (with --children and call graphs) */
int pa_cg_build(struct pa_report *r);
void pa_cg_free(struct pa_report *r);

/* What the sort keys of a row (a perf hist entry) read: its key fields,
 * compared and printed by the key table (keys.c). */
struct hkey {
	const char *comm;        /* at sample time */
	const char *thread_comm; /* the thread's last comm, which perf's pid column shows */
	int32_t pid, tid;
	const struct pa_dso *dso;
	const struct pa_sym *sym;
	const char *srcline;
	bool src_late; /* perf computed it only to print: cut to the column */
	/* a replayed comparison of perf's trees reached the srcline key
	 * before perf sized the column for this entry (it counts there) */
	bool src_sized;
	uint64_t addr;
	char level;
	uint32_t cpu;
	const char *parent; /* parent symbol name, NULL: [other] */
	/* branch mode: the fields above are the branch target's (ip: its
	 * address), these its source's; flags as pa_branch_pair's */
	bool branch;
	const struct pa_dso *dso_from;
	const struct pa_sym *sym_from;
	uint64_t addr_from, ip_from, ip;
	uint64_t off, off_from; /* from the start of sym, sym_from */
	char level_from;
	char sample_level;    /* the sample's (its first one's), which perf's addr keys show */
	const char *mp_shown; /* the mispredict cell (pa_branch_shown_mispredict) */
	uint64_t bflags;
	/* srcline_from/srcline_to: perf 6.1 computes them only when a
	 * comparison of its entry trees reaches the key, and prints what it
	 * has; the state says when that happened (enum pa_lazy) */
	const char *srcline_from, *srcline_to;
	uint8_t lazy_from, lazy_to;
	/* -v: long DSO names, symbols after their address and the origin of
	 * their DSO's symbols (pa_resolver_dso_origin), of each end */
	bool verbose;
	char origin, origin_from;
};

/* A lazily computed key's state (hkey.lazy_from, lazy_to), from the most
 * to the least known: computed before perf sized the column (the width
 * counts it), computed later (printed cut to the column), never ("(null)"). */
enum pa_lazy { PA_LAZY_SIZED, PA_LAZY_LATE, PA_LAZY_NEVER };

/* The mispredict cell of a row about to print: perf 6.1's shows "N"
 * (predicted), "Y" (mispredicted), else what the row it printed before
 * showed ("N/A" at first): its text lives in a static. Sets k->mp_shown. */
void pa_branch_shown_mispredict(struct pa_report *r, struct hkey *k);

/* perf's "Branch Statistics": n branch entries joined the entry of key k
 * (counted by the branch that made the entry, as perf) */
void pa_branch_count_entry(const struct pa_report *r, const struct hkey *k, uint64_t n);

/* keys.c: the one table of sort keys and columns, by enum key. A sort key
 * has every function; a value column (overhead, samples, period,
 * children) only its name, header, width and alignment. */
struct pa_key_def {
	const char *name, *alias; /* for --sort and --fields */
	const char *header;
	int width;    /* a value column's width (0: the header's) */
	bool right;   /* right-aligned */
	bool is_sort; /* a sort key */
	bool syms;    /* its rows need the samples' symbols */
	/* perf merges entries again by this key after the stream (its
	 * se_collapse: hists need_collapse) */
	bool perf_collapse;
	/* pa's order of rows: what makes samples one row */
	int (*collapse)(const struct hkey *a, const struct hkey *b);
	/* perf's se_cmp(left, right) (its entry trees), as a sign */
	int (*cmp)(const struct hkey *l, const struct hkey *r);
	/* equal (cmp 0) keys hash alike */
	uint64_t (*hash)(const struct hkey *k);
	/* perf's se_sort (its output tree), as a sign */
	int (*sort)(const struct hkey *a, const struct hkey *b);
	/* perf diff's collapse: what makes entries of two recordings one
	 * (names, never addresses or pointers: the symbol key by name) */
	int (*diff)(const struct hkey *a, const struct hkey *b);
	size_t (*natural_width)(const struct hkey *k);
	/* the cell in width; last: it ends the line */
	int (*format)(char *buf, size_t size, const struct hkey *k, int width, bool last);
	/* a value column: what perf's output sort compares of it */
	enum { PA_BY_NONE, PA_BY_PERIOD, PA_BY_COUNT, PA_BY_CHILDREN } sorts_by;
};
extern const struct pa_key_def pa_keys[];
/* Whether one of keys[0, n) makes perf merge its entries again after the
 * stream (need_collapse). */
bool pa_keys_perf_collapse(const int *keys, unsigned n);
/* A hash of k under keys[0, n): equal under their cmp, equal hashes. */
uint64_t pa_key_hash(const int *keys, unsigned n, const struct hkey *k);
/* The key named by name[0, n) (or an alias), or -1. */
int pa_key_find(const char *name, size_t n);
/* The least width of a column: a value column's, or its header's. */
int pa_key_header_width(int k);
int pa_key_cmp_str(const char *a, const char *b);
int pa_key_cmp_null(const void *a, const void *b);
/* s left-justified in width, cut to max characters when max >= 0: what
 * snprintf's "%-*.*s" gives, without its per-call setup. */
int pa_put_left(char *buf, size_t size, const char *s, int width, int max);
#define PA_UNRESOLVED_WIDTH 16 /* the recording host's BITS_PER_LONG / 4 */

/* A perf hist entry as print.c needs it. */
struct cg_entry {
	const char *comm;
	struct pa_thread *thread; /* of the sample that created the entry */
	struct pa_dso *dso;
	const struct pa_sym *sym;
	uint64_t addr; /* he->ip: map-relative for a sample, raw for a chain entry */
	char level;
	bool filtered;
	uint32_t cpu;
	const char *parent; /* parent symbol name, NULL: [other] */
	const char *srcline; /* with the srcline key */
	/* made from a chain entry that brought its srcline (perf's inline
	 * list of an address with source lines): perf had it from the start */
	bool src_given;
	unsigned evsel;
	uint32_t loc;                   /* the location it was made from (pa_report_locs) */
	uint64_t period, count;         /* self */
	uint64_t acc_period, acc_count; /* children */
	uint32_t nr_refs;               /* call chains appended (perf's callchain_append) */
	uint32_t max_depth;             /* longest of them */
	uint32_t merged_into;           /* + 1: pa_cg_merge's entry, 0 none */
	uint32_t seen;                  /* callgraph.c: the add_bucket call that counted it last */
};

/* keys.c: an entry's key fields; perf's hist_entry__cmp(existing, new)
 * on the sort keys, as a sign (the entry trees' direction: < 0 the new
 * one goes left). */
void pa_key_of_entry(const struct cg_entry *e, struct hkey *k);
int pa_report_entry_cmp(const struct pa_report *r, const struct cg_entry *existing,
			const struct cg_entry *e);

/* print.c, for diff.c: an event's entries as perf report --no-children
 * makes them: those it prints in its order, then its filtered ones;
 * *nf_period: its non-filtered period. *out is malloc'ed. 0 or -ENOMEM. */
struct pa_flat_row {
	struct hkey k;
	uint64_t period, count;
	bool hidden; /* a filtered entry: paired and counted, not printed */
};
int pa_report_flat_rows(struct pa_report *r, unsigned evsel, struct pa_flat_row **out, size_t *n,
                        uint64_t *nf_period);
/* Which of r->keys perf's output leaves out (a column whose filter names
 * one value): elided[i] for r->keys[i]. */
void pa_report_elided_keys(const struct pa_report *r, bool *elided);

size_t pa_cg_nr_entries(const struct pa_report *r);
/* perf's hists__collapse_insert_entry found from equal to into (an entry
 * it had split): into takes its sums and call chains (not its depth). */
void pa_cg_merge(const struct pa_report *r, const struct cg_entry *into,
                 const struct cg_entry *from);
struct cg_entry *pa_cg_entry(const struct pa_report *r, size_t i);
/* Total period of an evsel's samples with call-graph entries (perf's
 * hists->callchain_period), for the graph threshold. */
uint64_t pa_cg_callchain_total(const struct pa_report *r, unsigned evsel, bool non_filtered);
/* Group the call chains of the entries about to be printed by entry, for
 * pa_cg_render_chain (only those whose graph may print something; the
 * others print none). */
int pa_cg_index_refs(struct pa_report *r, const struct cg_entry *const *es, size_t n);
/* The call graph of an entry, perf's stdio layout, into *buf (malloc'd,
 * *len bytes; NULL and 0 when it prints nothing): 0 or -ENOMEM. Made from
 * what the report finished before printing; while
 * pa_cg_render_shareable(r), nothing else is touched, and graphs of
 * different entries may be made on two threads at once (graphs.c). */
int pa_cg_render_chain(struct pa_report *r, const struct cg_entry *e, uint64_t total_period,
                       uint64_t parent_period, char **buf, size_t *len);
bool pa_cg_render_shareable(const struct pa_report *r);
/* Whether an entry's graph prints anything (a cheap test: most rows of a
 * large profile print none). */
bool pa_cg_graph_prints(const struct pa_report *r, const struct cg_entry *e);

/* graphs.c: the graphs of the rows about to be printed (jobs[0, n), their
 * entries, the value each row's percentages are of, and the event's total
 * period; row: the caller's), made ahead on a second thread where there
 * is one. start: NULL on ENOMEM (jobs stay the caller's, unchanged until
 * stop); take: job i's graph (as pa_cg_render_chain; jobs taken in order,
 * the buffer the caller's); stop: the helper joined, what was not taken
 * freed. */
struct pa_graph_job {
	const struct cg_entry *e;
	uint64_t parent;
	size_t row;
};
struct pa_graphs;
struct pa_graphs *pa_graphs_start(struct pa_report *r, const struct pa_graph_job *jobs, size_t n,
                                  uint64_t total);
int pa_graphs_take(struct pa_graphs *g, size_t i, char **buf, size_t *len);
void pa_graphs_stop(struct pa_graphs *g);

#endif
