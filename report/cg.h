/* cg.h - what the hist entries with call graphs (callgraph.c) and their
 * printing (cgprint.c) share: the entries' match keys, the pool of
 * cursors and the references to them. Only those two include it. */
#ifndef PA_REPORT_CG_H
#define PA_REPORT_CG_H

#include "internal.h"

struct mkey {
	uint32_t dso_ord; /* 0: no DSO; else dso idx + 1 (perf compares dso pointers) */
	uint32_t has_sym; /* MK_* */
	uint64_t v;       /* symbol start, the raw ip, or an inline frame's interned name */
};

/* What match_chain compares: the symbol (DSO and start), the raw ip
 * without one, or an inline frame's name alone (perf compares inlined
 * frames by name, whatever their DSO). */
enum { MK_IP, MK_SYM, MK_INLINE };

static inline const char *mkey_name(const struct mkey *k)
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

/* A sample's keys that its entries carry besides its location: comm,
 * thread, cpu, parent, event. */
struct sample_ctx {
	const char *comm, *parent;
	int32_t tid;
	uint32_t cpu;
	unsigned evsel;
};

/* The children entry a chain location led to, and the sample context it
 * was for: what entry_eq compares besides the location's DSO, symbol and
 * address. Buckets of one thread follow each other, so most lookups of a
 * location repeat the last one. */
struct memo {
	struct sample_ctx key; /* the context it was made in */
	uint32_t entry;        /* + 1; 0: none yet */
	uint32_t ctx;   /* not r->ordered, a chain memo: cg_state's ctx when it was made */
	/* r->ordered: the trees' gen when the entry was found there (not
	 * made): the same search of unchanged trees finds it again */
	uint64_t gen;
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
	const char **ip_src;              /* per loc, with the srcline key: its chain entry's */
	const char **cc_src;              /* per loc, for -g address: what follows its name */
	bool sym_key;                     /* the sym key is one (perf's quick duplicate check) */
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
	bool any_merged;    /* pa_cg_merge merged an entry into another */
	/* not r->ordered: the sample contexts of the buckets, each once,
	 * and the number (+ 1) of the current one, which a chain memo made
	 * in it carries (one compare a chain entry, not five) */
	struct sample_ctx *ctxs;
	size_t nr_ctx, cap_ctx;
	uint32_t *ctx_table;
	size_t ctx_table_cap;
	uint32_t ctx;
};

/* The graph threshold of an entry's event, as an absolute period. */
uint64_t pa_cg_entry_min_hit(const struct pa_report *r, const struct cg_entry *e);
/* Whether an entry's graph may print anything at all. */
bool pa_cg_may_print_graph(const struct pa_report *r, const struct cg_entry *e);

#endif
