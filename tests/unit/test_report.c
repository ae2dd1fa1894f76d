/* test_report - report/ on hand-made inputs and on testdata recordings,
 * where no perf is needed: the key table (names, perf's comparators, the
 * cells) and the report's model, which printing must not change.
 *
 *   test_report TESTDATA_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/internal.h"

static const char *g_testdata;

/* ---- the key table ------------------------------------------------------ */

static void test_key_names(void **state)
{
	(void)state;
	assert_int_equal(pa_key_find("sym", 3), K_SYM);
	assert_int_equal(pa_key_find("symbol", 6), K_SYM);
	assert_int_equal(pa_key_find("children", 8), K_CHILDREN);
	assert_int_equal(pa_key_find("overhead_children", 17), K_CHILDREN);
	assert_int_equal(pa_key_find("dso,sym", 3), K_DSO); /* a prefix of a list */
	assert_int_equal(pa_key_find("sy", 2), -1);
	assert_int_equal(pa_key_find("bogus", 5), -1);
	for (int k = 0; k <= K_SRCLINE_TO; k++) {
		const struct pa_key_def *d = &pa_keys[k];
		assert_non_null(d->name);
		assert_non_null(d->header);
		/* a sort key has every function, a value column none */
		bool all = d->collapse && d->cmp && d->sort && d->natural_width && d->format;
		bool none = !d->collapse && !d->cmp && !d->sort && !d->natural_width && !d->format;
		assert_true(d->is_sort ? all : none);
		assert_true(d->right == !d->is_sort);
	}
	/* perf's column widths */
	assert_int_equal(pa_key_header_width(K_OVERHEAD), 8);
	assert_int_equal(pa_key_header_width(K_SAMPLE), 12);
	assert_int_equal(pa_key_header_width(K_DSO), 13);
	assert_int_equal(pa_key_header_width(K_PID), 15);
}

static struct hkey unresolved(uint64_t addr)
{
	return (struct hkey){.addr = addr, .level = '.', .comm = "x", .thread_comm = "x"};
}

/* perf's symbol key is no order on unresolved addresses 2^63 or more
 * apart (a wrapping difference): three of them go round in a circle;
 * pa's own collapse order does not. */
static void test_sym_cmp_circle(void **state)
{
	(void)state;
	const struct pa_key_def *sym = &pa_keys[K_SYM];
	struct hkey a = unresolved(0), b = unresolved(0x6000000000000000ull),
	            c = unresolved(0xc000000000000000ull);
	int ab = sym->cmp(&a, &b), bc = sym->cmp(&b, &c), ca = sym->cmp(&c, &a);
	assert_true(ab != 0 && ab == bc && bc == ca);
	assert_int_equal(sym->cmp(&a, &a), 0);
	assert_true(sym->collapse(&a, &b) < 0 && sym->collapse(&b, &c) < 0 &&
	            sym->collapse(&a, &c) < 0);
}

/* A symbol and an unresolved address: by DSO name first (perf's
 * sort__dso_cmp, reversed: se_cmp(left, right) compares right with left),
 * then the one without a symbol first. */
static void test_sym_cmp_dso(void **state)
{
	(void)state;
	struct pa_dso da = {.short_name = "liba.so"}, db = {.short_name = "libb.so"};
	struct pa_sym f = {.start = 0x100, .end = 0x180, .name = "f"};
	struct hkey in_a = unresolved(0x5000), in_b = {.dso = &db, .sym = &f};
	in_a.dso = &da;
	const struct pa_key_def *sym = &pa_keys[K_SYM];
	assert_true(sym->cmp(&in_a, &in_b) > 0); /* strcmp("libb.so", "liba.so") */
	assert_true(sym->cmp(&in_b, &in_a) < 0);
	in_a.dso = &db;
	assert_true(sym->cmp(&in_a, &in_b) < 0); /* same DSO: no symbol first */
	assert_int_equal(sym->cmp(&in_b, &in_b), 0);
	/* the output order: by name, entries without a symbol last */
	assert_true(sym->sort(&in_b, &in_a) > 0);
}

/* Inline frames' symbols (the resolver's, over the range of the function
 * they were inlined into): perf compares them by name, equal where the
 * names are and the ranges overlap, else by address; pa's collapse order
 * puts them after the others, by name; printed with " (inlined)" after
 * the name, past the column's width. */
static void test_sym_inlined(void **state)
{
	(void)state;
	struct pa_dso d = {.short_name = "prog"};
	struct pa_sym main_ = {.start = 0x1000, .end = 0x1400, .name = "main"},
	              other = {.start = 0x2000, .end = 0x2100, .name = "other"},
	              in1 = {.start = 0x1000, .end = 0x1400, .name = "work", .inlined = true},
	              in2 = {.start = 0x1000, .end = 0x1400, .name = "work", .inlined = true},
	              in3 = {.start = 0x2000, .end = 0x2100, .name = "work", .inlined = true},
	              in4 = {.start = 0x1000, .end = 0x1400, .name = "abc", .inlined = true};
	struct hkey m = {.dso = &d, .sym = &main_, .level = '.'}, o = m, a = m, b = m, c = m, e = m;
	o.sym = &other;
	a.sym = &in1;
	b.sym = &in2;
	c.sym = &in3;
	e.sym = &in4;
	const struct pa_key_def *sym = &pa_keys[K_SYM];
	assert_int_equal(sym->cmp(&a, &b), 0); /* one name, overlapping: one entry */
	assert_true(sym->cmp(&a, &c) != 0);    /* one name, apart: by address */
	assert_true(sym->cmp(&a, &e) > 0 && sym->cmp(&e, &a) < 0); /* strcmp(l, r) */
	assert_true(sym->cmp(&a, &m) > 0);  /* strcmp("work", "main") */
	assert_true(sym->cmp(&m, &o) > 0);  /* by address: o starts later */
	assert_int_equal(sym->collapse(&a, &b), 0);
	assert_true(sym->collapse(&m, &a) < 0 && sym->collapse(&o, &e) < 0);
	assert_true(sym->collapse(&e, &a) < 0 && sym->collapse(&a, &c) < 0);
	char buf[64];
	int n = sym->format(buf, sizeof(buf), &a, 12, false);
	assert_string_equal(buf, "[.] work (inlined)");
	assert_int_equal(n, 18);
	n = sym->format(buf, sizeof(buf), &a, 30, false);
	assert_string_equal(buf, "[.] work (inlined)            ");
	assert_int_equal(n, 30);
	assert_int_equal(sym->natural_width(&a), 8); /* perf's width has no mark */
}

static void test_cells(void **state)
{
	(void)state;
	char buf[128];
	struct hkey u = unresolved(0xdeadbeef);
	int n = pa_keys[K_SYM].format(buf, sizeof(buf), &u, 30, false);
	assert_string_equal(buf, "[.] 0x00000000deadbeef        ");
	assert_int_equal(n, 30);
	n = pa_keys[K_SYM].format(buf, sizeof(buf), &u, 30, true); /* ends the line: no pad */
	assert_string_equal(buf, "[.] 0x00000000deadbeef");
	struct pa_sym s = {.name = "main"};
	struct hkey k = {.sym = &s, .level = 'k', .comm = "burner", .thread_comm = "burn",
	                 .tid = 42, .cpu = 3};
	pa_keys[K_SYM].format(buf, sizeof(buf), &k, 12, false);
	assert_string_equal(buf, "[k] main    ");
	pa_keys[K_COMM].format(buf, sizeof(buf), &k, 4, false); /* cut to the width */
	assert_string_equal(buf, "burn");
	pa_keys[K_PID].format(buf, sizeof(buf), &k, 15, false);
	assert_string_equal(buf, "     42:burn   ");
	pa_keys[K_CPU].format(buf, sizeof(buf), &k, 5, false);
	assert_string_equal(buf, "  003");
	pa_keys[K_PARENT].format(buf, sizeof(buf), &k, 8, false);
	assert_string_equal(buf, "[other] ");
	assert_int_equal(pa_keys[K_SYM].natural_width(&u), PA_UNRESOLVED_WIDTH + 6);
	assert_int_equal(pa_keys[K_SYM].natural_width(&k), 8);
	assert_int_equal(pa_keys[K_PID].natural_width(&k), 15);
	/* -v: address and origin first; the width counts them for a symbol */
	struct hkey v = k;
	v.verbose = true;
	v.origin = 'B';
	v.addr = 0x1169;
	pa_keys[K_SYM].format(buf, sizeof(buf), &v, 30, false);
	assert_string_equal(buf, "0x1169             B [k] main ");
	assert_int_equal(pa_keys[K_SYM].natural_width(&v), 8 + PA_UNRESOLVED_WIDTH + 5);
	struct hkey uv = u;
	uv.verbose = true; /* unresolved: no origin known, the width without the prefix */
	pa_keys[K_SYM].format(buf, sizeof(buf), &uv, 22, true);
	assert_string_equal(buf, "0xdeadbeef         ! [.] 0x00000000deadbeef");
	assert_int_equal(pa_keys[K_SYM].natural_width(&uv), PA_UNRESOLVED_WIDTH + 6);
	struct pa_dso d = {.short_name = "app", .long_name = "/usr/bin/app"};
	v.dso = &d;
	pa_keys[K_DSO].format(buf, sizeof(buf), &v, 12, false);
	assert_string_equal(buf, "/usr/bin/app");
	assert_int_equal(pa_keys[K_DSO].natural_width(&v), 12);
	/* a line too short for the cell: what snprintf returns */
	assert_int_equal(pa_keys[K_SYM].format(buf, 3, &u, 30, false), 3);
}

/* A session of testdata's NAME (*f: its file, closed by the caller). */
static struct pa_session *open_fixture(const char *name, struct pa_file **f)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", g_testdata, name);
	struct pa_err err = {0};
	*f = pa_file_open(path, NULL, &err);
	assert_non_null(*f);
	struct pa_session_opts so = {.sz = sizeof(so)};
	struct pa_session *s = pa_session_new(*f, &so, &err);
	assert_non_null(s);
	return s;
}

/* srcline_from/to: perf 6.1 prints what its comparisons computed */
static void test_lazy_srclines(void **state)
{
	(void)state;
	char buf[64];
	struct hkey k = {.srcline_from = "burn.c:22", .srcline_to = "lib.c:9"};
	assert_int_equal(pa_keys[K_SRCLINE_FROM].natural_width(&k), 9);
	pa_keys[K_SRCLINE_FROM].format(buf, sizeof(buf), &k, 16, true); /* padded even last */
	assert_string_equal(buf, "burn.c:22       ");
	k.lazy_from = PA_LAZY_LATE; /* cut to the column, no width of its own */
	assert_int_equal(pa_keys[K_SRCLINE_FROM].natural_width(&k), 0);
	pa_keys[K_SRCLINE_FROM].format(buf, sizeof(buf), &k, 6, false);
	assert_string_equal(buf, "burn.c");
	k.lazy_to = PA_LAZY_NEVER;
	pa_keys[K_SRCLINE_TO].format(buf, sizeof(buf), &k, 14, false);
	assert_string_equal(buf, "(null)        ");
	/* compared (right, left) as strings */
	struct hkey a = {.srcline_to = "a.c:1"}, b = {.srcline_to = "b.c:1"};
	assert_true(pa_keys[K_SRCLINE_TO].cmp(&a, &b) > 0);
	assert_true(pa_keys[K_SRCLINE_TO].collapse(&a, &b) < 0);
}

/* perf's lists from --fields and --sort: entries by the sort keys, then
 * the fields' keys; columns the fields, then the sort keys; the output
 * sort the sort keys first (no overhead before them) */
static void test_key_lists(void **state)
{
	(void)state;
	struct pa_err err = {0};
	struct pa_file *f;
	struct pa_session *s = open_fixture("le-file.data", &f);
	struct pa_report_opts ro = {.sz = sizeof(ro), .fields = "overhead,sym", .sort = "dso"};
	struct pa_report *r = pa_report_new(s, &ro, &err);
	assert_non_null(r);
	int keys[] = {K_DSO, K_SYM}, cols[] = {K_OVERHEAD, K_SYM, K_DSO},
	    osort[] = {K_DSO, K_OVERHEAD, K_SYM};
	assert_int_equal(r->nr_keys, 2);
	assert_memory_equal(r->keys, keys, sizeof(keys));
	assert_int_equal(r->nr_cols, 3);
	assert_memory_equal(r->cols, cols, sizeof(cols));
	assert_int_equal(r->nr_osort, 3);
	assert_memory_equal(r->osort, osort, sizeof(osort));
	pa_report_free(r);
	/* without --fields: the overhead columns lead, -n's samples last */
	ro = (struct pa_report_opts){
	    .sz = sizeof(ro), .children = true, .show_nr_samples = true, .sort = "comm"};
	r = pa_report_new(s, &ro, &err);
	assert_non_null(r);
	int osort2[] = {K_CHILDREN, K_OVERHEAD, K_COMM, K_SAMPLE};
	assert_int_equal(r->nr_osort, 4);
	assert_memory_equal(r->osort, osort2, sizeof(osort2));
	assert_int_equal(r->nr_cols, 4);
	pa_report_free(r);
	/* '+': added to the defaults, each key once */
	ro = (struct pa_report_opts){.sz = sizeof(ro), .fields = "+sample", .sort = "+pid,dso"};
	r = pa_report_new(s, &ro, &err);
	assert_non_null(r);
	int keys3[] = {K_COMM, K_DSO, K_SYM, K_PID},
	    cols3[] = {K_OVERHEAD, K_SAMPLE, K_COMM, K_DSO, K_SYM, K_PID};
	assert_int_equal(r->nr_keys, 4);
	assert_memory_equal(r->keys, keys3, sizeof(keys3));
	assert_int_equal(r->nr_cols, 6);
	assert_memory_equal(r->cols, cols3, sizeof(cols3));
	assert_int_equal(r->osort[0], K_OVERHEAD);
	pa_report_free(r);
	pa_session_free(s);
	pa_file_close(f);
}

/* ---- the model: printing does not change it ---------------------------- */

struct stacks {
	uint64_t count, period;
	size_t n;
};

static int add_stack(void *ctx, const struct pa_stack *st)
{
	struct stacks *s = ctx;
	s->count += st->count;
	s->period += st->period;
	s->n++;
	return 0;
}

static void test_print_keeps_model(void **state)
{
	(void)state;
	assert_non_null(g_testdata);
	struct pa_err err = {0};
	struct pa_file *f;
	struct pa_session *s = open_fixture("le-file.data", &f);
	/* no cache of this machine's: an empty one */
	struct pa_report_opts ro = {.sz = sizeof(ro),
	                            .callchain = true,
	                            .children = true,
	                            .no_threads = true,
	                            .buildid_dir = "/nonexistent-pa-test-cache"};
	struct pa_report *r = pa_report_new(s, &ro, &err);
	assert_non_null(r);
	assert_int_equal(pa_report_run(r, &err), 0);
	struct stacks before = {0}, after = {0};
	assert_int_equal(pa_report_foreach_stack(r, add_stack, &before), 0);
	assert_true(before.n > 0 && before.count > 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(pa_report_print(r, out, &err), 0);
	fclose(out);
	assert_non_null(strstr(text, "# Samples: "));
	free(text);
	assert_int_equal(pa_report_foreach_stack(r, add_stack, &after), 0);
	assert_int_equal(after.n, before.n);
	assert_int_equal(after.count, before.count);
	assert_int_equal(after.period, before.period);
	pa_report_free(r);
	pa_session_free(s);
	pa_file_close(f);
}

int main(int argc, char **argv)
{
	g_testdata = argc > 1 ? argv[1] : NULL;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_key_names),     cmocka_unit_test(test_sym_cmp_circle),
	    cmocka_unit_test(test_sym_cmp_dso),   cmocka_unit_test(test_cells),
	    cmocka_unit_test(test_sym_inlined),   cmocka_unit_test(test_print_keeps_model),
	    cmocka_unit_test(test_lazy_srclines), cmocka_unit_test(test_key_lists),
	};
	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
