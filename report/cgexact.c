/* cgexact.c - an entry's call graph built the way perf builds it, chain
 * after chain (callchain_append's radix tree of rb-trees), for the graphs
 * cgprint.c's partitioning cannot order as perf does (see cgprint.h). */
#include "cgprint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* perf's match_chain(new entry, existing entry): < 0 when the existing
 * one is smaller (MATCH_LT), 0 equal. */
static int match_entries(const struct printer *pr, uint32_t new_li, uint32_t old_li)
{
	const struct pa_loc *n = &pa_report_locs(pr->r)[new_li],
	                    *o = &pa_report_locs(pr->r)[old_li];
	if (n->sym && o->sym && (n->sym->inlined || o->sym->inlined) && !pr->r->cg.address_key) {
		int d = strcmp(o->sym->name, n->sym->name);
		return (d > 0) - (d < 0);
	}
	uint32_t dn = n->dso ? n->dso->idx + 1 : 0, dold = o->dso ? o->dso->idx + 1 : 0;
	if (dold != dn)
		return dold < dn ? -1 : 1;
	uint64_t a, b;
	if (n->sym && o->sym && !pr->r->cg.address_key) {
		a = o->sym->start;
		b = n->sym->start;
	} else {
		a = o->ip;
		b = n->ip;
	}
	return a == b ? 0 : a < b ? -1 : 1;
}

static int new_pn(struct printer *pr, uint32_t parent, const uint32_t *val, uint32_t nr,
                  uint32_t *out)
{
	if (pr->nr_pn == pr->cap_pn) {
		size_t cap = pr->cap_pn ? 2 * pr->cap_pn : 256;
		void *a = realloc(pr->pn, cap * sizeof(*pr->pn));
		if (!a)
			return -ENOMEM;
		pr->pn = a;
		void *b = realloc(pr->rb, cap * sizeof(*pr->rb));
		if (!b)
			return -ENOMEM;
		pr->rb = b;
		pr->cap_pn = cap;
	}
	pr->pn[pr->nr_pn] =
	    (struct pn){.val = val, .val_nr = nr, .parent = parent, .root_in = PA_RB_NIL};
	*out = (uint32_t)pr->nr_pn++;
	return 0;
}

static void rb_link(struct printer *pr, uint32_t parent_pn, uint32_t node, uint32_t at,
                    uint32_t *link)
{
	pr->rb[node] = (struct pa_rb_node){PA_RB_NIL, PA_RB_NIL, at, 1};
	*link = node;
	struct pa_rb t = {pr->rb, pr->pn[parent_pn].root_in, 0};
	pa_rb_insert_color(&t, node);
	pr->pn[parent_pn].root_in = t.root;
}

static int exact_append(struct printer *pr, uint32_t node, const uint32_t *el, uint32_t len,
                        uint64_t period, uint64_t count);

/* append_chain_children: find the child whose first entry matches el[0]. */
static int exact_children(struct printer *pr, uint32_t node, const uint32_t *el, uint32_t len,
                          uint64_t period, uint64_t count)
{
	uint32_t at = PA_RB_NIL, *link = &pr->pn[node].root_in;
	while (*link != PA_RB_NIL) {
		at = *link;
		int m = match_entries(pr, el[0], pr->pn[at].val[0]);
		if (!m) {
			int ret = exact_append(pr, at, el, len, period, count);
			if (ret)
				return ret;
			goto inc;
		}
		link = m < 0 ? &pr->rb[at].left : &pr->rb[at].right;
	}
	uint32_t child;
	if (new_pn(pr, node, el, len, &child))
		return -ENOMEM;
	pr->pn[child].hit = period;
	pr->pn[child].count = count;
	/* pn may have moved */
	link = at == PA_RB_NIL                                   ? &pr->pn[node].root_in
	       : match_entries(pr, el[0], pr->pn[at].val[0]) < 0 ? &pr->rb[at].left
	                                                         : &pr->rb[at].right;
	rb_link(pr, node, child, at, link);
inc:
	pr->pn[node].children_hit += period;
	pr->pn[node].children_count += count;
	return 0;
}

/* append_chain: el[0] matched node's first entry. */
static int exact_append(struct printer *pr, uint32_t node, const uint32_t *el, uint32_t len,
                        uint64_t period, uint64_t count)
{
	struct pn *p = &pr->pn[node];
	uint32_t i = 0;
	while (i < p->val_nr && i < len && !match_entries(pr, el[i], p->val[i]))
		i++;
	if (i < p->val_nr) {
		/* split: node keeps val[0, i), a new child takes the rest and
		 * node's children */
		uint32_t rest;
		if (new_pn(pr, node, p->val + i, p->val_nr - i, &rest))
			return -ENOMEM;
		p = &pr->pn[node];
		struct pn *q = &pr->pn[rest];
		q->root_in = p->root_in;
		for (uint32_t ch = pa_rb_first(&(struct pa_rb){pr->rb, q->root_in, 0});
		     ch != PA_RB_NIL; ch = pa_rb_next(&(struct pa_rb){pr->rb, q->root_in, 0}, ch))
			pr->pn[ch].parent = rest;
		q->hit = p->hit;
		q->count = p->count;
		q->children_hit = p->children_hit;
		q->children_count = p->children_count;
		p->val_nr = i;
		p->root_in = PA_RB_NIL;
		pr->rb[rest] = (struct pa_rb_node){PA_RB_NIL, PA_RB_NIL, PA_RB_NIL, 0};
		p->root_in = rest;
		p->children_hit = q->hit + q->children_hit;
		p->children_count = q->count + q->children_count;
		if (i < len) {
			p->hit = 0;
			p->count = 0;
			p->children_hit += period;
			p->children_count += count;
			uint32_t nb;
			if (new_pn(pr, node, el + i, len - i, &nb))
				return -ENOMEM;
			pr->pn[nb].hit = period;
			pr->pn[nb].count = count;
			uint32_t *link = match_entries(pr, el[i], pr->pn[rest].val[0]) < 0
			                     ? &pr->rb[rest].left
			                     : &pr->rb[rest].right;
			rb_link(pr, node, nb, rest, link);
		} else {
			p->hit = period;
			p->count = count;
		}
		return 0;
	}
	if (i == len) {
		p->hit += period;
		p->count += count;
		return 0;
	}
	return exact_children(pr, node, el + i, len - i, period, count);
}

static int ch_ord_cmp(const void *pa, const void *pb)
{
	return PA_CMP(((const struct ch *)pa)->ord, ((const struct ch *)pb)->ord);
}

int pa_cgx_build(struct printer *pr)
{
	uint32_t root;
	pr->nr_pn = 0;
	if (new_pn(pr, UINT32_MAX, NULL, 0, &root))
		return -ENOMEM;
	/* in the order perf appended them */
	qsort(pr->chs, pr->nr_all, sizeof(*pr->chs), ch_ord_cmp);
	for (uint32_t k = 0; k < pr->nr_all; k++) {
		const struct ch *h = &pr->chs[k];
		if (h->len && exact_children(pr, root, h->el, h->len, h->period, h->count))
			return -ENOMEM;
	}
	return 0;
}

static struct gnode exact_gnode(const struct printer *pr, uint32_t i, uint32_t seq)
{
	const struct pn *p = &pr->pn[i];
	return (struct gnode){.el = p->val,
	                      .len = p->val_nr,
	                      .hit = p->hit,
	                      .count = p->count,
	                      .cumul = p->hit + p->children_hit,
	                      .ccount = p->count + p->children_count,
	                      .seq = seq,
	                      .pn = i};
}

/* The children of g in perf's rb_root_in order (g NULL: the root's). */
struct gnode *pa_cgx_children_of(const struct printer *pr, const struct gnode *g, size_t *nr)
{
	uint32_t node = g ? g->pn : 0;
	struct pa_rb t = {pr->rb, pr->pn[node].root_in, 0};
	size_t n = 0;
	for (uint32_t ch = pa_rb_first(&t); ch != PA_RB_NIL; ch = pa_rb_next(&t, ch))
		n++;
	struct gnode *v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	n = 0;
	for (uint32_t ch = pa_rb_first(&t); ch != PA_RB_NIL; ch = pa_rb_next(&t, ch)) {
		v[n] = exact_gnode(pr, ch, (uint32_t)n);
		n++;
	}
	*nr = n;
	return v;
}
