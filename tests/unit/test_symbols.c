/* test_symbols.c - unit tests for symbols/ (cmocka).
 *
 *   test_symbols FIXTURE_DIR
 *
 * FIXTURE_DIR is made by test_symbols_fixtures.sh (ctest runs it first):
 * ELF files built at test time plus readelf output ("facts") about them.
 * Expected names for the perf rules were checked against perf 6.1.192 by
 * feeding it synthetic perf.data files with samples at those addresses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/internal.h"
#include "symbols/symbols.h"

static const char *g_dir;

/* ---- facts (readelf output) --------------------------------------------- */

struct fact {
	uint64_t value, size;
	char type[24], bind[16], ndx[16];
	char name[1024];
	int table; /* 0 .symtab, 1 .dynsym */
};

struct facts {
	struct fact *v;
	size_t n;
};

static char *path_of(const char *rel)
{
	static char buf[8][4096];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, sizeof(buf[0]), "%s/%s", g_dir, rel);
	return p;
}

static bool exists(const char *rel)
{
	return access(path_of(rel), R_OK) == 0;
}

/* readelf -sW: "Num: Value Size Type Bind Vis [annotations] Ndx Name" */
static void facts_load(struct facts *f, const char *rel)
{
	char file[4200];
	snprintf(file, sizeof(file), "%s.syms", path_of(rel));
	FILE *fp = fopen(file, "r");
	assert_non_null(fp);
	char line[2048];
	int table = -1;
	f->v = NULL;
	f->n = 0;
	size_t cap = 0;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "Symbol table '", 14)) {
			table = strstr(line, "'.symtab'") ? 0 : strstr(line, "'.dynsym'") ? 1 : -1;
			continue;
		}
		char *p = line;
		while (*p == ' ')
			p++;
		char *colon = strchr(p, ':');
		if (table < 0 || !colon || colon == p)
			continue;
		struct fact x = {.table = table};
		char *tok[4];
		int nt = 0;
		p = colon + 1;
		while (nt < 4) {
			while (*p == ' ')
				p++;
			if (!*p)
				break;
			tok[nt++] = p;
			p += strcspn(p, " ");
			if (*p)
				*p++ = 0;
		}
		if (nt < 4)
			continue;
		/* vis, optional "[...]" annotations, ndx */
		while (*p == ' ')
			p++;
		p += strcspn(p, " ");
		while (*p == ' ')
			p++;
		while (*p == '[') {
			char *e = strchr(p, ']');
			if (!e)
				break;
			p = e + 1;
			while (*p == ' ')
				p++;
		}
		char *ndx = p;
		p += strcspn(p, " ");
		if (*p)
			*p++ = 0;
		x.value = strtoull(tok[0], NULL, 16);
		x.size = strtoull(tok[1], NULL, 0);
		snprintf(x.type, sizeof(x.type), "%s", tok[2]);
		snprintf(x.bind, sizeof(x.bind), "%s", tok[3]);
		snprintf(x.ndx, sizeof(x.ndx), "%s", ndx);
		snprintf(x.name, sizeof(x.name), "%s", p);
		if (f->n == cap) {
			cap = cap ? cap * 2 : 256;
			f->v = realloc(f->v, cap * sizeof(*f->v));
			assert_non_null(f->v);
		}
		f->v[f->n++] = x;
	}
	fclose(fp);
	assert_true(f->n > 0);
}

static void facts_free(struct facts *f)
{
	free(f->v);
}

static uint64_t fact_addr(const struct facts *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].table == 0 && !strcmp(f->v[i].name, name))
			return f->v[i].value;
	fail_msg("no symbol '%s' in facts", name);
	return 0;
}

/* readelf -SW: "[Nr] Name Type Address Off Size ES ..." */
static bool section_fact(const char *rel, const char *sec, uint64_t *addr, uint64_t *entsize)
{
	char file[4200];
	snprintf(file, sizeof(file), "%s.secs", path_of(rel));
	FILE *fp = fopen(file, "r");
	assert_non_null(fp);
	char line[1024], name[256], type[64];
	bool found = false;
	while (!found && fgets(line, sizeof(line), fp)) {
		char *p = strchr(line, ']');
		unsigned long long a, off, size, es;
		if (!p || strchr(line, '[') > p)
			continue;
		if (sscanf(p + 1, "%255s %63s %llx %llx %llx %llx", name, type, &a, &off, &size,
		           &es) == 6 &&
		    !strcmp(name, sec)) {
			*addr = a;
			*entsize = es;
			found = true;
		}
	}
	fclose(fp);
	return found;
}

static size_t build_id_fact(const char *rel, uint8_t *out)
{
	char file[4200];
	snprintf(file, sizeof(file), "%s.notes", path_of(rel));
	FILE *fp = fopen(file, "r");
	if (!fp)
		return 0;
	char line[512];
	size_t n = 0;
	while (fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, "Build ID: ");
		if (!p)
			continue;
		p += 10;
		while (n < 64 && p[0] && p[1] && p[0] != '\n') {
			unsigned v;
			if (sscanf(p, "%2x", &v) != 1)
				break;
			out[n++] = (uint8_t)v;
			p += 2;
		}
		break;
	}
	fclose(fp);
	return n;
}

/* ---- helpers -------------------------------------------------------------- */

static struct pa_symtab *load(const char *rel, const struct pa_sym_opts *o)
{
	struct pa_err err = {0};
	struct pa_symtab *t = pa_symtab_load_elf(path_of(rel), o, &err);
	if (!t)
		fail_msg("load %s: %s", rel, err.msg);
	return t;
}

static const char *name_at(const struct pa_symtab *t, uint64_t addr)
{
	const struct pa_sym *s = pa_symtab_find(t, addr);
	return s ? s->name : "(none)";
}

static struct pa_sym_opts opts_plain(void)
{
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.demangle = false;
	return o;
}

/* ---- demangling ------------------------------------------------------------ */

static void test_demangle_api(void **state)
{
	(void)state;
	static const struct {
		const char *in, *plain, *params;
	} cases[] = {
	    {"_ZNK2ns1K1mEiPKc", "ns::K::m", "ns::K::m(int, char const*) const"},
	    {"_Z6vecsumRKSt6vectorIiSaIiEE", "vecsum",
	     "vecsum(std::vector<int, std::allocator<int> > const&)"},
	    {"_ZN2ns1K2tmIiEET_S2_", "ns::K::tm<int>", "int ns::K::tm<int>(int)"},
	    {"_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()", NULL},
	    {"_ZN3FooC2ERKS_", "Foo::Foo", NULL},
	    {"_ZNKSt8functionIFvvEEclEv", "std::function<void ()>::operator()", NULL},
	    {"_ZTV3Foo", "vtable for Foo", NULL},
	    {"_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write", NULL},
	    {"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h9c1a2b3c4d5e6f70E",
	     "std::rt::lang_start::{{closure}}", NULL},
	    {"_RNvCs1234_7mycrate4main", "mycrate::main", NULL},
	    {"camlFoo__bar_123", "Foo.bar_123", NULL},
	    {"camlStdlib__list__map_$3c$_456", "Stdlib.list.map_<$_456", NULL},
	    {"Lorg/apache/fop/fo/FObj;bind(Lorg/apache/fop/fo/PropertyList;)V",
	     "org.apache.fop.fo.FObj.bind(org.apache.fop.fo.PropertyList)", NULL},
	    {"Ljava/lang/String;valueOf([CII)Ljava/lang/String;",
	     "java.lang.String.valueOf(char[], int, int)", NULL},
	    {"Lfoo;bar(ZBCSIJFD[[I[Ljava/lang/Object;)V",
	     "foo.bar(boolean, byte, char, short, int, long, float, double, int[][], "
	     "java.lang.Object)",
	     NULL},
	};
	for (size_t i = 0; i < PA_ARRAY_SIZE(cases); i++) {
		char *d = pa_sym_demangle(cases[i].in, false);
		assert_non_null(d);
		assert_string_equal(d, cases[i].plain);
		free(d);
		if (cases[i].params) {
			d = pa_sym_demangle(cases[i].in, true);
			assert_non_null(d);
			assert_string_equal(d, cases[i].params);
			free(d);
		}
	}
	static const char *const plain[] = {"main",
	                                    "foo(bar)",
	                                    "camlfoo__bar",
	                                    "__ZN3foo3barEv",
	                                    "foo::bar::h0123456789abcdef",
	                                    "_GLOBAL__sub_I_main"};
	for (size_t i = 0; i < PA_ARRAY_SIZE(plain); i++)
		assert_null(pa_sym_demangle(plain[i], false));
}

/* ---- perf's rules on the fixture ------------------------------------------- */

static void test_rules(void **state)
{
	(void)state;
	struct facts f;
	facts_load(&f, "libfix.so");
	struct pa_symtab *t = load("libfix.so", NULL);

	assert_int_equal(pa_symtab_kind(t), PA_SYMTAB_ELF);
	assert_string_equal(pa_symtab_origin(t), ".symtab");
	assert_string_equal(pa_symtab_symbol_file(t), path_of("libfix.so"));
	assert_int_equal(pa_symtab_elf_type(t), 3 /* ET_DYN */);

	/* duplicates */
	assert_string_equal(name_at(t, fact_addr(&f, "lfn")), "nlab");
	assert_string_equal(name_at(t, fact_addr(&f, "lfn") + 15), "nlab");
	assert_string_equal(name_at(t, fact_addr(&f, "wfn")), "gfn");
	assert_string_equal(name_at(t, fact_addr(&f, "a1") + 3), "a22");
	assert_string_equal(name_at(t, fact_addr(&f, "zl0")), "zl16");
	assert_string_equal(name_at(t, fact_addr(&f, "lsz") + 1), "zsz");
	assert_string_equal(name_at(t, fact_addr(&f, "SyS_abc")), "sys_abc");

	/* fixup_end: a zero-sized label reaches the next symbol */
	uint64_t z = fact_addr(&f, "zlabel"), after = fact_addr(&f, "afterz");
	const struct pa_sym *s = pa_symtab_find(t, z + 8);
	assert_non_null(s);
	assert_string_equal(s->name, "zlabel");
	assert_int_equal(s->start, z);
	assert_int_equal(s->end, after);
	assert_string_equal(name_at(t, after), "afterz");
	assert_string_equal(name_at(t, after - 1), "zlabel");

	/* objects and labels in *data* sections count, others do not */
	assert_string_equal(name_at(t, fact_addr(&f, "robj") + 100), "robj");
	assert_string_equal(name_at(t, fact_addr(&f, "rolabel") + 4), "rolabel");
	assert_string_not_equal(name_at(t, fact_addr(&f, "badlab")), "badlab");

	/* static function and demangled names */
	assert_string_equal(name_at(t, fact_addr(&f, "s1")), "s1");
	assert_string_equal(name_at(t, fact_addr(&f, "_ZN4core3fmt5write17h0123456789abcdefE") + 2),
	                    "core::fmt::write");
	assert_string_equal(name_at(t, fact_addr(&f, "camlFoo__bar_123")), "Foo.bar_123");
	assert_string_equal(
	    name_at(t, fact_addr(&f, "Ljava/lang/String;valueOf([CII)Ljava/lang/String;")),
	    "java.lang.String.valueOf(char[], int, int)");

	/* count / at / index agree and are sorted */
	size_t n = pa_symtab_count(t);
	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		const struct pa_sym *a = pa_symtab_at(t, i);
		assert_int_equal(pa_sym_index(t, a), i);
		if (i)
			assert_true(pa_symtab_at(t, i - 1)->start <= a->start);
		assert_null(pa_sym_module(t, a));
	}
	assert_null(pa_symtab_at(t, n));

	/* without demangling */
	struct pa_sym_opts o = opts_plain();
	struct pa_symtab *raw = load("libfix.so", &o);
	assert_string_equal(name_at(raw, fact_addr(&f, "camlFoo__bar_123")), "camlFoo__bar_123");
	pa_symtab_free(raw);

	pa_symtab_free(t);
	facts_free(&f);
}

/* .symtab has "fe", .dynsym "foo_exported": perf loads both tables and the
 * longer name wins the duplicate check. */
static void test_symtab_and_dynsym(void **state)
{
	(void)state;
	struct facts f;
	facts_load(&f, "librename.so");
	struct pa_symtab *t = load("librename.so", NULL);
	assert_string_equal(name_at(t, fact_addr(&f, "fe")), "foo_exported");
	pa_symtab_free(t);
	facts_free(&f);
}

static void test_plt(void **state)
{
	(void)state;
	uint64_t plt, ent, dummy;
	if (!section_fact("libfix.so", ".plt", &plt, &ent) || !ent ||
	    (!section_fact("libfix.so", ".rela.plt", &dummy, &dummy) &&
	     !section_fact("libfix.so", ".rel.plt", &dummy, &dummy)))
		skip();
	/* index of ext_fn among the PLT relocations */
	char file[4200], line[1024];
	snprintf(file, sizeof(file), "%s.relocs", path_of("libfix.so"));
	FILE *fp = fopen(file, "r");
	assert_non_null(fp);
	int idx = -1, k = -1;
	bool in_plt = false;
	while (idx < 0 && fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "Relocation section '", 20)) {
			in_plt = strstr(line, ".plt'") != NULL;
			k = -1;
			continue;
		}
		if (!in_plt || !line[0] || !strchr("0123456789abcdef", line[0]))
			continue;
		k++; /* an entry: its line starts with the hex offset */
		if (strstr(line, " ext_fn"))
			idx = k;
	}
	fclose(fp);
	assert_true(idx >= 0);
	struct pa_symtab *t = load("libfix.so", NULL);
	/* perf: one header entry, then one entry per PLT relocation; both
	 * sh_entsize bytes on all but ARM/AArch64/SPARC */
	uint64_t at = plt + ent + (uint64_t)idx * ent;
	const struct pa_sym *s = NULL;
	for (size_t i = 0; i < pa_symtab_count(t) && !s; i++)
		if (!strcmp(pa_symtab_at(t, i)->name, "ext_fn@plt"))
			s = pa_symtab_at(t, i);
	assert_non_null(s);
	assert_int_equal(s->start, at);
	assert_int_equal(s->end, at + ent);
	/* Whether find() returns it depends on perf's tree: the zero-sized
	 * _init before .plt was extended over it by fixup_end, and the PLT
	 * symbols are inserted later without fixups. */
	const struct pa_sym *f = pa_symtab_find(t, at);
	assert_non_null(f);
	assert_true(f == s || !strcmp(f->name, "_init"));
	pa_symtab_free(t);
}

static void test_offset_to_vaddr(void **state)
{
	(void)state;
	struct pa_symtab *t = load("libfix.so", NULL);
	char file[4200];
	snprintf(file, sizeof(file), "%s.phdrs", path_of("libfix.so"));
	FILE *fp = fopen(file, "r");
	assert_non_null(fp);
	char line[512];
	int loads = 0;
	uint64_t max_end = 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long off, va, pa, fs, ms;
		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx", &off, &va, &pa, &fs, &ms) != 5 ||
		    !fs)
			continue;
		uint64_t v = 0;
		assert_int_equal(pa_symtab_offset_to_vaddr(t, off + fs / 2, &v), 0);
		assert_int_equal(v, va + fs / 2);
		if (off + ms > max_end)
			max_end = off + ms;
		loads++;
	}
	fclose(fp);
	assert_true(loads >= 1);
	uint64_t v;
	assert_int_equal(pa_symtab_offset_to_vaddr(t, max_end + 0x100000, &v), -PA_ERR_NOT_FOUND);

	/* file offsets (perf's keys) and vaddrs name the same symbols */
	int checked = 0;
	for (size_t i = 0; i < pa_symtab_count(t); i++) {
		const struct pa_sym *s = pa_symtab_at(t, i);
		uint64_t key = pa_sym_key(t, s);
		if (pa_symtab_offset_to_vaddr(t, key, &v) || v != s->start)
			continue; /* e.g. .bss: not file-backed */
		assert_ptr_equal(pa_symtab_find_offset(t, key), pa_symtab_find(t, s->start));
		if (s->end > s->start + 1)
			assert_ptr_equal(pa_symtab_find_offset(t, key + 1),
			                 pa_symtab_find(t, s->start + 1));
		checked++;
	}
	assert_true(checked > 10);
	pa_symtab_free(t);
}

static void test_build_id(void **state)
{
	(void)state;
	uint8_t want[64];
	size_t n = build_id_fact("libfix.so", want);
	struct pa_symtab *t = load("libfix.so", NULL);
	size_t len = 0;
	const uint8_t *bid = pa_symtab_build_id(t, &len);
	assert_int_equal(len, n);
	assert_true(n == 20);
	assert_memory_equal(bid, want, n);
	pa_symtab_free(t);

	t = load("crc/libcrc.so", NULL); /* linked with --build-id=none */
	assert_null(pa_symtab_build_id(t, &len));
	assert_int_equal(len, 0);
	pa_symtab_free(t);
}

/* Every sized function of the test binary resolves, at its start and end,
 * to itself or to an alias at the same address. */
static void test_self_binary(void **state)
{
	(void)state;
	if (!exists("selfbin.syms"))
		skip();
	struct facts f;
	facts_load(&f, "selfbin");
	struct pa_sym_opts o = opts_plain();
	struct pa_symtab *t = load("selfbin", &o);
	int checked = 0;
	for (size_t i = 0; i < f.n; i++) {
		const struct fact *x = &f.v[i];
		if (x->table != 0 || strcmp(x->type, "FUNC") || !x->size || x->ndx[0] < '0' ||
		    x->ndx[0] > '9')
			continue;
		const struct pa_sym *s = pa_symtab_find(t, x->value);
		assert_non_null(s);
		assert_int_equal(s->start, x->value);
		bool alias = false;
		for (size_t j = 0; j < f.n && !alias; j++)
			alias = f.v[j].value == x->value && !strcmp(f.v[j].name, s->name);
		if (!alias)
			fail_msg("%s at %#llx resolved to %s", x->name,
			         (unsigned long long)x->value, s->name);
		uint64_t last = x->value + x->size - 1;
		s = pa_symtab_find(t, last);
		assert_non_null(s);
		assert_true(s->start <= last && (last < s->end || last == s->start));
		checked++;
	}
	assert_true(checked >= 10);
	pa_symtab_free(t);
	facts_free(&f);
}

/* ---- separate debug files ------------------------------------------------ */

struct finder_log {
	int calls;
	char main_path[4096];
	char debuglink[256];
	uint8_t build_id[64];
	size_t build_id_len;
	const char *answer; /* relative to the fixture dir, or NULL */
};

static char *log_finder(void *ctx, const char *main_path, const uint8_t *build_id,
                        size_t build_id_len, const char *debuglink, uint32_t crc)
{
	(void)crc;
	struct finder_log *l = ctx;
	l->calls++;
	snprintf(l->main_path, sizeof(l->main_path), "%s", main_path);
	snprintf(l->debuglink, sizeof(l->debuglink), "%s", debuglink ? debuglink : "");
	l->build_id_len = build_id_len;
	if (build_id_len)
		memcpy(l->build_id, build_id, build_id_len);
	return l->answer ? strdup(path_of(l->answer)) : NULL;
}

static void test_debuglink(void **state)
{
	(void)state;
	struct facts f;
	facts_load(&f, "libfix.so");
	uint64_t s1 = fact_addr(&f, "s1");

	/* default finder: next to the file */
	struct pa_symtab *t = load("dl/libdl.so", NULL);
	char want[4200];
	snprintf(want, sizeof(want), "debuglink:%s", path_of("dl/libdl.so.debug"));
	assert_string_equal(pa_symtab_origin(t), want);
	assert_string_equal(pa_symtab_symbol_file(t), path_of("dl/libdl.so.debug"));
	assert_string_equal(name_at(t, s1), "s1");
	assert_string_equal(name_at(t, fact_addr(&f, "lfn")), "nlab");
	pa_symtab_free(t);

	/* a caller's finder gets the facts and its answer is checked */
	struct finder_log log = {.answer = "dl/libdl.so.debug"};
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.find_debuginfo = log_finder;
	o.find_ctx = &log;
	t = load("dl/libdl.so", &o);
	assert_int_equal(log.calls, 1);
	assert_string_equal(log.main_path, path_of("dl/libdl.so"));
	assert_string_equal(log.debuglink, "libdl.so.debug");
	uint8_t bid[64];
	size_t n = build_id_fact("libfix.so", bid);
	assert_int_equal(log.build_id_len, n);
	assert_memory_equal(log.build_id, bid, n);
	assert_string_equal(name_at(t, s1), "s1");
	pa_symtab_free(t);

	/* a debug file of another build: rejected, .dynsym only */
	log = (struct finder_log){.answer = "libother.debug"};
	t = load("dl/libdl.so", &o);
	assert_string_equal(pa_symtab_origin(t), ".dynsym");
	assert_string_not_equal(name_at(t, s1), "s1");
	pa_symtab_free(t);

	/* no answer: the file's own tables */
	log = (struct finder_log){0};
	t = load("libfix.so", &o);
	assert_int_equal(log.calls, 1);
	assert_string_equal(log.debuglink, "");
	assert_string_equal(pa_symtab_origin(t), ".symtab");
	pa_symtab_free(t);

	/* no build-id: the CRC decides (this build has its own layout) */
	struct facts fc;
	facts_load(&fc, "crc/libcrc.so.debug");
	t = load("crc/libcrc.so", NULL);
	assert_memory_equal(pa_symtab_origin(t), "debuglink:", 10);
	assert_string_equal(name_at(t, fact_addr(&fc, "s1")), "s1");
	facts_free(&fc);
	pa_symtab_free(t);
	t = load("crcbad/libcrc.so", NULL);
	assert_string_equal(pa_symtab_origin(t), ".dynsym");
	pa_symtab_free(t);

	/* a debuglink to the file itself is not followed */
	t = load("self/libself.so", NULL);
	assert_string_equal(pa_symtab_origin(t), ".symtab");
	assert_string_equal(name_at(t, s1), "s1");
	pa_symtab_free(t);
	facts_free(&f);
}

static void test_minidebuginfo(void **state)
{
	(void)state;
	if (!exists("mini/libmini.so"))
		skip();
	struct facts f;
	facts_load(&f, "libfix.so");
	uint64_t s1 = fact_addr(&f, "s1");
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.no_minidebuginfo = true;
	struct pa_symtab *t = load("mini/libmini.so", &o);
	assert_string_equal(pa_symtab_origin(t), ".dynsym");
	assert_string_not_equal(name_at(t, s1), "s1");
	assert_string_equal(name_at(t, fact_addr(&f, "foo_exported")), "foo_exported");
	pa_symtab_free(t);

	t = load("mini/libmini.so", NULL);
#ifdef PA_HAVE_LZMA
	assert_string_equal(pa_symtab_origin(t), "minidebuginfo");
	assert_string_equal(name_at(t, s1), "s1");
	/* .dynsym symbols are merged in */
	assert_string_equal(name_at(t, fact_addr(&f, "foo_exported")), "foo_exported");
	pa_symtab_free(t);
	facts_free(&f);
#else
	assert_string_equal(pa_symtab_origin(t), ".dynsym");
	pa_symtab_free(t);
	facts_free(&f);
	skip(); /* built without liblzma */
#endif
}

static void test_cxx(void **state)
{
	(void)state;
	if (!exists("libcxx.so"))
		skip();
	struct facts f;
	facts_load(&f, "libcxx.so");
	uint64_t m = fact_addr(&f, "_ZNK2ns1K1mEiPKc");
	struct pa_symtab *t = load("libcxx.so", NULL);
	assert_string_equal(name_at(t, m), "ns::K::m");
	pa_symtab_free(t);

	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.demangle_params = true;
	t = load("libcxx.so", &o);
	assert_string_equal(name_at(t, m), "ns::K::m(int, char const*) const");
	pa_symtab_free(t);

	o = opts_plain();
	t = load("libcxx.so", &o);
	assert_string_equal(name_at(t, m), "_ZNK2ns1K1mEiPKc");
	pa_symtab_free(t);
	facts_free(&f);
}

/* ---- kallsyms and perf maps ------------------------------------------------ */

static const char *write_file(const char *rel, const char *text)
{
	const char *p = path_of(rel);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return p;
}

static void test_kallsyms(void **state)
{
	(void)state;
	const char *p = write_file("kallsyms.txt", "ffffffff81000000 T _stext\n"
	                                           "ffffffff81000000 T _text\n"
	                                           "ffffffff81000000 t __local_alias\n"
	                                           "ffffffff81000100 T func_a\n"
	                                           "ffffffff81000100 W func_a_weak\n"
	                                           "ffffffff81000200 t func_b\n"
	                                           "ffffffff81000200 t __func_b\n"
	                                           "ffffffff81000300 w weak_small\n"
	                                           "ffffffff81000400 R rodata_thing\n"
	                                           "ffffffff81000500 D data_thing\n"
	                                           "ffffffff81000600 b bss_thing\n"
	                                           "ffffffff81000700 T $x_arm\n"
	                                           "\n"
	                                           "ffffffff81000800 T after_empty_line\n"
	                                           "ffffffff81000900 T after_empty_line2\n"
	                                           "xyz garbage line\n"
	                                           "ffffffff81000A00 T upper_hex\n"
	                                           "ffffffff81000b00 TT bad_type\n"
	                                           "ffffffff81000c00 T SyS_read\n"
	                                           "ffffffff81000c00 T sys_read\n"
	                                           "ffffffff81000e00 T last_kernel\n"
	                                           "ffffffffc0001000 t mod_a1\t[moda]\n"
	                                           "ffffffffc0001100 T mod_a2\t[moda]\n"
	                                           "ffffffffc0002000 t mod_b1\t[modb]\n"
	                                           "ffffffffc0002040 t mod_b2\t[modb]\n");
	struct pa_err err;
	struct pa_symtab *t = pa_symtab_load_kallsyms(p, NULL, &err);
	assert_non_null(t);
	assert_int_equal(pa_symtab_kind(t), PA_SYMTAB_KALLSYMS);
	assert_string_equal(pa_symtab_origin(t), "kallsyms");
	uint64_t v;
	assert_int_equal(pa_symtab_offset_to_vaddr(t, 0, &v), -PA_ERR_NOT_FOUND);

	static const struct {
		uint64_t addr;
		const char *name;
	} want[] = {
	    /* zero sizes: all but the last of a group stay empty, it wins */
	    {0xffffffff81000000, "__local_alias"},
	    {0xffffffff810000ff, "__local_alias"},
	    {0xffffffff81000100, "func_a_weak"},
	    {0xffffffff81000200, "__func_b"},
	    /* R is not loaded, so weak_small reaches data_thing */
	    {0xffffffff81000450, "weak_small"},
	    {0xffffffff81000500, "data_thing"},
	    /* '$' names are dropped; the line after an empty line is lost */
	    {0xffffffff81000700, "bss_thing"},
	    {0xffffffff81000800, "bss_thing"},
	    {0xffffffff81000900, "after_empty_line2"},
	    {0xffffffff81000a00, "upper_hex"},
	    {0xffffffff81000b00, "upper_hex"},
	    {0xffffffff81000c00, "sys_read"},
	    /* the last kernel symbol before modules ends at the next page + 4K */
	    {0xffffffff81001fff, "last_kernel"},
	    {0xffffffff81002000, NULL},
	    {0xffffffffc0001000, "mod_a1"},
	    {0xffffffffc0001fff, "mod_a2"},
	    {0xffffffffc0002000, "mod_b1"},
	    {0xffffffffc0003fff, "mod_b2"},
	    {0xffffffffc0004000, NULL},
	    {0xffffffff80000000, NULL},
	};
	for (size_t i = 0; i < PA_ARRAY_SIZE(want); i++) {
		const struct pa_sym *s = pa_symtab_find(t, want[i].addr);
		assert_ptr_equal(s, pa_symtab_find_offset(t, want[i].addr));
		if (!want[i].name) {
			assert_null(s);
			continue;
		}
		assert_non_null(s);
		assert_string_equal(s->name, want[i].name);
	}
	const struct pa_sym *s = pa_symtab_find(t, 0xffffffff81000e00);
	assert_int_equal(s->end, 0xffffffff81002000);
	assert_int_equal(s->type, 2 /* STT_FUNC */);
	assert_int_equal(s->binding, 1 /* STB_GLOBAL */);
	assert_null(pa_sym_module(t, s));
	s = pa_symtab_find(t, 0xffffffffc0001100);
	assert_string_equal(pa_sym_module(t, s), "moda");
	assert_int_equal(s->end, 0xffffffffc0002000);
	s = pa_symtab_find(t, 0xffffffffc0002040);
	assert_string_equal(pa_sym_module(t, s), "modb");
	s = pa_symtab_find(t, 0xffffffff81000500);
	assert_int_equal(s->type, 1 /* STT_OBJECT */);
	pa_symtab_free(t);
}

/* Overlapping JIT entries: perf returns the first covering node on its
 * red-black tree search path, so some covered addresses resolve to nothing.
 * Expectations are perf 6.1.192's answers. */
static void test_perf_map(void **state)
{
	(void)state;
	const char *p = write_file("perf-4343.map", "40001000 100 AAA\n"
	                                            "40001050 10 BBB\n"
	                                            "40001000 0 CCC\n"
	                                            "40001080 200 DDD\n"
	                                            "40001040 8 EEE\n"
	                                            "40001200 0 FFF\n"
	                                            "40001090 4 GGG\n"
	                                            "40001000 40 HHH\n"
	                                            "400010f0 20 III\n"
	                                            "40001300 10 JJJ\n"
	                                            "40001400 10 X\n"
	                                            "0x40001500 0x20 with prefix\n"
	                                            "40001600 40 no_newline");
	struct pa_err err;
	struct pa_symtab *t = pa_symtab_load_perf_map(p, NULL, &err);
	assert_non_null(t);
	assert_int_equal(pa_symtab_kind(t), PA_SYMTAB_PERF_MAP);
	static const struct {
		uint64_t addr;
		const char *name;
	} want[] = {
	    {0x40001000, "CCC"},
	    {0x40001001, "HHH"},
	    {0x40001020, "HHH"},
	    {0x40001040, "EEE"},
	    {0x40001044, "EEE"},
	    {0x40001048, NULL},
	    {0x40001050, "BBB"},
	    {0x40001058, "BBB"},
	    {0x4000105f, "BBB"},
	    {0x40001060, NULL},
	    {0x40001080, "DDD"},
	    {0x40001090, "GGG"},
	    {0x40001093, "GGG"},
	    {0x40001094, NULL},
	    {0x400010a0, NULL},
	    {0x400010f0, "III"},
	    {0x40001100, "III"},
	    {0x40001105, "III"},
	    {0x40001110, NULL},
	    {0x40001200, "FFF"},
	    {0x40001201, NULL},
	    {0x40001280, NULL},
	    {0x40001300, "JJJ"},
	    {0x4000130f, "JJJ"},
	    {0x40001310, NULL},
	    /* a name shorter than 2 characters makes perf skip the line */
	    {0x40001400, NULL},
	    {0x40001510, "with prefix"},
	    /* perf drops the last character of an unterminated last line */
	    {0x40001600, "no_newlin"},
	};
	for (size_t i = 0; i < PA_ARRAY_SIZE(want); i++) {
		const struct pa_sym *s = pa_symtab_find(t, want[i].addr);
		assert_ptr_equal(s, pa_symtab_find_offset(t, want[i].addr));
		if (!want[i].name) {
			if (s)
				fail_msg("%#llx: got %s", (unsigned long long)want[i].addr,
				         s->name);
			continue;
		}
		if (!s)
			fail_msg("%#llx: got nothing, want %s", (unsigned long long)want[i].addr,
			         want[i].name);
		assert_string_equal(s->name, want[i].name);
	}
	pa_symtab_free(t);
}

/* ---- the replayed red-black tree -------------------------------------------- */

static int rb_check(const struct pa_symb *b, uint32_t n, uint32_t parent, int *count)
{
	if (n == PA_SYMB_NIL)
		return 1;
	const struct pa_rb_node *N = b->rb.node;
	assert_int_equal(N[n].parent, parent);
	if (N[n].red) {
		assert_true(N[n].left == PA_SYMB_NIL || !N[N[n].left].red);
		assert_true(N[n].right == PA_SYMB_NIL || !N[N[n].right].red);
	}
	int l = rb_check(b, N[n].left, n, count);
	int r = rb_check(b, N[n].right, n, count);
	assert_int_equal(l, r);
	(*count)++;
	return l + !N[n].red;
}

static void tree_check(const struct pa_symb *b)
{
	int count = 0;
	if (b->rb.root != PA_SYMB_NIL)
		assert_false(b->rb.node[b->rb.root].red);
	rb_check(b, b->rb.root, PA_SYMB_NIL, &count);
	assert_int_equal((size_t)count, b->live);
	/* in order: sorted by start, equal starts in insertion order */
	uint32_t prev = PA_SYMB_NIL;
	for (uint32_t n = pa_symb_first(b); n != PA_SYMB_NIL; n = pa_symb_next(b, n)) {
		if (prev != PA_SYMB_NIL) {
			assert_true(b->nodes[prev].start <= b->nodes[n].start);
			if (b->nodes[prev].start == b->nodes[n].start)
				assert_true(prev < n);
		}
		prev = n;
	}
}

/* perf's symbols__find() on the builder's tree */
static const struct pa_symb_node *walk(const struct pa_symb *b, uint64_t ip)
{
	uint32_t n = b->rb.root;
	while (n != PA_SYMB_NIL) {
		const struct pa_symb_node *s = &b->nodes[n];
		if (ip < s->start)
			n = b->rb.node[n].left;
		else if (ip > s->end || (ip == s->end && ip != s->start))
			n = b->rb.node[n].right;
		else
			return s;
	}
	return NULL;
}

static void test_tree(void **state)
{
	(void)state;
	static char names[512][8];
	for (int i = 0; i < 512; i++)
		snprintf(names[i], sizeof(names[i]), "n%d", i);
	srand(12345);
	static const uint64_t sizes[] = {0, 0, 8, 16, 64, 300};
	for (int iter = 0; iter < 300; iter++) {
		struct pa_symb b;
		pa_symb_init(&b);
		bool sparse = iter % 3 == 0; /* far apart: no overlaps */
		int n = 1 + rand() % 400;
		bool live[512] = {0};
		for (int i = 0; i < n; i++) {
			uint64_t start = sparse ? (uint64_t)(rand() % 100000) * 4096
			                        : (uint64_t)(rand() % 64) * 16;
			uint64_t size = sparse ? 16 : sizes[rand() % 6];
			assert_int_equal(pa_symb_insert(&b, start, start, size,
			                                (uint8_t)(rand() % 3), 2, names[i]),
			                 0);
			live[i] = true;
		}
		tree_check(&b);
		for (int k = 0; k < n / 3; k++) {
			int i = rand() % n;
			if (!live[i])
				continue;
			pa_symb_erase(&b, (uint32_t)i);
			live[i] = false;
			tree_check(&b);
		}
		if (iter % 2) {
			pa_symb_fixup_end(&b, false);
			pa_symb_fixup_duplicate(&b);
			tree_check(&b);
		}
		struct pa_symtab *t = pa_symtab_new(PA_SYMTAB_PERF_MAP);
		assert_non_null(t);
		assert_int_equal(pa_symtab_freeze(t, &b, false), 0);
		assert_int_equal(pa_symtab_count(t), b.live);
		for (int q = 0; q < 2000; q++) {
			uint64_t a =
			    sparse ? (uint64_t)(rand() % 100000) * 4096 + (uint64_t)(rand() % 24)
			           : (uint64_t)(rand() % (64 * 16 + 400));
			const struct pa_symb_node *w = walk(&b, a);
			const struct pa_sym *s = pa_symtab_find(t, a);
			if (!w) {
				assert_null(s);
				continue;
			}
			assert_non_null(s);
			assert_ptr_equal(s->name, w->name);
			assert_int_equal(s->start, w->start);
			assert_int_equal(s->end, w->end);
		}
		pa_symtab_free(t);
		pa_symb_release(&b);
	}
}

/* choose_best_symbol(), rule by rule */
static void test_choose(void **state)
{
	(void)state;
	struct pa_symb_node a = {.start = 0, .end = 16, .binding = 1, .type = 2, .name = "foo"};
	struct pa_symb_node b = a;
	b.end = 0;
	assert_true(pa_symb_choose_a(&a, &b)); /* sized */
	assert_false(pa_symb_choose_a(&b, &a));
	b = a;
	b.binding = 2; /* weak */
	assert_true(pa_symb_choose_a(&a, &b));
	assert_false(pa_symb_choose_a(&b, &a));
	struct pa_symb_node l = a;
	l.binding = 0;                         /* local */
	assert_true(pa_symb_choose_a(&l, &b)); /* local beats weak */
	assert_false(pa_symb_choose_a(&b, &l));
	assert_true(pa_symb_choose_a(&a, &l)); /* global beats local */
	b = a;
	b.name = "_foo";
	assert_true(pa_symb_choose_a(&a, &b));
	b.name = "fooo";
	assert_false(pa_symb_choose_a(&a, &b));
	b.name = "bar";
	assert_true(pa_symb_choose_a(&a, &b)); /* all equal: the first */
	assert_true(pa_symb_choose_a(&b, &a));
	a.name = "SyS_x";
	b.name = "sys_x";
	assert_false(pa_symb_choose_a(&a, &b));
	assert_true(pa_symb_choose_a(&b, &a));
	a.name = "compat_SyS_x";
	b.name = "compat_sys_x";
	assert_false(pa_symb_choose_a(&a, &b));
	b.type = 0; /* NOTYPE is no worse in perf 6.1 */
	a.name = "x1";
	b.name = "x2";
	assert_true(pa_symb_choose_a(&a, &b));
	assert_true(pa_symb_choose_a(&b, &a));
}

/* ---- errors ---------------------------------------------------------------- */

static void test_errors(void **state)
{
	(void)state;
	struct pa_err err = {0};
	errno = 0;
	assert_null(pa_symtab_load_elf(path_of("does-not-exist"), NULL, &err));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(err.code, -ENOENT);
	assert_null(pa_symtab_load_kallsyms(path_of("does-not-exist"), NULL, NULL));
	assert_null(pa_symtab_load_perf_map(path_of("does-not-exist"), NULL, NULL));

	assert_null(pa_symtab_load_elf(path_of("fix.c"), NULL, &err));
	assert_int_equal(err.code, -PA_ERR_FORMAT);
	assert_int_equal(errno, PA_ERR_FORMAT);

	/* opts: a larger struct with a non-zero unknown tail is refused */
	struct {
		struct pa_sym_opts o;
		uint64_t extra;
	} big = {.o = PA_SYM_OPTS_INIT, .extra = 1};
	big.o.sz = sizeof(big);
	assert_null(pa_symtab_load_elf(path_of("libfix.so"), &big.o, &err));
	assert_int_equal(err.code, -EINVAL);
	big.extra = 0;
	struct pa_symtab *t = pa_symtab_load_elf(path_of("libfix.so"), &big.o, &err);
	assert_non_null(t);
	pa_symtab_free(t);
	/* a smaller (older) struct reads as zeros past sz: no demangling */
	struct pa_sym_opts small = PA_SYM_OPTS_INIT;
	small.sz = offsetof(struct pa_sym_opts, demangle);
	t = pa_symtab_load_elf(path_of("libfix.so"), &small, &err);
	assert_non_null(t);
	struct facts f;
	facts_load(&f, "libfix.so");
	assert_string_equal(name_at(t, fact_addr(&f, "camlFoo__bar_123")), "camlFoo__bar_123");
	facts_free(&f);
	pa_symtab_free(t);

	pa_symtab_free(NULL);
	assert_null(pa_symtab_find(NULL, 0));
	assert_int_equal(pa_symtab_count(NULL), 0);

	/* an empty file is an empty table */
	t = pa_symtab_load_perf_map(write_file("empty.map", ""), NULL, &err);
	assert_non_null(t);
	assert_int_equal(pa_symtab_count(t), 0);
	assert_null(pa_symtab_find(t, 0));
	pa_symtab_free(t);
}

/* An image in memory loads as the same file on disk: every symbol, in
 * order, with its address and size (the PLT entries synthesized too); a
 * buffer that is no ELF image is refused. */
static void test_load_mem(void **state)
{
	(void)state;
	const char *files[] = {"libfix.so", "librename.so"};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		FILE *fp = fopen(path_of(files[f]), "rb");
		assert_non_null(fp);
		static char img[1 << 20];
		size_t len = fread(img, 1, sizeof(img), fp);
		fclose(fp);
		assert_true(len > 0 && len < sizeof(img));
		struct pa_sym_opts o = opts_plain();
		struct pa_err err = {0};
		struct pa_symtab *disk = load(files[f], &o);
		struct pa_symtab *mem = pa_symtab_load_elf_mem("[mem]", img, len, &o, &err);
		assert_non_null(mem);
		assert_true(pa_symtab_count(disk) > 0);
		assert_int_equal(pa_symtab_count(mem), pa_symtab_count(disk));
		for (size_t i = 0; i < pa_symtab_count(disk); i++) {
			const struct pa_sym *a = pa_symtab_at(disk, i), *b = pa_symtab_at(mem, i);
			assert_string_equal(b->name, a->name);
			assert_true(b->start == a->start && b->end == a->end);
		}
		pa_symtab_free(mem);
		pa_symtab_free(disk);
	}
	struct pa_err err = {0};
	static const char junk[64] = "not an ELF image";
	assert_null(pa_symtab_load_elf_mem("[junk]", junk, sizeof(junk), NULL, &err));
	assert_int_equal(err.code, -PA_ERR_FORMAT);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
		return 2;
	}
	g_dir = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demangle_api),
	    cmocka_unit_test(test_choose),
	    cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_symtab_and_dynsym),
	    cmocka_unit_test(test_plt),
	    cmocka_unit_test(test_offset_to_vaddr),
	    cmocka_unit_test(test_build_id),
	    cmocka_unit_test(test_self_binary),
	    cmocka_unit_test(test_debuglink),
	    cmocka_unit_test(test_minidebuginfo),
	    cmocka_unit_test(test_cxx),
	    cmocka_unit_test(test_kallsyms),
	    cmocka_unit_test(test_perf_map),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_load_mem),
	};
	return cmocka_run_group_tests_name("symbols", tests, NULL, NULL);
}
