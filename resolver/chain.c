/* chain.c - a sample's call chain as perf's callchain cursor holds it,
 * each entry a location (pa_chainer_*).
 *
 * Where the address spaces are as they were when the sample was taken (the
 * session's sample callback): the sample's ip and each entry of its
 * recorded chain are looked up in the thread's maps, cpumode switching at
 * the PERF_CONTEXT_* markers, which are not frames (a marker perf does not
 * know empties the chain, as perf discards such a chain), through a cache
 * per (thread, cpumode, ip) valid while no address space changes, and a
 * memo of each thread's last chain (the next sample mostly shares its
 * outer part). A sample with user registers and a user stack copy (perf
 * record --call-graph dwarf) then gets its user part unwound (unwind.c).
 * --max-stack applies to each part on its own, as in perf's
 * thread__resolve_callchain.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#define FRAME_SLOTS_MAX 16384u /* a power of two */
#define FRAME_SLOTS_MIN 1024u
#define MEMO_SLOTS  64  /* threads whose last chain is remembered */
#define MEMO_DEPTH  128 /* ... from the outermost caller */

/* (thread, cpumode, ip) -> loc while no address space changed. */
struct frame_slot {
	uint64_t ip, generation;
	const void *thread;
	uint32_t cpumode, loc;
};

/* A thread's last raw call chain and its locs, root first. */
struct chain_memo {
	const void *thread; /* NULL: nothing held */
	uint64_t gen;
	uint32_t nr;
	uint64_t raw[MEMO_DEPTH];
	uint32_t loc[MEMO_DEPTH];
	uint8_t mode[MEMO_DEPTH]; /* the cpumode raw[k] was resolved in */
};

/* A sample unwound ahead of its delivery (pa_chainer_ahead). */
struct ahead {
	const struct pa_event *ev;
	const void *stack; /* the sample's (with ev, what identifies it) */
	uint64_t time;
	struct pa_thread *t;
	uint32_t n; /* entries at ips + k * max_stack */
};

struct pa_chainer {
	struct pa_resolver *r;
	int max_stack;
	bool caller;
	struct frame_slot *frames;
	uint32_t frame_mask; /* slots - 1 */
	struct chain_memo *memo;
	struct pa_unwind *unwind; /* made at the first sample with a stack copy */
	bool unwind_tried;
	uint64_t *uips; /* one sample's unwound user entries */
	size_t cap_uips;
	/* unwinding ahead: the second instance (the helper thread's), the
	 * run's samples [0, nr_ahead) and where delivery is in it */
	struct pa_unwind *unwind2;
	bool unwind2_tried;
	struct ahead ahead[PA_SESSION_AHEAD_MAX];
	uint64_t *ahead_ips; /* PA_SESSION_AHEAD_MAX * max_stack */
	size_t nr_ahead, at_ahead;
	uint64_t nr_slow; /* the instances' libdwfl unwindings at the last run */
	bool shown_run;   /* a run was shown ahead before */
};

struct pa_chainer *pa_chainer_new(struct pa_resolver *r, int max_stack, bool caller,
                                  uint64_t input_bytes)
{
	struct pa_chainer *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	/* a slot per 256 bytes of input: a small file's few frames fault in a
	 * few pages of the cache, not all of its 512 KB twice (a read of the
	 * zero page, then the write's copy and the TLB flush it makes on the
	 * other threads' CPUs) */
	uint32_t slots = pa_slots_for(input_bytes, 256, FRAME_SLOTS_MIN, FRAME_SLOTS_MAX);
	*c = (struct pa_chainer){
	    .r = r, .max_stack = max_stack, .caller = caller, .frame_mask = slots - 1};
	c->frames = calloc(slots, sizeof(*c->frames));
	c->memo = calloc(MEMO_SLOTS, sizeof(*c->memo));
	if (!c->frames || !c->memo) {
		pa_chainer_free(c);
		return NULL;
	}
	return c;
}

void pa_chainer_free(struct pa_chainer *c)
{
	if (!c)
		return;
	free(c->frames);
	free(c->memo);
	pa_unwind_free(c->unwind);
	pa_unwind_free(c->unwind2);
	free(c->uips);
	free(c->ahead_ips);
	free(c);
}

/* The cache's key spaces besides the cpumode: a sample's own ip (its loc
 * has no raw ip), an unwound entry (a location of its own: its inline
 * frames). */
#define SAMPLE_KEY 0x100u
#define UNWOUND_KEY 0x200u

static struct frame_slot *frame_slot(struct pa_chainer *c, struct pa_thread *t, uint32_t mode,
                                     uint64_t ip)
{
	uint64_t h = pa_hash64(ip ^ ((uint64_t)(uintptr_t)t << 9) ^ mode);
	return &c->frames[h & c->frame_mask];
}

static int frame_loc(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                     uint32_t cpumode, bool unwound, uint64_t ip, uint64_t gen, uint32_t *out)
{
	uint32_t mode = cpumode | (unwound ? UNWOUND_KEY : 0);
	struct frame_slot *fs = frame_slot(c, t, mode, ip);
	if (fs->ip == ip && fs->thread == t && fs->cpumode == mode && fs->generation == gen) {
		*out = fs->loc;
		return 0;
	}
	struct pa_addr_loc al;
	bool found = pa_session_find_map(s, t, (uint8_t)cpumode, ip, &al);
	unsigned flags = (cpumode == PA_MISC_KERNEL ? PA_LOC_KERNEL : 0) |
	                 (unwound ? PA_LOC_UNWOUND : 0);
	if (pa_resolver_intern(c->r, found ? al.dso : NULL, found ? al.addr : ip, ip, al.level,
	                       flags, out))
		return -ENOMEM;
	if (found)
		al.dso->hit = true;
	*fs = (struct frame_slot){
	    .ip = ip, .generation = gen, .thread = t, .cpumode = mode, .loc = *out};
	return 0;
}

int pa_chainer_sample_loc(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                          const struct pa_event *ev, const struct pa_addr_loc *al, uint64_t gen,
                          uint32_t *out)
{
	uint32_t mode = SAMPLE_KEY | al->cpumode;
	uint64_t ip = ev->sample.ip;
	struct frame_slot *fs = frame_slot(c, t, mode, ip);
	if (fs->ip == ip && fs->thread == t && fs->cpumode == mode && fs->generation == gen) {
		*out = fs->loc;
		return 0;
	}
	struct pa_addr_loc lbuf;
	al = pa_session_resolved(s, ev, al, &lbuf);
	bool found = al->map != NULL;
	if (pa_resolver_intern(c->r, found ? al->dso : NULL, found ? al->addr : ip, 0, al->level,
	                       al->cpumode == PA_MISC_KERNEL ? PA_LOC_KERNEL : 0, out))
		return -ENOMEM;
	*fs = (struct frame_slot){
	    .ip = ip, .generation = gen, .thread = t, .cpumode = mode, .loc = *out};
	return 0;
}

/* The locs of a raw call chain (leaf first); an entry equal to the one at
 * the same distance from the root in the thread's last chain (same
 * cpumode, same address spaces) takes its loc. *corrupt: a marker perf
 * does not know, which empties the chain. */
static int recorded_locs(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                         const uint64_t *chain, uint64_t nr, uint64_t gen, uint32_t *fr,
                         uint32_t *n_out, bool *corrupt)
{
	struct chain_memo *cm = &c->memo[pa_hash64((uint64_t)(uintptr_t)t) & (MEMO_SLOTS - 1)];
	uint32_t old_nr = cm->thread == t && cm->gen == gen ? cm->nr : 0;
	uint8_t cpumode = PA_MISC_USER;
	uint32_t n = 0;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = chain[i];
		uint64_t k = nr - 1 - i; /* from the root */
		if (ip >= PA_CONTEXT_MAX) {
			if (!pa_session_chain_context(ip, &cpumode)) {
				/* perf: "corrupted callchain", all of it discarded */
				cm->thread = NULL;
				*corrupt = true;
				*n_out = 0;
				return 0;
			}
			if (k < MEMO_DEPTH) {
				cm->raw[k] = ip;
				cm->mode[k] = UINT8_MAX;
			}
			continue;
		}
		if (k < old_nr && cm->raw[k] == ip && cm->mode[k] == cpumode) {
			fr[n++] = cm->loc[k];
			continue;
		}
		if (frame_loc(c, s, t, cpumode, false, ip, gen, &fr[n])) {
			cm->thread = NULL;
			return -ENOMEM;
		}
		if (k < MEMO_DEPTH) {
			cm->raw[k] = ip;
			cm->mode[k] = (uint8_t)cpumode;
			cm->loc[k] = fr[n];
		}
		n++;
	}
	cm->thread = t;
	cm->gen = gen;
	cm->nr = nr < MEMO_DEPTH ? (uint32_t)nr : MEMO_DEPTH;
	*n_out = n;
	return 0;
}

int pa_chainer_unwinds(struct pa_chainer *c, const struct pa_sample *sm)
{
	uint64_t both = PA_SAMPLE_REGS_USER | PA_SAMPLE_STACK_USER;
	if ((sm->type & both) != both || !sm->user_regs.regs || !pa_sample_stack_len(sm))
		return 0;
	if (!c->unwind_tried) {
		const char *why = NULL;
		c->unwind_tried = true;
		c->unwind = pa_unwind_new(c->r, &why);
		if (!c->unwind && !why)
			return -ENOMEM;
	}
	if (!c->unwind)
		return 0;
	size_t need = (size_t)c->max_stack;
	if (need > c->cap_uips) {
		uint64_t *p = realloc(c->uips, need * sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->uips = p;
		c->cap_uips = need;
	}
	return 1;
}

/* ---- unwinding ahead, on two threads ---- */

/* Why: a --call-graph dwarf report spent most of its time in libdw's
 * unwinding, one sample after another; the samples of a run the session
 * shows ahead (no record changes the maps between them) are unwound half
 * here, half on a helper thread with its own pa_unwind, while the session
 * stands still. Each instance gives what one alone would: a sample's
 * unwinding depends on its registers, stack and thread's maps, not on the
 * instance's history (bench/README.md, "DWARF unwinding on two CPUs").
 * Since unwind.c's fast path steps most frames, a run pays for the helper
 * only where libdwfl unwinds (no CFI, other rules, i386): after a run (or
 * the samples delivered since) with fewer than two of those, the next is
 * unwound as delivered; the first run uses the helper (bench/README.md,
 * "DWARF frames by their CFI rules"). */

struct ahead_job {
	struct pa_chainer *c;
	struct pa_unwind *u;
	size_t first; /* every second sample from here */
};

static void *ahead_run(void *arg)
{
	struct ahead_job *j = arg;
	struct pa_chainer *c = j->c;
	size_t max = (size_t)c->max_stack;
	for (size_t k = j->first; k < c->nr_ahead; k += 2) {
		struct ahead *a = &c->ahead[k];
		if (a->t)
			a->n = (uint32_t)pa_unwind_sample(j->u, a->t, &a->ev->sample,
			                                  c->ahead_ips + k * max, max);
	}
	return NULL;
}

/* The helper's instance and the room for a run's entries, made once
 * (c->unwind2 stays NULL when the recording's arch has no unwinder: then
 * this thread unwinds alone). 0 or -ENOMEM. */
static int ahead_ready(struct pa_chainer *c)
{
	if (c->unwind2_tried)
		return 0;
	const char *why = NULL;
	c->unwind2_tried = true;
	c->unwind2 = pa_unwind_new(c->r, &why);
	if (!c->unwind2)
		return why ? 0 : -ENOMEM;
	size_t n = PA_SESSION_AHEAD_MAX * (size_t)(c->max_stack > 0 ? c->max_stack : 1);
	if (!(c->ahead_ips = malloc(n * sizeof(*c->ahead_ips)))) {
		pa_unwind_free(c->unwind2);
		c->unwind2 = NULL;
		return -ENOMEM;
	}
	return 0;
}

int pa_chainer_ahead(struct pa_chainer *c, struct pa_session *s, const struct pa_event *evs,
                     size_t n, const bool *wanted)
{
	c->nr_ahead = c->at_ahead = 0;
	size_t jobs = 0;
	for (size_t k = 0; k < n; k++) {
		const struct pa_sample *sm = &evs[k].sample;
		int u = wanted[k] ? pa_chainer_unwinds(c, sm) : 0;
		if (u < 0)
			return u;
		struct pa_thread *t =
		    u ? pa_session_settled_thread(s, (int32_t)sm->pid, (int32_t)sm->tid) : NULL;
		c->ahead[k] = (struct ahead){
		    .ev = &evs[k], .stack = sm->user_stack.data, .time = sm->time, .t = t};
		jobs += t != NULL;
	}
	uint64_t slow = c->unwind ? pa_unwind_nr_slow(c->unwind) : 0;
	slow += c->unwind2 ? pa_unwind_nr_slow(c->unwind2) : 0;
	bool worth = !c->shown_run || slow - c->nr_slow >= 2;
	c->nr_slow = slow;
	c->shown_run = true;
	if (jobs < 2 || !worth)
		return 0; /* (each unwound when delivered) */
	int ret = ahead_ready(c);
	if (ret || !c->unwind2)
		return ret;
	c->nr_ahead = n;
	struct ahead_job helper = {c, c->unwind2, 1}, self = {c, c->unwind, 0};
	pthread_t th;
	bool threaded = !pthread_create(&th, NULL, ahead_run, &helper);
	ahead_run(&self);
	if (threaded)
		pthread_join(th, NULL);
	else
		ahead_run(&(struct ahead_job){c, c->unwind, 1});
	return 0;
}

/* The entries unwound ahead for ev in thread t, or NULL. */
static const struct ahead *ahead_for(struct pa_chainer *c, const struct pa_event *ev,
                                     const struct pa_thread *t)
{
	while (c->at_ahead < c->nr_ahead && c->ahead[c->at_ahead].ev != ev)
		c->at_ahead++;
	if (c->at_ahead == c->nr_ahead)
		return NULL;
	const struct ahead *a = &c->ahead[c->at_ahead++];
	bool same =
	    a->t == t && a->stack == ev->sample.user_stack.data && a->time == ev->sample.time;
	return same ? a : NULL;
}

int pa_chainer_chain(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                     const struct pa_event *ev, uint64_t gen, bool unwind, uint32_t *fr,
                     uint32_t *n_out)
{
	const struct pa_sample *sm = &ev->sample;
	uint64_t nr = (sm->type & PA_SAMPLE_CALLCHAIN) ? sm->callchain_nr : 0;
	uint32_t n = 0;
	bool corrupt = false;
	if (recorded_locs(c, s, t, sm->callchain, nr, gen, fr, &n, &corrupt))
		return -ENOMEM;
	/* at most --max-stack entries of the recorded chain, from the leaf
	 * in callee order, from the outermost caller in caller order (the
	 * later cut of the whole chain then changes nothing) */
	uint32_t m = (uint32_t)c->max_stack;
	if (n > m) {
		if (c->caller)
			memmove(fr, fr + (n - m), m * sizeof(*fr));
		n = m;
	}
	/* then the unwound user part, at most --max-stack entries from the
	 * leaf; in caller order perf unwinds first and a corrupted recorded
	 * chain then empties the cursor, in callee order it is unwound after */
	if (unwind && !(corrupt && c->caller)) {
		const struct ahead *a = ahead_for(c, ev, t);
		const uint64_t *uips =
		    a ? c->ahead_ips + (a - c->ahead) * (size_t)c->max_stack : c->uips;
		size_t k =
		    a ? a->n : pa_unwind_sample(c->unwind, t, sm, c->uips, (size_t)c->max_stack);
		/* interned in the order perf hands the entries to its cursor
		 * (the outermost first in caller order): its addr2line's
		 * answers depend on the order of its questions, and the
		 * resolver asks in the order locations were made */
		for (size_t i = 0; i < k; i++) {
			size_t j = c->caller ? k - 1 - i : i;
			if (frame_loc(c, s, t, PA_MISC_USER, true, uips[j], gen, &fr[n + j]))
				return -ENOMEM;
		}
		n += (uint32_t)k;
	}
	*n_out = n;
	return 0;
}
