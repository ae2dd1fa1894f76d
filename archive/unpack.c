/* unpack.c - safe extraction of a build-id cache tarball into the cache.
 *
 * libarchive only parses and decompresses: it never writes to the file
 * system.  Each member is judged by its name (names.c), its data counted
 * against the limits and staged under DIR/.tmp-unpack-XXXXXX with a name pa
 * makes up; after the last member, the manifest and the links are checked,
 * and only then are the staged files published with pa_bcache_add_file().
 */
#include "archive/internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNPACK_BUF 65536

struct member {
	char *name;
	enum pa_archive_member_type type;
	char *dso_name; /* FILE, EXTRA, LINK (may be "") */
	struct pa_buildid id;
	enum pa_bcache_kind kind;
	char *staged; /* FILE: its data under the staging directory */
	uint64_t size;
	long next; /* next member with the same name hash, or -1 */
};

struct unpack {
	const char *path; /* the archive, for messages */
	struct archive *a;
	struct pa_bcache *cache;
	char *staging;
	uint64_t max_file, max_total, total;
	uint32_t max_ratio;
	struct member *m;
	size_t n, cap;
	struct pa_u64map by_name; /* hash -> index + 1 of the first member */
	struct pa_u64map links;   /* hash of a build-id -> index + 1 of its link */
	char *manifest;
	size_t manifest_len;
	unsigned staged_count;
	char *buf; /* UNPACK_BUF bytes */
	pa_archive_unpack_fn cb;
	void *ctx;
	struct pa_archive_unpack_stats st;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return pa_hash64(h);
}

static struct member *lookup(struct unpack *u, const char *name)
{
	void *v = pa_u64map_get(&u->by_name, hash_str(name));
	for (long i = v ? (long)(uintptr_t)v - 1 : -1; i >= 0; i = u->m[i].next)
		if (!strcmp(u->m[i].name, name))
			return &u->m[i];
	return NULL;
}

static uint64_t hash_id(const struct pa_buildid *id)
{
	char hex[PA_BUILDID_HEX_MAX];
	pa_buildid_to_hex(id, hex);
	return hash_str(hex);
}

/* The link member for id, or NULL. */
static struct member *link_of(struct unpack *u, const struct pa_buildid *id)
{
	void *v = pa_u64map_get(&u->links, hash_id(id));
	struct member *l = v ? &u->m[(uintptr_t)v - 1] : NULL;
	return l && pa_buildid_equal(&l->id, id) ? l : NULL;
}

/* Does the archive hold a file of the entry <dso>/<hex>? */
static bool holds_entry(struct unpack *u, const char *dso_name, const struct pa_buildid *id)
{
	char hex[PA_BUILDID_HEX_MAX], name[PATH_MAX + 64];
	const char *rel = dso_name[0] == '/' ? dso_name + 1 : dso_name;

	pa_buildid_to_hex(id, hex);
	for (int k = PA_BCACHE_ELF; k <= PA_BCACHE_NR_KINDS; k++) {
		if (k < PA_BCACHE_NR_KINDS)
			snprintf(name, sizeof(name), "%s/%s/%s", rel, hex,
			         pa_bcache_kind_name((enum pa_bcache_kind)k));
		else /* perf's old kallsyms layout */
			snprintf(name, sizeof(name), "%s/%s", rel, hex);
		const struct member *m = lookup(u, name);
		if (m && m->type == PA_MEMBER_FILE)
			return true;
	}
	return false;
}

static int add_member(struct unpack *u, const struct pa_archive_member *pm, struct member **out,
                      struct pa_err *err)
{
	struct member *m;
	void **slot;
	int created;

	if (PA_GROW(u->m, u->cap, u->n + 1, 64))
		return pa_err_set(err, -ENOMEM, "out of memory");
	m = &u->m[u->n];
	memset(m, 0, sizeof(*m));
	m->name = strdup(pm->name);
	m->dso_name = strdup(pm->dso_name);
	slot = pa_u64map_slot(&u->by_name, hash_str(pm->name), &created);
	if (!m->name || !m->dso_name || !slot) {
		free(m->name);
		free(m->dso_name);
		return pa_err_set(err, -ENOMEM, "out of memory");
	}
	m->type = pm->type;
	m->id = pm->id;
	m->kind = pm->kind;
	m->next = created ? -1 : (long)(uintptr_t)*slot - 1;
	*slot = (void *)(uintptr_t)(u->n + 1);
	u->n++;
	*out = m;
	return 0;
}

static void event(struct unpack *u, enum pa_archive_event ev, const char *member, const char *msg)
{
	switch (ev) {
	case PA_ARCHIVE_ADDED:
		u->st.added++;
		break;
	case PA_ARCHIVE_KEPT:
		u->st.kept++;
		break;
	case PA_ARCHIVE_CONFLICT:
		u->st.conflicts++;
		break;
	case PA_ARCHIVE_SKIPPED:
		u->st.skipped++;
		break;
	}
	if (u->cb)
		u->cb(u->ctx, ev, member, msg);
}

/* libarchive's complaint as a pa error. */
static int la_error(struct unpack *u, const char *member, struct pa_err *err)
{
	const char *s = archive_error_string(u->a);
	int e = archive_errno(u->a);
	int code = PA_ERR_FORMAT;

	char low[256];

	if (!s)
		s = "cannot read the archive";
	if (!strcmp(s, "Unrecognized archive format")) {
		if (member)
			return pa_err_set(err, PA_ERR_FORMAT, "member '%.200s': not a tar member",
			                  member);
		return pa_err_set(err, PA_ERR_FORMAT,
		                  "not a tarball (tar, optionally gzip, bzip2, xz or zstd "
		                  "compressed)");
	}
	/* pa's messages start in lower case ("Truncated tar archive") */
	snprintf(low, sizeof(low), "%s", s);
	if (low[0] >= 'A' && low[0] <= 'Z' && !(low[1] >= 'A' && low[1] <= 'Z'))
		low[0] = (char)(low[0] - 'A' + 'a');
	s = low;
	if (strstr(s, "truncated") || strstr(s, "premature") || strstr(s, "nexpected end") ||
	    strstr(s, "end of file") || strstr(s, "EOF"))
		code = PA_ERR_TRUNCATED;
	else if (strstr(s, "ecompress") || strstr(s, "ecompression") || strstr(s, "orrupt") ||
	         strstr(s, "amaged") || strstr(s, "zstd") || strstr(s, "lzma") ||
	         strstr(s, "bzip") || strstr(s, "gzip") || strstr(s, "xz"))
		code = PA_ERR_DECOMPRESS;
	else if (e == ENOMEM)
		code = -ENOMEM;
	if (member)
		return pa_err_set(err, code, "member '%.200s': %s", member, s);
	return pa_err_set(err, code, "%s", s);
}

/* Read the current member's data: into fd (>= 0), into *mem (up to memmax
 * bytes, else an error), or nowhere; every byte counts against the limits. */
static int read_data(struct unpack *u, const char *name, int fd, char **mem, size_t memmax,
                     uint64_t *size, struct pa_err *err)
{
	char *buf = u->buf;
	struct pa_buf mb = {0};
	uint64_t got = 0;
	int ret = 0;

	for (;;) {
		la_ssize_t n = archive_read_data(u->a, buf, UNPACK_BUF);
		if (n == 0)
			break;
		if (n < 0) {
			ret = la_error(u, name, err);
			goto out;
		}
		got += (uint64_t)n;
		u->total += (uint64_t)n;
		u->st.bytes = u->total;
		if (got > u->max_file) {
			ret = pa_err_set(err, PA_ERR_LIMIT,
			                 "member '%.200s': larger than the limit of %llu bytes",
			                 name, (unsigned long long)u->max_file);
			goto out;
		}
		if (u->total > u->max_total) {
			ret =
			    pa_err_set(err, PA_ERR_LIMIT,
			               "member '%.200s': archive data over the limit of %llu bytes",
			               name, (unsigned long long)u->max_total);
			goto out;
		}
		if (u->max_ratio != UINT32_MAX && u->total > PA_ARCHIVE_RATIO_FLOOR) {
			int64_t raw = archive_filter_bytes(u->a, -1);
			if (raw <= 0 || u->total / (uint64_t)raw >= u->max_ratio) {
				ret =
				    pa_err_set(err, PA_ERR_LIMIT,
				               "member '%.200s': %llu bytes from %lld compressed, "
				               "over the ratio limit of %u: a decompression bomb?",
				               name, (unsigned long long)u->total, (long long)raw,
				               u->max_ratio);
				goto out;
			}
		}
		if (fd >= 0) {
			ret = pa_write_all(fd, buf, (size_t)n);
			if (ret < 0) {
				pa_err_set(err, ret, "'%s': %s", u->staging, strerror(-ret));
				goto out;
			}
		} else if (mem) {
			if (mb.len + (size_t)n > memmax) {
				ret = pa_err_set(err, PA_ERR_LIMIT, "member '%.200s': too large",
				                 name);
				goto out;
			}
			if (pa_buf_add(&mb, buf, (size_t)n) < 0) {
				ret = pa_err_set(err, -ENOMEM, "out of memory");
				goto out;
			}
		}
	}
	if (mem) {
		if (pa_buf_add(&mb, "", 1) < 0) {
			ret = pa_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		*mem = mb.data;
		mb.data = NULL;
	}
	*size = got;
out:
	pa_buf_release(&mb);
	return ret;
}

/* Stage a FILE member's data and check it is what its name says. */
static int stage_file(struct unpack *u, struct member *m, struct pa_err *err)
{
	char hex[PA_BUILDID_HEX_MAX];
	int fd, ret;

	m->staged = pa_asprintf("%s/%u", u->staging, u->staged_count++);
	if (!m->staged)
		return pa_err_set(err, -ENOMEM, "out of memory");
	fd = open(m->staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", m->staged, strerror(errno));
	ret = read_data(u, m->name, fd, NULL, 0, &m->size, err);
	if (close(fd) < 0 && !ret)
		ret = pa_err_set(err, -errno, "'%s': %s", m->staged, strerror(errno));
	if (ret < 0)
		return ret;
	if (!pa_bcache_kind_has_buildid(m->kind))
		return 0;
	ret = pa_buildid_file_matches(m->staged, &m->id, NULL);
	if (ret == 1)
		return 0;
	if (ret < 0 && ret != -PA_ERR_FORMAT && ret != -PA_ERR_NOT_FOUND)
		return pa_err_set(err, ret, "member '%.200s': %s", m->name, pa_strerror(ret));
	pa_buildid_to_hex(&m->id, hex);
	return pa_err_set(err, PA_ERR_BUILDID_MISMATCH,
	                  "member '%.200s': content does not have build-id %s", m->name, hex);
}

/* A hard link: only to a file member seen before; staged as a copy. */
static int stage_hardlink(struct unpack *u, struct member *m, const char *target,
                          struct pa_err *err)
{
	char t[PATH_MAX];
	struct member *tm;
	uint64_t extra;
	int ret;

	ret = pa_archive__normalize(target, t, err);
	if (ret < 0)
		return ret;
	tm = lookup(u, t);
	if (!tm || (tm->type != PA_MEMBER_FILE && tm->type != PA_MEMBER_EXTRA))
		return pa_err_set(err, PA_ERR_UNSAFE,
		                  "member '%.200s': hard link to '%.200s', which is not a file "
		                  "earlier in the archive",
		                  m->name, target);
	/* pax may carry data with a hard link: count it, ignore it */
	ret = read_data(u, m->name, -1, NULL, 0, &extra, err);
	if (ret < 0)
		return ret;
	if (m->type != PA_MEMBER_FILE)
		return 0;
	if (tm->type != PA_MEMBER_FILE)
		return pa_err_set(err, PA_ERR_UNSAFE,
		                  "member '%.200s': hard link to '%.200s', which pa did not keep",
		                  m->name, target);
	m->size = tm->size;
	u->total += tm->size;
	if (u->total > u->max_total)
		return pa_err_set(err, PA_ERR_LIMIT,
		                  "member '%.200s': archive data over the limit of %llu bytes",
		                  m->name, (unsigned long long)u->max_total);
	m->staged = pa_asprintf("%s/%u", u->staging, u->staged_count++);
	if (!m->staged)
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (link(tm->staged, m->staged) < 0)
		return pa_err_set(err, -errno, "'%s': %s", m->staged, strerror(errno));
	if (!pa_bcache_kind_has_buildid(m->kind) ||
	    pa_buildid_file_matches(m->staged, &m->id, NULL) == 1)
		return 0;
	char hex[PA_BUILDID_HEX_MAX];
	pa_buildid_to_hex(&m->id, hex);
	return pa_err_set(err, PA_ERR_BUILDID_MISMATCH,
	                  "member '%.200s': content does not have build-id %s", m->name, hex);
}

static int read_members(struct unpack *u, struct pa_err *err)
{
	struct archive_entry *e;
	int ret;

	for (;;) {
		struct pa_archive_member pm;
		struct member *m = NULL;
		const char *name, *target = NULL;
		char type;

		int r = archive_read_next_header(u->a, &e);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			return la_error(u, u->n ? u->m[u->n - 1].name : NULL, err);
		if (u->n >= PA_ARCHIVE_MAX_MEMBERS)
			return pa_err_set(err, PA_ERR_LIMIT, "more than %u members",
			                  PA_ARCHIVE_MAX_MEMBERS);
		name = archive_entry_pathname(e);
		if (!name)
			name = archive_entry_pathname_utf8(e);
		if (!name)
			return pa_err_set(err, PA_ERR_UNSAFE, "a member name cannot be read");
		if (archive_entry_hardlink(e) || archive_entry_hardlink_utf8(e)) {
			type = 'h';
			target = archive_entry_hardlink(e);
			if (!target)
				target = archive_entry_hardlink_utf8(e);
		} else {
			switch (archive_entry_filetype(e)) {
			case AE_IFREG:
				type = 'f';
				break;
			case AE_IFDIR:
				type = 'd';
				break;
			case AE_IFLNK:
				type = 'l';
				target = archive_entry_symlink(e);
				if (!target)
					target = archive_entry_symlink_utf8(e);
				break;
			default:
				type = '?';
				break;
			}
		}
		ret = pa_archive_classify(name, type, target, &pm, err);
		if (ret < 0)
			return ret;
		if (pm.type == PA_MEMBER_DIR) {
			uint64_t sz;
			ret = read_data(u, pm.name, -1, NULL, 0, &sz, err);
			if (ret < 0)
				return ret;
			continue;
		}
		if (lookup(u, pm.name))
			return pa_err_set(err, PA_ERR_UNSAFE, "member '%.200s': appears twice",
			                  pm.name);
		if (type != 'l' && archive_entry_size_is_set(e) && archive_entry_size(e) > 0 &&
		    (uint64_t)archive_entry_size(e) > u->max_file)
			return pa_err_set(err, PA_ERR_LIMIT,
			                  "member '%.200s': %lld bytes, over the limit of %llu",
			                  pm.name, (long long)archive_entry_size(e),
			                  (unsigned long long)u->max_file);
		ret = add_member(u, &pm, &m, err);
		if (ret < 0)
			return ret;
		if (type == 'h') {
			ret = stage_hardlink(u, m, target, err);
		} else if (pm.type == PA_MEMBER_FILE) {
			ret = stage_file(u, m, err);
		} else if (pm.type == PA_MEMBER_MANIFEST) {
			if (u->manifest)
				return pa_err_set(err, PA_ERR_FORMAT, "two manifests");
			ret = read_data(u, m->name, -1, &u->manifest, 16u << 20, &m->size, err);
			u->manifest_len = u->manifest ? strlen(u->manifest) : 0;
		} else if (pm.type == PA_MEMBER_LINK) {
			/* one link per build-id */
			int created;
			void **slot = pa_u64map_slot(&u->links, hash_id(&m->id), &created);
			if (!slot)
				return pa_err_set(err, -ENOMEM, "out of memory");
			if (!created && link_of(u, &m->id))
				return pa_err_set(err, PA_ERR_UNSAFE,
				                  "member '%.200s': second link for one build-id",
				                  m->name);
			if (created)
				*slot = (void *)(uintptr_t)u->n; /* index + 1 */
			uint64_t sz;
			ret = read_data(u, m->name, -1, NULL, 0, &sz, err);
		} else {
			ret = read_data(u, m->name, -1, NULL, 0, &m->size, err);
		}
		if (ret < 0)
			return ret;
	}
}

/* Every line of the manifest must name a file member of that size. */
static int check_manifest(struct unpack *u, struct pa_err *err)
{
	char *save = NULL, *line;
	unsigned lineno = 0;

	if (!u->manifest)
		return 0;
	if (strlen(u->manifest) != u->manifest_len)
		return pa_err_set(err, PA_ERR_FORMAT, "manifest: NUL byte");
	for (line = strtok_r(u->manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[5], *p = line, norm[PATH_MAX];
		unsigned long long size;
		struct member *m;
		char *end;
		int nf = 0;

		lineno++;
		if (line[0] == '#' || !line[0])
			continue;
		while (nf < 5) {
			f[nf++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = 0;
		}
		if (nf < 5)
			return pa_err_set(err, PA_ERR_FORMAT, "manifest line %u: %d fields, not 5",
			                  lineno, nf);
		errno = 0;
		size = strtoull(f[2], &end, 10);
		if (errno || *end || end == f[2])
			return pa_err_set(err, PA_ERR_FORMAT, "manifest line %u: bad size", lineno);
		if (pa_archive__normalize(f[3], norm, err) < 0)
			return pa_err_set(err, PA_ERR_FORMAT, "manifest line %u: bad name", lineno);
		m = lookup(u, norm);
		if (!m || (m->type != PA_MEMBER_FILE && m->type != PA_MEMBER_EXTRA))
			return pa_err_set(
			    err, PA_ERR_TRUNCATED,
			    "manifest lists '%.200s', which the archive does not hold", norm);
		if (m->size != size)
			return pa_err_set(err, PA_ERR_FORMAT,
			                  "member '%.200s': %llu bytes, the manifest says %llu",
			                  norm, (unsigned long long)m->size, size);
	}
	return 0;
}

/* DIR/<rel>/<hex>/<kind> of a file member. */
static char *final_path(struct unpack *u, const struct member *m)
{
	char hex[PA_BUILDID_HEX_MAX];
	const char *rel = m->dso_name[0] == '/' ? m->dso_name + 1 : m->dso_name;

	pa_buildid_to_hex(&m->id, hex);
	return pa_asprintf("%s/%s/%s/%s", pa_bcache_dir(u->cache), rel, hex,
	                   pa_bcache_kind_name(m->kind));
}

static bool linked_here(struct unpack *u, const struct member *f)
{
	const struct member *l = link_of(u, &f->id);
	return l && !strcmp(l->dso_name, f->dso_name);
}

static int publish_one(struct unpack *u, struct member *m, struct pa_err *err)
{
	struct pa_err e = {0};
	struct stat st;
	char *final = final_path(u, m);
	bool existed;
	int ret;

	if (!final)
		return pa_err_set(err, -ENOMEM, "out of memory");
	existed = lstat(final, &st) == 0;
	free(final);
	ret = pa_bcache_add_file(u->cache, m->staged, m->dso_name, &m->id, m->kind, &e);
	if (ret == 0) {
		event(u, existed ? PA_ARCHIVE_KEPT : PA_ARCHIVE_ADDED, m->name, NULL);
		return 0;
	}
	if (ret == -PA_ERR_BUILDID_MISMATCH) {
		event(u, PA_ARCHIVE_CONFLICT, m->name, e.msg);
		return 0;
	}
	return pa_err_set(err, ret, "member '%.200s': %s", m->name, e.msg);
}

static int publish(struct unpack *u, struct pa_err *err)
{
	int ret;

	/* links whose entry the archive does not hold are of no use */
	for (size_t i = 0; i < u->n; i++) {
		const struct member *l = &u->m[i];
		if (l->type != PA_MEMBER_LINK)
			continue;
		if (!holds_entry(u, l->dso_name, &l->id))
			event(u, PA_ARCHIVE_SKIPPED, l->name,
			      "link to an entry the archive does not hold");
	}
	/* files the archive's own link points at first: their DSO name gets
	 * the .build-id link (the first name wins, as in perf) */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < u->n; i++) {
			struct member *m = &u->m[i];
			if (m->type != PA_MEMBER_FILE || linked_here(u, m) != (pass == 0))
				continue;
			ret = publish_one(u, m, err);
			if (ret < 0)
				return ret;
		}
	}
	for (size_t i = 0; i < u->n; i++) {
		const struct member *m = &u->m[i];
		if (m->type == PA_MEMBER_EXTRA)
			event(u, PA_ARCHIVE_SKIPPED, m->name,
			      m->dso_name[0] ? "not a file pa uses"
			                     : "not in the build-id cache layout");
	}
	return 0;
}

/* mkdir -p that remembers the directories it made (to undo on failure). */
static int make_dirs(const char *dir, char ***made, size_t *nmade, struct pa_err *err)
{
	char *p = strdup(dir);
	struct stat st;
	int ret = 0;

	if (!p)
		return pa_err_set(err, -ENOMEM, "out of memory");
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char save = *s;
		*s = 0;
		if (stat(p, &st) < 0) {
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				ret = pa_err_set(err, -errno, "'%s': %s", p, strerror(errno));
				break;
			}
			if (errno != EEXIST) {
				char **nm = realloc(*made, (*nmade + 1) * sizeof(*nm));
				char *d = strdup(p);
				if (!nm || !d) {
					free(d);
					if (nm)
						*made = nm;
					ret = pa_err_set(err, -ENOMEM, "out of memory");
					break;
				}
				*made = nm;
				nm[(*nmade)++] = d;
			}
		} else if (!S_ISDIR(st.st_mode)) {
			ret = pa_err_set(err, -ENOTDIR, "'%s': not a directory", p);
			break;
		}
		*s = save;
		if (!save)
			break;
	}
	free(p);
	return ret;
}

int pa_archive_unpack(const char *archive_path, const struct pa_archive_unpack_opts *opts,
                      pa_archive_unpack_fn cb, void *ctx, struct pa_archive_unpack_stats *stats,
                      struct pa_err *err)
{
	struct unpack u = {.path = archive_path, .cb = cb, .ctx = ctx};
	char **made = NULL;
	size_t nmade = 0;
	int fd = -1, ret;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!archive_path)
		return pa_err_set(err, -EINVAL, "invalid argument");
	ret = pa_archive__check_opts(opts, sizeof(*opts), err);
	if (ret < 0)
		return ret;
	const char *why = pa_archive__lib_why();
	if (why)
		return pa_err_set(err, -ENOSYS, "libarchive cannot be opened: %s", why);
	u.max_file = PA_OPTS_GET(opts, struct pa_archive_unpack_opts, max_file_size, 0);
	u.max_total = PA_OPTS_GET(opts, struct pa_archive_unpack_opts, max_total_size, 0);
	u.max_ratio = PA_OPTS_GET(opts, struct pa_archive_unpack_opts, max_ratio, 0);
	if (!u.max_file)
		u.max_file = PA_ARCHIVE_MAX_FILE;
	if (!u.max_total)
		u.max_total = PA_ARCHIVE_MAX_TOTAL;
	if (!u.max_ratio)
		u.max_ratio = PA_ARCHIVE_MAX_RATIO;

	fd = strcmp(archive_path, "-") ? open(archive_path, O_RDONLY | O_CLOEXEC) : dup(0);
	if (fd < 0)
		return pa_err_set(err, -errno, "%s", strerror(errno));
	u.cache = pa_bcache_open(
	    PA_OPTS_GET(opts, struct pa_archive_unpack_opts, buildid_dir, NULL), err);
	if (!u.cache) {
		ret = err ? err->code : -errno;
		goto out;
	}
	ret = make_dirs(pa_bcache_dir(u.cache), &made, &nmade, err);
	if (ret < 0)
		goto out;
	u.staging = pa_asprintf("%s/.tmp-unpack-XXXXXX", pa_bcache_dir(u.cache));
	if (!u.staging) {
		ret = pa_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!mkdtemp(u.staging)) {
		ret = pa_err_set(err, -errno, "'%s': %s", u.staging, strerror(errno));
		free(u.staging);
		u.staging = NULL;
		goto out;
	}
	u.buf = malloc(UNPACK_BUF);
	u.a = u.buf ? archive_read_new() : NULL;
	if (!u.a) {
		ret = pa_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	archive_read_support_filter_all(u.a);
	archive_read_support_format_tar(u.a);
	if (archive_read_open_fd(u.a, fd, 65536) != ARCHIVE_OK) {
		ret = la_error(&u, NULL, err);
		goto out;
	}
	ret = read_members(&u, err);
	if (ret == 0 && !u.n)
		ret = pa_err_set(err, PA_ERR_FORMAT, "empty archive");
	if (ret == 0)
		ret = check_manifest(&u, err);
	if (ret == 0)
		ret = publish(&u, err);
out:
	if (u.a)
		archive_read_free(u.a);
	if (fd >= 0)
		close(fd);
	if (u.staging) {
		pa_rm_rf_at(AT_FDCWD, u.staging);
		free(u.staging);
	}
	if (ret < 0) /* undo the directories made for nothing (only if empty) */
		for (size_t i = nmade; i-- > 0;)
			rmdir(made[i]);
	for (size_t i = 0; i < nmade; i++)
		free(made[i]);
	free(made);
	for (size_t i = 0; i < u.n; i++) {
		free(u.m[i].name);
		free(u.m[i].dso_name);
		free(u.m[i].staged);
	}
	free(u.m);
	free(u.buf);
	pa_u64map_release(&u.by_name);
	pa_u64map_release(&u.links);
	free(u.manifest);
	pa_bcache_close(u.cache);
	if (stats)
		*stats = u.st;
	return ret;
}
