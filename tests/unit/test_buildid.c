/* test_buildid.c - unit tests for buildid/: ids, ELF notes, SHA-1 fallback,
 * the perf-compatible cache (atomicity, concurrency, crash safety), the
 * finder chain, and interoperability with the real perf tool.
 *
 * Fixtures: PA_TEST_TINY_A / _B are two builds of one tiny program (different
 * build-ids), PA_TEST_TINY_NOID was linked with --build-id=none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildid/buildid.h"

#ifndef PA_TEST_TINY_A
#error "PA_TEST_TINY_A must name the fixture binary"
#endif

/* ---- helpers ------------------------------------------------------------- */

static char *tmpdir_new(void)
{
	char t[] = "/tmp/pa-bid-XXXXXX";
	assert_non_null(mkdtemp(t));
	return strdup(t);
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(p);
	return 0;
}

static void rmtree(char *p)
{
	if (p)
		nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(p);
}

static void mkdirs(const char *path)
{
	char *p = strdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
	free(p);
}

static void write_file(const char *path, const void *data, size_t len)
{
	char *d = strdup(path);
	*strrchr(d, '/') = 0;
	mkdirs(d);
	free(d);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	size_t cap = 0, n = 0, r;
	assert_non_null(f);
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			b = realloc(b, cap);
			assert_non_null(b);
		}
		r = fread(b + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return b;
}

static void copy_file(const char *src, const char *dst)
{
	size_t n;
	unsigned char *b = slurp(src, &n);
	write_file(dst, b, n);
	chmod(dst, 0755);
	free(b);
}

static bool same_file_content(const char *a, const char *b)
{
	size_t na, nb;
	unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
	bool same = na == nb && !memcmp(x, y, na);
	free(x);
	free(y);
	return same;
}

/* stdout of a shell command (NUL-terminated), or NULL if it failed. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	char *b = NULL;
	size_t cap = 0, n = 0, r;
	if (!p)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 8192;
			b = realloc(b, cap);
			assert_non_null(b);
		}
		r = fread(b + n, 1, cap - n - 1, p);
		n += r;
	} while (r > 0);
	b[n] = 0;
	int st = pclose(p);
	if (status)
		*status = st;
	return b;
}

static bool have_cmd(const char *name)
{
	char *cmd = pa_asprintf("command -v %s >/dev/null 2>&1", name);
	bool ok = system(cmd) == 0;
	free(cmd);
	return ok;
}

static void fill(unsigned char *b, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (unsigned char)x;
	}
}

static struct pa_buildid id_of(const char *path)
{
	struct pa_buildid id;
	struct pa_err err = {0};
	assert_int_equal(pa_buildid_read_elf(path, &id, &err), 0);
	return id;
}

static struct pa_buildid id_hex(const char *hex)
{
	struct pa_buildid id;
	assert_int_equal(pa_buildid_from_hex(hex, &id), 0);
	return id;
}

/* Count leftover temporaries anywhere under dir. */
static int tmp_count;
static int tmp_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag;
	if (!strncmp(p + ftw->base, ".tmp-", 5))
		tmp_count++;
	return 0;
}
static int count_tmps(const char *dir)
{
	tmp_count = 0;
	nftw(dir, tmp_cb, 16, FTW_PHYS);
	return tmp_count;
}

/* ---- ids ----------------------------------------------------------------- */

static void test_hex_roundtrip(void **state)
{
	(void)state;
	struct pa_buildid id, id2;
	char hex[41];

	for (int len = 1; len <= 20; len++) {
		memset(&id, 0, sizeof(id));
		fill(id.data, (size_t)len, (uint64_t)len);
		id.size = (uint8_t)len;
		pa_buildid_to_hex(&id, hex);
		assert_int_equal(strlen(hex), 2 * (size_t)len);
		assert_int_equal(pa_buildid_from_hex(hex, &id2), 0);
		assert_true(pa_buildid_equal(&id, &id2));
	}
	assert_int_equal(pa_buildid_from_hex("93AC61EC5A8EB1396F9FBD350E3169A558528A40", &id), 0);
	pa_buildid_to_hex(&id, hex);
	assert_string_equal(hex, "93ac61ec5a8eb1396f9fbd350e3169a558528a40");
	assert_int_equal(id.size, 20);

	assert_int_equal(pa_buildid_from_hex("", &id), -EINVAL);
	assert_int_equal(pa_buildid_from_hex("abc", &id), -EINVAL);
	assert_int_equal(pa_buildid_from_hex("zz", &id), -EINVAL);
	assert_int_equal(pa_buildid_from_hex("93ac61ec5a8eb1396f9fbd350e3169a558528a4000", &id),
			 -EINVAL);
	assert_int_equal(pa_buildid_from_hex(NULL, &id), -EINVAL);

	/* Size is part of identity. */
	id = id_hex("abcd");
	id2 = id_hex("abcd00");
	assert_false(pa_buildid_equal(&id, &id2));
	id.size = 0;
	pa_buildid_to_hex(&id, hex);
	assert_string_equal(hex, "");
	assert_false(pa_buildid_is_defined(&id));
	id2 = id_hex("0000");
	assert_false(pa_buildid_is_defined(&id2));
	assert_true(pa_buildid_is_defined(&(struct pa_buildid){.data = {1}, .size = 1}));
}

/* ---- ELF notes ----------------------------------------------------------- */

static void test_read_elf_self_vs_readelf(void **state)
{
	(void)state;
	char exe[PATH_MAX], *cmd, *out, *p, hex[41], want[41] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct pa_buildid id;
	struct pa_err err = {0};
	size_t len;

	assert_true(n > 0);
	exe[n] = 0;
	if (!have_cmd("readelf"))
		skip();
	cmd = pa_asprintf("LC_ALL=C readelf -n '%s'", exe);
	out = run(cmd, NULL);
	free(cmd);
	assert_non_null(out);
	p = strstr(out, "Build ID: ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "Build ID: %40[0-9a-f]", want), 1);
	free(out);

	assert_int_equal(pa_buildid_read_elf(exe, &id, &err), 0);
	pa_buildid_to_hex(&id, hex);
	assert_string_equal(hex, want);

	/* Same from memory, and the fixtures differ from each other. */
	unsigned char *img = slurp(exe, &len);
	struct pa_buildid m;
	assert_int_equal(pa_buildid_read_elf_mem(img, len, &m, &err), 0);
	assert_true(pa_buildid_equal(&m, &id));
	free(img);
	struct pa_buildid a = id_of(PA_TEST_TINY_A), b = id_of(PA_TEST_TINY_B);
	assert_int_equal(a.size, 20);
	assert_false(pa_buildid_equal(&a, &b));

	/* Errors. */
	assert_int_equal(pa_buildid_read_elf("/nonexistent/x", &id, &err), -ENOENT);
	assert_int_equal(pa_buildid_read_elf("/proc/self/status", &id, &err), -PA_ERR_FORMAT);
	assert_int_equal(pa_buildid_read_elf_mem("hello", 5, &id, &err), -PA_ERR_FORMAT);
}

struct elfw {
	unsigned char b[1024];
	size_t n;
	bool be;
};
static void put(struct elfw *w, size_t off, uint64_t v, int sz)
{
	for (int i = 0; i < sz; i++) {
		int shift = w->be ? 8 * (sz - 1 - i) : 8 * i;
		w->b[off + (size_t)i] = (unsigned char)(v >> shift);
	}
	if (off + (size_t)sz > w->n)
		w->n = off + (size_t)sz;
}

/* Two notes (an ABI tag, then the build-id), aligned to align; returns size. */
static size_t put_notes(struct elfw *w, size_t off, size_t align, const struct pa_buildid *id)
{
	size_t o = off;
	put(w, o, 4, 4);
	put(w, o + 4, 16, 4);
	put(w, o + 8, 1, 4); /* NT_GNU_ABI_TAG */
	memcpy(w->b + o + 12, "GNU", 4);
	o += 16 + 16;
	put(w, o, 4, 4);
	put(w, o + 4, id->size, 4);
	put(w, o + 8, 3, 4); /* NT_GNU_BUILD_ID */
	memcpy(w->b + o + 12, "GNU", 4);
	memcpy(w->b + o + 16, id->data, id->size);
	o += 16 + PA_ALIGN_UP((size_t)id->size, align);
	if (o > w->n)
		w->n = o;
	return o - off;
}

/* A minimal ELF: class 32/64, either byte order, the notes reachable only
 * through a PT_NOTE segment or only through a SHT_NOTE section. */
static size_t make_elf(struct elfw *w, bool is64, bool be, bool sections, size_t align,
		       const struct pa_buildid *id)
{
	size_t as = is64 ? 8 : 4, ehsize = is64 ? 64 : 52;
	size_t phsize = is64 ? 56 : 32, shsize = is64 ? 64 : 40;
	size_t notes_off, notes_len;

	memset(w, 0, sizeof(*w));
	w->be = be;
	memcpy(w->b, "\177ELF", 4);
	w->b[4] = is64 ? 2 : 1;
	w->b[5] = be ? 2 : 1;
	w->b[6] = 1;
	put(w, 16, 2, 2);		   /* ET_EXEC */
	put(w, 18, be ? 20 : 62, 2);	   /* EM_PPC / EM_X86_64 */
	put(w, 20, 1, 4);		   /* e_version */
	put(w, 24 + 3 * as, 0, 4);	   /* e_flags */
	put(w, 28 + 3 * as, ehsize, 2);	   /* e_ehsize */
	put(w, 30 + 3 * as, phsize, 2);	   /* e_phentsize */
	put(w, 34 + 3 * as, shsize, 2);	   /* e_shentsize */
	if (!sections) {
		size_t phoff = ehsize;
		notes_off = PA_ALIGN_UP(phoff + phsize, align);
		notes_len = put_notes(w, notes_off, align, id);
		put(w, 24 + as, phoff, (int)as); /* e_phoff */
		put(w, 32 + 3 * as, 1, 2);	 /* e_phnum */
		if (is64) {
			put(w, phoff, 4, 4); /* PT_NOTE */
			put(w, phoff + 4, 4, 4);
			put(w, phoff + 8, notes_off, 8);
			put(w, phoff + 32, notes_len, 8);
			put(w, phoff + 40, notes_len, 8);
			put(w, phoff + 48, align, 8);
		} else {
			put(w, phoff, 4, 4);
			put(w, phoff + 4, notes_off, 4);
			put(w, phoff + 16, notes_len, 4);
			put(w, phoff + 20, notes_len, 4);
			put(w, phoff + 24, 4, 4);
			put(w, phoff + 28, align, 4);
		}
	} else {
		static const char shstr[] = "\0.note.gnu.build-id\0.shstrtab";
		notes_off = PA_ALIGN_UP(ehsize, align);
		notes_len = put_notes(w, notes_off, align, id);
		size_t stroff = notes_off + notes_len;
		memcpy(w->b + stroff, shstr, sizeof(shstr));
		size_t shoff = PA_ALIGN_UP(stroff + sizeof(shstr), 8);
		put(w, 24 + 2 * as, shoff, (int)as); /* e_shoff */
		put(w, 36 + 3 * as, 3, 2);	      /* e_shnum */
		put(w, 38 + 3 * as, 2, 2);	      /* e_shstrndx */
		for (int i = 0; i < 3; i++)
			put(w, shoff + (size_t)i * shsize + shsize - 1, 0, 1);
		size_t s1 = shoff + shsize, s2 = shoff + 2 * shsize;
		put(w, s1, 1, 4); /* name */
		put(w, s1 + 4, 7, 4); /* SHT_NOTE */
		put(w, s1 + 8 + 2 * as, notes_off, (int)as);
		put(w, s1 + 8 + 3 * as, notes_len, (int)as);
		put(w, s1 + 16 + 4 * as, align, (int)as);
		put(w, s2, 20, 4);
		put(w, s2 + 4, 3, 4); /* SHT_STRTAB */
		put(w, s2 + 8 + 2 * as, stroff, (int)as);
		put(w, s2 + 8 + 3 * as, sizeof(shstr), (int)as);
		put(w, s2 + 16 + 4 * as, 1, (int)as);
	}
	return w->n;
}

static void test_read_elf_any_class_byte_order(void **state)
{
	(void)state;
	char *dir = tmpdir_new(), *p = pa_asprintf("%s/synthetic.elf", dir);
	struct pa_buildid want = id_hex("0123456789abcdef0123456789abcdef01234567"), got;
	struct pa_err err = {0};
	struct elfw w;

	for (int is64 = 0; is64 <= 1; is64++)
		for (int be = 0; be <= 1; be++)
			for (int sec = 0; sec <= 1; sec++)
				for (size_t align = 4; align <= 8; align += 4) {
					size_t n = make_elf(&w, is64, be, sec, align, &want);
					memset(&got, 0, sizeof(got));
					assert_int_equal(pa_buildid_read_elf_mem(w.b, n, &got, &err), 0);
					assert_true(pa_buildid_equal(&got, &want));
					write_file(p, w.b, n);
					memset(&got, 0, sizeof(got));
					assert_int_equal(pa_buildid_read_elf(p, &got, &err), 0);
					assert_true(pa_buildid_equal(&got, &want));
				}
	/* A short (MD5-sized) id keeps its size. */
	struct pa_buildid md5 = id_hex("00112233445566778899aabbccddeeff");
	size_t n = make_elf(&w, true, true, false, 4, &md5);
	assert_int_equal(pa_buildid_read_elf_mem(w.b, n, &got, &err), 0);
	assert_int_equal(got.size, 16);
	assert_true(pa_buildid_equal(&got, &md5));
	/* No notes at all: not found, distinct from "not ELF". */
	n = make_elf(&w, true, false, false, 4, &want);
	put(&w, 56, 0, 2); /* e_phnum = 0 */
	assert_int_equal(pa_buildid_read_elf_mem(w.b, n, &got, &err), -PA_ERR_NOT_FOUND);
	free(p);
	rmtree(dir);
}

static void test_sha1_fallback(void **state)
{
	(void)state;
	struct pa_buildid id, sha, a;
	struct pa_err err = {0};
	char hex[41], want[41] = "", *cmd, *out;
	bool fb = false;

	assert_int_equal(pa_buildid_read_elf(PA_TEST_TINY_NOID, &id, &err), -PA_ERR_NOT_FOUND);
	assert_int_equal(pa_buildid_sha1_file(PA_TEST_TINY_NOID, &sha, &err), 0);
	assert_int_equal(sha.size, 20);
	if (have_cmd("sha1sum")) {
		cmd = pa_asprintf("sha1sum '%s'", PA_TEST_TINY_NOID);
		out = run(cmd, NULL);
		assert_int_equal(sscanf(out, "%40[0-9a-f]", want), 1);
		pa_buildid_to_hex(&sha, hex);
		assert_string_equal(hex, want);
		free(cmd);
		free(out);
	}
	assert_int_equal(pa_buildid_identify(PA_TEST_TINY_NOID, &id, &fb, &err), 0);
	assert_true(fb);
	assert_true(pa_buildid_equal(&id, &sha));
	assert_int_equal(pa_buildid_file_matches(PA_TEST_TINY_NOID, &sha, &err), 1);

	a = id_of(PA_TEST_TINY_A);
	assert_int_equal(pa_buildid_identify(PA_TEST_TINY_A, &id, &fb, &err), 0);
	assert_false(fb);
	assert_true(pa_buildid_equal(&id, &a));
	assert_int_equal(pa_buildid_file_matches(PA_TEST_TINY_A, &a, &err), 1);
	assert_int_equal(pa_buildid_file_matches(PA_TEST_TINY_B, &a, &err), 0);
	/* A file with a note is never named by its SHA-1. */
	assert_int_equal(pa_buildid_sha1_file(PA_TEST_TINY_A, &sha, &err), 0);
	assert_int_equal(pa_buildid_file_matches(PA_TEST_TINY_A, &sha, &err), 0);
	assert_int_equal(pa_buildid_file_matches("/nonexistent", &a, &err), -ENOENT);

	/* Memory variant; SHA-1("abc") is the FIPS 180 test vector. */
	assert_int_equal(pa_buildid_sha1_mem("abc", 3, &sha), 0);
	pa_buildid_to_hex(&sha, hex);
	assert_string_equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
}

/* ---- the running kernel -------------------------------------------------- */

static size_t put_native_note(unsigned char *b, const char *name, uint32_t type, const void *desc,
			      uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	size_t o = 0;
	memcpy(b + o, &namesz, 4);
	memcpy(b + o + 4, &descsz, 4);
	memcpy(b + o + 8, &type, 4);
	o += 12;
	memset(b + o, 0, PA_ALIGN_UP(namesz, 4));
	memcpy(b + o, name, namesz);
	o += PA_ALIGN_UP(namesz, 4);
	memset(b + o, 0, PA_ALIGN_UP(descsz, 4));
	memcpy(b + o, desc, descsz);
	return o + PA_ALIGN_UP(descsz, 4);
}

static char *make_notes_file(const char *dir, const struct pa_buildid *id)
{
	unsigned char b[512];
	size_t n = 0;
	uint32_t v = 0x12345;
	char *p = pa_asprintf("%s/notes-%02x", dir, id->data[0]);
	n += put_native_note(b + n, "Xen", 1, &v, 4);
	n += put_native_note(b + n, "Linux", 0x100, "6.1", 4);
	n += put_native_note(b + n, "GNU", 3, id->data, id->size);
	write_file(p, b, n);
	return p;
}

static void test_running_kernel(void **state)
{
	(void)state;
	char *dir = tmpdir_new(), *notes, hex[41], *out;
	struct pa_buildid want = id_hex("abf9ec0ec5946600c90641cf5db998472fac4100"), got;
	struct pa_err err = {0};
	unsigned char b[64];

	notes = make_notes_file(dir, &want);
	assert_int_equal(pa_buildid_running_kernel(notes, &got, &err), 0);
	assert_true(pa_buildid_equal(&got, &want));
	free(notes);
	notes = pa_asprintf("%s/nonote", dir);
	size_t n = put_native_note(b, "Linux", 0x100, "6.1", 4);
	write_file(notes, b, n - 2); /* truncated too */
	assert_int_equal(pa_buildid_running_kernel(notes, &got, &err), -PA_ERR_NOT_FOUND);
	free(notes);

	/* The real one, checked against perf when available. */
	if (pa_buildid_running_kernel(NULL, &got, &err) == 0 && have_cmd("perf")) {
		int st;
		out = run("PERF_CONFIG=/dev/null perf buildid-list -k 2>/dev/null", &st);
		pa_buildid_to_hex(&got, hex);
		if (out && st == 0 && out[0])
			assert_non_null(strstr(out, hex));
		free(out);
	}
	rmtree(dir);
}

/* ---- the cache ----------------------------------------------------------- */

struct seen {
	int n;
	char names[16][256];
	char hex[16][41];
	char paths[16][PATH_MAX];
};
static int seen_cb(void *ctx, const struct pa_buildid *id, const char *dso, const char *path)
{
	struct seen *s = ctx;
	if (s->n < 16) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", dso ? dso : "(null)");
		pa_buildid_to_hex(id, s->hex[s->n]);
		snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", path);
	}
	s->n++;
	return 0;
}
static int stop_cb(void *ctx, const struct pa_buildid *id, const char *dso, const char *path)
{
	(void)id, (void)dso, (void)path;
	++*(int *)ctx;
	return 42;
}

static void test_cache_add_find_remove_purge(void **state)
{
	(void)state;
	char *dir = tmpdir_new(), *cdir = pa_asprintf("%s/cache", dir), *p, *want, hex[41],
	     lnk[PATH_MAX];
	struct pa_err err = {0};
	struct pa_bcache *c = pa_bcache_open(cdir, &err);
	struct pa_buildid a = id_of(PA_TEST_TINY_A), b = id_of(PA_TEST_TINY_B), k;
	static const char ks[] = "ffffffff81000000 T _text\n";
	ssize_t n;

	assert_non_null(c);
	assert_string_equal(pa_bcache_dir(c), cdir);
	pa_buildid_sha1_mem(ks, sizeof(ks) - 1, &k);

	/* Nothing yet. */
	assert_null(pa_bcache_find(c, &a, PA_BCACHE_ELF, &err));
	assert_int_equal(err.code, -PA_ERR_NOT_FOUND);
	struct seen s = {0};
	assert_int_equal(pa_bcache_foreach(c, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 0);

	/* ELF add: perf's layout, relative link, executable mode kept. */
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/opt/app/tiny", &a, PA_BCACHE_ELF,
					    &err),
			 0);
	pa_buildid_to_hex(&a, hex);
	p = pa_bcache_find(c, &a, PA_BCACHE_ELF, &err);
	want = pa_asprintf("%s/opt/app/tiny/%s/elf", cdir, hex);
	assert_non_null(p);
	assert_string_equal(p, want);
	assert_true(same_file_content(p, PA_TEST_TINY_A));
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_mode & 0100);
	free(p);
	free(want);
	p = pa_asprintf("%s/.build-id/%.2s/%s", cdir, hex, hex + 2);
	n = readlink(p, lnk, sizeof(lnk) - 1);
	assert_true(n > 0);
	lnk[n] = 0;
	want = pa_asprintf("../../opt/app/tiny/%s", hex);
	assert_string_equal(lnk, want);
	free(want);
	free(p);
	p = pa_bcache_dso_name(c, &a, &err);
	assert_string_equal(p, "/opt/app/tiny");
	free(p);
	p = pa_bcache_entry_dir(c, &a, &err);
	want = pa_asprintf("%s/opt/app/tiny/%s", cdir, hex);
	assert_string_equal(p, want);
	free(p);
	free(want);
	assert_null(pa_bcache_find(c, &a, PA_BCACHE_DEBUG, &err));
	assert_int_equal(err.code, -PA_ERR_NOT_FOUND);

	/* Debug file next to it; the wrong file is refused and not published. */
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/opt/app/tiny", &a,
					    PA_BCACHE_DEBUG, &err),
			 0);
	p = pa_bcache_find(c, &a, PA_BCACHE_DEBUG, &err);
	assert_non_null(p);
	free(p);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_B, "/opt/app/other", &a, PA_BCACHE_ELF,
					    &err),
			 -PA_ERR_BUILDID_MISMATCH);
	p = pa_asprintf("%s/opt/app/other/%s/elf", cdir, hex);
	assert_int_equal(access(p, F_OK), -1);
	free(p);

	/* Kernel symbols (not validated) and a second id for the same path. */
	assert_int_equal(pa_bcache_add_mem(c, ks, sizeof(ks) - 1, "[kernel.kallsyms]", &k,
					   PA_BCACHE_KALLSYMS, &err),
			 0);
	pa_buildid_to_hex(&k, hex);
	p = pa_bcache_find(c, &k, PA_BCACHE_KALLSYMS, &err);
	want = pa_asprintf("%s/[kernel.kallsyms]/%s/kallsyms", cdir, hex);
	assert_string_equal(p, want);
	free(p);
	free(want);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_B, "/opt/app/tiny", &b, PA_BCACHE_ELF,
					    &err),
			 0);

	/* Listing, sorted by id, with names; a non-zero callback stops. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(pa_bcache_foreach(c, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 3);
	for (int i = 0; i < 3; i++) {
		struct pa_buildid x = id_hex(s.hex[i]);
		if (pa_buildid_equal(&x, &k))
			assert_string_equal(s.names[i], "[kernel.kallsyms]");
		else
			assert_string_equal(s.names[i], "/opt/app/tiny");
		if (i)
			assert_true(strcmp(s.hex[i - 1], s.hex[i]) < 0);
	}
	int calls = 0;
	assert_int_equal(pa_bcache_foreach(c, stop_cb, &calls, &err), 42);
	assert_int_equal(calls, 1);

	/* Remove one id: link first, then its directory. */
	assert_int_equal(pa_bcache_remove(c, &k, &err), 0);
	assert_null(pa_bcache_find(c, &k, PA_BCACHE_KALLSYMS, &err));
	p = pa_asprintf("%s/[kernel.kallsyms]/%s", cdir, hex);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	assert_int_equal(pa_bcache_remove(c, &k, &err), -PA_ERR_NOT_FOUND);

	/* Purge a path: both of its ids go, the rest stays. */
	assert_int_equal(pa_bcache_add_mem(c, ks, sizeof(ks) - 1, "[kernel.kallsyms]", &k,
					   PA_BCACHE_KALLSYMS, &err),
			 0);
	assert_int_equal(pa_bcache_purge(c, "/opt/app/tiny", &err), 2);
	assert_null(pa_bcache_find(c, &a, PA_BCACHE_ELF, &err));
	assert_null(pa_bcache_find(c, &b, PA_BCACHE_ELF, &err));
	p = pa_bcache_find(c, &k, PA_BCACHE_KALLSYMS, &err);
	assert_non_null(p);
	free(p);
	assert_int_equal(pa_bcache_purge(c, "/opt/app/tiny", &err), 0);
	assert_int_equal(pa_bcache_purge(c, "/never/cached", &err), -PA_ERR_NOT_FOUND);

	/* Names that could escape the cache or collide with its index. */
	static const char *const bad[] = {"relative/x", "/a/../b", "/a/./b", "/a//b", "/a/b/",
					  "/.build-id/x", "[a/b]", "[", "", "/"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pa_bcache_add_mem(c, "x", 1, bad[i], &k, PA_BCACHE_KALLSYMS, &err),
				 -EINVAL);
	struct pa_buildid none = {0};
	assert_int_equal(pa_bcache_add_mem(c, "x", 1, "/x", &none, PA_BCACHE_KALLSYMS, &err),
			 -EINVAL);
	assert_int_equal(count_tmps(cdir), 0);

	pa_bcache_close(c);
	pa_bcache_close(NULL);
	free(cdir);
	rmtree(dir);
}

static void test_cache_default_dir(void **state)
{
	(void)state;
	struct pa_err err = {0};
	char *old_env = getenv("PERF_BUILDID_DIR") ? strdup(getenv("PERF_BUILDID_DIR")) : NULL;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct pa_bcache *c;

	setenv("PERF_BUILDID_DIR", "/tmp/pa-env-cache//", 1);
	c = pa_bcache_open(NULL, &err);
	assert_string_equal(pa_bcache_dir(c), "/tmp/pa-env-cache");
	pa_bcache_close(c);
	unsetenv("PERF_BUILDID_DIR");
	setenv("HOME", "/home/someone", 1);
	c = pa_bcache_open(NULL, &err);
	assert_string_equal(pa_bcache_dir(c), "/home/someone/.debug");
	pa_bcache_close(c);
	unsetenv("HOME");
	assert_null(pa_bcache_open(NULL, &err));
	assert_int_equal(err.code, -PA_ERR_USAGE);

	if (old_env)
		setenv("PERF_BUILDID_DIR", old_env, 1);
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_env);
	free(old_home);
}

/* Feed data through a FIFO from a child, as a non-seekable source. */
static pid_t fifo_writer(const char *fifo, const void *data, size_t len)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		const char *p = data;
		while (fd >= 0 && len) {
			ssize_t w = write(fd, p, len);
			if (w <= 0)
				break;
			p += w;
			len -= (size_t)w;
		}
		_exit(0);
	}
	return pid;
}

static void test_cache_conflict(void **state)
{
	(void)state;
	char *dir = tmpdir_new(), *cdir = pa_asprintf("%s/cache", dir), *p, hex[41];
	struct pa_err err = {0};
	struct pa_bcache *c = pa_bcache_open(cdir, &err);
	unsigned char x[70000], y[70000];
	struct pa_buildid id;
	size_t n;

	fill(x, sizeof(x), 1);
	memcpy(y, x, sizeof(y));
	y[sizeof(y) - 1] ^= 1; /* differs in the very last byte */
	pa_buildid_sha1_mem(x, sizeof(x), &id);
	pa_buildid_to_hex(&id, hex);

	assert_int_equal(pa_bcache_add_mem(c, x, sizeof(x), "[kernel.kallsyms]", &id,
					   PA_BCACHE_KALLSYMS, &err),
			 0);
	assert_int_equal(pa_bcache_add_mem(c, x, sizeof(x), "[kernel.kallsyms]", &id,
					   PA_BCACHE_KALLSYMS, &err),
			 0);
	assert_int_equal(pa_bcache_add_mem(c, y, sizeof(y), "[kernel.kallsyms]", &id,
					   PA_BCACHE_KALLSYMS, &err),
			 -PA_ERR_BUILDID_MISMATCH);
	assert_non_null(strstr(err.msg, "different content"));
	assert_int_equal(pa_bcache_add_mem(c, y, 100, "[kernel.kallsyms]", &id, PA_BCACHE_KALLSYMS,
					   &err),
			 -PA_ERR_BUILDID_MISMATCH);

	/* Same through a FIFO (copied to a temporary first, then compared). */
	char *fifo = pa_asprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid_t w = fifo_writer(fifo, y, sizeof(y));
	assert_int_equal(pa_bcache_add_file(c, fifo, "[kernel.kallsyms]", &id, PA_BCACHE_KALLSYMS,
					    &err),
			 -PA_ERR_BUILDID_MISMATCH);
	waitpid(w, NULL, 0);
	w = fifo_writer(fifo, x, sizeof(x));
	assert_int_equal(pa_bcache_add_file(c, fifo, "[kernel.kallsyms]", &id, PA_BCACHE_KALLSYMS,
					    &err),
			 0);
	waitpid(w, NULL, 0);

	p = pa_bcache_find(c, &id, PA_BCACHE_KALLSYMS, &err);
	unsigned char *got = slurp(p, &n);
	assert_int_equal(n, sizeof(x));
	assert_memory_equal(got, x, n);
	free(got);
	free(p);
	assert_int_equal(count_tmps(cdir), 0);

	/* The same id under a second name: stored, link kept (perf's rule). */
	struct pa_buildid a = id_of(PA_TEST_TINY_A);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/lib/tiny", &a, PA_BCACHE_ELF, &err),
			 0);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/usr/lib/tiny", &a,
					    PA_BCACHE_ELF, &err),
			 0);
	p = pa_bcache_dso_name(c, &a, &err);
	assert_string_equal(p, "/lib/tiny");
	free(p);
	pa_buildid_to_hex(&a, hex);
	p = pa_asprintf("%s/usr/lib/tiny/%s/elf", cdir, hex);
	assert_true(same_file_content(p, PA_TEST_TINY_A));
	free(p);

	/* A dangling link is replaced. */
	assert_int_equal(pa_bcache_remove(c, &a, &err), 0);
	p = pa_asprintf("%s/.build-id/%.2s/%s", cdir, hex, hex + 2);
	assert_int_equal(symlink("../../gone/away/x", p), 0);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/usr/lib/tiny", &a,
					    PA_BCACHE_ELF, &err),
			 0);
	free(p);
	p = pa_bcache_dso_name(c, &a, &err);
	assert_string_equal(p, "/usr/lib/tiny");
	free(p);

	pa_bcache_close(c);
	free(fifo);
	free(cdir);
	rmtree(dir);
}

#define NCHILD 8
#define BIG (1u << 20)

static void test_cache_concurrent(void **state)
{
	(void)state;
	char *dir = tmpdir_new(), *cdir = pa_asprintf("%s/cache", dir);
	unsigned char *shared = malloc(BIG), *cx = malloc(BIG), *cy = malloc(BIG);
	struct pa_buildid sid, cid, aid = id_of(PA_TEST_TINY_A), uid[NCHILD];
	pid_t pids[NCHILD];
	int go[2];

	fill(shared, BIG, 11);
	fill(cx, BIG, 12);
	memcpy(cy, cx, BIG);
	cy[BIG / 2] ^= 0xff;
	pa_buildid_sha1_mem(shared, BIG, &sid);
	pa_buildid_sha1_mem(cx, BIG, &cid);
	for (int i = 0; i < NCHILD; i++) {
		unsigned char u[4096];
		fill(u, sizeof(u), 100 + (uint64_t)i);
		pa_buildid_sha1_mem(u, sizeof(u), &uid[i]);
	}

	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < NCHILD; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct pa_bcache *c;
			unsigned char u[4096], dummy;
			int status = 0, r;
			char uname[64];

			close(go[1]);
			(void)!read(go[0], &dummy, 1); /* start together */
			c = pa_bcache_open(cdir, NULL);
			fill(u, sizeof(u), 100 + (uint64_t)i);
			snprintf(uname, sizeof(uname), "/opt/unique/lib%d.so", i);
			for (int round = 0; round < 3; round++) {
				if (pa_bcache_add_mem(c, shared, BIG, "[kernel.kallsyms]", &sid,
						      PA_BCACHE_KALLSYMS, NULL))
					status |= 0x80;
				if (pa_bcache_add_mem(c, u, sizeof(u), uname, &uid[i],
						      PA_BCACHE_KALLSYMS, NULL))
					status |= 0x80;
				if (pa_bcache_add_file(c, PA_TEST_TINY_A, "/opt/app/tiny", &aid,
						       PA_BCACHE_ELF, NULL))
					status |= 0x80;
				r = pa_bcache_add_mem(c, (i & 1) ? cy : cx, BIG, "/opt/conflict",
						      &cid, PA_BCACHE_KALLSYMS, NULL);
				status |= r == 0 ? 1 : r == -PA_ERR_BUILDID_MISMATCH ? 2 : 0x80;
			}
			pa_bcache_close(c);
			_exit(status);
		}
	}
	close(go[0]);
	close(go[1]);

	int ok_x = 0, ok_y = 0, status[NCHILD];
	for (int i = 0; i < NCHILD; i++) {
		int st;
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st));
		status[i] = WEXITSTATUS(st);
		assert_int_equal(status[i] & 0x80, 0);
		assert_true(status[i] == 1 || status[i] == 2); /* never both */
	}

	struct pa_err err = {0};
	struct pa_bcache *c = pa_bcache_open(cdir, &err);
	size_t n;
	char *p = pa_bcache_find(c, &sid, PA_BCACHE_KALLSYMS, &err);
	unsigned char *got = slurp(p, &n);
	assert_int_equal(n, BIG);
	assert_memory_equal(got, shared, BIG);
	free(got);
	free(p);

	/* The conflicting id holds exactly one of the two, whole; the children
	 * whose content won got 0, the others a mismatch. */
	p = pa_bcache_find(c, &cid, PA_BCACHE_KALLSYMS, &err);
	got = slurp(p, &n);
	assert_int_equal(n, BIG);
	bool is_x = !memcmp(got, cx, BIG), is_y = !memcmp(got, cy, BIG);
	assert_true(is_x != is_y);
	for (int i = 0; i < NCHILD; i++) {
		bool mine = (i & 1) ? is_y : is_x;
		assert_int_equal(status[i], mine ? 1 : 2);
		if (mine)
			ok_x++;
		else
			ok_y++;
	}
	assert_true(ok_x > 0 && ok_y > 0);
	free(got);
	free(p);

	p = pa_bcache_find(c, &aid, PA_BCACHE_ELF, &err);
	assert_true(same_file_content(p, PA_TEST_TINY_A));
	free(p);
	for (int i = 0; i < NCHILD; i++) {
		unsigned char u[4096];
		fill(u, sizeof(u), 100 + (uint64_t)i);
		p = pa_bcache_find(c, &uid[i], PA_BCACHE_KALLSYMS, &err);
		assert_non_null(p);
		got = slurp(p, &n);
		assert_int_equal(n, sizeof(u));
		assert_memory_equal(got, u, n);
		free(got);
		free(p);
	}

	/* Every link resolves to a directory; nothing temporary is left. */
	struct seen s = {0};
	assert_int_equal(pa_bcache_foreach(c, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, NCHILD + 3);
	for (int i = 0; i < s.n && i < 16; i++) {
		struct stat st;
		assert_int_equal(stat(s.paths[i], &st), 0);
		assert_true(S_ISDIR(st.st_mode));
	}
	char *cmd = pa_asprintf("find '%s/.build-id' -type l | wc -l", cdir);
	char *out = run(cmd, NULL);
	assert_int_equal(atoi(out), NCHILD + 3);
	free(out);
	free(cmd);
	cmd = pa_asprintf("find -L '%s/.build-id' -type l | wc -l", cdir); /* dangling ones */
	out = run(cmd, NULL);
	assert_int_equal(atoi(out), 0);
	free(out);
	free(cmd);
	assert_int_equal(count_tmps(cdir), 0);

	pa_bcache_close(c);
	free(shared);
	free(cx);
	free(cy);
	free(cdir);
	rmtree(dir);
}

static bool find_tmp_with_data(const char *entry, off_t min)
{
	char *cmd =
	    pa_asprintf("find '%s' -name '.tmp-*' -size +%lldc 2>/dev/null", entry, (long long)min);
	char *out = run(cmd, NULL);
	bool found = out && out[0];
	free(out);
	free(cmd);
	return found;
}

static void test_cache_crash_mid_add(void **state)
{
	(void)state;
	char *dir = tmpdir_new(), *cdir = pa_asprintf("%s/cache", dir), *fifo, *entry, *final, *lp;
	char hex[41];
	unsigned char *data = malloc(BIG);
	struct pa_buildid id;
	struct pa_err err = {0};
	int st;

	fill(data, BIG, 7);
	pa_buildid_sha1_mem(data, BIG, &id);
	pa_buildid_to_hex(&id, hex);
	fifo = pa_asprintf("%s/src.fifo", dir);
	entry = pa_asprintf("%s/opt/crash/x/%s", cdir, hex);
	final = pa_asprintf("%s/kallsyms", entry);
	lp = pa_asprintf("%s/.build-id/%.2s/%s", cdir, hex, hex + 2);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pa_bcache *c = pa_bcache_open(cdir, NULL);
		pa_bcache_add_file(c, fifo, "/opt/crash/x", &id, PA_BCACHE_KALLSYMS, NULL);
		_exit(0); /* not reached: killed while blocked reading the FIFO */
	}
	int fd = open(fifo, O_WRONLY);
	assert_true(fd >= 0);
	size_t half = BIG / 2;
	for (size_t off = 0; off < half;) {
		ssize_t w = write(fd, data + off, half - off);
		assert_true(w > 0);
		off += (size_t)w;
	}
	/* Wait until the child has written most of it to its temporary. */
	for (int i = 0; i < 500 && !find_tmp_with_data(entry, (off_t)(half - 131072)); i++)
		usleep(10000);
	assert_true(find_tmp_with_data(entry, (off_t)(half - 131072)));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	close(fd);

	/* Nothing under a final name; the cache does not see the entry. */
	assert_int_equal(access(final, F_OK), -1);
	struct stat lst;
	assert_int_equal(lstat(lp, &lst), -1);
	struct pa_bcache *c = pa_bcache_open(cdir, &err);
	assert_null(pa_bcache_find(c, &id, PA_BCACHE_KALLSYMS, &err));
	assert_int_equal(err.code, -PA_ERR_NOT_FOUND);
	struct seen s = {0};
	assert_int_equal(pa_bcache_foreach(c, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(count_tmps(cdir), 1); /* the partial temporary, ignored */

	/* A later add completes normally despite the leftover. */
	assert_int_equal(pa_bcache_add_mem(c, data, BIG, "/opt/crash/x", &id, PA_BCACHE_KALLSYMS,
					   &err),
			 0);
	char *p = pa_bcache_find(c, &id, PA_BCACHE_KALLSYMS, &err);
	assert_string_equal(p, final);
	size_t n;
	unsigned char *got = slurp(p, &n);
	assert_int_equal(n, BIG);
	assert_memory_equal(got, data, BIG);
	free(got);
	free(p);
	/* Purge takes the leftover with the entry. */
	assert_int_equal(pa_bcache_purge(c, "/opt/crash/x", &err), 1);
	assert_int_equal(count_tmps(cdir), 0);

	pa_bcache_close(c);
	free(data);
	free(fifo);
	free(entry);
	free(final);
	free(lp);
	free(cdir);
	rmtree(dir);
}

/* ---- finders ------------------------------------------------------------- */

struct fx {
	char *dir, *cache, *symfs_good, *symfs_bad, *sysdebug, *orig;
	struct pa_buildid a, b;
};

static void fx_init(struct fx *x)
{
	x->dir = tmpdir_new();
	x->cache = pa_asprintf("%s/cache", x->dir);
	x->symfs_good = pa_asprintf("%s/symfs-good", x->dir);
	x->symfs_bad = pa_asprintf("%s/symfs-bad", x->dir);
	x->sysdebug = pa_asprintf("%s/sysdebug", x->dir);
	x->orig = pa_asprintf("%s/orig/opt/app/tiny", x->dir);
	x->a = id_of(PA_TEST_TINY_A);
	x->b = id_of(PA_TEST_TINY_B);
	mkdirs(x->sysdebug);
	/* Two different builds at the same original path in two roots. */
	char *p = pa_asprintf("%s%s", x->symfs_good, x->orig);
	copy_file(PA_TEST_TINY_A, p);
	free(p);
	p = pa_asprintf("%s%s", x->symfs_bad, x->orig);
	copy_file(PA_TEST_TINY_B, p);
	free(p);
}

static void fx_free(struct fx *x)
{
	free(x->cache);
	free(x->symfs_good);
	free(x->symfs_bad);
	free(x->sysdebug);
	free(x->orig);
	rmtree(x->dir);
}

static struct pa_finder *finder(struct fx *x, const char *symfs)
{
	struct pa_err err = {0};
	struct pa_finder_opts o = PA_FINDER_OPTS(.symfs = symfs, .buildid_dir = x->cache,
						 .no_debuginfod = true,
						 .system_debug_dir = x->sysdebug);
	struct pa_finder *f = pa_finder_new(&o, &err);
	assert_non_null(f);
	return f;
}

#define EXPECT_FIND(f, path, id, res, org)                                                         \
	do {                                                                                       \
		char *p_ = NULL;                                                                   \
		const char *o_ = NULL;                                                             \
		assert_int_equal(pa_finder_find_elf(f, path, id, &p_, &o_), res);                  \
		if ((res) == PA_FIND_OK) {                                                         \
			assert_string_equal(o_, org);                                              \
			assert_int_equal(pa_buildid_file_matches(p_, id, NULL), 1);                \
		} else {                                                                           \
			assert_null(p_);                                                           \
		}                                                                                  \
		free(p_);                                                                          \
	} while (0)

static void test_finder_chain(void **state)
{
	(void)state;
	struct fx x;
	struct pa_finder *f;
	struct pa_err err = {0};
	char hex[41], *p;

	fx_init(&x);
	pa_buildid_to_hex(&x.a, hex);

	/* Nothing anywhere. */
	f = finder(&x, NULL);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_NOT_FOUND, NULL);
	pa_finder_free(f);

	/* symfs with the right build: found there. */
	f = finder(&x, x.symfs_good);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_OK, "symfs");
	/* ...asking for the other build: it exists but does not match. */
	EXPECT_FIND(f, x.orig, &x.b, PA_FIND_MISMATCH, NULL);
	pa_finder_free(f);

	/* symfs has the wrong build, the original path too: mismatch, never
	 * silently the wrong binary. */
	copy_file(PA_TEST_TINY_B, x.orig);
	f = finder(&x, x.symfs_bad);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_MISMATCH, NULL);
	/* The original path is used when it matches. */
	EXPECT_FIND(f, x.orig, &x.b, PA_FIND_OK, "symfs");
	pa_finder_free(f);
	f = finder(&x, NULL);
	EXPECT_FIND(f, x.orig, &x.b, PA_FIND_OK, "path");

	/* The original path has the other build: the system debug dir has
	 * this one... */
	p = pa_asprintf("%s/.build-id/%.2s/%s.debug", x.sysdebug, hex, hex + 2);
	copy_file(PA_TEST_TINY_A, p);
	free(p);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_OK, "system-debug");
	/* ...but a matching original file comes first (a .debug file has the
	 * symbols, not the code)... */
	copy_file(PA_TEST_TINY_A, x.orig);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_OK, "path");
	copy_file(PA_TEST_TINY_B, x.orig);
	pa_finder_free(f);

	/* ...the cache before it (debug after elf)... */
	struct pa_bcache *c = pa_bcache_open(x.cache, &err);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/opt/app/tiny", &x.a,
					    PA_BCACHE_DEBUG, &err),
			 0);
	f = finder(&x, x.symfs_bad);
	char *got = NULL;
	const char *origin = NULL;
	assert_int_equal(pa_finder_find_elf(f, x.orig, &x.a, &got, &origin), PA_FIND_OK);
	assert_string_equal(origin, "cache");
	assert_non_null(strstr(got, "/debug"));
	free(got);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, "/opt/app/tiny", &x.a,
					    PA_BCACHE_ELF, &err),
			 0);
	assert_int_equal(pa_finder_find_elf(f, x.orig, &x.a, &got, &origin), PA_FIND_OK);
	assert_string_equal(origin, "cache");
	assert_non_null(strstr(got, "/elf"));
	free(got);
	pa_finder_free(f);
	/* ...and symfs before everything. */
	f = finder(&x, x.symfs_good);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_OK, "symfs");
	pa_finder_free(f);

	/* A corrupted cache entry does not stop the chain. */
	p = pa_bcache_find(c, &x.a, PA_BCACHE_ELF, &err);
	copy_file(PA_TEST_TINY_B, p);
	free(p);
	p = pa_bcache_find(c, &x.a, PA_BCACHE_DEBUG, &err);
	unlink(p);
	free(p);
	f = finder(&x, NULL);
	EXPECT_FIND(f, x.orig, &x.a, PA_FIND_OK, "system-debug");

	/* Separate debug info. */
	assert_int_equal(pa_finder_find_debug(f, &x.a, &got), PA_FIND_OK);
	assert_non_null(strstr(got, x.sysdebug));
	free(got);
	assert_int_equal(pa_finder_find_debug(f, &x.b, &got), PA_FIND_NOT_FOUND);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_B, "/opt/app/tiny", &x.b,
					    PA_BCACHE_DEBUG, &err),
			 0);
	assert_int_equal(pa_finder_find_debug(f, &x.b, &got), PA_FIND_OK);
	assert_non_null(strstr(got, x.cache));
	free(got);
	pa_buildid_to_hex(&x.b, hex);
	p = pa_asprintf("%s/.build-id/%.2s/%s.debug", x.sysdebug, hex, hex + 2);
	copy_file(PA_TEST_TINY_A, p); /* wrong file under b's name */
	free(p);
	pa_bcache_remove(c, &x.b, &err);
	assert_int_equal(pa_finder_find_debug(f, &x.b, &got), PA_FIND_MISMATCH);

	/* Deleted mappings: found by id if possible (even at the old path when
	 * the file there has the same id), else DELETED, not MISMATCH. */
	char *del = pa_asprintf("%s (deleted)", x.orig);
	struct pa_buildid gone = id_hex("4444444444444444444444444444444444444444");
	EXPECT_FIND(f, del, &x.a, PA_FIND_OK, "system-debug");
	EXPECT_FIND(f, del, &x.b, PA_FIND_OK, "path");
	EXPECT_FIND(f, del, &gone, PA_FIND_DELETED, NULL);
	EXPECT_FIND(f, x.orig, &gone, PA_FIND_MISMATCH, NULL);
	free(del);

	/* No build-id: unverified path only. */
	EXPECT_FIND(f, "/nonexistent/bin", NULL, PA_FIND_NOT_FOUND, NULL);
	assert_int_equal(pa_finder_find_elf(f, x.orig, NULL, &got, &origin), PA_FIND_OK);
	assert_string_equal(origin, "path-unverified");
	free(got);
	/* ...unless the cache holds the file's own build (perf reads it from
	 * the file and looks there first) */
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_B, x.orig, &x.b, PA_BCACHE_ELF, &err),
	                 0);
	assert_int_equal(pa_finder_find_elf(f, x.orig, NULL, &got, &origin), PA_FIND_OK);
	assert_string_equal(origin, "cache");
	assert_non_null(strstr(got, x.cache));
	free(got);
	pa_bcache_remove(c, &x.b, &err);

	/* Bracketed names are not files: only id-keyed candidates apply.  The
	 * system debug dir still holds a wrong file under b's id. */
	EXPECT_FIND(f, "[vdso]", &x.b, PA_FIND_MISMATCH, NULL);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_B, "[vdso]", &x.b, PA_BCACHE_VDSO, &err),
			 0);
	EXPECT_FIND(f, "[vdso]", &x.b, PA_FIND_OK, "cache");
	EXPECT_FIND(f, "[kernel.kallsyms]", &x.a, PA_FIND_OK, "system-debug"); /* a vmlinux */
	EXPECT_FIND(f, "[heap]", NULL, PA_FIND_NOT_FOUND, NULL);
	EXPECT_FIND(f, "[heap]", &gone, PA_FIND_NOT_FOUND, NULL);
	pa_finder_free(f);
	pa_bcache_close(c);

	/* Options: NULL is fine, unknown non-zero tail is refused. */
	f = pa_finder_new(NULL, &err);
	assert_non_null(f);
	assert_non_null(pa_finder_cache(f));
	pa_finder_free(f);
	pa_finder_free(NULL);
	struct {
		struct pa_finder_opts o;
		uint64_t future;
	} big = {.o = {.sz = sizeof(big)}, .future = 1};
	assert_null(pa_finder_new(&big.o, &err));
	assert_int_equal(err.code, -EINVAL);
	big.future = 0;
	f = pa_finder_new(&big.o, &err);
	assert_non_null(f);
	pa_finder_free(f);
	assert_string_equal(pa_find_result_str(PA_FIND_MISMATCH), "build-id mismatch");

	fx_free(&x);
}

static void test_finder_kallsyms(void **state)
{
	(void)state;
	struct fx x;
	struct pa_err err = {0};
	struct pa_buildid here = id_hex("1111111111111111111111111111111111111111");
	struct pa_buildid foreign = id_hex("2222222222222222222222222222222222222222");
	char *notes, *kall, *got = NULL, hex[41];

	fx_init(&x);
	notes = make_notes_file(x.dir, &here);
	kall = pa_asprintf("%s/proc-kallsyms", x.dir);
	write_file(kall, "0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\n", 62);
	struct pa_finder_opts o = PA_FINDER_OPTS(.buildid_dir = x.cache, .no_debuginfod = true,
						 .kernel_notes = notes, .proc_kallsyms = kall);
	struct pa_finder *f = pa_finder_new(&o, &err);
	assert_non_null(f);

	/* The local kernel's symbols only for the local kernel's id. */
	assert_int_equal(pa_finder_find_kallsyms(f, &here, &got), PA_FIND_OK);
	assert_string_equal(got, kall);
	free(got);
	assert_int_equal(pa_finder_find_kallsyms(f, &foreign, &got), PA_FIND_MISMATCH);
	assert_null(got);

	/* A cached copy serves the foreign recording. */
	assert_int_equal(pa_bcache_add_mem(pa_finder_cache(f), "x T y\n", 6, "[kernel.kallsyms]",
					   &foreign, PA_BCACHE_KALLSYMS, &err),
			 0);
	assert_int_equal(pa_finder_find_kallsyms(f, &foreign, &got), PA_FIND_OK);
	assert_non_null(strstr(got, x.cache));
	free(got);

	/* perf's old layout: DIR/[kernel.kallsyms]/<hex> is the file. */
	struct pa_buildid old = id_hex("3333333333333333333333333333333333333333");
	pa_buildid_to_hex(&old, hex);
	char *p = pa_asprintf("%s/[kernel.kallsyms]/%s", x.cache, hex);
	write_file(p, "x T y\n", 6);
	assert_int_equal(pa_finder_find_kallsyms(f, &old, &got), PA_FIND_OK);
	assert_string_equal(got, p);
	free(got);
	free(p);
	pa_finder_free(f);

	/* Addresses hidden (kptr_restrict): the local file is useless. */
	write_file(kall, "0000000000000000 T _text\n", 25);
	f = pa_finder_new(&o, &err);
	assert_int_equal(pa_finder_find_kallsyms(f, &here, &got), PA_FIND_NOT_FOUND);
	pa_finder_free(f);

	/* Unreadable notes: never guess. */
	o.kernel_notes = "/nonexistent/notes";
	f = pa_finder_new(&o, &err);
	assert_int_equal(pa_finder_find_kallsyms(f, &here, &got), PA_FIND_NOT_FOUND);
	pa_finder_free(f);

	/* The real running kernel. */
	struct pa_buildid run_id;
	if (pa_buildid_running_kernel(NULL, &run_id, &err) == 0 &&
	    access("/proc/kallsyms", R_OK) == 0) {
		struct pa_finder_opts d = PA_FINDER_OPTS(.buildid_dir = x.cache,
							 .no_debuginfod = true);
		f = pa_finder_new(&d, &err);
		assert_int_equal(pa_finder_find_kallsyms(f, &run_id, &got), PA_FIND_OK);
		assert_string_equal(got, "/proc/kallsyms");
		free(got);
		pa_finder_free(f);
	}
	free(notes);
	free(kall);
	fx_free(&x);
}

#ifdef PA_HAVE_DEBUGINFOD
/* A one-file debuginfod: GET /buildid/<hex>/executable -> the file, else 404. */
static pid_t fake_debuginfod(const char *hex, const char *file, int *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	size_t len;
	unsigned char *data = slurp(file, &len);

	assert_true(s >= 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s, 16), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char want[128];
		snprintf(want, sizeof(want), "GET /buildid/%s/executable ", hex);
		for (;;) {
			int c = accept(s, NULL, NULL);
			char req[8192];
			size_t n = 0;
			if (c < 0)
				continue;
			while (n < sizeof(req) - 1) {
				ssize_t r = read(c, req + n, sizeof(req) - 1 - n);
				if (r <= 0)
					break;
				n += (size_t)r;
				req[n] = 0;
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			req[n] = 0;
			char hdr[256];
			if (!strncmp(req, want, strlen(want))) {
				int h = snprintf(hdr, sizeof(hdr),
						 "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
						 "Content-Type: application/octet-stream\r\n"
						 "Connection: close\r\n\r\n",
						 len);
				(void)!write(c, hdr, (size_t)h);
				for (size_t off = 0; off < len;) {
					ssize_t w = write(c, data + off, len - off);
					if (w <= 0)
						break;
					off += (size_t)w;
				}
			} else {
				static const char nf[] = "HTTP/1.1 404 Not Found\r\nContent-Length: "
							 "0\r\nConnection: close\r\n\r\n";
				(void)!write(c, nf, sizeof(nf) - 1);
			}
			close(c);
		}
	}
	close(s);
	free(data);
	return pid;
}
#endif

static void test_finder_debuginfod(void **state)
{
	(void)state;
#ifndef PA_HAVE_DEBUGINFOD
	skip();
#else
	struct fx x;
	struct pa_err err = {0};
	char hex[41], *url, *dcache, *got = NULL;
	const char *origin = NULL;
	int port = 0;

	fx_init(&x);
	pa_buildid_to_hex(&x.a, hex);
	pid_t srv = fake_debuginfod(hex, PA_TEST_TINY_A, &port);
	url = pa_asprintf("http://127.0.0.1:%d", port);
	dcache = pa_asprintf("%s/debuginfod-cache", x.dir);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", dcache, 1);
	setenv("DEBUGINFOD_TIMEOUT", "5", 1);
	setenv("no_proxy", "*", 1);
	unsetenv("DEBUGINFOD_PROGRESS");
	unsetenv("DEBUGINFOD_VERBOSE");

	/* Disabled by option. */
	struct pa_finder *f = finder(&x, NULL);
	EXPECT_FIND(f, "/nowhere/tiny", &x.a, PA_FIND_NOT_FOUND, NULL);
	pa_finder_free(f);

	struct pa_finder_opts o = PA_FINDER_OPTS(.buildid_dir = x.cache,
						 .system_debug_dir = x.sysdebug);
	f = pa_finder_new(&o, &err);
	assert_non_null(f);
	assert_int_equal(pa_finder_find_elf(f, "/nowhere/tiny", &x.a, &got, &origin), PA_FIND_OK);
	assert_string_equal(origin, "debuginfod");
	assert_true(same_file_content(got, PA_TEST_TINY_A));
	assert_non_null(strstr(got, x.cache)); /* downloaded, then cached */
	free(got);
	/* Second time from the cache. */
	assert_int_equal(pa_finder_find_elf(f, "/nowhere/tiny", &x.a, &got, &origin), PA_FIND_OK);
	assert_string_equal(origin, "cache");
	free(got);
	char *name = pa_bcache_dso_name(pa_finder_cache(f), &x.a, &err);
	assert_string_equal(name, "/nowhere/tiny");
	free(name);
	/* Unknown to the server. */
	EXPECT_FIND(f, "/nowhere/tiny", &x.b, PA_FIND_NOT_FOUND, NULL);
	pa_finder_free(f);

	unsetenv("DEBUGINFOD_URLS");
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	free(url);
	free(dcache);
	fx_free(&x);
#endif
}

/* ---- interoperability with real perf ------------------------------------- */

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static void test_interop_perf(void **state)
{
	(void)state;
	struct pa_err err = {0};
	char *dir, *t1, *t2, *t3, *cmd, *out, hex[41], line[512], *p;
	struct pa_buildid a = id_of(PA_TEST_TINY_A), libc_id = {0}, kid, k;
	bool have_libc = access(LIBC, R_OK) == 0 && pa_buildid_read_elf(LIBC, &libc_id, &err) == 0;
	const char *name = have_libc ? LIBC : PA_TEST_TINY_B;
	struct pa_bcache *c;
	struct seen s = {0};
	int st;

	if (!have_cmd("perf"))
		skip();
	if (!have_libc)
		libc_id = id_of(PA_TEST_TINY_B);
	dir = tmpdir_new();
	t1 = pa_asprintf("%s/pa-made", dir);
	t2 = pa_asprintf("%s/perf-made", dir);
	t3 = pa_asprintf("%s/perf-record", dir);

	/* pa writes, perf reads. */
	c = pa_bcache_open(t1, &err);
	assert_int_equal(pa_bcache_add_file(c, PA_TEST_TINY_A, PA_TEST_TINY_A, &a, PA_BCACHE_ELF,
					    &err),
			 0);
	assert_int_equal(pa_bcache_add_file(c, name, name, &libc_id, PA_BCACHE_ELF, &err), 0);
	/* perf --list only shows entries valid on this system (a kernel entry
	 * must carry the running kernel's id), so cache the real kallsyms: a
	 * procfs file whose st_size is 0, read to EOF. */
	bool have_kernel = pa_buildid_running_kernel(NULL, &k, &err) == 0 &&
			   access("/proc/kallsyms", R_OK) == 0;
	if (have_kernel)
		assert_int_equal(pa_bcache_add_file(c, "/proc/kallsyms", "[kernel.kallsyms]", &k,
						    PA_BCACHE_KALLSYMS, &err),
				 0);
	cmd = pa_asprintf("PERF_CONFIG=/dev/null perf --buildid-dir '%s' buildid-cache --list 2>&1",
	                  t1);
	out = run(cmd, &st);
	free(cmd);
	assert_int_equal(st, 0);
	pa_buildid_to_hex(&a, hex);
	snprintf(line, sizeof(line), "%s %s\n", hex, PA_TEST_TINY_A);
	assert_non_null(strstr(out, line));
	pa_buildid_to_hex(&libc_id, hex);
	snprintf(line, sizeof(line), "%s %s\n", hex, name);
	assert_non_null(strstr(out, line));
	if (have_kernel) {
		pa_buildid_to_hex(&k, hex);
		snprintf(line, sizeof(line), "%s [kernel.kallsyms]\n", hex);
		assert_non_null(strstr(out, line));
	}
	free(out);
	/* perf reads the build-id of the file pa cached. */
	p = pa_bcache_find(c, &a, PA_BCACHE_ELF, &err);
	cmd = pa_asprintf("PERF_CONFIG=/dev/null perf buildid-list -i '%s' 2>&1", p);
	out = run(cmd, &st);
	pa_buildid_to_hex(&a, hex);
	assert_non_null(strstr(out, hex));
	free(out);
	free(cmd);
	free(p);
	/* perf removes and purges pa's entries. */
	cmd =
	    pa_asprintf("PERF_CONFIG=/dev/null perf --buildid-dir '%s' buildid-cache --remove '%s' "
	                "2>&1",
	                t1, PA_TEST_TINY_A);
	out = run(cmd, &st);
	assert_int_equal(st, 0);
	free(out);
	free(cmd);
	assert_null(pa_bcache_find(c, &a, PA_BCACHE_ELF, &err));
	assert_int_equal(err.code, -PA_ERR_NOT_FOUND);
	cmd =
	    pa_asprintf("PERF_CONFIG=/dev/null perf --buildid-dir '%s' buildid-cache --purge '%s' "
	                "2>&1",
	                t1, name);
	out = run(cmd, &st);
	assert_int_equal(st, 0);
	free(out);
	free(cmd);
	assert_null(pa_bcache_find(c, &libc_id, PA_BCACHE_ELF, &err));
	pa_bcache_close(c);

	/* perf writes, pa reads. */
	cmd = pa_asprintf("PERF_CONFIG=/dev/null perf --buildid-dir '%s' buildid-cache --add '%s' "
	                  "2>&1",
	                  t2, name);
	out = run(cmd, &st);
	assert_int_equal(st, 0);
	free(out);
	free(cmd);
	c = pa_bcache_open(t2, &err);
	p = pa_bcache_find(c, &libc_id, PA_BCACHE_ELF, &err);
	assert_non_null(p);
	assert_true(same_file_content(p, name));
	free(p);
	/* perf also caches the separate debug file when the system has one. */
	pa_buildid_to_hex(&libc_id, hex);
	p = pa_asprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (access(p, R_OK) == 0) {
		char *d = pa_bcache_find(c, &libc_id, PA_BCACHE_DEBUG, &err);
		assert_non_null(d);
		assert_int_equal(pa_buildid_file_matches(d, &libc_id, &err), 1);
		free(d);
	}
	free(p);
	assert_int_equal(pa_bcache_foreach(c, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.names[0], name);
	assert_string_equal(s.hex[0], hex);
	/* Adding the same file again with pa keeps perf's entry. */
	assert_int_equal(pa_bcache_add_file(c, name, name, &libc_id, PA_BCACHE_ELF, &err), 0);
	pa_bcache_close(c);
	struct pa_finder_opts o = PA_FINDER_OPTS(.buildid_dir = t2, .no_debuginfod = true,
						 .system_debug_dir = "/nonexistent");
	struct pa_finder *f = pa_finder_new(&o, &err);
	EXPECT_FIND(f, "/elsewhere/libc.so.6", &libc_id, PA_FIND_OK, "cache");
	pa_finder_free(f);

	/* perf record caches the running kernel's kallsyms; pa's finder uses
	 * that copy.  Skipped when perf may not record here. */
	if (pa_buildid_running_kernel(NULL, &kid, &err) == 0) {
		cmd = pa_asprintf(
		    "cd '%s' && PERF_CONFIG=/dev/null perf --buildid-dir '%s/cache' record "
		    "-q -o '%s/perf.data' -e cpu-clock true >/dev/null 2>&1",
		    dir, t3, t3);
		mkdirs(t3);
		if (system(cmd) == 0) {
			char *cache = pa_asprintf("%s/cache", t3);
			struct pa_finder_opts ko = PA_FINDER_OPTS(.buildid_dir = cache,
								  .no_debuginfod = true);
			f = pa_finder_new(&ko, &err);
			char *got = NULL;
			assert_int_equal(pa_finder_find_kallsyms(f, &kid, &got), PA_FIND_OK);
			assert_non_null(strstr(got, cache));
			free(got);
			pa_finder_free(f);
			free(cache);
		}
		free(cmd);
	}

	free(t1);
	free(t2);
	free(t3);
	rmtree(dir);
}

int main(void)
{
	/* Never reach the network unless a test sets up its own server. */
	unsetenv("DEBUGINFOD_URLS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_roundtrip),
		cmocka_unit_test(test_read_elf_self_vs_readelf),
		cmocka_unit_test(test_read_elf_any_class_byte_order),
		cmocka_unit_test(test_sha1_fallback),
		cmocka_unit_test(test_running_kernel),
		cmocka_unit_test(test_cache_add_find_remove_purge),
		cmocka_unit_test(test_cache_default_dir),
		cmocka_unit_test(test_cache_conflict),
		cmocka_unit_test(test_cache_concurrent),
		cmocka_unit_test(test_cache_crash_mid_add),
		cmocka_unit_test(test_finder_chain),
		cmocka_unit_test(test_finder_kallsyms),
		cmocka_unit_test(test_finder_debuginfod),
		cmocka_unit_test(test_interop_perf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
