/* tasks.c - perf report --tasks: the host's threads after the whole file,
 * as a tree of who forked whom. perf walks its thread table (256 buckets
 * by tid, each in tid order) and links each thread, then its ancestors
 * not linked yet, under its parent; a thread without a parent (ppid -1)
 * is a root. Children print in the order they were linked, one level
 * deeper each: "  PID TID PPID |" and the level's indent before the
 * comm. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

#define PERF_THREAD_BUCKETS 256u /* perf 6.1's THREADS__TABLE_SIZE */

struct task {
	struct pa_thread *t;
	uint32_t first, last, next; /* children (first, last) and sibling: index + 1 */
	bool linked;                /* under its parent, or a root */
};

static int bucket_cmp(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	uint32_t ta = (uint32_t)pa_thread_tid(a->t), tb = (uint32_t)pa_thread_tid(b->t);
	if (ta % PERF_THREAD_BUCKETS != tb % PERF_THREAD_BUCKETS)
		return PA_CMP(ta % PERF_THREAD_BUCKETS, tb % PERF_THREAD_BUCKETS);
	return PA_CMP(pa_thread_tid(a->t), pa_thread_tid(b->t));
}

static void add_child(struct task *ts, uint32_t parent, uint32_t child)
{
	struct task *p = &ts[parent];
	if (p->last)
		ts[p->last - 1].next = child + 1;
	else
		p->first = child + 1;
	p->last = child + 1;
}

/* The index of a thread in ts (sorted), or -1. */
static long task_of(const struct task *ts, size_t n, const struct pa_thread *t)
{
	struct task key = {.t = (struct pa_thread *)t};
	const struct task *f = bsearch(&key, ts, n, sizeof(*ts), bucket_cmp);
	return f ? f - ts : -1;
}

/* perf's tasks_list: links task i and its unlinked ancestors; the root
 * reached, when it is new, into *root (else -1). */
static int link_up(struct pa_session *s, struct task *ts, size_t n, size_t i, long *root)
{
	*root = -1;
	for (size_t depth = 0; depth <= n; depth++) {
		if (ts[i].linked)
			return 0;
		ts[i].linked = true;
		int32_t ppid = pa_thread_ppid(ts[i].t);
		if (ppid == -1) {
			*root = (long)i;
			return 0;
		}
		struct pa_thread *pt = pa_session_find_thread(s, ppid);
		long p = pt ? task_of(ts, n, pt) : -1;
		if (p < 0)
			return -PA_ERR_NOT_FOUND;
		add_child(ts, (uint32_t)p, (uint32_t)i);
		i = (size_t)p;
	}
	return -PA_ERR_NOT_FOUND; /* a cycle of parents */
}

static void print_level(const struct task *ts, uint32_t i, int level, FILE *out)
{
	const struct pa_thread *t = ts[i].t;
	fprintf(out, "  %8d %8d %8d |%*s%s\n", pa_thread_pid(t), pa_thread_tid(t),
	        pa_thread_ppid(t), level, "", pa_thread_comm(t));
	for (uint32_t c = ts[i].first; c; c = ts[c - 1].next)
		print_level(ts, c - 1, level + 1, out);
}

int pa_report_tasks(struct pa_session *s, FILE *out, struct pa_err *err)
{
	struct pa_thread **th = NULL;
	struct task *ts = NULL;
	uint32_t *roots = NULL;
	size_t n = 0, nroots = 0;
	int ret = pa_session_process(s, NULL, NULL, err);
	if (ret)
		goto out;
	n = pa_session_threads(s, NULL, 0);
	th = malloc((n + 1) * sizeof(*th));
	ts = calloc(n + 1, sizeof(*ts));
	roots = malloc((n + 1) * sizeof(*roots));
	if (!th || !ts || !roots) {
		ret = pa_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	pa_session_threads(s, th, n);
	for (size_t i = 0; i < n; i++)
		ts[i].t = th[i];
	qsort(ts, n, sizeof(*ts), bucket_cmp);
	for (size_t i = 0; i < n; i++) {
		long root;
		if ((ret = link_up(s, ts, n, i, &root))) {
			pa_err_set(err, ret,
			           "failed to process tasks (a thread's parent is unknown)");
			goto out;
		}
		if (root >= 0)
			roots[nroots++] = (uint32_t)root;
	}
	fprintf(out, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (size_t r = 0; r < nroots; r++)
		print_level(ts, roots[r], 0, out);
out:
	free(th);
	free(ts);
	free(roots);
	return ret;
}
