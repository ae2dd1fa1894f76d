/* test_session.c - unit tests for session/: the sample key a consumer's
 * cache of samples hashes by (pa_session_sample_key) and the key told a
 * few events ahead (pa_session_sample_key_ahead), on the testdata
 * recordings, in the two ways a session delivers: ordered, and in file
 * order without the queue; the hit pass; the runs shown ahead.
 *
 *   test_session TESTDATA_DIR
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
#include <unistd.h>

#include "session/session.h"

static const char *testdata;

enum mode { ORDERED, UNORDERED };

#define CHAIN_MAX 8

/* What the key must cover, copied from the event. */
struct ident {
	unsigned evsel;
	unsigned cpumode;
	uint32_t pid, tid;
	uint64_t ip, nr;
	uint64_t chain[CHAIN_MAX];
};

struct seen {
	struct ident id;
	uint64_t key, ahead;
};

struct run {
	struct seen *v;
	size_t n, cap;
	bool stable;   /* a second call in the callback gave the same key */
	bool no_chain; /* the session was told not to keep call chains */
};

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
                     struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)t;
	(void)loc;
	struct run *r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	struct seen *x = &r->v[r->n++];
	memset(x, 0, sizeof(*x));
	x->id.evsel = ev->evsel ? ev->evsel->idx : 0;
	x->id.cpumode = ev->misc & PA_MISC_CPUMODE_MASK;
	x->id.pid = ev->sample.pid;
	x->id.tid = ev->sample.tid;
	x->id.ip = ev->sample.ip;
	x->id.nr = ev->sample.callchain && !r->no_chain ? ev->sample.callchain_nr : 0;
	for (uint64_t i = 0; i < x->id.nr && i < CHAIN_MAX; i++)
		x->id.chain[i] = ev->sample.callchain[i];
	x->key = pa_session_sample_key(s, ev);
	r->stable &= pa_session_sample_key(s, ev) == x->key;
	x->ahead = pa_session_sample_key_ahead(s);
	return 0;
}

/* The session of testdata's file name, with options o (and its file). */
static struct pa_session *open_session(const char *name, const struct pa_session_opts *o,
                                       struct pa_file **f)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", testdata, name);
	struct pa_err err = {0};
	*f = pa_file_open(path, NULL, &err);
	assert_non_null(*f);
	struct pa_session *s = pa_session_new(*f, o, &err);
	assert_non_null(s);
	return s;
}

static void collect_opts(const char *name, enum mode m, bool no_chain, struct run *r)
{
	struct pa_session_opts o = {.sz = sizeof(o),
	                            .unordered = m == UNORDERED,
	                            .no_callchains = no_chain,
	                            .keys_ahead = true};
	struct pa_file *f;
	struct pa_session *s = open_session(name, &o, &f);
	struct pa_err err = {0};
	memset(r, 0, sizeof(*r));
	r->stable = true;
	r->no_chain = no_chain;
	assert_int_equal(pa_session_process(s, on_sample, r, &err), 0);
	pa_session_free(s);
	pa_file_close(f);
	assert_true(r->n > 0);
	assert_true(r->stable);
}

static void collect(const char *name, enum mode m, struct run *r)
{
	collect_opts(name, m, false, r);
}

static bool same_ident(const struct ident *a, const struct ident *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Equal samples have equal keys, different ones different keys (no
 * collision among the fixture's few hundred), never 0: within run a, and
 * between runs a and b. */
static void check_keys(const struct run *a, const struct run *b)
{
	for (size_t i = 0; i < a->n; i++) {
		assert_true(a->v[i].key != 0);
		for (size_t j = 0; j < b->n; j++) {
			bool same = same_ident(&a->v[i].id, &b->v[j].id);
			assert_int_equal(same, a->v[i].key == b->v[j].key);
		}
	}
}

static void free_run(struct run *r)
{
	free(r->v);
	r->v = NULL;
}

static void test_keys_in_every_mode(void **state)
{
	(void)state;
	static const char *files[] = {"le-sysw.data", "le-two-events.data", "le-file.data",
	                              "le-pipe.data"};
	for (size_t k = 0; k < sizeof(files) / sizeof(*files); k++) {
		struct run one, unord;
		collect(files[k], ORDERED, &one);
		collect(files[k], UNORDERED, &unord);
		check_keys(&one, &one);
		/* delivered without the queue (made when asked for) */
		check_keys(&unord, &one);
		free_run(&one);
		free_run(&unord);
	}
}

/* A session that keeps no call chains leaves them out of the key, queued
 * or not (a consumer that reads no chains must not see keys differ by
 * them). */
static void test_keys_without_chains(void **state)
{
	(void)state;
	struct run th, unord;
	collect_opts("le-file.data", ORDERED, true, &th);
	collect_opts("le-file.data", UNORDERED, true, &unord);
	check_keys(&th, &th);
	check_keys(&unord, &th);
	free_run(&th);
	free_run(&unord);
}

/* Two events of the same sample differ in the key only by the event. */
static void test_key_covers_event(void **state)
{
	(void)state;
	struct run r;
	collect("le-two-events.data", ORDERED, &r);
	bool two = false;
	for (size_t i = 1; i < r.n; i++)
		two |= r.v[i].id.evsel != r.v[0].id.evsel;
	assert_true(two);
	for (size_t i = 0; i < r.n; i++)
		for (size_t j = 0; j < r.n; j++) {
			struct ident x = r.v[i].id;
			x.evsel = r.v[j].id.evsel;
			if (r.v[i].id.evsel != r.v[j].id.evsel && same_ident(&x, &r.v[j].id))
				assert_true(r.v[i].key != r.v[j].key);
		}
	free_run(&r);
}

/* A big-endian file and its little-endian twin give the same keys. */
static void test_keys_byte_order(void **state)
{
	(void)state;
	static const char *twins[][2] = {{"be-file.data", "le-file.inj.data"},
	                                 {"be-two-events.data", "le-two-events.inj.data"}};
	for (size_t k = 0; k < sizeof(twins) / sizeof(*twins); k++) {
		struct run be, le;
		collect(twins[k][0], ORDERED, &be);
		collect(twins[k][1], ORDERED, &le);
		assert_int_equal(be.n, le.n);
		for (size_t i = 0; i < be.n; i++)
			assert_true(be.v[i].key == le.v[i].key);
		free_run(&be);
		free_run(&le);
	}
}

/* Ordered, the key ahead is that of one of the next three
 * samples (events in between that are not samples take places). */
static void test_key_ahead(void **state)
{
	(void)state;
	struct run r;
	collect("le-sysw.data", ORDERED, &r);
	size_t told = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (!r.v[i].ahead)
			continue;
		told++;
		bool found = false;
		for (size_t j = i + 1; j < r.n && j <= i + 3; j++)
			found |= r.v[j].key == r.v[i].ahead;
		assert_true(found);
	}
	/* most samples are told one ahead (not those at a flush's end) */
	assert_true(told * 2 > r.n);
	free_run(&r);
}

/* The fixtures the hit pass is compared on: both byte orders, a pipe, two
 * events, compressed records, system-wide, build-ids in MMAP2. */
static const char *const pass_files[] = {"le-file.data",        "be-file.data", "le-pipe.data",
                                         "le-two-events.data",  "le-zstd.data", "le-sysw.data",
                                         "le-buildid-mmap.data"};

/* Which DSOs the samples hit, by name, and how many samples: a session
 * with no callback (the hit pass: samples ordered only against the
 * records that change the model) or with one (every sample in order,
 * resolved, as the reports see them). */
struct hits {
	char names[4096];
	uint64_t nr_samples;
};

static int on_sample_hit(void *ctx, struct pa_session *s, const struct pa_event *ev,
                         struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)ctx, (void)s, (void)ev, (void)t, (void)loc;
	return 0;
}

static void collect_hits(const char *name, bool pass, struct hits *h)
{
	struct pa_session_opts o = {.sz = sizeof(o), .no_callchains = true};
	struct pa_file *f;
	struct pa_session *s = open_session(name, &o, &f);
	struct pa_err err = {0};
	assert_int_equal(pa_session_process(s, pass ? NULL : on_sample_hit, NULL, &err), 0);
	memset(h, 0, sizeof(*h));
	h->nr_samples = pa_session_nr_samples(s);
	for (unsigned i = 0; i < pa_session_nr_dsos(s); i++) {
		const struct pa_dso *d = pa_session_dso(s, i);
		size_t n = strlen(h->names);
		snprintf(h->names + n, sizeof(h->names) - n, "%s%s\n", d->hit ? "+" : "-",
		         d->long_name);
	}
	pa_session_free(s);
	pa_file_close(f);
}

static void test_hit_pass(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(pass_files) / sizeof(*pass_files); k++) {
		struct hits pass, all;
		collect_hits(pass_files[k], true, &pass);
		collect_hits(pass_files[k], false, &all);
		assert_true(all.nr_samples > 0);
		assert_int_equal(pass.nr_samples, all.nr_samples);
		assert_non_null(strchr(all.names, '+'));
		assert_string_equal(pass.names, all.names);
	}
}

/* A summing callback (pa_session_set_summing) gets the samples an
 * ordered one gets, with the fields it was promised and the same threads
 * and maps, in an order that may differ: a sum over each sample of a hash
 * of those fields, its thread and its DSO does not see the order. */
struct sums {
	uint64_t n, sum, mix;
};

static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static int on_sample_sum(void *ctx, struct pa_session *s, const struct pa_event *ev,
                         struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)s;
	struct sums *m = ctx;
	const struct pa_sample *sm = &ev->sample;
	uint64_t h = mix64(sm->ip) ^ mix64(sm->time + 1) ^ mix64((uint64_t)sm->pid << 32 | sm->tid);
	h = mix64(h ^ sm->cpu) + mix64(sm->period ^ (uint64_t)(ev->misc & PA_MISC_CPUMODE_MASK));
	h += mix64((ev->evsel ? ev->evsel->idx + 1 : 0) ^ sm->type);
	h += mix64((uint64_t)pa_thread_pid(t) << 32 | (uint32_t)pa_thread_tid(t));
	for (const char *c = loc->dso ? loc->dso->long_name : ""; *c; c++)
		h = mix64(h + (unsigned char)*c);
	m->n++;
	m->sum += h;
	m->mix ^= mix64(h);
	return 0;
}

static void collect_sums(const char *name, bool summing, struct sums *m)
{
	struct pa_session_opts o = {.sz = sizeof(o), .no_callchains = true};
	struct pa_file *f;
	struct pa_session *s = open_session(name, &o, &f);
	struct pa_err err = {0};
	memset(m, 0, sizeof(*m));
	pa_session_set_summing(s, summing);
	assert_int_equal(pa_session_process(s, on_sample_sum, m, &err), 0);
	assert_int_equal(pa_session_nr_samples(s), m->n);
	pa_session_free(s);
	pa_file_close(f);
}

static void test_summing(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(pass_files) / sizeof(*pass_files); k++) {
		struct sums summed, ordered;
		collect_sums(pass_files[k], true, &summed);
		collect_sums(pass_files[k], false, &ordered);
		assert_true(ordered.n > 0);
		assert_int_equal(summed.n, ordered.n);
		assert_int_equal(summed.sum, ordered.sum);
		assert_int_equal(summed.mix, ordered.mix);
	}
}

/* The ahead callback (pa_session_set_ahead_fn): every run it is shown
 * is then delivered, sample by sample, as the very events it was shown
 * (same pointers, same contents: registers too, which an unaligned file
 * decodes into the reader's scratch space), with no other record between;
 * and the samples come as they do without it. */
struct ahead_log {
	const struct pa_event *evs;
	size_t n, at; /* the run shown, and how much of it came */
	uint64_t regs[PA_SESSION_AHEAD_MAX][2];
	size_t nr_shown, nr_samples, nr_runs;
	uint64_t sum; /* of what identifies the samples, in their order */
};

static uint64_t regs_word(const struct pa_event *ev, unsigned i)
{
	const struct pa_sample *sm = &ev->sample;
	return sm->user_regs.regs && i < sm->user_regs.nr ? sm->user_regs.regs[i] : 0;
}

static int ahead_cb(void *ctx, struct pa_session *s, const struct pa_event *evs, size_t n)
{
	(void)s;
	struct ahead_log *l = ctx;
	assert_int_equal(l->at, l->n); /* the last run came whole */
	assert_true(n > 0 && n <= PA_SESSION_AHEAD_MAX);
	l->evs = evs;
	l->n = n;
	l->at = 0;
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(evs[k].type, PA_REC_SAMPLE);
		l->regs[k][0] = regs_word(&evs[k], 0);
		l->regs[k][1] = regs_word(&evs[k], 7);
	}
	l->nr_shown += n;
	l->nr_runs++;
	return 0;
}

static int ahead_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
                        struct pa_thread *t, const struct pa_addr_loc *loc)
{
	(void)s, (void)loc;
	struct ahead_log *l = ctx;
	if (l->at < l->n) {
		assert_ptr_equal(ev, &l->evs[l->at]);
		assert_true(regs_word(ev, 0) == l->regs[l->at][0]);
		assert_true(regs_word(ev, 7) == l->regs[l->at][1]);
		l->at++;
	}
	l->nr_samples++;
	uint64_t id = ev->sample.ip ^ ev->sample.time * 31 ^ (uint64_t)pa_thread_tid(t) << 40 ^
	              regs_word(ev, 0) * 7 ^ regs_word(ev, 7) * 13;
	l->sum = l->sum * 1000003 + id;
	return 0;
}

static int ahead_side(void *ctx, struct pa_session *s, const struct pa_event *ev,
                      struct pa_thread *t)
{
	(void)s, (void)ev, (void)t;
	struct ahead_log *l = ctx;
	assert_int_equal(l->at, l->n); /* never inside a run */
	return 0;
}

static void collect_ahead(const char *name, bool ahead, struct ahead_log *l)
{
	struct pa_session_opts o = {.sz = sizeof(o), .keep_user_stacks = true};
	struct pa_file *f;
	struct pa_session *s = open_session(name, &o, &f);
	struct pa_err err = {0};
	memset(l, 0, sizeof(*l));
	if (ahead)
		pa_session_set_ahead_fn(s, ahead_cb, l);
	pa_session_set_side_fn(s, UINT64_MAX, ahead_side, l);
	assert_int_equal(pa_session_process(s, ahead_sample, l, &err), 0);
	assert_int_equal(l->at, l->n);
	pa_session_free(s);
	pa_file_close(f);
}

static void test_ahead(void **state)
{
	(void)state;
	static const char *files[] = {"le-dwarf.data",     "be-dwarf.data", "le-dwarf.inj.data",
	                              "le-dwarf-dyn.data", "le-file.data",  "le-pipe.data",
	                              "le-zstd.data",      "le-sysw.data",  "le-two-events.data"};
	for (size_t k = 0; k < sizeof(files) / sizeof(*files); k++) {
		struct ahead_log with, without;
		collect_ahead(files[k], true, &with);
		collect_ahead(files[k], false, &without);
		assert_true(without.nr_samples > 0);
		assert_int_equal(with.nr_samples, without.nr_samples);
		assert_true(with.sum == without.sum);
		assert_int_equal(without.nr_shown, 0);
		/* most samples are shown ahead, in runs of more than one */
		assert_true(with.nr_shown * 2 > with.nr_samples);
		assert_true(with.nr_runs < with.nr_shown);
	}
}

/* ---- a flat report's rounds on a second thread ------------------------- */

/* A synthetic little-endian perf.data of 16 MB and more of 48-byte samples
 * (ip, tid, time, cpu, period), for the deliverer (session/handoff.c):
 * two CPUs' runs per round, the second one's starting before the round
 * before ended (so that a flush takes some of a round and keeps the rest),
 * a COMM and a FORK now and then (rounds ordered around side records) and
 * threads first seen by a sample (rounds where a thread changes). */
struct gbuf {
	uint8_t *p;
	size_t len, cap;
	bool no_id_all; /* no sample_id_all: side records come without a time */
};

/* the trailer's bytes (below) */
static uint16_t gtr(const struct gbuf *b)
{
	return b->no_id_all ? 0 : 24;
}

static void gput(struct gbuf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

/* little-endian, whatever the host's order (a big-endian host reads it
 * as a foreign file) */
static void gle(struct gbuf *b, uint64_t v, size_t n)
{
	uint8_t x[8];
	for (size_t i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	gput(b, x, n);
}

static void g64(struct gbuf *b, uint64_t v)
{
	gle(b, v, 8);
}

static void g32(struct gbuf *b, uint32_t v)
{
	gle(b, v, 4);
}

static void ghdr(struct gbuf *b, uint32_t type, uint16_t size)
{
	g32(b, type);
	gle(b, 2 /* user */, 2);
	gle(b, size, 2);
}

/* sample_id_all's trailer for sample_type TID | TIME | CPU */
static void gtrailer(struct gbuf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	if (b->no_id_all)
		return;
	g32(b, pid);
	g32(b, tid);
	g64(b, time);
	g64(b, 0);
}

static void gcomm(struct gbuf *b, uint32_t pid, uint32_t tid, const char *name, uint64_t time)
{
	char c[16] = {0};
	snprintf(c, sizeof(c), "%s", name);
	ghdr(b, 3 /* COMM */, 8 + 8 + 16 + gtr(b));
	g32(b, pid);
	g32(b, tid);
	gput(b, c, 16);
	gtrailer(b, pid, tid, time);
}

static void gmmap(struct gbuf *b, uint32_t pid, uint64_t start, uint64_t len, const char *name,
                  uint64_t time)
{
	char c[16] = {0};
	snprintf(c, sizeof(c), "%s", name);
	ghdr(b, 10 /* MMAP2 */, 72 + 16 + gtr(b));
	g32(b, pid);
	g32(b, pid);
	g64(b, start);
	g64(b, len);
	g64(b, 0); /* pgoff */
	g32(b, 8); /* maj, min */
	g32(b, 1);
	g64(b, start); /* ino */
	g64(b, 0);
	g32(b, 5); /* prot, flags */
	g32(b, 2);
	gput(b, c, 16);
	gtrailer(b, pid, pid, time);
}

static void gsample(struct gbuf *b, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t time,
                    uint32_t cpu)
{
	ghdr(b, 9 /* SAMPLE */, 48);
	g64(b, ip);
	g32(b, pid);
	g32(b, tid);
	g64(b, time);
	g32(b, cpu);
	g32(b, 0);
	g64(b, 1000 + ip % 13);
}

static char *write_big_file(bool no_id_all)
{
	struct gbuf b = {.no_id_all = no_id_all};
	g64(&b, 0x32454c4946524550ull); /* PERFILE2 */
	g64(&b, 104);
	g64(&b, 128 + 16); /* attr_size */
	g64(&b, 104);      /* attrs */
	g64(&b, 128 + 16);
	g64(&b, 104 + 128 + 16); /* data (size patched) */
	g64(&b, 0);
	g64(&b, 0); /* event_types */
	g64(&b, 0);
	for (int i = 0; i < 4; i++)
		g64(&b, 0); /* no features */
	size_t attr = b.len;
	g32(&b, 1);                       /* type */
	g32(&b, 128);                     /* size */
	g64(&b, 0);                       /* config */
	g64(&b, 4000);                    /* sample_freq */
	g64(&b, 0x187);                   /* sample_type: IP TID TIME CPU PERIOD */
	g64(&b, 0);                       /* read_format */
	g64(&b, 1ull << 10 | (no_id_all ? 0 : 1ull << 18)); /* freq, sample_id_all */
	while (b.len < attr + 128)
		g64(&b, 0);
	g64(&b, 0); /* no ids */
	g64(&b, 0);
	size_t data = b.len;
	gcomm(&b, 100, 100, "alpha", 1);
	gcomm(&b, 200, 200, "beta", 1);
	gmmap(&b, 100, 0x400000, 0x800, "/bin/a", 1);
	gmmap(&b, 100, 0x400800, 0x800, "/lib/b.so", 1);
	gmmap(&b, 200, 0x400000, 0x400, "/bin/c", 1);
	gmmap(&b, 200, 0x900000, 0x400, "/lib/unused.so", 1);
	uint64_t ip = 0x400000;
	for (uint32_t r = 0; b.len - data < (17u << 20); r++) {
		uint64_t base = 10000 + (uint64_t)r * 1000;
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			uint64_t t0 = base - cpu * 300;
			uint32_t pid = cpu ? 200 : 100;
			uint32_t tid = pid + (r / 40) % 3; /* new threads, by samples */
			for (uint64_t i = 0; i < 1000; i += 1) {
				ip = ip * 6364136223846793005ull + 1442695040888963407ull;
				gsample(&b, pid, tid, 0x400000 + (ip >> 51), t0 + i, cpu);
			}
			if (r == 100 && cpu) /* (samples there before it hit nothing) */
				gmmap(&b, 100, 0x401000, 0x1000, "/lib/late.so", base + 200);
			if (r % 50 == 7 && cpu)
				gcomm(&b, 100, 100, r % 100 == 7 ? "gamma" : "alpha", base + 500);
			if (r % 70 == 9 && !cpu) {
				ghdr(&b, 7 /* FORK */, 8 + 24 + gtr(&b));
				g32(&b, 200);
				g32(&b, 200);
				g32(&b, 300 + r);
				g32(&b, 200);
				g64(&b, base + 100);
				gtrailer(&b, 200, 300 + r, base + 100);
			}
		}
		ghdr(&b, 68 /* FINISHED_ROUND */, 8);
	}
	uint64_t dsize = b.len - data;
	for (int i = 0; i < 8; i++)
		b.p[48 + i] = (uint8_t)(dsize >> (8 * i));
	char *path = strdup("/tmp/pa-test-session-XXXXXX");
	assert_non_null(path);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.p, b.len), (ssize_t)b.len);
	close(fd);
	free(b.p);
	return path;
}

/* What a summing callback was given, in its order. */
struct seq {
	uint64_t n, hash;
};

static int on_sample_seq(void *ctx, struct pa_session *s, const struct pa_event *ev,
                         struct pa_thread *t, const struct pa_addr_loc *loc)
{
	struct seq *q = ctx;
	struct sums one = {0};
	on_sample_sum(&one, s, ev, t, loc);
	for (const char *c = pa_thread_comm(t); *c; c++)
		one.sum = mix64(one.sum + (unsigned char)*c);
	q->hash = mix64(q->hash ^ one.sum);
	q->n++;
	return 0;
}

static void run_seq(const char *path, bool threads, uint64_t max_memory, struct seq *q,
                    uint64_t *aside)
{
	struct pa_err err = {0};
	struct pa_file_opts fo = {.sz = sizeof(fo), .no_threads = !threads};
	struct pa_file *f = pa_file_open(path, &fo, &err);
	assert_non_null(f);
	struct pa_session_opts o = {
	    .sz = sizeof(o), .no_callchains = true, .max_memory = max_memory};
	struct pa_session *s = pa_session_new(f, &o, &err);
	assert_non_null(s);
	pa_session_set_summing(s, true);
	memset(q, 0, sizeof(*q));
	int pr = pa_session_process(s, on_sample_seq, q, &err);
	if (pr)
		fprintf(stderr, "%s at %llu\n", err.msg, (unsigned long long)err.offset);
	assert_int_equal(pr, 0);
	assert_int_equal(pa_session_nr_samples(s), q->n);
	*aside = pa_session_rounds_aside(s);
	pa_session_free(s);
	pa_file_close(f);
}

static void run_hits(const char *path, bool threads, char *names, size_t size, uint64_t *n,
                     uint64_t *aside)
{
	struct pa_err err = {0};
	struct pa_file_opts fo = {.sz = sizeof(fo), .no_threads = !threads};
	struct pa_file *f = pa_file_open(path, &fo, &err);
	assert_non_null(f);
	struct pa_session_opts o = {.sz = sizeof(o), .no_callchains = true};
	struct pa_session *s = pa_session_new(f, &o, &err);
	assert_non_null(s);
	assert_int_equal(pa_session_process(s, NULL, NULL, &err), 0);
	*n = pa_session_nr_samples(s);
	*aside = pa_session_rounds_aside(s);
	names[0] = 0;
	for (unsigned i = 0; i < pa_session_nr_dsos(s); i++) {
		const struct pa_dso *d = pa_session_dso(s, i);
		size_t len = strlen(names);
		snprintf(names + len, size - len, "%s%s\n", d->hit ? "+" : "-", d->long_name);
	}
	pa_session_free(s);
	pa_file_close(f);
}

static void rounds_aside(bool no_id_all)
{
	char *path = write_big_file(no_id_all);
	struct seq one, two, capped;
	uint64_t a1, a2, a3;
	bool two_cpus = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	run_seq(path, false, 0, &one, &a1);
	run_seq(path, true, 0, &two, &a2);
	run_seq(path, true, UINT64_MAX, &capped, &a3);
	assert_true(one.n > 340000);
	assert_int_equal(a1, 0);
	assert_int_equal(a3, 0);
	assert_true(!two_cpus || a2 > 100);
	assert_int_equal(one.n, two.n);
	assert_int_equal(one.hash, two.hash);
	assert_int_equal(one.n, capped.n);
	assert_int_equal(one.hash, capped.hash);
	char n1[512], n2[512];
	uint64_t c1, c2;
	run_hits(path, false, n1, sizeof(n1), &c1, &a1);
	run_hits(path, true, n2, sizeof(n2), &c2, &a2);
	assert_int_equal(a1, 0);
	assert_true(!two_cpus || a2 > 100);
	assert_int_equal(c1, one.n);
	assert_int_equal(c2, one.n);
	assert_string_equal(n1, "+/bin/a\n+/lib/b.so\n+/bin/c\n-/lib/unused.so\n+/lib/late.so\n");
	assert_string_equal(n1, n2);
	unlink(path);
	free(path);
}

/* The deliverer gives the callback what one thread does, in the same
 * order, and marks the same DSOs hit; not with no_threads, nor with a
 * memory cap asked for. */
static void test_rounds_aside(void **state)
{
	(void)state;
	rounds_aside(false);
}

/* The same where side records come without a time (no sample_id_all):
 * each is applied as it is read, the deliverer idle then. */
static void test_rounds_aside_untimed(void **state)
{
	(void)state;
	rounds_aside(true);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_session TESTDATA_DIR\n");
		return 2;
	}
	testdata = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys_in_every_mode),
	    cmocka_unit_test(test_keys_without_chains),
	    cmocka_unit_test(test_key_covers_event),
	    cmocka_unit_test(test_keys_byte_order),
	    cmocka_unit_test(test_key_ahead),
	    cmocka_unit_test(test_hit_pass),
	    cmocka_unit_test(test_summing),
	    cmocka_unit_test(test_ahead),
	    cmocka_unit_test(test_rounds_aside),
	    cmocka_unit_test(test_rounds_aside_untimed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
