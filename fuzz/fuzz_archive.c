/* fuzz_archive.c - `pa archive --unpack` on arbitrary bytes: the input is
 * unpacked as a tarball (any compression libarchive reads) into a fresh
 * cache inside a scratch directory, with small size limits; afterwards
 * nothing may exist outside the cache, no symlink in it may point out of
 * it, and every published ELF must carry the build-id its path names.
 * The member-name classifier is also fed names cut from the input.
 */
#include "fuzz_common.h"
#include "archive/archive.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX]; /* scratch: base/cache is the cache, base/outside a sentinel */

static void rm_rf(const char *p);

static void cleanup(void)
{
	if (base[0])
		rm_rf(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *t = getenv("TMPDIR");
	/* memory-backed when there is one: every input writes a cache */
	if (!t || !*t)
		t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(base, sizeof(base), "%s/pa-fuzz-archive-XXXXXX", t);
	if (!mkdtemp(base))
		base[0] = 0;
	else
		atexit(cleanup);
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(p);
	return 0;
}

static void rm_rf(const char *p)
{
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Nothing but "cache" and "outside" (and the input) in base. */
static void check_base(void)
{
	DIR *d = opendir(base);
	struct dirent *de;
	if (!d)
		fuzz_fail("scratch directory gone");
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "cache") || !strcmp(de->d_name, "outside") ||
		    !strcmp(de->d_name, "input"))
			continue;
		fuzz_fail("unpack wrote '%s' outside the cache", de->d_name);
	}
	closedir(d);
	struct stat st;
	if (lstat(base, &st) || !S_ISDIR(st.st_mode))
		fuzz_fail("scratch directory replaced");
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/outside", base);
	if (lstat(p, &st) || !S_ISREG(st.st_mode) || st.st_size != 4)
		fuzz_fail("the file next to the cache was touched");
}

static char cache_real[PATH_MAX];

/* Every symlink in the cache resolves (if at all) inside it. */
static int check_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_SL) {
		char r[PATH_MAX];
		if (realpath(p, r) && strncmp(r, cache_real, strlen(cache_real)))
			fuzz_fail("link '%s' resolves outside the cache: '%s'", p, r);
	} else if (type == FTW_F && !S_ISREG(st->st_mode)) {
		fuzz_fail("'%s' is neither a file, a directory nor a link", p);
	}
	return 0;
}

static int check_entry(void *ctx, const struct pa_buildid *id, const char *dso_name,
		       const char *path)
{
	(void)ctx;
	char elf[PATH_MAX + 8];
	struct stat st;
	fuzz_sink += fuzz_touch_str(dso_name);
	snprintf(elf, sizeof(elf), "%s/elf", path);
	if (stat(elf, &st) == 0 && pa_buildid_file_matches(elf, id, NULL) != 1)
		fuzz_fail("'%s' is not the file its build-id names", elf);
	return 0;
}

static void classify_names(const uint8_t *data, size_t size)
{
	/* "TYPE NAME \0 TARGET \0" records cut from the input */
	size_t i = 0;
	for (int k = 0; k < 8 && i < size; k++) {
		char type = (char)data[i++];
		const char *name = (const char *)data + i;
		const uint8_t *z = memchr(data + i, 0, size - i);
		if (!z)
			return;
		i = (size_t)(z - data) + 1;
		const char *target = (const char *)data + i;
		z = memchr(data + i, 0, size - i);
		if (!z)
			return;
		i = (size_t)(z - data) + 1;
		struct pa_archive_member *m = malloc(sizeof(*m));
		struct pa_err err = {0};
		if (!m)
			return;
		if (pa_archive_classify(name, "fdlh"[type & 3], target, m, &err) == 0) {
			if (m->name[0] == '/' || strstr(m->name, "/../") ||
			    !strncmp(m->name, "../", 3) || !strcmp(m->name, ".."))
				fuzz_fail("unsafe member name accepted: '%s'", m->name);
			fuzz_sink += fuzz_touch_str(m->dso_name) + m->id.size;
		} else if (!err.msg[0]) {
			fuzz_fail("refused without a reason");
		}
		free(m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	classify_names(data, size);
	if (!base[0])
		return 0;
	char cache[PATH_MAX + 16], input[PATH_MAX + 16], outside[PATH_MAX + 16];
	snprintf(cache, sizeof(cache), "%s/cache", base);
	snprintf(input, sizeof(input), "%s/input", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	FILE *fp = fopen(input, "wb");
	if (!fp)
		return 0;
	fwrite(data, 1, size, fp);
	fclose(fp);
	fp = fopen(outside, "wb");
	if (fp) {
		fputs("keep", fp);
		fclose(fp);
	}
	rm_rf(cache);
	struct pa_archive_unpack_opts o = PA_ARCHIVE_UNPACK_OPTS(
		.buildid_dir = cache, .max_file_size = 8 << 20, .max_total_size = 32 << 20);
	struct pa_archive_unpack_stats st;
	struct pa_err err = {0};
	int r = pa_archive_unpack(input, &o, NULL, NULL, &st, &err);
	if (r < 0 && !err.msg[0])
		fuzz_fail("unpack failed (%d) without a message", r);
	if (r == 0 && st.bytes > o.max_total_size)
		fuzz_fail("read %llu bytes past the limit", (unsigned long long)st.bytes);
	check_base();
	if (realpath(cache, cache_real)) {
		nftw(cache, check_one, 16, FTW_PHYS);
		/* every published ELF is what its name says */
		struct pa_bcache *c = pa_bcache_open(cache, NULL);
		if (c)
			pa_bcache_foreach(c, check_entry, NULL, NULL);
		pa_bcache_close(c);
	}
	rm_rf(cache);
	return 0;
}
