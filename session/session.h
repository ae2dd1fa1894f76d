/* session.h - events -> machines, threads, maps and DSOs, in time order.
 *
 * Invariants: a session borrows its pa_file (the caller closes it after
 * pa_session_free()). Events are applied in perf's order: records that
 * carry a timestamp are queued and flushed round by round (FINISHED_ROUND),
 * the others are applied at once, so a sample always sees the maps and
 * comm that were current at its time. DSOs are unique per machine by name;
 * their build-id comes from the BUILD_ID feature, HEADER_BUILD_ID records
 * or MMAP2 build-ids.
 *
 * Lifecycle: pa_session_new() -> pa_session_process() -> pa_session_free().
 */
#ifndef PA_SESSION_H
#define PA_SESSION_H

#include "formats/formats.h"

enum pa_dso_kind {
	PA_DSO_USER,
	PA_DSO_KERNEL,       /* [kernel.kallsyms] */
	PA_DSO_KERNEL_MODULE,
	PA_DSO_VDSO,
	PA_DSO_ANON,         /* JIT code: /tmp/perf-PID.map */
	PA_DSO_OTHER,        /* [heap], [stack], //anon without exec, ... */
	PA_DSO_JIT,          /* code named by the file's own JIT table (sysprof JITMAP) */
};

struct pa_dso {
	unsigned idx; /* per session, dense: callers key side tables by it */
	const char *long_name, *short_name;
	enum pa_dso_kind kind;
	uint8_t build_id[20];
	uint8_t build_id_size; /* 0: none known */
	bool hit;              /* a sample's ip fell in it */
	bool chain_hit;        /* a recorded call chain named it (pa_session_mark_chain) */
	bool header_build_id;  /* id came from the header, not an mmap */
	struct pa_machine *machine;
};

struct pa_map {
	uint64_t start, end, pgoff;
	uint32_t prot, flags;
	struct pa_dso *dso;
	bool identity; /* addresses are absolute (anon/JIT, kernel) */
	uint64_t reloc; /* kernel text relocation (perf's map->reloc) */
};

struct pa_machine;
struct pa_thread;
struct pa_session;

/* Where an address landed. */
struct pa_addr_loc {
	struct pa_thread *thread;
	struct pa_map *map; /* NULL when no map covers it */
	struct pa_dso *dso;
	uint64_t addr;      /* map-relative address: what symbols are looked up by */
	char level;         /* 'k' kernel, '.' user, 'H' hypervisor, 'g'/'u' guest */
	uint8_t cpumode;
	/* (lazy_sample_loc) only thread, cpumode and addr (the raw ip) are
	 * set: pa_session_resolve_ip() gives the rest */
	bool unresolved;
};

const char *pa_thread_comm(const struct pa_thread *t);
/* The name perf report gives a sample the thread took when it was named
 * comm (pa_thread_comm() then): a thread first seen by a sample or an
 * mmap is named ":TID", and its first COMM overrides that name in place
 * (perf's comm__override), so its earlier samples are reported under the
 * new name too. perf script prints the name at sample time (comm). */
const char *pa_thread_report_comm(const struct pa_thread *t, const char *comm);
int32_t pa_thread_pid(const struct pa_thread *t);
int32_t pa_thread_tid(const struct pa_thread *t);
/* The tid of the thread it forked from (perf's ppid), -1 when unknown. */
int32_t pa_thread_ppid(const struct pa_thread *t);
/* A stable small number per thread object, for side tables. */
unsigned pa_thread_idx(const struct pa_thread *t);

struct pa_session_opts {
	size_t sz;
	/* Deliver events in file order instead of perf's timestamp order. */
	bool unordered;
	/* perf's ordering_requires_timestamps (report, script, annotate,
	 * diff): a recording whose first event does not have sample_id_all
	 * set (perf before 2.6.38, or a writer that leaves it out) has side
	 * records without times, and is delivered in file order. */
	bool order_needs_ids;
	/* The sample callback does not read call chains: do not keep them
	 * while events wait to be ordered. */
	bool no_callchains;
	/* Cap, in bytes, on what the session holds: address spaces, threads,
	 * DSOs, strings and the events waiting to be ordered. 0 means the
	 * default: PA_SESSION_MAX_MEMORY, and also no more than
	 * PA_SESSION_MEMORY_BASE + PA_SESSION_MEMORY_PER_BYTE times the input
	 * read so far (a real recording needs a few times its size at most; a
	 * hostile one, e.g. a process with 100k maps forked 100k times, would
	 * otherwise need memory quadratic in its size). Any other value is the
	 * only cap; UINT64_MAX means none. Past the cap, pa_session_process()
	 * fails with -PA_ERR_LIMIT and the offset of the record that needed
	 * more. */
	uint64_t max_memory;
	/* Keep each sample's user registers and user stack (the part the
	 * kernel filled: dyn_size bytes) while it waits to be ordered, for a
	 * callback that unwinds with DWARF; otherwise they are dropped. */
	bool keep_user_stacks;
	/* Samples keep their branch stacks (perf report's branch mode);
	 * otherwise the callback sees none. */
	bool keep_branches;
	/* Samples keep their raw payloads (tracepoints' fields); otherwise
	 * the callback may see none. */
	bool keep_raw;
	/* The sample callback gets its loc unresolved (see pa_addr_loc) and
	 * resolves it when it needs to, e.g. not when it has the ip cached;
	 * DSO hit marks are then the callback's to set. */
	bool lazy_sample_loc;
	/* The callback reads pa_session_sample_key_ahead(): each sample's key
	 * is made when it is queued (else only when asked for, and none is
	 * told ahead). */
	bool keys_ahead;
	/* Told how far the work is, on the calling thread: every 65536
	 * events delivered and once when the input is read to its end
	 * (done): the input consumed so far (pa_session_input_pos) and the
	 * samples delivered. For a progress indicator; NULL: none. */
	void (*progress)(void *ctx, uint64_t input_pos, uint64_t nr_samples, bool done);
	void *progress_ctx;
};

#define PA_SESSION_MAX_MEMORY (sizeof(void *) >= 8 ? 4ull << 30 : 1ull << 30)
#define PA_SESSION_MEMORY_BASE (256ull << 20)
#define PA_SESSION_MEMORY_PER_BYTE 64u

/* Returns NULL and fills err. Free with pa_session_free(). */
struct pa_session *pa_session_new(struct pa_file *f, const struct pa_session_opts *opts,
				  struct pa_err *err);
void pa_session_free(struct pa_session *s);

struct pa_file *pa_session_file(const struct pa_session *s);

/* Does the recording name this very host, kernel release and machine (its
 * HOSTNAME, OSRELEASE and ARCH features against uname)? Only then may
 * facts of this machine that the file does not carry (the running kernel's
 * build-id, a JIT's /tmp/perf-PID.map) stand in for the recording host's. */
bool pa_session_recorded_here(const struct pa_session *s);
/* Are events delivered in time order (not opts.unordered, nor made so by
 * opts.order_needs_ids)? */
bool pa_session_in_time_order(const struct pa_session *s);

/* Called for every sample, in time order, with the thread as it was then
 * and where its ip landed (loc->map is NULL when no map covers it).
 * Return non-zero to stop (that value is returned by process). */
typedef int (*pa_session_sample_fn)(void *ctx, struct pa_session *s, const struct pa_event *ev,
				    struct pa_thread *thread, const struct pa_addr_loc *loc);

/* Records other than samples (perf script's --show-*-events, report's -T
 * and --stats), after they took effect, in the order samples come: those
 * of the kernel's types (below 64: MMAP, COMM, FORK, EXIT, SWITCH, READ,
 * LOST_SAMPLES...) whose bit (1 << type) is in mask. t is the thread the
 * record names (a switch: the sample's), made when new as perf's
 * machine__findnew_thread makes it. Set before pa_session_process();
 * return non-zero to stop. */
typedef int (*pa_session_side_fn)(void *ctx, struct pa_session *s, const struct pa_event *ev,
				  struct pa_thread *t);
void pa_session_set_side_fn(struct pa_session *s, uint64_t mask, pa_session_side_fn fn,
			    void *ctx);

/* Called before samples are delivered, with a run of them decoded in
 * delivery order (n at most PA_SESSION_AHEAD_MAX): until the last of them
 * is delivered nothing changes the threads and maps but the samples
 * themselves (a thread made, a pid learnt), and evs stay valid. The
 * callback may read the session from other threads until it returns
 * (pa_session_lookup_map, the threads of pa_session_settled_thread), never
 * change it. Set before pa_session_process(); return non-zero to stop. */
#define PA_SESSION_AHEAD_MAX 64
typedef int (*pa_session_ahead_fn)(void *ctx, struct pa_session *s, const struct pa_event *evs,
                                   size_t n);
void pa_session_set_ahead_fn(struct pa_session *s, pa_session_ahead_fn fn, void *ctx);

/* The sample callback only adds up what it reads of a sample (its event,
 * cpumode, ip, pid, tid, time, cpu and period: nothing else is set) into
 * sums that do not depend on the order of the samples between two records
 * that change the threads or maps. The samples of a round then come as
 * they were read, where no such record and no new thread is among them,
 * neither sorted nor decoded again (buildid-list's hit pass, with a
 * callback). Ignored with keys_ahead, call chains, branch or user stacks,
 * unordered or a side callback. Set before pa_session_process(). */
void pa_session_set_summing(struct pa_session *s, bool on);
/* In the ahead callback: the thread a sample of (pid, tid) will be
 * delivered with, when that thread is known and its maps stay what they
 * are until then; else NULL. */
struct pa_thread *pa_session_settled_thread(struct pa_session *s, int32_t pid, int32_t tid);

/* The host's threads as perf keeps them after processing (a thread whose
 * tid was taken over is gone), in no particular order: up to max into out
 * (NULL: none), and how many there are. pa_session_find_thread: the one
 * with this tid, or NULL. */
size_t pa_session_threads(struct pa_session *s, struct pa_thread **out, size_t max);
struct pa_thread *pa_session_find_thread(struct pa_session *s, int32_t tid);

/* Bumped whenever any address space changes: a cache of ip -> location
 * stays valid while this stays the same. */
uint64_t pa_session_maps_generation(const struct pa_session *s);

/* In the callback: a hash of what makes the sample the same as another
 * for a cache of samples (event, cpumode, pid, tid, ip, call chain; not
 * cpu, time or period). Never 0. */
uint64_t pa_session_sample_key(struct pa_session *s, const struct pa_event *ev);

/* In the callback: the sample key of a sample a few events later, 0 when
 * none is known, so that a cache can fetch its slot ahead. */
uint64_t pa_session_sample_key_ahead(const struct pa_session *s);

/* Read the whole file. Returns 0, the callback's non-zero value, or a
 * negative error with err filled. */
int pa_session_process(struct pa_session *s, pa_session_sample_fn fn, void *ctx,
		       struct pa_err *err);

/* Find the map for addr in the thread's (or the kernel's) address space.
 * pa_session_lookup_map: the same, changing nothing (not even a hint), so
 * that several threads may look up at once while the session stands. */
bool pa_session_find_map(struct pa_session *s, struct pa_thread *t, uint8_t cpumode,
			 uint64_t addr, struct pa_addr_loc *loc);
bool pa_session_lookup_map(const struct pa_session *s, struct pa_thread *t, uint8_t cpumode,
                           uint64_t addr, struct pa_addr_loc *loc);

/* Where a branch entry's address lands: as perf, which cannot tell from
 * the sample whose side of a boundary a branch's end is, the user maps,
 * then the kernel's; else no map and level 'H' (perf's level for the last
 * cpumode it tries, a guest's, when not reporting guests). */
bool pa_session_find_branch_map(struct pa_session *s, struct pa_thread *t, uint64_t addr,
                                struct pa_addr_loc *loc);

/* Resolve a sample's ip (what perf's machine__resolve does); the DSO it
 * lands in is marked hit. */
bool pa_session_resolve_ip(struct pa_session *s, struct pa_thread *t, const struct pa_event *ev,
			   struct pa_addr_loc *loc);
/* A PERF_CONTEXT_* marker of a call chain (>= PA_CONTEXT_MAX) as perf
 * 6.1's machine__resolve_callchain takes it: *cpumode becomes the
 * address space of the entries after it (kernel, user, hypervisor); false
 * for one it does not know (perf then drops the whole chain), *cpumode
 * left as it was. */
bool pa_session_chain_context(uint64_t marker, uint8_t *cpumode);
/* Mark chain_hit on each DSO the sample's recorded call chain lands in
 * (the address space switching at the context markers, as a call graph
 * does). */
void pa_session_mark_chain(struct pa_session *s, struct pa_thread *t, const struct pa_event *ev);
/* A sample's location resolved: al itself, or (al->unresolved, a session
 * made with lazy_sample_loc) *buf filled now by pa_session_resolve_ip. */
const struct pa_addr_loc *pa_session_resolved(struct pa_session *s, const struct pa_event *ev,
					      const struct pa_addr_loc *al, struct pa_addr_loc *buf);

/* Machines: the host first, then guests by pid. */
unsigned pa_session_nr_machines(const struct pa_session *s);
struct pa_machine *pa_session_machine(const struct pa_session *s, unsigned i);
int32_t pa_machine_pid(const struct pa_machine *m);
/* DSOs of a machine in creation order, like perf's dsos list. */
unsigned pa_machine_nr_dsos(const struct pa_machine *m);
struct pa_dso *pa_machine_dso(const struct pa_machine *m, unsigned i);
/* All DSOs of the session, by idx. */
unsigned pa_session_nr_dsos(const struct pa_session *s);
struct pa_dso *pa_session_dso(const struct pa_session *s, unsigned idx);

/* Bytes the session holds now, and the cap on them at this point of the
 * input (see opts.max_memory; UINT64_MAX: none). A layer above that shares
 * the budget (report/) checks its own bytes plus these against the cap. */
uint64_t pa_session_memory(const struct pa_session *s);
uint64_t pa_session_memory_cap(const struct pa_session *s);
/* The host kernel's relocation reference from its first MMAP record,
 * "[kernel.kallsyms]NAME" with pgoff ADDR (NAME "_text" from perf record;
 * ADDR 0 when kptr_restrict hid it). false without a kernel MMAP. */
bool pa_session_kernel_ref(const struct pa_session *s, const char **name, uint64_t *addr);

/* The end of the last record read: the input consumed so far. */
uint64_t pa_session_input_pos(const struct pa_session *s);

/* Counters for --stats style output. */
uint64_t pa_session_nr_samples(const struct pa_session *s);
/* The rounds that pa_session_process() delivered on a second thread while
 * it read on: a summing callback's (pa_session_set_summing) or the DSO hit
 * marks of a session without one, over a mapped input of 16 MB or more,
 * with two CPUs, threads not refused (pa_file_opts.no_threads) and no
 * max_memory set. For tests. */
uint64_t pa_session_rounds_aside(const struct pa_session *s);
uint64_t pa_session_nr_lost(const struct pa_session *s);
/* Sum of PERF_RECORD_LOST_SAMPLES counts ("Total Lost Samples"). */
uint64_t pa_session_nr_lost_samples(const struct pa_session *s);
/* Events seen with a timestamp below an already flushed round. */
uint64_t pa_session_nr_unordered(const struct pa_session *s);

#endif
