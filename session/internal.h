/* internal.h - what the model (session.c) and the reading and ordering
 * of events (order.c) share. Nothing outside session/ includes it. */
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

#endif
