/* internal.h - what the model's stores (machine.c), the events applied to
 * them (session.c) and the reading and ordering of events (order.c,
 * handoff.c) share. Nothing outside session/ includes it. */
#ifndef PA_SESSION_INTERNAL_H
#define PA_SESSION_INTERNAL_H

#include "session.h"

struct pa_machine;
struct pa_maps;
struct qent;   /* order.c */
struct qchunk; /* order.c */
struct qhit;   /* order.c */
struct qsum;   /* order.c */

struct pa_session {
	/* ---- read-mostly */
	struct pa_file *file;
	struct pa_session_opts opts;
	pa_session_sample_fn fn;
	void *ctx;
	pa_session_side_fn side_fn; /* and its record types, 1 << type */
	void *side_ctx;
	uint64_t side_mask;
	pa_session_ahead_fn ahead_fn;
	void *ahead_ctx;
	struct pa_event *ahead_evs;  /* PA_SESSION_AHEAD_MAX, once wanted */
	struct pa_arena ahead_arena; /* their arrays from the scratch space */
	/* (No reader thread: reading and ordering on a second CPU while this
	 * one delivered cost twice the CPU time and 1.6x the wall time on two
	 * CPUs in a VM, the queued copies crossing between caches;
	 * bench/README.md. The hit pass's deliverer, handoff.c, hands over
	 * 64 bytes a sample in batches instead, and gains.) */

	/* the hit pass's samples (order.c): no side callback, and a sample
	 * callback that only sums (summing) or none, so that a sample only
	 * marks the DSO its ip lands in */
	bool summing, hit_pass;
	/* its deliverer on a second thread (handoff.c), or NULL. The groups
	 * below start on cache lines of their own (the session is allocated
	 * aligned): the reader writes the first for every record while the
	 * deliverer reads the second, and sharing a line cost the reader a
	 * third of its time. */
	struct pa_handoff *handoff;

	/* ---- reading and ordering */
	_Alignas(64) struct qent *queue, *qtmp;
	size_t nq, capq;
	struct qchunk *chunks, *cur_chunk;
	uint64_t nr_queued_side; /* queue entries queued in the hit pass */
	uint64_t max_timestamp, next_flush, last_flush;
	uint64_t nr_unordered;
	uint64_t input_pos; /* end of the last record read: the input so far */
	uint64_t nr_read;   /* samples read (told to opts.progress by a reader with a deliverer) */
	bool handoff_decided;

	/* ---- the hit pass's samples waiting (with a deliverer, the ones it
	 * keeps for the next round), and what the deliverer sees of
	 * input_pos and the queue's bytes: the reader's at the round it
	 * delivers */
	_Alignas(64) struct qhit *hits, *htmp;
	struct qsum *sums, *stmp; /* (a summing callback's: beside hits) */
	size_t nh, caph, capsum;
	uint64_t seen_pos, seen_qbytes;
	uint64_t rounds_aside; /* delivered by a deliverer (counted by it) */

	/* ---- the model */
	_Alignas(64) struct pa_arena arena;
	struct pa_machine **machines;
	unsigned nr_machines;
	struct pa_machine *host; /* machines' HOST_PID one, once made */
	struct pa_dso **all_dsos;
	unsigned nr_all_dsos, cap_all_dsos;
	unsigned nr_threads;
	struct pa_maps *all_maps;
	uint64_t maps_generation;
	uint64_t nr_samples, nr_lost, nr_lost_samples;
	uint64_t maps_bytes; /* map vectors of every address space */
	bool limit_hit;      /* the memory cap stopped processing */
	uint64_t nprogress;  /* events delivered, for opts.progress */
	/* pa_session_sample_key() of the sample being delivered (0: not
	 * made yet) and of one a few events later (0: none known) */
	uint64_t cur_key, ahead_key;
};

/* session.c: an event, in order, applied to the model or handed to the
 * callbacks */
int pa_session_deliver(struct pa_session *s, const struct pa_event *ev);
/* the hit pass's sample: its thread found or made, its DSO marked hit.
 * memo: the previous hit's thread and map, so that a run of samples of
 * one thread in one map (a CPU buffer's) is resolved once; zeroed by the
 * caller whenever a record that changes threads or maps may have been
 * applied since. */
struct pa_hit_memo {
	struct pa_thread *t;
	const struct pa_map *map;
	int32_t pid, tid;
	uint8_t cpumode;
};
int pa_session_deliver_hit(struct pa_session *s, struct pa_hit_memo *memo, int32_t pid, int32_t tid,
                           uint16_t misc, uint64_t ip);
/* the hit pass's sample to a summing callback (ev: a sample with the
 * fields summing promises), memo's thread used or set as above */
int pa_session_deliver_summed(struct pa_session *s, struct pa_hit_memo *memo,
                              const struct pa_event *ev);
int pa_session_add_header_build_id(struct pa_session *s, const struct pa_buildid_entry *e);
/* would holding "more" bytes on top of "used" pass the memory cap? */
bool pa_session_over_cap(const struct pa_session *s, uint64_t used, uint64_t more);

/* order.c: the bytes the queue holds, and freeing it */
uint64_t pa_session_queue_bytes(const struct pa_session *s);
void pa_session_queue_release(struct pa_session *s);

/* ---- the model's stores (machine.c) */
#define HOST_PID (-1)

struct pa_maps {
	struct pa_map **v;
	size_t n, cap;
	size_t hint;                /* index of the last map found: samples come in runs */
	struct pa_maps *next_alloc; /* every maps object, for freeing */
};

struct pa_thread {
	int32_t pid, tid, ppid;
	unsigned idx;
	const char *comm;
	bool comm_set;
	/* ":TID", the name until a COMM, and the COMM that overrode it */
	const char *default_comm, *override_comm;
	struct pa_maps *maps;        /* shared by a thread group */
	struct pa_thread *next_dead; /* replaced threads stay alive for samples in flight */
};

#define RECENT_THREADS 8

struct pa_machine {
	int32_t pid;
	struct pa_dso **dsos;
	unsigned nr_dsos, cap_dsos;
	struct pa_u64map dso_by_hash; /* name hash -> first dso in chain */
	struct pa_u64map threads;     /* tid -> thread */
	/* threads found lately, by tid's low bits: samples come in runs, of
	 * one thread per CPU taking turns */
	struct pa_thread *recent[RECENT_THREADS];
	struct pa_maps kmaps;
	struct pa_dso *kernel_dso;
	/* the first kernel MMAP: "[kernel.kallsyms]REF" and its pgoff, perf's
	 * relocation reference (REF is "_text" from perf record) */
	const char *kernel_ref_name;
	uint64_t kernel_ref_addr;
};

struct dso_node {
	struct pa_dso dso;
	struct dso_node *next_same_hash;
};

struct pa_machine *pa_session_host(struct pa_session *s);
struct pa_dso *pa_session_findnew_dso(struct pa_session *s, struct pa_machine *m, const char *name,
                                      enum pa_dso_kind kind);
void pa_dso_set_build_id(struct pa_dso *d, const uint8_t *id, uint8_t size, bool from_header);
/* The map of addr in ms, NULL if none. hint: look at the last map found
 * first, and remember this one (lookups from one thread only). */
struct pa_map *pa_maps_find(struct pa_maps *ms, uint64_t addr, bool hint);
/* Insert, cutting away what the new map overlaps (maps__fixup_overlappings). */
int pa_maps_insert(struct pa_session *s, struct pa_maps *ms, struct pa_map *nm);
int pa_maps_clone(struct pa_session *s, struct pa_maps *dst, const struct pa_maps *src);
struct pa_thread *pa_machine_find_thread(struct pa_machine *m, int32_t tid);
struct pa_thread *pa_machine_new_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
                                        int32_t tid);
/* perf's machine__findnew_thread, including how a thread joins its
 * group leader's maps once its pid becomes known. */
struct pa_thread *pa_machine_findnew_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
                                            int32_t tid);
int pa_thread_set_comm(struct pa_session *s, struct pa_thread *t, const char *comm);
/* 0, or -PA_ERR_LIMIT when holding "more" bytes on top would pass the cap
 * (session.c). */
int pa_session_mem_check(struct pa_session *s, uint64_t more);

#endif
