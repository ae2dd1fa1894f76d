/* test_ksymcache.c - unit tests for symbols/ksymcache.c (cmocka): the
 * kallsyms index gives the table the parse gives (every symbol, module,
 * tree link and lookup), damaged/stale/foreign indexes are rejected and
 * rewritten, an unwritable cache directory only costs the index.
 *
 *   test_ksymcache            (scratch files under $TMPDIR or /tmp)
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
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/internal.h"
#include "symbols/symbols.h"
#include "util/util.h"

#include "idx_damage.h"

static char g_dir[256];
static const uint8_t g_bid[20] = {0x85, 0xc7, 0xe4, 0xe2, 0xed, 0x76, 0xf4, 0x41, 0x7e, 0x8a,
                                  0xaa, 0xd7, 0xc6, 0xb0, 0x40, 0xd2, 0xbb, 0x89, 0x7a, 0x26};

static char *path_of(const char *rel)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", g_dir, rel) > 0);
	return p;
}

/* A kallsyms text with perf's quirks (aliases, duplicates, skipped types
 * and lines, modules) plus n generated symbols. */
static char *write_kallsyms(const char *rel, unsigned n)
{
	char *p = path_of(rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000000 T _text\n"
	      "ffffffff81000000 t __local_alias\n"
	      "ffffffff81000100 T func_a\n"
	      "ffffffff81000100 W func_a_weak\n"
	      "ffffffff81000200 t func_b\n"
	      "ffffffff81000200 t __func_b\n"
	      "ffffffff81000400 R rodata_thing\n"
	      "ffffffff81000500 D data_thing\n"
	      "ffffffff81000600 b bss_thing\n"
	      "ffffffff81000700 T $x_arm\n"
	      "xyz garbage line\n"
	      "ffffffff81000c00 T SyS_read\n"
	      "ffffffff81000c00 T sys_read\n",
	      f);
	uint64_t a = 0xffffffff81001000ull;
	unsigned seed = 12345;
	for (unsigned i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		a += (seed >> 16) % 97; /* equal addresses too */
		fprintf(f, "%016llx %c gen_%u\n", (unsigned long long)a, "tTwWdDbB"[seed % 8], i);
	}
	fputs("ffffffffc0001000 t mod_a1\t[moda]\n"
	      "ffffffffc0001100 T mod_a2\t[moda]\n"
	      "ffffffffc0002000 t mod_b1\t[modb]\n"
	      "ffffffffc0002040 t mod_b2\t[modb]\n"
	      "ffffffffc0002040 t mod_b2_alias\t[modb]\n",
	      f);
	fclose(f);
	return p;
}

static void assert_same_table(const struct pa_symtab *a, const struct pa_symtab *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->root, b->root);
	assert_int_equal(a->overlaps, b->overlaps);
	for (size_t i = 0; i < a->n; i++) {
		const struct pa_sym *x = pa_symtab_at(a, i), *y = pa_symtab_at(b, i);
		assert_int_equal(x->start, y->start);
		assert_int_equal(x->end, y->end);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->binding, y->binding);
		assert_int_equal(x->type, y->type);
		assert_null(y->linkage_name);
		assert_int_equal(a->tree[i].start, b->tree[i].start);
		assert_int_equal(a->tree[i].end, b->tree[i].end);
		assert_int_equal(a->tree[i].left, b->tree[i].left);
		assert_int_equal(a->tree[i].right, b->tree[i].right);
		const char *ma = pa_sym_module(a, x), *mb = pa_sym_module(b, y);
		if (ma)
			assert_string_equal(ma, mb);
		else
			assert_null(mb);
	}
	/* every lookup: around each symbol's edges and between them */
	for (size_t i = 0; i < a->n; i++) {
		uint64_t s = a->syms[i].start, e = a->syms[i].end;
		uint64_t probe[] = {s - 1, s, s + 1, (s + e) / 2, e - 1, e, e + 1};
		for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++) {
			const struct pa_sym *x = pa_symtab_find(a, probe[k]);
			const struct pa_sym *y = pa_symtab_find(b, probe[k]);
			if (!x) {
				assert_null(y);
				continue;
			}
			assert_non_null(y);
			assert_int_equal(pa_sym_index(a, x), pa_sym_index(b, y));
		}
	}
	assert_string_equal(pa_symtab_origin(b), "kallsyms");
}

static char *read_all(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *b = malloc((size_t)n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void write_all(const char *p, const char *b, size_t len)
{
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* The index of src in dir: ksymcache.c's BUILDID-SRC.idx */
static char *index_of(const char *dir, const char *src)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/85c7e4e2ed76f4417e8aaad7c6b040d2bb897a26-%016" PRIx64 ".idx",
	                     dir, pa_hash_str(src)) > 0);
	return p;
}

static struct pa_symtab *load(const char *src, const char *dir)
{
	struct pa_ksym_cache c = {.dir = dir, .build_id = g_bid, .build_id_len = sizeof(g_bid)};
	struct pa_err err = {0};
	struct pa_symtab *t = pa_symtab_load_kallsyms_cached(src, &c, NULL, &err);
	assert_non_null(t);
	return t;
}

static void test_roundtrip(void **state)
{
	(void)state;
	char *src = write_kallsyms("rt.kallsyms", 5000);
	char *dir = path_of("cache-rt/pa/kallsyms");
	char *idx = index_of(dir, src);
	struct pa_err err = {0};
	struct pa_symtab *t0 = pa_symtab_load_kallsyms(src, NULL, &err);
	assert_non_null(t0);
	assert_true(t0->n > 1000);

	struct pa_symtab *t1 = load(src, dir); /* parses, writes the index */
	assert_null(t1->map);
	assert_int_equal(access(idx, R_OK), 0);
	assert_same_table(t0, t1);
	struct pa_symtab *t2 = load(src, dir); /* from the index */
	assert_non_null(t2->map);
	assert_same_table(t0, t2);
	assert_string_equal(pa_symtab_symbol_file(t2), src);
	/* names lie in the mapping, not copied */
	const char *m = t2->map;
	assert_true(t2->syms[0].name > m && t2->syms[0].name < m + t2->map_len);
	/* entries are filled when first asked, not at open */
	struct pa_symtab *tl = load(src, dir);
	assert_true(tl->lazy && tl->n > 2);
	assert_null(tl->syms[1].name);
	const struct pa_sym *s1 = pa_symtab_find(tl, pa_symtab_at(t0, 1)->start);
	assert_ptr_equal(s1, &tl->syms[1]);
	assert_string_equal(s1->name, pa_symtab_at(t0, 1)->name);
	assert_null(tl->syms[2].name);
	pa_symtab_free(tl);

	/* a foreign build-id is not this index */
	struct pa_symtab *t3 = NULL;
	uint8_t other[20];
	memcpy(other, g_bid, sizeof(other));
	other[0] ^= 1;
	assert_int_not_equal(pa_ksym_index_open(idx, src, other, sizeof(other), &t3), 0);
	assert_null(t3);

	/* a changed source (mtime) makes it stale, then it is rewritten */
	struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
	assert_int_equal(utimes(src, tv), 0);
	assert_int_not_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t3), 0);
	struct pa_symtab *t4 = load(src, dir);
	assert_null(t4->map);
	struct pa_symtab *t5 = load(src, dir);
	assert_non_null(t5->map);
	assert_same_table(t0, t5);

	pa_symtab_free(t5);
	pa_symtab_free(t4);
	pa_symtab_free(t2);
	pa_symtab_free(t1);
	pa_symtab_free(t0);
	free(idx);
	free(dir);
	free(src);
}

/* Two sources of one build-id's symbols (the running kernel's kallsyms
 * and a build-id cache's copy): an index each, both kept when used in
 * turn. */
static void test_two_sources(void **state)
{
	(void)state;
	char *a = write_kallsyms("two-a.kallsyms", 300), *b = write_kallsyms("two-b.kallsyms", 400);
	char *dir = path_of("cache-two");
	char *ia = index_of(dir, a), *ib = index_of(dir, b);
	assert_string_not_equal(ia, ib);
	struct pa_symtab *t = load(a, dir); /* parsed, a's index written */
	assert_null(t->map);
	pa_symtab_free(t);
	t = load(b, dir); /* b: parsed, its own index */
	assert_null(t->map);
	pa_symtab_free(t);
	for (int i = 0; i < 2; i++) { /* in turn: both from their index */
		t = load(a, dir);
		assert_non_null(t->map);
		assert_string_equal(pa_symtab_symbol_file(t), a);
		pa_symtab_free(t);
		t = load(b, dir);
		assert_non_null(t->map);
		assert_string_equal(pa_symtab_symbol_file(t), b);
		pa_symtab_free(t);
	}
	assert_int_equal(access(ia, R_OK), 0);
	assert_int_equal(access(ib, R_OK), 0);
	free(ia);
	free(ib);
	free(dir);
	free(a);
	free(b);
}

/* The table of v (overlapping symbols: lookups walk the tree) written to
 * the index *idx, of a kallsyms file *src (only its identity counts),
 * both named after name. */
static struct pa_symtab *overlaps_indexed(const struct pa_sym_insert *v, size_t n, const char *name,
                                          char **src, char **idx)
{
	struct pa_err err = {0};
	struct pa_symtab *t0 = pa_symtab_from_syms(v, n, &err);
	assert_non_null(t0);
	assert_true(t0->overlaps);
	char *rel = NULL;
	assert_true(asprintf(&rel, "%s.kallsyms", name) > 0);
	*src = write_kallsyms(rel, 0);
	free(rel);
	assert_true(asprintf(&rel, "%s.idx", name) > 0);
	*idx = path_of(rel);
	free(rel);
	assert_int_equal(pa_ksym_index_write(t0, *idx, *src, g_bid, sizeof(g_bid)), 0);
	return t0;
}

/* Overlapping symbols (the tree walk, not the binary search) and a table
 * without modules. */
static void test_overlaps(void **state)
{
	(void)state;
	struct pa_sym_insert v[] = {
	    {.start = 0x1000, .end = 0x1100, .name = "outer", .binding = 1, .type = 2},
	    {.start = 0x1010, .end = 0x1020, .name = "inner", .binding = 0, .type = 2},
	    {.start = 0x1010, .end = 0x1040, .name = "inner2", .binding = 2, .type = 2},
	    {.start = 0x1050, .end = 0x1050, .name = "empty", .binding = 1, .type = 1},
	    {.start = 0x1080, .end = 0x1200, .name = "tail", .binding = 1, .type = 2},
	    {.start = 0x2000, .end = 0x2010, .name = "far", .binding = 1, .type = 2},
	};
	char *src, *idx;
	struct pa_symtab *t0 = overlaps_indexed(v, sizeof(v) / sizeof(v[0]), "ov", &src, &idx);
	struct pa_symtab *t1 = NULL;
	assert_int_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t1), 0);
	assert_same_table(t0, t1);
	for (uint64_t a = 0xff0; a < 0x2020; a++) {
		const struct pa_sym *x = pa_symtab_find(t0, a), *y = pa_symtab_find(t1, a);
		assert_true(!x == !y);
		if (x)
			assert_int_equal(pa_sym_index(t0, x), pa_sym_index(t1, y));
	}
	pa_symtab_free(t1);
	pa_symtab_free(t0);
	free(idx);
	free(src);
}

/* Two indexes of one table: the same bytes but the hash and the stamp
 * (each write's file is a new one). */
static void assert_same_index(const char *a, const char *b, size_t len)
{
	size_t from = offsetof(struct pa_idx_head, hash), to = sizeof(struct pa_idx_head);
	assert_memory_equal(a, b, from);
	assert_memory_equal(a + to, b + to, len - to);
}

/* One byte flipped anywhere, a truncated file, another version: rejected,
 * and the cached loader rebuilds the same index. */
static void test_damaged(void **state)
{
	(void)state;
	char *src = write_kallsyms("dm.kallsyms", 300);
	char *dir = path_of("cache-dm");
	char *idx = index_of(dir, src);
	struct pa_symtab *t0 = load(src, dir);
	size_t len;
	char *good = read_all(idx, &len);
	struct pa_symtab *t = NULL;
	assert_int_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t), 0);
	pa_symtab_free(t);

	size_t at[] = {0, 9, 12, 30, 41, 200, len / 3, len / 2, len - 2, len - 1};
	for (int kind = 0; kind < 3; kind++) {
		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
			char *bad = malloc(len);
			assert_non_null(bad);
			memcpy(bad, good, len);
			size_t blen = len;
			if (kind == 0)
				bad[at[k]] ^= 0x10; /* one byte flipped */
			else if (kind == 1)
				blen = at[k]; /* truncated */
			else
				bad[8] = (char)(bad[8] + 1 + (char)k); /* another version */
			write_all(idx, bad, blen);
			free(bad);
			t = NULL;
			assert_int_not_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t),
			                     0);
			assert_null(t);
			t = load(src, dir); /* parsed again, index rewritten */
			assert_null(t->map);
			assert_same_table(t0, t);
			pa_symtab_free(t);
			size_t nlen;
			char *again = read_all(idx, &nlen);
			assert_int_equal(nlen, len);
			assert_same_index(again, good, len);
			free(again);
		}
	}
	free(good);
	pa_symtab_free(t0);
	free(idx);
	free(dir);
	free(src);
}

/* An index as its writer left it is used without its hash checked. Damage
 * its stamp cannot see gives wrong answers at worst: tree links out of the
 * table or round a cycle end the walk, string offsets out of the strings
 * give no name or module (run under ASan too). Once the file's time
 * changes, the hash rejects it. (Overlapping symbols: the tree walk.) */
static void test_unseen_damage(void **state)
{
	(void)state;
	enum { N = 64 };
	struct pa_sym_insert v[N];
	char names[N][16];
	for (unsigned i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "s%u", i);
		/* every fourth symbol covers the next ones: overlaps */
		v[i] = (struct pa_sym_insert){.start = 0x1000 + 0x10 * i,
		                              .end = 0x1000 + 0x10 * i + (i % 4 ? 0x10 : 0x40),
		                              .name = names[i],
		                              .binding = 1,
		                              .type = 2};
	}
	char *src, *idx;
	struct pa_symtab *t0 = overlaps_indexed(v, N, "ud", &src, &idx);
	struct pa_symtab *t = NULL;
	assert_int_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t), 0);
	size_t n = t->n, tree_off = (size_t)((char *)t->tree - (char *)t->map);
	pa_symtab_free(t);

	/* the tree: self links, links past the table, a cycle of two, a
	 * node ending before it starts */
	struct pa_symtab_node *nodes = calloc(n, sizeof(*nodes));
	assert_non_null(nodes);
	memcpy(nodes, t0->tree, n * sizeof(*nodes));
	for (size_t i = 0; i < n; i++) {
		nodes[i].left = i % 2 ? (uint32_t)((i + 1) % n) : (uint32_t)i;
		nodes[i].right = i % 2 ? (uint32_t)(i - 1) : (uint32_t)(n + i);
	}
	nodes[0].end = nodes[0].start - 1;
	damage_unseen(idx, tree_off, nodes, n * sizeof(*nodes));
	/* the records (ksymcache.c's: name, module, binding, type, pad):
	 * offsets past the strings */
	struct rec {
		uint32_t name, mod;
		uint8_t binding, type, pad[2];
	} recs[N];
	_Static_assert(sizeof(struct rec) == 12, "ksymcache.c's record");
	for (size_t i = 0; i < n; i++)
		recs[i] = (struct rec){.name = 0xfffffff0u - (uint32_t)i, .mod = 0x7fffffffu};
	damage_unseen(idx, tree_off + n * sizeof(*nodes), recs, n * sizeof(recs[0]));

	t = NULL;
	assert_int_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t), 0);
	assert_non_null(t->map); /* used: no hash was checked */
	for (uint64_t a = 0xff0; a < 0x1000 + 0x10 * N + 0x50; a++) {
		const struct pa_sym *s = pa_symtab_find(t, a);
		if (s) {
			assert_string_equal(s->name, "");
			assert_true(s->end >= s->start);
			assert_null(pa_sym_module(t, s));
		}
	}
	for (size_t i = 0; i < n; i++)
		assert_string_equal(pa_symtab_at(t, i)->name, "");
	pa_symtab_free(t);

	/* its time changed: the hash is checked, and fails */
	int fd = open(idx, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(futimens(fd, NULL), 0);
	close(fd);
	t = NULL;
	assert_int_not_equal(pa_ksym_index_open(idx, src, g_bid, sizeof(g_bid), &t), 0);
	assert_null(t);
	free(nodes);
	pa_symtab_free(t0);
	free(idx);
	free(src);
}

/* A cache directory that cannot be written: the table, no index. */
static void test_readonly_dir(void **state)
{
	(void)state;
	char *src = write_kallsyms("ro.kallsyms", 200);
	struct pa_err err = {0};
	struct pa_symtab *t0 = pa_symtab_load_kallsyms(src, NULL, &err);
	assert_non_null(t0);
	/* a path under a regular file fails even for root */
	char *dir = path_of("ro.kallsyms/pa/kallsyms");
	for (int i = 0; i < 2; i++) {
		struct pa_symtab *t = load(src, dir);
		assert_null(t->map);
		assert_same_table(t0, t);
		pa_symtab_free(t);
	}
	if (geteuid() != 0) { /* a read-only directory (root would write it) */
		char *ro = path_of("rodir");
		assert_int_equal(mkdir(ro, 0555), 0);
		struct pa_symtab *t = load(src, ro);
		assert_null(t->map);
		assert_same_table(t0, t);
		pa_symtab_free(t);
		char *idx = index_of(ro, src);
		assert_int_not_equal(access(idx, F_OK), 0);
		free(idx);
		chmod(ro, 0755);
		free(ro);
	}
	/* no cache at all */
	struct pa_symtab *t = pa_symtab_load_kallsyms_cached(src, NULL, NULL, &err);
	assert_non_null(t);
	assert_same_table(t0, t);
	pa_symtab_free(t);
	pa_symtab_free(t0);
	free(dir);
	free(src);
}

static void test_default_dir(void **state)
{
	(void)state;
	char *d;
	setenv("HOME", "/home/someone", 1);
	unsetenv("PA_NO_KSYM_CACHE");
	setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
	assert_non_null(d = pa_ksym_cache_default_dir());
	assert_string_equal(d, "/xdg/cache/pa/kallsyms");
	free(d);
	setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: ignored */
	assert_non_null(d = pa_ksym_cache_default_dir());
	assert_string_equal(d, "/home/someone/.cache/pa/kallsyms");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	setenv("PA_NO_KSYM_CACHE", "0", 1);
	assert_non_null(d = pa_ksym_cache_default_dir());
	assert_string_equal(d, "/home/someone/.cache/pa/kallsyms");
	free(d);
	setenv("PA_NO_KSYM_CACHE", "1", 1);
	assert_null(pa_ksym_cache_default_dir());
	unsetenv("PA_NO_KSYM_CACHE");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(g_dir, sizeof(g_dir), "%s/pa-ksymcache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_dir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_overlaps),
	    cmocka_unit_test(test_two_sources),   cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_unseen_damage), cmocka_unit_test(test_readonly_dir),
	    cmocka_unit_test(test_default_dir),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	pa_rm_rf_at(AT_FDCWD, g_dir);
	return rc;
}
