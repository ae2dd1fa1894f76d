/* print.c - rows from buckets, and perf report --stdio's layout. */
#include "internal.h"
#include "util/rbtree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct row {
	struct hkey k;
	unsigned member;        /* which event of the group, while collecting */
	uint64_t period, count; /* the leader's (or the only event's) */
	uint64_t *vals;         /* per member: period, then count (2 * nr_members) */
	uint32_t seq;           /* creation order (perf's first sample) */
	bool hidden;            /* filtered: in perf's trees, not printed */
	bool merged;            /* found equal to an earlier entry, added to it */
	/* call-graph mode */
	uint64_t acc_period; /* children */
	const struct cg_entry *e;
	const struct pa_thread *thread;
	uint32_t max_depth;
	uint64_t *accs; /* children, per member */
};

struct rows_ctx {
	const int *keys;
	unsigned nr_keys;
	unsigned nr_members;
};

/* perf's collapse comparators: what makes two samples one row. */
static int collapse_key(int k, const struct row *a, const struct row *b)
{
	return pa_keys[k].collapse ? pa_keys[k].collapse(&a->k, &b->k) : 0;
}

/* Rows by the collapse keys of ctx (all of them, or the first nr_keys). */
static int collapse_cmp(const struct row *a, const struct row *b, const struct rows_ctx *ctx)
{
	for (unsigned i = 0; i < ctx->nr_keys; i++) {
		int c = collapse_key(ctx->keys[i], a, b);
		if (c)
			return c;
	}
	return 0;
}

static bool sym_passes(const struct pa_report *r, const struct row *w, const struct bucket *b)
{
	const struct pa_sym *sym = w->k.sym;
	/* branch mode: the sample's symbol, as perf (not the target's) */
	if (r->branch && r->filter.nr_syms)
		sym = pa_report_locs(r)[pa_branch_pair(r, b->stack)->sample].sym;
	return pa_filter_sym(&r->filter, sym ? sym->name : NULL);
}

/* ---- perf's three hist-entry trees, replayed -----------------------------
 *
 * perf keeps hist entries in rb-trees: entries_in (as samples create
 * them), entries_collapsed, then the output tree. Some of its comparators
 * are not orders (unresolved addresses compare by a wrapping difference,
 * and only among themselves; --children compares call-graph depths only
 * within a thread), so the order it prints depends on the trees' shapes:
 * rows are inserted the same way into the same kind of trees. */

static int sgn64(int64_t v)
{
	return (v > 0) - (v < 0);
}

/* perf's se_cmp(left, right) of one sort key, as a sign. */
static int perf_key_cmp(int k, const struct row *l, const struct row *r)
{
	return pa_keys[k].cmp ? pa_keys[k].cmp(&l->k, &r->k) : 0;
}

struct cg_sort {
	const struct pa_report *r;
	struct row *rows; /* (the comparisons mark lazy keys: lazy_reached) */
	unsigned nr_members;
	/* by place in r->osort: an elided column's key, which perf's output
	 * sort skips */
	bool oskip[PA_MAX_OSORT];
};

static void compute_elide(const struct pa_report *r, bool *elide);

/* Which sort keys perf's output sort (hist_entry__sort) skips: those
 * whose column is elided (a filter with one value, e.g. --comms head). */
void pa_report_elided_keys(const struct pa_report *r, bool *elided)
{
	bool elide[16];
	compute_elide(r, elide);
	for (unsigned i = 0; i < r->nr_keys; i++) {
		elided[i] = false;
		for (unsigned c = 0; c < r->nr_cols; c++)
			if (r->cols[c] == r->keys[i])
				elided[i] = elide[c];
	}
}

/* A comparison of perf's reached key k of an entry: a lazily computed
 * key (srcline_from, srcline_to) is known from then on, at state at most
 * (enum pa_lazy). */
static void lazy_reached(int k, struct hkey *h, enum pa_lazy at)
{
	uint8_t *st = k == K_SRCLINE_FROM ? &h->lazy_from : k == K_SRCLINE_TO ? &h->lazy_to : NULL;
	if (st && *st > at)
		*st = (uint8_t)at;
}

/* hists__findnew_entry / hists__collapse_insert_entry: cmp(existing, new)
 * < 0 puts the new entry left; 0: the existing entry has the new one's
 * keys. perf's comparators are not always orders (an unresolved address
 * compares with another by address alone, with a symbol by DSO first), so
 * an entry equal to the new one may lie off the search path and stay
 * apart; perf prints the two as two rows. */
static int dir_collapse_find(void *ctx, uint32_t n, uint32_t e)
{
	const struct cg_sort *cs = ctx;
	for (unsigned i = 0; i < cs->r->nr_keys; i++) {
		lazy_reached(cs->r->keys[i], &cs->rows[n].k, PA_LAZY_SIZED);
		lazy_reached(cs->r->keys[i], &cs->rows[e].k, PA_LAZY_SIZED);
		int c = perf_key_cmp(cs->r->keys[i], &cs->rows[e], &cs->rows[n]);
		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/* The same for entries already merged: an equal one goes right. */
static int dir_collapse(void *ctx, uint32_t n, uint32_t e)
{
	int d = dir_collapse_find(ctx, n, e);
	return d ? d : 1;
}

/* The order of the first tree's walk: by dir_collapse_find (a row goes
 * left of one it compares below), equal rows in creation order. */
static int collapse_walk_cmp(const void *pa, const void *pb, void *ctx)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	int d = dir_collapse_find(ctx, x, y);
	return d ? d : PA_CMP(x, y);
}

/* Insert rows in the given order, adding a row found equal to the entry
 * that holds its key. */
static void insert_merging(struct pa_rb *t, struct row *rows, uint32_t i, struct cg_sort *cs,
                           unsigned nr_members)
{
	uint32_t at = pa_rb_insert(t, i, dir_collapse_find, cs);
	if (at == i)
		return;
	/* (call-graph rows: children too, and the call graphs merge) */
	unsigned nv = (rows[i].accs ? 3 : 2) * nr_members;
	for (unsigned m = 0; m < nv; m++)
		rows[at].vals[m] += rows[i].vals[m];
	if (rows[at].e && rows[i].e)
		pa_cg_merge(cs->r, rows[at].e, rows[i].e);
	rows[i].merged = true;
}

/* hist_entry__sort(new, existing) > 0 puts the new entry left. (perf
 * sizes the columns with each entry just put into this tree: a lazy key
 * reached here is sized for the new entry, late for the other.) */
/* A value column of the output sort list: the leader's value, then each
 * group member's; children with perf's tie rule. */
static int value_sort(const struct cg_sort *cs, int k, const struct row *a, const struct row *b)
{
	const struct pa_report *r = cs->r;
	unsigned at = pa_keys[k].sorts_by == PA_BY_COUNT;
	switch (pa_keys[k].sorts_by) {
	case PA_BY_CHILDREN:
		if (!r->cg.children)
			return 0;
		if (a->acc_period != b->acc_period)
			return a->acc_period > b->acc_period ? 1 : -1;
		/* "put caller above callee when they have equal period" */
		if (a->thread == b->thread) {
			int64_t d = (int64_t)b->max_depth - (int64_t)a->max_depth;
			return sgn64(r->cg.caller ? -d : d);
		}
		return 0;
	case PA_BY_PERIOD:
	case PA_BY_COUNT:
		for (unsigned m = 0; m < cs->nr_members; m++)
			if (a->vals[2 * m + at] != b->vals[2 * m + at])
				return a->vals[2 * m + at] > b->vals[2 * m + at] ? 1 : -1;
		return 0;
	default:
		return 0;
	}
}

static int perf_sort(const struct cg_sort *cs, struct row *a, struct row *b)
{
	const struct pa_report *r = cs->r;
	for (unsigned o = 0; o < r->nr_osort; o++) {
		int k = r->osort[o], c;
		if (!pa_keys[k].is_sort) {
			if ((c = value_sort(cs, k, a, b)))
				return c;
			continue;
		}
		if (cs->oskip[o])
			continue;
		lazy_reached(k, &a->k, PA_LAZY_SIZED);
		lazy_reached(k, &b->k, PA_LAZY_LATE);
		c = pa_keys[k].sort ? pa_keys[k].sort(&a->k, &b->k) : 0;
		if (c)
			return c;
	}
	return 0;
}

static int dir_output(void *ctx, uint32_t n, uint32_t e)
{
	const struct cg_sort *cs = ctx;
	return perf_sort(cs, &cs->rows[n], &cs->rows[e]) > 0 ? -1 : 1;
}

/* Whether perf's collapse comparator orders these rows (is transitive).
 * The symbol key can fail to (and branch mode's flag keys always do):
 * unresolved addresses compare by their
 * signed difference (no order when they lie 2^63 or more apart), and with
 * another DSO by DSO name first, so without the DSO key before it an
 * address and a symbol of other DSOs can go round in a cycle; and inline
 * frames' symbols compare by name, the others by address. */
static bool collapse_is_order(const struct pa_report *r, const struct row *rows, size_t n)
{
	bool dso_seen = false;
	/* branch mode's flag keys say only "differ" */
	for (unsigned k = 0; k < r->nr_keys; k++)
		if (r->keys[k] == K_MISPREDICT || r->keys[k] == K_IN_TX || r->keys[k] == K_ABORT)
			return false;
	for (unsigned k = 0; k < r->nr_keys; k++) {
		if (r->keys[k] == K_DSO)
			dso_seen = true;
		if (r->keys[k] != K_SYM)
			continue;
		if (!dso_seen)
			return false;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (size_t i = 0; i < n; i++)
			if (rows[i].k.sym && rows[i].k.sym->inlined)
				return false; /* by name, beside others by address */
			else if (!rows[i].k.sym) {
				lo = rows[i].k.addr < lo ? rows[i].k.addr : lo;
				hi = rows[i].k.addr > hi ? rows[i].k.addr : hi;
			}
		return lo > hi || hi - lo < (UINT64_C(1) << 63);
	}
	return true;
}

/* rows[k] becomes what was rows[ord[k]], for k < m (ord: m distinct
 * indices below n, used up); the rows left out go after them. In place:
 * the rows are the biggest array of the end, a copy would be its peak. */
static int rows_in_order(struct row *rows, size_t n, uint32_t *ord, size_t m)
{
	const uint32_t done = UINT32_C(1) << 31;
	uint8_t *in = calloc(n + 1, 1);
	if (!in || n >= done) {
		free(in);
		return -ENOMEM;
	}
	for (size_t k = 0; k < m; k++)
		in[ord[k]] = 1;
	size_t t = m;
	for (size_t i = 0; i < n; i++)
		if (!in[i])
			ord[t++] = (uint32_t)i;
	free(in);
	/* each cycle of the permutation: one row held aside */
	for (size_t k = 0; k < n; k++) {
		if (ord[k] & done)
			continue;
		struct row held = rows[k];
		for (size_t j = k;;) {
			size_t src = ord[j] & ~done;
			ord[j] |= done;
			if (src == k) {
				rows[j] = held;
				break;
			}
			rows[j] = rows[src];
			j = src;
		}
	}
	return 0;
}

/* rows[0, n) in creation order -> ord, their indices in perf's output
 * order; rows that hide (filtered) take part and are left out. *m: the
 * count. */
static int replay_trees_from(const struct pa_report *r, struct row *rows, size_t n_in, size_t n,
                             unsigned nr_members, bool merge, uint32_t *ord, size_t *m);

/* The output tree fed as perf's trees would feed it, with rows of
 * distinct keys under an order: the first tree's walk is then the rows
 * sorted (equal ones in creation order), and the collapsed tree gives
 * that back; a sort takes less than the two trees. */
static int feed_sorted(size_t n, struct cg_sort *cs, struct pa_rb *out_tree)
{
	uint32_t *sorted = malloc((n + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		sorted[i] = i;
	qsort_r(sorted, n, sizeof(*sorted), collapse_walk_cmp, cs);
	for (size_t k = 0; k < n; k++)
		pa_rb_insert(out_tree, sorted[k], dir_output, cs);
	free(sorted);
	return 0;
}

/* The same by replaying perf's insertions into entries_in (a) and the
 * collapsed tree (b). */
static void feed_replayed(struct row *rows, size_t n_in, size_t n, bool merge, bool order,
                          struct cg_sort *cs, struct pa_rb *a, struct pa_rb *b,
                          struct pa_rb *out_tree)
{
	unsigned nr_members = cs->nr_members;
	for (uint32_t i = 0; i < n_in; i++) {
		if (merge)
			insert_merging(a, rows, i, cs, nr_members);
		else
			pa_rb_insert(a, i, dir_collapse, cs);
	}
	/* branch mode: perf's statistics count each entries_in entry's
	 * branches by the branch that made it (before its collapse) */
	for (uint32_t i = 0; cs->r->branch && merge && i < n_in; i++) {
		uint64_t cnt = 0;
		for (unsigned m = 0; m < nr_members && !rows[i].merged; m++)
			cnt += rows[i].vals[2 * m + 1];
		pa_branch_count_entry(cs->r, &rows[i].k, cnt);
	}
	/* the collapsed tree, fed the first one's order, gives it back when
	 * the comparator is an order and no rows join there; perf makes it
	 * only when a sort key has a collapse function, and else adds a
	 * group's dummies to the first one */
	struct pa_rb *collapsed = a;
	if (!pa_keys_perf_collapse(cs->r->keys, cs->r->nr_keys)) {
		for (uint32_t i = (uint32_t)n_in; i < n; i++)
			pa_rb_insert(a, i, dir_collapse, cs);
	} else if (n_in != n || !order) {
		for (uint32_t i = pa_rb_first(a); i != PA_RB_NIL; i = pa_rb_next(a, i)) {
			if (merge)
				insert_merging(b, rows, i, cs, nr_members);
			else
				pa_rb_insert(b, i, dir_collapse, cs);
		}
		for (uint32_t i = (uint32_t)n_in; i < n; i++)
			pa_rb_insert(b, i, dir_collapse, cs);
		collapsed = b;
	}
	for (uint32_t i = pa_rb_first(collapsed); i != PA_RB_NIL; i = pa_rb_next(collapsed, i)) {
		if (rows[i].merged)
			continue;
		if (merge) {
			rows[i].period = rows[i].vals[0];
			rows[i].count = rows[i].vals[1];
			if (rows[i].accs)
				rows[i].acc_period = rows[i].accs[0];
		}
		pa_rb_insert(out_tree, i, dir_output, cs);
	}
}

/* rows[0, n_in) go through entries_in; rows[n_in, n) join in the collapsed
 * tree afterwards (a group's dummies). With merge, rows of equal keys may
 * still be apart (one per bucket): the first two trees add up the ones
 * perf's would, and each entry's period and count are its first member's
 * sums after that. */
static int replay_trees_from(const struct pa_report *r, struct row *rows, size_t n_in, size_t n,
                             unsigned nr_members, bool merge, uint32_t *ord, size_t *m)
{
	struct pa_rb a = {0}, b = {0}, c = {0};
	struct cg_sort cs = {.r = r, .rows = rows, .nr_members = nr_members};
	bool elided[8];
	pa_report_elided_keys(r, elided);
	for (unsigned o = 0; o < r->nr_osort; o++)
		for (unsigned i = 0; i < r->nr_keys; i++)
			cs.oskip[o] |= r->keys[i] == r->osort[o] && elided[i];
	bool order = collapse_is_order(r, rows, n);
	bool sort = !merge && n_in == n && order;
	int ret = 0;
	if ((!sort && (pa_rb_init(&a, n) || pa_rb_init(&b, n))) || pa_rb_init(&c, n))
		ret = -ENOMEM;
	else if (sort)
		ret = feed_sorted(n, &cs, &c);
	else
		feed_replayed(rows, n_in, n, merge, order, &cs, &a, &b, &c);
	*m = 0;
	for (uint32_t i = ret ? PA_RB_NIL : pa_rb_first(&c); i != PA_RB_NIL; i = pa_rb_next(&c, i))
		if (!rows[i].hidden)
			ord[(*m)++] = i;
	pa_rb_release(&a);
	pa_rb_release(&b);
	pa_rb_release(&c);
	return ret;
}

struct idx_sort {
	const struct row *rows;
	const struct rows_ctx *ctx;
};

/* By event, then key, then creation order. */
static int nf_cmp(const void *pa, const void *pb, void *arg)
{
	const struct idx_sort *is = arg;
	const struct row *a = &is->rows[*(const uint32_t *)pa],
	                 *b = &is->rows[*(const uint32_t *)pb];
	if (a->member != b->member)
		return PA_CMP(a->member, b->member);
	int c = collapse_cmp(a, b, is->ctx);
	return c ? c : PA_CMP(a->seq, b->seq);
}

/* perf's non-filtered totals of each event of a group, which --percentage
 * relative divides by and the section header shows: sums over the event's
 * own entries (its rows merged by key; the first one made decides whether
 * the entry is filtered), not over the rows shown, where a member's entry
 * may sit under a filtered entry of the leader. rows[].period/count are
 * self values; nf[2 * m] = period, nf[2 * m + 1] = samples. */
static int member_nf_totals(const struct pa_report *r, const struct row *rows, size_t n,
                            unsigned nr_members, uint64_t *nf)
{
	memset(nf, 0, 2 * nr_members * sizeof(*nf));
	bool any_hidden = false;
	for (size_t i = 0; i < n && !any_hidden; i++)
		any_hidden = rows[i].hidden;
	if (!any_hidden) { /* (no filter) every entry counts: no need to find them */
		for (size_t i = 0; i < n; i++) {
			nf[2 * rows[i].member] += rows[i].period;
			nf[2 * rows[i].member + 1] += rows[i].count;
		}
		return 0;
	}
	uint32_t *idx = malloc((n + 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	struct rows_ctx ctx = {r->keys, r->nr_keys, 1};
	struct idx_sort is = {rows, &ctx};
	qsort_r(idx, n, sizeof(*idx), nf_cmp, &is);
	bool hidden = false;
	for (size_t k = 0; k < n; k++) {
		const struct row *w = &rows[idx[k]], *prev = k ? &rows[idx[k - 1]] : NULL;
		if (!prev || prev->member != w->member || collapse_cmp(prev, w, &ctx))
			hidden = w->hidden; /* the entry's first row */
		if (!hidden) {
			nf[2 * w->member] += w->period;
			nf[2 * w->member + 1] += w->count;
		}
	}
	free(idx);
	return 0;
}

/* r->ordered: perf's entries_in as the samples come, one tree per event.
 * rows[0, n) hold one row per bucket of the group (seq: the bucket); they
 * become the entries in the order perf made them, each the row of the
 * bucket whose sample made it, with the period and count of the samples
 * that found it. A bucket's sample searches again only when the tree
 * changed since its last search (until then the search goes the same way). */
static int entries_by_samples(struct pa_report *r, unsigned nr_members, struct row **rowsp,
                              size_t *np)
{
	struct row *tmpl = *rowsp, *ent = NULL;
	size_t n = *np, m = 0, cap = n + 1;
	uint32_t *brow = malloc((r->nr_buckets + 1) * sizeof(*brow));
	uint32_t *bent = malloc((r->nr_buckets + 1) * sizeof(*bent));
	uint32_t *bgen = malloc((r->nr_buckets + 1) * sizeof(*bgen));
	uint32_t *gen = calloc(nr_members, sizeof(*gen));
	struct pa_rb *t = calloc(nr_members, sizeof(*t));
	struct cg_sort cs = {.r = r, .nr_members = 1};
	int ret = -ENOMEM;
	if (!brow || !bent || !bgen || !gen || !t || !(ent = malloc(cap * sizeof(*ent))))
		goto out;
	for (unsigned k = 0; k < nr_members; k++)
		t[k].root = PA_RB_NIL;
	for (size_t b = 0; b < r->nr_buckets; b++)
		brow[b] = bent[b] = UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		brow[tmpl[i].seq] = (uint32_t)i;
	for (size_t k = 0; k < r->nr_slog; k++) {
		const struct slog *sl = &r->slog[k];
		if (brow[sl->bucket] == UINT32_MAX)
			continue;
		const struct row *w = &tmpl[brow[sl->bucket]];
		uint32_t e = bent[sl->bucket];
		if (e == UINT32_MAX || bgen[sl->bucket] != gen[w->member]) {
			if (PA_GROW(ent, cap, m + 1, 64) || pa_rb_reserve(&t[w->member], m + 1))
				goto out;
			ent[m] = *w;
			ent[m].period = ent[m].count = 0;
			ent[m].seq = (uint32_t)m;
			cs.rows = ent;
			e = pa_rb_insert(&t[w->member], (uint32_t)m, dir_collapse_find, &cs);
			if (e == m) {
				m++;
				gen[w->member]++;
			}
			bent[sl->bucket] = e;
			bgen[sl->bucket] = gen[w->member];
		}
		ent[e].period += sl->period;
		ent[e].count += sl->count;
	}
	free(tmpl);
	*rowsp = ent;
	*np = m;
	ent = NULL;
	ret = 0;
out:
	for (unsigned k = 0; t && k < nr_members; k++)
		pa_rb_release(&t[k]);
	free(t);
	free(gen);
	free(bgen);
	free(bent);
	free(brow);
	free(ent);
	return ret;
}

/* -v's origin letter of a DSO's symbols (only -v shows it) */
static char origin_of(const struct pa_report *r, const struct pa_dso *d)
{
	return r->opts.verbose_columns ? pa_resolver_dso_origin(r->res, d) : 0;
}

/* A branch-mode bucket's key: its source and flags beside its target */
static void branch_key(struct pa_report *r, const struct bucket *b, struct hkey *k)
{
	const struct pa_branch_pair *p = pa_branch_pair(r, b->stack);
	const struct pa_loc *to = &pa_report_locs(r)[b->loc], *from = &pa_report_locs(r)[p->from];
	k->branch = true;
	k->ip = to->ip;
	k->dso_from = from->dso;
	k->sym_from = from->sym;
	k->addr_from = from->addr;
	k->ip_from = from->ip;
	k->level_from = from->level;
	k->sample_level = p->level;
	k->off = to->sym ? pa_resolver_sym_offset(r->res, to) : 0;
	k->off_from = from->sym ? pa_resolver_sym_offset(r->res, from) : 0;
	k->bflags = p->flags;
	k->origin_from = origin_of(r, from->dso);
	for (unsigned i = 0; i < r->nr_keys; i++) {
		/* (never computed until a comparison of the trees reaches it) */
		if (r->keys[i] == K_SRCLINE_FROM) {
			k->srcline_from = pa_resolver_srcline(r->res, from);
			k->lazy_from = PA_LAZY_NEVER;
		} else if (r->keys[i] == K_SRCLINE_TO) {
			k->srcline_to = pa_resolver_srcline(r->res, to);
			k->lazy_to = PA_LAZY_NEVER;
		}
	}
}

/* Rows of one event group (members first..first+nr-1; a lone event is a
 * group of one): buckets -> collapsed rows in output order. *vals_out
 * holds the per-member sums the rows point into, nf the non-filtered
 * totals (member_nf_totals). *nr rows are printed; the others, up to
 * *nr_all, are filtered entries (hidden) or rows merged into another. */
static struct row *build_rows(struct pa_report *r, unsigned first, unsigned nr_members, size_t *nr,
                              size_t *nr_all, uint64_t **vals_out, uint64_t *nf)
{
	struct row *rows = malloc((r->nr_buckets + 1) * sizeof(*rows));
	if (!rows)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->nr_buckets; i++) {
		const struct bucket *b = &r->buckets[i];
		if (b->evsel < first || b->evsel >= first + nr_members)
			continue;
		const struct pa_loc *l = &pa_report_locs(r)[b->loc];
		struct row w = {.k.comm = pa_thread_report_comm(b->thread, b->comm),
		                .k.thread_comm = pa_thread_comm(b->thread),
		                .k.pid = pa_thread_pid(b->thread),
		                .k.tid = pa_thread_tid(b->thread),
		                .k.dso = l->dso,
		                .k.sym = l->sym,
		                .k.srcline = l->srcline,
		                .k.addr = l->addr,
		                .k.level = l->level,
		                .k.cpu = b->cpu,
		                .k.verbose = r->opts.verbose_columns,
		                .k.origin = origin_of(r, l->dso),
		                .member = b->evsel - first,
		                .period = b->period,
		                .count = b->count,
		                .seq = (uint32_t)i};
		if (r->branch)
			branch_key(r, b, &w.k);
		w.hidden = b->filtered || !sym_passes(r, &w, b);
		rows[n++] = w;
	}
	if (r->ordered && entries_by_samples(r, nr_members, &rows, &n)) {
		free(rows);
		return NULL;
	}
	/* an entry's second sample found it equal on every key */
	for (size_t i = 0; i < n; i++)
		if (rows[i].count >= 2) {
			lazy_reached(K_SRCLINE_FROM, &rows[i].k, PA_LAZY_SIZED);
			lazy_reached(K_SRCLINE_TO, &rows[i].k, PA_LAZY_SIZED);
		}
	/* one row per bucket (or entry), in creation order: perf's trees
	 * merge them */
	uint64_t *vals = calloc(n * 2 * nr_members + 1, sizeof(*vals));
	uint32_t *ord = malloc((n + 1) * sizeof(*ord));
	if (!vals || !ord || member_nf_totals(r, rows, n, nr_members, nf)) {
		free(vals);
		free(ord);
		free(rows);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].vals = vals + i * 2 * nr_members;
		rows[i].vals[2 * rows[i].member] = rows[i].period;
		rows[i].vals[2 * rows[i].member + 1] = rows[i].count;
	}
	if (replay_trees_from(r, rows, n, n, nr_members, true, ord, nr) ||
	    rows_in_order(rows, n, ord, *nr)) {
		free(ord);
		free(rows);
		free(vals);
		return NULL;
	}
	free(ord);
	*vals_out = vals;
	*nr_all = n;
	return rows;
}

int pa_report_flat_rows(struct pa_report *r, unsigned evsel, struct pa_flat_row **out, size_t *n,
                        uint64_t *nf_period)
{
	uint64_t *vals = NULL, nf[2] = {0, 0};
	size_t m = 0, all = 0, k = 0;
	struct row *rows = build_rows(r, evsel, 1, &m, &all, &vals, nf);
	struct pa_flat_row *fr = rows ? malloc((all + 1) * sizeof(*fr)) : NULL;
	int ret = -ENOMEM;
	if (!fr)
		goto out;
	for (size_t i = 0; i < all; i++)
		if (i < m || !rows[i].merged)
			fr[k++] = (struct pa_flat_row){rows[i].k, rows[i].vals[0], rows[i].vals[1],
			                               i >= m};
	*out = fr;
	*n = k;
	*nf_period = nf[0];
	ret = 0;
out:
	free(rows);
	free(vals);
	return ret;
}

/* Rows of call-graph mode: perf's hist entries, in the order perf's
 * output tree gives them. Filtered entries take part in the trees (perf
 * keeps them there) and are dropped at the end. In a group, members'
 * entries pair with the leader's by key; the others become entries of the
 * leader with no value of its own (perf's hists__link dummies), added to
 * its collapsed tree after its own. */

static int idx_key_cmp(const void *pa, const void *pb, void *arg)
{
	const struct idx_sort *is = arg;
	return collapse_cmp(&is->rows[*(const uint32_t *)pa], &is->rows[*(const uint32_t *)pb],
	                    is->ctx);
}

static struct row *build_cg_rows(struct pa_report *r, unsigned first, unsigned nr_members,
                                 size_t *nr, uint64_t **vals_out, uint64_t *nf)
{
	size_t ne = pa_cg_nr_entries(r);
	struct row *rows = malloc((ne + 1) * sizeof(*rows));
	uint32_t *ord = malloc((ne + 1) * sizeof(*ord));
	uint64_t *vals = calloc(ne * 3 * nr_members + 1, sizeof(*vals));
	uint32_t *idx = malloc((ne + 1) * sizeof(*idx));
	if (!rows || !ord || !vals || !idx) {
		free(rows);
		free(ord);
		free(vals);
		free(idx);
		return NULL;
	}
	/* vals: per row, period and count per member, then acc per member */
	size_t n = 0;
	for (size_t i = 0; i < ne; i++) {
		const struct cg_entry *e = pa_cg_entry(r, i);
		if (e->evsel < first || e->evsel >= first + nr_members)
			continue;
		if (e->evsel != first && nr_members == 1)
			continue;
		rows[n] = (struct row){.k.comm = e->comm,
		                       .k.thread_comm = pa_thread_comm(e->thread),
		                       .k.pid = pa_thread_pid(e->thread),
		                       .k.tid = pa_thread_tid(e->thread),
		                       .k.dso = e->dso,
		                       .k.sym = e->sym,
		                       .k.addr = e->addr,
		                       .k.level = e->level,
		                       .k.cpu = e->cpu,
		                       .member = e->evsel - first,
		                       .k.parent = e->parent,
		                       .k.srcline = e->srcline,
		                       .k.verbose = r->opts.verbose_columns,
		                       .k.origin = origin_of(r, e->dso),
		                       .e = e,
		                       .thread = e->thread,
		                       .max_depth = e->max_depth,
		                       .hidden = e->filtered,
		                       .period = e->period,
		                       .count = e->count,
		                       .seq = (uint32_t)i};
		n++;
	}
	if (member_nf_totals(r, rows, n, nr_members, nf)) {
		free(rows);
		free(ord);
		free(vals);
		free(idx);
		return NULL;
	}
	/* the leader's entries first, each member's after, in creation order */
	size_t n_lead = 0;
	for (size_t i = 0; i < n; i++)
		if (!rows[i].member) {
			struct row t = rows[n_lead];
			rows[n_lead++] = rows[i];
			rows[i] = t;
		}
	struct rows_ctx ctx = {r->keys, r->nr_keys, 1};
	size_t m = n_lead;
	if (nr_members > 1) {
		/* members: pair with the leader's entries by key, or add */
		for (size_t i = n_lead; i < n; i++)
			idx[i - n_lead] = (uint32_t)i;
		struct idx_sort is = {rows, &ctx};
		qsort_r(idx, n - n_lead, sizeof(*idx), idx_key_cmp, &is);
		uint32_t *lead = malloc((n_lead + 1) * sizeof(*lead));
		if (!lead) {
			free(rows);
			free(ord);
			free(vals);
			free(idx);
			return NULL;
		}
		for (size_t i = 0; i < n_lead; i++)
			lead[i] = (uint32_t)i;
		qsort_r(lead, n_lead, sizeof(*lead), idx_key_cmp, &is);
		struct row *all = malloc((n + 1) * sizeof(*all));
		if (!all) {
			free(lead);
			free(rows);
			free(ord);
			free(vals);
			free(idx);
			return NULL;
		}
		memcpy(all, rows, n_lead * sizeof(*all));
		for (size_t k = 0; k < n - n_lead; k++) {
			const struct row *w = &rows[idx[k]];
			/* a leader entry with this key, or one added before */
			size_t lo = 0, hi = n_lead;
			long found = -1;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				int c = collapse_cmp(&rows[lead[mid]], w, &ctx);
				if (!c) {
					found = lead[mid];
					break;
				}
				if (c < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (size_t d = n_lead; found < 0 && d < m; d++)
				if (!collapse_cmp(&all[d], w, &ctx))
					found = (long)d;
			if (found < 0) {
				all[m] = *w;
				all[m].e = NULL; /* no call graph of its own */
				all[m].member = 0;
				all[m].max_depth = 0; /* its callchain is empty */
				found = (long)m++;
			}
		}
		/* values per member */
		for (size_t i = 0; i < m; i++)
			all[i].vals = vals + i * 3 * nr_members;
		for (size_t i = 0; i < n_lead; i++) {
			all[i].vals[0] = all[i].e->period;
			all[i].vals[1] = all[i].e->count;
			all[i].vals[2 * nr_members] = all[i].e->acc_period;
		}
		for (size_t k = 0; k < n - n_lead; k++) {
			const struct row *w = &rows[idx[k]];
			for (size_t i = 0; i < m; i++)
				if (!collapse_cmp(&all[i], w, &ctx)) {
					unsigned mb = w->member;
					all[i].vals[2 * mb] += w->e->period;
					all[i].vals[2 * mb + 1] += w->e->count;
					all[i].vals[2 * nr_members + mb] += w->e->acc_period;
					break;
				}
		}
		free(lead);
		free(rows);
		rows = all;
	} else {
		for (size_t i = 0; i < m; i++) {
			rows[i].vals = vals + i * 3;
			rows[i].vals[0] = rows[i].e->period;
			rows[i].vals[1] = rows[i].e->count;
			rows[i].vals[2] = rows[i].e->acc_period;
		}
	}
	for (size_t i = 0; i < m; i++) {
		rows[i].period = rows[i].vals[0];
		rows[i].count = rows[i].vals[1];
		rows[i].acc_period = rows[i].vals[2 * nr_members];
		rows[i].accs = rows[i].vals + 2 * nr_members;
	}
	size_t got;
	/* (r->ordered: entries perf split may merge again in its collapse) */
	if (replay_trees_from(r, rows, n_lead, m, nr_members, r->ordered, ord, &got) ||
	    rows_in_order(rows, m, ord, got)) {
		free(rows);
		free(ord);
		free(vals);
		free(idx);
		return NULL;
	}
	free(ord);
	free(idx);
	*nr = got;
	*vals_out = vals;
	return rows;
}

/* ---- formatting --------------------------------------------------------- */

/* Cells without printf's per-call setup: a large profile prints tens of
 * thousands of rows. Each returns what snprintf would, and falls back to
 * it when the text does not fit. */

/* perf's " %*.2f%%" of x in a cell of width (one space even when the number
 * is wider than width - 2). printf rounds the exact binary value;
 * away from a tie (checked with room for x * 100's own rounding) rounding
 * the product gives the same digits. */
static int put_pct(char *buf, size_t size, int width, double x)
{
	double y = x * 100.0;
	if (x >= 0 && y < 1e7) {
		uint64_t iy = (uint64_t)y;
		double frac = y - (double)iy;
		if (frac < 0.4999999 || frac > 0.5000001) {
			uint64_t v = iy + (frac > 0.5);
			char d[16];
			int n = (int)sizeof(d);
			d[--n] = (char)('0' + v % 10);
			d[--n] = (char)('0' + v / 10 % 10);
			d[--n] = '.';
			uint64_t ip = v / 100;
			do
				d[--n] = (char)('0' + ip % 10);
			while ((ip /= 10) && n > 0);
			/* perf's " %*.2f%%" in width - 2: one space even when
			 * the number is wider */
			int len = (int)sizeof(d) - n,
			    pad = 1 + (width - 2 > len ? width - 2 - len : 0);
			if ((size_t)(pad + len + 2) <= size) {
				memset(buf, ' ', (size_t)pad);
				memcpy(buf + pad, d + n, (size_t)len);
				buf[pad + len] = '%';
				buf[pad + len + 1] = 0;
				return pad + len + 1;
			}
		}
	}
	return snprintf(buf, size, " %*.2f%%", width - 2, x);
}

static int format_cell(char *buf, size_t size, int k, const struct row *w, int width, double total,
                       bool last)
{
	switch (k) {
	case K_OVERHEAD:
		return put_pct(buf, size, width,
		               total > 0 ? 100.0 * (double)w->period / total : 0.0);
	case K_SAMPLE:
		return snprintf(buf, size, "%*" PRIu64, width, w->count);
	case K_PERIOD:
		return snprintf(buf, size, "%*" PRIu64, width, w->period);
	default:
		return pa_keys[k].format ? pa_keys[k].format(buf, size, &w->k, width, last) : 0;
	}
	return 0;
}

static size_t natural_width(int k, const struct row *w)
{
	return pa_keys[k].natural_width ? pa_keys[k].natural_width(&w->k) : 0;
}

/* With --children (self), perf calls the overhead column "Self" (not
 * when --fields names the columns). */
static const char *col_header(int k, bool self)
{
	return k == K_OVERHEAD && self ? "Self" : pa_keys[k].header;
}

static int base_width(int k)
{
	return pa_key_header_width(k);
}

static bool right_aligned(int k)
{
	return pa_keys[k].right;
}

static bool key_is_sort(int k)
{
	return pa_keys[k].is_sort;
}

static char **filter_for(const struct pa_report *r, int k, size_t *n)
{
	switch (k) {
	case K_DSO:
		*n = r->filter.nr_dsos;
		return r->filter.dsos;
	case K_COMM:
		*n = r->filter.nr_comms;
		return r->filter.comms;
	case K_SYM:
		*n = r->filter.nr_syms;
		return r->filter.syms;
	default:
		*n = 0;
		return NULL;
	}
}

/* perf hides a sort column whose filter names one value, unless that
 * would hide every sort column. */
static void compute_elide(const struct pa_report *r, bool *elide)
{
	unsigned shown = 0, sort_cols = 0;
	for (unsigned c = 0; c < r->nr_cols; c++) {
		size_t n;
		filter_for(r, r->cols[c], &n);
		elide[c] = n == 1;
		if (key_is_sort(r->cols[c])) {
			sort_cols++;
			shown += !elide[c];
		}
	}
	if (sort_cols && !shown)
		for (unsigned c = 0; c < r->nr_cols; c++)
			elide[c] = false;
}

static unsigned long convert_unit(unsigned long v, char *unit)
{
	*unit = ' ';
	if (v > 1000) {
		v /= 1000;
		*unit = 'K';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'M';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'G';
	}
	return v;
}

struct group {
	unsigned first, nr;
	const char *name; /* NULL for an anonymous group */
};

/* Overhead/Samples/Period cells of a group: one value per member. (A
 * Children column without --children: perf's "N/A" in the first
 * member's place.) */
static size_t format_values(char *buf, size_t size, int k, const struct row *w, unsigned nr,
                            const uint64_t *totals, int width, bool children)
{
	size_t n = 0;
	int each = nr > 1 ? width / (int)nr : width;
	if (k == K_CHILDREN && !children)
		return (size_t)snprintf(buf, size, " %*s%*s", each - 1, "N/A", width - each, "");
	for (unsigned m = 0; m < nr && n < size; m++) {
		uint64_t period = w->vals[2 * m], count = w->vals[2 * m + 1];
		double t = (double)totals[m];
		if (k == K_CHILDREN)
			period = w->accs ? w->accs[m] : m ? 0 : w->acc_period;
		if (k == K_OVERHEAD || k == K_CHILDREN)
			n += (size_t)put_pct(buf + n, size - n, each,
			                     t > 0 ? 100.0 * (double)period / t : 0.0);
		else
			n += (size_t)snprintf(buf + n, size - n, "%*" PRIu64, each,
			                      k == K_SAMPLE ? count : period);
	}
	return n;
}

/* (one name per call site: each has its own buffer) */
#define evsel_name(ev) ((ev) ? pa_evsel_name((ev), (char[128]){0}, 128) : "unknown")

/* With --percentage relative, perf counts only its non-filtered samples
 * and period (nf, from member_nf_totals). */
static void print_section_header(struct pa_report *r, FILE *out, const struct group *g,
                                 const uint64_t *nf)
{
	struct pa_file *f = pa_session_file(r->session);
	uint64_t samples = 0, period = 0;
	for (unsigned m = 0; m < g->nr; m++) {
		samples += r->opts.relative ? nf[2 * m + 1] : r->total_samples[g->first + m];
		period += r->opts.relative ? nf[2 * m] : r->total_period[g->first + m];
	}
	char unit;
	unsigned long ns = convert_unit((unsigned long)samples, &unit);
	if (g->nr == 1) {
		fprintf(out, "# Samples: %lu%c of event '%s'\n", ns, unit,
		        evsel_name(pa_file_evsel(f, g->first)));
	} else {
		fprintf(out, "# Samples: %lu%c of events '%s { %s", ns, unit,
		        g->name ? g->name : "anon group", evsel_name(pa_file_evsel(f, g->first)));
		for (unsigned m = 1; m < g->nr; m++)
			fprintf(out, ", %s", evsel_name(pa_file_evsel(f, g->first + m)));
		fprintf(out, " }'\n");
	}
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", period);
}

/* perf writes each header cell through a 1024-byte buffer: a column wider
 * than that has its name padded to 1023 characters only (the dots below
 * go the whole width). */
#define HEADER_CELL_MAX 1023

static void print_column_header(struct pa_report *r, FILE *out, const int *width, const bool *elide)
{
	bool self = r->cgs && r->cg.children && !pa_report_strict_fields(r);
	const char *sep = " ";
	fputc('#', out);
	for (unsigned c = 0; c < r->nr_cols; c++) {
		if (elide[c])
			continue;
		int w = width[c] < HEADER_CELL_MAX ? width[c] : HEADER_CELL_MAX;
		fprintf(out, right_aligned(r->cols[c]) ? "%s%*.*s" : "%s%-*.*s", sep, w, w,
		        col_header(r->cols[c], self));
		sep = "  ";
	}
	fputs("\n#", out);
	sep = " ";
	for (unsigned c = 0; c < r->nr_cols; c++) {
		if (elide[c])
			continue;
		fputs(sep, out);
		for (int i = 0; i < width[c]; i++)
			fputc('.', out);
		sep = "  ";
	}
	fputs("\n#\n", out);
}

/* perf computes an entry's srcline lazily, when a comparison reaches that
 * key: only for samples that tie with another on every earlier key. The
 * others get it at print time, cut to the column width the first ones set. */
static int prefix_cmp(const void *pa, const void *pb, void *ctx)
{
	return collapse_cmp(*(const struct row *const *)pa, *(const struct row *const *)pb, ctx);
}

static int mark_late_srclines(struct pa_report *r, struct row *rows, size_t nr, unsigned nr_members)
{
	unsigned p = 0;
	while (p < r->nr_keys && r->keys[p] != K_SRCLINE)
		p++;
	if (p == r->nr_keys || !nr)
		return 0;
	struct row **v = malloc(nr * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		v[i] = &rows[i];
	/* the keys before the srcline */
	struct rows_ctx ctx = {r->keys, p, 1};
	qsort_r(v, nr, sizeof(*v), prefix_cmp, &ctx);
	for (size_t i = 0; i < nr;) {
		size_t j = i + 1;
		while (j < nr && prefix_cmp(&v[i], &v[j], &ctx) == 0)
			j++;
		/* a second sample with the same earlier keys is a comparison */
		uint64_t samples = 0;
		for (size_t k = i; k < j; k++)
			if (v[k]->e && r->cg.children) /* (every sample it got) */
				samples += v[k]->e->acc_count;
			else
				for (unsigned m = 0; m < nr_members; m++)
					samples += v[k]->vals ? v[k]->vals[2 * m + 1] : v[k]->count;
		/* (with --children, perf compares a sample's own entry with the
		 * first entry of its call chain, the same address: a row with
		 * samples of its own has its srcline then) */
		for (size_t k = i; k < j; k++)
			v[k]->k.src_late = samples < 2 && !(v[k]->e && r->cg.children &&
			                                    (v[k]->e->count || v[k]->e->src_given));
		i = j;
	}
	free(v);
	return 0;
}

static int index_printed_refs(struct pa_report *r, const struct row *rows, size_t nr)
{
	const struct cg_entry **es = malloc((nr + 1) * sizeof(*es));
	if (!es)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		es[i] = rows[i].e;
	int ret = pa_cg_index_refs(r, es, nr);
	free(es);
	return ret;
}

static int print_group(struct pa_report *r, FILE *out, const struct group *g, const bool *elide)
{
	size_t nr, nr_all;
	uint64_t *vals, nf[2 * 64];
	struct row *rows = r->cgs ? build_cg_rows(r, g->first, g->nr, &nr, &vals, nf)
	                          : build_rows(r, g->first, g->nr, &nr, &nr_all, &vals, nf);
	if (!rows)
		return -ENOMEM;
	if (mark_late_srclines(r, rows, nr, g->nr)) {
		free(vals);
		free(rows);
		return -ENOMEM;
	}
	uint64_t totals[64];
	for (unsigned m = 0; m < g->nr; m++) {
		totals[m] = r->opts.relative ? nf[2 * m] : r->total_period[g->first + m];
	}
	int width[16];
	bool any_unresolved = false, unres_from = false;
	for (unsigned c = 0; c < r->nr_cols; c++) {
		width[c] = base_width(r->cols[c]) * (right_aligned(r->cols[c]) ? (int)g->nr : 1);
		for (size_t i = 0; i < nr; i++) {
			int w = (int)natural_width(r->cols[c], &rows[i]);
			if (w > width[c])
				width[c] = w;
			/* perf: any entry without a symbol, sym a key or not */
			any_unresolved |= !rows[i].k.sym;
			unres_from |= rows[i].k.branch && !rows[i].k.sym_from;
		}
	}
	for (unsigned c = 0; c < r->nr_cols; c++) {
		int k = r->cols[c];
		/* the same for a branch's source and target, whose address
		 * columns widen to an unresolved one's "[l] 0x..." only */
		bool unres = k == K_DSO_FROM || k == K_ADDR_FROM ? unres_from : any_unresolved;
		if ((k == K_DSO || k == K_DSO_FROM || k == K_DSO_TO) && unres &&
		    !r->filter.nr_dsos && width[c] < PA_UNRESOLVED_WIDTH)
			width[c] = PA_UNRESOLVED_WIDTH;
		if ((k == K_ADDR_FROM || k == K_ADDR_TO) && unres &&
		    width[c] < PA_UNRESOLVED_WIDTH + 6)
			width[c] = PA_UNRESOLVED_WIDTH + 6;
	}
	if (!r->opts.quiet) {
		print_section_header(r, out, g, nf);
		print_column_header(r, out, width, elide);
	}
	unsigned last = 0;
	for (unsigned c = 0; c < r->nr_cols; c++)
		if (!elide[c])
			last = c;
	bool children = r->cgs && r->cg.children;
	if (r->cgs && index_printed_refs(r, rows, nr)) {
		free(vals);
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		uint64_t v = children ? rows[i].acc_period : rows[i].period;
		double pct = totals[0] ? 100.0 * (double)v / (double)totals[0] : 0;
		if (r->opts.percent_limit > 0 && pct < r->opts.percent_limit)
			continue;
		char line[4096];
		size_t n = 1;
		line[0] = ' ';
		if (r->branch)
			pa_branch_shown_mispredict(r, &rows[i].k);
		for (unsigned c = 0; c < r->nr_cols && n + 3 < sizeof(line); c++) {
			if (elide[c])
				continue;
			line[n++] = ' ';
			if (c)
				line[n++] = ' ';
			if (right_aligned(r->cols[c]))
				n += format_values(line + n, sizeof(line) - n, r->cols[c], &rows[i],
				                   g->nr, totals, width[c], r->opts.children);
			else
				n += (size_t)format_cell(line + n, sizeof(line) - n, r->cols[c],
				                         &rows[i], width[c], 0, c == last);
		}
		line[n < sizeof(line) ? n : sizeof(line) - 1] = 0;
		fputs(line, out);
		fputc('\n', out);
		if (r->cgs && rows[i].e &&
		    pa_cg_print_chain(r, out, rows[i].e, r->total_period[g->first], v)) {
			free(vals);
			free(rows);
			return -ENOMEM;
		}
	}
	fprintf(out, "\n\n");
	free(vals);
	free(rows);
	return 0;
}

/* Events are shown by group (GROUP_DESC), as perf's report does. */
static size_t make_groups(struct pa_report *r, struct group *gs, size_t max)
{
	struct pa_file *f = pa_session_file(r->session);
	const struct pa_header_info *h = pa_file_header(f);
	unsigned nev = pa_file_nr_evsels(f);
	size_t n = 0;
	for (unsigned e = 0; e < nev && n < max;) {
		struct group g = {e, 1, NULL};
		for (uint32_t i = 0; i < h->nr_groups; i++) {
			const struct pa_group_desc *d = &h->groups[i];
			if (d->leader_idx == e && d->nr_members > 1 && e + d->nr_members <= nev &&
			    d->nr_members <= 64) {
				g.nr = d->nr_members;
				g.name =
				    d->name && strcmp(d->name, "{anon_group}") ? d->name : NULL;
			}
		}
		gs[n++] = g;
		e += g.nr;
	}
	return n;
}

int pa_report_print(struct pa_report *r, FILE *out, struct pa_err *err)
{
	bool elide[16];
	int ret = r->chains ? pa_cg_build(r) : 0;
	if (ret && r->limit_hit) /* (callers pass it up as -ENOMEM) */
		return pa_report_limit_error(r, err);
	if (ret)
		return pa_err_set(err, -ENOMEM, "out of memory");
	compute_elide(r, elide);
	if (!r->opts.quiet)
		fprintf(out, "# To display the perf.data header info, please use "
		             "--header/--header-only options.\n#\n");
	/* what an elided column would have said; perf prints it even with -q */
	for (unsigned c = 0; c < r->nr_cols; c++) {
		size_t n;
		char **f = filter_for(r, r->cols[c], &n);
		if (n == 1)
			fprintf(out, "# %s: %s\n",
			        r->cols[c] == K_SYM   ? "symbol"
			        : r->cols[c] == K_DSO ? "dso"
			                              : "comm",
			        f[0]);
	}
	if (!r->opts.quiet)
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n",
		        pa_session_nr_lost_samples(r->session));
	struct group gs[256];
	size_t ng = make_groups(r, gs, PA_ARRAY_SIZE(gs));
	for (size_t i = 0; i < ng; i++) {
		uint64_t samples = 0;
		for (unsigned m = 0; m < gs[i].nr; m++)
			samples +=
			    gs[i].first + m < r->nr_evsels ? r->total_samples[gs[i].first + m] : 0;
		if (!samples && ng > 1)
			continue;
		if (print_group(r, out, &gs[i], elide))
			return r->limit_hit ? pa_report_limit_error(r, err)
			                    : pa_err_set(err, -ENOMEM, "out of memory");
	}
	/* perf frames a random tip here; the frame without the tip */
	if (!r->opts.quiet)
		fprintf(out, "#\n#\n");
	if (r->branch)
		pa_branch_print_stats(r, out);
	return 0;
}
