/* queue.h - what the ordering queue (order.c) and the hit pass's
 * deliverer (handoff.c) share: the queued entries and the hit pass's
 * delivery. Nothing outside session/ includes it. */
#ifndef PA_SESSION_QUEUE_H
#define PA_SESSION_QUEUE_H

#include "internal.h"

/* A queued event: where the file reader cannot leave it in place (a
 * pipe, a compressed record, a byte-swapped file), a deep copy. */
struct qev {
	struct qchunk *chunk;
	struct pa_event *full; /* non-sample records: a deep copy */
	/* samples: only what sample consumers read */
	const struct pa_evsel *evsel;
	const uint64_t *callchain;
	uint64_t stype, ip, addr, id, period, callchain_nr;
	uint32_t pid, tid, cpu;
	uint16_t misc;
	uint16_t branch_nr; /* opts.keep_branches: triples behind the chain */
	uint32_t raw_size;  /* opts.keep_raw: the raw payload behind those */
	struct qdwarf *dw;  /* opts.keep_user_stacks: registers and stack */
};

/* An entry of the ordering queue. A sample of a mapped file in host byte
 * order stays where it lies (raw: decoded when delivered; read for its
 * time alone before that when no key is wanted ahead, pa_file's lazy
 * samples) instead of being copied: the copies' fresh memory, page faults
 * included, was most of the time of ordering a frame-pointer recording
 * (bench/README.md, "Queue entries in place"). Equal times keep their
 * order of arrival: the merge that sorts the queue is stable. */
struct qent {
	uint64_t time;
	uint64_t key;    /* sample_key(), made when queued (0: not made) */
	const void *raw; /* the sample's record in the file, or NULL: q */
	struct qev *q;
};

/* A sample of the hit pass (a session with no side callback, and no
 * sample callback, as buildid-list --with-hits and buildid-cache, or one
 * that only sums, pa_session_set_summing: a flat report): where its ip
 * lands (and for a summing callback what struct qsum holds) is all that
 * is read of it, once, when it is read from the file. Its DSO's hit mark is
 * set and never cleared, and sums do not care for the order they were
 * added in, so samples need their order against the records that change
 * the model, not among themselves: between two such records the samples
 * of a round are delivered as they came, with no sort and no second read
 * of the file, unless one would change the threads (a thread made or
 * given its pid by a sample, where which sample comes first decides).
 * side_seq: the side records queued before it, to order it against one
 * of equal time as they came. */
struct qhit {
	uint64_t time, ip;
	int32_t pid, tid;
	uint32_t side_seq; /* (mod 2^32) */
	uint32_t nth;      /* its arrival in its round, for a stable sort */
	uint16_t misc;
};

/* The rest of a summing callback's sample, beside its qhit (same index):
 * an array of its own, so that buildid-list's entries stay small. */
struct qsum {
	uint64_t period;
	const struct pa_evsel *evsel;
	uint32_t cpu;
};

/* What DWARF unwinding needs of a sample, copied (the valid part of the
 * stack only: dyn_size bytes). */
struct qdwarf {
	uint64_t abi, mask, size, dyn_size;
	uint32_t nr;
	bool units_reversed; /* as the sample's (formats.h) */
	const uint64_t *regs;
	const uint8_t *data;
};

/* Queued events live in per-round chunks freed when all are delivered. */
struct qchunk {
	struct pa_arena arena;
	size_t live; /* events not delivered yet */
	struct qchunk *next;
};

/* order.c: the queue sorted by time (stable); a chunk's event delivered */
void pa_queue_sort(struct pa_session *s);
void pa_queue_chunk_put(struct pa_session *s, struct qchunk *c);
/* order.c: the queue's bytes as the reader has them now */
uint64_t pa_queue_bytes_now(const struct pa_session *s);
/* order.c: a hit and its sums to the summing callback (ev: a sample the
 * caller zeroed once) */
int pa_hit_summed(struct pa_session *s, struct pa_hit_memo *memo, const struct qhit *h,
                  const struct qsum *sum, struct pa_event *ev);
/* order.c: whether no hit of hits[0, n) with time <= limit would change
 * the threads */
bool pa_hits_settled(struct pa_session *s, const struct qhit *hits, size_t n, uint64_t limit);
/* order.c: a round's hits hs[0, nw) (in arrival order: nth their index,
 * their sums ss[nth]) and side records side[0, nside) in time order: the
 * hits sorted, then each side record after the hits before it; *i: the
 * side records delivered, *last: the newest time delivered */
int pa_hits_merge(struct pa_session *s, struct qhit *hs, const struct qsum *ss, size_t nw,
                  const struct qent *side, size_t nside, size_t *i, uint64_t *last);

/* handoff.c: the hit pass delivered on a second thread (the reader's
 * side of it; see handoff.c). prepare: before the first record is read. */
void pa_handoff_prepare(struct pa_session *s);
void pa_handoff_start(struct pa_session *s);
int pa_handoff_enqueue(struct pa_session *s, const struct pa_event *ev);
int pa_handoff_round(struct pa_session *s, uint64_t limit);
int pa_handoff_drain(struct pa_session *s);
int pa_handoff_tick(struct pa_session *s);
int pa_handoff_stop(struct pa_session *s);
uint64_t pa_handoff_bytes(const struct pa_session *s);

#endif
