/* cgprint.h - what printing a call graph (cgprint.c) and building one the
 * way perf does (cgexact.c) share. Included only by those two.
 *
 * Two ways to the same tree. The fast one partitions the entry's chains
 * level by level (only the levels printed: a branch under the threshold
 * is never expanded). It is exact when perf's rb-trees of children are
 * ordered consistently, which holds unless one DSO gives siblings both
 * with and without a symbol: perf's match_chain then compares symbol
 * starts with raw addresses, its tree may keep two nodes for one function
 * (or order them its own way), and the whole graph is rebuilt the way perf
 * builds it, chain after chain (cgexact.c).
 */
#ifndef PA_REPORT_CGPRINT_H
#define PA_REPORT_CGPRINT_H

#include "cg.h"
#include "util/rbtree.h"

/* One cursor of the entry being printed, from its start position. */
struct ch {
	const uint32_t *el; /* frame locs */
	uint32_t len;
	uint32_t key; /* scratch: match id of the element being partitioned */
	uint32_t ord; /* order of appending (perf keeps the first one's ip) */
	uint64_t period, count;
};

/* perf's radix tree node (exact mode). */
struct pn {
	const uint32_t *val; /* its entries (first inserted chain's) */
	uint32_t val_nr;
	uint32_t parent;  /* UINT32_MAX for the root */
	uint32_t root_in; /* rb-tree of children, PA_RB_NIL when none */
	uint64_t hit, count, children_hit, children_count;
};

/* A compressed node as printing sees it. */
struct gnode {
	const uint32_t *el; /* its entries */
	uint32_t len;
	uint64_t hit, count;    /* ending at its last element */
	uint64_t cumul, ccount; /* callchain_cumul_hits / _counts */
	uint32_t seq;           /* position in perf's rb_root_in order */
	/* partition mode */
	uint32_t lo, hi;   /* its chains (contiguous) */
	uint32_t depth;    /* of its first element */
	uint32_t end_lo;   /* chs[lo, end_lo) end at its last element */
	uint32_t match;    /* of its first element */
	uint64_t first_ip; /* raw ip of its first element, from the first chain appended */
	/* exact mode */
	uint32_t pn;
};

struct printer {
	struct pa_report *r;
	struct cg_state *c;
	FILE *out;
	struct ch *chs;
	uint32_t nr_all;
	uint64_t min_hit;  /* graph, flat, folded: absolute threshold */
	bool inconsistent; /* partition mode met mixed siblings */
	/* exact mode */
	bool exact;
	struct pn *pn;
	struct pa_rb_node *rb;
	size_t nr_pn, cap_pn;
	/* sort_by_key's scratch */
	uint64_t *sort_v;
	struct ch *sort_ch;
	size_t cap_sort;
	struct pa_buf line; /* a graph line being made */
};

/* cgexact.c: the tree of pr->chs as perf's callchain_append makes it
 * (pr->pn, pr->rb), and a node's children in its rb_root_in order (g
 * NULL: the root's; malloc'd, *nr of them). */
int pa_cgx_build(struct printer *pr);
struct gnode *pa_cgx_children_of(const struct printer *pr, const struct gnode *g, size_t *nr);

#endif
