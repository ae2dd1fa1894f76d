/* order.c - reading a session's events and delivering them in perf's
 * round-by-round time order (OE_FLUSH__ROUND): the ordering queue, its
 * chunks of copied events, and the keys of queued samples. */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What makes a sample the same as another for a consumer's cache: event,
 * cpumode, pid, tid, ip and call chain (its first entries and length).
 * Host-order values only: a file gives the same keys whatever its byte
 * order, and in every delivery mode. */
static uint64_t sample_key(const struct pa_event *ev, const uint64_t *chain, uint64_t nr)
{
	const struct pa_sample *sm = &ev->sample;
	/* a sum of products of independent terms, then one mix: the
	 * multiplies overlap instead of waiting for each other */
	uint64_t e = ev->evsel ? ev->evsel->idx + 1 : 0;
	uint64_t h = ((e << 56) ^ ((uint64_t)sm->pid << 32 | sm->tid)) * 0x9E3779B97F4A7C15ull;
	h += (sm->ip ^ ((uint64_t)(ev->misc & PA_MISC_CPUMODE_MASK) << 56) ^ (nr << 40)) *
	     0xC2B2AE3D27D4EB4Full;
	for (uint64_t i = 0; i < nr && i < 8; i++)
		h += (chain[i] ^ (i + 1) * 0x165667B19E3779F9ull) * 0xFF51AFD7ED558CCDull;
	h = pa_hash64(h);
	return h ? h : 1;
}

/* A sample's key, its call chain left out when the callback reads none. */
static uint64_t own_key(const struct pa_session *s, const struct pa_event *ev)
{
	bool chain = !s->opts.no_callchains && ev->sample.callchain;
	return sample_key(ev, chain ? ev->sample.callchain : NULL,
	                  chain ? ev->sample.callchain_nr : 0);
}

uint64_t pa_session_sample_key(struct pa_session *s, const struct pa_event *ev)
{
	if (!s->cur_key) /* delivered without the queue */
		s->cur_key = own_key(s, ev);
	return s->cur_key;
}

uint64_t pa_session_sample_key_ahead(const struct pa_session *s)
{
	return s->ahead_key;
}

/* What the queue holds: the events waiting to be ordered (with a
 * deliverer, as the reader had them at the round it delivers). */
uint64_t pa_session_queue_bytes(const struct pa_session *s)
{
	return s->handoff ? s->seen_qbytes + pa_handoff_bytes(s) : pa_queue_bytes_now(s);
}

/* The queue's bytes as the reader has them (with a deliverer, the hits it
 * keeps are its own: pa_handoff_bytes). */
uint64_t pa_queue_bytes_now(const struct pa_session *s)
{
	uint64_t n = s->capq * sizeof(*s->queue) * 2;
	if (!s->handoff)
		n += (s->caph * sizeof(*s->hits) + s->capsum * sizeof(*s->sums)) * 2;
	for (const struct qchunk *c = s->chunks; c; c = c->next)
		n += c->arena.used_total;
	return n;
}

void pa_session_queue_release(struct pa_session *s)
{
	while (s->chunks) {
		struct qchunk *c = s->chunks;
		s->chunks = c->next;
		pa_arena_release(&c->arena);
		free(c);
	}
	free(s->queue);
	free(s->qtmp);
	free(s->hits);
	free(s->htmp);
	free(s->sums);
	free(s->stmp);
	free(s->ahead_evs);
	pa_arena_release(&s->ahead_arena);
}

/* ---- ordering ----------------------------------------------------------- */

static bool has_time(const struct pa_event *ev)
{
	return (ev->sample.type & PA_SAMPLE_TIME) != 0;
}

static bool needs_queue(const struct pa_session *s, uint32_t type)
{
	if (type < 64 && (s->side_mask >> type & 1))
		return true;
	switch (type) {
	case PA_REC_SAMPLE:
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
	case PA_REC_COMM:
	case PA_REC_FORK:
	case PA_REC_EXIT:
	case PA_REC_LOST:
	case PA_REC_LOST_SAMPLES:
		return true;
	default:
		return false; /* nothing else changes what we track */
	}
}

static struct qchunk *cur_chunk(struct pa_session *s)
{
	if (!s->cur_chunk) {
		struct qchunk *c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		pa_arena_init(&c->arena, 256 * 1024);
		c->next = s->chunks;
		s->chunks = c;
		s->cur_chunk = c;
	}
	return s->cur_chunk;
}

/* The registers and the valid part of the stack of a sample that has
 * them, into the arena; *out stays NULL without them. Non-zero: no memory. */
static int copy_user_stack(struct pa_arena *a, const struct pa_sample *sm, struct qdwarf **out)
{
	bool regs = (sm->type & PA_SAMPLE_REGS_USER) && sm->user_regs.abi && sm->user_regs.regs;
	bool stack = (sm->type & PA_SAMPLE_STACK_USER) && sm->user_stack.data;
	if (!regs && !stack)
		return 0;
	uint64_t len = stack ? pa_sample_stack_len(sm) : 0, dyn = len;
	/* reversed 8-byte units: whole units, or the last bytes would be lost */
	bool rev = stack && sm->user_stack.units_reversed;
	if (rev && len % 8) {
		uint64_t whole = len + 8 - len % 8;
		len = whole < sm->user_stack.size ? whole : sm->user_stack.size;
	}
	size_t nregs = regs ? sm->user_regs.nr : 0;
	struct qdwarf *d = pa_arena_alloc_raw(a, sizeof(*d) + nregs * 8 + (size_t)len);
	if (!d)
		return -1;
	*d = (struct qdwarf){.abi = regs ? sm->user_regs.abi : 0,
	                     .mask = regs ? sm->user_regs.mask : 0,
	                     .nr = (uint32_t)nregs,
	                     .units_reversed = rev,
	                     .size = len,
	                     .dyn_size = dyn};
	uint64_t *r = (uint64_t *)(d + 1);
	if (nregs)
		memcpy(r, sm->user_regs.regs, nregs * 8);
	d->regs = nregs ? r : NULL;
	if (len)
		memcpy(r + nregs, sm->user_stack.data, (size_t)len);
	d->data = len ? (const uint8_t *)(r + nregs) : NULL;
	*out = d;
	return 0;
}

/* A copy of ev in the current chunk that outlives the file's buffers. */
static struct qev *make_qev(struct pa_session *s, const struct pa_event *ev)
{
	struct qchunk *c = cur_chunk(s);
	if (!c)
		return NULL;
	/* a sample's call chain right behind it: one allocation */
	bool chain = ev->type == PA_REC_SAMPLE && !s->opts.no_callchains &&
	             ev->sample.callchain_nr && ev->sample.callchain;
	size_t chain_bytes = chain ? ev->sample.callchain_nr * 8 : 0;
	if (chain && chain_bytes / 8 != ev->sample.callchain_nr)
		return NULL;
	/* (a record holds fewer than 65536 / 24 entries) */
	size_t nbr = ev->type == PA_REC_SAMPLE && s->opts.keep_branches && ev->sample.branch.entries
	                 ? (size_t)ev->sample.branch.nr
	                 : 0;
	if (nbr > UINT16_MAX)
		return NULL;
	size_t raw_bytes = ev->type == PA_REC_SAMPLE && s->opts.keep_raw && ev->sample.raw
	                       ? ev->sample.raw_size
	                       : 0;
	struct qev *q =
	    pa_arena_alloc_raw(&c->arena, sizeof(*q) + chain_bytes + nbr * 24 + raw_bytes);
	if (!q)
		return NULL;
	q->dw = NULL;
	if (ev->type == PA_REC_SAMPLE && s->opts.keep_user_stacks &&
	    copy_user_stack(&c->arena, &ev->sample, &q->dw))
		return NULL;
	q->chunk = c;
	q->full = NULL;
	if (ev->type == PA_REC_SAMPLE) {
		/* A compact copy: 12M samples must not mean 12M full events. */
		const struct pa_sample *sm = &ev->sample;
		q->evsel = ev->evsel;
		q->misc = ev->misc;
		q->stype = sm->type;
		q->ip = sm->ip;
		q->addr = sm->addr;
		q->id = sm->id;
		q->period = sm->period;
		q->pid = sm->pid;
		q->tid = sm->tid;
		q->cpu = sm->cpu;
		q->callchain = NULL;
		q->callchain_nr = 0;
		q->branch_nr = (uint16_t)nbr;
		if (nbr)
			memcpy((uint8_t *)(q + 1) + chain_bytes, sm->branch.entries, nbr * 24);
		q->raw_size = (uint32_t)raw_bytes;
		if (raw_bytes)
			memcpy((uint8_t *)(q + 1) + chain_bytes + nbr * 24, sm->raw, raw_bytes);
		if (chain) {
			uint64_t *cc = (uint64_t *)(q + 1);
			memcpy(cc, sm->callchain, chain_bytes);
			q->callchain = cc;
			q->callchain_nr = sm->callchain_nr;
		}
	} else {
		struct pa_event *e = pa_arena_alloc_raw(&c->arena, sizeof(*e));
		if (!e || pa_event_keep(&c->arena, e, ev))
			return NULL;
		q->full = e;
	}
	c->live++;
	return q;
}

/* Room for one more of n entries of size sz in *a and its twin *t. */
static int grow_pair(void **a, void **t, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 4096;
	void *p = realloc(*a, c * sz);
	if (p)
		*a = p;
	void *q = realloc(*t, c * sz);
	if (q)
		*t = q;
	if (!p || !q)
		return -ENOMEM;
	*cap = c;
	return 0;
}

static void note_time(struct pa_session *s, uint64_t time)
{
	if (time < s->last_flush)
		s->nr_unordered++;
	if (time > s->max_timestamp)
		s->max_timestamp = time;
}

static int enqueue_hit(struct pa_session *s, const struct pa_event *ev)
{
	if (s->handoff) {
		note_time(s, ev->sample.time);
		return pa_handoff_enqueue(s, ev);
	}
	if (grow_pair((void **)&s->hits, (void **)&s->htmp, s->nh, &s->caph, sizeof(*s->hits)) ||
	    (s->fn &&
	     grow_pair((void **)&s->sums, (void **)&s->stmp, s->nh, &s->capsum, sizeof(*s->sums))))
		return -ENOMEM;
	const struct pa_sample *sm = &ev->sample;
	if (s->fn) {
		struct qsum *q = &s->sums[s->nh];
		q->evsel = ev->evsel;
		pa_file_sample_sums(s->file, ev, &q->cpu, &q->period);
	}
	s->hits[s->nh] = (struct qhit){.time = sm->time,
	                               .ip = sm->ip,
	                               .pid = (int32_t)sm->pid,
	                               .tid = (int32_t)sm->tid,
	                               .misc = ev->misc,
	                               .side_seq = (uint32_t)s->nr_queued_side};
	s->nh++;
	note_time(s, sm->time);
	return 0;
}

static int enqueue(struct pa_session *s, const struct pa_event *ev)
{
	if (s->hit_pass && ev->type == PA_REC_SAMPLE)
		return enqueue_hit(s, ev);
	struct qent e = {.time = ev->sample.time};
	if (ev->type == PA_REC_SAMPLE && ev->raw) {
		e.raw = ev->raw;
	} else {
		e.q = make_qev(s, ev);
		if (!e.q)
			return -ENOMEM;
	}
	/* made now, for pa_session_sample_key_ahead (from the file's chain,
	 * which a copy's would stall the loads of) */
	if (ev->type == PA_REC_SAMPLE && s->opts.keys_ahead)
		e.key = own_key(s, ev);
	else if (s->hit_pass) /* (no key is made in the hit pass) */
		e.key = s->nr_queued_side++;
	if (grow_pair((void **)&s->queue, (void **)&s->qtmp, s->nq, &s->capq, sizeof(*s->queue)))
		return -ENOMEM;
	s->queue[s->nq++] = e;
	note_time(s, e.time);
	return 0;
}

/* A queued sample, with the key made when it was queued. */
static int deliver_keyed(struct pa_session *s, const struct qent *e, const struct pa_event *ev)
{
	s->cur_key = e->key;
	int r = pa_session_deliver(s, ev);
	s->cur_key = 0;
	return r;
}

/* A sample decoded again from the file, with what the options drop from
 * a copy dropped here too, so both look alike to the callback. (The
 * decode cannot fail: the record was decoded whole when read, or passed
 * the checks of a lazy read, which leave only layouts that decode.) */
static int decode_raw(struct pa_session *s, const struct qent *e, struct pa_event *ev)
{
	struct pa_err err;
	int r = pa_file_decode_raw(s->file, e->raw, ev, &err);
	if (r)
		return r;
	struct pa_sample *sm = &ev->sample;
	if (s->opts.no_callchains) {
		sm->callchain = NULL;
		sm->callchain_nr = 0;
	}
	if (!s->opts.keep_branches) {
		sm->branch.nr = 0;
		sm->branch.entries = NULL;
	}
	if (!s->opts.keep_user_stacks) {
		memset(&sm->user_regs, 0, sizeof(sm->user_regs));
		memset(&sm->user_stack, 0, sizeof(sm->user_stack));
	}
	return 0;
}

static int deliver_raw(struct pa_session *s, const struct qent *e, struct pa_event *ev)
{
	int r = decode_raw(s, e, ev);
	return r ? r : deliver_keyed(s, e, ev);
}

/* ev: a sample event the caller zeroed once; only what a compact copy
 * holds is set here (zeroing 400-odd bytes per sample costs more). */
static void fill_queued(const struct qent *e, struct pa_event *ev)
{
	const struct qev *q = e->q;
	ev->type = PA_REC_SAMPLE;
	ev->misc = q->misc;
	ev->evsel = q->evsel;
	ev->sample.type = q->stype;
	ev->sample.ip = q->ip;
	ev->sample.addr = q->addr;
	ev->sample.id = q->id;
	ev->sample.time = e->time;
	ev->sample.period = q->period;
	ev->sample.pid = q->pid;
	ev->sample.tid = q->tid;
	ev->sample.cpu = q->cpu;
	ev->sample.callchain = q->callchain;
	ev->sample.callchain_nr = q->callchain_nr;
	ev->sample.branch.nr = q->branch_nr;
	ev->sample.branch.entries =
	    q->branch_nr ? (const uint64_t *)(q + 1) + q->callchain_nr : NULL;
	ev->sample.raw_size = q->raw_size;
	ev->sample.raw =
	    q->raw_size ? (const uint8_t *)(q + 1) + q->callchain_nr * 8 + (size_t)q->branch_nr * 24
	                : NULL;
	if (q->dw || ev->sample.user_stack.data || ev->sample.user_regs.regs) {
		const struct qdwarf *d = q->dw;
		ev->sample.user_regs.abi = d ? d->abi : 0;
		ev->sample.user_regs.mask = d ? d->mask : 0;
		ev->sample.user_regs.nr = d ? d->nr : 0;
		ev->sample.user_regs.regs = d ? d->regs : NULL;
		ev->sample.user_stack.data = d ? d->data : NULL;
		ev->sample.user_stack.size = d ? d->size : 0;
		ev->sample.user_stack.dyn_size = d ? d->dyn_size : 0;
		ev->sample.user_stack.units_reversed = d && d->units_reversed;
	}
}

static int deliver_queued(struct pa_session *s, const struct qent *e, struct pa_event *ev)
{
	if (e->q->full)
		return pa_session_deliver(s, e->q->full);
	fill_queued(e, ev);
	return deliver_keyed(s, e, ev);
}

/* The queue is a few sorted runs (what is left of the last round, then
 * one run per CPU buffer of this one): a natural merge sort takes
 * O(n log runs) instead of a full sort's O(n log n). It is stable, so
 * events of equal time keep their order of arrival, as perf's do. */
void pa_queue_sort(struct pa_session *s)
{
	struct qent *a = s->queue, *t = s->qtmp;
	size_t n = s->nq, m = 1;
	while (m < n && a[m].time >= a[m - 1].time)
		m++;
	if (m >= n)
		return; /* in order already (one CPU's, or a single-process round) */
	for (;;) {
		size_t runs = 0, i = 0, out = 0;
		while (i < n) {
			size_t m = i + 1;
			while (m < n && a[m].time >= a[m - 1].time)
				m++;
			size_t e = m;
			if (m < n) {
				e = m + 1;
				while (e < n && a[e].time >= a[e - 1].time)
					e++;
			}
			size_t l = i, r = m;
			while (l < m && r < e)
				t[out++] = a[r].time < a[l].time ? a[r++] : a[l++];
			while (l < m)
				t[out++] = a[l++];
			while (r < e)
				t[out++] = a[r++];
			runs++;
			i = e;
		}
		struct qent *x = a;
		a = t;
		t = x;
		if (runs <= 1)
			break;
	}
	/* the sorted array becomes the queue (both have capq slots) */
	s->queue = a;
	s->qtmp = t;
}

static void chunk_unlink_free(struct pa_session *s, struct qchunk *c)
{
	struct qchunk **pp = &s->chunks;
	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	pa_arena_release(&c->arena);
	free(c);
}

/* A chunk is freed once every event in it was delivered, unless it is
 * still the one new events go to (then its memory is reused). */
void pa_queue_chunk_put(struct pa_session *s, struct qchunk *c)
{
	if (--c->live)
		return;
	if (c == s->cur_chunk) {
		pa_arena_release(&c->arena);
		return;
	}
	chunk_unlink_free(s, c);
}

#define KEY_AHEAD 3 /* a sample whose key is told ahead (pa_session_sample_key_ahead) */

/* ev, rev: events the caller zeroed once, for copies and raw records;
 * decoded: the entry's sample decoded already (decode_ahead), or NULL */
static int deliver_entry(struct pa_session *s, const struct qent *e, struct pa_event *ev,
                         struct pa_event *rev, const struct pa_event *decoded)
{
	int ret = decoded  ? deliver_keyed(s, e, decoded)
	          : e->raw ? deliver_raw(s, e, rev)
	                   : deliver_queued(s, e, ev);
	if (!e->raw && e->q->chunk) /* (a handed round's copies have none) */
		pa_queue_chunk_put(s, e->q->chunk);
	return ret;
}

/* The ahead callback's run from queue[i]: the samples up to the next
 * other record (time <= limit, PA_SESSION_AHEAD_MAX at most) decoded into
 * s->ahead_evs; how many (0: none, or no memory for them). */
static size_t decode_ahead(struct pa_session *s, size_t i, uint64_t limit)
{
	if (!s->ahead_evs) {
		if (!(s->ahead_evs = calloc(PA_SESSION_AHEAD_MAX, sizeof(*s->ahead_evs))))
			return 0;
		pa_arena_init(&s->ahead_arena, 64 * 1024);
	}
	if (s->ahead_arena.used_total)
		pa_arena_release(&s->ahead_arena);
	size_t n = 0;
	for (; n < PA_SESSION_AHEAD_MAX && i + n < s->nq; n++) {
		const struct qent *e = &s->queue[i + n];
		struct pa_event *ev = &s->ahead_evs[n];
		if (e->time > limit || (!e->raw && e->q->full))
			break;
		if (e->raw) {
			if (decode_raw(s, e, ev))
				break; /* (delivered as it comes, to report it) */
			/* an unaligned array went to the reader's scratch space,
			 * which the next decode reuses: copied */
			if (!pa_file_decoded_in_place(s->file) &&
			    pa_event_keep_arrays(&s->ahead_arena, ev))
				break;
		} else {
			memset(ev, 0, sizeof(*ev)); /* (the slot may hold a raw one) */
			fill_queued(e, ev);
		}
	}
	return n;
}

static int flush_hits(struct pa_session *s, uint64_t limit);

/* Deliver queued events with time <= limit, oldest first; with an ahead
 * callback, runs of samples are decoded and shown to it first. */
static int flush_queue(struct pa_session *s, uint64_t limit)
{
	if (s->hit_pass)
		return s->handoff ? pa_handoff_round(s, limit) : flush_hits(s, limit);
	if (!s->nq)
		return 0;
	pa_queue_sort(s);
	size_t i = 0, ahead = 0, nahead = 0; /* s->ahead_evs[ahead, nahead) */
	int ret = 0;
	struct pa_event ev = {0}, rev = {0};
	while (i < s->nq && s->queue[i].time <= limit) {
		if (s->ahead_fn && ahead == nahead) {
			ahead = 0;
			nahead = decode_ahead(s, i, limit);
			if (nahead && (ret = s->ahead_fn(s->ahead_ctx, s, s->ahead_evs, nahead)))
				break;
		}
		const struct qent *e = &s->queue[i++];
		s->last_flush = e->time;
		size_t k = i - 1 + KEY_AHEAD;
		s->ahead_key = k < s->nq && s->queue[k].time <= limit ? s->queue[k].key : 0;
		ret =
		    deliver_entry(s, e, &ev, &rev, ahead < nahead ? &s->ahead_evs[ahead++] : NULL);
		if (ret)
			break;
	}
	s->ahead_key = 0;
	memmove(s->queue, s->queue + i, (s->nq - i) * sizeof(*s->queue));
	s->nq -= i;
	return ret;
}

/* ---- the hit pass (struct qhit) ---------------------------------------- */

static int hit_cmp(const void *a, const void *b)
{
	const struct qhit *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->nth < y->nth ? -1 : x->nth > y->nth;
}

/* Does h come before the side record e: earlier, or of equal time and
 * queued before it (the order perf's stable queue gives them)? */
static bool hit_before(const struct qhit *h, const struct qent *e)
{
	if (h->time != e->time)
		return h->time < e->time;
	return (int32_t)((uint32_t)e->key - h->side_seq) >= 0;
}

/* The round's samples (time <= limit) into htmp in arrival order, their
 * sums into stmp, the others kept; how many went. */
static size_t take_hits(struct pa_session *s, uint64_t limit)
{
	size_t w = 0, keep = 0, n = s->nh;
	struct qhit *hits = s->hits, *out = s->htmp;
	struct qsum *sums = s->sums, *sout = s->stmp;
	for (size_t i = 0; i < n; i++) {
		struct qhit h = hits[i];
		if (h.time > limit) {
			if (sums)
				sums[keep] = sums[i];
			hits[keep++] = h;
			continue;
		}
		if (sums)
			sout[w] = sums[i];
		h.nth = (uint32_t)w;
		out[w++] = h;
	}
	s->nh = keep;
	return w;
}

/* A hit and its sums to a summing callback, as a sample with the fields
 * it reads (ev: zeroed once by the caller). */
int pa_hit_summed(struct pa_session *s, struct pa_hit_memo *memo, const struct qhit *h,
                  const struct qsum *sum, struct pa_event *ev)
{
	ev->type = PA_REC_SAMPLE;
	ev->misc = h->misc;
	ev->evsel = sum->evsel;
	ev->sample.type = sum->evsel ? sum->evsel->attr.sample_type : 0;
	ev->sample.time = h->time;
	ev->sample.ip = h->ip;
	ev->sample.pid = (uint32_t)h->pid;
	ev->sample.tid = (uint32_t)h->tid;
	ev->sample.cpu = sum->cpu;
	ev->sample.period = sum->period;
	return pa_session_deliver_summed(s, memo, ev);
}

/* The hits of htmp from *j on that come before the side record e (NULL:
 * all), delivered; *last: the newest time delivered. (A loop for each
 * kind: the summing call in the loop of the DSO marks slowed it.) */
static int deliver_hits(struct pa_session *s, struct pa_hit_memo *memo, const struct qhit *hs,
                        const struct qsum *ss, size_t *j, size_t nw, const struct qent *e,
                        uint64_t *last)
{
	int ret = 0;
	size_t k = *j;
	if (s->fn) {
		struct pa_event ev = {0};
		for (; !ret && k < nw && (!e || hit_before(&hs[k], e)); k++) {
			const struct qhit *h = &hs[k];
			*last = h->time > *last ? h->time : *last;
			ret = pa_hit_summed(s, memo, h, &ss[h->nth], &ev);
		}
	} else {
		for (; !ret && k < nw && (!e || hit_before(&hs[k], e)); k++) {
			const struct qhit *h = &hs[k];
			*last = h->time > *last ? h->time : *last;
			ret = pa_session_deliver_hit(s, memo, h->pid, h->tid, h->misc, h->ip);
		}
	}
	*j = k;
	return ret;
}

/* Whether no sample of the round (time <= limit) would change the threads
 * (each thread asked once per run of its samples). */
bool pa_hits_settled(struct pa_session *s, const struct qhit *hits, size_t n, uint64_t limit)
{
	int32_t pid = 0, tid = 0;
	bool asked = false;
	for (size_t i = 0; i < n; i++) {
		const struct qhit *h = &hits[i];
		if (h->time > limit || (asked && h->pid == pid && h->tid == tid))
			continue;
		if (!pa_session_settled_thread(s, h->pid, h->tid))
			return false;
		pid = h->pid, tid = h->tid, asked = true;
	}
	return true;
}

/* The round's samples where no side record is to be delivered and none
 * changes the threads: as they came, where they lie (not copied), the
 * later ones kept. (A loop for each kind, as deliver_hits.) */
static int flush_hits_in_place(struct pa_session *s, uint64_t limit)
{
	struct qhit *hits = s->hits;
	struct qsum *sums = s->sums;
	struct pa_hit_memo memo = {0};
	uint64_t last = 0;
	size_t n = s->nh, keep = 0, i = 0;
	int ret = 0;
	if (s->fn) {
		struct pa_event ev = {0};
		for (; !ret && i < n; i++) {
			if (hits[i].time > limit) {
				sums[keep] = sums[i];
				hits[keep++] = hits[i];
				continue;
			}
			last = hits[i].time > last ? hits[i].time : last;
			ret = pa_hit_summed(s, &memo, &hits[i], &sums[i], &ev);
		}
	} else {
		for (; !ret && i < n; i++) {
			const struct qhit *h = &hits[i];
			if (h->time > limit) {
				hits[keep++] = *h;
				continue;
			}
			last = h->time > last ? h->time : last;
			ret = pa_session_deliver_hit(s, &memo, h->pid, h->tid, h->misc, h->ip);
		}
	}
	if (keep < i)
		s->last_flush = last; /* (as flush_queue: the newest delivered) */
	if (i < n) {                  /* (after an error: the rest kept too) */
		memmove(hits + keep, hits + i, (n - i) * sizeof(*hits));
		if (sums)
			memmove(sums + keep, sums + i, (n - i) * sizeof(*sums));
	}
	s->nh = keep + (n - i);
	return ret;
}

/* A round's hits hs (nw of them, in arrival order: nth their index,
 * their sums ss[nth]) and side records side[0, nside) in time order:
 * the hits sorted, then each side record after the hits before it; *i:
 * the side records delivered, *last: the newest time delivered. */
int pa_hits_merge(struct pa_session *s, struct qhit *hs, const struct qsum *ss, size_t nw,
                  const struct qent *side, size_t nside, size_t *i, uint64_t *last)
{
	if (nw > 1)
		qsort(hs, nw, sizeof(*hs), hit_cmp);
	struct pa_event ev = {0}, rev = {0};
	struct pa_hit_memo memo = {0};
	int ret = 0;
	size_t j = 0;
	for (;;) {
		const struct qent *e = *i < nside ? &side[*i] : NULL;
		ret = deliver_hits(s, &memo, hs, ss, &j, nw, e, last);
		if (ret || !e)
			break;
		*last = e->time > *last ? e->time : *last;
		ret = deliver_entry(s, e, &ev, &rev, NULL);
		memo = (struct pa_hit_memo){0}; /* (it may change threads and maps) */
		++*i;
		if (ret)
			break;
	}
	return ret;
}

/* flush_queue of the hit pass: the side records with time <= limit in
 * order, each after the samples that come before it; the samples in the
 * order they came when no side record and no thread change is among them,
 * else in time order. */
static int flush_hits(struct pa_session *s, uint64_t limit)
{
	size_t nside = 0;
	if (s->nq) {
		pa_queue_sort(s);
		while (nside < s->nq && s->queue[nside].time <= limit)
			nside++;
	}
	if (!nside && pa_hits_settled(s, s->hits, s->nh, limit))
		return flush_hits_in_place(s, limit);
	/* (side records or a thread change among them: in time order) */
	size_t nw = take_hits(s, limit), i = 0;
	uint64_t last = 0;
	int ret = pa_hits_merge(s, s->htmp, s->stmp, nw, s->queue, nside, &i, &last);
	if (i || nw)
		s->last_flush = last; /* (as flush_queue: the newest delivered) */
	if (i) {
		memmove(s->queue, s->queue + i, (s->nq - i) * sizeof(*s->queue));
		s->nq -= i;
	}
	return ret;
}

/* perf's OE_FLUSH__ROUND: deliver up to the newest time of the round
 * before, then start a new chunk so finished rounds can be freed. */
static int finish_round(struct pa_session *s)
{
	if (s->hit_pass && !s->handoff_decided) {
		s->handoff_decided = true;
		pa_handoff_start(s);
	}
	int r = flush_queue(s, s->next_flush);
	s->next_flush = s->max_timestamp;
	struct qchunk *c = s->cur_chunk;
	if (c && c->live == 0) {
		s->cur_chunk = NULL;
		c->live = 1;
		pa_queue_chunk_put(s, c);
	}
	s->cur_chunk = NULL;
	return r;
}

static int handle_event(struct pa_session *s, const struct pa_event *ev)
{
	int r;
	switch (ev->type) {
	case PA_REC_HEADER_BUILD_ID:
		if (s->handoff && (r = pa_handoff_drain(s)))
			return r;
		return pa_session_add_header_build_id(s, &ev->u.build_id);
	case PA_REC_FINISHED_ROUND:
		return s->opts.unordered ? 0 : finish_round(s);
	default:
		break;
	}
	if (!needs_queue(s, ev->type))
		return 0;
	if (s->opts.unordered || !has_time(ev)) {
		if (s->handoff && (r = pa_handoff_drain(s)))
			return r;
		if (!ev->lazy)
			return pa_session_deliver(s, ev);
		struct pa_event full;
		struct pa_err err;
		r = pa_file_decode_raw(s->file, ev->raw, &full, &err);
		return r ? r : pa_session_deliver(s, &full);
	}
	return enqueue(s, ev);
}

/* 0, or -PA_ERR_LIMIT when the cap is passed. */
static int reader_mem_check(struct pa_session *s)
{
	return pa_session_over_cap(s, pa_session_memory(s), 0) ? -PA_ERR_LIMIT : 0;
}

/* Read every record and order (or deliver) it. *at: the offset of the
 * last record read; *read_err: the reader's own error, already in err. */
static int read_events(struct pa_session *s, struct pa_err *err, uint64_t *at, bool *read_err,
                       bool *limit)
{
	struct pa_event ev;
	int r;
	uint64_t n = 0;
	ev.offset = 0;
	*read_err = *limit = false;
	while ((r = pa_file_next(s->file, &ev, err)) > 0 || (*read_err = r < 0, false)) {
		if (ev.offset + ev.size > s->input_pos)
			s->input_pos = ev.offset + ev.size;
		/* map vectors are checked as they grow; the rest grows by at
		 * most a record's worth per event: check now and then */
		r = ++n % 1024 ? 0 : s->handoff ? pa_handoff_tick(s) : reader_mem_check(s);
		*limit = r == -PA_ERR_LIMIT;
		if (!r)
			r = handle_event(s, &ev);
		if (r)
			break;
	}
	*at = ev.offset;
	if (!*read_err && r == 0)
		r = flush_queue(s, UINT64_MAX);
	return r;
}

int pa_session_process(struct pa_session *s, pa_session_sample_fn fn, void *ctx, struct pa_err *err)
{
	s->fn = fn;
	s->ctx = ctx;
	uint64_t at = 0;
	bool read_err, limit;
	/* samples queued in place need only their time until delivered
	 * (not their keys: those are made from the whole sample) */
	pa_file_set_lazy_samples(s->file, !s->opts.unordered && !s->opts.keys_ahead);
	const struct pa_session_opts *o = &s->opts;
	bool sums = s->summing && o->no_callchains && !o->keep_branches && !o->keep_user_stacks;
	s->hit_pass = (!fn || sums) && !s->side_mask && !o->unordered && !o->keys_ahead;
	pa_handoff_prepare(s);
	int r = read_events(s, err, &at, &read_err, &limit);
	int dr = pa_handoff_stop(s);
	if (dr) /* (the deliverer's error came first) */
		r = dr, read_err = limit = false;
	pa_file_set_lazy_samples(s->file, false);
	if (read_err)
		return r; /* the reader's error, already described */
	if (!r && s->opts.progress)
		s->opts.progress(s->opts.progress_ctx, pa_session_input_pos(s), s->nr_samples,
		                 true);
	if (limit)
		s->limit_hit = true;
	if (r == -ENOMEM) {
		pa_err_set(err, r, "out of memory");
	} else if (r == -PA_ERR_LIMIT && s->limit_hit) {
		char b[32];
		pa_err_set_at(err, r, limit ? at : pa_session_input_pos(s),
		              "threads, maps and queued events need more than the memory limit "
		              "of %s (--max-memory)",
		              pa_fmt_size(b, pa_session_memory_cap(s)));
	}
	return r;
}
