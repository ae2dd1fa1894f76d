/* stack.c - the raw stacks, and unique stacks as folded lines.
 *
 * While samples stream, a call chain becomes a stack id: its entries are
 * resolved the way perf's machine__resolve_callchain does (cpumode
 * switches at the PERF_CONTEXT_* markers, which are not frames; a marker
 * perf does not know empties the chain), each (thread, cpumode, ip) is
 * mapped to a loc once per address-space generation through a small
 * cache, and each unique chain of locs is kept once, whole (util.h,
 * pa_seqset): no allocation per sample.
 *
 * Afterwards, pa_report_foreach_stack() turns each bucket's stack into the
 * frames `perf script | stackcollapse-perf.pl` prints, merges equal lines
 * in a second trie of frame names and walks it in the byte order of the
 * lines.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the raw stacks ----------------------------------------------------- */

/* (Each chain is kept whole, once, in a set of sequences, found by a hash
 * of it: a trie of (parent, loc) nodes, each chain's path looked up node
 * by node from the outermost caller, cost a table probe, mostly a cache
 * miss, per frame, and deep chains cut by --max-stack share no prefix
 * from the root: a deep C++ recording made ~75 new nodes a record, a third
 * of the default report's time (bench/README.md, "Stacks kept whole").) */

uint64_t pa_stack_hash(const uint32_t *frames, uint32_t n)
{
	return pa_seqset_hash(frames, n);
}

void pa_stack_prefetch(const struct pa_report *r, uint64_t h)
{
	pa_seqset_prefetch(&r->stacks, h);
}

int pa_stack_insert(struct pa_report *r, const uint32_t *frames, uint32_t n, uint64_t h,
                    uint32_t *id)
{
	size_t before = pa_seqset_bytes(&r->stacks);
	uint32_t empty;
	int ret = 0;
	if (!r->stacks.nr) /* stack 0: the empty chain */
		ret = pa_seqset_add(&r->stacks, NULL, 0, &empty);
	if (!ret)
		ret = pa_seqset_add_hashed(&r->stacks, frames, n, h, id);
	pa_report_mem_grew(r, before, pa_seqset_bytes(&r->stacks));
	return ret;
}

int pa_stack_frames(struct pa_report *r, uint32_t id)
{
	if (id >= r->stacks.nr)
		return 0; /* the empty chain, never added */
	uint32_t n;
	const uint32_t *v = pa_seqset_get(&r->stacks, id, &n);
	return pa_resolver_chain_frames(r->res, v, n, &r->frames, &r->cap_frames);
}

/* ---- folded names -------------------------------------------------------- */

/* Interned frame texts. */
struct names {
	char **str;
	size_t nr, cap;
	uint32_t *table; /* id + 1 */
	size_t table_cap;
	struct pa_arena *arena;
};

static uint64_t name_hash_idx(void *ctx, uint32_t i)
{
	const char *s = ((struct names *)ctx)->str[i];
	return pa_hash_str(s);
}

static int name_id(struct names *nm, const char *s, size_t n, uint32_t *out)
{
	if (pa_index_table_grow(&nm->table, &nm->table_cap, nm->nr, name_hash_idx, nm))
		return -ENOMEM;
	size_t mask = nm->table_cap - 1;
	size_t j = pa_hash_bytes(s, n) & mask;
	for (; nm->table[j]; j = (j + 1) & mask) {
		const char *t = nm->str[nm->table[j] - 1];
		if (!strncmp(t, s, n) && !t[n]) {
			*out = nm->table[j] - 1;
			return 0;
		}
	}
	if (PA_GROW(nm->str, nm->cap, nm->nr + 1, 256))
		return -ENOMEM;
	char *copy = pa_arena_strndup(nm->arena, s, n);
	if (!copy)
		return -ENOMEM;
	nm->str[nm->nr] = copy;
	nm->table[j] = (uint32_t)++nm->nr;
	*out = (uint32_t)(nm->nr - 1);
	return 0;
}

static bool mod_is_kernel(const char *mod);
static bool mod_is_jit(const char *mod);
static const char *loc_mod(const struct pa_loc *l);

/* One rule for kinds (flame graph colours) and the _[k]/_[j] marks:
 * stackcollapse's, by the DSO name perf script prints. */
static enum pa_frame_kind loc_kind(const struct pa_loc *l)
{
	const char *mod = loc_mod(l);
	if (mod_is_kernel(mod))
		return PA_FRAME_KERNEL;
	if (mod_is_jit(mod))
		return PA_FRAME_JIT;
	return PA_FRAME_USER;
}

/* What perf script prints in parentheses: the DSO's name. */
static const char *loc_mod(const struct pa_loc *l)
{
	return l->dso ? l->dso->long_name : "[unknown]";
}

/* stackcollapse-perf.pl's kernel test for _[k]: the module name starts
 * with '[' ([kernel.kallsyms], [ext4], but also [vdso]) or ends in
 * "vmlinux", and is not [unknown]. A sysprof capture's JIT map is not a
 * kernel module, whatever its brackets. */
static bool mod_is_kernel(const char *mod)
{
	size_t n = strlen(mod);
	return (mod[0] == '[' || (n >= 7 && !strcmp(mod + n - 7, "vmlinux"))) &&
	       !strstr(mod, "unknown") && !mod_is_jit(mod);
}

/* ... and for _[j]: "/tmp/perf-<digits>.map" anywhere in it (perf's JIT
 * maps), or the map formats/ makes of a sysprof capture's JITMAP */
static bool mod_is_jit(const char *mod)
{
	if (!strcmp(mod, PA_JIT_DSO_NAME))
		return true;
	for (const char *p = strstr(mod, "/tmp/perf-"); p; p = strstr(p + 1, "/tmp/perf-")) {
		const char *q = p + 10;
		if (*q < '0' || *q > '9')
			continue;
		while (*q >= '0' && *q <= '9')
			q++;
		if (!strncmp(q, ".map", 4))
			return true;
	}
	return false;
}

/* stackcollapse-perf.pl's "tidy_generic" on one function name, then its
 * annotations; appends to buf. */
static void tidy(struct pa_buf *b, const char *func, size_t n, bool java)
{
	/* a Go method ("net/http.(*Client).Do") keeps its parentheses */
	bool go = false;
	const char *dot_paren = NULL;
	for (size_t i = 0; i + 1 < n && !go; i++)
		if (func[i] == '.' && func[i + 1] == '(')
			dot_paren = func + i;
	if (dot_paren)
		for (const char *p = dot_paren + 2; p + 1 < func + n && !go; p++)
			go = p[0] == ')' && p[1] == '.';
	size_t cut = n;
	if (!go) {
		/* everything from the first '(' that does not open
		 * "(anonymous namespace)" */
		static const char anon[] = "anonymous namespace)";
		for (size_t i = 0; i < n; i++)
			if (func[i] == '(' && !(n - i - 1 >= sizeof(anon) - 1 &&
			                        !memcmp(func + i + 1, anon, sizeof(anon) - 1))) {
				cut = i;
				break;
			}
	}
	size_t start = b->len;
	for (size_t i = 0; i < cut; i++) {
		char c = func[i];
		if (c == '"' || c == '\'')
			continue;
		if (c == ';')
			c = ':';
		pa_buf_add(b, &c, 1);
	}
	if (java && b->len > start && b->data[start] == 'L' &&
	    memchr(b->data + start, '/', b->len - start)) {
		memmove(b->data + start, b->data + start + 1, b->len - start - 1);
		b->len--;
		b->data[b->len] = 0;
	}
}

/* The frame names (one, or more when perf wrote "a->b") of a loc, as
 * stackcollapse-perf.pl makes them from perf script's line
 * "ADDR NAME (DSO)". */
static int loc_names(struct pa_buf *b, const struct pa_loc *l, bool java, bool ann_kernel,
                     bool ann_jit, size_t *nparts, size_t *part_end, size_t max_parts)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
	const char *mod = loc_mod(l);
	const char *raw = l->sym ? l->sym->name : "[unknown]";
	size_t rn = strlen(raw);
	/* "+0x..." offsets are never printed by default; strip one anyway */
	*nparts = 0;
	const char *p = raw;
	bool first = true;
	while (*nparts < max_parts) {
		const char *arrow = strstr(p, "->");
		size_t n = arrow ? (size_t)(arrow - p) : (size_t)(raw + rn - p);
		if (!arrow && !n && !first)
			break; /* perl's split drops trailing empty fields */
		if (n == 9 && !memcmp(p, "[unknown]", 9)) {
			/* the DSO's file name instead, bracketed, then tidied */
			const char *base = strrchr(mod, '/');
			base = base ? base + 1 : mod;
			char tmp[512];
			int len = strcmp(mod, "[unknown]")
			              ? snprintf(tmp, sizeof(tmp), "[%s]", base)
			              : snprintf(tmp, sizeof(tmp), "[unknown]");
			if (len >= (int)sizeof(tmp))
				len = (int)sizeof(tmp) - 1;
			tidy(b, tmp, (size_t)len, java);
		} else {
			tidy(b, p, n, java);
		}
		if (!first) {
			if (!strstr(b->data + (*nparts ? part_end[*nparts - 1] : 0), "_[i]"))
				pa_buf_add(b, "_[i]", 4);
		} else if (ann_kernel && mod_is_kernel(mod)) {
			pa_buf_add(b, "_[k]", 4);
		} else if (ann_jit && mod_is_jit(mod)) {
			if (!strstr(b->data + (*nparts ? part_end[*nparts - 1] : 0), "_[j]"))
				pa_buf_add(b, "_[j]", 4);
		}
		part_end[(*nparts)++] = b->len;
		first = false;
		if (!arrow)
			break;
		p = arrow + 2;
		/* split drops trailing empty fields: "a->" is just "a" */
		bool rest_empty = true;
		for (const char *q = p; *q && rest_empty; q++)
			rest_empty = false;
		if (rest_empty)
			break;
	}
	return b->data ? 0 : -ENOMEM;
}

/* ---- the folded trie ----------------------------------------------------- */

struct fnode {
	uint32_t parent, name;
	uint32_t first_child, next_sibling;
	uint32_t dso_loc; /* a loc for the dso / kind of the frame */
	uint8_t kind, inlined; /* (with dso_loc: the first bucket's through it) */
	int32_t pid, tid;      /* first sample's thread */
	const char *comm;
	uint64_t count, period; /* stacks ending here */
};

struct folded {
	struct pa_report *r;
	struct names names;
	struct fnode *nodes;
	size_t nr, cap;
	uint32_t *table;
	size_t table_cap;
	struct pa_arena arena;
	/* per loc: first name id and number of names, cached */
	uint32_t *loc_name, *loc_nnames;
	uint32_t *extra; /* name ids of locs with several names */
	size_t nr_extra, cap_extra;
	/* each bucket's way down from its process node (build_folded) */
	struct fwalk *walks;
	size_t nr_walks, cap_walks;
	struct fframe *steps;
	size_t nr_steps, cap_steps;
};

static uint64_t fnode_hash(uint32_t parent, uint32_t name)
{
	return pa_hash64(((uint64_t)parent << 32 | name) ^ 0x5bd1e995);
}

static uint64_t fnode_hash_idx(void *ctx, uint32_t i)
{
	const struct fnode *n = &((struct folded *)ctx)->nodes[i];
	return fnode_hash(n->parent, n->name);
}

static int fnode_child(struct folded *f, uint32_t parent, uint32_t name, uint32_t *out,
                       bool *created)
{
	if (pa_index_table_grow(&f->table, &f->table_cap, f->nr, fnode_hash_idx, f))
		return -ENOMEM;
	size_t mask = f->table_cap - 1;
	size_t j = fnode_hash(parent, name) & mask;
	for (; f->table[j]; j = (j + 1) & mask) {
		const struct fnode *n = &f->nodes[f->table[j] - 1];
		if (n->parent == parent && n->name == name) {
			*out = f->table[j] - 1;
			*created = false;
			return 0;
		}
	}
	if (PA_GROW(f->nodes, f->cap, f->nr + 1, 1024))
		return -ENOMEM;
	f->nodes[f->nr] = (struct fnode){.parent = parent, .name = name};
	f->table[j] = (uint32_t)++f->nr;
	*out = (uint32_t)(f->nr - 1);
	*created = true;
	return 0;
}

struct fframe {
	uint32_t name, loc;
	uint8_t kind, inlined;
};

/* A bucket's names from its process node down to its leaf: steps[off ..
 * off + len), outer first. */
struct fwalk {
	size_t off;
	uint32_t len, proc, bucket;
};

/* -U, -K and -d split a stack the way bcc's profile does: by the context
 * the address was sampled in (a [vdso] frame is user code), not by the
 * module-name rule of the _[k] mark. */
static bool in_kernel_stack(const struct pa_report *r, uint32_t loc)
{
	return pa_report_locs(r)[loc].kernel;
}

/* An inline frame of the resolver's (pa_resolver_symbolize). */
static bool loc_inlined(const struct pa_loc *l)
{
	return l->sym && l->sym->inlined;
}

static int loc_name_ids(struct folded *f, uint32_t li, bool java, struct pa_buf *b,
                        struct fframe *out, size_t max, size_t *n)
{
	struct pa_report *r = f->r;
	const struct pa_loc *l = &pa_report_locs(r)[li];
	/* Java tidying depends on the process name: not cached */
	if (!java && f->loc_nnames[li]) {
		*n = f->loc_nnames[li];
		for (size_t k = 0; k < *n && k < max; k++)
			out[k] = (struct fframe){.name = *n == 1 ? f->loc_name[li]
			                                         : f->extra[f->loc_name[li] + k],
			                         .loc = li,
			                         .kind = (uint8_t)loc_kind(l),
			                         .inlined = k > 0 || loc_inlined(l)};
		return 0;
	}
	size_t ends[16], parts;
	if (loc_names(b, l, java, r->opts.annotate_kernel, r->opts.annotate_jit, &parts, ends, 16))
		return -ENOMEM;
	uint32_t ids[16];
	for (size_t k = 0, start = 0; k < parts; start = ends[k++])
		if (name_id(&f->names, b->data + start, ends[k] - start, &ids[k]))
			return -ENOMEM;
	for (size_t k = 0; k < parts && k < max; k++)
		out[k] = (struct fframe){
		    .name = ids[k],
		    .loc = li,
		    .kind = (uint8_t)loc_kind(l),
		    .inlined = k > 0 || loc_inlined(l)};
	*n = parts;
	if (java)
		return 0;
	if (parts == 1) {
		f->loc_name[li] = ids[0];
	} else {
		if (PA_GROW(f->extra, f->cap_extra, f->nr_extra + parts, 64))
			return -ENOMEM;
		f->loc_name[li] = (uint32_t)f->nr_extra;
		memcpy(f->extra + f->nr_extra, ids, parts * sizeof(*ids));
		f->nr_extra += parts;
	}
	f->loc_nnames[li] = (uint32_t)parts;
	return 0;
}

/* --trim-frames matches a frame's name as printed, or without its _[k],
 * _[j] or _[i] mark: "^hardclock$" trims hardclock_[k] under -a too. */
static bool trim_match(struct pa_report *r, const char *name)
{
	if (!r->has_trim_re)
		return false;
	if (!regexec(&r->trim_re, name, 0, NULL, 0))
		return true;
	size_t n = strlen(name);
	if (n < 4 || (strcmp(name + n - 4, "_[k]") && strcmp(name + n - 4, "_[j]") &&
	              strcmp(name + n - 4, "_[i]")))
		return false;
	char small[512];
	char *bare = n - 4 < sizeof(small) ? small : malloc(n - 3);
	if (!bare)
		return false;
	memcpy(bare, name, n - 4);
	bare[n - 4] = 0;
	bool hit = !regexec(&r->trim_re, bare, 0, NULL, 0);
	if (bare != small)
		free(bare);
	return hit;
}

/* The process frame, as stackcollapse-perf.pl names it from perf script's
 * "COMM PID/TID" (spaces become underscores). */
static int process_name(struct folded *f, const struct bucket *b, struct pa_buf *tmp, uint32_t *out)
{
	struct pa_report *r = f->r;
	tmp->len = 0;
	pa_buf_addf(tmp, "%s", b->comm);
	if (r->opts.stack_tid)
		pa_buf_addf(tmp, "-%d/%d", pa_thread_pid(b->thread), pa_thread_tid(b->thread));
	else if (r->opts.stack_pid)
		pa_buf_addf(tmp, "-%d", pa_thread_pid(b->thread));
	if (!tmp->data)
		return -ENOMEM;
	for (size_t i = 0; i < tmp->len; i++)
		if (tmp->data[i] == ' ')
			tmp->data[i] = '_';
	return name_id(&f->names, tmp->data, tmp->len, out);
}

/* Walks by process node, then their names (a walk before those it is a
 * prefix of), then bucket order. */
static int walk_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct fwalk *a = pa, *b = pb;
	const struct fframe *st = ctx;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	uint32_t n = a->len < b->len ? a->len : b->len;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t x = st[a->off + k].name, y = st[b->off + k].name;
		if (x != y)
			return x < y ? -1 : 1;
	}
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->bucket < b->bucket ? -1 : 1;
}

/* The tree below the process nodes, from the walks sorted: a walk shares
 * with the one before it all the nodes of their common names, and every
 * node past them is new (the walks through a node are neighbours), so no
 * node is looked up; on deep chains the lookups, a cache miss each, were
 * half of pa folded. A node's kind, inline mark and loc are those of the
 * first bucket through it, as when the buckets went down in their order;
 * so are the leaf's thread and comm (equal walks keep bucket order). */
static int build_tree(struct folded *f)
{
	struct pa_report *r = f->r;
	/* the last walk's nodes, and the first bucket through each: a node
	 * is asked that only while it is on the path */
	uint32_t *path = NULL, *first = NULL;
	size_t cap_path = 0, cap_first = 0;
	const struct fwalk *prev = NULL;
	int ret = 0;
	if (f->nr_walks) /* (no walks: no array at all) */
		qsort_r(f->walks, f->nr_walks, sizeof(*f->walks), walk_cmp, f->steps);
	for (size_t i = 0; i < f->nr_walks; i++) {
		const struct fwalk *w = &f->walks[i];
		const struct fframe *st = f->steps + w->off;
		uint32_t k = 0, cur = w->proc;
		if (PA_GROW(path, cap_path, w->len, 256) ||
		    PA_GROW(first, cap_first, w->len, 256) ||
		    PA_GROW(f->nodes, f->cap, f->nr + w->len, 1024)) {
			ret = -ENOMEM;
			break;
		}
		if (prev && prev->proc == w->proc) {
			uint32_t n = prev->len < w->len ? prev->len : w->len;
			const struct fframe *ps = f->steps + prev->off;
			while (k < n && ps[k].name == st[k].name)
				k++;
		}
		for (uint32_t d = 0; d < w->len; d++) {
			struct fnode *nd;
			if (d < k) {
				cur = path[d];
				nd = &f->nodes[cur];
				if (first[d] < w->bucket)
					continue;
			} else {
				cur = (uint32_t)f->nr++;
				nd = &f->nodes[cur];
				*nd = (struct fnode){.parent = d ? path[d - 1] : w->proc,
				                     .name = st[d].name};
				path[d] = cur;
			}
			first[d] = w->bucket;
			nd->kind = st[d].kind;
			nd->inlined = st[d].inlined;
			nd->dso_loc = st[d].loc;
		}
		struct fnode *leaf = &f->nodes[cur];
		const struct bucket *bk = &r->buckets[w->bucket];
		if (!leaf->count && !leaf->period) {
			leaf->pid = pa_thread_pid(bk->thread);
			leaf->tid = pa_thread_tid(bk->thread);
			leaf->comm = bk->comm;
		}
		leaf->count += bk->count;
		leaf->period += bk->period;
		prev = w;
	}
	free(path);
	free(first);
	return ret;
}

static int build_folded(struct folded *f)
{
	struct pa_report *r = f->r;
	int ret = 0;
	struct pa_buf b = {0}, tmp = {0};
	struct fframe *fr = NULL;
	size_t cap_fr = 0;
	/* node 0 is the virtual root above the process frames */
	f->nodes = calloc(1024, sizeof(*f->nodes));
	if (!f->nodes)
		return -ENOMEM;
	f->cap = 1024;
	f->nr = 1;
	f->nodes[0].parent = UINT32_MAX;
	f->loc_name = calloc(pa_resolver_nr_locs(r->res) + 1, sizeof(*f->loc_name));
	f->loc_nnames = calloc(pa_resolver_nr_locs(r->res) + 1, sizeof(*f->loc_nnames));
	if (!f->loc_name || !f->loc_nnames)
		return -ENOMEM;
	int want_evsel = r->filter.nr_events ? -1 : r->first_evsel;
	for (size_t i = 0; i < r->nr_buckets && !ret; i++) {
		const struct bucket *bk = &r->buckets[i];
		if (bk->filtered || (want_evsel >= 0 && (int)bk->evsel != want_evsel))
			continue;
		if (!r->opts.include_idle && pa_thread_pid(bk->thread) == 0)
			continue;
		int n = pa_stack_frames(r, bk->stack);
		if (n < 0) {
			ret = n;
			break;
		}
		/* (stage 1 cut the chain to --max-stack already, as perf
		 * script's cursor holds it) */
		bool java = !strncmp(bk->comm, "java", 4);
		/* leaf first, as perf script prints them */
		size_t nf = 0;
		for (int k = 0; k < n && !ret; k++) {
			uint32_t li = r->frames[k];
			bool in_kernel = in_kernel_stack(r, li);
			if ((r->opts.user_only && in_kernel) || (r->opts.kernel_only && !in_kernel))
				continue;
			if (PA_GROW(fr, cap_fr, nf + 16, 256)) {
				ret = -ENOMEM;
				break;
			}
			size_t got = 0;
			struct fframe parts[16];
			ret = loc_name_ids(f, li, java, &b, parts, 16, &got);
			/* a line "a->b" is the outer "a" then inlined "b": leaf
			 * first means b, then a */
			for (size_t q = got; q-- > 0 && !ret;)
				fr[nf++] = parts[q];
		}
		if (ret)
			break;
		/* --trim-frames: the recorder's own frames at the leaf end */
		size_t skip = 0;
		while (skip < nf && trim_match(r, f->names.str[fr[skip].name]))
			skip++;
		if ((r->opts.user_only || r->opts.kernel_only) && skip == nf)
			continue; /* nothing of the asked kind */
		uint32_t proc, cur;
		bool created;
		if ((ret = process_name(f, bk, &tmp, &proc)) ||
		    (ret = fnode_child(f, 0, proc, &cur, &created)))
			break;
		if (created) {
			f->nodes[cur].pid = pa_thread_pid(bk->thread);
			f->nodes[cur].tid = pa_thread_tid(bk->thread);
			f->nodes[cur].comm = bk->comm;
			f->nodes[cur].dso_loc = UINT32_MAX;
		}
		uint32_t delim = UINT32_MAX;
		if (r->opts.delimiter && (ret = name_id(&f->names, "-", 1, &delim)))
			break;
		/* outer to leaf */
		if (PA_GROW(f->walks, f->cap_walks, f->nr_walks + 1, 1024) ||
		    PA_GROW(f->steps, f->cap_steps, f->nr_steps + 2 * nf, 4096)) {
			ret = -ENOMEM;
			break;
		}
		struct fwalk *w = &f->walks[f->nr_walks++];
		*w = (struct fwalk){.off = f->nr_steps, .proc = cur, .bucket = (uint32_t)i};
		for (size_t k = nf; k-- > skip;) {
			if (r->opts.delimiter && k + 1 < nf && !in_kernel_stack(r, fr[k + 1].loc) &&
			    in_kernel_stack(r, fr[k].loc))
				f->steps[f->nr_steps++] = (struct fframe){
				    .name = delim, .loc = UINT32_MAX, .kind = PA_FRAME_DELIM};
			f->steps[f->nr_steps++] = fr[k];
		}
		w->len = (uint32_t)(f->nr_steps - w->off);
	}
	free(fr);
	pa_buf_release(&b);
	pa_buf_release(&tmp);
	if (!ret)
		ret = build_tree(f);
	/* children lists, for the walk */
	for (size_t i = f->nr; i-- > 1;) {
		struct fnode *n = &f->nodes[i];
		n->next_sibling = f->nodes[n->parent].first_child;
		f->nodes[n->parent].first_child = (uint32_t)i;
	}
	return ret;
}

/* Items of a node's children in the byte order of the lines they start:
 * a child's own line ("name ") and its subtree ("name;...") are two items,
 * since other siblings may sort between them ("b 1" < "b2 1" < "b;c 1"). */
struct item {
	const char *name;
	uint32_t node;
	char suffix; /* ' ' own line, ';' subtree */
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	const unsigned char *x = (const unsigned char *)a->name,
	                    *y = (const unsigned char *)b->name;
	for (;; x++, y++) {
		unsigned cx = *x ? *x : (unsigned char)a->suffix;
		unsigned cy = *y ? *y : (unsigned char)b->suffix;
		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (!*x || !*y) {
			if (*x || *y) {
				/* one name ended (its suffix matched the other's
				 * char): compare what follows */
				return *x ? 1 : -1;
			}
			return (a->suffix > b->suffix) - (a->suffix < b->suffix);
		}
	}
}

struct walk {
	struct folded *f;
	pa_report_stack_fn fn;
	void *ctx;
	struct pa_frame *path;
	size_t depth, cap;
	struct item *items;
	size_t nr_items, cap_items;
};

static int emit(struct walk *w, uint32_t node)
{
	struct folded *f = w->f;
	const struct fnode *n = &f->nodes[node];
	/* path[0] is the process frame */
	struct pa_stack st = {.process = w->path[0].name,
	                      .comm = n->comm,
	                      .pid = n->pid,
	                      .tid = n->tid,
	                      .frames = w->path + 1,
	                      .nr_frames = (uint32_t)(w->depth - 1),
	                      .count = n->count,
	                      .period = n->period};
	return w->fn(w->ctx, &st);
}

static int walk(struct walk *w, uint32_t node)
{
	struct folded *f = w->f;
	size_t base = w->nr_items;
	for (uint32_t c = f->nodes[node].first_child; c; c = f->nodes[c].next_sibling) {
		for (int k = 0; k < 2; k++) {
			if (k == 0 && !f->nodes[c].count && !f->nodes[c].period)
				continue;
			if (k == 1 && !f->nodes[c].first_child)
				continue;
			if (PA_GROW(w->items, w->cap_items, w->nr_items + 1, 256))
				return -ENOMEM;
			w->items[w->nr_items++] =
			    (struct item){f->names.str[f->nodes[c].name], c, k ? ';' : ' '};
		}
	}
	size_t end = w->nr_items;
	if (end > base) /* qsort(NULL, 0) is undefined */
		qsort(w->items + base, end - base, sizeof(*w->items), item_cmp);
	int ret = 0;
	if (PA_GROW(w->path, w->cap, w->depth + 2, 64))
		return -ENOMEM;
	for (size_t i = base; i < end && !ret; i++) {
		struct item it = w->items[i];
		const struct fnode *c = &f->nodes[it.node];
		const struct pa_loc *l = c->dso_loc != UINT32_MAX ? &pa_report_locs(f->r)[c->dso_loc] : NULL;
		w->path[w->depth] =
		    (struct pa_frame){.name = f->names.str[c->name],
		                      .dso = l ? (l->dso ? l->dso->short_name : "[unknown]") : "",
		                      .kind = node ? (enum pa_frame_kind)c->kind : PA_FRAME_USER,
		                      .inlined = c->inlined};
		w->depth++;
		ret = it.suffix == ' ' ? emit(w, it.node) : walk(w, it.node);
		w->depth--;
	}
	w->nr_items = base;
	return ret;
}

int pa_report_foreach_stack(struct pa_report *r, pa_report_stack_fn fn, void *ctx)
{
	if (!r->chains)
		return -EINVAL;
	struct folded f = {.r = r};
	pa_arena_init(&f.arena, 64 * 1024);
	f.names.arena = &f.arena;
	int ret = build_folded(&f);
	struct walk w = {.f = &f, .fn = fn, .ctx = ctx};
	if (!ret)
		ret = walk(&w, 0);
	free(w.path);
	free(w.items);
	free(f.nodes);
	free(f.table);
	free(f.loc_name);
	free(f.loc_nnames);
	free(f.extra);
	free(f.walks);
	free(f.steps);
	free(f.names.str);
	free(f.names.table);
	pa_arena_release(&f.arena);
	return ret;
}
