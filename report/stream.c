/* stream.c - the samples of call-chain mode, in two stages.
 *
 * Stage 1 runs in the session's callback, where the address spaces are as
 * they were when the sample was taken: it applies the cpu/time/event
 * filters (report.c did), has the resolver's chainer make the sample's ip
 * and perf's callchain cursor locations (resolver.h: the recorded chain,
 * the unwound user stack of --call-graph dwarf samples, --max-stack), and
 * writes a compact record: thread, comm, cpu, event, filter flag, period
 * and the frame locs, leaf first.
 *
 * Before any of that, a sample whose whole key (thread, comm, cpu, event,
 * cpumode, ip, raw call chain, address-space generation) equals a recent
 * one's only adds its period to that one's cache slot: what it resolves to
 * is known. The first sample of a key is written at once, so buckets are
 * made in stream order; the sums go out as one record when the slot is
 * taken by another key, and at the end.
 *
 * The cache is indexed by the session's sample key, made on the reader
 * thread; the session tells the key of a sample a few events ahead, whose
 * slot is then fetched while this one is handled (the 2 MB table misses
 * the cache on most samples otherwise).
 *
 * Stage 2 turns records into buckets: a cache of recent (record key ->
 * bucket) pairs, where hits only add to the cached slot, then the raw
 * stacks and the bucket table for the rest. It touches only report-owned
 * data, so with two CPUs it can run on a second thread, fed by batches of
 * records from the first batch filled (the reader keeps the first
 * CPU); the order of records, hence of buckets, is the stream's. Its
 * tables are bigger than the caches too: a record's key slot is fetched a
 * few records ahead, the stack table slot of the next record while this
 * one finishes, and a record's bucket is looked up after the next
 * record's stack (the table slot fetched meanwhile), still in record
 * order.
 *
 * No allocation per sample: batches are reused, caches are fixed.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_BYTES  (256u << 10)
#define NBATCH       8
#define SLOTS_MAX    16384u /* of each cache (a power of two) */
#define SLOTS_MIN    256u
#define KEY_MAX      24
#define SAMPLE_RAW   5 /* call-chain entries a cached sample may have */

struct rec {
	struct pa_thread *thread;
	const char *comm;
	uint64_t period;
	uint32_t kcpu, sloc;
	uint16_t evsel;
	uint8_t filtered;
	uint8_t pad;
	uint32_t n;     /* frame locs that follow, leaf first */
	uint32_t count; /* samples summed in period */
};

/* A recent sample's key and what stage 1 made of it, in two cache lines:
 * the first holds what a hit compares and adds to. */
struct sample_slot {
	uint64_t hash; /* 0: empty */
	uint64_t gen, ip;
	const void *thread;
	const char *comm;
	uint64_t acc_period; /* of the samples since the record went out */
	uint32_t acc_count;
	uint32_t kcpu;
	uint32_t tag;        /* event, cpumode, raw entries */
	uint8_t filtered, n; /* the record's: filter flag, frame locs */
	uint16_t pad;
	uint64_t raw[SAMPLE_RAW];
	uint32_t sloc;
	uint32_t locs[SAMPLE_RAW];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct sample_slot) == 128, "a sample slot is two cache lines");

/* A record's key -> its bucket; hits are summed here first. */
struct key_slot {
	uint64_t hash;
	const void *thread;
	const char *comm;
	uint32_t kcpu, sloc;
	uint16_t evsel, n;
	uint32_t bucket;
	uint64_t acc_period;
	uint64_t acc_count;
	uint32_t frames[KEY_MAX];
};

struct batch {
	uint8_t *buf;
	size_t used;
};

struct pa_stream {
	/* both caches have nslots slots (sized from the input), zeroed
	 * lazily: calloc'd, the pages an input never uses are never touched
	 * (a small file's report paid more for the caches than for its
	 * samples) */
	uint32_t nslots;
	/* stage 1 */
	struct sample_slot *samples_cache;
	void *samples_mem; /* (what samples_cache, 64-byte aligned, is in) */
	struct pa_chainer *chainer;
	struct batch *cur;
	uint32_t *tmp;
	size_t cap_tmp;

	/* stage 2, on a cache line of its own (written a record, they took
	 * the line of stage 1's fields above from the other CPU) */
	_Alignas(64) struct key_slot *keys;
	/* the next record's stack hash, made while this one's bucket was
	 * found (its table slot fetched meanwhile) */
	const struct rec *pre_rec;
	uint64_t pre_hash;

	/* the hand-over: stage 2 gets a thread of its own when the first
	 * batch is full (a small input's records may all fit in one) */
	_Alignas(64) bool may_thread, threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[NBATCH];
	unsigned head, tail, nfull; /* fill at head, consume at tail */
	bool done, started;
	int err;
};

/* ---- stage 2 ------------------------------------------------------------- */

static uint64_t key_hash(const struct rec *rc, const uint32_t *fr)
{
	uint64_t h =
	    pa_hash64((uint64_t)(uintptr_t)rc->thread ^ ((uint64_t)rc->sloc << 32) ^ rc->kcpu);
	h ^= (uint64_t)(uintptr_t)rc->comm ^ ((uint64_t)rc->evsel << 48) ^ rc->n;
	for (uint32_t i = 0; i < rc->n; i++)
		h = (h ^ fr[i]) * 0x9E3779B97F4A7C15ull + (h >> 29);
	return pa_hash64(h);
}

static void flush_slot(struct pa_report *r, struct key_slot *ks)
{
	if (ks->acc_count) {
		r->buckets[ks->bucket].period += ks->acc_period;
		r->buckets[ks->bucket].count += ks->acc_count;
		ks->acc_period = 0;
		ks->acc_count = 0;
	}
}

/* The stack id of rc's frames, by the hash stack_prefetch() made of them
 * when it did. */
static int stack_insert(struct pa_report *r, const struct rec *rc, uint32_t *out)
{
	struct pa_stream *st = r->stream;
	const uint32_t *fr = (const uint32_t *)(rc + 1);
	uint64_t h = st->pre_rec == rc ? st->pre_hash : pa_stack_hash(fr, rc->n);
	return pa_stack_insert(r, fr, rc->n, h, out);
}

/* Hash rc's stack and fetch the table slot its lookup will need. */
static void stack_prefetch(struct pa_report *r, const struct rec *rc)
{
	struct pa_stream *st = r->stream;
	st->pre_rec = rc;
	st->pre_hash = pa_stack_hash((const uint32_t *)(rc + 1), rc->n);
	pa_stack_prefetch(r, st->pre_hash);
}

/* A record whose stack is known and whose bucket is looked up after the
 * next record's stack: the bucket table slot is fetched meanwhile. */
struct pending {
	const struct rec *rc; /* NULL: none */
	struct key_slot *ks;  /* to fill with its bucket, or NULL */
	uint64_t h;           /* key_hash() */
	uint64_t bh;          /* pa_report_bucket_hash() */
	uint32_t stack;
};

static int finish_pending(struct pa_report *r, struct pending *p)
{
	const struct rec *rc = p->rc;
	if (!rc)
		return 0;
	p->rc = NULL;
	uint32_t bucket;
	if (pa_report_add_to_bucket_hashed(r, p->bh, rc->evsel, rc->thread, rc->comm, rc->kcpu,
	                                   rc->sloc, p->stack, rc->filtered, rc->period, rc->count,
	                                   &bucket))
		return -ENOMEM;
	if (r->first_evsel < 0 && !rc->filtered)
		r->first_evsel = rc->evsel;
	if (r->ordered && pa_report_log_samples(r, bucket, rc->period, rc->count))
		return -ENOMEM;
	struct key_slot *ks = p->ks;
	if (ks) {
		ks->hash = p->h;
		ks->thread = rc->thread;
		ks->comm = rc->comm;
		ks->kcpu = rc->kcpu;
		ks->sloc = rc->sloc;
		ks->evsel = rc->evsel;
		ks->n = (uint16_t)rc->n;
		ks->bucket = bucket;
		memcpy(ks->frames, rc + 1, rc->n * sizeof(uint32_t));
	}
	return 0;
}

/* h: key_hash() of a record of at most KEY_MAX frames. Buckets are still
 * made in record order: the pending record's before this one's. */
static int consume(struct pa_report *r, const struct rec *rc, uint64_t h, const struct rec *next,
                   struct pending *p)
{
	struct pa_stream *st = r->stream;
	const uint32_t *fr = (const uint32_t *)(rc + 1);
	struct key_slot *ks = NULL;
	if (rc->n <= KEY_MAX && !r->ordered) { /* (the cache sums out of order) */
		ks = &st->keys[h & (st->nslots - 1)];
		/* the pending record's key goes into this slot first */
		if (p->ks == ks && finish_pending(r, p))
			return -ENOMEM;
		if (ks->hash == h && ks->thread == rc->thread && ks->sloc == rc->sloc &&
		    ks->comm == rc->comm && ks->kcpu == rc->kcpu && ks->evsel == rc->evsel &&
		    ks->n == rc->n && !memcmp(ks->frames, fr, rc->n * sizeof(*fr))) {
			ks->acc_period += rc->period;
			ks->acc_count += rc->count;
			if (next)
				stack_prefetch(r, next);
			return 0;
		}
		flush_slot(r, ks);
	}
	uint32_t stack = 0;
	if (rc->n && stack_insert(r, rc, &stack))
		return -ENOMEM;
	uint64_t bh =
	    pa_report_bucket_hash(rc->evsel, rc->thread, rc->comm, rc->kcpu, rc->sloc, stack);
	pa_report_prefetch_bucket(r, bh);
	if (next) /* its stack table slot, while the pending record's bucket is found */
		stack_prefetch(r, next);
	if (finish_pending(r, p))
		return -ENOMEM;
	*p = (struct pending){.rc = rc, .ks = ks, .h = h, .bh = bh, .stack = stack};
	return 0;
}

static size_t rec_size(const struct rec *rc)
{
	return PA_ALIGN_UP(sizeof(*rc) + rc->n * sizeof(uint32_t), 8);
}

/* The key hash of the record at *off (0 past the end or for a long
 * chain), its key slot fetched ahead; *off moves past it. */
static uint64_t hash_ahead(struct pa_stream *st, const struct batch *b, size_t *off)
{
	if (*off >= b->used)
		return 0;
	const struct rec *rc = (const struct rec *)(b->buf + *off);
	*off += rec_size(rc);
	if (rc->n > KEY_MAX)
		return 0;
	uint64_t h = key_hash(rc, (const uint32_t *)(rc + 1));
	const char *p = (const char *)&st->keys[h & (st->nslots - 1)];
	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	return h;
}

#define KEYS_AHEAD 4 /* records whose key slot is fetched ahead */

static int consume_batch(struct pa_report *r, const struct batch *b)
{
	struct pa_stream *st = r->stream;
	uint64_t ring[KEYS_AHEAD];
	size_t ahead = 0;
	for (unsigned k = 0; k < KEYS_AHEAD; k++)
		ring[k] = hash_ahead(st, b, &ahead);
	unsigned k = 0;
	struct pending p = {0};
	st->pre_rec = NULL; /* (batches reuse their buffers) */
	for (size_t off = 0; off < b->used; k = (k + 1) % KEYS_AHEAD) {
		const struct rec *rc = (const struct rec *)(b->buf + off);
		uint64_t h = ring[k];
		ring[k] = hash_ahead(st, b, &ahead);
		off += rec_size(rc);
		const struct rec *next = off < b->used ? (const struct rec *)(b->buf + off) : NULL;
		int ret = consume(r, rc, h, next, &p);
		if (ret)
			return ret;
	}
	return finish_pending(r, &p);
}

static void *stage2(void *arg)
{
	struct pa_report *r = arg;
	struct pa_stream *st = r->stream;
	pthread_mutex_lock(&st->mu);
	for (;;) {
		while (!st->nfull && !st->done)
			pthread_cond_wait(&st->cv, &st->mu);
		if (!st->nfull && st->done)
			break;
		struct batch *b = &st->b[st->tail];
		pthread_mutex_unlock(&st->mu);
		int ret = st->err ? 0 : consume_batch(r, b);
		pthread_mutex_lock(&st->mu);
		if (ret && !st->err)
			st->err = ret;
		b->used = 0;
		st->tail = (st->tail + 1) % NBATCH;
		st->nfull--;
		pthread_cond_broadcast(&st->cv);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

/* Stage 2's thread, also where the sample cache holds nearly all samples
 * and few records come: big.data's default report takes 0.89-0.93 of its
 * time without it (bench/README.md). (It did not pay there while the
 * readahead helper had the second CPU.) */
static void start_stage2(struct pa_report *r)
{
	struct pa_stream *st = r->stream;
	st->may_thread = false;
	for (unsigned i = 1; i < NBATCH; i++)
		if (!st->b[i].buf && !(st->b[i].buf = malloc(BATCH_BYTES)))
			return; /* stays on this thread */
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	if (pthread_create(&st->th, NULL, stage2, r)) {
		pthread_mutex_destroy(&st->mu);
		pthread_cond_destroy(&st->cv);
		return;
	}
	st->threaded = st->started = true;
}

/* Hand the current batch over (or consume it here) and get an empty one. */
static int next_batch(struct pa_report *r)
{
	struct pa_stream *st = r->stream;
	if (st->may_thread)
		start_stage2(r);
	if (!st->threaded) {
		int ret = consume_batch(r, st->cur);
		st->cur->used = 0;
		return ret;
	}
	pthread_mutex_lock(&st->mu);
	st->nfull++;
	st->head = (st->head + 1) % NBATCH;
	pthread_cond_broadcast(&st->cv);
	while (st->nfull == NBATCH && !st->err)
		pthread_cond_wait(&st->cv, &st->mu);
	st->cur = &st->b[st->head];
	int err = st->err;
	pthread_mutex_unlock(&st->mu);
	return err;
}

/* Room for a record of up to max bytes in the current batch. */
static int reserve(struct pa_report *r, size_t max)
{
	struct pa_stream *st = r->stream;
	if (max > BATCH_BYTES) {
		/* a chain longer than a batch: give it a batch of its own */
		if (st->cur->used && next_batch(r))
			return st->err ? st->err : -ENOMEM;
		uint8_t *p = realloc(st->cur->buf, max);
		if (!p)
			return -ENOMEM;
		st->cur->buf = p;
	} else if (st->cur->used + max > BATCH_BYTES) {
		return next_batch(r);
	}
	return 0;
}

/* ---- the sample cache ------------------------------------------------------ */

struct sample_key {
	const struct pa_thread *thread;
	const char *comm;
	uint64_t gen, ip;
	const uint64_t *raw;
	uint32_t kcpu;
	uint32_t tag; /* event << 16 | cpumode << 8 | raw entries */
};

static uint32_t sample_tag(unsigned evsel, unsigned cpumode, uint64_t nr)
{
	return (uint32_t)evsel << 16 | cpumode << 8 | (uint32_t)nr;
}

static uint32_t tag_nr(uint32_t tag)
{
	return tag & 0xff;
}

/* The session's sample key covers the raw sample (made on the reader's
 * thread); the cpu joins it only when it is a key (--sort cpu). Thread,
 * comm and generation are compared, not hashed. */
static uint64_t sample_key_hash(struct pa_session *s, const struct pa_event *ev,
                                const struct sample_key *k)
{
	uint64_t h = pa_session_sample_key(s, ev);
	if (k->kcpu != UINT32_MAX)
		h = pa_hash64(h ^ k->kcpu) | 1;
	return h;
}

static void prefetch_sample_slot(struct pa_report *r, struct pa_session *s)
{
	uint64_t h = pa_session_sample_key_ahead(s);
	if (h && !r->need_cpu) {
		const char *p =
		    (const char *)&r->stream->samples_cache[h & (r->stream->nslots - 1)];
		__builtin_prefetch(p);
		__builtin_prefetch(p + 64);
	}
}

static bool sample_slot_is(const struct sample_slot *ss, uint64_t h, const struct sample_key *k)
{
	uint32_t nr = tag_nr(k->tag);
	return ss->hash == h && ss->ip == k->ip && ss->thread == k->thread && ss->comm == k->comm &&
	       ss->gen == k->gen && ss->kcpu == k->kcpu && ss->tag == k->tag &&
	       (!nr || !memcmp(ss->raw, k->raw, nr * sizeof(*k->raw)));
}

/* The samples summed in a slot since its record went out, as one record. */
static int flush_sample_slot(struct pa_report *r, struct sample_slot *ss)
{
	if (!ss->acc_count)
		return 0;
	int ret = reserve(r, sizeof(struct rec) + ss->n * sizeof(uint32_t) + 8);
	if (ret)
		return ret;
	struct pa_stream *st = r->stream;
	struct rec *rc = (struct rec *)(st->cur->buf + st->cur->used);
	*rc = (struct rec){.thread = (struct pa_thread *)(uintptr_t)ss->thread,
	                   .comm = ss->comm,
	                   .period = ss->acc_period,
	                   .kcpu = ss->kcpu,
	                   .sloc = ss->sloc,
	                   .evsel = (uint16_t)(ss->tag >> 16),
	                   .filtered = ss->filtered,
	                   .n = ss->n,
	                   .count = ss->acc_count};
	if (ss->n)
		memcpy(rc + 1, ss->locs, ss->n * sizeof(uint32_t));
	st->cur->used += rec_size(rc);
	ss->acc_period = 0;
	ss->acc_count = 0;
	return 0;
}

static void fill_sample_slot(struct sample_slot *ss, uint64_t h, const struct sample_key *k,
                             const struct rec *rc)
{
	ss->hash = h;
	ss->gen = k->gen;
	ss->ip = k->ip;
	ss->thread = k->thread;
	ss->comm = k->comm;
	ss->acc_period = 0;
	ss->acc_count = 0;
	ss->kcpu = k->kcpu;
	ss->tag = k->tag;
	ss->filtered = rc->filtered;
	ss->n = (uint8_t)rc->n;
	ss->sloc = rc->sloc;
	if (tag_nr(k->tag))
		memcpy(ss->raw, k->raw, tag_nr(k->tag) * sizeof(*k->raw));
	if (rc->n)
		memcpy(ss->locs, rc + 1, rc->n * sizeof(uint32_t));
}

/* ---- stage 1 ------------------------------------------------------------- */

/* Whether the cache may hold a sample: not one with a stack to unwind
 * or a long chain. (A thread that learns its pid changes the generation.) */
static bool sample_cacheable(int unwind, uint64_t nr)
{
	return !unwind && nr <= SAMPLE_RAW;
}

int pa_stream_sample(struct pa_report *r, struct pa_session *s, const struct pa_event *ev,
                     struct pa_thread *t, const struct pa_addr_loc *al, unsigned evsel,
                     uint32_t cpu, uint64_t period)
{
	struct pa_stream *st = r->stream;
	uint64_t gen = pa_session_maps_generation(s);
	uint64_t nr = (ev->sample.type & PA_SAMPLE_CALLCHAIN) ? ev->sample.callchain_nr : 0;
	int unwind = pa_chainer_unwinds(st->chainer, &ev->sample);
	if (unwind < 0)
		return unwind;
	prefetch_sample_slot(r, s);
	const char *comm = pa_thread_comm(t);
	struct sample_slot *ss = NULL;
	struct sample_key key = {0};
	uint64_t h = 0;
	if (sample_cacheable(unwind, nr) && !r->ordered) { /* (it sums out of order) */
		key = (struct sample_key){
		    .thread = t,
		    .comm = comm,
		    .gen = gen,
		    .ip = ev->sample.ip,
		    .raw = ev->sample.callchain,
		    .kcpu = r->need_cpu ? cpu : UINT32_MAX,
		    .tag = sample_tag(evsel, ev->misc & PA_MISC_CPUMODE_MASK, nr)};
		h = sample_key_hash(s, ev, &key);
		ss = &st->samples_cache[h & (st->nslots - 1)];
		if (sample_slot_is(ss, h, &key)) {
			ss->acc_period += period;
			ss->acc_count++;
			return 0;
		}
		int ret = flush_sample_slot(r, ss);
		if (ret)
			return ret;
		ss->hash = 0; /* until this sample's record is made */
	}
	size_t umax = unwind ? (size_t)r->cg.max_stack : 0;
	int ret = reserve(r, sizeof(struct rec) + (nr + umax) * sizeof(uint32_t) + 8);
	if (ret)
		return ret;
	struct rec *rc = (struct rec *)(st->cur->buf + st->cur->used);
	uint32_t *fr = (uint32_t *)(rc + 1);
	struct pa_addr_loc lbuf;
	if (r->filter.nr_dsos) /* the only filter that needs the map */
		al = pa_session_resolved(s, ev, al, &lbuf);
	*rc = (struct rec){.thread = t,
	                   .comm = comm,
	                   .period = period,
	                   .kcpu = r->need_cpu ? cpu : UINT32_MAX,
	                   .evsel = (uint16_t)evsel,
	                   .filtered = pa_report_sample_filtered(r, t, comm, al),
	                   .count = 1};
	uint32_t n = 0;
	if (pa_chainer_sample_loc(st->chainer, s, t, ev, al, gen, &rc->sloc) ||
	    pa_chainer_chain(st->chainer, s, t, ev, gen, unwind > 0, fr, &n))
		return -ENOMEM;
	rc->n = n;
	if (ss)
		fill_sample_slot(ss, h, &key, rc);
	st->cur->used += rec_size(rc);
	return 0;
}

/* The session's ahead callback (--call-graph dwarf, more than one CPU):
 * the user stacks of the run's samples that will be chained (all that
 * on_sample counts) unwound on two threads. */
static int unwind_ahead(void *ctx, struct pa_session *s, const struct pa_event *evs, size_t n)
{
	struct pa_report *r = ctx;
	bool wanted[PA_SESSION_AHEAD_MAX];
	for (size_t k = 0; k < n; k++)
		wanted[k] = !r->branch && pa_filter_sample_counted(&r->filter, &evs[k]);
	return pa_chainer_ahead(r->stream->chainer, s, evs, n, wanted);
}

/* ---- lifecycle ------------------------------------------------------------- */

int pa_stream_start(struct pa_report *r)
{
	/* (aligned: its groups of fields on lines of their own) */
	struct pa_stream *st = PA_ZALLOC_ALIGNED(struct pa_stream);
	if (!st)
		return -ENOMEM;
	r->stream = st;
	uint64_t data_size = pa_file_layout(pa_session_file(r->session))->data_size;
	/* a slot per KB of samples; the most for a pipe (no size known). (A
	 * slot per 128 bytes made a 1 MB file's report fault in 4 MB of
	 * caches its few samples spread over: 27 ms -> 20 ms, paired runs;
	 * files from 16 MB up get SLOTS_MAX either way.) */
	st->nslots = pa_slots_for(data_size, 1024, SLOTS_MIN, SLOTS_MAX);
	st->samples_mem = calloc(st->nslots + 1, sizeof(*st->samples_cache));
	st->samples_cache =
	    (struct sample_slot *)(uintptr_t)PA_ALIGN_UP((uintptr_t)st->samples_mem, 64);
	st->chainer = pa_chainer_new(r->res, r->cg.max_stack, r->cg.caller, data_size);
	/* (an empty key slot has no thread: it matches no record) */
	st->keys = calloc(st->nslots, sizeof(*st->keys));
	if (!st->samples_mem || !st->chainer || !st->keys)
		return -ENOMEM;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	st->may_thread = cpus > 1 && !r->opts.no_threads;
	if (st->may_thread && pa_file_records_user_stacks(pa_session_file(r->session)))
		pa_session_set_ahead_fn(r->session, unwind_ahead, r);
	if (!(st->b[0].buf = malloc(BATCH_BYTES)))
		return -ENOMEM;
	st->cur = &st->b[0];
	return 0;
}

int pa_stream_finish(struct pa_report *r)
{
	struct pa_stream *st = r->stream;
	if (!st)
		return 0;
	int ret = 0;
	st->may_thread = false; /* the sums flushed here are no reason to start one */
	for (size_t i = 0; i < st->nslots; i++)
		if ((ret = flush_sample_slot(r, &st->samples_cache[i])))
			break;
	if (st->threaded) {
		pthread_mutex_lock(&st->mu);
		if (st->cur->used) {
			st->nfull++;
			st->head = (st->head + 1) % NBATCH;
		}
		st->done = true;
		pthread_cond_broadcast(&st->cv);
		pthread_mutex_unlock(&st->mu);
		pthread_join(st->th, NULL);
		st->started = false;
		ret = ret ? ret : st->err;
	} else if (!ret && st->cur->used) {
		ret = consume_batch(r, st->cur);
		st->cur->used = 0;
	}
	for (size_t i = 0; !ret && i < st->nslots; i++)
		flush_slot(r, &st->keys[i]);
	return ret;
}

void pa_stream_free(struct pa_report *r)
{
	struct pa_stream *st = r->stream;
	if (!st)
		return;
	if (st->started) {
		/* an error stopped the session early */
		pthread_mutex_lock(&st->mu);
		st->done = true;
		st->err = st->err ? st->err : -ECANCELED;
		pthread_cond_broadcast(&st->cv);
		pthread_mutex_unlock(&st->mu);
		pthread_join(st->th, NULL);
	}
	if (st->threaded) {
		pthread_mutex_destroy(&st->mu);
		pthread_cond_destroy(&st->cv);
	}
	for (unsigned i = 0; i < NBATCH; i++)
		free(st->b[i].buf);
	free(st->samples_mem);
	pa_chainer_free(st->chainer);
	free(st->keys);
	free(st->tmp);
	free(st);
	r->stream = NULL;
}
