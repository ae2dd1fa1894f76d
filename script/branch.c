/* branch.c - perf script's branch stack fields: brstack (raw addresses),
 * brstacksym (symbol+offset) and brstackoff (offsets in their DSOs), each
 * entry followed by its flags, " (DSO)" after each end with -F dso. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

/* perf's get_branch_type(): "" for an unknown type, an EXTEND_ABI
 * entry's new type (glibc prints a NULL name as "(null)") */
static const char *type_text(const struct pa_branch_flags *f)
{
	const char *s = !f->type        ? ""
	                : f->type == 15 ? pa_branch_new_type_name(f->new_type)
	                                : pa_branch_type_name(f->type);
	return s ? s : "(null)";
}

/* perf's print_bstack_flags: "/M/X/A/CYCLES/TYPE " */
static void put_flags(struct obuf *b, uint64_t flags)
{
	struct pa_branch_flags f = pa_branch_flags(flags);
	ob_char(b, '/');
	ob_char(b, f.predicted ? 'P' : f.mispred ? 'M' : '-');
	ob_char(b, '/');
	ob_char(b, f.in_tx ? 'X' : '-');
	ob_char(b, '/');
	ob_char(b, f.abort ? 'A' : '-');
	ob_char(b, '/');
	ob_num(b, f.cycles, 10, 0, false);
	ob_char(b, '/');
	ob_str(b, type_text(&f));
	ob_char(b, ' ');
}

static void put_dso(const struct pa_script *sc, const struct out_type *o, const struct pa_loc *l,
                    struct obuf *b)
{
	if (!(o->fields & F_DSO))
		return;
	ob_char(b, '(');
	ob_str(b, pa_script_dso_name(sc, l->dso));
	ob_char(b, ')');
}

/* brstacksym's end: perf's symbol__fprintf_symname_offs */
static void put_sym(struct pa_script *sc, const struct pa_loc *l, struct obuf *b)
{
	if (!l->sym) {
		ob_str(b, "[unknown]");
		return;
	}
	ob_str(b, l->sym->name);
	ob_mem(b, "+0x", 3);
	ob_num(b, pa_resolver_sym_offset(pa_trace_resolver(sc->t), l), 16, 0, false);
}

/* brstackoff's end: perf takes the map-relative address unless the DSO
 * "adjusts symbols", which it knows only once its symbol table was read
 * (a user DSO read from its ELF file): its answer changes from the first
 * sample whose own address (or call chain) is in the DSO. */
static uint64_t off_of(const struct pa_script *sc, const struct pa_loc *l, uint64_t raw)
{
	if (!l->dso)
		return raw;
	bool loaded = l->dso->idx < sc->nr_seen && sc->dso_seen[l->dso->idx] &&
	              pa_resolver_dso_from_elf(pa_trace_resolver(sc->t), l->dso);
	return loaded ? raw : l->addr;
}

/* The DSOs of the sample's own location and printed chain: perf has
 * read their symbols by now. 0 or -ENOMEM. */
static int mark_seen(struct pa_script *sc, const struct pa_trace_sample *sm, bool chain)
{
	const struct pa_loc *locs = pa_resolver_locs(pa_trace_resolver(sc->t));
	unsigned n = pa_session_nr_dsos(pa_trace_session(sc->t));
	if (n > sc->nr_seen) {
		uint8_t *p = realloc(sc->dso_seen, n);
		if (!p)
			return -ENOMEM;
		for (unsigned i = sc->nr_seen; i < n; i++)
			p[i] = 0;
		sc->dso_seen = p;
		sc->nr_seen = n;
	}
	for (uint32_t i = 0; i <= (chain ? sm->nr_frames : 0); i++) {
		const struct pa_loc *l = &locs[i ? sm->frames[i - 1] : sm->loc];
		if (l->dso && l->dso->idx < n)
			sc->dso_seen[l->dso->idx] = 1;
	}
	return 0;
}

/* One end of an entry in the field f's form (then its DSO, with -F dso):
 * " 0xRAW" (brstack), "SYM+0xOFF" (brstacksym), " 0xOFF" (brstackoff). */
static void put_end(struct pa_script *sc, const struct out_type *o, uint64_t f,
                    const struct pa_loc *l, uint64_t raw, bool from, struct obuf *b)
{
	if (f & F_BRSTACKSYM && !(f & F_BRSTACK)) {
		put_sym(sc, l, b);
	} else {
		if (from)
			ob_char(b, ' ');
		ob_mem(b, "0x", 2);
		ob_num(b, f & F_BRSTACK ? raw : off_of(sc, l, raw), 16, 0, false);
	}
	put_dso(sc, o, l, b);
}

int pa_script_branches(struct pa_script *sc, const struct out_type *o,
                       const struct pa_trace_sample *sm, bool chain, struct obuf *b)
{
	uint64_t f = o->fields;
	if (!(f & (F_BRSTACK | F_BRSTACKSYM | F_BRSTACKOFF)))
		return 0;
	if (mark_seen(sc, sm, chain))
		return -ENOMEM;
	const struct pa_loc *locs = pa_resolver_locs(pa_trace_resolver(sc->t));
	for (uint32_t i = 0; i < sm->nr_branches; i++) {
		const struct pa_trace_branch *br = &sm->branches[i];
		put_end(sc, o, f, &locs[br->from_loc], br->from, true, b);
		ob_char(b, '/');
		put_end(sc, o, f, &locs[br->to_loc], br->to, false, b);
		put_flags(b, br->flags);
	}
	return 0;
}
