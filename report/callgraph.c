/* callgraph.c - perf report's hist entries with call graphs: --children
 * accumulation and the stdio call-graph layouts (graph, fractal, flat,
 * folded), computed from buckets after the stream.
 *
 * For each bucket, in the order buckets were created (so that an entry's
 * thread is the one of the first sample that made it, as in perf), the
 * bucket's raw stack becomes perf's callchain cursor (caller or callee
 * order, --max-stack, --parent, --ignore-callees), kept once in a pool. The
 * bucket's samples then go to their self entry with the whole cursor, and
 * with --children to one entry per cursor position (duplicates within a
 * sample skipped) with the cursor from that position: what perf's
 * hist_entry_iter does sample by sample, done once per bucket with summed
 * periods, which gives the same sums and trees since perf's
 * callchain_append is additive. An entry only records references
 * (bucket, position) to the cursors it got.
 *
 * Graphs are built when an entry is printed, level by level, by
 * partitioning its cursors on their next entry's match id (perf's
 * CCKEY_FUNCTION: same DSO and symbol, or same DSO and address without a
 * symbol; an inline frame by its name alone). perf's radix tree is the
 * path-compressed form of that trie; a branch below the threshold is never
 * printed and never built. Sibling
 * order follows perf: the larger cumulated period first, equal ones in the
 * order of perf's rb-tree of children (match_chain's order, descending).
 */
#include "internal.h"
#include "util/rbtree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct mkey {
	uint32_t dso_ord; /* 0: no DSO; else dso idx + 1 (perf compares dso pointers) */
	uint32_t has_sym; /* MK_* */
	uint64_t v; /* symbol start, the raw ip, or an inline frame's interned name */
};

/* What match_chain compares: the symbol (DSO and start), the raw ip
 * without one, or an inline frame's name alone (perf compares inlined
 * frames by name, whatever their DSO). */
enum { MK_IP, MK_SYM, MK_INLINE };

static const char *mkey_name(const struct mkey *k)
{
	return (const char *)(uintptr_t)k->v;
}

/* A bucket's cursor in the pool. */
struct bcur {
	uint32_t off, n;
};

/* A reference from an entry to a cursor: bucket and start position. */
struct cref {
	uint32_t bucket, pos;
};

struct cg_state {
	struct cg_entry *e;
	size_t nr, cap;
	uint32_t *table;
	size_t table_cap;

	struct mkey *m;
	size_t nr_m, cap_m;
	uint32_t *mtable;
	size_t mtable_cap;

	/* content-interned strings (comms, parent names) */
	const char **str;
	size_t nr_str, cap_str;
	uint32_t *stable;
	size_t stable_cap;
	struct pa_u64map comm_canon; /* comm pointer -> interned */

	uint64_t *cc_total, *cc_total_nf; /* per evsel */
	unsigned nr_evsels;

	/* cursors, and who refers to them */
	uint32_t *pool;
	size_t nr_pool, cap_pool;
	struct bcur *bcur; /* by bucket */
	uint32_t *bent;    /* per bucket position (+1 for self): entry, or UINT32_MAX */
	size_t nr_bent, cap_bent;
	uint32_t *bent_off; /* by bucket */
	uint32_t *ref_off;  /* by entry: refs in [ref_off[e], ref_off[e + 1]) */
	struct cref *refs;  /* of the entries pa_cg_index_refs was given */
	size_t nr_refs_indexed;

	uint8_t *parent_hit, *ignore_hit; /* per loc: 0 unknown, 1 match, 2 no */
	const char **ip_src; /* per loc, with the srcline key: its chain entry's */
	const char **cc_src; /* per loc, for -g address: what follows its name */
	bool sym_key;        /* the sym key is one (perf's quick duplicate check) */
	uint32_t *cursor, *he_cache;
	size_t cap_cursor;
	struct memo *memo;      /* per loc: its chain entry for the last context */
	struct memo *self_memo; /* per loc: its sample (self) entry, likewise */

	/* r->ordered: perf's entries_in of each event, searched as perf
	 * does, sample by sample (findnew_entry); gen counts the entries
	 * made, ents the entries each bucket added its samples to (the self
	 * entry first) */
	struct pa_rb *etree;
	uint64_t gen;
	uint32_t *ents;
	size_t nr_ents, cap_ents;
	size_t nr_he_cache; /* the last add_bucket's entries, in he_cache */
	uint32_t nr_adds;   /* add_bucket calls: an entry's seen mark */
};

/* The children entry a chain location led to, and the sample context it
 * was for: what entry_eq compares besides the location's DSO, symbol and
 * address. Buckets of one thread follow each other, so most lookups of a
 * location repeat the last one. */
struct memo {
	const char *comm, *parent;
	int32_t tid;
	uint32_t cpu;
	unsigned evsel;
	uint32_t entry; /* + 1; 0: none yet */
};

/* ---- interning ---------------------------------------------------------- */

static uint64_t str_hash_idx(void *ctx, uint32_t i)
{
	return pa_hash_str(((struct cg_state *)ctx)->str[i]);
}

static const char *intern_str(struct cg_state *c, const char *s)
{
	if (pa_index_table_grow(&c->stable, &c->stable_cap, c->nr_str, str_hash_idx, c))
		return NULL;
	size_t mask = c->stable_cap - 1, j = pa_hash_str(s) & mask;
	for (; c->stable[j]; j = (j + 1) & mask)
		if (!strcmp(c->str[c->stable[j] - 1], s))
			return c->str[c->stable[j] - 1];
	if (c->nr_str == c->cap_str) {
		size_t cap = c->cap_str ? 2 * c->cap_str : 64;
		void *p = realloc(c->str, cap * sizeof(*c->str));
		if (!p)
			return NULL;
		c->str = p;
		c->cap_str = cap;
	}
	c->str[c->nr_str] = s; /* owned by the session (comms) or the symbol table */
	c->stable[j] = (uint32_t)++c->nr_str;
	return s;
}

static const char *canon_comm(struct cg_state *c, const char *comm)
{
	int created;
	void **slot = pa_u64map_slot(&c->comm_canon, (uint64_t)(uintptr_t)comm, &created);
	if (!slot)
		return NULL;
	if (created)
		*slot = (void *)intern_str(c, comm);
	return *slot;
}

static uint64_t mkey_hash(const struct mkey *k)
{
	return pa_hash64(k->v ^ ((uint64_t)k->dso_ord << 33) ^ ((uint64_t)k->has_sym << 63));
}

static uint64_t mkey_hash_idx(void *ctx, uint32_t i)
{
	return mkey_hash(&((struct cg_state *)ctx)->m[i]);
}

/* The match id of a frame loc: what perf's match_chain compares. */
static int loc_match(struct pa_report *r, struct cg_state *c, uint32_t li, uint32_t *out)
{
	struct pa_loc *l = &pa_report_locs(r)[li];
	if (l->match) {
		*out = l->match - 1;
		return 0;
	}
	struct mkey k = {.dso_ord = l->dso ? l->dso->idx + 1 : 0};
	if (l->sym && l->sym->inlined && !r->cg.address_key) {
		const char *name = intern_str(c, l->sym->name);
		if (!name)
			return -ENOMEM;
		k = (struct mkey){.has_sym = MK_INLINE, .v = (uint64_t)(uintptr_t)name};
	} else if (l->sym && !r->cg.address_key) {
		k.has_sym = MK_SYM;
		k.v = l->sym->start;
	} else {
		k.v = l->ip;
	}
	if (pa_index_table_grow(&c->mtable, &c->mtable_cap, c->nr_m, mkey_hash_idx, c))
		return -ENOMEM;
	size_t mask = c->mtable_cap - 1, j = mkey_hash(&k) & mask;
	for (; c->mtable[j]; j = (j + 1) & mask) {
		const struct mkey *o = &c->m[c->mtable[j] - 1];
		if (o->dso_ord == k.dso_ord && o->has_sym == k.has_sym && o->v == k.v) {
			*out = c->mtable[j] - 1;
			l->match = *out + 1;
			return 0;
		}
	}
	if (c->nr_m == c->cap_m) {
		size_t cap = c->cap_m ? 2 * c->cap_m : 1024;
		void *p = realloc(c->m, cap * sizeof(*c->m));
		if (!p)
			return -ENOMEM;
		c->m = p;
		c->cap_m = cap;
	}
	c->m[c->nr_m] = k;
	c->mtable[j] = (uint32_t)++c->nr_m;
	*out = (uint32_t)(c->nr_m - 1);
	l->match = *out + 1;
	return 0;
}

/* ---- hist entries ----------------------------------------------------- */

/* perf's hist entries by their sort keys (the key table's hash and
 * perf's comparison), and their event. */
static uint64_t entry_hash(const struct pa_report *r, const struct cg_entry *e)
{
	struct hkey k;
	pa_key_of_entry(e, &k);
	return pa_key_hash(r->keys, r->nr_keys, &k) ^ pa_hash64(e->evsel + 1);
}

static bool entry_eq(const struct pa_report *r, const struct cg_entry *a, const struct cg_entry *b)
{
	return a->evsel == b->evsel && !pa_report_entry_cmp(r, a, b);
}

static uint64_t entry_hash_idx(void *ctx, uint32_t i)
{
	struct pa_report *r = ctx;
	return entry_hash(r, &r->cgs->e[i]);
}

/* perf's hists__add_entry: find, or create unless create is false
 * (then *out is UINT32_MAX when missing). */
static int dir_entry(void *ctx, uint32_t n, uint32_t e)
{
	const struct pa_report *r = ctx;
	int d = pa_report_entry_cmp(r, &r->cgs->e[e], &r->cgs->e[n]);
	return (d > 0) - (d < 0);
}

static int grow_entries(struct pa_report *r, struct cg_state *c)
{
	if (c->nr < c->cap)
		return 0;
	size_t cap = c->cap ? 2 * c->cap : 1024;
	/* the entries and their hash table: the call graphs' bulk */
	size_t more = (cap - c->cap) * (sizeof(*c->e) + 2 * sizeof(*c->table));
	if (pa_report_mem_check(r, more))
		return -PA_ERR_LIMIT;
	void *p = realloc(c->e, cap * sizeof(*c->e));
	if (!p)
		return -ENOMEM;
	pa_report_mem_grew(r, 0, more);
	c->e = p;
	c->cap = cap;
	return 0;
}

/* r->ordered: hists__findnew_entry itself, in the event's tree. */
static int findnew_in_tree(struct pa_report *r, struct cg_state *c, const struct cg_entry *tmp,
                           uint32_t *out)
{
	int ret = grow_entries(r, c);
	struct pa_rb *t = &c->etree[tmp->evsel];
	if (ret || (ret = pa_rb_reserve(t, c->nr + 1)))
		return ret;
	c->e[c->nr] = *tmp;
	*out = pa_rb_insert(t, (uint32_t)c->nr, dir_entry, r);
	if (*out == c->nr) {
		c->nr++;
		c->gen++;
	}
	return 0;
}

/* The sums of a record of samples in the entries it went to: ents[0] its
 * self entry, each of ents an entry it accumulates in (--children). */
static void add_sums(struct cg_state *c, unsigned evsel, const uint32_t *ents, size_t n,
                     uint64_t period, uint64_t count)
{
	struct cg_entry *e = &c->e[ents[0]];
	e->period += period;
	e->count += count;
	/* perf's hist_entry__add_callchain_period: by the entry's flag */
	if (!e->filtered)
		c->cc_total_nf[evsel] += period;
	c->cc_total[evsel] += period;
	for (size_t k = 0; k < n; k++) {
		c->e[ents[k]].acc_period += period;
		c->e[ents[k]].acc_count += count;
	}
}

static int findnew_entry(struct pa_report *r, struct cg_state *c, const struct cg_entry *tmp,
                         bool create, uint32_t *out)
{
	if (c->etree) /* (create: perf's flow checks duplicates before) */
		return findnew_in_tree(r, c, tmp, out);
	if (pa_index_table_grow(&c->table, &c->table_cap, c->nr, entry_hash_idx, r))
		return -ENOMEM;
	size_t mask = c->table_cap - 1, j = entry_hash(r, tmp) & mask;
	for (; c->table[j]; j = (j + 1) & mask)
		if (entry_eq(r, &c->e[c->table[j] - 1], tmp)) {
			*out = c->table[j] - 1;
			return 0;
		}
	if (!create) {
		*out = UINT32_MAX;
		return 0;
	}
	int ret = grow_entries(r, c);
	if (ret)
		return ret;
	c->e[c->nr] = *tmp;
	c->table[j] = (uint32_t)++c->nr;
	*out = (uint32_t)(c->nr - 1);
	return 0;
}

static bool re_hit(const regex_t *re, uint8_t *cache, uint32_t li, const struct pa_sym *sym)
{
	if (!cache[li])
		cache[li] = regexec(re, sym->name, 0, NULL, 0) ? 2 : 1;
	return cache[li] == 1;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 1024;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* perf's srcline of a chain entry's hist entry (the srcline key): an
 * inline frame brings its own, another is looked up at its raw ip. NULL
 * on ENOMEM. */
static const char *chain_srcline(struct pa_report *r, struct cg_state *c, uint32_t li)
{
	if (!c->ip_src[li]) {
		const struct pa_loc *l = &pa_report_locs(r)[li];
		c->ip_src[li] = l->inl_frame ? l->srcline : pa_resolver_ip_srcline(r->res, l);
	}
	return c->ip_src[li];
}

static int add_bucket(struct pa_report *r, struct cg_state *c, uint32_t bi)
{
	const struct bucket *b = &r->buckets[bi];
	int n = pa_stack_frames(r, b->stack);
	if (n < 0)
		return -ENOMEM;
	if ((size_t)n + 1 > c->cap_cursor) {
		size_t cap = c->cap_cursor;
		if (grow((void **)&c->cursor, &cap, (size_t)n + 1, sizeof(*c->cursor)))
			return -ENOMEM;
		uint32_t *h = realloc(c->he_cache, (cap + 1) * sizeof(*h));
		if (!h)
			return -ENOMEM;
		c->he_cache = h;
		c->cap_cursor = cap;
	}
	const struct cg_params *p = &r->cg;
	/* the cursor, perf's thread__resolve_callchain_sample */
	const struct pa_loc *root = &pa_report_locs(r)[b->loc];
	const struct pa_sym *parent = NULL;
	bool refiltered = false;
	size_t nc = 0;
	/* (stage 1 cut the chain to perf's cursor already: --max-stack for
	 * the recorded part and the unwound part each) */
	int take = n;
	for (int i = 0; i < take; i++) {
		uint32_t li = p->caller ? r->frames[n - 1 - i] : r->frames[i];
		const struct pa_loc *l = &pa_report_locs(r)[li];
		/* (perf looks for the parent and the callees to ignore in the
		 * recorded chain only, not in the unwound one) */
		if (l->sym && !l->unwound) {
			if (r->has_parent_re && !parent &&
			    re_hit(&r->parent_re, c->parent_hit, li, l->sym)) {
				parent = l->sym;
			} else if (r->has_ignore_re &&
			           re_hit(&r->ignore_re, c->ignore_hit, li, l->sym)) {
				/* this symbol becomes the sample's, its callees
				 * are forgotten; perf copies the whole location,
				 * which clears the sample's filter bits */
				root = l;
				nc = 0;
				refiltered = true;
			}
		}
		c->cursor[nc++] = li;
	}
	bool graphs = p->mode != CG_NONE;
	/* keep the cursor */
	c->bcur[bi] = (struct bcur){(uint32_t)c->nr_pool, (uint32_t)nc};
	if (graphs) {
		if (grow((void **)&c->pool, &c->cap_pool, c->nr_pool + nc, sizeof(*c->pool)))
			return -ENOMEM;
		if (nc)
			memcpy(c->pool + c->nr_pool, c->cursor, nc * sizeof(*c->pool));
		c->nr_pool += nc;
	}
	c->bent_off[bi] = (uint32_t)c->nr_bent;
	size_t nbent = p->children ? nc + 1 : 1;
	if (grow((void **)&c->bent, &c->cap_bent, c->nr_bent + nbent, sizeof(*c->bent)))
		return -ENOMEM;
	uint32_t *bent = c->bent + c->nr_bent;
	c->nr_bent += nbent;

	struct cg_entry tmp = {.comm = canon_comm(c, pa_thread_report_comm(b->thread, b->comm)),
	                       .thread = b->thread,
	                       .dso = root->dso,
	                       .sym = root->sym,
	                       .addr = root->addr,
	                       .level = root->level,
	                       .filtered = b->filtered && !refiltered,
	                       .cpu = b->cpu,
	                       .parent = parent ? intern_str(c, parent->name) : NULL,
	                       .srcline = root->srcline,
	                       .evsel = b->evsel};
	/* (a chain entry that became the sample's location: perf's srcline
	 * of it, at its map-relative address, as of a sample's) */
	if (refiltered && c->ip_src && !(tmp.srcline = pa_resolver_srcline(r->res, root)))
		return -ENOMEM;
	if (!tmp.comm || (parent && !tmp.parent))
		return -ENOMEM;
	uint32_t self;
	int32_t tid = pa_thread_tid(tmp.thread);
	/* the sample's own location: remembered apart from chain entries
	 * (another key: the resolved address, not the raw ip) */
	struct memo *so = refiltered || c->etree ? NULL : &c->self_memo[b->loc];
	if (so && so->entry && so->comm == tmp.comm && so->tid == tid && so->cpu == tmp.cpu &&
	    so->parent == tmp.parent && so->evsel == tmp.evsel)
		self = so->entry - 1;
	else if (findnew_entry(r, c, &tmp, true, &self))
		return -ENOMEM;
	if (so)
		*so = (struct memo){tmp.comm, tmp.parent, tid, tmp.cpu, tmp.evsel, self + 1};
	struct cg_entry *e = &c->e[self];
	bent[0] = UINT32_MAX;
	if (graphs && nc) {
		bent[0] = self;
		e->nr_refs++;
		if (nc > e->max_depth)
			e->max_depth = (uint32_t)nc;
	}
	size_t nr_cache = 0;
	uint32_t mark = ++c->nr_adds;
	c->he_cache[nr_cache++] = self;
	c->e[self].seen = mark;
	char level = root->level;
	for (size_t i = 0; p->children && i < nc; i++) { /* --children */
		const struct pa_loc *l = &pa_report_locs(r)[c->cursor[i]];
		bent[i + 1] = UINT32_MAX;
		/* perf's fill_callchain_info: the level follows the maps the
		 * address was found in; without a map or a symbol, the
		 * previous one stays */
		if (l->sym || l->dso)
			level = l->kernel ? 'k' : '.';
		struct cg_entry t = tmp;
		t.dso = l->dso;
		t.sym = l->sym;
		t.addr = l->ip;
		t.level = level;
		/* perf: an inline frame's srcline came with it; another
		 * entry's is asked of its raw ip */
		if (c->ip_src && !(t.srcline = chain_srcline(r, c, c->cursor[i])))
			return -ENOMEM;
		t.src_given = l->inl_frame;
		uint32_t idx;
		struct memo *mo = &c->memo[c->cursor[i]];
		if (c->etree) {
			/* perf's order: a duplicate of this sample's entries
			 * (same symbol, equal keys) first, then the tree */
			bool dup = false;
			for (size_t k = 0; k < nr_cache && !dup; k++) {
				/* (perf's quick symbol check first: two
				 * symbols of other ranges, none inlined) */
				const struct pa_sym *s = c->e[c->he_cache[k]].sym;
				if (c->sym_key && s && t.sym && !s->inlined && !t.sym->inlined &&
				    (s->start != t.sym->start || s->end != t.sym->end))
					continue;
				dup = !pa_report_entry_cmp(r, &c->e[c->he_cache[k]], &t);
			}
			if (dup)
				continue;
			t.period = t.count = t.acc_period = t.acc_count = 0;
			t.nr_refs = t.max_depth = 0;
			if (findnew_entry(r, c, &t, true, &idx))
				return -ENOMEM;
		} else if (mo->entry && mo->comm == t.comm && mo->tid == tid && mo->cpu == t.cpu &&
		           mo->parent == t.parent && mo->evsel == t.evsel) {
			idx = mo->entry - 1;
		} else if (findnew_entry(r, c, &t, false, &idx)) {
			return -ENOMEM;
		}
		/* a duplicate within this sample (recursion) counts once: the
		 * entries this call put in he_cache carry its mark */
		if (!c->etree && idx != UINT32_MAX && c->e[idx].seen == mark)
			continue;
		if (idx == UINT32_MAX) {
			t.period = t.count = t.acc_period = t.acc_count = 0;
			t.nr_refs = t.max_depth = 0;
			if (findnew_entry(r, c, &t, true, &idx))
				return -ENOMEM;
		}
		*mo = (struct memo){t.comm, t.parent, tid, t.cpu, t.evsel, idx + 1};
		c->he_cache[nr_cache++] = idx;
		c->e[idx].seen = mark;
		struct cg_entry *a = &c->e[idx];
		if (graphs) {
			bent[i + 1] = idx;
			a->nr_refs++;
			if (nc - i > a->max_depth)
				a->max_depth = (uint32_t)(nc - i);
		}
	}
	add_sums(c, b->evsel, c->he_cache, nr_cache, b->period, b->count);
	c->nr_he_cache = nr_cache;
	return 0;
}

/* The graph threshold of an entry's event, as an absolute period. */
static uint64_t entry_min_hit(const struct pa_report *r, const struct cg_entry *e)
{
	uint64_t cc_total = pa_cg_callchain_total(r, e->evsel, r->opts.relative);
	return (uint64_t)((double)cc_total * (r->cg.min_percent / 100.0));
}

/* Whether an entry's graph may print anything: with an absolute threshold
 * (graph, flat, folded) no node holds more than all its chains, whose
 * periods are a part of the entry's accumulated one. */
static bool may_print_graph(const struct pa_report *r, const struct cg_entry *e)
{
	if (!e->nr_refs || r->cg.mode == CG_NONE)
		return false;
	uint64_t min_hit = entry_min_hit(r, e);
	return r->cg.mode == CG_FRACTAL || !min_hit || e->acc_period >= min_hit;
}

/* The entry that holds e's call chains (pa_cg_merge). */
static uint32_t entry_root(const struct cg_state *c, uint32_t e)
{
	while (c->e[e].merged_into)
		e = c->e[e].merged_into - 1;
	return e;
}

int pa_cg_index_refs(struct pa_report *r, const struct cg_entry *const *es, size_t n)
{
	struct cg_state *c = r->cgs;
	free(c->ref_off);
	pa_report_mem_grew(r, c->nr_refs_indexed * sizeof(*c->refs), 0);
	free(c->refs);
	c->refs = NULL;
	c->nr_refs_indexed = 0;
	c->ref_off = calloc(c->nr + 1, sizeof(*c->ref_off));
	uint8_t *want = calloc(c->nr + 1, 1);
	if (!c->ref_off || !want) {
		free(want);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (es[i] && may_print_graph(r, es[i]))
			want[es[i] - c->e] = 1;
	size_t total = 0;
	for (size_t i = 0; i < c->nr; i++) {
		c->ref_off[i] = (uint32_t)total;
		total += want[i] ? c->e[i].nr_refs : 0;
	}
	c->ref_off[c->nr] = (uint32_t)total;
	if (pa_report_mem_check(r, (total + 1) * sizeof(*c->refs))) {
		free(want);
		return -PA_ERR_LIMIT;
	}
	c->refs = malloc((total + 1) * sizeof(*c->refs));
	uint32_t *fill = calloc(c->nr + 1, sizeof(*fill));
	if (!c->refs || !fill) {
		free(want);
		free(fill);
		return -ENOMEM;
	}
	pa_report_mem_grew(r, 0, (total + 1) * sizeof(*c->refs));
	c->nr_refs_indexed = total + 1;
	size_t nb = r->nr_buckets;
	/* an entry's own chains, then those of the entries merged into it
	 * (perf's callchain_merge comes after) */
	for (int merged = 0; merged < 2; merged++)
		for (size_t bi = 0; bi < nb && total; bi++) {
			uint32_t off = c->bent_off[bi];
			uint32_t end = bi + 1 < nb ? c->bent_off[bi + 1] : (uint32_t)c->nr_bent;
			for (uint32_t k = off; k < end; k++) {
				uint32_t ei = c->bent[k];
				if (ei == UINT32_MAX || !c->e[ei].merged_into != !merged)
					continue;
				ei = entry_root(c, ei);
				if (!want[ei])
					continue;
				/* position 0: the self entry's whole cursor */
				uint32_t pos = k == off ? 0 : k - off - 1;
				c->refs[c->ref_off[ei] + fill[ei]++] =
				    (struct cref){(uint32_t)bi, pos};
			}
		}
	free(fill);
	free(want);
	return 0;
}

/* r->ordered: the records of samples in perf's order, each finding its
 * entries in perf's trees as perf's samples do. A record whose bucket
 * made no entry the last time, with none made since, finds the same
 * entries again (the trees did not change): its sums go to that bucket.
 * Else it becomes a bucket of its own (the buckets of one key share
 * their stack; cursors and sums add up the same). */
static int add_in_sample_order(struct pa_report *r, struct cg_state *c)
{
	struct bucket *orig = r->buckets;
	size_t n_orig = r->nr_buckets, cap = 0;
	struct last {
		uint32_t bucket, off, n;
		uint64_t gen;
	} *last = malloc((n_orig + 1) * sizeof(*last));
	int ret = -ENOMEM;
	c->etree = calloc(r->nr_evsels + 1, sizeof(*c->etree));
	if (!last || !c->etree)
		goto out;
	for (unsigned i = 0; i <= r->nr_evsels; i++)
		c->etree[i].root = PA_RB_NIL;
	for (size_t i = 0; i < n_orig; i++)
		last[i].bucket = UINT32_MAX;
	r->buckets = NULL;
	r->nr_buckets = 0;
	for (size_t k = 0; k < r->nr_slog; k++) {
		const struct slog *sl = &r->slog[k];
		struct last *l = &last[sl->bucket];
		if (l->bucket != UINT32_MAX && l->gen == c->gen) {
			/* the sums add_bucket made for its first record */
			struct bucket *b = &r->buckets[l->bucket];
			b->period += sl->period;
			b->count += sl->count;
			add_sums(c, b->evsel, c->ents + l->off, l->n, sl->period, sl->count);
			continue;
		}
		if (PA_GROW(r->buckets, cap, r->nr_buckets + 1, 1024))
			goto out;
		uint32_t bi = (uint32_t)r->nr_buckets++;
		r->buckets[bi] = orig[sl->bucket];
		r->buckets[bi].period = sl->period;
		r->buckets[bi].count = sl->count;
		uint64_t gen = c->gen;
		size_t off = c->nr_ents;
		if (add_bucket(r, c, bi) ||
		    PA_GROW(c->ents, c->cap_ents, c->nr_ents + c->nr_he_cache, 1024))
			goto out;
		memcpy(c->ents + off, c->he_cache, c->nr_he_cache * sizeof(*c->ents));
		c->nr_ents += c->nr_he_cache;
		*l = (struct last){c->gen == gen ? bi : UINT32_MAX, (uint32_t)off,
		                   (uint32_t)c->nr_he_cache, c->gen};
	}
	pa_report_mem_grew(r, r->cap_buckets * sizeof(*orig), cap * sizeof(*orig));
	r->cap_buckets = cap;
	ret = 0;
out:
	if (ret) { /* the report frees what it holds */
		free(r->buckets);
		r->buckets = orig;
		r->nr_buckets = n_orig;
		orig = NULL;
	}
	free(orig);
	free(last);
	return ret;
}

int pa_cg_build(struct pa_report *r)
{
	if (r->cgs)
		return 0;
	struct cg_state *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	r->cgs = c;
	unsigned ne = r->nr_evsels + 1;
	c->cc_total = calloc(ne, sizeof(*c->cc_total));
	c->cc_total_nf = calloc(ne, sizeof(*c->cc_total_nf));
	/* (r->ordered: a bucket per record of samples at the most) */
	size_t max_buckets = r->ordered ? r->nr_slog : r->nr_buckets;
	c->bcur = calloc(max_buckets + 1, sizeof(*c->bcur));
	c->bent_off = calloc(max_buckets + 1, sizeof(*c->bent_off));
	for (unsigned k = 0; k < r->nr_keys; k++)
		c->sym_key |= r->keys[k] == K_SYM;
	for (unsigned k = 0; k < r->nr_keys; k++)
		if (r->keys[k] == K_SRCLINE &&
		    !(c->ip_src = calloc(pa_resolver_nr_locs(r->res) + 1, sizeof(*c->ip_src))))
			return -ENOMEM;
	c->parent_hit = calloc(pa_resolver_nr_locs(r->res) + 1, 1);
	c->ignore_hit = calloc(pa_resolver_nr_locs(r->res) + 1, 1);
	size_t self_bytes = (pa_resolver_nr_locs(r->res) + 1) * sizeof(*c->memo);
	size_t memo_bytes = r->cg.children ? self_bytes : 0;
	if (pa_report_mem_check(r, memo_bytes + self_bytes))
		return -PA_ERR_LIMIT;
	c->memo = memo_bytes ? calloc(1, memo_bytes) : NULL;
	c->self_memo = calloc(1, self_bytes);
	pa_report_mem_grew(r, 0, (c->memo ? memo_bytes : 0) + (c->self_memo ? self_bytes : 0));
	if (!c->cc_total || !c->cc_total_nf || !c->bcur || !c->bent_off ||
	    !c->parent_hit || !c->ignore_hit || (r->cg.children && !c->memo) || !c->self_memo)
		return -ENOMEM;
	c->nr_evsels = ne;
	if (r->ordered) {
		if (add_in_sample_order(r, c))
			return -ENOMEM;
	} else {
		for (size_t i = 0; i < r->nr_buckets; i++)
			if (add_bucket(r, c, (uint32_t)i))
				return -ENOMEM;
	}
	/* the match id of every chain entry the graphs print, once (each
	 * entry's graph walks the chains through it, deep ones many times) */
	for (size_t i = 0; i < c->nr_pool; i++) {
		uint32_t m;
		if (loc_match(r, c, c->pool[i], &m))
			return -ENOMEM;
	}
	/* (the raw stacks stay: printing does not change the model, and
	 * pa_report_foreach_stack works after it) */
	free(c->parent_hit);
	free(c->ignore_hit);
	free(c->ip_src);
	c->ip_src = NULL;
	pa_report_mem_grew(r, (c->memo ? memo_bytes : 0) + self_bytes, 0);
	free(c->memo);
	free(c->self_memo);
	c->parent_hit = c->ignore_hit = NULL;
	c->memo = c->self_memo = NULL;
	return 0;
}

void pa_cg_free(struct pa_report *r)
{
	struct cg_state *c = r->cgs;
	if (!c)
		return;
	for (unsigned i = 0; c->etree && i <= r->nr_evsels; i++)
		pa_rb_release(&c->etree[i]);
	free(c->etree);
	free(c->ents);
	free(c->e);
	free(c->table);
	free(c->m);
	free(c->mtable);
	free(c->str);
	free(c->stable);
	pa_u64map_release(&c->comm_canon);
	free(c->cc_total);
	free(c->cc_total_nf);
	free(c->pool);
	free(c->bcur);
	free(c->bent);
	free(c->bent_off);
	free(c->ref_off);
	free(c->refs);
	free(c->parent_hit);
	free(c->ignore_hit);
	free(c->ip_src);
	free(c->cc_src);
	free(c->memo);
	free(c->self_memo);
	free(c->cursor);
	free(c->he_cache);
	free(c);
	r->cgs = NULL;
}

void pa_cg_merge(const struct pa_report *r, const struct cg_entry *into,
                 const struct cg_entry *from)
{
	struct cg_state *c = r->cgs;
	struct cg_entry *a = &c->e[into - c->e], *b = &c->e[from - c->e];
	a->period += b->period;
	a->count += b->count;
	a->acc_period += b->acc_period;
	a->acc_count += b->acc_count;
	a->nr_refs += b->nr_refs;
	b->merged_into = (uint32_t)(a - c->e) + 1;
}

size_t pa_cg_nr_entries(const struct pa_report *r)
{
	return r->cgs ? r->cgs->nr : 0;
}

struct cg_entry *pa_cg_entry(const struct pa_report *r, size_t i)
{
	return &r->cgs->e[i];
}

uint64_t pa_cg_callchain_total(const struct pa_report *r, unsigned evsel, bool non_filtered)
{
	const struct cg_state *c = r->cgs;
	if (!c || evsel >= c->nr_evsels)
		return 0;
	return non_filtered ? c->cc_total_nf[evsel] : c->cc_total[evsel];
}

/* ---- graphs, built when printed ------------------------------------------
 *
 * Two ways to the same tree. The fast one partitions the entry's chains
 * level by level (only the levels printed: a branch under the threshold
 * is never expanded). It is exact when perf's rb-trees of children are
 * ordered consistently, which holds unless one DSO gives siblings both
 * with and without a symbol: perf's match_chain then compares symbol
 * starts with raw addresses, its tree may keep two nodes for one function
 * (or order them its own way), and the whole graph is rebuilt the way perf
 * builds it, chain after chain (exact_*).
 */

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
};

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

/* ---- exact mode: perf's callchain_append, chain after chain ---- */

/* perf's match_chain(new entry, existing entry): < 0 when the existing
 * one is smaller (MATCH_LT), 0 equal. */
static int match_entries(const struct printer *pr, uint32_t new_li, uint32_t old_li)
{
	const struct pa_loc *n = &pa_report_locs(pr->r)[new_li], *o = &pa_report_locs(pr->r)[old_li];
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

static int exact_build(struct printer *pr)
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
static struct gnode *exact_children_of(const struct printer *pr, const struct gnode *g, size_t *nr)
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

/* ---- either mode ---- */

/* All children of g (g NULL: the root's) in rb_root_in order, extended. */
static struct gnode *all_children(struct printer *pr, const struct gnode *g, size_t *nr)
{
	if (pr->exact)
		return exact_children_of(pr, g, nr);
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
	if (!c->cc_src && !(c->cc_src = calloc(pa_resolver_nr_locs(pr->r->res) + 1,
	                                       sizeof(*c->cc_src))))
		return NULL;
	if (!c->cc_src[li])
		c->cc_src[li] = pa_resolver_chain_srcline(pr->r->res, &pa_report_locs(pr->r)[li]);
	return c->cc_src[li];
}

static const char *el_name(const struct printer *pr, uint32_t li, char *buf, size_t size)
{
	const struct pa_loc *l = &pa_report_locs(pr->r)[li];
	const char *src = l->sym ? el_srcline(pr, li) : NULL;
	if (l->sym)
		snprintf(buf, size, "%s%s%s%s", l->sym->name, src ? " " : "", src ? src : "",
		         l->sym->inlined ? " (inlined)" : "");
	else
		snprintf(buf, size, "%#" PRIx64, l->ip);
	return buf;
}

static void print_value(const struct printer *pr, uint64_t period, uint64_t count, uint64_t total)
{
	switch (pr->r->cg.value) {
	case CG_PERIOD:
		fprintf(pr->out, "%" PRIu64, period);
		break;
	case CG_COUNT:
		fprintf(pr->out, "%u", (unsigned)count);
		break;
	default:
		fprintf(pr->out, "%.2f%%", total ? (double)period * 100.0 / (double)total : 0.0);
		break;
	}
}

static void left_margin(FILE *out, int margin)
{
	fprintf(out, "            %*s", margin, "");
}

static void graph_line(FILE *out, int depth, int mask, int margin)
{
	left_margin(out, margin);
	for (int i = 0; i < depth; i++)
		fputs(mask & (1 << i) ? "|          " : "           ", out);
	fputc('\n', out);
}

static void graph_entry(const struct printer *pr, uint64_t cumul, uint64_t ccount, int depth,
                        int mask, int period_idx, uint64_t total, int margin, const char *name)
{
	FILE *out = pr->out;
	left_margin(out, margin);
	for (int i = 0; i < depth; i++) {
		fputc(mask & (1 << i) ? '|' : ' ', out);
		if (!period_idx && i == depth - 1) {
			fputs("--", out);
			print_value(pr, cumul, ccount, total);
			fputs("--", out);
		} else {
			fputs("          ", out);
		}
	}
	fputs(name, out);
	fputc('\n', out);
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
		graph_line(pr->out, depth, mask, margin);
		for (uint32_t k = 0; k < g->len; k++)
			graph_entry(pr, g->cumul, g->ccount, depth, new_mask, (int)k, total, margin,
			            el_name(pr, g->el[k], buf, sizeof(buf)));
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
			graph_entry(pr, remaining, rc, depth, new_mask, 0, total, margin, "[...]");
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

int pa_cg_print_chain(struct pa_report *r, FILE *out, const struct cg_entry *e,
                      uint64_t total_period, uint64_t parent_period)
{
	struct cg_state *c = r->cgs;
	if (!c || !e->nr_refs || r->cg.mode == CG_NONE)
		return 0;
	size_t ei = (size_t)(e - c->e);
	if (!c->ref_off || !may_print_graph(r, e))
		return 0;
	uint32_t lo = c->ref_off[ei], hi = c->ref_off[ei + 1];
	uint64_t min_hit = entry_min_hit(r, e);
	if (nothing_over(r, c, lo, hi, min_hit))
		return 0;
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
	/* the fast way into memory first: it tells whether it was exact */
	char *buf = NULL;
	size_t len = 0;
	pr.out = open_memstream(&buf, &len);
	int ret = pr.out ? print_any(&pr, total_period, parent_period) : -ENOMEM;
	if (pr.out)
		fclose(pr.out);
	if (!ret && pr.inconsistent) {
		/* perf's own tree, chain after chain */
		pr.exact = true;
		pr.out = out;
		ret = exact_build(&pr);
		if (!ret)
			ret = print_any(&pr, total_period, parent_period);
	} else if (!ret) {
		fwrite(buf, 1, len, out);
	}
	free(buf);
	free(pr.pn);
	free(pr.rb);
	free(pr.sort_v);
	free(pr.sort_ch);
	free(chs);
	return ret;
}
