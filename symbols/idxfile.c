/* idxfile.c - what the symbol indexes share (ksymcache.c: the kernel's,
 * elfcache.c: ELF files'): pa's cache directory, an index's file name, its
 * hash, mapping it and writing it whole.
 *
 * The indexes live in ${XDG_CACHE_HOME:-$HOME/.cache}/pa/, a cache of pa's
 * own (a read-only command may write there; never ~/.debug). An index is
 * written to a temporary file in its directory and renamed over the old
 * one, so a reader sees a whole index or none. Each carries a hash of its
 * contents and a stamp of the file its writer left (inode, modification
 * time): the hash is checked when the file is no longer that one.
 */
#include "symbols/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A 4-lane word hash (bijective steps, so one changed word always changes
 * the result), finished with util's pa_hash64/pa_hash_bytes. */
uint64_t pa_idx_hash(const unsigned char *p, size_t n)
{
	uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
	                 0x2545f4914f6cdd1dull};
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		for (int k = 0; k < 4; k++) {
			uint64_t w;
			memcpy(&w, p + i + 8 * k, 8);
			h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdull;
			h[k] ^= h[k] >> 29;
		}
	}
	uint64_t tail = pa_hash_bytes(p + i, n - i) ^ n;
	return pa_hash64(h[0] ^ pa_hash64(h[1] ^ pa_hash64(h[2] ^ pa_hash64(h[3] ^ tail))));
}

/* The main program's GNU build-id, from its PT_NOTE segments in memory
 * (dl_iterate_phdr names the program first, then stops: non-zero). */
static int self_id_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE &&
		    pa_note_gnu_build_id((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
		                         ph->p_align == 8 ? 8 : 4, false, arg, 20))
			return 2; /* found */
	}
	return 1;
}

int pa_idx_self_id(uint8_t out[20])
{
	memset(out, 0, 20);
	return dl_iterate_phdr(self_id_cb, out) == 2 ? 0 : -ENOENT;
}

static bool env_off(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

char *pa_idx_cache_dir(const char *sub, const char *off_env)
{
	if (env_off("PA_NO_SYM_CACHE") || (off_env && env_off(off_env)))
		return NULL;
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir = NULL;
	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/pa/%s", xdg, sub) < 0)
			dir = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/pa/%s", home, sub) < 0)
			dir = NULL;
	}
	return dir;
}

char *pa_idx_name(const char *dir, const uint8_t *bid, size_t len, const char *src_path)
{
	size_t dl = strlen(dir);
	char *p = malloc(dl + 2 * len + 32);
	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	char *q = p + dl;
	*q++ = '/';
	for (size_t i = 0; i < len; i++) {
		static const char hx[] = "0123456789abcdef";
		*q++ = hx[bid[i] >> 4];
		*q++ = hx[bid[i] & 15];
	}
	if (!len)
		q += sprintf(q, "none");
	snprintf(q, 23, "-%016" PRIx64 ".idx", pa_hash_str(src_path));
	return p;
}

int pa_idx_map(const char *path, size_t min_len, void **map, size_t *len, bool *as_written)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	*map = NULL;
	*len = 0;
	*as_written = false;
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	rc = -EINVAL;
	if (st.st_size < (off_t)min_len || min_len < sizeof(struct pa_idx_head) ||
	    (uint64_t)st.st_size > SIZE_MAX)
		goto out;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		rc = -errno;
		goto out;
	}
	const struct pa_idx_head *h = m;
	*as_written = h->ino == (uint64_t)st.st_ino && h->mtime_sec == (int64_t)st.st_mtim.tv_sec &&
	              h->mtime_nsec == (int64_t)st.st_mtim.tv_nsec;
	*map = m;
	*len = (size_t)st.st_size;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* mkdir -p; 0 or -errno */
static int make_dirs(const char *dir)
{
	char *p = strdup(dir);
	int rc = 0;
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			rc = -errno;
			goto out;
		}
		*s = c;
		if (!c)
			break;
	}
out:
	free(p);
	return rc;
}

/* The stamp of the file fd (its inode, a modification time of now) into
 * file's header; the hash after it. */
static int stamp(int fd, unsigned char *file, size_t len, struct timespec *mtime)
{
	struct pa_idx_head *h = (struct pa_idx_head *)file;
	struct stat st;
	if (fstat(fd, &st) || clock_gettime(CLOCK_REALTIME, mtime))
		return -errno;
	h->ino = (uint64_t)st.st_ino;
	h->mtime_sec = (int64_t)mtime->tv_sec;
	h->mtime_nsec = (int64_t)mtime->tv_nsec;
	h->hash = pa_idx_hash(file + PA_IDX_HASHED_FROM, len - PA_IDX_HASHED_FROM);
	return 0;
}

int pa_idx_seal_write(const char *path, unsigned char *file, size_t len)
{
	struct timespec mtime[2];
	char *tmp = NULL;
	int fd = -1, rc = 0;
	const char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		char *dir = strndup(path, (size_t)(slash - path));
		rc = dir ? make_dirs(dir) : -ENOMEM;
		free(dir);
		if (rc)
			goto out;
	}
	rc = -ENOMEM;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		tmp = NULL;
		goto out;
	}
	if ((fd = mkstemp(tmp)) < 0) {
		rc = -errno;
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if ((rc = stamp(fd, file, len, &mtime[1])) || (rc = pa_write_all(fd, file, len)))
		goto out;
	mtime[0].tv_nsec = UTIME_OMIT; /* (atime) */
	if (futimens(fd, mtime) || fchmod(fd, 0644)) {
		rc = -errno;
		goto out;
	}
	rc = close(fd) ? -errno : 0;
	fd = -1;
	if (rc)
		goto out;
	if (rename(tmp, path)) {
		rc = -errno;
		goto out;
	}
	free(tmp);
	tmp = NULL;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	return rc;
}

#define IDX_BOM 0x01020304u

void pa_idx_layout(struct pa_idx_head *h, struct pa_idx_table *tb, const char *magic,
                   uint32_t version, size_t hdr_size, const struct pa_symtab *t, size_t rec_size,
                   uint64_t strs_len)
{
	memcpy(h->magic, magic, sizeof(h->magic));
	h->version = version;
	h->bom = IDX_BOM;
	h->ptr_size = sizeof(void *);
	h->hdr_size = (uint32_t)hdr_size;
	tb->n = t->n;
	tb->root = t->root;
	tb->overlaps = t->overlaps;
	tb->tree_off = (hdr_size + 7) & ~(uint64_t)7;
	tb->recs_off = tb->tree_off + t->n * sizeof(struct pa_symtab_node);
	tb->strs_off = tb->recs_off + t->n * rec_size;
	tb->strs_len = strs_len;
	h->file_len = tb->strs_off + strs_len;
}

const char *pa_idx_str(const void *map, const struct pa_idx_table *tb, uint64_t off)
{
	return off < tb->strs_len ? (const char *)map + tb->strs_off + off : NULL;
}

bool pa_idx_valid(const void *map, size_t len, const char *magic, uint32_t version, size_t hdr_size,
                  const struct pa_idx_table *tb, size_t rec_size, bool as_written)
{
	const struct pa_idx_head *h = map;
	const unsigned char *base = map;
	if (len < hdr_size || memcmp(h->magic, magic, sizeof(h->magic)) || h->version != version ||
	    h->bom != IDX_BOM || h->ptr_size != sizeof(void *) || h->hdr_size != hdr_size ||
	    h->file_len != len ||
	    (!as_written &&
	     pa_idx_hash(base + PA_IDX_HASHED_FROM, len - PA_IDX_HASHED_FROM) != h->hash))
		return false;
	/* the bounds keep a damaged file from sending a reader wild */
	uint64_t n = tb->n;
	size_t rec_align = rec_size % 8 ? 4 : 8;
	if (n >= PA_SYMB_NIL || tb->tree_off % 8 || tb->recs_off % rec_align ||
	    tb->tree_off < hdr_size || tb->tree_off + n * sizeof(struct pa_symtab_node) > len ||
	    tb->recs_off < hdr_size || tb->recs_off + n * rec_size > len ||
	    tb->strs_off < hdr_size || tb->strs_off > len || tb->strs_len > len - tb->strs_off ||
	    (tb->strs_len ? base[tb->strs_off + tb->strs_len - 1] != 0 : n != 0) ||
	    (n ? tb->root >= n : tb->root != PA_SYMB_NIL))
		return false;
	return true;
}
