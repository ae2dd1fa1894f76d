/* keys.c - the sort keys and columns of perf report: one table of what each
 * is called, how it compares (pa's collapse order, perf's se_cmp and
 * se_sort) and how its cells are sized and printed. */
#include "internal.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int pa_key_cmp_str(const char *a, const char *b)
{
	if (a == b) /* interned comms, one DSO's name */
		return 0;
	int c = strcmp(a, b);
	return (c > 0) - (c < 0);
}

/* perf's cmp_null: an entry without the thing sorts first when
 * collapsing (and so last in the output order). */
int pa_key_cmp_null(const void *a, const void *b)
{
	return !a && !b ? 0 : !a ? -1 : 1;
}

static int sgn64(int64_t v)
{
	return (v > 0) - (v < 0);
}

static const char *dso_name(const struct pa_dso *d)
{
	return d ? d->short_name : "[unknown]";
}

/* ---- cells -----------------------------------------------------------------
 * Without printf's per-call setup: a large profile prints tens of
 * thousands of rows. Each returns what snprintf would, and falls back to
 * it when the text does not fit. */

int pa_put_left(char *buf, size_t size, const char *s, int width, int max)
{
	size_t len = strlen(s);
	if (max >= 0 && len > (size_t)max)
		len = (size_t)max;
	size_t w = width > 0 && (size_t)width > len ? (size_t)width : len;
	if (w + 1 > size)
		return snprintf(buf, size, "%-*.*s", width, (int)len, s);
	memcpy(buf, s, len);
	memset(buf + len, ' ', w - len);
	buf[w] = 0;
	return (int)w;
}

/* "[l] %-#*.16" PRIx64: an unresolved address, left-justified in pad. */
static int put_addr(char *buf, size_t size, char level, uint64_t addr, int pad)
{
	char t[24];
	int n = 0;
	if (addr) {
		t[n++] = '0';
		t[n++] = 'x';
	}
	for (int i = 15; i >= 0; i--)
		t[n++] = "0123456789abcdef"[(addr >> (4 * i)) & 15];
	t[n] = 0;
	if (size < 5) /* the line is full: say so the way snprintf would */
		return size ? (buf[0] = 0, (int)size) : 0;
	memcpy(buf, (char[4]){'[', level, ']', ' '}, 4);
	return 4 + pa_put_left(buf + 4, size - 4, t, pad, -1);
}

/* ---- comm ---- */

static int comm_collapse(const struct hkey *a, const struct hkey *b)
{
	return pa_key_cmp_str(a->comm, b->comm);
}

static int comm_cmp(const struct hkey *l, const struct hkey *r)
{
	return pa_key_cmp_str(r->comm, l->comm);
}

static uint64_t comm_hash(const struct hkey *k)
{
	return pa_hash_str(k->comm);
}

/* perf sizes the column by each thread's last comm, not by the comm at
 * sample time (an exec renames a thread afterwards) */
static size_t comm_width(const struct hkey *k)
{
	return strlen(k->thread_comm);
}

static int comm_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last; /* cut to the width, which came from the threads' last comms */
	return pa_put_left(buf, size, k->comm, width, width);
}

/* ---- pid, tid ---- */

static int tid_collapse(const struct hkey *a, const struct hkey *b)
{
	return PA_CMP(a->tid, b->tid);
}

static int tid_cmp(const struct hkey *l, const struct hkey *r)
{
	return PA_CMP(r->tid, l->tid);
}

static uint64_t tid_hash(const struct hkey *k)
{
	return (uint32_t)k->tid;
}

/* the comm part is at least as wide as "Command" */
static size_t tid_width(const struct hkey *k)
{
	return (strlen(k->thread_comm) > 7 ? strlen(k->thread_comm) : 7) + 8;
}

static int tid_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last;
	return snprintf(buf, size, "%7d:%-*.*s", k->tid, width > 8 ? width - 8 : 0,
	                width > 8 ? width - 8 : 0, k->thread_comm);
}

/* ---- dso ---- */

/* The DSO's name as perf shows and compares it (-v: the long name) */
static const char *dso_shown(const struct hkey *k)
{
	return k->dso && k->verbose ? k->dso->long_name : dso_name(k->dso);
}

static int dso_collapse(const struct hkey *a, const struct hkey *b)
{
	if (a->dso == b->dso)
		return 0;
	if (!a->dso || !b->dso) /* perf: entries without a DSO last */
		return a->dso ? -1 : 1;
	return pa_key_cmp_str(dso_shown(a), dso_shown(b));
}

static int dso_cmp(const struct hkey *l, const struct hkey *r)
{
	if (!l->dso || !r->dso)
		return pa_key_cmp_null(l->dso, r->dso);
	return pa_key_cmp_str(dso_shown(r), dso_shown(l));
}

static uint64_t dso_hash(const struct hkey *k)
{
	return k->dso ? pa_hash_str(dso_shown(k)) : 0;
}

static size_t dso_width(const struct hkey *k)
{
	return k->dso ? strlen(dso_shown(k)) : 0;
}

static int dso_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last;
	return pa_put_left(buf, size, dso_shown(k), width, -1);
}

/* ---- sym ---- */

static int sym_collapse(const struct hkey *a, const struct hkey *b)
{
	if (!a->sym && !b->sym) /* perf: the address only */
		return PA_CMP(a->addr, b->addr);
	if (!a->sym || !b->sym)
		return a->sym ? 1 : -1;
	if (a->dso != b->dso) {
		int c = pa_key_cmp_str(dso_shown(a), dso_shown(b));
		if (c)
			return c;
	}
	/* inline frames by name (perf: and an overlap, which the symbols of
	 * one name inlined into one function have), after the others */
	if (a->sym->inlined != b->sym->inlined)
		return a->sym->inlined ? 1 : -1;
	if (a->sym->inlined) {
		int c = pa_key_cmp_str(a->sym->name, b->sym->name);
		if (c)
			return c;
	}
	return PA_CMP(a->sym->start, b->sym->start);
}

/* perf's sort__sym_cmp: unresolved addresses by their wrapping difference,
 * only among themselves; else the DSO first */
static int sym_cmp(const struct hkey *l, const struct hkey *r)
{
	if (!l->sym && !r->sym)
		return sgn64((int64_t)(r->addr - l->addr));
	if (l->dso != r->dso) {
		int c = dso_cmp(l, r);
		if (c)
			return c;
	}
	if (!l->sym || !r->sym)
		return pa_key_cmp_null(l->sym, r->sym);
	if (l->sym == r->sym)
		return 0;
	if (l->sym->inlined || r->sym->inlined) {
		int c = pa_key_cmp_str(l->sym->name, r->sym->name);
		if (c)
			return c;
		if (l->sym->start <= r->sym->end && l->sym->end >= r->sym->start)
			return 0;
	}
	if (l->sym->start != r->sym->start)
		return sgn64((int64_t)(r->sym->start - l->sym->start));
	return sgn64((int64_t)(r->sym->end - l->sym->end));
}

/* Equal symbols start at one address (an inline frame's where the
 * function it was inlined into does) in DSOs of one name. */
static uint64_t sym_hash(const struct hkey *k)
{
	return k->sym ? k->sym->start ^ dso_hash(k) : k->addr ^ 7;
}

/* perf's sort__sym_sort: by name */
static int sym_sort(const struct hkey *a, const struct hkey *b)
{
	if (!a->sym || !b->sym)
		return pa_key_cmp_null(a->sym, b->sym);
	return pa_key_cmp_str(b->sym->name, a->sym->name);
}

/* -v's prefix of a symbol: "%-#18llx %c " of its address and origin
 * (perf's column width counts it only for a resolved symbol) */
#define VERBOSE_PREFIX (PA_UNRESOLVED_WIDTH + 2 + 3)

static size_t sym_width(const struct hkey *k)
{
	if (!k->sym)
		return PA_UNRESOLVED_WIDTH + 6;
	return strlen(k->sym->name) + 4 + (k->verbose ? VERBOSE_PREFIX : 0);
}

static int sym_format_plain(char *buf, size_t size, const struct hkey *k, int width, bool last);

static int sym_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	if (!k->verbose)
		return sym_format_plain(buf, size, k, width, last);
	int n = snprintf(buf, size, "%-#*" PRIx64 " %c ", PA_UNRESOLVED_WIDTH + 2, k->addr,
	                 k->origin ? k->origin : '!');
	if (n < 0 || (size_t)n >= size)
		return n;
	return n + sym_format_plain(buf + n, size - (size_t)n, k, width > n ? width - n : 0, last);
}

static int sym_format_plain(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	/* perf pads the symbol unless it ends the line */
	int pad = last ? 0 : (width > 4 ? width - 4 : 0);
	if (k->sym) {
		if (size < 5)
			return size ? (buf[0] = 0, (int)size) : 0;
		memcpy(buf, (char[4]){'[', k->level, ']', ' '}, 4);
		if (k->sym->type == STT_OBJECT) { /* (perf does not cut it) */
			int n = snprintf(NULL, 0, "%s+0x%" PRIx64, k->sym->name, k->off);
			return 4 + snprintf(buf + 4, size - 4, "%s+0x%" PRIx64 "%*s", k->sym->name,
			                    k->off, pad > n ? pad - n : 0, "");
		}
		if (!k->sym->inlined)
			return 4 + pa_put_left(buf + 4, size - 4, k->sym->name, pad, -1);
		/* perf adds the mark past the name (its width has none) */
		int n = pa_put_left(buf + 4, size - 4, k->sym->name, 0, -1);
		if ((size_t)n >= size - 4)
			return 4 + n;
		return 4 + n + pa_put_left(buf + 4 + n, size - 4 - (size_t)n, " (inlined)",
		                           pad > n ? pad - n : 0, -1);
	}
	return put_addr(buf, size, k->level, k->addr, pad);
}

/* ---- cpu ---- */

static int cpu_collapse(const struct hkey *a, const struct hkey *b)
{
	return PA_CMP(a->cpu, b->cpu);
}

static int cpu_cmp(const struct hkey *l, const struct hkey *r)
{
	return PA_CMP(r->cpu, l->cpu);
}

static uint64_t cpu_hash(const struct hkey *k)
{
	return k->cpu;
}

static size_t cpu_width(const struct hkey *k)
{
	(void)k; /* perf: always 3, whatever the value */
	return 3;
}

static int cpu_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last;
	return snprintf(buf, size, "%*.*d", width, 3, (int)k->cpu);
}

/* ---- parent ---- */

static int parent_collapse(const struct hkey *a, const struct hkey *b)
{
	if (!a->parent || !b->parent)
		return pa_key_cmp_null(a->parent, b->parent);
	return pa_key_cmp_str(a->parent, b->parent);
}

static int parent_cmp(const struct hkey *l, const struct hkey *r)
{
	if (!l->parent || !r->parent)
		return pa_key_cmp_null(l->parent, r->parent);
	return pa_key_cmp_str(r->parent, l->parent);
}

static uint64_t parent_hash(const struct hkey *k)
{
	return k->parent ? pa_hash_str(k->parent) : 0;
}

static size_t parent_width(const struct hkey *k)
{
	return k->parent ? strlen(k->parent) : 0;
}

static int parent_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last;
	return snprintf(buf, size, "%-*.*s", width, width, k->parent ? k->parent : "[other]");
}

/* ---- srcline ---- */

static int srcline_collapse(const struct hkey *a, const struct hkey *b)
{
	return pa_key_cmp_str(a->srcline ? a->srcline : "", b->srcline ? b->srcline : "");
}

static int srcline_cmp(const struct hkey *l, const struct hkey *r)
{
	return pa_key_cmp_str(r->srcline ? r->srcline : "", l->srcline ? l->srcline : "");
}

static uint64_t srcline_hash(const struct hkey *k)
{
	return pa_hash_str(k->srcline ? k->srcline : "");
}

static size_t srcline_width(const struct hkey *k)
{
	return k->srcline && !k->src_late ? strlen(k->srcline) : 0;
}

static int srcline_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	if (k->src_late)
		return snprintf(buf, size, "%-*.*s", last ? 0 : width, width,
		                k->srcline ? k->srcline : "");
	return snprintf(buf, size, "%-*s", last ? 0 : width, k->srcline ? k->srcline : "");
}

/* ---- branch mode ----------------------------------------------------------
 * A row's target is its own dso/sym/addr; a key of the source reads the
 * same functions on a view of the row with the source in their place. */

static struct hkey from_view(const struct hkey *k)
{
	struct hkey v = *k;
	v.dso = k->dso_from;
	v.sym = k->sym_from;
	v.addr = k->addr_from;
	v.ip = k->ip_from;
	v.off = k->off_from;
	v.level = k->level_from;
	v.origin = k->origin_from;
	return v;
}

#define FROM_VIEW(fn, ret)                                                                         \
	static ret fn##_from(const struct hkey *k)                                                 \
	{                                                                                          \
		struct hkey v = from_view(k);                                                      \
		return fn(&v);                                                                     \
	}
#define FROM_VIEW2(fn)                                                                             \
	static int fn##_from(const struct hkey *a, const struct hkey *b)                           \
	{                                                                                          \
		struct hkey va = from_view(a), vb = from_view(b);                                  \
		return fn(&va, &vb);                                                               \
	}
#define FROM_FORMAT(fn)                                                                            \
	static int fn##_from(char *buf, size_t size, const struct hkey *k, int width, bool last)   \
	{                                                                                          \
		struct hkey v = from_view(k);                                                      \
		return fn(buf, size, &v, width, last);                                             \
	}

/* perf's dso_from/dso_to compare (left, right) where its dso key
 * compares (right, left) */
static int dso_to_cmp(const struct hkey *l, const struct hkey *r)
{
	return dso_cmp(r, l);
}
#define dso_to_collapse dso_collapse
#define dso_to_hash     dso_hash
#define dso_to_width    dso_width
#define dso_to_format   dso_format
FROM_VIEW2(dso_to_cmp)
FROM_VIEW2(dso_collapse)
FROM_VIEW(dso_hash, uint64_t)
FROM_VIEW(dso_width, size_t)
FROM_FORMAT(dso_format)
#define dso_from_cmp      dso_to_cmp_from
#define dso_from_collapse dso_collapse_from
#define dso_from_hash     dso_hash_from
#define dso_from_width    dso_width_from
#define dso_from_format   dso_format_from

/* perf's sort__sym_from_cmp / sym_to: two unresolved ends by address,
 * else the symbols alone (no DSO) */
static int sym_to_cmp(const struct hkey *l, const struct hkey *r)
{
	if (!l->sym && !r->sym)
		return sgn64((int64_t)(r->ip - l->ip));
	if (!l->sym || !r->sym)
		return pa_key_cmp_null(l->sym, r->sym);
	if (l->sym == r->sym)
		return 0;
	if (l->sym->start != r->sym->start)
		return sgn64((int64_t)(r->sym->start - l->sym->start));
	return sgn64((int64_t)(r->sym->end - l->sym->end));
}
#define sym_to_collapse sym_collapse
#define sym_to_hash     sym_hash
#define sym_to_width    sym_width
#define sym_to_format   sym_format
FROM_VIEW2(sym_to_cmp)
FROM_VIEW2(sym_collapse)
FROM_VIEW(sym_hash, uint64_t)
FROM_VIEW(sym_width, size_t)
FROM_FORMAT(sym_format)
#define sym_from_cmp      sym_to_cmp_from
#define sym_from_collapse sym_collapse_from
#define sym_from_hash     sym_hash_from
#define sym_from_width    sym_width_from
#define sym_from_format   sym_format_from

/* perf's addr_from/addr_to: the DSO (as dso_from), then the address;
 * shown as symbol+offset with the sample's level, never padded, the name
 * cut to the column (whose width only the header and an unresolved
 * address set: print.c) */
static int addr_to_cmp(const struct hkey *l, const struct hkey *r)
{
	int c = dso_to_cmp(l, r);
	return c ? c : sgn64((int64_t)(r->ip - l->ip));
}

static int addr_to_collapse(const struct hkey *a, const struct hkey *b)
{
	int c = dso_collapse(a, b);
	return c ? c : PA_CMP(a->ip, b->ip);
}

static uint64_t addr_to_hash(const struct hkey *k)
{
	return dso_hash(k) ^ pa_hash64(k->ip);
}

static int addr_to_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last;
	int cut = width > 4 ? width - 4 : 0;
	if (!k->sym || !k->dso)
		return snprintf(buf, size, "[%c] %#.16" PRIx64, k->sample_level, k->addr);
	if (!k->off)
		return snprintf(buf, size, "[%c] %.*s", k->sample_level, cut, k->sym->name);
	return snprintf(buf, size, "[%c] %.*s+%#" PRIx64, k->sample_level, cut, k->sym->name,
	                k->off);
}

static size_t addr_to_width(const struct hkey *k)
{
	(void)k;
	return 0;
}
FROM_VIEW2(addr_to_cmp)
FROM_VIEW2(addr_to_collapse)
FROM_VIEW(addr_to_hash, uint64_t)
FROM_VIEW(addr_to_width, size_t)
FROM_FORMAT(addr_to_format)
#define addr_from_cmp      addr_to_cmp_from
#define addr_from_collapse addr_to_collapse_from
#define addr_from_hash     addr_to_hash_from
#define addr_from_width    addr_to_width_from
#define addr_from_format   addr_to_format_from

/* The flags: one field of pa_branch_flags each. */
static int flag_cell(char *buf, size_t size, const char *s, int width)
{
	return pa_put_left(buf, size, s, width, -1);
}

static size_t flag_width(const struct hkey *k)
{
	(void)k;
	return 0; /* the header's */
}

/* perf's sort__mispredict_cmp says only "differ" (1) or not: no order */
static int mispredict_cmp(const struct hkey *l, const struct hkey *r)
{
	return (l->bflags & 3) != (r->bflags & 3);
}

static int mispredict_collapse(const struct hkey *a, const struct hkey *b)
{
	return PA_CMP(a->bflags & 3, b->bflags & 3);
}

static uint64_t mispredict_hash(const struct hkey *k)
{
	return k->bflags & 3;
}

#define mispredict_width flag_width
static int mispredict_format(char *buf, size_t size, const struct hkey *k, int width, bool last)
{
	(void)last;
	struct pa_branch_flags f = pa_branch_flags(k->bflags);
	/* (perf's printed text: predicted first, see pa_branch_shown_mispredict) */
	const char *s = k->mp_shown ? k->mp_shown : f.predicted ? "N" : f.mispred ? "Y" : "N/A";
	return flag_cell(buf, size, s, width);
}

/* in_tx, abort: perf's comparators say "differ" (1) or not, as
 * mispredict's; cycles: left minus right */
#define FLAG_KEY(name, field, cmp_expr, text)                                                      \
	static int name##_cmp(const struct hkey *l, const struct hkey *r)                          \
	{                                                                                          \
		unsigned a = pa_branch_flags(l->bflags).field,                                     \
		         b = pa_branch_flags(r->bflags).field;                                     \
		return cmp_expr;                                                                   \
	}                                                                                          \
	static int name##_collapse(const struct hkey *a, const struct hkey *b)                     \
	{                                                                                          \
		return PA_CMP(pa_branch_flags(a->bflags).field, pa_branch_flags(b->bflags).field); \
	}                                                                                          \
	static uint64_t name##_hash(const struct hkey *k)                                          \
	{                                                                                          \
		return pa_branch_flags(k->bflags).field;                                           \
	}                                                                                          \
	static int name##_format(char *buf, size_t size, const struct hkey *k, int width,          \
	                         bool last)                                                        \
	{                                                                                          \
		(void)last;                                                                        \
		struct pa_branch_flags f = pa_branch_flags(k->bflags);                             \
		return text;                                                                       \
	}
#define in_tx_width flag_width
#define abort_width flag_width
FLAG_KEY(in_tx, in_tx, a != b, flag_cell(buf, size, f.in_tx ? "T" : ".", width))
FLAG_KEY(abort, abort, a != b, flag_cell(buf, size, f.abort ? "A" : ".", width))
/* cycles: perf prints them as a short */
FLAG_KEY(cycles, cycles, PA_CMP(a, b),
         f.cycles ? snprintf(buf, size, "%-*hd", width, (short)f.cycles)
                  : flag_cell(buf, size, "-", width))

static size_t cycles_width(const struct hkey *k)
{
	char b[16];
	return (size_t)snprintf(b, sizeof(b), "%hd", (short)pa_branch_flags(k->bflags).cycles);
}

/* srcline_from, srcline_to: perf's map__srcline of each end (file:line,
 * else SYM+OFF, DSO[ADDR] or ??:0), compared (right, left) as strings;
 * an entry perf never compared on the key prints "(null)", one it
 * compared only after sizing the columns prints cut to the column */
#define LAZY_SRCLINE_KEY(end)                                                                      \
	static const char *srcline_##end##_of(const struct hkey *k)                                \
	{                                                                                          \
		return k->srcline_##end ? k->srcline_##end : "";                                   \
	}                                                                                          \
	static int srcline_##end##_cmp(const struct hkey *l, const struct hkey *r)                 \
	{                                                                                          \
		return pa_key_cmp_str(srcline_##end##_of(r), srcline_##end##_of(l));               \
	}                                                                                          \
	static int srcline_##end##_collapse(const struct hkey *a, const struct hkey *b)            \
	{                                                                                          \
		return pa_key_cmp_str(srcline_##end##_of(a), srcline_##end##_of(b));               \
	}                                                                                          \
	static uint64_t srcline_##end##_hash(const struct hkey *k)                                 \
	{                                                                                          \
		return pa_hash_str(srcline_##end##_of(k));                                         \
	}                                                                                          \
	static size_t srcline_##end##_width(const struct hkey *k)                                  \
	{                                                                                          \
		return k->lazy_##end == PA_LAZY_SIZED ? strlen(srcline_##end##_of(k)) : 0;         \
	}                                                                                          \
	static int srcline_##end##_format(char *buf, size_t size, const struct hkey *k, int width, \
	                                  bool last)                                               \
	{                                                                                          \
		(void)last;                                                                        \
		const char *s = k->lazy_##end == PA_LAZY_NEVER ? "(null)" : srcline_##end##_of(k); \
		return snprintf(buf, size, "%-*.*s", width, width, s);                             \
	}
LAZY_SRCLINE_KEY(from)
LAZY_SRCLINE_KEY(to)

/* ---- the table ---------------------------------------------------------- */

#define SORT_KEY_DIFF(n, h, f, sort_fn, diff_fn, need_syms)                                        \
	{                                                                                          \
		.name = n, .header = h, .is_sort = true, .syms = need_syms, .collapse = f##_collapse, \
		.cmp = f##_cmp, .hash = f##_hash, .sort = sort_fn, .diff = diff_fn,                \
		.natural_width = f##_width, .format = f##_format                                   \
	}
#define SORT_KEY(n, h, f, sort_fn, need_syms) SORT_KEY_DIFF(n, h, f, sort_fn, f##_collapse, need_syms)

const struct pa_key_def pa_keys[] = {
    [K_OVERHEAD] = {.name = "overhead",
                    .header = "Overhead",
                    .width = 8,
                    .right = true,
                    .sorts_by = PA_BY_PERIOD},
    [K_SAMPLE] = {.name = "sample",
                  .header = "Samples",
                  .width = 12,
                  .right = true,
                  .sorts_by = PA_BY_COUNT},
    [K_PERIOD] = {.name = "period",
                  .header = "Period",
                  .width = 12,
                  .right = true,
                  .sorts_by = PA_BY_PERIOD},
    [K_COMM] = {.name = "comm",
                .header = "Command",
                .is_sort = true,
                .perf_collapse = true, /* perf 6.1: comm alone of these keys */
                .collapse = comm_collapse,
                .cmp = comm_cmp,
                .hash = comm_hash,
                .sort = comm_cmp,
                .diff = comm_collapse,
                .natural_width = comm_width,
                .format = comm_format},
    [K_PID] = SORT_KEY("pid", "    Pid:Command", tid, tid_cmp, false),
    [K_TID] = SORT_KEY("tid", "    Tid:Command", tid, tid_cmp, false),
    [K_DSO] = SORT_KEY("dso", "Shared Object", dso, dso_cmp, false),
    /* perf diff compares symbols by name (two recordings, two binaries) */
    [K_SYM] = SORT_KEY_DIFF("sym", "Symbol", sym, sym_sort, sym_sort, true),
    [K_CPU] = SORT_KEY("cpu", "CPU", cpu, cpu_cmp, false),
    [K_PARENT] = SORT_KEY("parent", "Parent symbol", parent, parent_cmp, true),
    [K_CHILDREN] = {.name = "overhead_children",
                    .alias = "children",
                    .header = "Children",
                    .width = 8,
                    .right = true,
                    .sorts_by = PA_BY_CHILDREN},
    [K_SRCLINE] = SORT_KEY("srcline", "Source:Line", srcline, srcline_cmp, true),
    /* branch mode's (perf has no se_sort for them: its output sorts by se_cmp) */
    [K_DSO_FROM] = SORT_KEY("dso_from", "Source Shared Object", dso_from, dso_from_cmp, false),
    [K_DSO_TO] = SORT_KEY("dso_to", "Target Shared Object", dso_to, dso_to_cmp, false),
    [K_SYM_FROM] = SORT_KEY("symbol_from", "Source Symbol", sym_from, sym_from_cmp, true),
    [K_SYM_TO] = SORT_KEY("symbol_to", "Target Symbol", sym_to, sym_to_cmp, true),
    [K_MISPREDICT] =
        SORT_KEY("mispredict", "Branch Mispredicted", mispredict, mispredict_cmp, false),
    [K_IN_TX] = SORT_KEY("in_tx", "Branch in transaction", in_tx, in_tx_cmp, false),
    [K_ABORT] = SORT_KEY("abort", "Transaction abort", abort, abort_cmp, false),
    [K_CYCLES] = SORT_KEY("cycles", "Basic Block Cycles", cycles, cycles_cmp, false),
    [K_ADDR_FROM] = SORT_KEY("addr_from", "Source Address", addr_from, addr_from_cmp, true),
    [K_ADDR_TO] = SORT_KEY("addr_to", "Target Address", addr_to, addr_to_cmp, true),
    [K_SRCLINE_FROM] =
        SORT_KEY("srcline_from", "From Source:Line", srcline_from, srcline_from_cmp, true),
    [K_SRCLINE_TO] = SORT_KEY("srcline_to", "To Source:Line", srcline_to, srcline_to_cmp, true),
};
_Static_assert(sizeof(pa_keys) / sizeof(pa_keys[0]) == K_SRCLINE_TO + 1, "a key without an entry");

int pa_key_find(const char *name, size_t n)
{
	for (unsigned i = 0; i < PA_ARRAY_SIZE(pa_keys); i++) {
		const char *al = pa_keys[i].alias;
		if ((strlen(pa_keys[i].name) == n && !strncmp(pa_keys[i].name, name, n)) ||
		    (al && strlen(al) == n && !strncmp(al, name, n)))
			return (int)i;
	}
	if (n == 6 && !strncmp(name, "symbol", 6))
		return K_SYM;
	return -1;
}

bool pa_keys_perf_collapse(const int *keys, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (pa_keys[keys[i]].perf_collapse)
			return true;
	return false;
}

uint64_t pa_key_hash(const int *keys, unsigned n, const struct hkey *k)
{
	uint64_t h = 0;
	for (unsigned i = 0; i < n; i++)
		h = pa_hash64(h ^ pa_keys[keys[i]].hash(k) ^ ((uint64_t)keys[i] << 56));
	return h;
}

int pa_key_header_width(int k)
{
	return pa_keys[k].width ? pa_keys[k].width : (int)strlen(pa_keys[k].header);
}

void pa_key_of_entry(const struct cg_entry *e, struct hkey *k)
{
	*k = (struct hkey){.comm = e->comm,
	                   .tid = pa_thread_tid(e->thread),
	                   .dso = e->dso,
	                   .sym = e->sym,
	                   .addr = e->addr,
	                   .cpu = e->cpu,
	                   .parent = e->parent,
	                   .srcline = e->srcline};
}

int pa_report_entry_cmp(const struct pa_report *r, const struct cg_entry *existing,
                        const struct cg_entry *e)
{
	struct hkey l, n;
	pa_key_of_entry(existing, &l);
	pa_key_of_entry(e, &n);
	for (unsigned i = 0; i < r->nr_keys; i++) {
		int c = pa_keys[r->keys[i]].cmp(&l, &n);
		if (c)
			return c;
	}
	return 0;
}
