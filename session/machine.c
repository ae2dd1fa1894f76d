/* machine.c - the stores the events build: machines, their DSOs (keyed
 * by name, carrying build-ids), address spaces (maps) and threads, as
 * perf's machine, dso, maps and thread objects keep them. session.c
 * applies the events to them; this file only keeps them. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		while (at > 0 && s->machines[at - 1]->pid != HOST_PID &&
		       s->machines[at - 1]->pid > pid)
			at--;
	else
		at = 0;
	memmove(&s->machines[at + 1], &s->machines[at],
	        (s->nr_machines - at) * sizeof(*s->machines));
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

struct pa_dso *pa_session_findnew_dso(struct pa_session *s, struct pa_machine *m, const char *name,
                                      enum pa_dso_kind kind)
{
	struct pa_dso *d = find_dso(m, name);
	if (d)
		return d;
	struct dso_node *n = pa_arena_alloc(&s->arena, sizeof(*n));
	if (!n || grow((void **)&m->dsos, &m->cap_dsos, m->nr_dsos + 1, sizeof(*m->dsos)) ||
	    grow((void **)&s->all_dsos, &s->cap_all_dsos, s->nr_all_dsos + 1, sizeof(*s->all_dsos)))
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

void pa_dso_set_build_id(struct pa_dso *d, const uint8_t *id, uint8_t size, bool from_header)
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
		kind = !strncmp(e->filename, "[kernel.kallsyms]", 17) ||
		               !strcmp(e->filename, "[guest.kernel.kallsyms]")
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
	struct pa_machine *m =
	    findnew_machine(s, e->pid == HOST_PID || e->pid == 0 ? HOST_PID : e->pid);
	if (!m)
		return -ENOMEM;
	struct pa_dso *d = pa_session_findnew_dso(s, m, e->filename, kind);
	if (!d)
		return -ENOMEM;
	pa_dso_set_build_id(d, e->id, e->size, true);
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

struct pa_map *pa_maps_find(struct pa_maps *ms, uint64_t addr, bool hint)
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

static int maps_reserve(struct pa_session *s, struct pa_maps *ms, size_t extra)
{
	if (ms->n + extra <= ms->cap)
		return 0;
	size_t cap = ms->cap ? ms->cap * 2 : 16;
	while (cap < ms->n + extra)
		cap *= 2;
	uint64_t grow = (uint64_t)(cap - ms->cap) * sizeof(*ms->v);
	int r = pa_session_mem_check(s, grow);
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

int pa_maps_insert(struct pa_session *s, struct pa_maps *ms, struct pa_map *nm)
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

int pa_maps_clone(struct pa_session *s, struct pa_maps *dst, const struct pa_maps *src)
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

struct pa_thread *pa_machine_find_thread(struct pa_machine *m, int32_t tid)
{
	struct pa_thread **r = &m->recent[(uint32_t)tid % RECENT_THREADS];
	if (*r && (*r)->tid == tid)
		return *r;
	struct pa_thread *t = pa_u64map_get(&m->threads, (uint64_t)(uint32_t)tid);
	if (t)
		*r = t;
	return t;
}

struct pa_thread *pa_machine_findnew_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
                                            int32_t tid)
{
	struct pa_thread *t = pa_machine_find_thread(m, tid);
	if (!t)
		return pa_machine_new_thread(s, m, pid, tid);
	if (pid != -1 && t->pid == -1 && pid != t->pid) {
		t->pid = pid;
		if (pid != tid) {
			struct pa_thread *leader = pa_machine_findnew_thread(s, m, pid, pid);
			if (!leader)
				return NULL;
			t->maps = leader->maps;
			s->maps_generation++;
		}
	}
	return t;
}

struct pa_thread *pa_machine_new_thread(struct pa_session *s, struct pa_machine *m, int32_t pid,
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
		struct pa_thread *leader = pa_machine_findnew_thread(s, m, pid, pid);
		t->maps = leader ? leader->maps : NULL;
	}
	return t->maps ? t : NULL;
}

int pa_thread_set_comm(struct pa_session *s, struct pa_thread *t, const char *comm)
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

struct pa_machine *pa_session_host(struct pa_session *s)
{
	if (!s->host)
		s->host = findnew_machine(s, HOST_PID);
	return s->host;
}

size_t pa_session_threads(struct pa_session *s, struct pa_thread **out, size_t max)
{
	struct pa_machine *m = pa_session_host(s);
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
	struct pa_machine *m = pa_session_host(s);
	return m ? pa_machine_find_thread(m, tid) : NULL;
}
