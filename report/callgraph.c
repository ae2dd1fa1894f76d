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
#include "cg.h"
#include "util/rbtree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* Room for a cursor of n entries and its entries' cache. */
static int reserve_cursor(struct cg_state *c, size_t n)
{
	if (n + 1 <= c->cap_cursor)
		return 0;
	size_t cap = c->cap_cursor;
	if (grow((void **)&c->cursor, &cap, n + 1, sizeof(*c->cursor)))
		return -ENOMEM;
	uint32_t *h = realloc(c->he_cache, (cap + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	c->he_cache = h;
	c->cap_cursor = cap;
	return 0;
}

/* A bucket's callchain cursor into c->cursor (perf's
 * thread__resolve_callchain_sample over r->frames[0, n)): its length.
 * *root: the sample's location, or the chain entry --ignore-callees
 * matched (*refiltered); *parent: the first --parent match. */
static size_t make_cursor(struct pa_report *r, struct cg_state *c, int n,
                          const struct pa_loc **root, const struct pa_sym **parent,
                          bool *refiltered)
{
	const struct cg_params *p = &r->cg;
	size_t nc = 0;
	/* (stage 1 cut the chain to perf's cursor already: --max-stack for
	 * the recorded part and the unwound part each) */
	for (int i = 0; i < n; i++) {
		uint32_t li = p->caller ? r->frames[n - 1 - i] : r->frames[i];
		const struct pa_loc *l = &pa_report_locs(r)[li];
		/* (perf looks for the parent and the callees to ignore in the
		 * recorded chain only, not in the unwound one) */
		if (l->sym && !l->unwound) {
			if (r->has_parent_re && !*parent &&
			    re_hit(&r->parent_re, c->parent_hit, li, l->sym)) {
				*parent = l->sym;
			} else if (r->has_ignore_re &&
			           re_hit(&r->ignore_re, c->ignore_hit, li, l->sym)) {
				/* this symbol becomes the sample's, its callees
				 * are forgotten; perf copies the whole location,
				 * which clears the sample's filter bits */
				*root = l;
				nc = 0;
				*refiltered = true;
			}
		}
		c->cursor[nc++] = li;
	}
	return nc;
}

/* Keeps bucket bi's cursor (nc entries) in the pool when graphs are
 * printed, and returns its entry slots (self, then one per position with
 * --children), or NULL: no memory. */
static uint32_t *keep_cursor(struct pa_report *r, struct cg_state *c, uint32_t bi, size_t nc)
{
	c->bcur[bi] = (struct bcur){(uint32_t)c->nr_pool, (uint32_t)nc};
	if (r->cg.mode != CG_NONE) {
		if (grow((void **)&c->pool, &c->cap_pool, c->nr_pool + nc, sizeof(*c->pool)))
			return NULL;
		if (nc)
			memcpy(c->pool + c->nr_pool, c->cursor, nc * sizeof(*c->pool));
		c->nr_pool += nc;
	}
	c->bent_off[bi] = (uint32_t)c->nr_bent;
	size_t nbent = r->cg.children ? nc + 1 : 1;
	if (grow((void **)&c->bent, &c->cap_bent, c->nr_bent + nbent, sizeof(*c->bent)))
		return NULL;
	uint32_t *bent = c->bent + c->nr_bent;
	c->nr_bent += nbent;
	return bent;
}

static struct sample_ctx ctx_of(const struct cg_entry *t, int32_t tid)
{
	return (struct sample_ctx){
	    .comm = t->comm, .parent = t->parent, .tid = tid, .cpu = t->cpu, .evsel = t->evsel};
}

static bool ctx_is(const struct sample_ctx *k, const struct cg_entry *t, int32_t tid)
{
	return k->comm == t->comm && k->tid == tid && k->cpu == t->cpu && k->parent == t->parent &&
	       k->evsel == t->evsel;
}

static struct memo memo_of(const struct cg_entry *t, int32_t tid, uint32_t entry, uint64_t gen)
{
	return (struct memo){.key = ctx_of(t, tid), .entry = entry, .gen = gen};
}

static bool memo_is(const struct memo *m, const struct cg_entry *t, int32_t tid)
{
	return m->entry && ctx_is(&m->key, t, tid);
}

/* r->ordered: t's entry in perf's trees, through *mo (NULL: none) when the
 * trees did not change since mo's search in the same context (perf's
 * comparison is no order, but a search of the same trees for the same
 * keys takes the same path). */
static int findnew_memo(struct pa_report *r, struct cg_state *c, const struct cg_entry *t,
                        int32_t tid, struct memo *mo, uint32_t *idx)
{
	if (mo && memo_is(mo, t, tid) && mo->gen == c->gen) {
		*idx = mo->entry - 1;
		return 0;
	}
	uint64_t gen = c->gen;
	if (findnew_entry(r, c, t, true, idx))
		return -ENOMEM;
	if (mo && gen == c->gen)
		*mo = memo_of(t, tid, *idx + 1, gen);
	return 0;
}

/* The sample's own entry (tmp's keys): *self. */
static int self_entry(struct pa_report *r, struct cg_state *c, const struct bucket *b,
                      const struct cg_entry *tmp, bool refiltered, uint32_t *self)
{
	int32_t tid = pa_thread_tid(tmp->thread);
	/* remembered apart from chain entries (another key: the resolved
	 * address, not the raw ip) */
	struct memo *so = refiltered ? NULL : &c->self_memo[b->loc];
	if (c->etree)
		return findnew_memo(r, c, tmp, tid, so, self);
	if (so && memo_is(so, tmp, tid))
		*self = so->entry - 1;
	else if (findnew_entry(r, c, tmp, true, self))
		return -ENOMEM;
	if (so)
		*so = memo_of(tmp, tid, *self + 1, 0);
	return 0;
}

/* r->ordered: whether t duplicates an entry this sample already added to
 * (c->he_cache[0, nr)), found as perf's hist_entry_iter finds one. */
static bool dup_in_sample(struct pa_report *r, const struct cg_state *c, size_t nr,
                          const struct cg_entry *t)
{
	for (size_t k = 0; k < nr; k++) {
		/* (perf's quick symbol check first: two symbols of other
		 * ranges, none inlined) */
		const struct pa_sym *s = c->e[c->he_cache[k]].sym;
		if (c->sym_key && s && t->sym && !s->inlined && !t->sym->inlined &&
		    (s->start != t->sym->start || s->end != t->sym->end))
			continue;
		/* (and pa's: with an inline frame, equal symbols have one name) */
		if (c->sym_key && s && t->sym && s != t->sym && (s->inlined || t->sym->inlined) &&
		    s->name != t->sym->name && strcmp(s->name, t->sym->name))
			continue;
		if (!pa_report_entry_cmp(r, &c->e[c->he_cache[k]], t))
			return true;
	}
	return false;
}

/* --children: the entry of the sample's chain location li (t: the self
 * entry's keys, its location's set here; tid: its thread's): *idx, or UINT32_MAX when the
 * sample already counted in it (recursion counts once). */
static int chain_entry(struct pa_report *r, struct cg_state *c, struct cg_entry *t, int32_t tid,
                       uint32_t li, size_t nr_cache, uint32_t mark, uint32_t *idx)
{
	const struct pa_loc *l = &pa_report_locs(r)[li];
	t->dso = l->dso;
	t->sym = l->sym;
	t->addr = l->ip;
	t->loc = li;
	/* perf: an inline frame's srcline came with it; another entry's is
	 * asked of its raw ip */
	if (c->ip_src && !(t->srcline = chain_srcline(r, c, li)))
		return -ENOMEM;
	t->src_given = l->inl_frame;
	*idx = UINT32_MAX;
	if (c->etree) {
		/* perf's order: a duplicate of this sample's entries (same
		 * symbol, equal keys) first, then the tree */
		if (dup_in_sample(r, c, nr_cache, t))
			return 0;
		t->period = t->count = t->acc_period = t->acc_count = 0;
		t->nr_refs = t->max_depth = 0;
		return findnew_memo(r, c, t, tid, &c->memo[li], idx);
	}
	/* (a memo made in this sample context: add_bucket's c->ctx) */
	struct memo *mo = &c->memo[li];
	uint32_t i = mo->entry - 1;
	if (!mo->entry || mo->ctx != c->ctx) {
		if (findnew_entry(r, c, t, false, &i))
			return -ENOMEM;
		if (i == UINT32_MAX) {
			t->period = t->count = t->acc_period = t->acc_count = 0;
			t->nr_refs = t->max_depth = 0;
			if (findnew_entry(r, c, t, true, &i))
				return -ENOMEM;
		}
		mo->entry = i + 1;
		mo->ctx = c->ctx;
	}
	/* a duplicate within this sample: the entries this call put in
	 * he_cache carry its mark */
	if (c->e[i].seen != mark)
		*idx = i;
	return 0;
}

static uint64_t ctx_hash(const struct sample_ctx *k)
{
	uint64_t h = pa_hash64((uint64_t)(uintptr_t)k->comm ^ (uint64_t)(uint32_t)k->tid << 32);
	return pa_hash64(h ^ (uint64_t)(uintptr_t)k->parent ^ (uint64_t)k->cpu << 32 ^ k->evsel);
}

static uint64_t ctx_hash_idx(void *ctx, uint32_t i)
{
	return ctx_hash(&((struct cg_state *)ctx)->ctxs[i]);
}

/* Not r->ordered: c->ctx becomes the number (+ 1) of the sample context
 * of t (tid: its thread's), the same each time it comes back. */
static int set_ctx(struct cg_state *c, const struct cg_entry *t, int32_t tid)
{
	if (c->ctx && ctx_is(&c->ctxs[c->ctx - 1], t, tid))
		return 0; /* (most buckets: the last one's) */
	struct sample_ctx k = ctx_of(t, tid);
	if (pa_index_table_grow(&c->ctx_table, &c->ctx_table_cap, c->nr_ctx, ctx_hash_idx, c))
		return -ENOMEM;
	size_t mask = c->ctx_table_cap - 1, j = ctx_hash(&k) & mask;
	for (; c->ctx_table[j]; j = (j + 1) & mask)
		if (ctx_is(&c->ctxs[c->ctx_table[j] - 1], t, tid)) {
			c->ctx = c->ctx_table[j];
			return 0;
		}
	if (PA_GROW(c->ctxs, c->cap_ctx, c->nr_ctx + 1, 16))
		return -ENOMEM;
	c->ctxs[c->nr_ctx] = k;
	c->ctx = c->ctx_table[j] = (uint32_t)++c->nr_ctx;
	return 0;
}

/* A bucket's samples into their entries: the self entry with the whole
 * cursor, and with --children one entry per cursor position. */
static int add_bucket(struct pa_report *r, struct cg_state *c, uint32_t bi)
{
	const struct bucket *b = &r->buckets[bi];
	int n = pa_stack_frames(r, b->stack);
	if (n < 0 || reserve_cursor(c, (size_t)n))
		return -ENOMEM;
	const struct cg_params *p = &r->cg;
	const struct pa_loc *root = &pa_report_locs(r)[b->loc];
	const struct pa_sym *parent = NULL;
	bool refiltered = false;
	size_t nc = make_cursor(r, c, n, &root, &parent, &refiltered);
	bool graphs = p->mode != CG_NONE;
	uint32_t *bent = keep_cursor(r, c, bi, nc);
	if (!bent)
		return -ENOMEM;
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
	                       .evsel = b->evsel,
	                       .loc = (uint32_t)(root - pa_report_locs(r))};
	/* (a chain entry that became the sample's location: perf's srcline
	 * of it, at its map-relative address, as of a sample's) */
	if (refiltered && c->ip_src && !(tmp.srcline = pa_resolver_srcline(r->res, root)))
		return -ENOMEM;
	uint32_t self;
	if (!tmp.comm || (parent && !tmp.parent) || self_entry(r, c, b, &tmp, refiltered, &self))
		return -ENOMEM;
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
	int32_t tid = pa_thread_tid(tmp.thread);
	/* (one chain entry's keys for all: chain_entry sets its location's
	 * fields, and its sums are zero when it makes an entry) */
	struct cg_entry t = tmp;
	if (p->children && !c->etree && set_ctx(c, &t, tid))
		return -ENOMEM;
	for (size_t i = 0; p->children && i < nc; i++) { /* --children */
		const struct pa_loc *l = &pa_report_locs(r)[c->cursor[i]];
		bent[i + 1] = UINT32_MAX;
		/* perf's fill_callchain_info: the level follows the maps the
		 * address was found in; without a map or a symbol, the
		 * previous one stays */
		if (l->sym || l->dso)
			level = l->kernel ? 'k' : '.';
		t.level = level;
		uint32_t idx;
		if (chain_entry(r, c, &t, tid, c->cursor[i], nr_cache, mark, &idx))
			return -ENOMEM;
		if (idx == UINT32_MAX)
			continue;
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
uint64_t pa_cg_entry_min_hit(const struct pa_report *r, const struct cg_entry *e)
{
	uint64_t cc_total = pa_cg_callchain_total(r, e->evsel, r->opts.relative);
	return (uint64_t)((double)cc_total * (r->cg.min_percent / 100.0));
}

/* Whether an entry's graph may print anything: with an absolute threshold
 * (graph, flat, folded) no node holds more than all its chains, whose
 * periods are a part of the entry's accumulated one. */
bool pa_cg_may_print_graph(const struct pa_report *r, const struct cg_entry *e)
{
	if (!e->nr_refs || r->cg.mode == CG_NONE)
		return false;
	uint64_t min_hit = pa_cg_entry_min_hit(r, e);
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
		if (es[i] && pa_cg_may_print_graph(r, es[i]))
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
	for (int merged = 0; merged < 1 + c->any_merged; merged++)
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
	free(c->ctxs);
	free(c->ctx_table);
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
	c->any_merged = true;
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
