/* test_archive.c - unit tests of archive/: member names, size options, and
 * pack / unpack on tarballs made here with libarchive (hostile ones too).
 *
 * The ELF files used are this test program itself (its build-id note comes
 * from the linker) and /proc/self/exe's id; the kernel is faked with the
 * kernel_notes / proc_kallsyms options. */
/* Paths here are short temp names; a truncated one would fail a check. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "archive/archive.h"

static char tmpdir[PATH_MAX];
static char self_path[PATH_MAX];
static struct pa_buildid self_id;
static char self_hex[PA_BUILDID_HEX_MAX];

/* ---- helpers ------------------------------------------------------------- */

static char *path_in(const char *fmt, ...)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];
	char rel[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(b, PATH_MAX, "%s/%s", tmpdir, rel);
	return b;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void rm_rf(const char *p)
{
	nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Number of entries under dir (recursively), -1 if dir does not exist. */
static int count_cb_n;
static int count_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)p, (void)st, (void)flag;
	if (ftw->level > 0)
		count_cb_n++;
	return 0;
}
static int count_entries(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return -1;
	count_cb_n = 0;
	nftw(dir, count_cb, 16, FTW_PHYS);
	return count_cb_n;
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

/* A tarball member to write. */
struct m {
	char type; /* f file, l symlink, h hard link, d dir, c char device */
	const char *name;
	const char *target; /* l, h */
	const char *data;   /* f: literal content; NULL with file set */
	const char *file;   /* f: content from this file */
	size_t len;         /* f with data: its length (0: strlen) */
};

static void make_tar(const char *out, const char *filter, const struct m *ms, size_t n)
{
	struct archive *a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	if (!strcmp(filter, "zstd"))
		archive_write_add_filter_zstd(a);
	else if (!strcmp(filter, "gzip"))
		archive_write_add_filter_gzip(a);
	assert_int_equal(archive_write_open_filename(a, out), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		char *buf = NULL;
		size_t len = 0;
		archive_entry_set_pathname(e, ms[i].name);
		archive_entry_set_perm(e, 0644);
		switch (ms[i].type) {
		case 'f':
			archive_entry_set_filetype(e, AE_IFREG);
			if (ms[i].file) {
				FILE *f = fopen(ms[i].file, "rb");
				assert_non_null(f);
				fseek(f, 0, SEEK_END);
				len = (size_t)ftell(f);
				fseek(f, 0, SEEK_SET);
				buf = malloc(len);
				assert_int_equal(fread(buf, 1, len, f), len);
				fclose(f);
			} else {
				len = ms[i].len ? ms[i].len : strlen(ms[i].data);
				buf = malloc(len + 1);
				memcpy(buf, ms[i].data, len);
			}
			archive_entry_set_size(e, (la_int64_t)len);
			break;
		case 'l':
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, ms[i].target);
			break;
		case 'h':
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_hardlink(e, ms[i].target);
			archive_entry_set_size(e, 0);
			break;
		case 'd':
			archive_entry_set_filetype(e, AE_IFDIR);
			break;
		case 'c':
			archive_entry_set_filetype(e, AE_IFCHR);
			break;
		}
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (buf)
			assert_int_equal(archive_write_data(a, buf, len), (la_ssize_t)len);
		free(buf);
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

struct events {
	unsigned added, kept, conflicts, skipped;
	char last_conflict[512];
};

static void on_event(void *ctx, enum pa_archive_event ev, const char *member, const char *msg)
{
	struct events *e = ctx;
	switch (ev) {
	case PA_ARCHIVE_ADDED:
		e->added++;
		break;
	case PA_ARCHIVE_KEPT:
		e->kept++;
		break;
	case PA_ARCHIVE_CONFLICT:
		e->conflicts++;
		snprintf(e->last_conflict, sizeof(e->last_conflict), "%s: %s", member, msg);
		break;
	case PA_ARCHIVE_SKIPPED:
		e->skipped++;
		break;
	}
}

static int unpack_into(const char *tar, const char *cache, struct events *ev, struct pa_err *err)
{
	struct pa_archive_unpack_opts o = PA_ARCHIVE_UNPACK_OPTS(.buildid_dir = cache);
	return pa_archive_unpack(tar, &o, on_event, ev, NULL, err);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/pa-test-archive-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n <= 0)
		return -1;
	self_path[n] = 0;
	if (pa_buildid_read_elf(self_path, &self_id, NULL) < 0)
		return -1;
	pa_buildid_to_hex(&self_id, self_hex);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(tmpdir);
	return 0;
}

/* ---- member names -------------------------------------------------------- */

#define HEX40      "abababababababababababababababababababab"
#define HEX40_REST "ababababababababababababababababababab" /* HEX40 without "ab" */
#define LINK40     ".build-id/ab/" HEX40_REST
#define HEX40B     "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
#define HEX40C     "efefefefefefefefefefefefefefefefefefefef"
#define HEX40D     "1212121212121212121212121212121212121212"

static void expect_member(const char *name, char type, const char *target,
                          enum pa_archive_member_type want, const char *dso, int kind)
{
	struct pa_archive_member m;
	struct pa_err err = {0};
	int r = pa_archive_classify(name, type, target, &m, &err);
	if (r != 0)
		fail_msg("'%s' refused: %s", name, err.msg);
	assert_int_equal(m.type, want);
	if (dso)
		assert_string_equal(m.dso_name, dso);
	if (kind >= 0)
		assert_int_equal(m.kind, kind);
}

static void expect_unsafe(const char *name, char type, const char *target, const char *why)
{
	struct pa_archive_member m;
	struct pa_err err = {0};
	int r = pa_archive_classify(name, type, target, &m, &err);
	if (r != -PA_ERR_UNSAFE)
		fail_msg("'%s' (%c -> %s) accepted as %d", name, type, target ? target : "",
		         m.type);
	if (why && !strstr(err.msg, why))
		fail_msg("'%s': message '%s' lacks '%s'", name, err.msg, why);
}

static void test_classify_layout(void **state)
{
	(void)state;
	expect_member("usr/lib/x86_64-linux-gnu/libc.so.6/" HEX40 "/elf", 'f', NULL, PA_MEMBER_FILE,
	              "/usr/lib/x86_64-linux-gnu/libc.so.6", PA_BCACHE_ELF);
	expect_member("./usr/lib/x.so/" HEX40 "/debug", 'f', NULL, PA_MEMBER_FILE, "/usr/lib/x.so",
	              PA_BCACHE_DEBUG);
	expect_member("[kernel.kallsyms]/" HEX40 "/kallsyms", 'f', NULL, PA_MEMBER_FILE,
	              "[kernel.kallsyms]", PA_BCACHE_KALLSYMS);
	expect_member("[kernel.kallsyms]/" HEX40, 'f', NULL, PA_MEMBER_FILE, "[kernel.kallsyms]",
	              PA_BCACHE_KALLSYMS); /* perf's old layout */
	expect_member("[vdso]/" HEX40 "/vdso", 'f', NULL, PA_MEMBER_FILE, "[vdso]", PA_BCACHE_VDSO);
	expect_member("usr/bin/ls/abcd/elf", 'f', NULL, PA_MEMBER_FILE, "/usr/bin/ls",
	              PA_BCACHE_ELF);
	expect_member("usr/lib/x.so/" HEX40 "/probes", 'f', NULL, PA_MEMBER_EXTRA, "/usr/lib/x.so",
	              -1);
	expect_member("README", 'f', NULL, PA_MEMBER_EXTRA, "", -1);
	expect_member("usr/lib/x.so/abc/elf", 'f', NULL, PA_MEMBER_EXTRA, "", -1); /* odd hex */
	expect_member(".build-id/ab/" HEX40, 'f', NULL, PA_MEMBER_EXTRA, "", -1);
	expect_member(".pa-manifest", 'f', NULL, PA_MEMBER_MANIFEST, NULL, -1);
	expect_member("usr/lib/", 'd', NULL, PA_MEMBER_DIR, NULL, -1);
	expect_member("./", 'd', NULL, PA_MEMBER_DIR, NULL, -1);
	expect_member(LINK40, 'l', "../../usr/lib/x.so/" HEX40, PA_MEMBER_LINK, "/usr/lib/x.so",
	              -1);
	expect_member(LINK40, 'l', "../..//usr/lib/x.so/" HEX40, PA_MEMBER_LINK, "/usr/lib/x.so",
	              -1);
	expect_member(LINK40, 'l', "../../[kernel.kallsyms]/" HEX40, PA_MEMBER_LINK,
	              "[kernel.kallsyms]", -1);
	expect_member("usr/lib/x.so/" HEX40 "/elf", 'h', "usr/lib/y.so/" HEX40 "/elf",
	              PA_MEMBER_FILE, "/usr/lib/x.so", PA_BCACHE_ELF);
}

static void test_classify_unsafe(void **state)
{
	(void)state;
	expect_unsafe("/etc/passwd", 'f', NULL, "absolute");
	expect_unsafe("usr/../../etc/passwd", 'f', NULL, "..");
	expect_unsafe("..", 'd', NULL, "..");
	expect_unsafe("../x", 'f', NULL, "..");
	expect_unsafe("usr//lib/x", 'f', NULL, "non-canonical");
	expect_unsafe("usr/./lib/x", 'f', NULL, "non-canonical");
	expect_unsafe("usr/lib\n/x", 'f', NULL, "control");
	expect_unsafe(".", 'f', NULL, NULL);
	expect_unsafe("usr/lib/x", 'c', NULL, "unsupported");
	expect_unsafe("usr/lib/x", '?', NULL, "unsupported");
	/* symlinks: only .build-id links into the cache, for their own id */
	expect_unsafe("usr/lib/x", 'l', "../../usr/lib/y/" HEX40, "outside .build-id");
	expect_unsafe(LINK40, 'l', "/etc/passwd", "outside the cache");
	expect_unsafe(LINK40, 'l', "../../../etc/" HEX40, "outside the cache");
	expect_unsafe(LINK40, 'l', "../../usr/../../x/" HEX40, "outside the cache");
	expect_unsafe(LINK40, 'l', "../../usr/lib/x.so/" HEX40B, "another build-id");
	expect_unsafe(LINK40, 'l', "../../.build-id/ab/" HEX40, "entries");
	expect_unsafe(LINK40, 'l', "../../usr/lib/x.so", NULL);
	expect_unsafe(LINK40, 'l', NULL, NULL);
	expect_unsafe(".build-id/ab/xyz", 'l', "../../usr/lib/x.so/abxyz", "bad build-id");
	expect_unsafe(LINK40 "/x", 'l', "../../usr/x/" HEX40, NULL);
	/* hard links: only to names inside the archive */
	expect_unsafe("usr/lib/x.so/" HEX40 "/elf", 'h', "/etc/passwd", "outside");
	expect_unsafe("usr/lib/x.so/" HEX40 "/elf", 'h', "../../etc/passwd", "outside");
	expect_unsafe("usr/lib/x.so/" HEX40 "/elf", 'h', NULL, NULL);
}

static void test_parse_size(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(pa_parse_size("4G", &v), 0);
	assert_true(v == 4ull << 30);
	assert_int_equal(pa_parse_size("512M", &v), 0);
	assert_true(v == 512ull << 20);
	assert_int_equal(pa_parse_size("10", &v), 0);
	assert_true(v == 10);
	assert_int_equal(pa_parse_size("1KiB", &v), 0);
	assert_true(v == 1024);
	assert_int_equal(pa_parse_size("2kb", &v), 0);
	assert_true(v == 2048);
	assert_int_equal(pa_parse_size("x", &v), -EINVAL);
	assert_int_equal(pa_parse_size("-1", &v), -EINVAL);
	assert_int_equal(pa_parse_size("1Q", &v), -EINVAL);
	assert_int_equal(pa_parse_size("1Gx", &v), -EINVAL);
	assert_int_equal(pa_parse_size("99999999999T", &v), -EINVAL);
	assert_int_equal(pa_parse_size("", &v), -EINVAL);
	/* and back, as the memory-limit errors print it */
	char b[32];
	assert_string_equal(pa_fmt_size(b, 16ull << 20), "16 MiB");
	assert_string_equal(pa_fmt_size(b, 300ull << 10), "300 KiB");
	assert_string_equal(pa_fmt_size(b, (4ull << 30) + 5), "4 GiB");
	assert_string_equal(pa_fmt_size(b, 1023), "1023 bytes");
}

static void test_compression_for(void **state)
{
	(void)state;
	assert_int_equal(pa_archive_compression_for("a.tar.gz"), PA_ARCHIVE_GZIP);
	assert_int_equal(pa_archive_compression_for("a.tgz"), PA_ARCHIVE_GZIP);
	assert_int_equal(pa_archive_compression_for("a.tar.bz2"), PA_ARCHIVE_BZIP2);
	assert_int_equal(pa_archive_compression_for("a.tar.xz"), PA_ARCHIVE_XZ);
	assert_int_equal(pa_archive_compression_for("a.tar.zst"), PA_ARCHIVE_ZSTD);
	assert_int_equal(pa_archive_compression_for("a.tar"), PA_ARCHIVE_NONE);
	assert_int_equal(pa_archive_compression_for("perf.data.archive"), PA_ARCHIVE_ZSTD);
	assert_int_equal(pa_archive_compression_for(".tar"), PA_ARCHIVE_ZSTD); /* no name */
}

/* ---- unpack -------------------------------------------------------------- */

/* The self ELF, cached the way perf lays it out. */
static char *self_member(const char *kind)
{
	static char buf[8][PATH_MAX];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, PATH_MAX, "%s/%s/%s", self_path + 1, self_hex, kind);
	return b;
}

static char *self_link(char out[2][PATH_MAX])
{
	snprintf(out[0], PATH_MAX, ".build-id/%.2s/%s", self_hex, self_hex + 2);
	snprintf(out[1], PATH_MAX, "../../%s/%s", self_path + 1, self_hex);
	return out[0];
}

static void test_unpack_good(void **state)
{
	char link[2][PATH_MAX], *cache = path_in("good-cache"), *tar = path_in("good.tar.zst");
	struct events ev = {0};
	struct pa_err err = {0};
	(void)state;
	self_link(link);
	struct m ms[] = {
	    {'d', "usr/", NULL, NULL, NULL, 0},
	    {'f', self_member("elf"), NULL, NULL, self_path, 0},
	    {'f', self_member("probes"), NULL, "", NULL, 0},
	    {'h', self_member("debug"), self_member("elf"), NULL, NULL, 0},
	    {'l', link[0], link[1], NULL, NULL, 0},
	    {'f', "[kernel.kallsyms]/" HEX40 "/kallsyms", NULL, "ffffffff81000000 T _text\n", NULL,
	     0},
	};
	make_tar(tar, "zstd", ms, PA_ARRAY_SIZE(ms));
	if (unpack_into(tar, cache, &ev, &err) != 0)
		fail_msg("unpack: %s", err.msg);
	assert_int_equal(ev.added, 3);
	assert_int_equal(ev.skipped, 1);

	struct pa_bcache *c = pa_bcache_open(cache, NULL);
	char *p = pa_bcache_find(c, &self_id, PA_BCACHE_ELF, NULL);
	assert_non_null(p);
	free(p);
	p = pa_bcache_find(c, &self_id, PA_BCACHE_DEBUG, NULL);
	assert_non_null(p);
	free(p);
	struct pa_buildid k;
	pa_buildid_from_hex(HEX40, &k);
	p = pa_bcache_find(c, &k, PA_BCACHE_KALLSYMS, NULL);
	assert_non_null(p);
	free(p);
	pa_bcache_close(c);

	/* again: all kept */
	memset(&ev, 0, sizeof(ev));
	assert_int_equal(unpack_into(tar, cache, &ev, &err), 0);
	assert_int_equal(ev.added, 0);
	assert_int_equal(ev.kept, 3);

	/* a different kallsyms for the same id: reported, the cached one kept */
	char *tar2 = path_in("conflict.tar");
	struct m ms2[] = {
	    {'f', "[kernel.kallsyms]/" HEX40 "/kallsyms", NULL, "ffffffff82000000 T other\n", NULL,
	     0},
	};
	make_tar(tar2, "none", ms2, 1);
	memset(&ev, 0, sizeof(ev));
	assert_int_equal(unpack_into(tar2, cache, &ev, &err), 0);
	assert_int_equal(ev.conflicts, 1);
	assert_non_null(strstr(ev.last_conflict, "kallsyms"));
	/* no staging directory left behind */
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q tmp-", cache);
	assert_int_not_equal(system(cmd), 0);
}

/* Each hostile tarball: refused with code, nothing left in the cache (which
 * did not exist before). */
static void expect_refused(const char *what, const struct m *ms, size_t n, int code,
                           const char *why, uint64_t max_file)
{
	char *cache = path_in("hostile-cache"), *tar = path_in("hostile-%s.tar", what);
	struct pa_err err = {0};
	rm_rf(cache);
	make_tar(tar, "none", ms, n);
	struct pa_archive_unpack_opts o =
	    PA_ARCHIVE_UNPACK_OPTS(.buildid_dir = cache, .max_file_size = max_file);
	int r = pa_archive_unpack(tar, &o, NULL, NULL, NULL, &err);
	if (r != code)
		fail_msg("%s: got %d (%s), want %d", what, r, err.msg, code);
	if (why && !strstr(err.msg, why))
		fail_msg("%s: message '%s' lacks '%s'", what, err.msg, why);
	assert_int_equal(count_entries(cache), -1);
	/* with a cache that exists: it stays as it was (empty) */
	mkdir(cache, 0755);
	assert_int_equal(pa_archive_unpack(tar, &o, NULL, NULL, NULL, &err), code);
	assert_int_equal(count_entries(cache), 0);
	rm_rf(cache);
}

static void test_unpack_hostile(void **state)
{
	char link[2][PATH_MAX];
	(void)state;
	self_link(link);
	const char *elf = self_member("elf");
#define REFUSE(what, code, why, ...)                                                               \
	do {                                                                                       \
		const struct m ms_[] = {__VA_ARGS__};                                              \
		expect_refused(what, ms_, PA_ARRAY_SIZE(ms_), code, why, 0);                       \
	} while (0)
	/* the good member first: it must not survive the bad one after it */
	REFUSE("abs", -PA_ERR_UNSAFE, "absolute", {'f', elf, NULL, NULL, self_path, 0},
	       {'f', "/tmp/evil", NULL, "x", NULL, 0});
	REFUSE("dotdot", -PA_ERR_UNSAFE, "..", {'f', elf, NULL, NULL, self_path, 0},
	       {'f', "usr/../../evil", NULL, "x", NULL, 0});
	REFUSE("symlink-out", -PA_ERR_UNSAFE, "outside", {'f', elf, NULL, NULL, self_path, 0},
	       {'l', link[0], "../../../../etc", NULL, NULL, 0});
	REFUSE("symlink-elsewhere", -PA_ERR_UNSAFE, "symlink", {'f', elf, NULL, NULL, self_path, 0},
	       {'l', "usr/lib/evil", "/etc", NULL, NULL, 0});
	REFUSE("hardlink-out", -PA_ERR_UNSAFE, "hard link", {'f', elf, NULL, NULL, self_path, 0},
	       {'h', "usr/lib/x.so/" HEX40 "/elf", "/etc/passwd", NULL, NULL, 0});
	REFUSE("hardlink-forward", -PA_ERR_UNSAFE, "hard link",
	       {'h', "usr/lib/x.so/" HEX40 "/elf", "usr/lib/y.so/" HEX40 "/elf", NULL, NULL, 0},
	       {'f', "usr/lib/y.so/" HEX40 "/elf", NULL, "x", NULL, 0});
	REFUSE("device", -PA_ERR_UNSAFE, "unsupported", {'f', elf, NULL, NULL, self_path, 0},
	       {'c', "usr/lib/x.so/" HEX40 "/elf", NULL, NULL, NULL, 0});
	REFUSE("twice", -PA_ERR_UNSAFE, "twice", {'f', elf, NULL, NULL, self_path, 0},
	       {'f', elf, NULL, NULL, self_path, 0});
	/* the same link twice, once in upper case */
	char upper[PATH_MAX];
	snprintf(upper, sizeof(upper), "%s", link[0]);
	for (char *c = upper + 10; *c; c++)
		if (*c >= 'a' && *c <= 'f')
			*c = (char)(*c - 'a' + 'A');
	REFUSE("two-links", -PA_ERR_UNSAFE, "second link", {'f', elf, NULL, NULL, self_path, 0},
	       {'l', link[0], link[1], NULL, NULL, 0}, {'l', upper, link[1], NULL, NULL, 0});
	/* not what its name says */
	REFUSE("wrong-content", -PA_ERR_BUILDID_MISMATCH, "build-id",
	       {'f', "usr/lib/x.so/" HEX40 "/elf", NULL, NULL, self_path, 0});
	REFUSE("manifest-lies", -PA_ERR_TRUNCATED, "manifest",
	       {'f', ".pa-manifest", NULL,
	        HEX40 "\telf\t5\tusr/lib/x.so/" HEX40 "/elf\t/usr/lib/x.so\n", NULL, 0},
	       {'f', elf, NULL, NULL, self_path, 0});
	/* too big for the limit given */
	const struct m big[] = {{'f', elf, NULL, NULL, self_path, 0}};
	expect_refused("limit", big, 1, -PA_ERR_LIMIT, "limit", 1000);
#undef REFUSE
}

/* A tarball cut short, and things that are not tarballs. */
static void test_unpack_truncated(void **state)
{
	char *tar = path_in("cut.tar.gz"), *cut = path_in("cut-half.tar.gz");
	char *cache = path_in("cut-cache");
	struct pa_err err = {0};
	struct stat st;
	(void)state;
	const struct m ms[] = {{'f', self_member("elf"), NULL, NULL, self_path, 0},
	                       {'f', self_member("debug"), NULL, NULL, self_path, 0}};
	make_tar(tar, "gzip", ms, 2);
	assert_int_equal(stat(tar, &st), 0);
	FILE *in = fopen(tar, "rb");
	char *buf = malloc((size_t)st.st_size);
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, in), (size_t)st.st_size);
	fclose(in);
	write_file(cut, buf, (size_t)st.st_size * 3 / 4);
	free(buf);
	struct pa_archive_unpack_opts o = PA_ARCHIVE_UNPACK_OPTS(.buildid_dir = cache);
	int r = pa_archive_unpack(cut, &o, NULL, NULL, NULL, &err);
	assert_true(r == -PA_ERR_TRUNCATED || r == -PA_ERR_DECOMPRESS);
	assert_int_equal(count_entries(cache), -1);

	write_file(path_in("junk"), "hello, not a tarball\n", 21);
	assert_int_equal(pa_archive_unpack(path_in("junk"), &o, NULL, NULL, NULL, &err),
	                 -PA_ERR_FORMAT);
	assert_int_equal(count_entries(cache), -1);
	assert_int_equal(pa_archive_unpack(path_in("nonexistent"), &o, NULL, NULL, NULL, &err),
	                 -ENOENT);
}

/* ---- pack ---------------------------------------------------------------- */

struct packed {
	unsigned calls, packed;
	char why[8][256];
	unsigned nwhy;
};

static void on_packed(void *ctx, const struct pa_archive_dso_result *r)
{
	struct packed *p = ctx;
	p->calls++;
	if (r->kinds)
		p->packed++;
	if (r->why && p->nwhy < 8)
		snprintf(p->why[p->nwhy++], 256, "%s: %s", r->name, r->why);
}

static bool has_why(const struct packed *p, const char *a, const char *b)
{
	for (unsigned i = 0; i < p->nwhy; i++)
		if (strstr(p->why[i], a) && strstr(p->why[i], b))
			return true;
	return false;
}

/* Member names of a tarball, in order, one per line. */
static void list_tar(const char *path, char *out, size_t n)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_filename(a, path, 65536), ARCHIVE_OK);
	out[0] = 0;
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		strncat(out, archive_entry_pathname(e), n - strlen(out) - 2);
		strcat(out, "\n");
	}
	archive_read_free(a);
}

static void write_notes(const char *path, const char *hex)
{
	struct pa_buildid id;
	unsigned char buf[12 + 4 + 20];
	uint32_t namesz = 4, descsz = 20, type = 3;
	pa_buildid_from_hex(hex, &id);
	memcpy(buf, &namesz, 4);
	memcpy(buf + 4, &descsz, 4);
	memcpy(buf + 8, &type, 4);
	memcpy(buf + 12, "GNU", 4);
	memcpy(buf + 16, id.data, 20);
	write_file(path, buf, sizeof(buf));
}

static void test_pack(void **state)
{
	char *cache = path_in("pack-cache"), *out = path_in("out.tar.zst");
	char *notes = path_in("notes"), *ks = path_in("kallsyms");
	const char *kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T start_kernel\n";
	struct packed pk = {0};
	struct pa_err err = {0};
	(void)state;
	write_notes(notes, HEX40);
	write_file(ks, kallsyms, strlen(kallsyms));
	struct pa_archive_dso d[] = {
	    {self_path, PA_ARCHIVE_DSO_USER, self_id},
	    {self_path, PA_ARCHIVE_DSO_USER, self_id}, /* twice: packed once */
	    {"[kernel.kallsyms]", PA_ARCHIVE_DSO_KERNEL, {{0}, 0}},
	    {"[vdso]", PA_ARCHIVE_DSO_VDSO, {{0}, 0}},
	    {"/usr/lib/other.so", PA_ARCHIVE_DSO_USER, {{0}, 0}},
	    {"/nonexistent/lib.so", PA_ARCHIVE_DSO_USER, {{0}, 0}},
	    {"/bin/sh", PA_ARCHIVE_DSO_USER, {{0}, 0}},
	};
	pa_buildid_from_hex(HEX40, &d[2].id);
	pa_buildid_from_hex(HEX40C, &d[3].id);
	pa_buildid_from_hex(HEX40B, &d[5].id);
	pa_buildid_from_hex(HEX40D, &d[6].id); /* /bin/sh has another id */
	struct pa_archive_pack_opts o =
	    PA_ARCHIVE_PACK_OPTS(.buildid_dir = cache, .no_debuginfod = true, .kernel_notes = notes,
	                         .proc_kallsyms = ks);
	int r = pa_archive_pack(d, PA_ARRAY_SIZE(d), out, &o, on_packed, &pk, &err);
	if (r < 0)
		fail_msg("pack: %s", err.msg);
	assert_int_equal(r, 2);
	assert_int_equal(pk.packed, 2);
	assert_true(has_why(&pk, "[vdso]", "vdso image not in the cache"));
	assert_true(has_why(&pk, "/usr/lib/other.so", "no build-id recorded"));
	assert_true(has_why(&pk, "/nonexistent/lib.so", "not found"));
	assert_true(has_why(&pk, "/bin/sh", "another build-id"));

	char list[8192], want[4096];
	list_tar(out, list, sizeof(list));
	char l1[64], l2[64];
	snprintf(l1, sizeof(l1), ".build-id/%.2s/%s", self_hex, self_hex + 2);
	snprintf(l2, sizeof(l2), "%s", LINK40);
	bool self_first = strcmp(l1, l2) < 0;
	snprintf(want, sizeof(want),
	         ".pa-manifest\n"
	         "[kernel.kallsyms]/%s/kallsyms\n"
	         "%s/%s/elf\n"
	         "%s\n%s\n",
	         HEX40, self_path + 1, self_hex, self_first ? l1 : l2, self_first ? l2 : l1);
	assert_string_equal(list, want);

	/* unpacked elsewhere: the same files */
	char *c2 = path_in("pack-cache2");
	struct events ev = {0};
	assert_int_equal(unpack_into(out, c2, &ev, &err), 0);
	assert_int_equal(ev.added, 2);
	struct pa_bcache *c = pa_bcache_open(c2, NULL);
	char *p = pa_bcache_find(c, &d[2].id, PA_BCACHE_KALLSYMS, NULL);
	assert_non_null(p);
	char got[256] = {0};
	FILE *f = fopen(p, "r");
	assert_int_equal(fread(got, 1, sizeof(got) - 1, f), strlen(kallsyms));
	fclose(f);
	assert_string_equal(got, kallsyms);
	free(p);
	pa_bcache_close(c);

	/* another kernel running: its kallsyms is never taken */
	write_notes(notes, HEX40B);
	struct pa_archive_dso k2[] = {{"[kernel.kallsyms]", PA_ARCHIVE_DSO_KERNEL, {{0}, 0}}};
	pa_buildid_from_hex(HEX40C, &k2[0].id);
	memset(&pk, 0, sizeof(pk));
	char *out2 = path_in("out2.tar");
	assert_int_equal(pa_archive_pack(k2, 1, out2, &o, on_packed, &pk, &err), -PA_ERR_NOT_FOUND);
	assert_true(has_why(&pk, "[kernel.kallsyms]", "another one"));
	assert_int_equal(access(out2, F_OK), -1);

	/* an output that cannot be written leaves nothing behind */
	char *bad = path_in("no-such-dir/out.tar.zst");
	assert_true(pa_archive_pack(d, 1, bad, &o, NULL, NULL, &err) < 0);
	assert_int_equal(count_entries(path_in("no-such-dir")), -1);
	/* nor do temporaries stay next to a good one */
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q 'out.tar.zst.tmp'", tmpdir);
	assert_int_not_equal(system(cmd), 0);
}

static void test_opts(void **state)
{
	struct {
		struct pa_archive_unpack_opts o;
		char extra[8];
	} big;
	struct pa_err err = {0};
	(void)state;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.extra[3] = 1;
	assert_int_equal(pa_archive_unpack(path_in("x"), &big.o, NULL, NULL, NULL, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classify_layout),
	    cmocka_unit_test(test_classify_unsafe),
	    cmocka_unit_test(test_parse_size),
	    cmocka_unit_test(test_compression_for),
	    cmocka_unit_test(test_unpack_good),
	    cmocka_unit_test(test_unpack_hostile),
	    cmocka_unit_test(test_unpack_truncated),
	    cmocka_unit_test(test_pack),
	    cmocka_unit_test(test_opts),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
