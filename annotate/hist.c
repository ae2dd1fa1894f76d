/* hist.c - the trace's samples per event and symbol (perf annotate's
 * hist entries and sym_hist), ranked as perf annotate walks them. */
#include "annotate/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The symbol's annotation for event e, made when new (chained per symbol
 * through the map: key the symbol, then one node per event). */
struct sym_node {
	struct ann_sym *s;
	struct sym_node *next;
};

static struct ann_sym *sym_get(struct pa_annotate *a, const struct pa_loc *l, unsigned e,
                               unsigned nr)
{
	int created;
	void **slot = pa_u64map_slot(&a->map, (uint64_t)(uintptr_t)l->sym, &created);
	if (!slot)
		return NULL;
	for (struct sym_node *n = *slot; n; n = n->next)
		if (n->s->evsel == e && n->s->dso == l->dso)
			return n->s;
	struct sym_node *n = pa_arena_alloc(&a->arena, sizeof(*n));
	struct ann_sym *s = pa_arena_alloc(&a->arena, sizeof(*s));
	uint64_t *counts = pa_arena_alloc(&a->arena, 2 * nr * sizeof(*counts));
	if (!n || !s || !counts || PA_GROW(a->syms, a->cap_syms, a->nr_syms + 1, 64))
		return NULL;
	s->evsel = e;
	s->nr_members = nr;
	s->nr_samples = counts;
	s->period = counts + nr;
	s->dso = l->dso;
	s->sym = l->sym;
	s->start = l->sym->start;
	s->end = l->sym->end > l->sym->start ? l->sym->end : l->sym->start + 1;
	n->s = s;
	n->next = *slot;
	*slot = n;
	a->syms[a->nr_syms++] = s;
	return s;
}

/* the event of index e (one the header did not list: on its own) */
static struct ann_event *event_get(struct pa_annotate *a, unsigned e)
{
	if (e >= a->nr_events) {
		struct ann_event *v = realloc(a->events, (e + 1) * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + a->nr_events, 0, (e + 1 - a->nr_events) * sizeof(*v));
		for (unsigned i = a->nr_events; i <= e; i++)
			v[i] = (struct ann_event){.leader = i, .nr_members = 1};
		a->events = v;
		a->nr_events = e + 1;
	}
	return &a->events[e];
}

static int on_sample(void *ctx, const struct pa_trace_sample *sm)
{
	struct pa_annotate *a = ctx;
	const struct pa_loc *l = &pa_resolver_locs(a->res)[sm->loc];
	/* perf annotate keeps only the named symbol's samples: its totals too */
	if (a->opts.symbol && (!l->sym || strcmp(l->sym->name, a->opts.symbol)))
		return 0;
	struct ann_event *ev = event_get(a, sm->evsel);
	if (!ev)
		return -ENOMEM;
	ev->nr_samples++;
	ev->total_period += sm->period;
	if (!l->sym || !l->dso || l->sym->inlined)
		return 0;
	unsigned lead = ev->leader, m = ev->member;
	struct ann_sym *s = sym_get(a, l, lead, a->events[lead].nr_members);
	if (!s || PA_GROW(s->addrs, s->cap_addrs, s->nr_addrs + 1, 16))
		return -ENOMEM;
	uint64_t off = pa_resolver_sym_offset(a->res, l);
	s->map_base = l->addr - off;
	s->addrs[s->nr_addrs++] =
	    (struct ann_addr){.off = off, .member = m, .hits = 1, .period = sm->period};
	s->nr_samples[m]++;
	s->period[m] += sm->period;
	return 0;
}

static int cmp_addr(const void *pa, const void *pb)
{
	const struct ann_addr *x = pa, *y = pb;
	return x->off != y->off ? PA_CMP(x->off, y->off) : PA_CMP(x->member, y->member);
}

/* periods of a group's members, the leader's first: > 0 when x is more.
 * perf annotate ranks a group's entries by the leader's period alone: its
 * __hpp__sort compares the members' through the entries' pairs, which
 * annotate never links (all 0), so ties go to DSO and symbol; the
 * callers pass nr 1. */
static int cmp_periods(const uint64_t *x, const uint64_t *y, unsigned nr)
{
	for (unsigned m = 0; m < nr; m++)
		if (x[m] != y[m])
			return PA_CMP(x[m], y[m]);
	return 0;
}

/* one entry per offset and member */
static void merge_addrs(struct ann_sym *s)
{
	qsort(s->addrs, s->nr_addrs, sizeof(*s->addrs), cmp_addr);
	size_t n = 0;
	for (size_t i = 0; i < s->nr_addrs; i++) {
		if (n && s->addrs[n - 1].off == s->addrs[i].off &&
		    s->addrs[n - 1].member == s->addrs[i].member) {
			s->addrs[n - 1].hits += s->addrs[i].hits;
			s->addrs[n - 1].period += s->addrs[i].period;
		} else {
			s->addrs[n++] = s->addrs[i];
		}
	}
	s->nr_addrs = n;
}

static int cmp_str(const char *x, const char *y)
{
	int c = strcmp(x ? x : "", y ? y : "");
	return (c > 0) - (c < 0);
}

/* perf's output order: events in order, then symbols by period (all
 * processes' samples of a symbol together: on a recording of several
 * programs sharing libc, perf 6.1 ranks a libc symbol by its whole
 * period), then DSO short name and symbol name (ascending); two symbols
 * of one name (C++ overloads: perf's names have no parameters) in the
 * order of their start, perf's collapsed tree's */
static int cmp_rank(const void *pa, const void *pb)
{
	const struct ann_sym *x = *(const struct ann_sym *const *)pa;
	const struct ann_sym *y = *(const struct ann_sym *const *)pb;
	int c;
	if (x->evsel != y->evsel)
		return PA_CMP(x->evsel, y->evsel);
	if ((c = cmp_periods(y->period, x->period, 1)))
		return c;
	if ((c = cmp_str(x->dso->short_name, y->dso->short_name)))
		return c;
	if ((c = cmp_str(x->sym->name, y->sym->name)))
		return c;
	return PA_CMP(x->sym->start, y->sym->start);
}

/* --percent-limit: a symbol's first entry under that share of its
 * event's period is not shown (perf's hists__find_annotations); a group's
 * symbol that only its members sampled has no entry in the leader's
 * histogram, the only one perf annotate walks for a group */
static bool shown(const struct pa_annotate *a, const struct ann_sym *s)
{
	if (!s->nr_samples[0])
		return false;
	if (a->opts.percent_limit <= 0)
		return true;
	const struct ann_event *ev = &a->events[s->evsel];
	double pct =
	    ev->total_period ? 100.0 * (double)s->period[0] / (double)ev->total_period : 0;
	return pct >= a->opts.percent_limit;
}

int ann_hist_gather(struct pa_annotate *a, struct pa_err *err)
{
	int rc = pa_trace_foreach(a->trace, on_sample, NULL, a);
	if (rc)
		return pa_err_set(err, rc < 0 ? rc : -EINVAL, "annotate: %s", pa_strerror(rc));
	for (size_t i = 0; i < a->nr_syms; i++)
		merge_addrs(a->syms[i]);
	qsort(a->syms, a->nr_syms, sizeof(*a->syms), cmp_rank);
	a->nr_shown = 0;
	for (size_t i = 0; i < a->nr_syms; i++) {
		a->syms[i]->hidden = !shown(a, a->syms[i]);
		a->nr_shown += !a->syms[i]->hidden;
	}
	return 0;
}
