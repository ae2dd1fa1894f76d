/* test_resolver.c - unit tests for resolver/: perf's callchain cursor of a
 * sample in locations (pa_chainer_*), on hand-made call chains given to
 * the samples of testdata/le-file.data in the session's callback (where
 * the address spaces are the sample's): PERF_CONTEXT_* markers are not
 * frames and switch the cpumode, a marker perf does not know empties the
 * chain, --max-stack cuts from the leaf in callee order and from the
 * outermost caller in caller order, each unique entry is one location.
 *
 *   test_resolver TESTDATA_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolver/resolver.h"

static const char *testdata;

struct run {
	struct pa_resolver *res;
	struct pa_chainer *callee, *caller, *cut_callee, *cut_caller;
	unsigned samples; /* hand-made chains checked */
};

/* The chain of a copy of ev replaced by chain[0, n). */
static int chain_of(struct pa_chainer *c, struct pa_session *s, struct pa_thread *t,
                    const struct pa_event *ev, const uint64_t *chain, uint64_t n, uint32_t *fr,
                    uint32_t *nr)
{
	struct pa_event e = *ev;
	e.sample.type |= PA_SAMPLE_CALLCHAIN;
	e.sample.callchain = chain;
	e.sample.callchain_nr = n;
	return pa_chainer_chain(c, s, t, &e, pa_session_maps_generation(s), false, fr, nr);
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
                     struct pa_thread *t, const struct pa_addr_loc *al)
{
	struct run *r = ctx;
	if (r->samples >= 50 || (ev->misc & PA_MISC_CPUMODE_MASK) != PA_MISC_USER)
		return 0;
	r->samples++;
	uint64_t ip = ev->sample.ip;
	uint32_t fr[16], n, fr2[16], n2, self;
	const struct pa_loc *locs;

	/* markers are not frames; the same entry twice is one location */
	const uint64_t a[] = {PA_CONTEXT_USER, ip, ip + 1, ip};
	assert_int_equal(chain_of(r->callee, s, t, ev, a, 4, fr, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(fr[0], fr[2]);
	assert_true(fr[0] != fr[1]);
	/* the sample's own ip is a location apart from a chain entry's */
	assert_int_equal(pa_chainer_sample_loc(r->callee, s, t, ev, al,
	                                       pa_session_maps_generation(s), &self),
	                 0);
	assert_true(self != fr[0]);
	locs = pa_resolver_locs(r->res);
	assert_int_equal(locs[fr[0]].ip, ip);
	assert_int_equal(locs[self].ip, 0);
	assert_false(locs[fr[0]].kernel);
	assert_false(locs[fr[0]].unwound);

	/* a kernel marker switches the cpumode of what follows */
	const uint64_t k[] = {PA_CONTEXT_KERNEL, 0xffffffff81000000ull, PA_CONTEXT_USER, ip};
	assert_int_equal(chain_of(r->callee, s, t, ev, k, 4, fr, &n), 0);
	assert_int_equal(n, 2);
	locs = pa_resolver_locs(r->res);
	assert_true(locs[fr[0]].kernel);
	assert_false(locs[fr[1]].kernel);

	/* a marker perf does not know: no chain at all */
	const uint64_t bad[] = {PA_CONTEXT_USER, ip, PA_CONTEXT_GUEST, ip + 2};
	assert_int_equal(chain_of(r->callee, s, t, ev, bad, 4, fr, &n), 0);
	assert_int_equal(n, 0);

	/* --max-stack 2: the two leaf entries in callee order, the two
	 * outermost in caller order (entries leaf first either way) */
	const uint64_t d[] = {PA_CONTEXT_USER, ip, ip + 1, ip + 2, ip + 3};
	assert_int_equal(chain_of(r->callee, s, t, ev, d, 5, fr, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(chain_of(r->cut_callee, s, t, ev, d, 5, fr2, &n2), 0);
	assert_int_equal(n2, 2);
	assert_memory_equal(fr2, fr, 2 * sizeof(*fr));
	assert_int_equal(chain_of(r->cut_caller, s, t, ev, d, 5, fr2, &n2), 0);
	assert_int_equal(n2, 2);
	assert_memory_equal(fr2, fr + 2, 2 * sizeof(*fr));
	/* and the chain of the thread's last sample, remembered: the same */
	assert_int_equal(chain_of(r->callee, s, t, ev, d, 5, fr2, &n2), 0);
	assert_int_equal(n2, 4);
	assert_memory_equal(fr2, fr, 4 * sizeof(*fr));
	/* no recorded stack to unwind in a frame-pointer recording */
	assert_int_equal(pa_chainer_unwinds(r->caller, &ev->sample), 0);
	return 0;
}

static void test_chains(void **state)
{
	(void)state;
	char path[4096];
	snprintf(path, sizeof(path), "%s/le-file.data", testdata);
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(path, NULL, &err);
	assert_non_null(f);
	struct pa_session_opts so = {.sz = sizeof(so)};
	struct pa_session *s = pa_session_new(f, &so, &err);
	assert_non_null(s);
	/* nothing of this machine's: an empty symfs, no kallsyms */
	struct pa_resolver_opts ro = {.sz = sizeof(ro),
	                              .no_threads = true,
	                              .symfs = "/nonexistent-pa-symfs",
	                              .kallsyms = "/nonexistent-pa-kallsyms"};
	struct run r = {.res = pa_resolver_new(s, &ro, &err)};
	assert_non_null(r.res);
	r.callee = pa_chainer_new(r.res, 127, false, 0);
	r.caller = pa_chainer_new(r.res, 127, true, 0);
	r.cut_callee = pa_chainer_new(r.res, 2, false, 1) /* the fewest slots */;
	r.cut_caller = pa_chainer_new(r.res, 2, true, 1);
	assert_true(r.callee && r.caller && r.cut_callee && r.cut_caller);
	assert_int_equal(pa_session_process(s, on_sample, &r, &err), 0);
	assert_true(r.samples > 0);
	size_t nr = pa_resolver_nr_locs(r.res);
	assert_int_equal(pa_resolver_symbolize(r.res, false, true), 0);
	/* no unwound entries: no inline frames made */
	assert_int_equal(pa_resolver_nr_locs(r.res), nr);
	pa_chainer_free(r.callee);
	pa_chainer_free(r.caller);
	pa_chainer_free(r.cut_callee);
	pa_chainer_free(r.cut_caller);
	pa_resolver_free(r.res);
	pa_session_free(s);
	pa_file_close(f);
}

/* The filters perf report and perf script share: parsed once, each test
 * as perf's (lists, cpu ranges, --time in seconds, event modifiers). */
static void test_filters(void **state)
{
	(void)state;
	struct pa_arena a;
	pa_arena_init(&a, 4096);
	struct pa_filter f;
	struct pa_err err = {0};
	struct pa_filter_spec spec = {.dsos = "libc.so.6,/usr/bin/x",
	                              .symbols = "main,,spin",
	                              .cpus = "0-2,5",
	                              .time = "1.5,",
	                              .events = "cycles,cpu-clock:u"};
	assert_int_equal(pa_filter_parse(&f, &a, &spec, &err), 0);
	assert_int_equal(f.nr_syms, 2);
	assert_true(pa_filter_sym(&f, "spin"));
	assert_false(pa_filter_sym(&f, "mai"));
	assert_false(pa_filter_sym(&f, NULL));
	struct pa_dso d = {.short_name = "x", .long_name = "/usr/bin/x"};
	assert_true(pa_filter_dso(&f, &d));
	d.long_name = "/usr/lib/libc.so.6";
	assert_false(pa_filter_dso(&f, &d));
	assert_false(pa_filter_dso(&f, NULL));
	assert_true(pa_filter_cpu_time(&f, 2, 1500000000ull));
	assert_true(pa_filter_cpu_time(&f, 5, UINT64_MAX - 1));
	assert_false(pa_filter_cpu_time(&f, 3, 2000000000ull));
	assert_false(pa_filter_cpu_time(&f, 0, 1499999999ull));
	assert_false(pa_filter_cpu_time(&f, UINT32_MAX, 2000000000ull));
	assert_true(pa_filter_event(&f, "cycles:u"));
	assert_true(pa_filter_event(&f, "cpu-clock:u"));
	assert_false(pa_filter_event(&f, "cpu-clock"));
	assert_false(pa_filter_event(&f, "cyclesX"));
	/* none given: everything passes */
	struct pa_filter_spec none = {0};
	assert_int_equal(pa_filter_parse(&f, &a, &none, &err), 0);
	assert_true(pa_filter_dso(&f, NULL));
	assert_true(pa_filter_sym(&f, NULL));
	assert_true(pa_filter_cpu_time(&f, UINT32_MAX, 0));
	assert_true(pa_filter_event(&f, "anything"));
	/* bad values: usage errors naming them */
	struct pa_filter_spec bad = {.cpus = "3-1"};
	assert_int_equal(pa_filter_parse(&f, &a, &bad, &err), -PA_ERR_USAGE);
	bad = (struct pa_filter_spec){.pids = "12,x"};
	assert_int_equal(pa_filter_parse(&f, &a, &bad, &err), -PA_ERR_USAGE);
	assert_non_null(strstr(err.msg, "'x'"));
	bad = (struct pa_filter_spec){.time = "12"};
	assert_int_equal(pa_filter_parse(&f, &a, &bad, &err), -PA_ERR_USAGE);
	pa_arena_release(&a);
}

int main(int argc, char **argv)
{
	testdata = argc > 1 ? argv[1] : "testdata";
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chains),
	    cmocka_unit_test(test_filters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
