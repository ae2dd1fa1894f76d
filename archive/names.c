/* names.c - what a tarball member is, judged by its name alone: the cache
 * layout (perf's ~/.debug) is the whitelist. */
#include "archive/archive.h"
#include "archive/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_hexstr(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A build-id directory name: an even number (2..40) of hex digits. */
static bool parse_hex_id(const char *s, size_t n, struct pa_buildid *id)
{
	char buf[PA_BUILDID_HEX_MAX];

	if (n < 2 || n > 2 * PA_BUILDID_MAX || n % 2 || !is_hexstr(s, n))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	return pa_buildid_from_hex(buf, id) == 0 && pa_buildid_is_defined(id);
}

static int unsafe(struct pa_err *err, const char *name, const char *why)
{
	return pa_err_set(err, PA_ERR_UNSAFE, "member '%.200s': %s", name, why);
}

/* Normalize a member name into out (PATH_MAX): drop leading "./" and
 * trailing '/'; refuse absolute names, "..", "." and empty components,
 * and control characters (they would break the manifest and messages). */
int pa_archive__normalize(const char *name, char *out, struct pa_err *err)
{
	const char *p = name;
	size_t n;

	if (!name)
		return unsafe(err, "(null)", "name not readable");
	if (name[0] == '/')
		return unsafe(err, name, "absolute path");
	while (p[0] == '.' && p[1] == '/') {
		p += 2;
		while (*p == '/')
			p++;
	}
	n = strlen(p);
	while (n > 0 && p[n - 1] == '/')
		n--;
	if (n == 1 && p[0] == '.')
		n = 0;
	if (n >= PATH_MAX)
		return unsafe(err, name, "name too long");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return unsafe(err, name, "control character in name");
	memcpy(out, p, n);
	out[n] = 0;
	for (const char *c = out; *c;) {
		const char *e = strchr(c, '/');
		size_t l = e ? (size_t)(e - c) : strlen(c);
		if (l == 2 && c[0] == '.' && c[1] == '.')
			return unsafe(err, name, "'..' in path");
		if (l == 0 || (l == 1 && c[0] == '.'))
			return unsafe(err, name, "non-canonical path");
		if (l > NAME_MAX)
			return unsafe(err, name, "name too long");
		if (!e)
			break;
		c = e + 1;
	}
	return 0;
}

/* "<rel>" of a DSO (no leading '/', or "[name]") to its DSO name; false when
 * it cannot be one (empty, first component ".build-id", a bracketed name with
 * more components). */
static bool rel_to_dso(const char *rel, size_t n, char *dso)
{
	if (n == 0 || n + 2 > PATH_MAX)
		return false;
	if (rel[0] == '[') {
		if (n < 3 || rel[n - 1] != ']' || memchr(rel, '/', n))
			return false;
		memcpy(dso, rel, n);
		dso[n] = 0;
		return true;
	}
	if ((n == 9 || (n > 9 && rel[9] == '/')) && !memcmp(rel, ".build-id", 9))
		return false;
	dso[0] = '/';
	memcpy(dso + 1, rel, n);
	dso[n + 1] = 0;
	return true;
}

static bool kind_from_name(const char *s, enum pa_bcache_kind *kind)
{
	for (int k = PA_BCACHE_ELF; k < PA_BCACHE_NR_KINDS; k++) {
		if (!strcmp(s, pa_bcache_kind_name((enum pa_bcache_kind)k))) {
			*kind = (enum pa_bcache_kind)k;
			return true;
		}
	}
	return false;
}

/* A regular file's place in the layout. */
static void classify_file(struct pa_archive_member *m)
{
	const char *name = m->name, *last = strrchr(name, '/');
	struct pa_buildid id;

	m->type = PA_MEMBER_EXTRA;
	m->dso_name[0] = 0;
	if (!strcmp(name, PA_ARCHIVE_MANIFEST)) {
		m->type = PA_MEMBER_MANIFEST;
		return;
	}
	if (!last)
		return;
	/* perf's old layout: [kernel.kallsyms]/<hex> is the kallsyms file */
	if (name[0] == '[' && rel_to_dso(name, (size_t)(last - name), m->dso_name) &&
	    parse_hex_id(last + 1, strlen(last + 1), &id)) {
		m->type = PA_MEMBER_FILE;
		m->id = id;
		m->kind = PA_BCACHE_KALLSYMS;
		if (strcmp(m->dso_name, "[kernel.kallsyms]") &&
		    strncmp(m->dso_name, "[guest.kernel", 13))
			m->type = PA_MEMBER_EXTRA;
		return;
	}
	/* <rel>/<hex>/<file> */
	const char *hexs = last;
	while (hexs > name && hexs[-1] != '/')
		hexs--;
	if (hexs == name)
		return;
	if (!parse_hex_id(hexs, (size_t)(last - hexs), &id) ||
	    !rel_to_dso(name, (size_t)(hexs - 1 - name), m->dso_name)) {
		m->dso_name[0] = 0;
		return;
	}
	m->id = id;
	if (kind_from_name(last + 1, &m->kind))
		m->type = PA_MEMBER_FILE;
}

int pa_archive_classify(const char *name, char type, const char *target,
                        struct pa_archive_member *m, struct pa_err *err)
{
	int ret;

	memset(&m->id, 0, sizeof(m->id));
	m->dso_name[0] = 0;
	m->kind = PA_BCACHE_ELF;
	ret = pa_archive__normalize(name, m->name, err);
	if (ret < 0)
		return ret;
	switch (type) {
	case 'd':
		m->type = PA_MEMBER_DIR;
		return 0;
	case 'h': {
		char t[PATH_MAX];
		if (!target)
			return unsafe(err, name, "hard link without a target");
		struct pa_err e2 = {0};
		if (pa_archive__normalize(target, t, &e2) < 0) {
			pa_err_set(err, PA_ERR_UNSAFE,
			           "member '%.200s': hard link to '%.200s', "
			           "outside the cache",
			           name, target);
			return -PA_ERR_UNSAFE;
		}
		if (!t[0])
			return unsafe(err, name, "hard link to a directory");
		if (!m->name[0])
			return unsafe(err, name, "a file named like the cache's root");
		classify_file(m); /* judged by its own name like a file */
		return 0;
	}
	case 'f':
		if (!m->name[0])
			return unsafe(err, name, "a file named like the cache's root");
		classify_file(m);
		return 0;
	case 'l':
		break;
	default:
		return unsafe(err, name, "unsupported member type");
	}

	/* Symlinks: only .build-id/xx/rest -> ../../<rel>/<hex>, hex equal. */
	const char *n = m->name, *tr;
	size_t ln = strlen(n);
	struct pa_buildid lid;
	char hex[PA_BUILDID_HEX_MAX];

	if (ln < 10 + 2 + 1 + 2 || strncmp(n, ".build-id/", 10) || n[12] != '/')
		return unsafe(err, name, "symlink outside .build-id/");
	if (ln - 13 + 2 > 2 * PA_BUILDID_MAX)
		return unsafe(err, name, "symlink with a bad build-id name");
	memcpy(hex, n + 10, 2);
	memcpy(hex + 2, n + 13, ln - 13);
	hex[ln - 13 + 2] = 0;
	if (strchr(n + 13, '/') || !parse_hex_id(hex, strlen(hex), &lid))
		return unsafe(err, name, "symlink with a bad build-id name");
	if (!target || strncmp(target, "../..", 5) || target[5] != '/')
		return unsafe(err, name, "symlink pointing outside the cache");
	tr = target + 5;
	while (*tr == '/') /* perf may write "../..//usr/..." */
		tr++;
	char t[PATH_MAX];
	struct pa_err e2 = {0};
	if (tr[0] == 0 || pa_archive__normalize(tr, t, &e2) < 0 || strlen(t) != strlen(tr))
		return unsafe(err, name, "symlink pointing outside the cache");
	const char *slash = strrchr(t, '/');
	struct pa_buildid tid;
	if (!slash || !parse_hex_id(slash + 1, strlen(slash + 1), &tid) ||
	    !rel_to_dso(t, (size_t)(slash - t), m->dso_name))
		return unsafe(err, name, "symlink pointing outside the cache entries");
	if (!pa_buildid_equal(&lid, &tid))
		return unsafe(err, name, "symlink to another build-id");
	m->type = PA_MEMBER_LINK;
	m->id = lid;
	return 0;
}
