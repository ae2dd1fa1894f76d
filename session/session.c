/* session.c - the events applied to the model (machine.c keeps its
 * machines, threads, maps and DSOs) and delivered to the caller; order.c
 * reads them and puts them in perf's time order. */
#include "internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MISC_FORK_EXEC (1 << 13)

/* ---- small accessors -------------------------------------------------- */

struct pa_file *pa_session_file(const struct pa_session *s)
{
	return s->file;
}

bool pa_session_in_time_order(const struct pa_session *s)
{
	return !s->opts.unordered;
}

bool pa_session_recorded_here(const struct pa_session *s)
{
	const struct pa_header_info *h = pa_file_header(s->file);
	struct utsname u;
	if (uname(&u) || !h->hostname || !h->osrelease || !h->arch)
		return false;
	return !strcmp(h->hostname, u.nodename) && !strcmp(h->osrelease, u.release) &&
	       !strcmp(h->arch, u.machine);
}

unsigned pa_session_nr_machines(const struct pa_session *s)
{
	return s->nr_machines;
}

struct pa_machine *pa_session_machine(const struct pa_session *s, unsigned i)
{
	return i < s->nr_machines ? s->machines[i] : NULL;
}

unsigned pa_session_nr_dsos(const struct pa_session *s)
{
	return s->nr_all_dsos;
}

struct pa_dso *pa_session_dso(const struct pa_session *s, unsigned idx)
{
	return idx < s->nr_all_dsos ? s->all_dsos[idx] : NULL;
}

uint64_t pa_session_nr_samples(const struct pa_session *s)
{
	return s->nr_samples;
}

uint64_t pa_session_nr_lost(const struct pa_session *s)
{
	return s->nr_lost;
}

uint64_t pa_session_maps_generation(const struct pa_session *s)
{
	return s->maps_generation;
}

uint64_t pa_session_nr_lost_samples(const struct pa_session *s)
{
	return s->nr_lost_samples;
}

uint64_t pa_session_nr_unordered(const struct pa_session *s)
{
	return s->nr_unordered;
}

bool pa_session_kernel_ref(const struct pa_session *s, const char **name, uint64_t *addr)
{
	const struct pa_machine *m = s->nr_machines ? s->machines[0] : NULL;
	if (!m || !m->kernel_ref_name)
		return false;
	*name = m->kernel_ref_name;
	*addr = m->kernel_ref_addr;
	return true;
}

uint64_t pa_session_rounds_aside(const struct pa_session *s)
{
	return s->rounds_aside;
}

uint64_t pa_session_input_pos(const struct pa_session *s)
{
	return s->handoff ? s->seen_pos : s->input_pos;
}

/* What the model holds: address spaces, threads, DSOs. */
static uint64_t model_bytes(const struct pa_session *s)
{
	return s->arena.used_total + s->maps_bytes;
}

uint64_t pa_session_memory(const struct pa_session *s)
{
	return model_bytes(s) + pa_session_queue_bytes(s);
}

/* The cap now (see pa_session_opts.max_memory). */
uint64_t pa_session_memory_cap(const struct pa_session *s)
{
	if (s->opts.max_memory)
		return s->opts.max_memory;
	uint64_t max = PA_SESSION_MAX_MEMORY, base = PA_SESSION_MEMORY_BASE;
	uint64_t pos = pa_session_input_pos(s);
	if (pos >= (max - base) / PA_SESSION_MEMORY_PER_BYTE)
		return max;
	return base + pos * PA_SESSION_MEMORY_PER_BYTE;
}

bool pa_session_over_cap(const struct pa_session *s, uint64_t used, uint64_t more)
{
	uint64_t cap = pa_session_memory_cap(s);
	return cap != UINT64_MAX && (used > cap || more > cap - used);
}

/* 0, or -PA_ERR_LIMIT when holding "more" bytes on top would pass the cap. */
int pa_session_mem_check(struct pa_session *s, uint64_t more)
{
	if (pa_session_over_cap(s, pa_session_memory(s), more)) {
		s->limit_hit = true; /* ours, not a callback's -PA_ERR_LIMIT */
		return -PA_ERR_LIMIT;
	}
	return 0;
}

/* ---- applying events -------------------------------------------------- */

static int apply_comm(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_thread *t = pa_machine_findnew_thread(
	    s, pa_session_host(s), (int32_t)ev->u.comm.pid, (int32_t)ev->u.comm.tid);
	if (!t)
		return -ENOMEM;
	return pa_thread_set_comm(s, t, ev->u.comm.comm);
}

static int apply_fork(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_machine *m = pa_session_host(s);
	int32_t pid = (int32_t)ev->u.fork.pid, tid = (int32_t)ev->u.fork.tid;
	int32_t ppid = (int32_t)ev->u.fork.ppid, ptid = (int32_t)ev->u.fork.ptid;
	struct pa_thread *t = pa_machine_find_thread(m, tid);
	struct pa_thread *parent = pa_machine_findnew_thread(s, m, ppid, ptid);
	if (!parent)
		return -ENOMEM;
	if (parent->pid != ppid) {
		/* a stale thread holds the parent's tid: start a fresh one */
		parent = pa_machine_new_thread(s, m, ppid, ptid);
		if (!parent)
			return -ENOMEM;
	}
	/* A thread already holding this tid (pid reuse, lost EXIT) is
	 * replaced: pa_machine_new_thread() takes over its slot. */
	(void)t;
	t = pa_machine_new_thread(s, m, pid, tid);
	if (!t)
		return -ENOMEM;
	if (parent->comm_set && pa_thread_set_comm(s, t, parent->comm))
		return -ENOMEM;
	t->ppid = parent->tid;
	if (t->pid == parent->pid)
		return 0;
	if (t->maps == parent->maps)
		return 0;
	if (ev->misc & MISC_FORK_EXEC)
		return 0; /* synthesized: the MMAP2 records follow */
	s->maps_generation++;
	return pa_maps_clone(s, t->maps, parent->maps);
}

static bool is_anon(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) || !strncmp(f, "/anon_hugepage", 14);
}

static bool is_no_dso(const char *f)
{
	return !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

static int apply_kernel_mmap(struct pa_session *s, struct pa_machine *m, const struct pa_event *ev)
{
	const char *name = ev->u.mmap.filename;
	struct pa_map *map = pa_arena_alloc(&s->arena, sizeof(*map));
	if (!map)
		return -ENOMEM;
	map->start = ev->u.mmap.start;
	map->end = ev->u.mmap.start + ev->u.mmap.len;
	map->identity = true;
	if (!strncmp(name, "[kernel.kallsyms]", 17) || !strncmp(name, "[guest.kernel.kallsyms", 22)) {
		struct pa_dso *d = pa_session_findnew_dso(s, m, "[kernel.kallsyms]", PA_DSO_KERNEL);
		if (!d)
			return -ENOMEM;
		m->kernel_dso = d;
		map->dso = d;
		if (!m->kernel_ref_name && name[0] == '[' && name[1] == 'k' &&
		    !(m->kernel_ref_name = pa_arena_strdup(&s->arena, name + 17)))
			return -ENOMEM;
		if (m->kernel_ref_name && !m->kernel_ref_addr)
			m->kernel_ref_addr = ev->u.mmap.pgoff;
		if (map->end < map->start || ev->u.mmap.len == 0)
			map->end = UINT64_MAX;
		map->reloc = 0;
	} else {
		/* a module: "/lib/modules/.../x.ko" or "[x]" */
		struct pa_dso *d = pa_session_findnew_dso(s, m, name, PA_DSO_KERNEL_MODULE);
		if (!d)
			return -ENOMEM;
		map->dso = d;
	}
	if (ev->u.mmap.build_id_size)
		pa_dso_set_build_id(map->dso, ev->u.mmap.build_id, ev->u.mmap.build_id_size, false);
	return pa_maps_insert(s, &m->kmaps, map);
}

static int apply_mmap(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_machine *m = pa_session_host(s);
	uint8_t cpumode = ev->misc & PA_MISC_CPUMODE_MASK;
	if (cpumode == PA_MISC_KERNEL || cpumode == PA_MISC_GUEST_KERNEL)
		return apply_kernel_mmap(s, m, ev);
	struct pa_thread *t =
	    pa_machine_findnew_thread(s, m, (int32_t)ev->u.mmap.pid, (int32_t)ev->u.mmap.tid);
	struct pa_map *map = pa_arena_alloc(&s->arena, sizeof(*map));
	if (!t || !map)
		return -ENOMEM;
	const char *name = ev->u.mmap.filename;
	bool anon = is_anon(name), no_dso = is_no_dso(name);
	uint32_t prot = ev->type == PA_REC_MMAP2 ? ev->u.mmap.prot
						 : ((ev->misc & PA_MISC_MMAP_DATA) ? 0 : 4 /* PROT_EXEC */);
	char jit[40];
	enum pa_dso_kind kind = PA_DSO_USER;
	map->start = ev->u.mmap.start;
	map->end = ev->u.mmap.start + ev->u.mmap.len;
	map->pgoff = ev->u.mmap.pgoff;
	map->prot = prot;
	map->flags = ev->u.mmap.flags;
	if ((anon || no_dso) && (prot & 4)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", ev->u.mmap.pid);
		name = jit;
		kind = PA_DSO_ANON;
	} else if (anon || no_dso) {
		kind = PA_DSO_OTHER;
	}
	if (!strcmp(name, "[vdso]")) {
		kind = PA_DSO_VDSO;
		map->pgoff = 0;
	}
	if (!strcmp(name, PA_JIT_DSO_NAME)) {
		kind = PA_DSO_JIT;
		map->identity = true;
		map->pgoff = 0;
	}
	if (anon || no_dso) {
		map->identity = true;
		map->pgoff = 0;
	}
	map->dso = pa_session_findnew_dso(s, m, name, kind);
	if (!map->dso)
		return -ENOMEM;
	if (ev->u.mmap.build_id_size)
		pa_dso_set_build_id(map->dso, ev->u.mmap.build_id, ev->u.mmap.build_id_size, false);
	return pa_maps_insert(s, t->maps, map);
}

/* pa_session_find_map's work in the host m (NULL: none yet). */
static bool find_map(struct pa_machine *m, struct pa_thread *t, uint8_t cpumode, uint64_t addr,
                     bool hint, struct pa_addr_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->thread = t;
	loc->cpumode = cpumode;
	loc->addr = addr;
	struct pa_maps *ms;
	switch (cpumode) {
	case PA_MISC_KERNEL:
		loc->level = 'k';
		ms = &m->kmaps;
		break;
	case PA_MISC_USER:
		loc->level = '.';
		ms = t ? t->maps : NULL;
		break;
	case PA_MISC_GUEST_KERNEL:
		loc->level = 'g';
		return false;
	case PA_MISC_GUEST_USER:
		loc->level = 'u';
		return false;
	default:
		loc->level = 'H';
		return false;
	}
	if (!m || !ms)
		return false;
	struct pa_map *map = pa_maps_find(ms, addr, hint);
	if (!map)
		return false;
	loc->map = map;
	loc->dso = map->dso;
	loc->addr = map->identity ? addr : addr - map->start + map->pgoff;
	return true;
}

bool pa_session_find_map(struct pa_session *s, struct pa_thread *t, uint8_t cpumode, uint64_t addr,
                         struct pa_addr_loc *loc)
{
	return find_map(pa_session_host(s), t, cpumode, addr, true, loc);
}

bool pa_session_lookup_map(const struct pa_session *s, struct pa_thread *t, uint8_t cpumode,
                           uint64_t addr, struct pa_addr_loc *loc)
{
	return find_map(s->host, t, cpumode, addr, false, loc);
}

bool pa_session_find_branch_map(struct pa_session *s, struct pa_thread *t, uint64_t addr,
                                struct pa_addr_loc *loc)
{
	if (pa_session_find_map(s, t, PA_MISC_USER, addr, loc) ||
	    pa_session_find_map(s, t, PA_MISC_KERNEL, addr, loc))
		return true;
	pa_session_find_map(s, t, PA_MISC_HYPERVISOR, addr, loc);
	return false;
}

bool pa_session_resolve_ip(struct pa_session *s, struct pa_thread *t, const struct pa_event *ev,
			   struct pa_addr_loc *loc)
{
	if (!pa_session_find_map(s, t, ev->misc & PA_MISC_CPUMODE_MASK, ev->sample.ip, loc))
		return false;
	loc->dso->hit = true;
	return true;
}

bool pa_session_chain_context(uint64_t marker, uint8_t *cpumode)
{
	switch (marker) {
	case PA_CONTEXT_KERNEL:
		*cpumode = PA_MISC_KERNEL;
		return true;
	case PA_CONTEXT_USER:
		*cpumode = PA_MISC_USER;
		return true;
	case PA_CONTEXT_HV:
		*cpumode = PA_MISC_HYPERVISOR;
		return true;
	default:
		return false;
	}
}

void pa_session_mark_chain(struct pa_session *s, struct pa_thread *t, const struct pa_event *ev)
{
	uint8_t cpumode = PA_MISC_USER;
	uint64_t nr = ev->sample.callchain ? ev->sample.callchain_nr : 0;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = ev->sample.callchain[i];
		struct pa_addr_loc loc;
		if (ip >= PA_CONTEXT_MAX) /* (one perf does not know: skipped) */
			pa_session_chain_context(ip, &cpumode);
		else if (pa_session_find_map(s, t, cpumode, ip, &loc))
			loc.dso->chain_hit = true;
	}
}

/* A sample of thread t to the callback. */
static int sample_to_fn(struct pa_session *s, const struct pa_event *ev, struct pa_thread *t)
{
	s->nr_samples++;
	struct pa_addr_loc loc;
	if (s->opts.lazy_sample_loc)
		loc = (struct pa_addr_loc){.thread = t,
					   .addr = ev->sample.ip,
					   .cpumode = ev->misc & PA_MISC_CPUMODE_MASK,
					   .unresolved = true};
	else
		pa_session_resolve_ip(s, t, ev, &loc);
	int ret = s->fn ? s->fn(s->ctx, s, ev, t, &loc) : 0;
	s->cur_key = 0;
	return ret;
}

static int deliver_sample(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_thread *t = pa_machine_findnew_thread(
	    s, pa_session_host(s), (int32_t)ev->sample.pid, (int32_t)ev->sample.tid);
	return t ? sample_to_fn(s, ev, t) : -ENOMEM;
}

/* The thread a side record names, for pa_session_side_fn. */
static struct pa_thread *side_thread(struct pa_session *s, const struct pa_event *ev)
{
	int32_t pid, tid;
	switch (ev->type) {
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		pid = (int32_t)ev->u.mmap.pid, tid = (int32_t)ev->u.mmap.tid;
		break;
	case PA_REC_COMM:
		pid = (int32_t)ev->u.comm.pid, tid = (int32_t)ev->u.comm.tid;
		break;
	case PA_REC_FORK:
	case PA_REC_EXIT:
		pid = (int32_t)ev->u.fork.pid, tid = (int32_t)ev->u.fork.tid;
		break;
	default:
		pid = (int32_t)ev->sample.pid, tid = (int32_t)ev->sample.tid;
		break;
	}
	return pa_machine_findnew_thread(s, pa_session_host(s), pid, tid);
}

static int deliver_side(struct pa_session *s, const struct pa_event *ev, int applied)
{
	if (applied || ev->type >= 64 || !(s->side_mask >> ev->type & 1))
		return applied;
	struct pa_thread *t = side_thread(s, ev);
	return t ? s->side_fn(s->side_ctx, s, ev, t) : -ENOMEM;
}

void pa_session_set_side_fn(struct pa_session *s, uint64_t mask, pa_session_side_fn fn,
			    void *ctx)
{
	s->side_fn = fn;
	s->side_ctx = ctx;
	s->side_mask = fn ? mask : 0;
}

#define PROGRESS_EVERY 65535u /* events between opts.progress calls, less one */

static void progress_tick(struct pa_session *s)
{
	/* (with a deliverer, the reader tells it: on the calling thread) */
	if (s->opts.progress && !s->handoff && !(++s->nprogress & PROGRESS_EVERY))
		s->opts.progress(s->opts.progress_ctx, pa_session_input_pos(s), s->nr_samples, false);
}

/* The thread of (pid, tid): the memo's when it is that thread's
 * (findnew_thread again with the same pid and tid changes nothing), else
 * found or made, and the memo set to it alone; NULL: no memory. */
static struct pa_thread *memo_thread(struct pa_session *s, struct pa_hit_memo *m, int32_t pid,
                                     int32_t tid)
{
	if (m->t && m->pid == pid && m->tid == tid)
		return m->t;
	struct pa_thread *t = pa_machine_findnew_thread(s, pa_session_host(s), pid, tid);
	if (t)
		*m = (struct pa_hit_memo){.t = t, .pid = pid, .tid = tid};
	return t;
}

int pa_session_deliver_hit(struct pa_session *s, struct pa_hit_memo *m, int32_t pid, int32_t tid,
                           uint16_t misc, uint64_t ip)
{
	progress_tick(s);
	s->nr_samples++;
	uint8_t mode = misc & PA_MISC_CPUMODE_MASK;
	if (m->t && m->pid == pid && m->tid == tid && m->map && m->cpumode == mode &&
	    ip >= m->map->start && ip < m->map->end)
		return 0; /* its DSO is marked already */
	if (!memo_thread(s, m, pid, tid))
		return -ENOMEM;
	struct pa_addr_loc loc;
	m->map = NULL;
	m->cpumode = mode;
	if (pa_session_find_map(s, m->t, mode, ip, &loc)) {
		loc.dso->hit = true;
		m->map = loc.map;
	}
	return 0;
}

int pa_session_deliver_summed(struct pa_session *s, struct pa_hit_memo *m,
                              const struct pa_event *ev)
{
	progress_tick(s);
	struct pa_thread *t = memo_thread(s, m, (int32_t)ev->sample.pid, (int32_t)ev->sample.tid);
	return t ? sample_to_fn(s, ev, t) : -ENOMEM;
}

struct pa_thread *pa_session_settled_thread(struct pa_session *s, int32_t pid, int32_t tid)
{
	struct pa_thread *t = pa_machine_find_thread(pa_session_host(s), tid);
	/* (findnew_thread's two changes: a new thread, a pid learnt) */
	return t && !(pid != -1 && t->pid == -1) ? t : NULL;
}

void pa_session_set_ahead_fn(struct pa_session *s, pa_session_ahead_fn fn, void *ctx)
{
	s->ahead_fn = fn;
	s->ahead_ctx = ctx;
}

void pa_session_set_summing(struct pa_session *s, bool on)
{
	s->summing = on;
}

int pa_session_deliver(struct pa_session *s, const struct pa_event *ev)
{
	progress_tick(s);
	switch (ev->type) {
	case PA_REC_SAMPLE:
		return deliver_sample(s, ev);
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		return deliver_side(s, ev, apply_mmap(s, ev));
	case PA_REC_COMM:
		return deliver_side(s, ev, apply_comm(s, ev));
	case PA_REC_FORK:
		return deliver_side(s, ev, apply_fork(s, ev));
	case PA_REC_LOST:
		s->nr_lost += ev->u.lost.lost;
		break;
	case PA_REC_LOST_SAMPLES:
		s->nr_lost_samples += ev->u.lost_samples.lost;
		break;
	default: /* (EXIT, SWITCH, READ...: nothing to apply) */
		break;
	}
	/* only for a side callback that asked */
	return deliver_side(s, ev, 0);
}

struct pa_session *pa_session_new(struct pa_file *f, const struct pa_session_opts *opts,
				  struct pa_err *err)
{
	/* (aligned: its groups' cache lines, internal.h) */
	struct pa_session *s = PA_ZALLOC_ALIGNED(struct pa_session);
	if (!s) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	s->file = f;
	pa_opts_copy(&s->opts, sizeof(s->opts), opts);
	/* (a pipe's events come later: perf decides with none, and orders) */
	if (s->opts.order_needs_ids && pa_file_nr_evsels(f) &&
	    !pa_attr_flag(&pa_file_evsel(f, 0)->attr, PA_ATTR_SAMPLE_ID_ALL))
		s->opts.unordered = true;
	pa_arena_init(&s->arena, 256 * 1024);
	struct pa_machine *m = pa_session_host(s);
	const struct pa_header_info *h = pa_file_header(f);
	int r = m ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < h->nr_buildids && !r; i++)
		r = pa_session_add_header_build_id(s, &h->buildids[i]);
	/* perf registers the idle thread as "swapper" */
	struct pa_thread *idle = r ? NULL : pa_machine_findnew_thread(s, m, 0, 0);
	if (!r && (!idle || pa_thread_set_comm(s, idle, "swapper")))
		r = -ENOMEM;
	if (r) {
		pa_err_set(err, r, "out of memory");
		pa_session_free(s);
		return NULL;
	}
	return s;
}

void pa_session_free(struct pa_session *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nr_machines; i++) {
		struct pa_machine *m = s->machines[i];
		free(m->dsos);
		free(m->kmaps.v);
		pa_u64map_release(&m->dso_by_hash);
		pa_u64map_release(&m->threads);
	}
	for (struct pa_maps *ms = s->all_maps; ms; ms = ms->next_alloc)
		free(ms->v);
	pa_session_queue_release(s);
	free(s->machines);
	free(s->all_dsos);
	pa_arena_release(&s->arena);
	free(s);
}

const struct pa_addr_loc *pa_session_resolved(struct pa_session *s, const struct pa_event *ev,
					      const struct pa_addr_loc *al, struct pa_addr_loc *buf)
{
	if (!al->unresolved)
		return al;
	pa_session_resolve_ip(s, al->thread, ev, buf);
	return buf;
}
