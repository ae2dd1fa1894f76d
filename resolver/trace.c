/* trace.c - every sample of a recording, resolved (pa_trace_*).
 *
 * The stream keeps each sample that passes the filters as a small record
 * (no copy of the perf record) in time order, in chunks that never move,
 * its call chain an id of a set of location chains (each unique one once);
 * the resolver symbolizes every unique location once after the stream;
 * the walk then rebuilds each chain, inline frames expanded, into a
 * scratch array. Side records (mmap, comm, fork/exit, switch) the caller
 * asked for are kept with their strings (pa_event_keep) and take their
 * place among the records.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

enum { REC_SAMPLE = 1, REC_SIDE = 2 };

struct trec {
	uint8_t kind;
	uint8_t cpumode;
	uint16_t evsel;
	int32_t pid, tid;
	uint32_t cpu;
	uint32_t loc;
	uint32_t n; /* its call chain's id in chains (REC_SIDE: the side record's index) */
	const char *comm;
	uint64_t time, period, ip, addr;
};

/* Records are kept in chunks of one huge page each, never moved: a
 * growing array's copies and page faults were a third of pa script's time
 * on a recording of 5M samples (bench/README.md, "pa script"). */
#define CHUNK_BYTES (2u << 20)
#define CHUNK_RECS  (CHUNK_BYTES / sizeof(struct trec))

struct pa_trace {
	struct pa_session *s;
	struct pa_trace_opts opts;
	struct pa_resolver *r;
	struct pa_chainer *chainer;
	struct pa_filter filter;
	struct pa_arena arena;
	struct trec **chunks;
	size_t nr_chunks, cap_chunks;
	uint64_t nr_recs;
	struct pa_seqset chains; /* location ids, leaf first */
	uint32_t *chain;       /* one sample's, leaf first */
	size_t cap_chain;
	struct pa_event *sides;
	size_t nr_sides, cap_sides;
	uint64_t nr_samples;
	uint32_t *frames; /* the walk's scratch */
	size_t cap_frames;
	/* opts.branches: record i's entries are brs[br_start[i],
	 * br_start[i + 1]) (br_start has nr_recs + 1 entries after the run) */
	struct pa_trace_branch *brs;
	size_t nr_brs, cap_brs;
	uint64_t *br_start;
	size_t cap_br_start;
	/* opts.raw: record i's raw payload is raws[raw_start[i],
	 * raw_start[i + 1]), the same way */
	uint8_t *raws;
	size_t nr_raws, cap_raws;
	uint64_t *raw_start;
	size_t cap_raw_start;
};

struct pa_trace *pa_trace_new(struct pa_session *s, const struct pa_trace_opts *opts,
                              struct pa_err *err)
{
	struct pa_trace *t = calloc(1, sizeof(*t));
	if (!t) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	t->s = s;
	pa_opts_copy(&t->opts, sizeof(t->opts), opts);
	if (t->opts.max_stack <= 0)
		t->opts.max_stack = 127; /* perf's default */
	pa_arena_init(&t->arena, 16 * 1024);
	const struct pa_header_info *hdr = pa_file_header(pa_session_file(s));
	t->opts.filter.first_time = hdr->first_sample_time;
	t->opts.filter.last_time = hdr->last_sample_time;
	if (pa_filter_parse(&t->filter, &t->arena, &t->opts.filter, err) ||
	    !(t->r = pa_resolver_new(s, &t->opts.res, err))) {
		pa_trace_free(t);
		return NULL;
	}
	return t;
}

void pa_trace_free(struct pa_trace *t)
{
	if (!t)
		return;
	pa_chainer_free(t->chainer);
	pa_resolver_free(t->r);
	for (size_t i = 0; i < t->nr_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	pa_seqset_release(&t->chains);
	free(t->chain);
	free(t->sides);
	free(t->frames);
	free(t->brs);
	free(t->br_start);
	free(t->raws);
	free(t->raw_start);
	pa_arena_release(&t->arena);
	free(t);
}

struct pa_resolver *pa_trace_resolver(struct pa_trace *t)
{
	return t->r;
}

struct pa_session *pa_trace_session(struct pa_trace *t)
{
	return t->s;
}

uint64_t pa_trace_nr_samples(const struct pa_trace *t)
{
	return t->nr_samples;
}

/* Room for the next record (its chunk made when needed), or NULL. */
static struct trec *next_rec(struct pa_trace *t)
{
	size_t c = (size_t)(t->nr_recs / CHUNK_RECS);
	if (c == t->nr_chunks) {
		if (PA_GROW(t->chunks, t->cap_chunks, c + 1, 64))
			return NULL;
		struct trec *p = aligned_alloc(CHUNK_BYTES, CHUNK_BYTES);
		if (!p)
			return NULL;
		madvise(p, CHUNK_BYTES, MADV_HUGEPAGE); /* (advice: may be refused) */
		t->chunks[t->nr_chunks++] = p;
	}
	return &t->chunks[c][t->nr_recs % CHUNK_RECS];
}

/* Record t->nr_recs starts its branch entries and its raw payload here.
 * 0 or -ENOMEM. */
static int br_mark(struct pa_trace *t)
{
	if (t->opts.branches) {
		if (PA_GROW(t->br_start, t->cap_br_start, t->nr_recs + 2, 4096))
			return -ENOMEM;
		t->br_start[t->nr_recs] = t->nr_brs;
	}
	if (t->opts.raw) {
		if (PA_GROW(t->raw_start, t->cap_raw_start, t->nr_recs + 2, 4096))
			return -ENOMEM;
		t->raw_start[t->nr_recs] = t->nr_raws;
	}
	return 0;
}

/* The sample's raw payload (a tracepoint's), after br_mark. */
static int keep_raw(struct pa_trace *t, const struct pa_sample *sm)
{
	if (!t->opts.raw || !sm->raw || !sm->raw_size)
		return 0;
	if (PA_GROW(t->raws, t->cap_raws, t->nr_raws + sm->raw_size, 4096))
		return -ENOMEM;
	memcpy(t->raws + t->nr_raws, sm->raw, sm->raw_size);
	t->nr_raws += sm->raw_size;
	return 0;
}

/* A branch end's location: in the map found for it in any cpumode. */
static int branch_end(struct pa_trace *t, struct pa_thread *th, uint64_t addr, uint32_t *out)
{
	struct pa_addr_loc al;
	bool found = pa_session_find_branch_map(t->s, th, addr, &al);
	return pa_resolver_intern(t->r, found ? al.dso : NULL, found ? al.addr : addr, addr,
	                          al.level,
	                          al.cpumode == PA_MISC_KERNEL && found ? PA_LOC_KERNEL : 0, out);
}

/* The sample's branch stack, after br_mark. 0 or -ENOMEM. */
static int keep_branches(struct pa_trace *t, struct pa_thread *th, const struct pa_sample *sm)
{
	uint64_t nr = sm->branch.entries ? sm->branch.nr : 0;
	if (!t->opts.branches || !nr)
		return 0;
	if (PA_GROW(t->brs, t->cap_brs, t->nr_brs + nr, 1024))
		return -ENOMEM;
	for (uint64_t i = 0; i < nr; i++) {
		const uint64_t *e = &sm->branch.entries[3 * i];
		struct pa_trace_branch *b = &t->brs[t->nr_brs + i];
		*b = (struct pa_trace_branch){.from = e[0], .to = e[1], .flags = e[2]};
		if (branch_end(t, th, b->from, &b->from_loc) ||
		    branch_end(t, th, b->to, &b->to_loc))
			return -ENOMEM;
	}
	t->nr_brs += nr;
	return 0;
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
                     struct pa_thread *th, const struct pa_addr_loc *al)
{
	struct pa_trace *t = ctx;
	const struct pa_sample *sm = &ev->sample;
	unsigned e = ev->evsel ? ev->evsel->idx : 0;
	uint8_t mode = ev->misc & PA_MISC_CPUMODE_MASK;
	uint32_t cpu = (sm->type & PA_SAMPLE_CPU) ? sm->cpu : UINT32_MAX;
	if (mode == PA_MISC_GUEST_KERNEL || mode == PA_MISC_GUEST_USER)
		return 0;
	if (t->filter.has_cpus && !(sm->type & PA_SAMPLE_CPU))
		return -PA_ERR_USAGE; /* (pipes: known once samples come) */
	const char *comm = pa_thread_comm(th);
	if (!pa_filter_evsel(&t->filter, ev->evsel, e) ||
	    !pa_filter_cpu_time(&t->filter, cpu, sm->time) ||
	    !pa_filter_thread(&t->filter, th, comm) || (t->opts.no_idle && pa_thread_pid(th) == 0))
		return 0;
	struct pa_addr_loc lbuf;
	if (t->filter.nr_dsos) {
		al = pa_session_resolved(s, ev, al, &lbuf);
		if (!pa_filter_dso(&t->filter, al->map ? al->dso : NULL))
			return 0;
	}
	int unwind = t->opts.callchains ? pa_chainer_unwinds(t->chainer, sm) : 0;
	if (unwind < 0)
		return unwind;
	uint64_t nr = t->opts.callchains && (sm->type & PA_SAMPLE_CALLCHAIN) ? sm->callchain_nr : 0;
	size_t umax = unwind ? (size_t)t->opts.max_stack : 0;
	struct trec *rc = next_rec(t);
	if (!rc || PA_GROW(t->chain, t->cap_chain, nr + umax + 1, 256) || br_mark(t))
		return -ENOMEM;
	*rc = (struct trec){.kind = REC_SAMPLE,
	                    .cpumode = mode,
	                    .evsel = (uint16_t)e,
	                    .pid = pa_thread_pid(th),
	                    .tid = pa_thread_tid(th),
	                    .cpu = cpu,
	                    .comm = comm,
	                    .time = sm->time,
	                    .period = sm->period,
	                    .ip = sm->ip,
	                    .addr = sm->addr};
	uint64_t gen = pa_session_maps_generation(s);
	uint32_t n = 0;
	if (pa_chainer_sample_loc(t->chainer, s, th, ev, al, gen, &rc->loc) ||
	    (t->opts.callchains &&
	     pa_chainer_chain(t->chainer, s, th, ev, gen, unwind > 0, t->chain, &n)) ||
	    pa_seqset_add(&t->chains, t->chain, n, &rc->n) || keep_branches(t, th, sm) ||
	    keep_raw(t, sm))
		return -ENOMEM;
	t->nr_recs++;
	t->nr_samples++;
	return 0;
}

/* The session's ahead callback (--call-graph dwarf): the user stacks of
 * the run's samples that on_sample may chain (not a guest's, not dropped by
 * --event, --cpu or --time) unwound ahead on two threads. */
static int on_ahead(void *ctx, struct pa_session *s, const struct pa_event *evs, size_t n)
{
	struct pa_trace *t = ctx;
	bool wanted[PA_SESSION_AHEAD_MAX];
	for (size_t k = 0; k < n; k++) {
		uint8_t mode = evs[k].misc & PA_MISC_CPUMODE_MASK;
		wanted[k] = mode != PA_MISC_GUEST_KERNEL && mode != PA_MISC_GUEST_USER &&
		            pa_filter_sample_counted(&t->filter, &evs[k]);
	}
	return pa_chainer_ahead(t->chainer, s, evs, n, wanted);
}

/* A side record kept: a copy of the event with its strings, and a record
 * of its own in the buffer, in the same order as samples. */
static int on_side(void *ctx, struct pa_session *s, const struct pa_event *ev, struct pa_thread *th)
{
	struct pa_trace *t = ctx;
	(void)s;
	/* perf script applies only --cpu to them */
	if (t->filter.has_cpus && (ev->sample.type & PA_SAMPLE_CPU) &&
	    !pa_filter_cpu_time(&t->filter, ev->sample.cpu, ev->sample.time))
		return 0;
	struct trec *rc = next_rec(t);
	if (!rc || PA_GROW(t->sides, t->cap_sides, t->nr_sides + 1, 64) || br_mark(t))
		return -ENOMEM;
	if (pa_event_keep(&t->arena, &t->sides[t->nr_sides], ev))
		return -ENOMEM;
	*rc = (struct trec){.kind = REC_SIDE,
	                    .comm = pa_thread_comm(th),
	                    .pid = pa_thread_pid(th),
	                    .tid = pa_thread_tid(th),
	                    .n = (uint32_t)t->nr_sides++};
	t->nr_recs++;
	return 0;
}

static uint64_t side_mask(unsigned side)
{
	uint64_t m = 0;
	if (side & PA_TRACE_SIDE_MMAP)
		m |= 1ull << PA_REC_MMAP | 1ull << PA_REC_MMAP2;
	if (side & PA_TRACE_SIDE_TASK)
		m |= 1ull << PA_REC_COMM | 1ull << PA_REC_FORK | 1ull << PA_REC_EXIT;
	if (side & PA_TRACE_SIDE_SWITCH)
		m |= 1ull << PA_REC_SWITCH | 1ull << PA_REC_SWITCH_CPU_WIDE;
	return m;
}

int pa_trace_run(struct pa_trace *t, struct pa_err *err)
{
	if (!(t->chainer = pa_chainer_new(t->r, t->opts.max_stack, false,
	                                  pa_file_layout(pa_session_file(t->s))->data_size)))
		return pa_err_set(err, -ENOMEM, "out of memory");
	pa_resolver_preload(t->r, t->opts.srclines, t->opts.callchains && !t->opts.no_inline);
	if (t->opts.callchains && pa_file_records_user_stacks(pa_session_file(t->s)) &&
	    !t->opts.res.no_threads && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		pa_session_set_ahead_fn(t->s, on_ahead, t);
	if (t->opts.side_records)
		pa_session_set_side_fn(t->s, side_mask(t->opts.side_records), on_side, t);
	int ret = pa_session_process(t->s, on_sample, t, err);
	if (ret) {
		pa_resolver_abort(t->r);
		if (ret == -PA_ERR_USAGE)
			pa_err_set(err, ret, "--cpu needs samples that record the cpu");
		else if (ret == -ENOMEM && !err->msg[0])
			pa_err_set(err, ret, "out of memory");
		return ret;
	}
	if ((ret = br_mark(t)) ||
	    (ret = pa_resolver_symbolize(t->r, t->opts.srclines, !t->opts.no_inline)))
		return pa_err_set(err, ret, "out of memory");
	pa_seqset_drop_table(&t->chains);
	return 0;
}

int pa_trace_foreach(struct pa_trace *t, pa_trace_sample_fn fn, pa_trace_side_fn side, void *ctx)
{
	struct pa_file *f = pa_session_file(t->s);
	for (uint64_t i = 0; i < t->nr_recs; i++) {
		const struct trec *rc = &t->chunks[i / CHUNK_RECS][i % CHUNK_RECS];
		int ret = 0;
		if (rc->kind == REC_SIDE) {
			if (side) {
				struct pa_trace_side sd = {.ev = &t->sides[rc->n],
				                           .comm = rc->comm,
				                           .pid = rc->pid,
				                           .tid = rc->tid};
				ret = side(ctx, &sd);
			}
			if (ret)
				return ret;
			continue;
		}
		const struct pa_sym *sym = pa_resolver_locs(t->r)[rc->loc].sym;
		if (!pa_filter_sym(&t->filter, sym ? sym->name : NULL))
			continue; /* --symbols: the sample's own symbol */
		struct pa_trace_sample sm = {.evsel = rc->evsel,
		                             .pid = rc->pid,
		                             .tid = rc->tid,
		                             .cpu = rc->cpu,
		                             .comm = rc->comm,
		                             .time = rc->time,
		                             .period = rc->period,
		                             .ip = rc->ip,
		                             .addr = rc->addr,
		                             .sample_type =
		                                 rc->evsel < pa_file_nr_evsels(f)
		                                     ? pa_file_evsel(f, rc->evsel)->attr.sample_type
		                                     : 0,
		                             .cpumode = rc->cpumode,
		                             .loc = rc->loc};
		/* (without inline frames, no location has any: symbolize made none) */
		uint32_t nc;
		const uint32_t *chain = pa_seqset_get(&t->chains, rc->n, &nc);
		if ((ret = pa_resolver_chain_frames(t->r, chain, nc, &t->frames, &t->cap_frames)) <
		    0)
			return ret;
		sm.nr_frames = (uint32_t)ret;
		sm.frames = t->frames;
		if (t->opts.branches) {
			sm.branches = t->brs + t->br_start[i];
			sm.nr_branches = (uint32_t)(t->br_start[i + 1] - t->br_start[i]);
		}
		if (t->opts.raw) {
			sm.raw = t->raws + t->raw_start[i];
			sm.raw_size = (uint32_t)(t->raw_start[i + 1] - t->raw_start[i]);
		}
		if ((ret = fn(ctx, &sm)))
			return ret;
	}
	return 0;
}
