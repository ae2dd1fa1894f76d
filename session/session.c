/* session.c - machines, threads, maps and DSOs built from the event
 * stream (order.c reads it and puts it in perf's time order). */
#include "internal.h"

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

int32_t pa_thread_ppid(const struct pa_thread *t)
{
	return t->ppid;
}

unsigned pa_thread_idx(const struct pa_thread *t)
{
	return t->idx;
}

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
int pa_session_add_header_build_id(struct pa_session *s, const struct pa_buildid_entry *e)
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

/* The map of addr in ms, NULL if none. hint: look at the last map found
 * first, and remember this one (lookups from one thread only). */
static struct pa_map *maps_find(struct pa_maps *ms, uint64_t addr, bool hint)
{
	if (hint && ms->hint < ms->n) {
		struct pa_map *h = ms->v[ms->hint];
		if (addr >= h->start && addr < h->end)
			return h;
	}
	size_t i = maps_lower_bound(ms, addr);
	if (hint && i && addr < ms->v[i - 1]->end)
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
static int mem_check(struct pa_session *s, uint64_t more)
{
	if (pa_session_over_cap(s, pa_session_memory(s), more)) {
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

size_t pa_session_threads(struct pa_session *s, struct pa_thread **out, size_t max)
{
	struct pa_machine *m = host(s);
	size_t n = 0;
	for (size_t i = 0; m && i < m->threads.cap; i++) {
		if (!m->threads.used[i])
			continue;
		if (out && n < max)
			out[n] = m->threads.vals[i];
		n++;
	}
	return n;
}

struct pa_thread *pa_session_find_thread(struct pa_session *s, int32_t tid)
{
	struct pa_machine *m = host(s);
	return m ? find_thread(m, tid) : NULL;
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
	struct pa_map *map = maps_find(ms, addr, hint);
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
	return find_map(host(s), t, cpumode, addr, true, loc);
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
	struct pa_thread *t =
	    findnew_thread(s, host(s), (int32_t)ev->sample.pid, (int32_t)ev->sample.tid);
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
	struct pa_thread *t = findnew_thread(s, host(s), pid, tid);
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
	struct pa_thread *t = find_thread(host(s), tid);
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
	struct pa_machine *m = host(s);
	const struct pa_header_info *h = pa_file_header(f);
	int r = m ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < h->nr_buildids && !r; i++)
		r = pa_session_add_header_build_id(s, &h->buildids[i]);
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
