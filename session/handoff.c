/* handoff.c - the hit pass (a flat report's sums, buildid-list's hit
 * marks) on two CPUs: the calling thread reads samples into batches, and
 * a deliverer thread delivers each flushed round from them while the
 * reader reads on.
 *
 * Why: with one thread the flat report's time is about half reading and
 * half delivering (on_sample, the threads, the sums), so a large file's
 * report waited on one CPU while the other idled (bench/README.md, "A
 * flat report on two CPUs"). The earlier reader thread, which handed over
 * copies of whole events and published memory figures per event, cost
 * more than it saved; here a sample crosses once, as the 64 bytes of its
 * qhit and qsum, written where the reader puts it anyway, and the two
 * threads meet once per batch of HANDOFF_HITS samples.
 *
 * Same output as flush_hits: a round's hits are those its limit lets
 * through, in the order they came (or in time order around side records
 * and thread changes), each round delivered whole before the next. A
 * round's limit is the newest time of the round before, so every hit of
 * a round goes with that round's flush or the next one: the reader tells
 * at once which (time <= next_flush), and the deliverer keeps the later
 * ones until the next round.
 *
 * What each side owns while the deliverer runs: the reader, the file, the
 * side records' queue and its chunks, input_pos, max_timestamp,
 * next_flush and last_flush, and the batch it fills; the deliverer, the
 * model, the callback, s->hits/s->sums (the hits it keeps for the next
 * round) and the batch handed to it. What the deliverer's memory checks
 * and messages read of the reader's (pa_session_input_pos, the queue's
 * bytes) is the reader's figures at the round it delivers, as they would
 * be without it. */
#include "queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HANDOFF_HITS  8192 /* a batch is handed over once it holds this many */
#define ROUND_THREADS 8

/* (pid, tid) pairs, ROUND_THREADS at most (n > ROUND_THREADS: more) */
struct tset {
	unsigned n;
	int32_t pid[ROUND_THREADS], tid[ROUND_THREADS];
};

/* One flushed round in a batch: its hits [the round before's end, end),
 * its side records [s0, s0 + nside), its limit, and what the reader had
 * read and queued when it flushed it. threads: those of the hits it
 * delivers (the last round's kept ones and its own up to limit), told by
 * the reader, which looks at each hit anyway. */
struct hround {
	size_t end, s0, nside;
	uint64_t limit, pos, qbytes;
	struct tset threads;
};

struct hbatch {
	struct qhit *hits;
	struct qsum *sums;
	size_t nh, caph, capsum;
	struct qent *side;
	size_t nside, capside;
	struct pa_arena arena; /* the side records' copies */
	struct hround *rounds;
	size_t nrounds, caprounds;
	bool full; /* handed over, not delivered yet (under mu) */
};

/* The reader's view of the hits of the round it reads: those up to the
 * limit it will be flushed at (le) and the later ones (gt). */
struct hsplit {
	struct tset threads;
	uint64_t max;
	bool any;
};

struct pa_handoff {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct hbatch b[2];
	unsigned fill; /* the reader's */
	int ret;       /* the deliverer's error (under mu) */
	bool stop;     /* (under mu) */
	/* the reader's */
	struct hsplit le, gt, kept; /* kept: the last round's gt */
	uint64_t reads;
	/* the deliverer's: s->hits, s->sums, s->nh are the kept hits */
	size_t capk, capks;
};

static void tset_add(struct tset *t, int32_t pid, int32_t tid)
{
	if (t->n && t->n <= ROUND_THREADS && t->pid[t->n - 1] == pid && t->tid[t->n - 1] == tid)
		return;
	for (unsigned i = 0; i < t->n && i < ROUND_THREADS; i++)
		if (t->pid[i] == pid && t->tid[i] == tid)
			return;
	if (t->n < ROUND_THREADS) {
		t->pid[t->n] = pid;
		t->tid[t->n] = tid;
	}
	t->n += t->n <= ROUND_THREADS;
}

static void tset_union(struct tset *t, const struct tset *o)
{
	if (o->n > ROUND_THREADS)
		t->n = ROUND_THREADS + 1;
	for (unsigned i = 0; i < o->n && i < ROUND_THREADS && t->n <= ROUND_THREADS; i++)
		tset_add(t, o->pid[i], o->tid[i]);
}

static void split_add(struct hsplit *sp, const struct qhit *h)
{
	tset_add(&sp->threads, h->pid, h->tid);
	sp->max = !sp->any || h->time > sp->max ? h->time : sp->max;
	sp->any = true;
}

static void split_join(struct hsplit *a, const struct hsplit *b)
{
	if (!b->any)
		return;
	tset_union(&a->threads, &b->threads);
	a->max = !a->any || b->max > a->max ? b->max : a->max;
	a->any = true;
}

static void handoff_free(struct pa_handoff *h)
{
	for (unsigned i = 0; i < 2; i++) {
		struct hbatch *b = &h->b[i];
		free(b->hits);
		free(b->sums);
		free(b->side);
		free(b->rounds);
		pa_arena_release(&b->arena);
	}
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
}

/* ---- the deliverer ------------------------------------------------------ */

uint64_t pa_handoff_bytes(const struct pa_session *s)
{
	const struct pa_handoff *h = s->handoff;
	return h->capk * sizeof(*s->hits) + h->capks * sizeof(*s->sums) +
	       (s->caph * sizeof(*s->htmp) + s->capsum * sizeof(*s->stmp));
}

/* Whether the round's hits would change no thread. */
static bool round_settled(struct pa_session *s, const struct hround *r, const struct qhit *rh,
                          size_t n)
{
	const struct tset *t = &r->threads;
	if (t->n > ROUND_THREADS)
		return pa_hits_settled(s, s->hits, s->nh, r->limit) &&
		       pa_hits_settled(s, rh, n, r->limit);
	for (unsigned i = 0; i < t->n; i++)
		if (!pa_session_settled_thread(s, t->pid[i], t->tid[i]))
			return false;
	return true;
}

/* Hits and, for a summing callback, their sums beside them (else NULL). */
struct hits {
	struct qhit *h;
	struct qsum *s;
};

static struct hits kept_hits(struct pa_session *s)
{
	return (struct hits){s->hits, s->fn ? s->sums : NULL};
}

/* Room for n kept hits. */
static int kept_room(struct pa_session *s, size_t n)
{
	struct pa_handoff *h = s->handoff;
	if (PA_GROW(s->hits, h->capk, n, 4096) || (s->fn && PA_GROW(s->sums, h->capks, n, 4096)))
		return -ENOMEM;
	return 0;
}

static void move_hit(struct hits to, size_t k, struct hits from, size_t i)
{
	to.h[k] = from.h[i];
	if (to.s)
		to.s[k] = from.s[i];
}

/* Hit i of from to the summing callback (ev: zeroed once by the caller),
 * or, without one, its DSO marked hit. */
static int deliver_hit(struct pa_session *s, struct pa_hit_memo *memo, struct hits from, size_t i,
                       struct pa_event *ev)
{
	const struct qhit *h = &from.h[i];
	return from.s ? pa_hit_summed(s, memo, h, &from.s[i], ev)
	              : pa_session_deliver_hit(s, memo, h->pid, h->tid, h->misc, h->ip);
}

/* The hits kept from the round before, then the round's own (rh, n of
 * them), that its limit lets through, in the order they came; the others
 * kept. */
static int deliver_in_order(struct pa_session *s, const struct hround *r, struct hits rh, size_t n)
{
	struct pa_hit_memo memo = {0};
	struct pa_event ev = {0};
	struct hits kept = kept_hits(s);
	size_t nk = 0;
	int ret = 0;
	for (size_t i = 0; !ret && i < s->nh; i++) {
		if (kept.h[i].time > r->limit)
			move_hit(kept, nk++, kept, i);
		else
			ret = deliver_hit(s, &memo, kept, i, &ev);
	}
	if (ret || (ret = kept_room(s, nk + n)))
		return ret;
	kept = kept_hits(s);
	for (size_t i = 0; !ret && i < n; i++) {
		if (rh.h[i].time > r->limit)
			move_hit(kept, nk++, rh, i);
		else
			ret = deliver_hit(s, &memo, rh, i, &ev);
	}
	s->nh = nk;
	return ret;
}

/* Hit i of from into the round's gathered ones (nth: where it lands) when
 * the limit lets it through, else into the kept ones. */
static void sort_out(const struct hround *r, struct hits from, size_t i, struct hits tmp,
                     size_t *nw, struct hits kept, size_t *nk)
{
	if (from.h[i].time > r->limit) {
		move_hit(kept, (*nk)++, from, i);
		return;
	}
	move_hit(tmp, *nw, from, i);
	tmp.h[*nw].nth = (uint32_t)*nw;
	++*nw;
}

/* As flush_hits' time-ordered way: the hits the limit lets through
 * gathered (nth: their arrival), sorted and merged with the side records;
 * the others kept. */
static int deliver_sorted(struct pa_session *s, struct hbatch *b, const struct hround *r,
                          struct hits rh, size_t n)
{
	size_t need = s->nh + n, nw = 0, nk = 0;
	if (PA_GROW(s->htmp, s->caph, need, 4096) ||
	    (s->fn && PA_GROW(s->stmp, s->capsum, need, 4096)))
		return -ENOMEM;
	struct hits tmp = {s->htmp, s->fn ? s->stmp : NULL}, kept = kept_hits(s);
	for (size_t i = 0; i < s->nh; i++)
		sort_out(r, kept, i, tmp, &nw, kept, &nk);
	if (kept_room(s, nk + n))
		return -ENOMEM;
	kept = kept_hits(s);
	for (size_t i = 0; i < n; i++)
		sort_out(r, rh, i, tmp, &nw, kept, &nk);
	s->nh = nk;
	size_t done = 0;
	uint64_t last = 0;
	return pa_hits_merge(s, tmp.h, tmp.s, nw, b->side + r->s0, r->nside, &done, &last);
}

static int deliver_round(struct pa_session *s, struct hbatch *b, const struct hround *r, size_t h0)
{
	s->seen_pos = r->pos;
	s->seen_qbytes = r->qbytes;
	s->rounds_aside++;
	if (pa_session_over_cap(s, pa_session_memory(s), 0)) {
		s->limit_hit = true;
		return -PA_ERR_LIMIT;
	}
	struct hits rh = {b->hits + h0, s->fn ? b->sums + h0 : NULL};
	size_t n = r->end - h0;
	if (!r->nside && round_settled(s, r, rh.h, n))
		return deliver_in_order(s, r, rh, n);
	return deliver_sorted(s, b, r, rh, n);
}

static void *deliverer(void *arg)
{
	struct pa_session *s = arg;
	struct pa_handoff *h = s->handoff;
	unsigned k = 0;
	for (;;) {
		pthread_mutex_lock(&h->mu);
		while (!h->b[k].full && !h->stop)
			pthread_cond_wait(&h->cv, &h->mu);
		bool done = !h->b[k].full;
		pthread_mutex_unlock(&h->mu);
		if (done)
			break;
		struct hbatch *b = &h->b[k];
		int ret = 0;
		size_t h0 = 0;
		for (size_t i = 0; !ret && i < b->nrounds; h0 = b->rounds[i++].end)
			ret = deliver_round(s, b, &b->rounds[i], h0);
		b->nh = b->nside = b->nrounds = 0;
		if (b->arena.used_total)
			pa_arena_release(&b->arena);
		pthread_mutex_lock(&h->mu);
		b->full = false;
		h->ret = ret;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
		if (ret)
			break;
		k ^= 1;
	}
	return NULL;
}

/* ---- the reader ---------------------------------------------------------- */

/* The reader's batch handed over (when it holds a round), and the other
 * one waited for: 0, or -ECANCELED when the deliverer failed (its error
 * is the run's, pa_handoff_stop). */
static int send_batch(struct pa_handoff *h)
{
	pthread_mutex_lock(&h->mu);
	if (h->b[h->fill].nrounds) {
		h->b[h->fill].full = true;
		pthread_cond_broadcast(&h->cv);
		h->fill ^= 1;
	}
	while (h->b[h->fill].full && !h->ret)
		pthread_cond_wait(&h->cv, &h->mu);
	int ret = h->ret ? -ECANCELED : 0;
	pthread_mutex_unlock(&h->mu);
	return ret;
}

/* Until the deliverer is idle (so that the reader may apply a record to
 * the model itself); the rounds flushed so far handed over first. The
 * hits read since the last round stay the reader's: moved to the other
 * batch, which is empty once delivered. */
int pa_handoff_drain(struct pa_session *s)
{
	struct pa_handoff *h = s->handoff;
	struct hbatch *b = &h->b[h->fill], *o = &h->b[h->fill ^ 1];
	pthread_mutex_lock(&h->mu);
	while (o->full && !h->ret)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
	size_t end = b->nrounds ? b->rounds[b->nrounds - 1].end : 0, tail = b->nh - end;
	if (b->nrounds && tail) {
		if (PA_GROW(o->hits, o->caph, tail, 4096) ||
		    (s->fn && PA_GROW(o->sums, o->capsum, tail, 4096)))
			return -ENOMEM;
		memcpy(o->hits, b->hits + end, tail * sizeof(*o->hits));
		if (s->fn)
			memcpy(o->sums, b->sums + end, tail * sizeof(*o->sums));
		o->nh = tail;
		b->nh = end;
	}
	int ret = send_batch(h); /* (b handed over, when it has rounds) */
	pthread_mutex_lock(&h->mu);
	while (h->b[h->fill ^ 1].full && !h->ret)
		pthread_cond_wait(&h->cv, &h->mu);
	ret = h->ret ? -ECANCELED : ret;
	pthread_mutex_unlock(&h->mu);
	return ret;
}

int pa_handoff_enqueue(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_handoff *h = s->handoff;
	struct hbatch *b = &h->b[h->fill];
	if (b->nh >= b->caph && PA_GROW(b->hits, b->caph, b->nh + 1, 4096))
		return -ENOMEM;
	if (s->fn) {
		if (b->nh >= b->capsum && PA_GROW(b->sums, b->capsum, b->nh + 1, 4096))
			return -ENOMEM;
		struct qsum *q = &b->sums[b->nh];
		q->evsel = ev->evsel;
		pa_file_sample_sums(s->file, ev, &q->cpu, &q->period);
	}
	const struct pa_sample *sm = &ev->sample;
	struct qhit *hit = &b->hits[b->nh++];
	*hit = (struct qhit){.time = sm->time,
	                     .ip = sm->ip,
	                     .pid = (int32_t)sm->pid,
	                     .tid = (int32_t)sm->tid,
	                     .misc = ev->misc,
	                     .side_seq = (uint32_t)s->nr_queued_side};
	split_add(hit->time <= s->next_flush ? &h->le : &h->gt, hit);
	s->nr_read++;
	return 0;
}

/* A side record's copy in the batch's arena, as a queue entry. */
static int copy_side(struct hbatch *b, const struct qent *e, struct qent *out)
{
	struct qev *q = pa_arena_alloc_raw(&b->arena, sizeof(*q));
	struct pa_event *full = pa_arena_alloc_raw(&b->arena, sizeof(*full));
	if (!q || !full || pa_event_keep(&b->arena, full, e->q->full))
		return -ENOMEM;
	*q = (struct qev){.full = full};
	*out = (struct qent){.time = e->time, .key = e->key, .q = q};
	return 0;
}

int pa_handoff_round(struct pa_session *s, uint64_t limit)
{
	struct pa_handoff *h = s->handoff;
	struct hbatch *b = &h->b[h->fill];
	size_t nside = 0;
	if (s->nq) {
		pa_queue_sort(s);
		while (nside < s->nq && s->queue[nside].time <= limit)
			nside++;
	}
	if (PA_GROW(b->side, b->capside, b->nside + nside, 64) ||
	    PA_GROW(b->rounds, b->caprounds, b->nrounds + 1, 16))
		return -ENOMEM;
	/* what goes: the hits kept from the last round, this one's up to
	 * limit (at the end, all) */
	struct hsplit go = h->kept;
	split_join(&go, &h->le);
	if (limit == UINT64_MAX)
		split_join(&go, &h->gt);
	struct hround *r = &b->rounds[b->nrounds];
	*r = (struct hround){
	    .end = b->nh, .s0 = b->nside, .nside = nside, .limit = limit, .threads = go.threads};
	for (size_t i = 0; i < nside; i++) {
		const struct qent *e = &s->queue[i];
		if (copy_side(b, e, &b->side[r->s0 + i]))
			return -ENOMEM;
		go.max = !go.any || e->time > go.max ? e->time : go.max;
		go.any = true;
		pa_queue_chunk_put(s, e->q->chunk);
	}
	if (nside) {
		memmove(s->queue, s->queue + nside, (s->nq - nside) * sizeof(*s->queue));
		s->nq -= nside;
	}
	if (go.any)
		s->last_flush = go.max; /* (as flush_queue: the newest delivered) */
	h->kept = limit == UINT64_MAX ? (struct hsplit){0} : h->gt;
	h->le = h->gt = (struct hsplit){0};
	r->pos = s->input_pos;
	r->qbytes = pa_queue_bytes_now(s);
	for (unsigned i = 0; i < 2; i++)
		r->qbytes += h->b[i].caph * sizeof(*b->hits) + h->b[i].capsum * sizeof(*b->sums) +
		             h->b[i].capside * sizeof(*b->side) +
		             h->b[i].caprounds * sizeof(*b->rounds);
	b->nside += nside;
	b->nrounds++;
	return b->nh >= HANDOFF_HITS || limit == UINT64_MAX ? send_batch(h) : 0;
}

int pa_handoff_tick(struct pa_session *s)
{
	if (s->opts.progress && !(++s->handoff->reads & 63))
		s->opts.progress(s->opts.progress_ctx, s->input_pos, s->nr_read, false);
	return 0;
}

/* A deliverer is only for a session with no memory cap asked for: it
 * checks the cap at each round, where the reader checks it every 1024
 * records, so the same input would stop at another place. */
static bool may_hand_off(const struct pa_session *s)
{
	return s->hit_pass && !s->opts.max_memory;
}

void pa_handoff_prepare(struct pa_session *s)
{
	/* a summing pass gains more from its deliverer than from the file's
	 * helper (cxx.data's flat report: 0.88 of the time with the helper);
	 * marking hits does not (1.13) */
	if (may_hand_off(s) && s->fn)
		pa_file_set_no_helper(s->file, true);
}

/* A deliverer for the hit pass, when the reader leaves the second CPU to
 * it (pa_file_leaves_cpu). The hits queued so far become the deliverer's
 * kept ones. */
void pa_handoff_start(struct pa_session *s)
{
	if (!may_hand_off(s) || !pa_file_leaves_cpu(s->file))
		return;
	struct pa_handoff *h = calloc(1, sizeof(*h));
	if (!h)
		return;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	for (unsigned i = 0; i < 2; i++)
		pa_arena_init(&h->b[i].arena, 64 * 1024);
	for (size_t i = 0; i < s->nh; i++)
		split_add(s->hits[i].time <= s->next_flush ? &h->le : &h->gt, &s->hits[i]);
	/* s->hits and s->sums (as large as htmp and stmp, whose capacities
	 * caph and capsum stay: grow_pair) keep theirs apart from now on */
	h->capk = s->caph;
	h->capks = s->capsum;
	s->seen_pos = s->input_pos;
	s->seen_qbytes = pa_queue_bytes_now(s);
	s->handoff = h;
	if (pthread_create(&h->thread, NULL, deliverer, s)) {
		s->handoff = NULL;
		handoff_free(h);
	}
}

int pa_handoff_stop(struct pa_session *s)
{
	struct pa_handoff *h = s->handoff;
	if (!h)
		return 0;
	send_batch(h); /* (the rounds flushed before a reader's error too) */
	pthread_mutex_lock(&h->mu);
	h->stop = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->thread, NULL);
	int ret = h->ret;
	if (ret)
		s->input_pos = s->seen_pos; /* (where it stopped, as without it) */
	s->handoff = NULL;
	/* (the arrays' capacities as grow_pair keeps them: none) */
	free(s->hits), free(s->sums), free(s->htmp), free(s->stmp);
	s->hits = s->htmp = NULL;
	s->sums = s->stmp = NULL;
	s->nh = s->caph = s->capsum = 0;
	handoff_free(h);
	return ret;
}
