/* test_srcinfo.c - unit tests for symbols/srcinfo.c (cmocka).
 *
 *   test_srcinfo FIXTURE_DIR
 *
 * FIXTURE_DIR is made by test_srcinfo_fixtures.sh (ctest runs it first):
 * one small C program built with DWARF (PIE, non-PIE, DWARF 4), without,
 * stripped, and stripped with a separate debug file. The expected answers
 * come from GNU addr2line, run here the way perf 6.1 runs it (one
 * `addr2line -e FILE -i -f` per file, each address followed by a ","
 * sentinel) and parsed with perf's rules; $ADDR2LINE names the tool (tests
 * that need it are skipped when it cannot read the fixtures). Other checks
 * use the "L_*" markers of the fixture source.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/symbols.h"

static const char *g_dir;

static char *path_of(const char *rel)
{
	static char buf[8][4096];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, sizeof(buf[0]), "%s/%s", g_dir, rel);
	return p;
}

/* ---- ELF facts (read with libelf, independently of srcinfo) -------------- */

struct facts {
	uint64_t text_delta;               /* .text sh_addr - sh_offset */
	uint64_t exec_lo[16], exec_hi[16]; /* executable sections */
	int nexec;
};

static void facts_read(const char *file, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	int fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	size_t shstrndx;
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn))) {
		assert_non_null(gelf_getshdr(scn, &sh));
		const char *n = elf_strptr(e, shstrndx, sh.sh_name);
		if (n && !strcmp(n, ".text"))
			f->text_delta = sh.sh_addr - sh.sh_offset;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size && f->nexec < 16) {
			f->exec_lo[f->nexec] = sh.sh_addr;
			f->exec_hi[f->nexec++] = sh.sh_addr + sh.sh_size;
		}
	}
	elf_end(e);
	close(fd);
}

/* ---- addr2line, as perf 6.1 drives and parses it ------------------------ */

#define MAXREC 8

struct expect {
	uint64_t addr;
	int nrec; /* 0: no answer */
	char name[MAXREC][256];
	char srcline[MAXREC][512];
};

/* perf's filename_split() + srcline_from_fileline() on "FILE:LINE..." */
static void perf_srcline(const char *loc, char *out, size_t n)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", loc);
	char *sep = strchr(buf, ':');
	unsigned line = 0;
	if (sep) {
		*sep = 0;
		line = (unsigned)strtoul(sep + 1, NULL, 0);
	}
	const char *base = strrchr(buf, '/');
	snprintf(out, n, "%.400s:%u", base ? base + 1 : buf, line);
}

static const char *addr2line_tool(void)
{
	const char *t = getenv("ADDR2LINE");
	return t && *t ? t : "addr2line";
}

/* Runs addr2line over addrs; returns false when it cannot be used. */
static bool run_addr2line(const char *file, struct expect *ex, size_t n)
{
	char in[4200], cmd[9000];
	snprintf(in, sizeof(in), "%s.a2l-in", file);
	FILE *fp = fopen(in, "w");
	assert_non_null(fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%016" PRIx64 "\n,\n", ex[i].addr);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "'%s' -e '%s' -i -f < '%s' 2>/dev/null", addr2line_tool(), file,
	         in);
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	char fn[1024], loc[1024];
	bool ok = true;
#define READREC()                                                                                  \
	(fgets(fn, sizeof(fn), p) && fgets(loc, sizeof(loc), p) &&                                 \
	 (fn[strcspn(fn, "\n")] = 0, loc[strcspn(loc, "\n")] = 0, 1))
#define VALID() (strcmp(loc, "??:0") && strchr(loc, ':'))
	for (size_t i = 0; i < n && ok; i++) {
		struct expect *e = &ex[i];
		e->nrec = 0;
		if (!READREC()) {
			ok = false;
			break;
		}
		if (!VALID()) {
			ok = READREC(); /* the sentinel's answer */
			continue;
		}
		for (;;) {
			if (e->nrec < MAXREC) {
				/* perf strim()s the function line */
				char *f = fn;
				while (*f == ' ' || *f == '\t')
					f++;
				snprintf(e->name[e->nrec], sizeof(e->name[0]), "%.250s", f);
				perf_srcline(loc, e->srcline[e->nrec], sizeof(e->srcline[0]));
			}
			e->nrec++;
			if (!READREC()) {
				ok = false;
				break;
			}
			if (!VALID())
				break;
		}
	}
#undef READREC
#undef VALID
	int st = pclose(p);
	unlink(in);
	return ok && st == 0;
}

/* Every address of the executable sections, plus a few outside. */
static struct expect *all_addrs(const struct facts *f, size_t *n)
{
	size_t cap = 64;
	for (int i = 0; i < f->nexec; i++)
		cap += f->exec_hi[i] - f->exec_lo[i] + 2;
	struct expect *ex = calloc(cap, sizeof(*ex));
	assert_non_null(ex);
	size_t k = 0;
	for (int i = 0; i < f->nexec; i++)
		for (uint64_t a = f->exec_lo[i]; a <= f->exec_hi[i]; a++)
			ex[k++].addr = a;
	/* the ELF header and the first bytes: in no section */
	for (uint64_t a = 0; a < 8; a++)
		ex[k++].addr = f->text_delta + a;
	*n = k;
	return ex;
}

/* Compares pa with addr2line at every address of rel (debug file dbg),
 * asked in ascending order, or descending with reverse (bfd's answers
 * depend on the questions before); lines: some address must have a real
 * FILE:LINE answer. */
static void compare_in_order(const char *rel, const char *dbg, bool lines, bool reverse)
{
	const char *elf = path_of(rel);
	const char *a2l_file = dbg ? path_of(dbg) : elf;
	struct facts f;
	facts_read(elf, &f);
	size_t n;
	struct expect *ex = all_addrs(&f, &n);
	for (size_t i = 0; reverse && i < n / 2; i++) {
		uint64_t t = ex[i].addr;
		ex[i].addr = ex[n - 1 - i].addr;
		ex[n - 1 - i].addr = t;
	}
	if (!run_addr2line(a2l_file, ex, n)) {
		free(ex);
		skip();
	}
	struct pa_err err = {0};
	struct pa_srcinfo *s = pa_srcinfo_open(elf, dbg ? path_of(dbg) : NULL, &err);
	assert_non_null(s);
	assert_int_equal(pa_srcinfo_objdump_addr(s, 0), f.text_delta);
	size_t bad = 0, answered = 0;
	for (size_t i = 0; i < n; i++) {
		struct expect *e = &ex[i];
		uint64_t off = e->addr - f.text_delta;
		const char *line = pa_srcinfo_line(s, off, NULL);
		struct pa_srcinfo_frame fr[MAXREC];
		size_t nf = pa_srcinfo_frames(s, off, fr, MAXREC);
		bool same = (e->nrec == 0) == (line == NULL) && nf == (size_t)e->nrec;
		if (same && e->nrec) {
			answered += strcmp(e->srcline[0], "??:0") != 0;
			same = !strcmp(line, e->srcline[0]);
			for (int r = 0; same && r < e->nrec && r < MAXREC; r++)
				same = !strcmp(fr[r].name, e->name[r]) &&
				       !strcmp(fr[r].srcline, e->srcline[r]);
		}
		if (!same && bad++ < 10)
			print_error("%s %#" PRIx64 ": addr2line %d records (%s %s), pa %zu (%s)\n",
			            rel, e->addr, e->nrec, e->nrec ? e->name[0] : "",
			            e->nrec ? e->srcline[0] : "", nf, line ? line : "-");
	}
	pa_srcinfo_free(s);
	free(ex);
	assert_int_equal(bad, 0);
	if (lines)
		assert_true(answered > 0);
}

static void compare_with_addr2line(const char *rel, const char *dbg, bool lines)
{
	compare_in_order(rel, dbg, lines, false);
}

/* A C++ function without a linkage name, inlined: named after the symbol
 * around the first address asked where it is innermost (bfd's history),
 * in either order of questions. Also checks that the fixture shows it. */
static void test_a2l_cxx_history(void **st)
{
	(void)st;
	if (access(path_of("prog_cxx"), R_OK))
		skip(); /* no C++ compiler for the target */
	compare_in_order("prog_cxx", NULL, true, false);
	compare_in_order("prog_cxx", NULL, true, true);
	/* and the fixture shows that history: some address gets another
	 * answer when the questions come in the other order */
	struct facts f;
	facts_read(path_of("prog_cxx"), &f);
	struct pa_srcinfo *up = pa_srcinfo_open(path_of("prog_cxx"), NULL, NULL);
	struct pa_srcinfo *down = pa_srcinfo_open(path_of("prog_cxx"), NULL, NULL);
	assert_non_null(up);
	assert_non_null(down);
	for (int i = 0; i < f.nexec; i++)
		for (uint64_t a = f.exec_lo[i]; a <= f.exec_hi[i]; a++)
			pa_srcinfo_line(up, a - f.text_delta, NULL);
	for (int i = f.nexec - 1; i >= 0; i--)
		for (uint64_t a = f.exec_hi[i] + 1; a-- > f.exec_lo[i];)
			pa_srcinfo_line(down, a - f.text_delta, NULL);
	int differ = 0;
	for (int i = 0; i < f.nexec; i++)
		for (uint64_t a = f.exec_lo[i]; a <= f.exec_hi[i]; a++) {
			struct pa_srcinfo_frame x[MAXREC], y[MAXREC];
			size_t nx = pa_srcinfo_frames(up, a - f.text_delta, x, MAXREC);
			size_t ny = pa_srcinfo_frames(down, a - f.text_delta, y, MAXREC);
			differ += nx != ny || (nx && strcmp(x[0].name, y[0].name));
		}
	pa_srcinfo_free(up);
	pa_srcinfo_free(down);
	assert_true(differ > 0);
}

static void test_a2l_pie(void **st)
{
	(void)st;
	compare_with_addr2line("prog", NULL, true);
}

static void test_a2l_nopie(void **st)
{
	(void)st;
	compare_with_addr2line("prog_nopie", NULL, true);
}

static void test_a2l_dwarf4(void **st)
{
	(void)st;
	compare_with_addr2line("prog_dw4", NULL, true);
}

static void test_a2l_no_dwarf(void **st)
{
	(void)st;
	compare_with_addr2line("prog_nodw", NULL, false);
}

static void test_a2l_debug_file(void **st)
{
	(void)st;
	compare_with_addr2line("prog_dl", "prog.debug", true);
}

/* ---- fixed expectations ------------------------------------------------- */

/* Line of the first line holding marker in the fixture file rel. */
static unsigned marker_line(const char *rel, const char *marker)
{
	FILE *fp = fopen(path_of(rel), "r");
	assert_non_null(fp);
	char buf[512];
	unsigned n = 0, found = 0;
	while (!found && fgets(buf, sizeof(buf), fp)) {
		n++;
		if (strstr(buf, marker))
			found = n;
	}
	fclose(fp);
	assert_true(found > 0);
	return found;
}

static char *fmt(const char *file, unsigned line)
{
	static char buf[8][64];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, sizeof(buf[0]), "%s:%u", file, line);
	return p;
}

/* Searches prog's .text for an address whose innermost frame is fn. */
static bool find_frames(struct pa_srcinfo *s, const struct facts *f, const char *fn,
                        struct pa_srcinfo_frame *fr, size_t *nf, uint64_t *off)
{
	for (int i = 0; i < f->nexec; i++)
		for (uint64_t a = f->exec_lo[i]; a < f->exec_hi[i]; a++) {
			*off = a - f->text_delta;
			*nf = pa_srcinfo_frames(s, *off, fr, MAXREC);
			if (*nf && !strcmp(fr[0].name, fn))
				return true;
		}
	return false;
}

static void test_inline_chain(void **st)
{
	(void)st;
	struct facts f;
	facts_read(path_of("prog"), &f);
	struct pa_srcinfo *s = pa_srcinfo_open(path_of("prog"), NULL, NULL);
	assert_non_null(s);
	struct pa_srcinfo_frame fr[MAXREC];
	size_t nf;
	uint64_t off;

	/* inner_inl, inlined into outer_inl, inlined into work */
	assert_true(find_frames(s, &f, "inner_inl", fr, &nf, &off));
	assert_int_equal(nf, 3);
	assert_string_equal(fr[1].name, "outer_inl");
	assert_string_equal(fr[2].name, "work");
	assert_string_equal(fr[1].srcline, fmt("prog.c", marker_line("prog.c", "L_OUTER_CALL")));
	assert_string_equal(fr[2].srcline, fmt("prog.c", marker_line("prog.c", "L_WORK_CALL")));
	/* the srcline of an inlined address is the innermost location */
	assert_string_equal(pa_srcinfo_line(s, off, NULL), fr[0].srcline);
	assert_memory_equal(fr[0].srcline, "prog.c:", 7);
	const char *names[MAXREC];
	assert_int_equal(pa_srcinfo_inlines(s, off, names, MAXREC), 3);
	assert_string_equal(names[0], "inner_inl");
	assert_string_equal(names[2], "work");
	/* a short buffer still gets the count */
	assert_int_equal(pa_srcinfo_inlines(s, off, names, 1), 3);

	/* four deep, from the header: the basename only, as perf shows it */
	assert_true(find_frames(s, &f, "hdr_step", fr, &nf, &off));
	assert_int_equal(nf, 4);
	assert_memory_equal(fr[0].srcline, "hdr.h:", 6);
	assert_string_equal(fr[1].name, "inner_inl");
	assert_string_equal(fr[1].srcline, fmt("prog.c", marker_line("prog.c", "L_INNER_CALL")));
	assert_string_equal(fr[3].name, "work");

	/* not inlined: one frame everywhere; its body line among them */
	const char *body = fmt("prog.c", marker_line("prog.c", "L_HELPER"));
	bool seen = false;
	for (int i = 0; i < f.nexec; i++)
		for (uint64_t a = f.exec_lo[i]; a < f.exec_hi[i]; a++) {
			nf = pa_srcinfo_frames(s, a - f.text_delta, fr, MAXREC);
			if (!nf || strcmp(fr[0].name, "helper"))
				continue;
			assert_int_equal(nf, 1);
			seen |= !strcmp(fr[0].srcline, body);
		}
	assert_true(seen);
	pa_srcinfo_free(s);
}

/* Address of the symbol name in file rel (ELF vaddr), from .symtab. */
static uint64_t sym_addr(const char *rel, const char *name)
{
	int fd = open(path_of(rel), O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t v = 0;
	while (!v && (scn = elf_nextscn(e, scn))) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym y;
			gelf_getsym(d, (int)i, &y);
			const char *n = elf_strptr(e, sh.sh_link, y.st_name);
			if (n && !strcmp(n, name))
				v = y.st_value;
		}
	}
	elf_end(e);
	close(fd);
	assert_true(v != 0);
	return v;
}

static void test_no_dwarf(void **st)
{
	(void)st;
	struct facts f;
	facts_read(path_of("prog_nodw"), &f);
	struct pa_srcinfo *s = pa_srcinfo_open(path_of("prog_nodw"), NULL, NULL);
	assert_non_null(s);
	/* addr2line still answers from the symbol table, line 0: a global
	 * function has no file, a local one the STT_FILE before it */
	uint64_t work = sym_addr("prog_nodw", "work") - f.text_delta;
	uint64_t helper = sym_addr("prog_nodw", "helper") - f.text_delta;
	assert_string_equal(pa_srcinfo_line(s, work + 1, NULL), "??:0");
	assert_string_equal(pa_srcinfo_line(s, helper + 1, NULL), "prog.c:0");
	struct pa_srcinfo_frame fr[2];
	assert_int_equal(pa_srcinfo_frames(s, work + 1, fr, 2), 1);
	assert_string_equal(fr[0].name, "work");
	/* memoized: the same string comes back */
	assert_ptr_equal(pa_srcinfo_line(s, work + 1, NULL), pa_srcinfo_line(s, work + 1, NULL));
	/* the ELF header is in no section: no answer, perf's fallbacks */
	assert_null(pa_srcinfo_line(s, 1, NULL));
	char want[64];
	snprintf(want, sizeof(want), "prog_nodw[%" PRIx64 "]", f.text_delta + 1);
	assert_string_equal(pa_srcinfo_line(s, 1, "prog_nodw"), want);
	assert_string_equal(pa_srcinfo_srcline(s, 1, "prog_nodw", "_init", 77), "_init+77");
	assert_string_equal(pa_srcinfo_srcline(s, 1, "prog_nodw", NULL, 0), want);
	/* with an answer the symbol does not matter */
	assert_string_equal(pa_srcinfo_srcline(s, work + 1, "prog_nodw", "work", 1), "??:0");
	pa_srcinfo_free(s);
}

/* Whether the dynamic symbol table of rel has a function-like symbol (not
 * OBJECT/SECTION/FILE/TLS, defined) at or below vaddr a in a's section. */
static bool dynsym_below(const char *rel, uint64_t a)
{
	int fd = open(path_of(rel), O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	size_t shnum, sec = 0;
	assert_int_equal(elf_getshdrnum(e, &shnum), 0);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn))) {
		gelf_getshdr(scn, &sh);
		if ((sh.sh_flags & SHF_ALLOC) && a >= sh.sh_addr && a < sh.sh_addr + sh.sh_size) {
			sec = elf_ndxscn(scn);
			break;
		}
	}
	bool found = false;
	scn = NULL;
	while (!found && sec && (scn = elf_nextscn(e, scn))) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym y;
			gelf_getsym(d, (int)i, &y);
			int t = GELF_ST_TYPE(y.st_info);
			if (y.st_shndx == sec && y.st_value <= a && t != STT_OBJECT &&
			    t != STT_SECTION && t != STT_FILE && t != STT_TLS)
				found = true;
		}
	}
	elf_end(e);
	close(fd);
	return found;
}

static void test_stripped(void **st)
{
	(void)st;
	/* no .symtab, no DWARF: addr2line answers "??:0" only past a
	 * function of .dynsym in the same section (targets differ in what
	 * they export), and sizes do not bound that */
	struct facts f;
	facts_read(path_of("prog_stripped"), &f);
	struct pa_srcinfo *s = pa_srcinfo_open(path_of("prog_stripped"), NULL, NULL);
	assert_non_null(s);
	for (int i = 0; i < f.nexec; i++)
		for (uint64_t a = f.exec_lo[i]; a < f.exec_hi[i]; a += 3) {
			uint64_t off = a - f.text_delta;
			const char *l = pa_srcinfo_line(s, off, NULL);
			if (dynsym_below("prog_stripped", a)) {
				assert_non_null(l);
				assert_string_equal(l, "??:0");
				assert_int_equal(pa_srcinfo_frames(s, off, NULL, 0), 1);
			} else {
				assert_null(l);
				assert_int_equal(pa_srcinfo_frames(s, off, NULL, 0), 0);
			}
		}
	/* .init's start has no symbol at or below it anywhere */
	uint64_t off = f.exec_lo[0] - f.text_delta;
	assert_false(dynsym_below("prog_stripped", f.exec_lo[0]));
	char want[64];
	snprintf(want, sizeof(want), "prog_stripped[%" PRIx64 "]", f.exec_lo[0]);
	assert_string_equal(pa_srcinfo_line(s, off, "prog_stripped"), want);
	pa_srcinfo_free(s);
}

static void test_a2l_stripped(void **st)
{
	(void)st;
	compare_with_addr2line("prog_stripped", NULL, false);
}

static void test_debug_file(void **st)
{
	(void)st;
	/* the stripped file with its debug file answers like the original */
	struct facts f;
	facts_read(path_of("prog"), &f);
	struct pa_srcinfo *a = pa_srcinfo_open(path_of("prog"), NULL, NULL);
	struct pa_srcinfo *b = pa_srcinfo_open(path_of("prog_dl"), path_of("prog.debug"), NULL);
	struct pa_srcinfo *c = pa_srcinfo_open(path_of("prog_dl"), NULL, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	size_t lines = 0;
	for (int i = 0; i < f.nexec; i++)
		for (uint64_t x = f.exec_lo[i]; x < f.exec_hi[i]; x++) {
			uint64_t off = x - f.text_delta;
			const char *la = pa_srcinfo_line(a, off, NULL),
			           *lb = pa_srcinfo_line(b, off, NULL);
			assert_true((la == NULL) == (lb == NULL));
			if (la)
				assert_string_equal(la, lb);
			if (la && strcmp(la, "??:0"))
				lines++;
			/* without it: no DWARF, at most .dynsym's "??:0" */
			const char *lc = pa_srcinfo_line(c, off, NULL);
			if (lc)
				assert_string_equal(lc, "??:0");
		}
	assert_true(lines > 10);
	pa_srcinfo_free(a);
	pa_srcinfo_free(b);
	pa_srcinfo_free(c);
}

static void test_nopie_offset(void **st)
{
	(void)st;
	/* ET_EXEC: perf asks for file offset + (.text vaddr - offset) */
	struct facts f;
	facts_read(path_of("prog_nopie"), &f);
	assert_true(f.text_delta != 0);
	struct pa_srcinfo *s = pa_srcinfo_open(path_of("prog_nopie"), NULL, NULL);
	assert_non_null(s);
	assert_int_equal(pa_srcinfo_objdump_addr(s, 0x1234), 0x1234 + f.text_delta);
	uint64_t work = sym_addr("prog_nopie", "work");
	const char *l = pa_srcinfo_line(s, work - f.text_delta, NULL);
	assert_non_null(l);
	assert_memory_equal(l, "prog.c:", 7);
	pa_srcinfo_free(s);
}

static void test_missing_file(void **st)
{
	(void)st;
	struct pa_err err = {0};
	assert_null(pa_srcinfo_open(NULL, NULL, &err));
	assert_int_equal(err.code, -EINVAL);
	struct pa_srcinfo *s = pa_srcinfo_open(path_of("no-such-file"), path_of("nor-this"), &err);
	assert_non_null(s); /* opened lazily: lookups just find nothing */
	assert_null(pa_srcinfo_line(s, 0x1000, NULL));
	assert_string_equal(pa_srcinfo_line(s, 0x1000, "gone.so"), "gone.so[1000]");
	assert_int_equal(pa_srcinfo_inlines(s, 0x1000, NULL, 0), 0);
	pa_srcinfo_free(s);
	pa_srcinfo_free(NULL);
}

static void test_fallback_format(void **st)
{
	(void)st;
	char buf[64];
	/* perf: "%s+%" PRIu64 with a symbol, "%s[%" PRIx64 "]" without */
	assert_int_equal(pa_srcline_fallback(buf, sizeof(buf), "libc.so.6", 0x2a1b0, NULL, 0), 16);
	assert_string_equal(buf, "libc.so.6[2a1b0]");
	pa_srcline_fallback(buf, sizeof(buf), "[kernel.kallsyms]", 0xffffffff81000010ull,
	                    "vma_interval_tree_insert", 56);
	assert_string_equal(buf, "vma_interval_tree_insert+56");
	pa_srcline_fallback(buf, sizeof(buf), "[vdso]", 0xb46, NULL, 0);
	assert_string_equal(buf, "[vdso][b46]");
	pa_srcline_fallback(buf, sizeof(buf), "x", 0, "@plt", 0);
	assert_string_equal(buf, "@plt+0");
	assert_string_equal(PA_SRCLINE_UNKNOWN, "??:0");
	/* truncation behaves like snprintf */
	assert_int_equal(pa_srcline_fallback(buf, 4, "libc.so.6", 0x10, NULL, 0), 13);
	assert_string_equal(buf, "lib");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
		return 2;
	}
	g_dir = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fallback_format), cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_inline_chain),    cmocka_unit_test(test_no_dwarf),
	    cmocka_unit_test(test_stripped),        cmocka_unit_test(test_debug_file),
	    cmocka_unit_test(test_nopie_offset),    cmocka_unit_test(test_a2l_pie),
	    cmocka_unit_test(test_a2l_nopie),       cmocka_unit_test(test_a2l_dwarf4),
	    cmocka_unit_test(test_a2l_no_dwarf),    cmocka_unit_test(test_a2l_debug_file),
	    cmocka_unit_test(test_a2l_stripped),    cmocka_unit_test(test_a2l_cxx_history),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
