/* cgprint.c - an entry's call graph as perf report --stdio prints it
 * (graph, fractal, flat, folded, caller or callee order), built from the
 * entry's cursors (callgraph.c) when the entry is printed. */
#include "cgprint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- partition mode (the two modes: cgprint.h) ---- */

static int gnode_key_cmp(const void *pa, const void *pb, void *arg)
{
	const struct gnode *a = pa, *b = pb;
	const struct cg_state *c = arg;
	const struct mkey *x = &c->m[a->match], *y = &c->m[b->match];
	if (x->has_sym == MK_INLINE && y->has_sym == MK_INLINE) {
		int d = strcmp(mkey_name(x), mkey_name(y));
		return d > 0 ? -1 : d < 0;
	}
	if (x->dso_ord != y->dso_ord)
		return x->dso_ord > y->dso_ord ? -1 : 1;
	uint64_t u = x->has_sym && y->has_sym ? x->v : a->first_ip;
	uint64_t w = x->has_sym && y->has_sym ? y->v : b->first_ip;
	if (u != w)
		return u > w ? -1 : 1;
	return 0;
}

static int gnode_cumul_cmp(const void *pa, const void *pb)
{
	const struct gnode *a = pa, *b = pb;
	if (a->cumul != b->cumul)
		return a->cumul > b->cumul ? -1 : 1;
	return PA_CMP(a->seq, b->seq);
}

static uint32_t el_match(const struct printer *pr, const struct ch *h, uint32_t depth)
{
	return pa_report_locs(pr->r)[h->el[depth]].match - 1;
}

/* chs[0, n) in the order of their keys, equal keys in their order: each
 * (key, position) is one u64, sorted by a byte of the key a pass (least
 * significant first, each pass stable), bytes all keys share skipped, then
 * the elements moved once. (glibc's qsort of these 40-byte elements took
 * an indirect merge sort and a comparator call per comparison: a third of
 * a deep C++ recording's --children report; bench/README.md, "Call graph
 * partition".) 0 or -ENOMEM. */
static int sort_by_key(struct printer *pr, struct ch *chs, size_t n)
{
	if (n < 16) { /* insertion sort: stable, and best for few */
		for (size_t i = 1; i < n; i++) {
			struct ch x = chs[i];
			size_t j = i;
			for (; j > 0 && chs[j - 1].key > x.key; j--)
				chs[j] = chs[j - 1];
			chs[j] = x;
		}
		return 0;
	}
	if (n > pr->cap_sort) {
		uint64_t *v = realloc(pr->sort_v, 2 * n * sizeof(*v));
		if (v)
			pr->sort_v = v;
		struct ch *t = realloc(pr->sort_ch, n * sizeof(*t));
		if (t)
			pr->sort_ch = t;
		if (!v || !t)
			return -ENOMEM;
		pr->cap_sort = n;
	}
	uint64_t *a = pr->sort_v, *b = a + n;
	uint32_t any = 0, all = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		a[i] = (uint64_t)chs[i].key << 32 | i;
		any |= chs[i].key;
		all &= chs[i].key;
	}
	for (unsigned shift = 32; shift < 64; shift += 8) {
		if (!((any ^ all) >> (shift - 32) & 0xff))
			continue; /* the same byte in every key */
		size_t at[257] = {0};
		for (size_t i = 0; i < n; i++)
			at[(a[i] >> shift & 0xff) + 1]++;
		for (unsigned d = 1; d < 257; d++)
			at[d] += at[d - 1];
		for (size_t i = 0; i < n; i++)
			b[at[a[i] >> shift & 0xff]++] = a[i];
		uint64_t *x = a;
		a = b;
		b = x;
	}
	for (size_t i = 0; i < n; i++)
		pr->sort_ch[i] = chs[(uint32_t)a[i]];
	memcpy(chs, pr->sort_ch, n * sizeof(*chs));
	return 0;
}

/* Sort chs[lo, hi) (all longer than depth) into groups by the match of
 * element depth; returns the groups in perf's rb_root_in order (the larger
 * match key first). */
static struct gnode *split(struct printer *pr, uint32_t lo, uint32_t hi, uint32_t depth, size_t *nr)
{
	struct ch *chs = pr->chs;
	const struct cg_state *c = pr->c;
	bool sorted = true;
	for (uint32_t i = lo; i < hi; i++) {
		chs[i].key = el_match(pr, &chs[i], depth);
		sorted &= i == lo || chs[i - 1].key <= chs[i].key;
	}
	if (!sorted && sort_by_key(pr, chs + lo, hi - lo))
		return NULL;
	size_t cap = 8, n = 0;
	struct gnode *v = malloc(cap * sizeof(*v));
	if (!v)
		return NULL;
	for (uint32_t i = lo; i < hi;) {
		uint32_t j = i;
		while (j < hi && chs[j].key == chs[i].key)
			j++;
		if (n == cap) {
			void *q = realloc(v, 2 * cap * sizeof(*v));
			if (!q) {
				free(v);
				return NULL;
			}
			v = q;
			cap *= 2;
		}
		struct gnode g = {.lo = i, .hi = j, .depth = depth, .len = 1, .match = chs[i].key};
		uint32_t first = i;
		for (uint32_t k = i; k < j; k++) {
			g.cumul += chs[k].period;
			g.ccount += chs[k].count;
			if (chs[k].ord < chs[first].ord)
				first = k;
		}
		g.first_ip = pa_report_locs(pr->r)[chs[first].el[depth]].ip;
		v[n++] = g;
		i = j;
	}
	qsort_r(v, n, sizeof(*v), gnode_key_cmp, (void *)c);
	/* siblings from one DSO (adjacent now) with and without a symbol:
	 * perf's order is not an order any more */
	size_t nr_inline = 0;
	for (size_t a = 0; a < n; a++)
		nr_inline += c->m[v[a].match].has_sym == MK_INLINE;
	for (size_t a = 1; a < n && !pr->inconsistent; a++) {
		const struct mkey *x = &c->m[v[a - 1].match], *y = &c->m[v[a].match];
		pr->inconsistent = x->dso_ord == y->dso_ord && x->has_sym != y->has_sym;
	}
	/* inline frames (by name) beside others (by DSO and address): no
	 * order either */
	if (nr_inline && nr_inline < n)
		pr->inconsistent = true;
	for (size_t i = 0; i < n; i++)
		v[i].seq = (uint32_t)i;
	*nr = n;
	return v;
}

/* Extend g down its path: while no chain ends at its last element and all
 * go on to the same next element. Chains that end are moved first. */
static void extend(struct printer *pr, struct gnode *g)
{
	struct ch *chs = pr->chs;
	for (;;) {
		uint32_t last = g->depth + g->len - 1;
		uint32_t e = g->lo;
		for (uint32_t k = g->lo; k < g->hi; k++)
			if (chs[k].len == last + 1) {
				struct ch t = chs[k];
				chs[k] = chs[e];
				chs[e++] = t;
			}
		g->end_lo = e;
		if (e != g->lo)
			break;
		uint32_t m = el_match(pr, &chs[g->lo], last + 1);
		bool same = true;
		for (uint32_t k = g->lo + 1; k < g->hi && same; k++)
			same = el_match(pr, &chs[k], last + 1) == m;
		if (!same)
			break;
		g->len++;
	}
	g->hit = g->count = 0;
	for (uint32_t k = g->lo; k < g->end_lo; k++) {
		g->hit += chs[k].period;
		g->count += chs[k].count;
	}
	g->el = chs[g->lo].el + g->depth;
}

/* ---- either mode ---- */

/* All children of g (g NULL: the root's) in rb_root_in order, extended. */
static struct gnode *all_children(struct printer *pr, const struct gnode *g, size_t *nr)
{
	if (pr->exact)
		return pa_cgx_children_of(pr, g, nr);
	uint32_t lo = g ? g->end_lo : 0, hi = g ? g->hi : pr->nr_all;
	uint32_t depth = g ? g->depth + g->len : 0;
	if (lo >= hi) {
		*nr = 0;
		return malloc(sizeof(struct gnode));
	}
	return split(pr, lo, hi, depth, nr);
}

/* The children of g over min_hit, sorted as perf prints them. */
static struct gnode *children(struct printer *pr, const struct gnode *g, uint64_t min_hit,
                              size_t *nr)
{
	size_t n;
	struct gnode *v = all_children(pr, g, &n);
	if (!v)
		return NULL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].cumul >= min_hit)
			v[m++] = v[i];
	/* equal cumulated hits keep the rb_root_in order */
	qsort(v, m, sizeof(*v), gnode_cumul_cmp);
	if (!pr->exact)
		for (size_t i = 0; i < m; i++)
			extend(pr, &v[i]);
	*nr = m;
	return v;
}

/* perf's callchain_list__sym_name into its 1024-byte buffer (longer names
 * are cut there). */
#define NAME_BUF 1024

/* With -g address, perf prints an entry's srcline after its name. */
static const char *el_srcline(const struct printer *pr, uint32_t li)
{
	struct cg_state *c = pr->c;
	if (!pr->r->cg.address_key)
		return NULL;
	if (!c->cc_src &&
	    !(c->cc_src = calloc(pa_resolver_nr_locs(pr->r->res) + 1, sizeof(*c->cc_src))))
		return NULL;
	if (!c->cc_src[li])
		c->cc_src[li] = pa_resolver_chain_srcline(pr->r->res, &pa_report_locs(pr->r)[li]);
	return c->cc_src[li];
}

static const char *el_name(const struct printer *pr, uint32_t li, char *buf, size_t size)
{
	const struct pa_loc *l = &pa_report_locs(pr->r)[li];
	const char *src = l->sym ? el_srcline(pr, li) : NULL;
	/* (most are the symbol's name alone: no copy) */
	if (l->sym && !src && !l->sym->inlined && strnlen(l->sym->name, size) < size)
		return l->sym->name;
	if (l->sym)
		snprintf(buf, size, "%s%s%s%s", l->sym->name, src ? " " : "", src ? src : "",
		         l->sym->inlined ? " (inlined)" : "");
	else
		snprintf(buf, size, "%#" PRIx64, l->ip);
	return buf;
}

/* The value perf prints for a node, into buf (VALUE_BUF bytes); its
 * length. */
#define VALUE_BUF 64
static size_t format_value(const struct printer *pr, uint64_t period, uint64_t count,
                           uint64_t total, char *buf)
{
	int n;
	switch (pr->r->cg.value) {
	case CG_PERIOD:
		n = snprintf(buf, VALUE_BUF, "%" PRIu64, period);
		break;
	case CG_COUNT:
		n = snprintf(buf, VALUE_BUF, "%u", (unsigned)count);
		break;
	default:
		n = snprintf(buf, VALUE_BUF, "%.2f%%",
		             total ? (double)period * 100.0 / (double)total : 0.0);
		break;
	}
	return n <= 0 ? 0 : n < VALUE_BUF ? (size_t)n : VALUE_BUF - 1;
}

static void print_value(const struct printer *pr, uint64_t period, uint64_t count, uint64_t total)
{
	char buf[VALUE_BUF];
	fwrite(buf, 1, format_value(pr, period, count, total, buf), pr->out);
}

static void left_margin(FILE *out, int margin)
{
	fprintf(out, "            %*s", margin, "");
}

/* A graph line is made whole in pr->line and written at once: writing it
 * piece by piece (a call per column) was a sixth of a small report's time
 * (bench/README.md). The line starts with the left margin. */
static int line_start(struct printer *pr, int depth, int margin)
{
	struct pa_buf *l = &pr->line;
	l->len = 0;
	/* margin, a column per level, a value, a name of NAME_BUF at most */
	if (pa_buf_grow(l, 12 + (size_t)margin + 11 * (size_t)depth + VALUE_BUF + NAME_BUF + 1))
		return -ENOMEM;
	memset(l->data, ' ', 12 + (size_t)margin);
	l->len = 12 + (size_t)margin;
	return 0;
}

static void line_put(struct printer *pr, const char *s, size_t n)
{
	memcpy(pr->line.data + pr->line.len, s, n);
	pr->line.len += n;
}

static void line_end(struct printer *pr)
{
	pr->line.data[pr->line.len++] = '\n';
	fwrite(pr->line.data, 1, pr->line.len, pr->out);
}

static int graph_line(struct printer *pr, int depth, int mask, int margin)
{
	if (line_start(pr, depth, margin))
		return -ENOMEM;
	for (int i = 0; i < depth; i++)
		line_put(pr, mask & (1 << i) ? "|          " : "           ", 11);
	line_end(pr);
	return 0;
}

static int graph_entry(struct printer *pr, uint64_t cumul, uint64_t ccount, int depth, int mask,
                       int period_idx, uint64_t total, int margin, const char *name)
{
	if (line_start(pr, depth, margin))
		return -ENOMEM;
	for (int i = 0; i < depth; i++) {
		line_put(pr, mask & (1 << i) ? "|" : " ", 1);
		if (!period_idx && i == depth - 1) {
			char v[VALUE_BUF];
			line_put(pr, "--", 2);
			line_put(pr, v, format_value(pr, cumul, ccount, total, v));
			line_put(pr, "--", 2);
		} else {
			line_put(pr, "          ", 10);
		}
	}
	/* (el_name's names are cut to NAME_BUF, "[...]" is short) */
	size_t n = strnlen(name, NAME_BUF - 1);
	line_put(pr, name, n);
	line_end(pr);
	return 0;
}

static uint64_t min_hit_for(const struct printer *pr, uint64_t children_hit)
{
	if (pr->r->cg.mode == CG_FRACTAL) {
		/* perf: ceil(children_hit * min_percent / 100), without libm */
		double x = (double)children_hit * (pr->r->cg.min_percent / 100.0);
		uint64_t v = x > 0 ? (uint64_t)x : 0;
		return (double)v < x ? v + 1 : v;
	}
	return pr->min_hit;
}

/* perf's __callchain__fprintf_graph: the children of parent (NULL: the
 * entry's root). */
static int print_graph_level(struct printer *pr, const struct gnode *parent, uint64_t children_hit,
                             uint64_t children_count, uint64_t total, int depth, int mask,
                             int margin, size_t *printed)
{
	const struct cg_params *p = &pr->r->cg;
	size_t n;
	struct gnode *v = children(pr, parent, min_hit_for(pr, children_hit), &n);
	if (!v)
		return -ENOMEM;
	uint64_t remaining = total;
	int new_mask = mask;
	uint32_t entries = 0;
	long cumul_count = 0;
	bool any = false;
	char buf[NAME_BUF];
	for (size_t i = 0; i < n; i++) {
		struct gnode *g = &v[i];
		any = true;
		remaining -= g->cumul;
		cumul_count += (long)g->ccount;
		if (i + 1 == n && (p->mode != CG_FRACTAL || !remaining))
			new_mask &= ~(1 << (depth - 1));
		bool nomem = graph_line(pr, depth, mask, margin);
		for (uint32_t k = 0; k < g->len && !nomem; k++)
			nomem = graph_entry(pr, g->cumul, g->ccount, depth, new_mask, (int)k, total,
			                    margin, el_name(pr, g->el[k], buf, sizeof(buf)));
		if (nomem) {
			free(v);
			return -ENOMEM;
		}
		*printed += g->len;
		uint64_t ch_hit = g->cumul - g->hit, ch_count = g->ccount - g->count;
		uint64_t new_total = p->mode == CG_FRACTAL ? ch_hit : total;
		if (print_graph_level(pr, g, ch_hit, ch_count, new_total, depth + 1,
		                      new_mask | (1 << depth), margin, printed)) {
			free(v);
			return -ENOMEM;
		}
		if (++entries == p->print_limit)
			break;
	}
	if (p->mode == CG_FRACTAL && remaining && remaining != total) {
		bool show = true;
		uint64_t rc = 0;
		if (p->value == CG_COUNT && any) {
			long left = (long)children_count - cumul_count;
			show = left > 0;
			rc = show ? (uint64_t)left : 0;
		}
		if (show) {
			new_mask &= ~(1 << (depth - 1));
			/* perf 6.1 mallocs this fake symbol without clearing it,
			 * so it sometimes adds " (inlined)" (uninitialized bit) */
			if (graph_entry(pr, remaining, rc, depth, new_mask, 0, total, margin,
			                "[...]")) {
				free(v);
				return -ENOMEM;
			}
			(*printed)++;
		}
	}
	free(v);
	return 0;
}

static int print_graph(struct printer *pr, uint64_t total, uint64_t parent_samples)
{
	const struct cg_params *p = &pr->r->cg;
	FILE *out = pr->out;
	int margin = 0;
	size_t printed = 0;
	uint64_t root_hit = 0, root_count = 0;
	for (uint32_t i = 0; i < pr->nr_all; i++) {
		root_hit += pr->chs[i].period;
		root_count += pr->chs[i].count;
	}
	size_t n;
	struct gnode *v = children(pr, NULL, min_hit_for(pr, root_hit), &n);
	if (!v)
		return -ENOMEM;
	struct gnode single, *under = NULL;
	uint64_t children_hit = root_hit, children_count = root_count;
	if (n && !(n > 1 || v[0].cumul != parent_samples)) {
		/* a single root: no percentage, one level less */
		single = v[0];
		bool started = false;
		uint32_t entries = 0;
		char buf[NAME_BUF];
		for (uint32_t k = 0; k < single.len; k++) {
			if (k == 0 && p->skip_first)
				continue;
			if (!started) {
				left_margin(out, margin);
				fputs("|\n", out);
				left_margin(out, margin);
				fputs("---", out);
				margin += 3;
				started = true;
			} else {
				left_margin(out, margin);
			}
			fprintf(out, "%s\n", el_name(pr, single.el[k], buf, sizeof(buf)));
			printed++;
			if (++entries == p->print_limit)
				break;
		}
		under = &single;
		children_hit = single.cumul - single.hit;
		children_count = single.ccount - single.count;
	}
	free(v);
	if (p->mode == CG_FRACTAL)
		total = parent_samples;
	if (print_graph_level(pr, under, children_hit, children_count, total, 1, 1, margin,
	                      &printed))
		return -ENOMEM;
	if (printed)
		fputc('\n', out);
	return 0;
}

/* flat and folded: every node where chains end, over min_hit */
struct flat_item {
	struct gnode g;
	uint32_t seq;
	const uint32_t *path; /* partition: the chain, path = path[0, path_len) */
	uint32_t path_len;
};

struct flat_list {
	struct flat_item *v;
	size_t n, cap;
};

static int collect_flat(struct printer *pr, const struct gnode *g, struct flat_list *fl)
{
	/* perf's __sort_chain_flat: children first (rb_root_in order), then
	 * the node itself */
	size_t n;
	struct gnode *v = all_children(pr, g, &n);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct gnode *k = &v[i];
		if (pr->min_hit && k->cumul < pr->min_hit)
			continue; /* nothing below can reach it */
		if (!pr->exact)
			extend(pr, k);
		if (collect_flat(pr, k, fl)) {
			free(v);
			return -ENOMEM;
		}
		if (k->hit && k->hit >= pr->min_hit) {
			if (fl->n == fl->cap) {
				size_t cap = fl->cap ? 2 * fl->cap : 64;
				void *q = realloc(fl->v, cap * sizeof(*fl->v));
				if (!q) {
					free(v);
					return -ENOMEM;
				}
				fl->v = q;
				fl->cap = cap;
			}
			struct flat_item it = {.g = *k, .seq = (uint32_t)fl->n};
			if (!pr->exact) {
				it.path = pr->chs[k->lo].el;
				it.path_len = k->depth + k->len;
			}
			fl->v[fl->n++] = it;
		}
	}
	free(v);
	return 0;
}

static int flat_cmp(const void *pa, const void *pb)
{
	const struct flat_item *a = pa, *b = pb;
	if (a->g.hit != b->g.hit)
		return a->g.hit > b->g.hit ? -1 : 1;
	return PA_CMP(a->seq, b->seq);
}

/* perf's flat and folded output skip entries whose ip is a context
 * marker's (an unwinder's end-of-stack 0xffffffffffffffff). */
static bool hidden_el(const struct printer *pr, uint32_t li)
{
	const struct pa_loc *l = &pa_report_locs(pr->r)[li];
	return !l->sym && l->ip >= PA_CONTEXT_MAX;
}

/* Entries from the root to the end of the item, in cursor order. */
static void print_path(struct printer *pr, const struct flat_item *it, bool folded)
{
	char buf[NAME_BUF];
	bool first = true;
	if (!pr->exact) {
		for (uint32_t k = 0; k < it->path_len; k++) {
			if (hidden_el(pr, it->path[k]))
				continue;
			const char *name = el_name(pr, it->path[k], buf, sizeof(buf));
			if (folded)
				fprintf(pr->out, "%s%s", first ? "" : ";", name);
			else
				fprintf(pr->out, "                %s\n", name);
			first = false;
		}
		return;
	}
	/* exact: the ancestors' entries, root first */
	uint32_t chain[4096], depth = 0;
	for (uint32_t p = it->g.pn; p != UINT32_MAX && p != 0 && depth < 4096; p = pr->pn[p].parent)
		chain[depth++] = p;
	while (depth--) {
		const struct pn *p = &pr->pn[chain[depth]];
		for (uint32_t k = 0; k < p->val_nr; k++) {
			if (hidden_el(pr, p->val[k]))
				continue;
			const char *name = el_name(pr, p->val[k], buf, sizeof(buf));
			if (folded)
				fprintf(pr->out, "%s%s", first ? "" : ";", name);
			else
				fprintf(pr->out, "                %s\n", name);
			first = false;
		}
	}
}

static int print_flat(struct printer *pr, uint64_t total)
{
	const struct cg_params *p = &pr->r->cg;
	struct flat_list fl = {0};
	if (collect_flat(pr, NULL, &fl)) {
		free(fl.v);
		return -ENOMEM;
	}
	if (fl.n) /* qsort(NULL, 0) is undefined */
		qsort(fl.v, fl.n, sizeof(*fl.v), flat_cmp);
	for (size_t i = 0; i < fl.n; i++) {
		const struct flat_item *it = &fl.v[i];
		if (p->mode == CG_FLAT) {
			fputs("           ", pr->out);
			print_value(pr, it->g.cumul, it->g.ccount, total);
			fputc('\n', pr->out);
			print_path(pr, it, false);
			fputc('\n', pr->out);
		} else {
			print_value(pr, it->g.hit, it->g.count, total);
			fputc(' ', pr->out);
			print_path(pr, it, true);
			fputc('\n', pr->out);
		}
		if (i + 1 == p->print_limit)
			break;
	}
	free(fl.v);
	return 0;
}

static int print_any(struct printer *pr, uint64_t total, uint64_t parent)
{
	switch (pr->r->cg.mode) {
	case CG_GRAPH:
	case CG_FRACTAL:
		return print_graph(pr, total, parent);
	case CG_FLAT:
	case CG_FOLDED:
		return print_flat(pr, total);
	default:
		return 0;
	}
}

/* With an absolute threshold (graph, flat, folded) no node of an entry's
 * graph holds more than all its chains together: when they stay under it,
 * nothing would print. Most rows of a large profile are like that. */
static bool nothing_over(const struct pa_report *r, const struct cg_state *c, uint32_t lo,
                         uint32_t hi, uint64_t min_hit)
{
	if (r->cg.mode == CG_FRACTAL || !min_hit)
		return false;
	uint64_t sum = 0;
	for (uint32_t k = lo; k < hi && sum < min_hit; k++)
		sum += r->buckets[c->refs[k].bucket].period;
	return sum < min_hit;
}

bool pa_cg_render_shareable(const struct pa_report *r)
{
	return !r->cg.address_key; /* (el_srcline: looked up when first asked) */
}

/* The graph of pr into a memory stream: *buf, *len (0 or -ENOMEM). */
static int render_any(struct printer *pr, uint64_t total, uint64_t parent, char **buf, size_t *len)
{
	if (!(pr->out = open_memstream(buf, len)))
		return -ENOMEM;
	int ret = print_any(pr, total, parent);
	if (fclose(pr->out) && !ret)
		ret = -ENOMEM;
	pr->out = NULL;
	return ret;
}

bool pa_cg_graph_prints(const struct pa_report *r, const struct cg_entry *e)
{
	const struct cg_state *c = r->cgs;
	if (!c || !e->nr_refs || r->cg.mode == CG_NONE || !c->ref_off ||
	    !pa_cg_may_print_graph(r, e))
		return false;
	size_t ei = (size_t)(e - c->e);
	return !nothing_over(r, c, c->ref_off[ei], c->ref_off[ei + 1], pa_cg_entry_min_hit(r, e));
}

int pa_cg_render_chain(struct pa_report *r, const struct cg_entry *e, uint64_t total_period,
                       uint64_t parent_period, char **buf, size_t *len)
{
	struct cg_state *c = r->cgs;
	*buf = NULL;
	*len = 0;
	if (!pa_cg_graph_prints(r, e))
		return 0;
	size_t ei = (size_t)(e - c->e);
	uint32_t lo = c->ref_off[ei], hi = c->ref_off[ei + 1];
	uint64_t min_hit = pa_cg_entry_min_hit(r, e);
	struct ch *chs = malloc((hi - lo + 1) * sizeof(*chs));
	if (!chs)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t k = lo; k < hi; k++) {
		const struct cref *ref = &c->refs[k];
		const struct bcur *bc = &c->bcur[ref->bucket];
		const struct bucket *b = &r->buckets[ref->bucket];
		chs[n] = (struct ch){.el = c->pool + bc->off + ref->pos,
		                     .len = bc->n - ref->pos,
		                     .ord = n,
		                     .period = b->period,
		                     .count = b->count};
		n++;
	}
	struct printer pr = {.r = r, .c = c, .chs = chs, .nr_all = n, .min_hit = min_hit};
	/* the fast way first: it tells whether it was exact */
	int ret = render_any(&pr, total_period, parent_period, buf, len);
	if (!ret && pr.inconsistent) {
		/* perf's own tree, chain after chain */
		free(*buf);
		*buf = NULL;
		*len = 0;
		pr.exact = true;
		ret = pa_cgx_build(&pr);
		if (!ret)
			ret = render_any(&pr, total_period, parent_period, buf, len);
	}
	if (ret) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	free(pr.pn);
	free(pr.rb);
	free(pr.sort_v);
	free(pr.sort_ch);
	pa_buf_release(&pr.line);
	free(chs);
	return ret;
}
