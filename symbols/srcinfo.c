/* srcinfo.c - source lines and inline frames the way perf 6.1 gets them.
 *
 * perf 6.1 (Debian, built without libbfd) resolves a srcline by writing
 * "%016lx\n,\n" to a per-DSO `addr2line -e FILE -i -f` and reading records
 * ("FUNCTION\nFILE:LINE\n") until the answer for "," (address 0, "??" and
 * "??:0") shows up. A first record whose location line is "??:0" means no
 * answer; otherwise the location is cut at its first ':' (the line number
 * is strtoul() of the rest) and reduced to the part after the last '/'.
 * Nothing here spawns addr2line: the addr2line side is emulated with libdw
 * (DWARF) and libelf (sections, symbols), following binutils 2.40's bfd
 * (checked address by address against GNU addr2line 2.40 with
 * symbols/srcline_oracle.py: glibc with its debug file, sanitizer runtimes,
 * GCC and clang C/C++ at -O0..-O3, DWARF 4 and 5, LTO):
 *
 *  1. find_address_in_section: the first SHF_ALLOC section, in header
 *     order, with sh_addr <= A < sh_addr + sh_size; none -> no answer.
 *  2. _bfd_dwarf2_find_nearest_line: the CUs whose DIE ranges hold A, then
 *     the CUs without ranges, then those whose line-table sequences hold A
 *     (bfd adds decoded sequences to its lookup), in unit order; in each,
 *     the line-table row covering A (the last row at the greatest address
 *     <= A, not ending its sequence) and the function DIE (subprogram,
 *     inlined_subroutine, entry_point) with the shortest range holding A
 *     (the later DIE on ties). The first CU with either answers; a CU
 *     without a line table never does. bfd quirks kept: a DWARF 5 sequence
 *     starts with file 0 (not 1) until DW_LNS_set_file; a function's
 *     ranges are merged where they touch, empty ones dropped; a
 *     DW_FORM_rnglistx DW_AT_ranges (clang) gives the function no range.
 *  3. Names: DW_AT_linkage_name (MIPS too), else DW_AT_name, following
 *     abstract_origin/specification. In a C-like CU (no mangling) a
 *     DW_AT_name is final; otherwise bfd takes the ELF symbol that starts
 *     where the function starts, once the function has answered a query.
 *     Without a function DIE the name - and, without a row, the file -
 *     come from the ELF symbols (4).
 *  4. elf_find_function: over the symbol table (.symtab if it has symbols,
 *     else .dynsym), among non-FILE/SECTION/OBJECT/TLS symbols of A's
 *     section (hidden local zero-sized NOTYPE ones excluded), the one with
 *     the greatest value <= A, larger size first, earlier first: sizes do
 *     not bound it. Its file is the last STT_FILE before it when it is
 *     local or no FILE symbol followed a non-FILE symbol before it; the line
 *     is 0. This is how addresses without DWARF still get an answer: "??:0",
 *     or "crtstuff.c:0" for a local symbol.
 *  5. Inline records: while the current function is an inlined_subroutine,
 *     the next record is its caller (the enclosing function DIE) at the
 *     call site (DW_AT_call_file / DW_AT_call_line).
 * Not emulated: the few names that depend on the order of a long-running
 * addr2line's queries (the first query answered by a C++ function DIE
 * without a linkage name reports the symbol covering the address), bfd's
 * lookup of data symbols/variables in non-code sections (samples are in
 * code), addr2line following a build-id or debuglink from FILE by itself
 * (the caller passes the debug file), overlapping CUs or sequences, and
 * file names with ':' in a directory that bfd and libdw spell differently.
 */
#include "symbols/a2l.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- lookups ------------------------------------------------------------ */

static const struct a2l_sec *find_section(const struct pa_srcinfo *s, uint64_t a)
{
	for (size_t i = 0; i < s->nsecs; i++)
		if (a >= s->secs[i].addr && a - s->secs[i].addr < s->secs[i].size)
			return &s->secs[i];
	return NULL;
}

/* bfd's elf_find_function: the candidate of section shndx with the greatest
 * value <= a (larger size, then earlier, on ties), or NULL. */
static const struct a2l_sym *find_function(const struct pa_srcinfo *s, size_t shndx, uint64_t a)
{
	size_t lo = 0, hi = s->nsyms;
	/* first symbol sorting after (shndx, a) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct a2l_sym *m = &s->syms[mid];
		if (m->shndx < shndx || (m->shndx == shndx && m->value <= a))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || s->syms[lo - 1].shndx != shndx)
		return NULL;
	/* the group at that value is sorted by size desc, then order: its
	 * first element wins */
	uint64_t v = s->syms[lo - 1].value;
	size_t i = lo - 1;
	while (i > 0 && s->syms[i - 1].shndx == shndx && s->syms[i - 1].value == v)
		i--;
	return &s->syms[i];
}

/* True when a is where one of the CU's address ranges starts. */
static bool cu_range_start(const struct pa_srcinfo *s, uint32_t cu, uint64_t a)
{
	size_t lo = 0, hi = s->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ranges[mid].lo < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nranges && s->ranges[lo].lo == a; lo++)
		if (s->ranges[lo].cu == cu)
			return true;
	return false;
}

/* Walks the CU's rows sequence by sequence: records each sequence's
 * address range and, for DWARF 5 tables, the rows that still carry the
 * initial file. bfd (2.40) starts a sequence with file 0 where the
 * standard - and libdw - say file 1, and only DW_LNS_set_file changes it:
 * a row keeps file 0 when it has file 1 and no other file came before it
 * in its sequence (gas emits set_file only on a change, so a later file 1
 * was set explicitly). libdw's rows are sorted by address, which keeps each
 * sequence in order except that an end_sequence row sorts before a row of
 * its own sequence at the same address: such a row after an end_sequence
 * starts a sequence only where one of the CU's ranges starts. */
static void walk_sequences(const struct pa_srcinfo *s, struct a2l_cu *c)
{
	/* a DWARF 5 line table (not the CU's version: some assemblers pair
	 * DWARF 5 units with version 4 line tables); libdw names file 0 of an
	 * older table "???" */
	if (c->nfiles >= 2) {
		const char *f0 = dwarf_filesrc(c->files, 0, NULL, NULL);
		const char *f1 = dwarf_filesrc(c->files, 1, NULL, NULL);
		if (f0 && f1 && strcmp(f0, "???") && strcmp(f0, f1))
			c->file0 = calloc(c->nlines ? c->nlines : 1, 1);
	}
	size_t cap = 0;
	uint32_t cu = (uint32_t)(c - s->cus);
	bool other = false, after_end = false, in_seq = false;
	Dwarf_Addr end_addr = 0, seq_lo = 0;
	for (size_t i = 0; i < c->nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(c->lines, i);
		Dwarf_Addr la = 0;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &la) || dwarf_lineendsequence(l, &end) || end) {
			if (in_seq && la > seq_lo) {
				if (!PA_GROW(c->seqs, cap, c->nseqs + 1, 8))
					c->seqs[c->nseqs++] = (struct a2l_range){seq_lo, la, cu};
			}
			in_seq = other = false;
			after_end = true;
			end_addr = la;
			continue;
		}
		if (after_end && la == end_addr && !cu_range_start(s, cu, la))
			continue; /* the tail of the sequence that just ended */
		after_end = false;
		if (!in_seq) {
			in_seq = true;
			seq_lo = la;
		}
		if (!c->file0)
			continue;
		Dwarf_Files *fs;
		size_t idx = 1;
		if (dwarf_line_file(l, &fs, &idx) == 0 && idx != 1)
			other = true;
		c->file0[i] = idx == 1 && !other;
	}
}

static bool cu_lines(const struct pa_srcinfo *s, struct a2l_cu *c)
{
	if (c->lines_state == 0) {
		c->lines_state = -1;
		if (dwarf_getsrclines(&c->die, &c->lines, &c->nlines) == 0) {
			c->lines_state = 1;
			if (dwarf_getsrcfiles(&c->die, &c->files, &c->nfiles) != 0) {
				c->files = NULL;
				c->nfiles = 0;
			}
			walk_sequences(s, c);
		}
	}
	return c->lines_state > 0;
}

/* bfd's lookup_address_in_line_info_table over libdw's address-sorted rows
 * (equal addresses keep their order, end_sequence rows first). */
static Dwarf_Line *find_row(struct a2l_cu *c, uint64_t a, size_t *index)
{
	size_t lo = 0, hi = c->nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Line *l = dwarf_onesrcline(c->lines, mid);
		Dwarf_Addr la;
		if (!l || dwarf_lineaddr(l, &la))
			return NULL;
		if (la <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	Dwarf_Line *l = dwarf_onesrcline(c->lines, lo - 1);
	bool end;
	if (!l || dwarf_lineendsequence(l, &end) || end)
		return NULL;
	*index = lo - 1;
	return l;
}

/* Languages bfd's mangle_style() gives 0: their DW_AT_name is final. */
static bool lang_unmangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
	case 0x8765: /* DW_LANG_Upc */
	case 0x8101: /* DW_LANG_HP_Basic91 */
	case 0x8106: /* DW_LANG_HP_IMacro */
	case 0x8107: /* DW_LANG_HP_Assembler */
		return true;
	default:
		return false;
	}
}

/* A function DIE's name as bfd records it; *linkage tells whether bfd
 * treats it as final. */
static const char *die_name(Dwarf_Die *die, int lang, bool *linkage)
{
	Dwarf_Attribute at;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		n = dwarf_formstring(&at);
	if (n) {
		*linkage = true;
		return n;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &at))
		n = dwarf_formstring(&at);
	*linkage = n && lang_unmangled(lang);
	return n;
}

/* The file name bfd's concat_filename() builds (close enough: libdw already
 * joined the directory entry; bfd also prefixes the CU's comp_dir to
 * relative names). "<unknown>" for DWARF < 5 file 0. NULL on ENOMEM. */
static const char *bfd_file(struct pa_srcinfo *s, const struct a2l_cu *c, const char *name)
{
	if (!name || !strcmp(name, "???"))
		return "<unknown>";
	if (name[0] == '/' || !c->comp_dir)
		return name;
	size_t n = strlen(c->comp_dir) + strlen(name) + 2;
	char *p = pa_arena_alloc_raw(&s->arena, n);
	if (p)
		snprintf(p, n, "%s/%s", c->comp_dir, name);
	return p;
}

/* perf's parsing of addr2line's "FILE:LINE" answer (filename_split() and
 * srcline_from_fileline()): FILE NULL prints "??", LINE 0 prints "?". */
static const char *perf_srcline(struct pa_srcinfo *s, const char *file, unsigned line)
{
	struct pa_buf b = {0};
	const char *r = NULL;
	if (line ? pa_buf_addf(&b, "%s:%u", file ? file : "??", line)
	         : pa_buf_addf(&b, "%s:?", file ? file : "??"))
		goto out;
	char *sep = strchr(b.data, ':');
	unsigned nr = 0;
	if (sep) {
		*sep = 0;
		nr = (unsigned)strtoul(sep + 1, NULL, 0);
	}
	const char *base = strrchr(b.data, '/');
	base = base ? base + 1 : b.data;
	struct pa_buf o = {0};
	if (!pa_buf_addf(&o, "%s:%u", base, nr))
		r = pa_arena_strdup(&s->arena, o.data);
	pa_buf_release(&o);
out:
	pa_buf_release(&b);
	return r;
}

static bool is_function_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* bfd's preference among function ranges holding an address: the shorter,
 * then the later function in DIE order. */
static bool fn_better(const struct a2l_range *a, const struct a2l_range *b)
{
	uint64_t la = a->hi - a->lo, lb = b->hi - b->lo;
	return la < lb || (la == lb && a->cu > b->cu);
}

static void heap_push(const struct a2l_range **h, size_t *n, const struct a2l_range *r)
{
	size_t i = (*n)++;
	for (; i > 0 && fn_better(r, h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = r;
}

static void heap_pop(const struct a2l_range **h, size_t *n)
{
	const struct a2l_range *last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && fn_better(h[c + 1], h[c]))
			c++;
		if (!fn_better(h[c], last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static int cmp_range_ptr(const void *pa, const void *pb)
{
	const struct a2l_range *const *a = pa, *const *b = pb;
	return PA_CMP((*a)->lo, (*b)->lo);
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return PA_CMP(a, b);
}

/* Sweeps the CU's function ranges once, so that find_fn() is a binary
 * search: between two consecutive boundaries the winner does not change.
 * Also marks the functions that win somewhere. Returns 0 or -ENOMEM. */
static int build_segments(struct a2l_cu *c)
{
	size_t n = c->nfranges;
	if (!n)
		return 0;
	const struct a2l_range **sorted = malloc(n * sizeof(*sorted));
	const struct a2l_range **heap = malloc(n * sizeof(*heap));
	c->seg_at = malloc(2 * n * sizeof(*c->seg_at));
	c->seg_fn = malloc(2 * n * sizeof(*c->seg_fn));
	int r = -ENOMEM;
	if (!sorted || !heap || !c->seg_at || !c->seg_fn)
		goto out;
	size_t np = 0, nr = 0;
	for (size_t i = 0; i < n; i++) {
		const struct a2l_range *x = &c->franges[i];
		if (x->lo >= x->hi)
			continue; /* an inverted range never holds anything */
		sorted[nr++] = x;
		c->seg_at[np++] = x->lo;
		c->seg_at[np++] = x->hi;
	}
	qsort(sorted, nr, sizeof(*sorted), cmp_range_ptr);
	qsort(c->seg_at, np, sizeof(*c->seg_at), cmp_u64);
	size_t m = 0;
	for (size_t i = 0; i < np; i++)
		if (!m || c->seg_at[m - 1] != c->seg_at[i])
			c->seg_at[m++] = c->seg_at[i];
	size_t nh = 0, k = 0;
	for (size_t i = 0; i < m; i++) {
		uint64_t at = c->seg_at[i];
		for (; k < nr && sorted[k]->lo <= at; k++)
			heap_push(heap, &nh, sorted[k]);
		while (nh && heap[0]->hi <= at)
			heap_pop(heap, &nh);
		c->seg_fn[i] = nh ? (int32_t)heap[0]->cu : -1;
	}
	c->nseg = m;
	r = 0;
out:
	free(sorted);
	free(heap);
	return r;
}

/* Builds the CU's function index once: every function DIE in DIE order,
 * the enclosing function of inlined ones (bfd's caller_func), and all their
 * address ranges. Returns false when the CU has none or on ENOMEM. */
static bool cu_functions(struct a2l_cu *c)
{
	if (c->fns_state)
		return c->fns_state > 0;
	c->fns_state = -1;
	size_t cap = 0, rcap = 0, depth = 0, dcap = 0;
	struct walk {
		Dwarf_Die die;
		int32_t fn; /* innermost function at this level's parent */
	} *stack = NULL;
	Dwarf_Die cur;
	int32_t parent = -1;
	if (dwarf_child(&c->die, &cur) != 0)
		return false;
	for (;;) {
		int tag = dwarf_tag(&cur);
		int32_t me = -1;
		if (is_function_tag(tag)) {
			if (PA_GROW(c->fns, cap, c->nfns + 1, 64))
				goto fail;
			me = (int32_t)c->nfns++;
			c->fns[me].die = cur;
			c->fns[me].caller = tag == DW_TAG_inlined_subroutine ? parent : -1;
			c->fns[me].low = UINT64_MAX;
			c->fns[me].asked = false;
			c->fns[me].renamed = NULL;
			/* bfd 2.40 reads a DW_FORM_rnglistx range list from
			 * the wrong place (it does not go through the offset
			 * table) and finds no range there: such functions
			 * (clang's DWARF 5 inlines) never match */
			Dwarf_Attribute rat;
			bool rnglistx = dwarf_attr(&cur, DW_AT_ranges, &rat) &&
			                dwarf_whatform(&rat) == DW_FORM_rnglistx;
			/* bfd's arange_add(): empty ranges dropped, a range
			 * touching an earlier one extends it */
			size_t first = c->nfranges;
			ptrdiff_t off = 0;
			Dwarf_Addr base, lo, hi;
			while (!rnglistx && (off = dwarf_ranges(&cur, off, &base, &lo, &hi)) > 0) {
				if (hi == lo)
					continue;
				bool merged = false;
				for (size_t k = first; k < c->nfranges && !merged; k++) {
					struct a2l_range *r = &c->franges[k];
					if (lo == r->hi) {
						r->hi = hi;
						merged = true;
					} else if (hi == r->lo) {
						r->lo = lo;
						merged = true;
					}
				}
				if (merged)
					continue;
				if (PA_GROW(c->franges, rcap, c->nfranges + 1, 64))
					goto fail;
				c->franges[c->nfranges++] =
				    (struct a2l_range){lo, hi, (uint32_t)me};
			}
			if (c->nfranges > first)
				c->fns[me].low = c->franges[first].lo;
		}
		Dwarf_Die child;
		if (dwarf_haschildren(&cur) && dwarf_child(&cur, &child) == 0) {
			if (PA_GROW(stack, dcap, depth + 1, 32))
				goto fail;
			stack[depth++] = (struct walk){cur, parent};
			if (me >= 0)
				parent = me;
			cur = child;
			continue;
		}
		while (dwarf_siblingof(&cur, &cur) != 0) {
			if (!depth)
				goto done;
			depth--;
			cur = stack[depth].die;
			parent = stack[depth].fn;
		}
	}
done:
	free(stack);
	if (build_segments(c))
		return false;
	c->fns_state = 1;
	return true;
fail:
	free(stack);
	return false;
}

/* bfd's lookup_address_in_function_table: among the function ranges
 * holding a, the shortest; on a tie the function found later in the DIE
 * tree (bfd compares its allocation addresses). -1 when none. */
static int32_t find_fn(const struct a2l_cu *c, uint64_t a)
{
	size_t lo = 0, hi = c->nseg;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->seg_at[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? c->seg_fn[lo - 1] : -1;
}

/* The name bfd has for function fn of CU c now (its history: a2l_fn). */
static const char *fn_name(const struct a2l_cu *c, int32_t fn)
{
	bool linkage;
	const char *n = die_name((Dwarf_Die *)&c->fns[fn].die, c->lang, &linkage);
	return c->fns[fn].renamed ? c->fns[fn].renamed : n;
}

static int build_seq_index(struct pa_srcinfo *s)
{
	s->seq_state = -1;
	size_t n = 0;
	for (size_t i = 0; i < s->ncus; i++)
		if (cu_lines(s, &s->cus[i]))
			n += s->cus[i].nseqs;
	if (!n)
		return 0;
	s->seqranges = malloc(n * sizeof(*s->seqranges));
	s->seqranges_maxhi = malloc(n * sizeof(*s->seqranges_maxhi));
	if (!s->seqranges || !s->seqranges_maxhi)
		return -ENOMEM;
	for (size_t i = 0; i < s->ncus; i++)
		for (size_t k = 0; k < s->cus[i].nseqs; k++)
			s->seqranges[s->nseqranges++] = s->cus[i].seqs[k];
	qsort(s->seqranges, s->nseqranges, sizeof(*s->seqranges), pa_a2l_cmp_range);
	uint64_t m = 0;
	for (size_t i = 0; i < s->nseqranges; i++) {
		if (s->seqranges[i].hi > m)
			m = s->seqranges[i].hi;
		s->seqranges_maxhi[i] = m;
	}
	s->seq_state = 1;
	return 0;
}

/* Appends to v (unit order, each once) the CUs whose ranges in r hold a. */
static size_t ranges_holding(const struct a2l_range *r, const uint64_t *maxhi, size_t nr,
                             uint64_t a, uint32_t **v, size_t n, size_t *cap)
{
	size_t lo = 0, hi = nr, first = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && maxhi[i] > a;) {
		if (r[i].hi <= a)
			continue;
		if (PA_GROW(*v, *cap, n + 1, 8))
			break;
		(*v)[n++] = r[i].cu;
	}
	uint32_t *x = *v;
	for (size_t i = first + 1; i < n; i++)
		for (size_t j = i; j > first && x[j - 1] > x[j]; j--) {
			uint32_t t = x[j];
			x[j] = x[j - 1];
			x[j - 1] = t;
		}
	size_t m = first;
	for (size_t i = first; i < n; i++)
		if (m == first || x[m - 1] != x[i])
			x[m++] = x[i];
	return m;
}

/* Collects the CUs to ask first for address a, in unit order: those whose
 * ranges hold a, then those without ranges. Returns the count (malloc'd
 * *out). */
static size_t candidate_cus(const struct pa_srcinfo *s, uint64_t a, uint32_t **out)
{
	size_t cap = 0;
	uint32_t *v = NULL;
	size_t n = ranges_holding(s->ranges, s->ranges_maxhi, s->nranges, a, &v, 0, &cap);
	for (size_t i = 0; i < s->nnoranges; i++) {
		if (PA_GROW(v, cap, n + 1, 8))
			break;
		v[n++] = s->noranges[i];
	}
	*out = v;
	return n;
}

/* bfd's comp_unit_find_nearest_line: the row and the function of CU c at
 * a; sets *found and the outputs when either exists. 0 or -ENOMEM. */
static int try_cu(struct pa_srcinfo *s, struct a2l_cu *c, uint64_t a, bool *found,
                  struct a2l_cu **cu, int32_t *fn, unsigned *line, const char **file,
                  const char **name, bool *fn_linkage)
{
	if (!cu_lines(s, c))
		return 0; /* bfd: a unit without line info never answers */
	size_t ri = 0;
	Dwarf_Line *row = find_row(c, a, &ri);
	int32_t f = cu_functions(c) ? find_fn(c, a) : -1;
	if (!row && f < 0)
		return 0;
	*found = true;
	*cu = c;
	*fn = f;
	if (row) {
		int ln = 0;
		dwarf_lineno(row, &ln);
		*line = (unsigned)ln;
		const char *fname = c->file0 && c->file0[ri]
		                        ? dwarf_filesrc(c->files, 0, NULL, NULL)
		                        : dwarf_linesrc(row, NULL, NULL);
		*file = bfd_file(s, c, fname);
		if (!*file)
			return -ENOMEM;
	}
	if (f >= 0) {
		/* bfd: a function with a linkage name, or asked before, is
		 * final; else this query asks the symbol table (resolve) */
		bool linkage;
		die_name(&c->fns[f].die, c->lang, &linkage);
		*fn_linkage = linkage || c->fns[f].asked;
		c->fns[f].asked = true;
		*name = fn_name(c, f);
	}
	return 0;
}

/* The line a function DIE declares it at (through its abstract origin or
 * specification), 0 when DWARF does not say. */
static unsigned decl_line(Dwarf_Die *die)
{
	int line = 0;
	return dwarf_decl_line(die, &line) == 0 && line > 0 ? (unsigned)line : 0;
}

/* Emulates `addr2line -i -f` at address a: fills the answer's frames (none
 * when there is no answer). Returns 0 or -ENOMEM. */
static int resolve(struct pa_srcinfo *s, uint64_t a, struct a2l_answer *ans)
{
	const struct a2l_sec *sec = find_section(s, a);
	if (!sec)
		return 0;

	bool found = false, fn_linkage = false;
	const char *name = NULL, *file = NULL;
	unsigned line = 0;
	struct a2l_cu *cu = NULL;
	int32_t fn = -1;

	uint32_t *cands = NULL;
	size_t ncand = s->dw ? candidate_cus(s, a, &cands) : 0;
	for (size_t k = 0; k < ncand && !found; k++) {
		struct a2l_cu *c = &s->cus[cands[k]];
		if (try_cu(s, c, a, &found, &cu, &fn, &line, &file, &name, &fn_linkage))
			goto nomem;
	}
	free(cands);
	cands = NULL;
	if (!found && s->dw) {
		/* then the CUs whose line sequences hold a */
		if (!s->seq_state && build_seq_index(s))
			return -ENOMEM;
		size_t cap = 0;
		ncand = s->nseqranges ? ranges_holding(s->seqranges, s->seqranges_maxhi,
		                                       s->nseqranges, a, &cands, 0, &cap)
		                      : 0;
		for (size_t k = 0; k < ncand && !found; k++) {
			struct a2l_cu *c = &s->cus[cands[k]];
			if (try_cu(s, c, a, &found, &cu, &fn, &line, &file, &name, &fn_linkage))
				goto nomem;
		}
		free(cands);
		cands = NULL;
	}

	/* bfd's fallback to the ELF symbol table (the "done:" block of
	 * _bfd_dwarf2_find_nearest_line, or _bfd_elf_find_function when DWARF
	 * has nothing) */
	if (!(fn >= 0 && fn_linkage)) {
		const struct a2l_sym *f = find_function(s, sec->index, a);
		if (f) {
			found = true;
			name = f->name;
			if (!file)
				file = f->file;
			if (fn >= 0 && f->value == cu->fns[fn].low)
				cu->fns[fn].renamed = f->name;
		}
	}
	if (!found)
		return 0;

	/* records: the address, then each inlined function's caller at its
	 * call site */
	size_t nf = 1;
	for (int32_t i = fn; i >= 0 && cu->fns[i].caller >= 0; i = cu->fns[i].caller)
		nf++;
	ans->frames = pa_arena_alloc(&s->arena, nf * sizeof(*ans->frames));
	if (!ans->frames)
		return -ENOMEM;
	ans->frames[0].name = name && *name ? name : "??";
	ans->frames[0].decl_line = fn >= 0 ? decl_line(&cu->fns[fn].die) : 0;
	ans->frames[0].srcline = perf_srcline(s, file, line);
	if (!ans->frames[0].srcline)
		return -ENOMEM;
	size_t k = 1;
	for (int32_t i = fn; i >= 0 && cu->fns[i].caller >= 0; i = cu->fns[i].caller, k++) {
		Dwarf_Die *d = &cu->fns[i].die;
		Dwarf_Attribute at;
		Dwarf_Word cf = 0, cl = 0;
		const char *cfile = NULL;
		if (dwarf_attr(d, DW_AT_call_file, &at) && dwarf_formudata(&at, &cf) == 0) {
			cfile = bfd_file(s, cu,
			                 cf < cu->nfiles ? dwarf_filesrc(cu->files, cf, NULL, NULL)
			                                 : NULL);
			if (!cfile)
				return -ENOMEM;
		}
		if (dwarf_attr(d, DW_AT_call_line, &at))
			dwarf_formudata(&at, &cl);
		const char *cn = fn_name(cu, cu->fns[i].caller);
		ans->frames[k].name = cn && *cn ? cn : "??";
		ans->frames[k].decl_line = decl_line(&cu->fns[cu->fns[i].caller].die);
		ans->frames[k].srcline = perf_srcline(s, cfile, (unsigned)cl);
		if (!ans->frames[k].srcline)
			return -ENOMEM;
	}
	ans->line = ans->frames[0].srcline;
	ans->file = file;
	ans->line_nr = (unsigned)line;
	ans->nframes = nf;
	return 0;
nomem:
	free(cands);
	return -ENOMEM;
}

/* The memoized answer for file_off, or NULL on ENOMEM. */
static const struct a2l_answer *lookup(struct pa_srcinfo *s, uint64_t file_off)
{
	struct a2l_answer *ans = pa_u64map_get(&s->memo, file_off);
	if (ans)
		return ans;
	if (pa_srcinfo_load(s))
		return NULL;
	ans = pa_arena_alloc(&s->arena, sizeof(*ans));
	if (!ans)
		return NULL;
	if (s->elf && resolve(s, file_off + s->text_offset, ans))
		return NULL;
	void **slot = pa_u64map_slot(&s->memo, file_off, NULL);
	if (!slot)
		return NULL;
	*slot = ans;
	return ans;
}

/* ---- public lookups ----------------------------------------------------- */

uint64_t pa_srcinfo_objdump_addr(struct pa_srcinfo *s, uint64_t file_off)
{
	if (!s || pa_srcinfo_load(s))
		return file_off;
	return file_off + s->text_offset;
}

int pa_srcline_fallback(char *buf, size_t size, const char *dso_short_name, uint64_t addr,
                        const char *sym_name, uint64_t sym_off)
{
	if (sym_name)
		return snprintf(buf, size, "%s+%" PRIu64, sym_name, sym_off);
	return snprintf(buf, size, "%s[%" PRIx64 "]", dso_short_name ? dso_short_name : "", addr);
}

static const char *fallback(struct pa_srcinfo *s, uint64_t file_off, const char *dso_short_name,
                            const char *sym_name, uint64_t sym_off)
{
	char tmp[64];
	uint64_t addr = file_off + s->text_offset;
	int n = pa_srcline_fallback(tmp, sizeof(tmp), dso_short_name, addr, sym_name, sym_off);
	if (n < 0)
		return NULL;
	char *p = pa_arena_alloc_raw(&s->arena, (size_t)n + 1);
	if (!p)
		return NULL;
	pa_srcline_fallback(p, (size_t)n + 1, dso_short_name, addr, sym_name, sym_off);
	return p;
}

const char *pa_srcinfo_line(struct pa_srcinfo *s, uint64_t file_off, const char *dso_short_name)
{
	if (!s)
		return NULL;
	const struct a2l_answer *a = lookup(s, file_off);
	if (!a)
		return NULL;
	if (a->line || !dso_short_name)
		return a->line;
	return fallback(s, file_off, dso_short_name, NULL, 0);
}

const char *pa_srcinfo_srcline(struct pa_srcinfo *s, uint64_t file_off, const char *dso_short_name,
                               const char *sym_name, uint64_t sym_off)
{
	if (!s)
		return NULL;
	const struct a2l_answer *a = lookup(s, file_off);
	if (!a)
		return NULL;
	if (a->line)
		return a->line;
	return fallback(s, file_off, dso_short_name, sym_name, sym_off);
}

const char *pa_srcinfo_file(struct pa_srcinfo *s, uint64_t file_off, unsigned *line)
{
	const struct a2l_answer *a = s ? lookup(s, file_off) : NULL;
	if (!a || !a->line || !a->file || !a->line_nr)
		return NULL;
	*line = a->line_nr;
	return a->file;
}

size_t pa_srcinfo_frames(struct pa_srcinfo *s, uint64_t file_off, struct pa_srcinfo_frame *frames,
                         size_t max)
{
	const struct a2l_answer *a = s ? lookup(s, file_off) : NULL;
	if (!a)
		return 0;
	for (size_t i = 0; i < a->nframes && i < max; i++)
		frames[i] = a->frames[i];
	return a->nframes;
}

size_t pa_srcinfo_inlines(struct pa_srcinfo *s, uint64_t file_off, const char **names, size_t max)
{
	const struct a2l_answer *a = s ? lookup(s, file_off) : NULL;
	if (!a)
		return 0;
	for (size_t i = 0; i < a->nframes && i < max; i++)
		names[i] = a->frames[i].name;
	return a->nframes;
}
