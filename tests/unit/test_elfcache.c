/* test_elfcache.c - unit tests for symbols/elfcache.c (cmocka): an ELF
 * file's table loaded from its index is the table the files give (every
 * symbol, linkage name, origin, symbol file, lookup), for each kind of
 * source (.symtab, a debuglink's debug file, a CRC-matched one, a rejected
 * one, MiniDebugInfo, C++ names); the index is not used, and is rewritten,
 * when the file changes, when the finder names another debug file, under
 * other options, or when it is damaged.
 *
 *   test_elfcache FIXTURE_DIR   (test_symbols_fixtures.sh's files; scratch
 *                                files under $TMPDIR or /tmp)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/internal.h"
#include "symbols/symbols.h"
#include "util/util.h"

#include "idx_damage.h"

static const char *g_fix;
static char g_tmp[256];

static char *cat(const char *a, const char *b)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", a, b) > 0);
	return p;
}

/* a finder that gives what the test says (NULL: nothing) */
static char *fixed_finder(void *ctx, const char *main_path, const uint8_t *build_id, size_t len,
                          const char *debuglink, uint32_t crc)
{
	(void)main_path, (void)build_id, (void)len, (void)debuglink, (void)crc;
	const char *p = ctx;
	return p ? strdup(p) : NULL;
}

struct how {
	const char *dir; /* index directory, NULL: none */
	bool params;     /* demangle with parameters */
	bool fixed;      /* use fixed_finder with cand */
	const char *cand;
};

static struct pa_symtab *load(const char *path, const struct how *h)
{
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.index_dir = h->dir;
	o.demangle_params = h->params;
	if (h->fixed) {
		o.find_debuginfo = fixed_finder;
		o.find_ctx = (void *)h->cand;
	}
	struct pa_err err = {0};
	struct pa_symtab *t = pa_symtab_load_elf(path, &o, &err);
	assert_non_null(t);
	return t;
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_same_table(const struct pa_symtab *a, const struct pa_symtab *b)
{
	assert_int_equal(pa_symtab_count(a), pa_symtab_count(b));
	assert_string_equal(pa_symtab_origin(a), pa_symtab_origin(b));
	assert_string_equal(pa_symtab_symbol_file(a), pa_symtab_symbol_file(b));
	assert_int_equal(pa_symtab_elf_type(a), pa_symtab_elf_type(b));
	assert_int_equal(a->overlaps, b->overlaps);
	assert_int_equal(a->root, b->root);
	size_t n = pa_symtab_count(a);
	for (size_t i = 0; i < n; i++) {
		const struct pa_sym *x = pa_symtab_at(a, i), *y = pa_symtab_at(b, i);
		assert_true(x->start == y->start && x->end == y->end);
		assert_string_equal(x->name, y->name);
		same_str(x->linkage_name, y->linkage_name);
		assert_int_equal(x->binding, y->binding);
		assert_int_equal(x->type, y->type);
		assert_memory_equal(&a->tree[i], &b->tree[i], sizeof(a->tree[i]));
	}
	/* every lookup around each symbol's edges, in the file-offset space */
	for (size_t i = 0; i < n; i++) {
		uint64_t s = a->tree[i].start, e = a->tree[i].end;
		uint64_t probe[] = {s - 1, s, s + 1, (s + e) / 2, e - 1, e, e + 1};
		for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++) {
			const struct pa_sym *x = pa_symtab_find_offset(a, probe[k]);
			const struct pa_sym *y = pa_symtab_find_offset(b, probe[k]);
			if (!x) {
				assert_null(y);
				continue;
			}
			assert_non_null(y);
			assert_int_equal(pa_sym_index(a, x), pa_sym_index(b, y));
		}
	}
}

/* Parsed, then through the index (written), then from it (mapped): the
 * same table. */
static void roundtrip(const char *rel, const char *dir, bool params)
{
	char *path = cat(g_fix, rel);
	if (access(path, R_OK)) { /* (an optional fixture: no tool for it) */
		free(path);
		return;
	}
	struct how plain = {.params = params}, idx = {.dir = dir, .params = params};
	struct pa_symtab *t0 = load(path, &plain), *t1 = load(path, &idx), *t2 = load(path, &idx);
	assert_null(t0->map);
	assert_null(t1->map);
	assert_non_null(t2->map);
	assert_same_table(t0, t1);
	assert_same_table(t0, t2);
	pa_symtab_free(t2);
	pa_symtab_free(t1);
	pa_symtab_free(t0);
	free(path);
}

static void test_roundtrip(void **state)
{
	(void)state;
	assert_int_equal(pa_idx_self_id((uint8_t[20]){0}), 0);
	char *dir = cat(g_tmp, "rt");
	static const char *files[] = {
	    "libfix.so",       "libother.so", "dl/libdl.so",  "crc/libcrc.so",   "crcbad/libcrc.so",
	    "self/libself.so", "selfbin",     "librename.so", "mini/libmini.so", "libcxx.so"};
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		roundtrip(files[i], dir, false);
		roundtrip(files[i], dir, true); /* other options: an index of their own */
	}
	free(dir);
}

/* Entries are filled when a lookup first reaches them, not at open. */
static void test_lazy(void **state)
{
	(void)state;
	char *dir = cat(g_tmp, "lazy"), *path = cat(g_fix, "libfix.so");
	struct how idx = {.dir = dir};
	pa_symtab_free(load(path, &idx));
	struct pa_symtab *t = load(path, &idx), *t0 = load(path, &(struct how){0});
	assert_non_null(t->map);
	assert_true(t->lazy && t->n > 2);
	assert_null(t->syms[1].name);
	const struct pa_sym *s = pa_symtab_find_offset(t, t->tree[1].start);
	assert_non_null(s);
	assert_string_equal(s->name, pa_symtab_find_offset(t0, t0->tree[1].start)->name);
	const char *m = t->map;
	assert_true(s->name > m && s->name < m + t->map_len);
	pa_symtab_free(t0);
	pa_symtab_free(t);
	free(path);
	free(dir);
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	assert_non_null(a);
	assert_non_null(b);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
		assert_int_equal(fwrite(buf, 1, n, b), n);
	fclose(a);
	assert_int_equal(fclose(b), 0);
}

/* A changed main file (its mtime) or another debug-file candidate: the
 * index is not used, then rewritten for what is there now. */
static void test_stale(void **state)
{
	(void)state;
	char *dir = cat(g_tmp, "stale"), *path = cat(g_tmp, "libfix-copy.so");
	char *fix = cat(g_fix, "libfix.so");
	copy_file(fix, path);
	struct how idx = {.dir = dir, .fixed = true};
	pa_symtab_free(load(path, &idx));
	struct pa_symtab *t = load(path, &idx);
	assert_non_null(t->map);
	pa_symtab_free(t);

	struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
	assert_int_equal(utimes(path, tv), 0);
	t = load(path, &idx);
	assert_null(t->map);
	pa_symtab_free(t);
	t = load(path, &idx);
	assert_non_null(t->map);
	pa_symtab_free(t);

	/* the finder now names a debug file (of another build: rejected, so
	 * the table is the same, but the index is not taken on trust) */
	struct how other = {.dir = dir, .fixed = true, .cand = NULL};
	char *dbg = cat(g_fix, "libother.debug");
	other.cand = dbg;
	t = load(path, &other);
	assert_null(t->map);
	struct pa_symtab *t0 = load(path, &(struct how){.fixed = true, .cand = dbg});
	assert_same_table(t0, t);
	pa_symtab_free(t);
	t = load(path, &other);
	assert_non_null(t->map);
	assert_same_table(t0, t);
	pa_symtab_free(t);
	pa_symtab_free(t0);
	free(dbg);
	free(fix);
	free(path);
	free(dir);
}

/* The index of path in dir (elfcache.c's name). */
static char *index_of(const char *dir, const char *path, const struct pa_symtab *t)
{
	size_t len;
	const uint8_t *bid = pa_symtab_build_id(t, &len);
	char *p = pa_idx_name(dir, bid, len, path);
	assert_non_null(p);
	return p;
}

/* A damaged or cut index is ignored (the files give the table) and
 * rewritten. */
static void test_damaged(void **state)
{
	(void)state;
	char *dir = cat(g_tmp, "damaged"), *path = cat(g_fix, "dl/libdl.so");
	struct how idx = {.dir = dir};
	struct pa_symtab *t0 = load(path, &(struct how){0});
	pa_symtab_free(load(path, &idx));
	char *ip = index_of(dir, path, t0);
	struct stat st;
	assert_int_equal(stat(ip, &st), 0);
	off_t where[] = {8, 44, st.st_size / 2, st.st_size - 1};
	for (size_t k = 0; k < sizeof(where) / sizeof(*where); k++) {
		int fd = open(ip, O_RDWR);
		assert_true(fd >= 0);
		unsigned char c;
		assert_int_equal(pread(fd, &c, 1, where[k]), 1);
		c ^= 0x5a;
		assert_int_equal(pwrite(fd, &c, 1, where[k]), 1);
		close(fd);
		struct pa_symtab *t = load(path, &idx);
		assert_null(t->map);
		assert_same_table(t0, t);
		pa_symtab_free(t);
		t = load(path, &idx); /* rewritten */
		assert_non_null(t->map);
		pa_symtab_free(t);
	}
	assert_int_equal(truncate(ip, st.st_size - 8), 0);
	struct pa_symtab *t = load(path, &idx);
	assert_null(t->map);
	assert_same_table(t0, t);
	pa_symtab_free(t);
	pa_symtab_free(t0);
	free(ip);
	free(path);
	free(dir);
}

/* An index as its writer left it is used without its hash checked; damage
 * its stamp cannot see gives wrong answers at worst: records' string
 * offsets out of the strings give no name (run under ASan too), a record
 * that ends before it starts a symbol of no length. */
static void test_unseen_damage(void **state)
{
	(void)state;
	char *dir = cat(g_tmp, "unseen"), *path = cat(g_fix, "libfix.so");
	struct how idx = {.dir = dir};
	pa_symtab_free(load(path, &idx));
	struct pa_symtab *t = load(path, &idx);
	assert_non_null(t->map);
	size_t n = t->n;
	assert_true(n > 2);
	size_t recs_off = (size_t)((char *)t->tree - (char *)t->map) + n * sizeof(*t->tree);
	char *ip = index_of(dir, path, t);
	pa_symtab_free(t);
	/* elfcache.c's record: start, end, name, linkage name, kind */
	struct rec {
		uint64_t start, end;
		uint32_t name, linkage;
		uint8_t binding, type, pad[6];
	} *recs = calloc(n, sizeof(*recs));
	_Static_assert(sizeof(struct rec) == 32, "elfcache.c's record");
	assert_non_null(recs);
	for (size_t i = 0; i < n; i++)
		recs[i] = (struct rec){.start = 0x2000 + i,
		                       .end = 0x1000,
		                       .name = 0xfffffff0u,
		                       .linkage = 0x7fffffffu};
	damage_unseen(ip, recs_off, recs, n * sizeof(*recs));
	t = load(path, &idx);
	assert_non_null(t->map); /* used: no hash was checked */
	for (size_t i = 0; i < n; i++) {
		const struct pa_sym *s = pa_symtab_at(t, i);
		assert_string_equal(s->name, "");
		assert_null(s->linkage_name);
		assert_int_equal(s->start, 0x2000 + i);
		assert_int_equal(s->end, s->start);
	}
	pa_symtab_free(t);
	free(recs);
	free(ip);
	free(path);
	free(dir);
}

/* An index that cannot be written costs only the index. */
static void test_unwritable(void **state)
{
	(void)state;
	char *file = cat(g_tmp, "not-a-dir"), *path = cat(g_fix, "libfix.so");
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	char *dir = cat(file, "elf");
	struct pa_symtab *t0 = load(path, &(struct how){0}),
	                 *t = load(path, &(struct how){.dir = dir});
	assert_null(t->map);
	assert_same_table(t0, t);
	pa_symtab_free(t);
	pa_symtab_free(t0);
	free(dir);
	free(path);
	free(file);
}

static void test_default_dir(void **state)
{
	(void)state;
	char *d;
	setenv("HOME", "/home/someone", 1);
	unsetenv("PA_NO_SYM_CACHE");
	setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
	assert_non_null(d = pa_sym_elf_cache_default_dir());
	assert_string_equal(d, "/xdg/cache/pa/elf");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	assert_non_null(d = pa_sym_elf_cache_default_dir());
	assert_string_equal(d, "/home/someone/.cache/pa/elf");
	free(d);
	setenv("PA_NO_SYM_CACHE", "1", 1);
	assert_null(pa_sym_elf_cache_default_dir());
	assert_null(pa_ksym_cache_default_dir());
	unsetenv("PA_NO_SYM_CACHE");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_elfcache FIXTURE_DIR\n");
		return 2;
	}
	g_fix = argv[1];
	const char *tmp = getenv("TMPDIR");
	snprintf(g_tmp, sizeof(g_tmp), "%s/pa-elfcache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_tmp)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_lazy),
	    cmocka_unit_test(test_stale),         cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_unseen_damage), cmocka_unit_test(test_unwritable),
	    cmocka_unit_test(test_default_dir),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	pa_rm_rf_at(AT_FDCWD, g_tmp);
	return rc;
}
