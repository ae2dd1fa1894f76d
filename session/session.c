/* session.c - machines, threads, maps and DSOs built from the event
 * stream, with perf's round-by-round time ordering. */
#include "session.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define HOST_PID (-1)
#define MISC_FORK_EXEC (1 << 13)

struct pa_maps {
	struct pa_map **v;
	size_t n, cap;
	size_t hint; /* index of the last map found: samples come in runs */
	struct pa_maps *next_alloc; /* every maps object, for freeing */
};

struct pa_thread {
	int32_t pid, tid, ppid;
	unsigned idx;
	const char *comm;
	bool comm_set;
	/* ":TID", the name until a COMM, and the COMM that overrode it */
	const char *default_comm, *override_comm;
	struct pa_maps *maps; /* shared by a thread group */
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
	struct qdwarf *dw; /* opts.keep_user_stacks: registers and stack */
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

struct pa_session {
	/* ---- read-mostly */
	struct pa_file *file;
	struct pa_session_opts opts;
	pa_session_sample_fn fn;
	void *ctx;
	pa_session_side_fn side_fn; /* and its record types, 1 << type */
	void *side_ctx;
	uint64_t side_mask;
	/* (No reader thread: reading and ordering on a second CPU while this
	 * one delivered cost twice the CPU time and 1.6x the wall time on two
	 * CPUs in a VM, the queued copies crossing between caches;
	 * bench/README.md.) */

	/* ---- reading and ordering */
	struct qent *queue, *qtmp;
	size_t nq, capq;
	struct qchunk *chunks, *cur_chunk;
	uint64_t max_timestamp, next_flush, last_flush;
	uint64_t nr_unordered;
	uint64_t input_pos; /* end of the last record read: the input so far */

	/* ---- the model */
	struct pa_arena arena;
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
	uint64_t nprogress; /* events delivered, for opts.progress */
	/* pa_session_sample_key() of the sample being delivered (0: not
	 * made yet) and of one a few events later (0: none known) */
	uint64_t cur_key, ahead_key;
};

/* ---- small accessors -------------------------------------------------- */

const char *pa_thread_comm(const struct pa_thread *t)
{
	return t->comm;
}

const char *pa_thread_report_comm(const struct pa_thread *t, const char *comm)
{
	return comm == t->default_comm && t->override_comm ? t->override_comm : comm;
}

int32_t pa_thread_pid(const struct pa_thread *t)
{
	return t->pid;
}

int32_t pa_thread_tid(const struct pa_thread *t)
{
	return t->tid;
}

unsigned pa_thread_idx(const struct pa_thread *t)
{
	return t->idx;
}

struct pa_file *pa_session_file(const struct pa_session *s)
{
	return s->file;
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

int32_t pa_machine_pid(const struct pa_machine *m)
{
	return m->pid;
}

unsigned pa_machine_nr_dsos(const struct pa_machine *m)
{
	return m->nr_dsos;
}

struct pa_dso *pa_machine_dso(const struct pa_machine *m, unsigned i)
{
	return i < m->nr_dsos ? m->dsos[i] : NULL;
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

uint64_t pa_session_nr_lost_samples(const struct pa_session *s)
{
	return s->nr_lost_samples;
}

uint64_t pa_session_nr_unordered(const struct pa_session *s)
{
	return s->nr_unordered;
}

static int grow(void **v, unsigned *cap, unsigned need, size_t elem)
{
	if (need <= *cap)
		return 0;
	unsigned c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *p = realloc(*v, (size_t)c * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

/* ---- machines and DSOs ------------------------------------------------ */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static struct pa_machine *find_machine(struct pa_session *s, int32_t pid)
{
	for (unsigned i = 0; i < s->nr_machines; i++)
		if (s->machines[i]->pid == pid)
			return s->machines[i];
	return NULL;
}

static struct pa_machine *findnew_machine(struct pa_session *s, int32_t pid)
{
	struct pa_machine *m = find_machine(s, pid);
	if (m)
		return m;
	m = pa_arena_alloc(&s->arena, sizeof(*m));
	void *v = realloc(s->machines, (s->nr_machines + 1) * sizeof(*s->machines));
	if (!m || !v)
		return NULL;
	s->machines = v;
	m->pid = pid;
	/* host first, guests ordered by pid like perf's machines rb-tree */
	unsigned at = s->nr_machines;
	if (pid != HOST_PID)
		while (at > 0 && s->machines[at - 1]->pid != HOST_PID && s->machines[at - 1]->pid > pid)
			at--;
	else
		at = 0;
	memmove(&s->machines[at + 1], &s->machines[at], (s->nr_machines - at) * sizeof(*s->machines));
	s->machines[at] = m;
	s->nr_machines++;
	return m;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static struct pa_dso *find_dso(struct pa_machine *m, const char *name)
{
	struct dso_node *n = pa_u64map_get(&m->dso_by_hash, str_hash(name));
	for (; n; n = n->next_same_hash)
		if (!strcmp(n->dso.long_name, name))
			return &n->dso;
	return NULL;
}

/* perf's short names: basename for files, "[name]" for modules. */
static const char *make_short_name(struct pa_session *s, const char *name, enum pa_dso_kind kind)
{
	if (kind == PA_DSO_KERNEL_MODULE && name[0] == '/') {
		/* perf: the base name up to ".ko" (then maybe ".xz"/".gz"):
		 * "foo.bar.ko" is [foo.bar] */
		const char *b = base_name(name), *ko = NULL;
		for (const char *p = strstr(b, ".ko"); p; p = strstr(p + 1, ".ko"))
			if (p[3] == 0 || p[3] == '.')
				ko = p;
		size_t n = ko ? (size_t)(ko - b) : strcspn(b, ".");
		char *out = pa_arena_alloc(&s->arena, n + 3);
		if (!out)
			return NULL;
		out[0] = '[';
		for (size_t i = 0; i < n; i++)
			out[i + 1] = b[i] == '-' ? '_' : b[i];
		out[n + 1] = ']';
		return out;
	}
	if (name[0] == '[')
		return name;
	/* perf names JIT maps after their thread */
	int pid, end = 0;
	if (sscanf(name, "/tmp/perf-%d.map%n", &pid, &end) == 1 && name[end] == 0) {
		char buf[32];
		snprintf(buf, sizeof(buf), "[JIT] tid %d", pid);
		return pa_arena_strdup(&s->arena, buf);
	}
	return base_name(name);
}

static struct pa_dso *findnew_dso(struct pa_session *s, struct pa_machine *m, const char *name,
				  enum pa_dso_kind kind)
{
	struct pa_dso *d = find_dso(m, name);
	if (d)
		return d;
	struct dso_node *n = pa_arena_alloc(&s->arena, sizeof(*n));
	if (!n || grow((void **)&m->dsos, &m->cap_dsos, m->nr_dsos + 1, sizeof(*m->dsos)) ||
	    grow((void **)&s->all_dsos, &s->cap_all_dsos, s->nr_all_dsos + 1,
		 sizeof(*s->all_dsos)))
		return NULL;
	d = &n->dso;
	d->long_name = pa_arena_strdup(&s->arena, name);
	if (!d->long_name)
		return NULL;
	d->kind = kind;
	d->short_name = make_short_name(s, d->long_name, kind);
	d->machine = m;
	d->idx = s->nr_all_dsos;
	int created;
	void **slot = pa_u64map_slot(&m->dso_by_hash, str_hash(name), &created);
	if (!slot || !d->short_name)
		return NULL;
	n->next_same_hash = created ? NULL : *slot;
	*slot = n;
	m->dsos[m->nr_dsos++] = d;
	s->all_dsos[s->nr_all_dsos++] = d;
	return d;
}

static void set_build_id(struct pa_dso *d, const uint8_t *id, uint8_t size, bool from_header)
{
	if (d->build_id_size || !size)
		return;
	memcpy(d->build_id, id, size);
	d->build_id_size = size;
	d->header_build_id = from_header;
}

/* A BUILD_ID entry, as perf's __event_process_build_id handles it. */
static int add_header_build_id(struct pa_session *s, const struct pa_buildid_entry *e)
{
	enum pa_dso_kind kind;
	switch (e->misc & PA_MISC_CPUMODE_MASK) {
	case PA_MISC_KERNEL:
	case PA_MISC_GUEST_KERNEL:
		kind = !strncmp(e->filename, "[kernel.kallsyms]", 17) || !strcmp(e->filename, "[guest.kernel.kallsyms]")
			       ? PA_DSO_KERNEL
			       : PA_DSO_KERNEL_MODULE;
		break;
	case PA_MISC_USER:
	case PA_MISC_GUEST_USER:
		kind = !strcmp(e->filename, "[vdso]") ? PA_DSO_VDSO : PA_DSO_USER;
		break;
	default:
		return 0;
	}
	struct pa_machine *m = findnew_machine(s, e->pid == HOST_PID || e->pid == 0 ? HOST_PID : e->pid);
	if (!m)
		return -ENOMEM;
	struct pa_dso *d = findnew_dso(s, m, e->filename, kind);
	if (!d)
		return -ENOMEM;
	set_build_id(d, e->id, e->size, true);
	if (kind == PA_DSO_KERNEL && !m->kernel_dso)
		m->kernel_dso = d;
	return 0;
}

/* ---- maps ------------------------------------------------------------- */

static size_t maps_lower_bound(const struct pa_maps *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ms->v[mid]->start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo; /* first map starting after addr */
}

static struct pa_map *maps_find(struct pa_maps *ms, uint64_t addr)
{
	if (ms->hint < ms->n) {
		struct pa_map *h = ms->v[ms->hint];
		if (addr >= h->start && addr < h->end)
			return h;
	}
	size_t i = maps_lower_bound(ms, addr);
	if (i && addr < ms->v[i - 1]->end)
		ms->hint = i - 1;
	if (i == 0)
		return NULL;
	struct pa_map *m = ms->v[i - 1];
	return addr < m->end ? m : NULL;
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

uint64_t pa_session_input_pos(const struct pa_session *s)
{
	return s->input_pos;
}

/* What the model holds: address spaces, threads, DSOs. */
static uint64_t model_bytes(const struct pa_session *s)
{
	return s->arena.used_total + s->maps_bytes;
}

/* What the queue holds: the events waiting to be ordered. */
static uint64_t queue_bytes(const struct pa_session *s)
{
	uint64_t n = s->capq * 2 * sizeof(*s->queue);
	for (const struct qchunk *c = s->chunks; c; c = c->next)
		n += c->arena.used_total;
	return n;
}

uint64_t pa_session_memory(const struct pa_session *s)
{
	return model_bytes(s) + queue_bytes(s);
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

static bool over_cap(const struct pa_session *s, uint64_t used, uint64_t more)
{
	uint64_t cap = pa_session_memory_cap(s);
	return cap != UINT64_MAX && (used > cap || more > cap - used);
}

/* 0, or -PA_ERR_LIMIT when holding "more" bytes on top would pass the cap. */
static int mem_check(struct pa_session *s, uint64_t more)
{
	if (over_cap(s, pa_session_memory(s), more)) {
		s->limit_hit = true; /* ours, not a callback's -PA_ERR_LIMIT */
		return -PA_ERR_LIMIT;
	}
	return 0;
}

static int maps_reserve(struct pa_session *s, struct pa_maps *ms, size_t extra)
{
	if (ms->n + extra <= ms->cap)
		return 0;
	size_t cap = ms->cap ? ms->cap * 2 : 16;
	while (cap < ms->n + extra)
		cap *= 2;
	uint64_t grow = (uint64_t)(cap - ms->cap) * sizeof(*ms->v);
	int r = mem_check(s, grow);
	if (r)
		return r;
	void *p = realloc(ms->v, cap * sizeof(*ms->v));
	if (!p)
		return -ENOMEM;
	ms->v = p;
	ms->cap = cap;
	s->maps_bytes += grow;
	return 0;
}

/* Insert, cutting away what the new map overlaps (maps__fixup_overlappings). */
static int maps_insert(struct pa_session *s, struct pa_maps *ms, struct pa_map *nm)
{
	s->maps_generation++;
	int r = maps_reserve(s, ms, 2);
	if (r)
		return r;
	size_t i = maps_lower_bound(ms, nm->start);
	if (i > 0 && ms->v[i - 1]->end > nm->start)
		i--;
	size_t j = i;
	struct pa_map *left = NULL, *right = NULL;
	while (j < ms->n && ms->v[j]->start < nm->end) {
		struct pa_map *old = ms->v[j];
		if (old->start < nm->start) {
			left = pa_arena_alloc(&s->arena, sizeof(*left));
			if (!left)
				return -ENOMEM;
			*left = *old;
			left->end = nm->start;
		}
		if (old->end > nm->end) {
			right = pa_arena_alloc(&s->arena, sizeof(*right));
			if (!right)
				return -ENOMEM;
			*right = *old;
			right->start = nm->end;
			if (!old->identity)
				right->pgoff += nm->end - old->start;
		}
		j++;
	}
	struct pa_map *repl[3];
	size_t nr = 0;
	if (left)
		repl[nr++] = left;
	repl[nr++] = nm;
	if (right)
		repl[nr++] = right;
	size_t removed = j - i;
	memmove(&ms->v[i + nr], &ms->v[j], (ms->n - j) * sizeof(*ms->v));
	memcpy(&ms->v[i], repl, nr * sizeof(*repl));
	ms->n = ms->n - removed + nr;
	return 0;
}

static struct pa_maps *maps_new(struct pa_session *s)
{
	struct pa_maps *ms = pa_arena_alloc(&s->arena, sizeof(struct pa_maps));
	if (ms) {
		ms->next_alloc = s->all_maps;
		s->all_maps = ms;
	}
	return ms;
}

static int maps_clone(struct pa_session *s, struct pa_maps *dst, const struct pa_maps *src)
{
	if (!src->n)
		return 0;
	int r = maps_reserve(s, dst, src->n);
	if (r)
		return r;
	memcpy(dst->v, src->v, src->n * sizeof(*src->v));
	dst->n = src->n;
	return 0;
}

/* ---- threads ---------------------------------------------------------- */

static struct pa_thread *find_thread(struct pa_machine *m, int32_t tid)
{
	struct pa_thread **r = &m->recent[(uint32_t)tid % RECENT_THREADS];
	if (*r && (*r)->tid == tid)
		return *r;
	struct pa_thread *t = pa_u64map_get(&m->threads, (uint64_t)(uint32_t)tid);
	if (t)
		*r = t;
	return t;
}

static struct pa_thread *new_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
				    int32_t tid);

/* perf's machine__findnew_thread, including how a thread joins its
 * group leader's maps once its pid becomes known. */
static struct pa_thread *findnew_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
					int32_t tid)
{
	struct pa_thread *t = find_thread(m, tid);
	if (!t)
		return new_thread(s, m, pid, tid);
	if (pid != -1 && t->pid == -1 && pid != t->pid) {
		t->pid = pid;
		if (pid != tid) {
			struct pa_thread *leader = findnew_thread(s, m, pid, pid);
			if (!leader)
				return NULL;
			t->maps = leader->maps;
			s->maps_generation++;
		}
	}
	return t;
}

static struct pa_thread *new_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
				    int32_t tid)
{
	struct pa_thread *t = pa_arena_alloc(&s->arena, sizeof(*t));
	char buf[24];
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->ppid = -1;
	t->idx = s->nr_threads++;
	snprintf(buf, sizeof(buf), ":%d", tid);
	t->comm = t->default_comm = pa_arena_strdup(&s->arena, buf);
	void **slot = pa_u64map_slot(&m->threads, (uint64_t)(uint32_t)tid, NULL);
	if (!slot || !t->comm)
		return NULL;
	*slot = t;
	m->recent[(uint32_t)tid % RECENT_THREADS] = t;
	if (pid == tid || pid == -1) {
		t->maps = maps_new(s);
	} else {
		struct pa_thread *leader = findnew_thread(s, m, pid, pid);
		t->maps = leader ? leader->maps : NULL;
	}
	return t->maps ? t : NULL;
}

static int set_comm(struct pa_session *s, struct pa_thread *t, const char *comm)
{
	if (t->comm_set && !strcmp(t->comm, comm))
		return 0;
	const char *c = pa_arena_strdup(&s->arena, comm);
	if (!c)
		return -ENOMEM;
	if (!t->comm_set)
		t->override_comm = c;
	t->comm = c;
	t->comm_set = true;
	return 0;
}

/* ---- applying events -------------------------------------------------- */

static struct pa_machine *host(struct pa_session *s)
{
	if (!s->host)
		s->host = findnew_machine(s, HOST_PID);
	return s->host;
}

static int apply_comm(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_thread *t = findnew_thread(s, host(s), (int32_t)ev->u.comm.pid,
					     (int32_t)ev->u.comm.tid);
	if (!t)
		return -ENOMEM;
	return set_comm(s, t, ev->u.comm.comm);
}

static int apply_fork(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_machine *m = host(s);
	int32_t pid = (int32_t)ev->u.fork.pid, tid = (int32_t)ev->u.fork.tid;
	int32_t ppid = (int32_t)ev->u.fork.ppid, ptid = (int32_t)ev->u.fork.ptid;
	struct pa_thread *t = find_thread(m, tid);
	struct pa_thread *parent = findnew_thread(s, m, ppid, ptid);
	if (!parent)
		return -ENOMEM;
	if (parent->pid != ppid) {
		/* a stale thread holds the parent's tid: start a fresh one */
		parent = new_thread(s, m, ppid, ptid);
		if (!parent)
			return -ENOMEM;
	}
	/* A thread already holding this tid (pid reuse, lost EXIT) is
	 * replaced: new_thread() takes over its slot. */
	(void)t;
	t = new_thread(s, m, pid, tid);
	if (!t)
		return -ENOMEM;
	if (parent->comm_set && set_comm(s, t, parent->comm))
		return -ENOMEM;
	t->ppid = parent->tid;
	if (t->pid == parent->pid)
		return 0;
	if (t->maps == parent->maps)
		return 0;
	if (ev->misc & MISC_FORK_EXEC)
		return 0; /* synthesized: the MMAP2 records follow */
	s->maps_generation++;
	return maps_clone(s, t->maps, parent->maps);
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
		struct pa_dso *d = findnew_dso(s, m, "[kernel.kallsyms]", PA_DSO_KERNEL);
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
		struct pa_dso *d = findnew_dso(s, m, name, PA_DSO_KERNEL_MODULE);
		if (!d)
			return -ENOMEM;
		map->dso = d;
	}
	if (ev->u.mmap.build_id_size)
		set_build_id(map->dso, ev->u.mmap.build_id, ev->u.mmap.build_id_size, false);
	return maps_insert(s, &m->kmaps, map);
}

static int apply_mmap(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_machine *m = host(s);
	uint8_t cpumode = ev->misc & PA_MISC_CPUMODE_MASK;
	if (cpumode == PA_MISC_KERNEL || cpumode == PA_MISC_GUEST_KERNEL)
		return apply_kernel_mmap(s, m, ev);
	struct pa_thread *t =
		findnew_thread(s, m, (int32_t)ev->u.mmap.pid, (int32_t)ev->u.mmap.tid);
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
	map->dso = findnew_dso(s, m, name, kind);
	if (!map->dso)
		return -ENOMEM;
	if (ev->u.mmap.build_id_size)
		set_build_id(map->dso, ev->u.mmap.build_id, ev->u.mmap.build_id_size, false);
	return maps_insert(s, t->maps, map);
}

bool pa_session_find_map(struct pa_session *s, struct pa_thread *t, uint8_t cpumode,
			 uint64_t addr, struct pa_addr_loc *loc)
{
	struct pa_machine *m = host(s);
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
	struct pa_map *map = maps_find(ms, addr);
	if (!map)
		return false;
	loc->map = map;
	loc->dso = map->dso;
	loc->addr = map->identity ? addr : addr - map->start + map->pgoff;
	return true;
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

static int deliver_sample(struct pa_session *s, const struct pa_event *ev)
{
	struct pa_thread *t =
		findnew_thread(s, host(s), (int32_t)ev->sample.pid, (int32_t)ev->sample.tid);
	if (!t)
		return -ENOMEM;
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
	return findnew_thread(s, host(s), pid, tid);
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

static int deliver(struct pa_session *s, const struct pa_event *ev)
{
	if (s->opts.progress && !(++s->nprogress & PROGRESS_EVERY))
		s->opts.progress(s->opts.progress_ctx, pa_session_input_pos(s), s->nr_samples, false);
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
	case PA_REC_EXIT:
	case PA_REC_SWITCH:
	case PA_REC_SWITCH_CPU_WIDE:
		return deliver_side(s, ev, 0);
	case PA_REC_LOST:
		s->nr_lost += ev->u.lost.lost;
		return 0;
	case PA_REC_LOST_SAMPLES:
		s->nr_lost_samples += ev->u.lost_samples.lost;
		return 0;
	default:
		return 0;
	}
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
	struct qev *q = pa_arena_alloc_raw(&c->arena, sizeof(*q) + chain_bytes + nbr * 24);
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

static int enqueue(struct pa_session *s, const struct pa_event *ev)
{
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
	if (s->nq == s->capq) {
		size_t cap = s->capq ? s->capq * 2 : 4096;
		void *p = realloc(s->queue, cap * sizeof(*s->queue));
		void *t = realloc(s->qtmp, cap * sizeof(*s->qtmp));
		if (p)
			s->queue = p;
		if (t)
			s->qtmp = t;
		if (!p || !t)
			return -ENOMEM;
		s->capq = cap;
	}
	s->queue[s->nq++] = e;
	if (e.time < s->last_flush)
		s->nr_unordered++;
	if (e.time > s->max_timestamp)
		s->max_timestamp = e.time;
	return 0;
}

/* A queued sample, with the key made when it was queued. */
static int deliver_keyed(struct pa_session *s, const struct qent *e, const struct pa_event *ev)
{
	s->cur_key = e->key;
	int r = deliver(s, ev);
	s->cur_key = 0;
	return r;
}

/* A sample decoded again from the file, with what the options drop from
 * a copy dropped here too, so both look alike to the callback. (The
 * decode cannot fail: the record was decoded whole when read, or passed
 * the checks of a lazy read, which leave only layouts that decode.) */
static int deliver_raw(struct pa_session *s, const struct qent *e, struct pa_event *ev)
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
	return deliver_keyed(s, e, ev);
}

/* ev: a sample event the caller zeroed once; only what a compact copy
 * holds is set here (zeroing 400-odd bytes per sample costs more). */
static int deliver_queued(struct pa_session *s, const struct qent *e, struct pa_event *ev)
{
	const struct qev *q = e->q;
	if (q->full)
		return deliver(s, q->full);
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
	return deliver_keyed(s, e, ev);
}

/* The queue is a few sorted runs (what is left of the last round, then
 * one run per CPU buffer of this one): a natural merge sort takes
 * O(n log runs) instead of a full sort's O(n log n). It is stable, so
 * events of equal time keep their order of arrival, as perf's do. */
static void sort_queue(struct pa_session *s)
{
	struct qent *a = s->queue, *t = s->qtmp;
	size_t n = s->nq;
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
static void chunk_put(struct pa_session *s, struct qchunk *c)
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

/* Deliver queued events with time <= limit, oldest first. */
static int flush_queue(struct pa_session *s, uint64_t limit)
{
	if (!s->nq)
		return 0;
	sort_queue(s);
	size_t i = 0;
	int ret = 0;
	struct pa_event ev = {0}, rev = {0};
	while (i < s->nq && s->queue[i].time <= limit) {
		const struct qent *e = &s->queue[i++];
		s->last_flush = e->time;
		size_t k = i - 1 + KEY_AHEAD;
		s->ahead_key = k < s->nq && s->queue[k].time <= limit ? s->queue[k].key : 0;
		if (e->raw) {
			ret = deliver_raw(s, e, &rev);
		} else {
			ret = deliver_queued(s, e, &ev);
			chunk_put(s, e->q->chunk);
		}
		if (ret)
			break;
	}
	s->ahead_key = 0;
	memmove(s->queue, s->queue + i, (s->nq - i) * sizeof(*s->queue));
	s->nq -= i;
	return ret;
}

/* perf's OE_FLUSH__ROUND: deliver up to the newest time of the round
 * before, then start a new chunk so finished rounds can be freed. */
static int finish_round(struct pa_session *s)
{
	int r = flush_queue(s, s->next_flush);
	s->next_flush = s->max_timestamp;
	struct qchunk *c = s->cur_chunk;
	if (c && c->live == 0) {
		s->cur_chunk = NULL;
		c->live = 1;
		chunk_put(s, c);
	}
	s->cur_chunk = NULL;
	return r;
}

static int handle_event(struct pa_session *s, const struct pa_event *ev)
{
	switch (ev->type) {
	case PA_REC_HEADER_BUILD_ID:
		return add_header_build_id(s, &ev->u.build_id);
	case PA_REC_FINISHED_ROUND:
		return s->opts.unordered ? 0 : finish_round(s);
	default:
		break;
	}
	if (!needs_queue(s, ev->type))
		return 0;
	if (s->opts.unordered || !has_time(ev)) {
		if (!ev->lazy)
			return deliver(s, ev);
		struct pa_event full;
		struct pa_err err;
		int r = pa_file_decode_raw(s->file, ev->raw, &full, &err);
		return r ? r : deliver(s, &full);
	}
	return enqueue(s, ev);
}

/* 0, or -PA_ERR_LIMIT when the cap is passed. */
static int reader_mem_check(struct pa_session *s)
{
	return over_cap(s, pa_session_memory(s), 0) ? -PA_ERR_LIMIT : 0;
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
		r = ++n % 1024 ? 0 : reader_mem_check(s);
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

int pa_session_process(struct pa_session *s, pa_session_sample_fn fn, void *ctx,
		       struct pa_err *err)
{
	s->fn = fn;
	s->ctx = ctx;
	uint64_t at = 0;
	bool read_err, limit;
	/* samples queued in place need only their time until delivered
	 * (not their keys: those are made from the whole sample) */
	pa_file_set_lazy_samples(s->file, !s->opts.unordered && !s->opts.keys_ahead);
	int r = read_events(s, err, &at, &read_err, &limit);
	pa_file_set_lazy_samples(s->file, false);
	if (read_err)
		return r; /* the reader's error, already described */
	if (!r && s->opts.progress)
		s->opts.progress(s->opts.progress_ctx, pa_session_input_pos(s), s->nr_samples, true);
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

struct pa_session *pa_session_new(struct pa_file *f, const struct pa_session_opts *opts,
				  struct pa_err *err)
{
	struct pa_session *s = calloc(1, sizeof(*s));
	if (!s) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	s->file = f;
	pa_opts_copy(&s->opts, sizeof(s->opts), opts);
	pa_arena_init(&s->arena, 256 * 1024);
	struct pa_machine *m = host(s);
	const struct pa_header_info *h = pa_file_header(f);
	int r = m ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < h->nr_buildids && !r; i++)
		r = add_header_build_id(s, &h->buildids[i]);
	/* perf registers the idle thread as "swapper" */
	struct pa_thread *idle = r ? NULL : findnew_thread(s, m, 0, 0);
	if (!r && (!idle || set_comm(s, idle, "swapper")))
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
	while (s->chunks) {
		struct qchunk *c = s->chunks;
		s->chunks = c->next;
		pa_arena_release(&c->arena);
		free(c);
	}
	free(s->queue);
	free(s->qtmp);
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
