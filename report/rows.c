/* rows.c - perf report's hist entries as rows: buckets (or call-graph
 * entries) collapsed by the sort keys, the members of an event group
 * paired, and perf's three hist-entry trees replayed for their order. */
#include "rows.h"
#include "util/rbtree.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int collapse_key(int k, const struct row *a, const struct row *b)
{
	return pa_keys[k].collapse ? pa_keys[k].collapse(&a->k, &b->k) : 0;
}

int pa_rows_collapse_cmp(const struct row *a, const struct row *b, const struct rows_ctx *ctx)
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

/* A comparison of perf's reached key k of an entry: a lazily computed
 * key (srcline_from, srcline_to) is known from then on, at state at most
 * (enum pa_lazy); so is the srcline (perf 6.1's se_cmp computes it for
 * both entries), whose other ways to be known print.c adds. */
static void lazy_reached(int k, struct hkey *h, enum pa_lazy at)
{
	if (k == K_SRCLINE && at == PA_LAZY_SIZED)
		h->src_sized = true;
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
	int c = pa_rows_collapse_cmp(a, b, is->ctx);
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
		if (!prev || prev->member != w->member || pa_rows_collapse_cmp(prev, w, &ctx))
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

/* perf prints a data symbol (STT_OBJECT: an ip in a variable, which a
 * chain unwound by frame pointers through code without them can reach)
 * as NAME+0xOFF, OFF the entry's address (he_ip: a chain entry's raw ip,
 * a sample's map-relative address) minus the symbol's load address:
 * location li's offset in such a symbol, else 0. A chain entry that
 * --ignore-callees made the sample's location has its map-relative
 * address there, and perf's offset wraps around by the map's load bias
 * (a sample's own location keeps no raw ip to tell it: report.h). */
static uint64_t object_off(struct pa_report *r, uint32_t li, uint64_t he_ip)
{
	const struct pa_loc *l = &pa_report_locs(r)[li];
	if (!l->sym || l->sym->type != STT_OBJECT)
		return 0;
	uint64_t off = pa_resolver_sym_offset(r->res, l);
	return l->ip && he_ip != l->ip ? off - (l->ip - l->addr) : off;
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

/* Bucket b's earliest sample time (UINT64_MAX: none noted). */
static uint64_t first_time_of(const struct pa_report *r, uint32_t b)
{
	return b < r->cap_first_time ? r->first_time[b] : UINT64_MAX;
}

static int first_time_cmp(const void *pa, const void *pb, void *arg)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = first_time_of(arg, a->seq), y = first_time_of(arg, b->seq);
	if (x != y)
		return x < y ? -1 : 1;
	return PA_CMP(a->seq, b->seq);
}

/* A summing report's rows (one per bucket, seq its index, in the order
 * the buckets were made: the file's within a round) in the order of
 * their buckets' earliest samples, which is the order perf makes its
 * entries in; seq then that order. */
static void in_time_order(const struct pa_report *r, struct row *rows, size_t n)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = first_time_of(r, rows[i - 1].seq) <= first_time_of(r, rows[i].seq);
	if (!sorted)
		qsort_r(rows, n, sizeof(*rows), first_time_cmp, (void *)r);
	for (size_t i = 0; i < n; i++)
		rows[i].seq = (uint32_t)i;
}

/* Rows of one event group (members first..first+nr-1; a lone event is a
 * group of one): buckets -> collapsed rows in output order. *vals_out
 * holds the per-member sums the rows point into, nf the non-filtered
 * totals (member_nf_totals). *nr rows are printed; the others, up to
 * *nr_all, are filtered entries (hidden) or rows merged into another. */
struct row *pa_rows_build(struct pa_report *r, unsigned first, unsigned nr_members, size_t *nr,
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
		                .k.off = object_off(r, b->loc, l->addr),
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
	if (r->first_time)
		in_time_order(r, rows, n);
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
	struct row *rows = pa_rows_build(r, evsel, 1, &m, &all, &vals, nf);
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

static int idx_key_cmp(const void *pa, const void *pb, void *arg)
{
	const struct idx_sort *is = arg;
	return pa_rows_collapse_cmp(&is->rows[*(const uint32_t *)pa],
	                            &is->rows[*(const uint32_t *)pb], is->ctx);
}

/* The call-graph entries of the group's events as rows (self values), in
 * creation order; how many. */
static size_t cg_entry_rows(struct pa_report *r, unsigned first, unsigned nr_members,
                            struct row *rows)
{
	size_t ne = pa_cg_nr_entries(r), n = 0;
	for (size_t i = 0; i < ne; i++) {
		const struct cg_entry *e = pa_cg_entry(r, i);
		if (e->evsel < first || e->evsel >= first + nr_members)
			continue;
		if (e->evsel != first && nr_members == 1)
			continue;
		rows[n++] = (struct row){.k.comm = e->comm,
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
		                         .k.off = object_off(r, e->loc, e->addr),
		                         .k.verbose = r->opts.verbose_columns,
		                         .k.origin = origin_of(r, e->dso),
		                         .e = e,
		                         .thread = e->thread,
		                         .max_depth = e->max_depth,
		                         .hidden = e->filtered,
		                         .period = e->period,
		                         .count = e->count,
		                         .seq = (uint32_t)i};
	}
	return n;
}

/* The lowest leader row (index into rows) with w's key, or -1; lead: the
 * leader rows' indexes sorted by key. */
static long first_leader(const struct row *rows, const uint32_t *lead, size_t n_lead,
                         const struct row *w, const struct rows_ctx *ctx)
{
	size_t lo = 0, hi = n_lead;
	while (lo < hi) { /* the first sorted position not below w */
		size_t mid = lo + (hi - lo) / 2;
		if (pa_rows_collapse_cmp(&rows[lead[mid]], w, ctx) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	long found = -1;
	for (size_t i = lo; i < n_lead && !pa_rows_collapse_cmp(&rows[lead[i]], w, ctx); i++)
		if (found < 0 || lead[i] < (uint32_t)found)
			found = lead[i];
	return found;
}

/* A group's rows: the leader's rows (rows[0, n_lead)) first, then one
 * row for each key that only members have (perf's hists__link dummy: no
 * value, no call graph of its own), into all (n rows' room); each member
 * row adds its values to the lowest such row with its key. vals: 3 *
 * nr_members per row, zeroed. *m: the rows made. */
static int pair_members(const struct row *rows, size_t n_lead, size_t n, unsigned nr_members,
                        const struct rows_ctx *ctx, uint64_t *vals, struct row *all, size_t *m)
{
	size_t nm = n - n_lead, made = n_lead;
	uint32_t *idx = malloc((nm + 1) * sizeof(*idx)),
	         *lead = malloc((n_lead + 1) * sizeof(*lead));
	int ret = -ENOMEM;
	if (!idx || !lead)
		goto out;
	struct idx_sort is = {rows, ctx};
	for (size_t i = 0; i < nm; i++)
		idx[i] = (uint32_t)(n_lead + i);
	qsort_r(idx, nm, sizeof(*idx), idx_key_cmp, &is);
	for (size_t i = 0; i < n_lead; i++)
		lead[i] = (uint32_t)i;
	qsort_r(lead, n_lead, sizeof(*lead), idx_key_cmp, &is);
	for (size_t i = 0; i < n_lead; i++) {
		all[i] = rows[i];
		all[i].vals = vals + i * 3 * nr_members;
		all[i].vals[0] = rows[i].e->period;
		all[i].vals[1] = rows[i].e->count;
		all[i].vals[2 * nr_members] = rows[i].e->acc_period;
	}
	size_t dest = 0;
	for (size_t k = 0; k < nm; k++) {
		const struct row *w = &rows[idx[k]];
		/* (member rows of one key are neighbours in idx) */
		if (!k || pa_rows_collapse_cmp(&rows[idx[k - 1]], w, ctx)) {
			long found = first_leader(rows, lead, n_lead, w, ctx);
			if (found < 0) {
				all[made] = *w;
				all[made].e = NULL;
				all[made].member = 0;
				all[made].max_depth = 0; /* its callchain is empty */
				all[made].vals = vals + made * 3 * nr_members;
				found = (long)made++;
			}
			dest = (size_t)found;
		}
		unsigned mb = w->member;
		all[dest].vals[2 * mb] += w->e->period;
		all[dest].vals[2 * mb + 1] += w->e->count;
		all[dest].vals[2 * nr_members + mb] += w->e->acc_period;
	}
	*m = made;
	ret = 0;
out:
	free(idx);
	free(lead);
	return ret;
}

/* Rows of call-graph mode: perf's hist entries, in the order perf's
 * output tree gives them. Filtered entries take part in the trees (perf
 * keeps them there) and are dropped at the end. In a group, members'
 * entries pair with the leader's by key; the others become entries of the
 * leader with no value of its own (perf's hists__link dummies), added to
 * its collapsed tree after its own. */
struct row *pa_rows_build_cg(struct pa_report *r, unsigned first, unsigned nr_members, size_t *nr,
                             uint64_t **vals_out, uint64_t *nf)
{
	size_t ne = pa_cg_nr_entries(r), n = 0, n_lead = 0, m = 0, got = 0;
	struct row *rows = malloc((ne + 1) * sizeof(*rows)), *all = NULL;
	uint32_t *ord = malloc((ne + 1) * sizeof(*ord));
	uint64_t *vals = calloc(ne * 3 * nr_members + 1, sizeof(*vals));
	if (!rows || !ord || !vals)
		goto fail;
	n = cg_entry_rows(r, first, nr_members, rows);
	if (member_nf_totals(r, rows, n, nr_members, nf))
		goto fail;
	/* the leader's entries first, each member's after, in creation order */
	for (size_t i = 0; i < n; i++)
		if (!rows[i].member) {
			struct row t = rows[n_lead];
			rows[n_lead++] = rows[i];
			rows[i] = t;
		}
	struct rows_ctx ctx = {r->keys, r->nr_keys, 1};
	if (nr_members > 1) {
		if (!(all = malloc((n + 1) * sizeof(*all))) ||
		    pair_members(rows, n_lead, n, nr_members, &ctx, vals, all, &m))
			goto fail;
		free(rows);
		rows = all;
		all = NULL;
	} else {
		m = n_lead;
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
	/* (r->ordered: entries perf split may merge again in its collapse) */
	if (replay_trees_from(r, rows, n_lead, m, nr_members, r->ordered, ord, &got) ||
	    rows_in_order(rows, m, ord, got))
		goto fail;
	free(ord);
	*nr = got;
	*vals_out = vals;
	return rows;
fail:
	free(all);
	free(rows);
	free(ord);
	free(vals);
	return NULL;
}
