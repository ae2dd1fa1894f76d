/* test_util.c - unit tests for the shared helpers of util/: the red-black
 * tree (util/rbtree.c), the ELF note parser, pa_grow, pa_write_all,
 * pa_asprintf and the options-struct checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/dl.h"
#include "util/rbtree.h"
#include "util/util.h"

/* ---- red-black tree ------------------------------------------------------ */

struct keys {
	const int *key;
};

/* equal keys to the right: in-order is by key, then by insertion */
static int dir_key(void *ctx, uint32_t a, uint32_t b)
{
	const struct keys *k = ctx;
	return k->key[a] < k->key[b] ? -1 : 1;
}

/* Checks the subtree at n: parent links, no red child of a red node, equal
 * black heights. Returns the black height; counts the nodes. */
static int rb_check(const struct pa_rb *t, uint32_t n, uint32_t parent, size_t *count)
{
	if (n == PA_RB_NIL)
		return 1;
	const struct pa_rb_node *N = t->node;
	assert_int_equal(N[n].parent, parent);
	if (N[n].red) {
		assert_true(N[n].left == PA_RB_NIL || !N[N[n].left].red);
		assert_true(N[n].right == PA_RB_NIL || !N[N[n].right].red);
	}
	int l = rb_check(t, N[n].left, n, count);
	int r = rb_check(t, N[n].right, n, count);
	assert_int_equal(l, r);
	(*count)++;
	return l + !N[n].red;
}

static void tree_check(const struct pa_rb *t, const int *key, const bool *live, size_t n)
{
	size_t count = 0, nlive = 0;
	if (t->root != PA_RB_NIL)
		assert_false(t->node[t->root].red);
	rb_check(t, t->root, PA_RB_NIL, &count);
	for (size_t i = 0; i < n; i++)
		nlive += live[i];
	assert_int_equal(count, nlive);
	/* the in-order walk gives every live node, sorted, equal keys in
	 * insertion (index) order */
	size_t seen = 0;
	uint32_t prev = PA_RB_NIL;
	for (uint32_t i = pa_rb_first(t); i != PA_RB_NIL; i = pa_rb_next(t, i)) {
		assert_true(i < n && live[i]);
		if (prev != PA_RB_NIL) {
			assert_true(key[prev] <= key[i]);
			if (key[prev] == key[i])
				assert_true(prev < i);
		}
		prev = i;
		seen++;
	}
	assert_int_equal(seen, nlive);
}

/* Insertion of 1..7 in order: lib/rbtree.c gives 2 (1, 4 (3, 6 (5, 7))),
 * with 4 red... and erasing the root promotes its successor. */
static void test_rb_shape(void **state)
{
	(void)state;
	static const int key[] = {1, 2, 3, 4, 5, 6, 7};
	struct keys k = {key};
	struct pa_rb t;
	assert_int_equal(pa_rb_init(&t, 7), 0);
	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(pa_rb_insert(&t, i, dir_key, &k), i);
	const struct pa_rb_node *N = t.node;
	assert_int_equal(t.root, 1);
	assert_int_equal(N[1].left, 0);
	assert_int_equal(N[1].right, 3);
	assert_int_equal(N[3].left, 2);
	assert_int_equal(N[3].right, 5);
	assert_int_equal(N[5].left, 4);
	assert_int_equal(N[5].right, 6);
	assert_false(N[1].red);
	assert_true(N[3].red);
	assert_false(N[2].red);
	assert_false(N[5].red);
	assert_true(N[4].red && N[6].red);

	/* erase the root (key 2): its successor (key 3, a black leaf) takes
	 * its place, then the rebalancing rotates at 4 */
	pa_rb_erase(&t, 1);
	assert_int_equal(N[1].left, PA_RB_NIL);
	assert_int_equal(N[1].right, PA_RB_NIL);
	assert_int_equal(N[1].parent, PA_RB_NIL);
	bool live[7] = {1, 0, 1, 1, 1, 1, 1};
	tree_check(&t, key, live, 7);
	assert_int_equal(t.root, 2);
	assert_int_equal(N[2].left, 0);
	assert_int_equal(N[2].right, 5);
	assert_int_equal(N[5].left, 3);
	assert_int_equal(N[5].right, 6);
	assert_int_equal(N[3].right, 4);
	pa_rb_release(&t);
	assert_null(t.node);
}

/* pa_rb_insert with an equal key returns the existing node */
static int dir_unique(void *ctx, uint32_t a, uint32_t b)
{
	const struct keys *k = ctx;
	return PA_CMP(k->key[a], k->key[b]);
}

static void test_rb_found(void **state)
{
	(void)state;
	static const int key[] = {5, 3, 5, 8};
	struct keys k = {key};
	struct pa_rb t = {0};
	t.root = PA_RB_NIL;
	assert_int_equal(pa_rb_reserve(&t, 4), 0);
	assert_true(t.cap >= 4);
	assert_int_equal(pa_rb_insert(&t, 0, dir_unique, &k), 0);
	assert_int_equal(pa_rb_insert(&t, 1, dir_unique, &k), 1);
	assert_int_equal(pa_rb_insert(&t, 2, dir_unique, &k), 0);
	assert_int_equal(pa_rb_insert(&t, 3, dir_unique, &k), 3);
	bool live[4] = {1, 1, 0, 1};
	tree_check(&t, key, live, 4);
	/* reserve keeps the tree */
	assert_int_equal(pa_rb_reserve(&t, 1000), 0);
	tree_check(&t, key, live, 4);
	pa_rb_release(&t);
}

static void test_rb_random(void **state)
{
	(void)state;
	enum { MAXN = 600 };
	static int key[MAXN];
	static bool live[MAXN];
	srand(4242);
	for (int iter = 0; iter < 200; iter++) {
		size_t n = 1 + (size_t)rand() % MAXN;
		int range = iter % 4 == 0 ? 8 : 1000; /* many equal keys, or few */
		struct keys k = {key};
		struct pa_rb t = {.root = PA_RB_NIL};
		memset(live, 0, sizeof(live));
		for (size_t i = 0; i < n; i++) {
			key[i] = rand() % range;
			assert_int_equal(pa_rb_reserve(&t, i + 1), 0);
			assert_int_equal(pa_rb_insert(&t, (uint32_t)i, dir_key, &k), i);
			live[i] = true;
			if (i % 37 == 0)
				tree_check(&t, key, live, i + 1);
		}
		tree_check(&t, key, live, n);
		/* erase in a random order, sometimes everything */
		size_t erase = iter % 5 == 0 ? n : (size_t)rand() % (n + 1);
		for (size_t e = 0; e < erase; e++) {
			size_t i = (size_t)rand() % n;
			while (!live[i])
				i = (i + 1) % n;
			pa_rb_erase(&t, (uint32_t)i);
			live[i] = false;
			if (e % 11 == 0)
				tree_check(&t, key, live, n);
		}
		tree_check(&t, key, live, n);
		if (erase == n)
			assert_int_equal(t.root, PA_RB_NIL);
		pa_rb_release(&t);
	}
}

/* ---- ELF notes ------------------------------------------------------------ */

struct nbuf {
	uint8_t b[512];
	size_t len;
};

static void put32(struct nbuf *w, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(w->b + w->len, &v, 4);
	w->len += 4;
}

/* One note: header, name and desc each padded to align. */
static void add_note(struct nbuf *w, const char *name, uint32_t namesz, uint32_t type,
                     const void *desc, uint32_t descsz, unsigned align, bool swap)
{
	put32(w, namesz, swap);
	put32(w, descsz, swap);
	put32(w, type, swap);
	memcpy(w->b + w->len, name, namesz);
	w->len = (size_t)PA_ALIGN_UP(w->len + namesz, align);
	memcpy(w->b + w->len, desc, descsz);
	w->len = (size_t)PA_ALIGN_UP(w->len + descsz, align);
}

static const uint8_t id20[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
                                 7,    8,    9,    10,   11, 12, 13, 14, 15, 16};

static void test_note_good(void **state)
{
	(void)state;
	for (int swap = 0; swap < 2; swap++) {
		struct nbuf w = {.len = 0};
		uint8_t out[64];
		add_note(&w, "GNU", 4, PA_NT_GNU_BUILD_ID, id20, 20, 4, swap);
		memset(out, 0, sizeof(out));
		assert_int_equal(pa_note_gnu_build_id(w.b, w.len, 4, swap, out, sizeof(out)), 20);
		assert_memory_equal(out, id20, 20);
		/* the cap: perf's 20 bytes of a longer id */
		assert_int_equal(pa_note_gnu_build_id(w.b, w.len, 4, swap, out, 8), 8);
		/* read in the other byte order it is garbage: nothing */
		assert_int_equal(pa_note_gnu_build_id(w.b, w.len, 4, !swap, out, 20), 0);

		struct pa_note nt;
		size_t next = pa_note_next(w.b, w.len, 0, 4, swap, &nt);
		assert_int_equal(next, w.len);
		assert_int_equal(nt.namesz, 4);
		assert_int_equal(nt.descsz, 20);
		assert_int_equal(nt.type, 3);
		assert_string_equal(nt.name, "GNU");
		assert_ptr_equal(nt.desc, w.b + 16);
		assert_int_equal(pa_note_next(w.b, w.len, next, 4, swap, &nt), 0);
	}
}

static void test_note_several(void **state)
{
	(void)state;
	struct nbuf w = {.len = 0};
	uint8_t out[20], other[20];
	memset(other, 0x77, sizeof(other));
	/* wrong owner, wrong type, an empty desc, odd sizes; then the id, then
	 * a second id that must not win */
	add_note(&w, "Linux", 6, PA_NT_GNU_BUILD_ID, other, 20, 4, false);
	add_note(&w, "GNU", 4, 1, other, 16, 4, false);
	add_note(&w, "GNU", 4, PA_NT_GNU_BUILD_ID, other, 0, 4, false);
	add_note(&w, "GN", 3, PA_NT_GNU_BUILD_ID, other, 5, 4, false);
	add_note(&w, "GNU", 4, PA_NT_GNU_BUILD_ID, id20, 20, 4, false);
	add_note(&w, "GNU", 4, PA_NT_GNU_BUILD_ID, other, 20, 4, false);
	assert_int_equal(pa_note_gnu_build_id(w.b, w.len, 4, false, out, 20), 20);
	assert_memory_equal(out, id20, 20);

	/* the walk visits six notes */
	struct pa_note nt;
	size_t off = 0, n = 0;
	while (off < w.len && (off = pa_note_next(w.b, w.len, off, 4, false, &nt)) > 0)
		n++;
	assert_int_equal(n, 6);
}

static void test_note_bad(void **state)
{
	(void)state;
	struct nbuf w = {.len = 0};
	uint8_t out[20];
	add_note(&w, "GNU", 4, PA_NT_GNU_BUILD_ID, id20, 20, 4, false);

	/* truncated anywhere: nothing */
	for (size_t cut = 0; cut < w.len; cut++)
		assert_int_equal(pa_note_gnu_build_id(w.b, cut, 4, false, out, 20), 0);
	assert_int_equal(pa_note_gnu_build_id(NULL, 0, 4, false, out, 20), 0);

	/* a desc size that wraps when padded, a name larger than the buffer */
	struct nbuf h = {.len = 0};
	add_note(&h, "GNU", 4, PA_NT_GNU_BUILD_ID, id20, 20, 4, false);
	uint32_t huge = UINT32_MAX;
	memcpy(h.b + 4, &huge, 4);
	assert_int_equal(pa_note_gnu_build_id(h.b, h.len, 4, false, out, 20), 0);
	memcpy(h.b + 4, &(uint32_t){20}, 4);
	memcpy(h.b, &huge, 4);
	assert_int_equal(pa_note_gnu_build_id(h.b, h.len, 4, false, out, 20), 0);

	/* a malformed note ends the list: the id after it is not seen */
	struct nbuf m = {.len = 0};
	add_note(&m, "GNU", 4, 1, id20, 8, 4, false);
	size_t second = m.len;
	add_note(&m, "GNU", 4, PA_NT_GNU_BUILD_ID, id20, 20, 4, false);
	memcpy(m.b + 4, &(uint32_t){400}, 4); /* first desc runs past the end */
	assert_int_equal(pa_note_gnu_build_id(m.b, m.len, 4, false, out, 20), 0);
	assert_int_equal(pa_note_gnu_build_id(m.b + second, m.len - second, 4, false, out, 20), 20);
}

static void test_note_align8(void **state)
{
	(void)state;
	struct nbuf w = {.len = 0};
	uint8_t out[20];
	/* GNU property style: "GNU\0" ends at 16, already 8-aligned; "Linux\0"
	 * ends at 18 and its desc starts at 24 */
	add_note(&w, "Linux", 6, 1, id20, 12, 8, false);
	add_note(&w, "GNU", 4, PA_NT_GNU_BUILD_ID, id20, 20, 8, false);
	assert_int_equal(w.len % 8, 0);
	assert_int_equal(pa_note_gnu_build_id(w.b, w.len, 8, false, out, 20), 20);
	assert_memory_equal(out, id20, 20);
	struct pa_note nt;
	assert_int_equal(pa_note_next(w.b, w.len, 0, 8, false, &nt), 40);
	assert_ptr_equal(nt.desc, w.b + 24);
	/* read as 4-aligned, the first note's desc is in the wrong place and
	 * the second note is misread */
	assert_int_equal(pa_note_next(w.b, w.len, 0, 4, false, &nt), 32);
	assert_ptr_equal(nt.desc, w.b + 20);
	assert_int_equal(pa_note_gnu_build_id(w.b, w.len, 4, false, out, 20), 0);
	/* a name ending in the last bytes whose padding would pass the end */
	struct nbuf e = {.len = 0};
	put32(&e, 6, false);
	put32(&e, 0, false);
	put32(&e, 1, false);
	memcpy(e.b + e.len, "Linux", 6);
	e.len += 6;
	assert_int_equal(pa_note_next(e.b, e.len, 0, 8, false, &nt), 0);
	assert_int_equal(pa_note_next(e.b, e.len, 0, 4, false, &nt), 0);
	e.len += 2;
	assert_int_equal(pa_note_next(e.b, e.len, 0, 4, false, &nt), 20);
}

/* ---- pa_grow, pa_write_all, pa_asprintf, options ------------------------- */

/* a struct with a group of fields on a cache line of its own */
struct lined {
	int a;
	_Alignas(64) int b[40];
};

static void test_zalloc_aligned(void **state)
{
	(void)state;
	/* (several, so that one aligned by chance proves nothing alone) */
	struct lined *v[8];
	for (int i = 0; i < 8; i++) {
		v[i] = PA_ZALLOC_ALIGNED(struct lined);
		assert_non_null(v[i]);
		assert_int_equal((uintptr_t)v[i] % 64, 0);
		assert_int_equal((uintptr_t)&v[i]->b % 64, 0);
		const unsigned char *p = (const unsigned char *)v[i];
		for (size_t k = 0; k < sizeof(*v[i]); k++)
			assert_int_equal(p[k], 0);
		memset(v[i], 0xff, sizeof(*v[i]));
	}
	for (int i = 0; i < 8; i++)
		free(v[i]);
	/* a page-aligned object */
	void *page = pa_zalloc_aligned(4096, 8192);
	assert_non_null(page);
	assert_int_equal((uintptr_t)page % 4096, 0);
	free(page);
}

static void test_grow(void **state)
{
	(void)state;
	uint64_t *v = NULL;
	size_t cap = 0;
	assert_int_equal(PA_GROW(v, cap, 0, 16), 0);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(PA_GROW(v, cap, 1, 16), 0);
	assert_non_null(v);
	assert_int_equal(cap, 16);
	for (size_t i = 0; i < 16; i++)
		v[i] = i;
	assert_int_equal(PA_GROW(v, cap, 16, 16), 0); /* fits: unchanged */
	assert_int_equal(cap, 16);
	assert_int_equal(PA_GROW(v, cap, 17, 16), 0); /* doubles once */
	assert_int_equal(cap, 32);
	assert_int_equal(PA_GROW(v, cap, 200, 16), 0); /* until it covers */
	assert_int_equal(cap, 256);
	for (size_t i = 0; i < 16; i++)
		assert_int_equal(v[i], i);
	/* too large: -ENOMEM, the array kept */
	uint64_t *old = v;
	assert_int_equal(PA_GROW(v, cap, SIZE_MAX / 4, 16), -ENOMEM);
	assert_ptr_equal(v, old);
	assert_int_equal(cap, 256);
	free(v);

	char *s = NULL;
	size_t scap = 0;
	assert_int_equal(pa_grow(&s, &scap, 3, 1, 0), 0); /* min_cap 0 acts as 1 */
	assert_int_equal(scap, 4);
	free(s);
}

static void test_write_all(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	char buf[3000], got[3000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	assert_int_equal(pa_write_all(p[1], buf, sizeof(buf)), 0);
	assert_int_equal(pa_write_all(p[1], buf, 0), 0);
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while ((r = read(p[0], got + n, sizeof(got) - n)) > 0)
		n += (size_t)r;
	assert_int_equal(n, sizeof(buf));
	assert_memory_equal(got, buf, n);
	close(p[0]);
	assert_int_equal(pa_write_all(-1, buf, 1), -EBADF);
}

static void test_asprintf(void **state)
{
	(void)state;
	char *s = pa_asprintf("%s/%02x-%d", "dir", 0xab, -3);
	assert_string_equal(s, "dir/ab--3");
	free(s);
	s = pa_asprintf("%s", "");
	assert_string_equal(s, "");
	free(s);
}

struct t_opts {
	size_t sz;
	int a;
	const char *b;
};
struct t_opts_v2 {
	size_t sz;
	int a;
	const char *b;
	long c;
};

static void test_opts(void **state)
{
	(void)state;
	assert_int_equal(pa_opts_check(NULL, sizeof(struct t_opts)), 0);
	struct t_opts o = {.sz = sizeof(o), .a = 7, .b = "x"};
	const struct t_opts *op = &o; /* PA_OPTS_HAS tests the pointer */
	assert_int_equal(pa_opts_check(&o, sizeof(o)), 0);
	assert_true(PA_OPTS_HAS(op, struct t_opts, b));
	assert_int_equal(PA_OPTS_GET(op, struct t_opts, a, 1), 7);

	/* an older caller: only a is covered */
	o.sz = offsetof(struct t_opts, a) + sizeof(int);
	assert_int_equal(pa_opts_check(&o, sizeof(o)), 0);
	assert_true(PA_OPTS_HAS(op, struct t_opts, a));
	assert_false(PA_OPTS_HAS(op, struct t_opts, b));
	assert_string_equal(PA_OPTS_GET(op, struct t_opts, b, "def"), "def");
	const struct t_opts *none = NULL;
	assert_false(PA_OPTS_HAS(none, struct t_opts, a));
	assert_int_equal(PA_OPTS_GET(none, struct t_opts, a, 5), 5);

	/* sz too small */
	o.sz = 3;
	assert_int_equal(pa_opts_check(&o, sizeof(o)), -EINVAL);

	/* a newer caller: the unknown tail must be zero */
	struct t_opts_v2 n2 = {.sz = sizeof(n2), .a = 1};
	assert_int_equal(pa_opts_check(&n2, sizeof(struct t_opts)), 0);
	n2.c = 1;
	assert_int_equal(pa_opts_check(&n2, sizeof(struct t_opts)), -E2BIG);

	/* copy: the part both know */
	struct t_opts dst = {.sz = 0, .a = 99, .b = "keep"};
	pa_opts_copy(&dst, sizeof(dst), NULL);
	assert_int_equal(dst.a, 99);
	struct t_opts small = {.sz = offsetof(struct t_opts, b), .a = 4, .b = "no"};
	pa_opts_copy(&dst, sizeof(dst), &small);
	assert_int_equal(dst.a, 4);
	assert_string_equal(dst.b, "keep");
	n2.c = 0;
	n2.b = "v2";
	pa_opts_copy(&dst, sizeof(dst), &n2);
	assert_string_equal(dst.b, "v2");
}

/* pa_seqset with hashes made beforehand: the same ids as pa_seqset_add,
 * order matters, deep sequences across table growth (every length from
 * 0 to 130, so each tail of the two-lane hash is taken); the table
 * dropped, the sequences stay. */
static void test_seqset_hashed(void **state)
{
	(void)state;
	struct pa_seqset s = {0};
	uint32_t v[130], id, again;
	for (uint32_t i = 0; i < 130; i++)
		v[i] = i * 7 + 1;
	assert_int_not_equal(pa_seqset_hash(v, 5), pa_seqset_hash(v + 1, 5));
	uint32_t w[2] = {1, 2}, wr[2] = {2, 1};
	assert_int_not_equal(pa_seqset_hash(w, 2), pa_seqset_hash(wr, 2));
	for (uint32_t round = 0; round < 40; round++) {
		for (uint32_t n = 0; n <= 130; n++) {
			v[0] = round;
			uint64_t h = pa_seqset_hash(v, n);
			pa_seqset_prefetch(&s, h);
			assert_int_equal(pa_seqset_add_hashed(&s, v, n, h, &id), 0);
			assert_int_equal(pa_seqset_add(&s, v, n, &again), 0);
			assert_int_equal(again, id);
			uint32_t len;
			const uint32_t *got = pa_seqset_get(&s, id, &len);
			assert_int_equal(len, n);
			if (n)
				assert_memory_equal(got, v, n * sizeof(*v));
		}
	}
	/* the empty one is one sequence whatever round; each other is new */
	assert_int_equal(s.nr, 1 + 40 * 130);
	size_t nr = s.nr, bytes = pa_seqset_bytes(&s);
	assert_true(bytes >= s.pool_len * sizeof(uint32_t));
	pa_seqset_drop_table(&s);
	assert_true(pa_seqset_bytes(&s) < bytes);
	assert_int_equal(s.nr, nr);
	uint32_t len;
	assert_int_equal(pa_seqset_get(&s, (uint32_t)nr - 1, &len)[129], 129 * 7 + 1);
	pa_seqset_release(&s);
	assert_null(s.pool);
}

static void test_seqset(void **state)
{
	(void)state;
	struct pa_seqset s = {0};
	uint32_t v[4] = {1, 2, 3, 4}, id;
	assert_int_equal(pa_seqset_add(&s, v, 3, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(pa_seqset_add(&s, v, 4, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(pa_seqset_add(&s, v, 0, &id), 0);
	assert_int_equal(id, 2);
	for (uint32_t i = 0; i < 5000; i++) {
		uint32_t w[2] = {i, i * 7}, got;
		assert_int_equal(pa_seqset_add(&s, w, 2, &got), 0);
		assert_int_equal(got, i + 3);
	}
	assert_int_equal(pa_seqset_add(&s, v, 3, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(pa_seqset_add(&s, v, 0, &id), 0);
	assert_int_equal(id, 2);
	uint32_t w[2] = {4321, 4321 * 7}, n;
	assert_int_equal(pa_seqset_add(&s, w, 2, &id), 0);
	assert_int_equal(id, 4321 + 3);
	const uint32_t *got = pa_seqset_get(&s, 1, &n);
	assert_int_equal(n, 4);
	assert_memory_equal(got, v, sizeof(v));
	assert_int_equal(s.nr, 5003);
	pa_seqset_release(&s);
	assert_null(s.pool);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(pa_edit_distance("", "", 3), 0);
	assert_int_equal(pa_edit_distance("libc.so", "libc.so.6", 3), 2);
	assert_int_equal(pa_edit_distance("kitten", "sitting", 5), 3);
	assert_int_equal(pa_edit_distance("burn", "brun", 5), 2);
	assert_int_equal(pa_edit_distance("abc", "", 5), 3);
	assert_int_equal(pa_edit_distance("", "abc", 5), 3);
	assert_int_equal(pa_edit_distance("same", "same", 0), 0);
	/* past max: max + 1, by length alone or by the rows */
	assert_int_equal(pa_edit_distance("a", "abcdefgh", 2), 3);
	assert_int_equal(pa_edit_distance("abcdef", "uvwxyz", 2), 3);
	/* longer than the stack row */
	char a[300], b[300];
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = 0;
	memcpy(b, a, sizeof(b));
	b[150] = 'y';
	assert_int_equal(pa_edit_distance(a, b, 4), 1);
}

/* ---- util/dl.h: libraries opened when first used ---- */

/* zlib's version string through a forwarder of its own name (zlib is a
 * library pa needs anyway, on every arch; this test does not link it) */
const char *zlibVersion(void);
#define ZFUNCS(X, V) X(const char *, zlibVersion, (void), (), NULL)
#define PA_DL_THIS   zlib_lib
PA_DL_DEFINE("libz.so.1", ZFUNCS)
#undef PA_DL_THIS

/* one that is not there: its forwarder returns the failure value */
#define MFUNCS(X, V)                                                                               \
	X(int, pa_test_missing_fn, (int x), (x), -7)                                               \
	V(pa_test_missing_void, (int x), (x))
int pa_test_missing_fn(int x);
void pa_test_missing_void(int x);
#define PA_DL_THIS missing_lib
PA_DL_DEFINE("libpa-test-no-such-library.so.1", MFUNCS)
#undef PA_DL_THIS

/* and one pa was built without */
#define NFUNCS(X, V) X(int, pa_test_unbuilt_fn, (void), (), -3)
int pa_test_unbuilt_fn(void);
#define PA_DL_THIS unbuilt_lib
PA_DL_DEFINE(NULL, NFUNCS)
#undef PA_DL_THIS

static void test_dl_open(void **state)
{
	(void)state;
	char why[160] = "";
	void *slot[2] = {0};
	const char *const one[] = {"zlibVersion"};
	assert_non_null(pa_dl_open("libz.so.1", one, slot, 1, why, sizeof(why)));
	assert_non_null(slot[0]);
	/* a symbol missing: no handle, the symbol named */
	const char *const two[] = {"zlibVersion", "pa_test_no_such_symbol"};
	assert_null(pa_dl_open("libz.so.1", two, slot, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "pa_test_no_such_symbol"));
	/* the library missing: the loader's reason, naming it */
	why[0] = 0;
	assert_null(pa_dl_open("libpa-test-no-such-library.so.1", one, slot, 1, why, sizeof(why)));
	assert_non_null(strstr(why, "libpa-test-no-such-library.so.1"));
}

static void test_dl_forwarders(void **state)
{
	(void)state;
	/* opened on the first call, and the library's answer comes back */
	assert_int_equal(atomic_load(&zlib_lib.done), 0);
	const char *v = zlibVersion();
	assert_non_null(v);
	assert_true(v[0] >= '1' && v[0] <= '9' && v[1] == '.');
	assert_int_equal(atomic_load(&zlib_lib.done), 1);
	assert_true(pa_dl_lib_load(&zlib_lib));
	assert_ptr_equal(zlibVersion(), v);
	/* not there: the failure value, every time, and why */
	assert_int_equal(pa_test_missing_fn(1), -7);
	pa_test_missing_void(1);
	assert_int_equal(pa_test_missing_fn(2), -7);
	assert_false(pa_dl_lib_load(&missing_lib));
	assert_non_null(strstr(missing_lib.why, "libpa-test-no-such-library.so.1"));
	assert_ptr_equal(pa_dl_lib_why(&missing_lib), missing_lib.why);
	assert_null(pa_dl_lib_why(&zlib_lib));
	assert_int_equal(pa_test_unbuilt_fn(), -3);
	assert_false(pa_dl_lib_load(&unbuilt_lib));
	assert_non_null(strstr(unbuilt_lib.why, "built without"));
}

static void test_expand_tabs(void **state)
{
	(void)state;
	struct pa_arena a;
	pa_arena_init(&a, 0);
	assert_string_equal(pa_arena_expand_tabs(&a, "\tx", 2), "        x");
	assert_string_equal(pa_arena_expand_tabs(&a, "ab\tc\t\td", 7), "ab      c               d");
	/* only n bytes, NUL-terminated */
	assert_string_equal(pa_arena_expand_tabs(&a, "abcdef", 3), "abc");
	pa_arena_release(&a);
}

static void test_textfiles(void **state)
{
	(void)state;
	char path[] = "/tmp/pa-test-textfile-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char text[] = "one\n\tsecond line\nlast without newline";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	struct pa_textfiles t = {0};
	assert_string_equal(pa_textfiles_line(&t, path, 1), "one");
	assert_string_equal(pa_textfiles_line(&t, path, 2), "\tsecond line");
	assert_string_equal(pa_textfiles_line(&t, path, 3), "last without newline");
	assert_null(pa_textfiles_line(&t, path, 4));
	assert_null(pa_textfiles_line(&t, path, 0));
	/* read once: the file's removal does not change the answers */
	unlink(path);
	assert_string_equal(pa_textfiles_line(&t, path, 1), "one");
	assert_int_equal(t.nr, 1);
	/* a missing file: no line, remembered */
	assert_null(pa_textfiles_line(&t, "/nonexistent/pa-test/x.c", 1));
	assert_null(pa_textfiles_line(&t, "/nonexistent/pa-test/x.c", 1));
	assert_int_equal(t.nr, 2);
	pa_textfiles_release(&t);
	assert_int_equal(t.nr, 0);
}

/* pa_slots_for: a slot per per_slot bytes, a power of two within bounds */
static void test_slots_for(void **state)
{
	(void)state;
	assert_int_equal(pa_slots_for(0, 1024, 256, 16384), 16384); /* unknown */
	assert_int_equal(pa_slots_for(1, 1024, 256, 16384), 256);
	assert_int_equal(pa_slots_for(256 * 1024, 1024, 256, 16384), 256);
	assert_int_equal(pa_slots_for(256 * 1024 + 1, 1024, 256, 16384), 512);
	assert_int_equal(pa_slots_for(1175160, 256, 1024, 16384), 8192);
	assert_int_equal(pa_slots_for(UINT64_MAX, 256, 1024, 16384), 16384);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edit_distance), cmocka_unit_test(test_seqset),
	    cmocka_unit_test(test_dl_open),       cmocka_unit_test(test_dl_forwarders),
	    cmocka_unit_test(test_rb_shape),      cmocka_unit_test(test_rb_found),
	    cmocka_unit_test(test_rb_random),     cmocka_unit_test(test_note_good),
	    cmocka_unit_test(test_note_several),  cmocka_unit_test(test_note_bad),
	    cmocka_unit_test(test_note_align8),   cmocka_unit_test(test_grow),
	    cmocka_unit_test(test_write_all),     cmocka_unit_test(test_asprintf),
	    cmocka_unit_test(test_opts),          cmocka_unit_test(test_seqset_hashed),
	    cmocka_unit_test(test_expand_tabs),   cmocka_unit_test(test_textfiles),
	    cmocka_unit_test(test_slots_for),     cmocka_unit_test(test_zalloc_aligned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
