/* elfcache.c - ELF symbol tables from an index instead of the ELF files.
 *
 * Why: a report over a small recording spent about a third of its time
 * making the symbol tables of the DSOs it names (bench/README.md, "A
 * small file's fixed cost"): reading libc's separate debug file, its
 * ~5k symbols demangled, perf's red-black tree replayed over overlapping
 * ones, PLT entries made, the table frozen. The frozen table is the same
 * at every run while its files stay the same, so it is written once to an
 * index and later runs map it: the tree is used where it lies, symbols are
 * filled when a lookup first reaches them (as the kernel's index does,
 * ksymcache.c).
 *
 * What stays the same decides (struct eix_ident): the main file (its
 * path, device, inode, size and mtime), the debug-file candidate the
 * finder gives now (its path and the same facts: the finder runs at every
 * load, so a debug file installed or fetched since is seen), the loader
 * options, and the pa binary itself (its build-id: a table made by other
 * code is not used). The main file's build-id, segments and ELF type are
 * read from it at every load (cheap); what the index holds is the rest:
 * the frozen tree, the symbols, where they came from.
 *
 * Where: ${XDG_CACHE_HOME:-$HOME/.cache}/pa/elf/BUILDID-PATHHASH.idx
 * ("none" for a file without build-id), pa's own cache (idxfile.c).
 * PA_NO_SYM_CACHE=1 turns it off (pa_sym_elf_cache_default_dir() then
 * returns NULL).
 *
 * Format (host byte order, 8-aligned sections, offsets from the file start):
 *   header  magic "PAELFSIX", version, byte-order mark, pointer size,
 *           header size, file length, the stamp of the file as written
 *           (inode, modification time), hash of everything after the
 *           hash; the identity; n, root, overlaps; section offsets; the
 *           string offsets of the origin and the symbol file
 *   tree    n struct pa_symtab_node (file-offset space, children)
 *   recs    n struct eix_rec (vaddr start/end, name, linkage name, kind)
 *   strs    NUL-terminated strings
 * An index whose header, identity, length, hash (checked when the file is
 * not as written, idxfile.c) or bounds do not hold is ignored, and
 * rewritten by the load that follows.
 */
#include "symbols/internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define EIX_MAGIC   "PAELFSIX"
#define EIX_VERSION 2u
#define EIX_NONE    UINT32_MAX

struct eix_file {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	uint64_t path_hash; /* (the path itself is compared too) */
};

struct eix_ident {
	uint8_t pa_id[20]; /* the running pa's build-id (pa_idx_self_id) */
	uint32_t opts;
	struct eix_file main, debug; /* debug: all zero without a candidate */
};

struct eix_hdr {
	struct pa_idx_head head;
	struct eix_ident id;
	struct pa_idx_table tab;
	uint32_t main_path, debug_path, origin, symfile; /* in strs; EIX_NONE: none */
};

_Static_assert(sizeof(struct pa_symtab_node) == 24, "index layout");

struct eix_rec {
	uint64_t start, end;    /* pa_sym's: ELF vaddrs */
	uint32_t name, linkage; /* linkage: EIX_NONE when the same as name */
	uint8_t binding, type, pad[6];
};

static int file_of(const char *path, int fd, struct eix_file *f)
{
	struct stat st;
	memset(f, 0, sizeof(*f));
	if (!path)
		return 0;
	if (fd >= 0 ? fstat(fd, &st) : stat(path, &st))
		return -errno;
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	f->size = (uint64_t)st.st_size;
	f->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	f->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	f->path_hash = pa_hash_str(path);
	return 0;
}

static int ident_of(const struct pa_elfidx_src *src, struct eix_ident *id)
{
	int rc;
	memset(id, 0, sizeof(*id));
	if (pa_idx_self_id(id->pa_id))
		return -ENOENT; /* no build-id of our own: no index */
	id->opts = src->opts;
	if ((rc = file_of(src->path, src->fd, &id->main)))
		return rc;
	/* a candidate that is not there now is no candidate */
	if (src->candidate && file_of(src->candidate, -1, &id->debug))
		memset(&id->debug, 0, sizeof(id->debug));
	return 0;
}

/* The string at off of an index's strs, NULL for EIX_NONE (and for an
 * offset out of them: pa_idx_str). */
static const char *str_at(const struct eix_hdr *h, uint32_t off)
{
	return off == EIX_NONE ? NULL : pa_idx_str(h, &h->tab, off);
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The header's string bounds (pa_idx_valid checked the rest). */
static bool strings_ok(const struct eix_hdr *h)
{
	const struct pa_idx_table *tb = &h->tab;
	uint32_t offs[] = {h->main_path, h->debug_path, h->origin, h->symfile};
	for (size_t i = 0; i < sizeof(offs) / sizeof(*offs); i++)
		if (offs[i] != EIX_NONE && offs[i] >= tb->strs_len)
			return false;
	return true;
}

static void eix_fill(const struct pa_symtab *t, size_t i)
{
	const struct eix_hdr *h = t->map;
	const struct eix_rec *r = (const struct eix_rec *)((const char *)h + h->tab.recs_off) + i;
	struct pa_sym *s = &t->syms[i]; /* (the table's own memory: see lazy) */
	const char *name = str_at(h, r->name);
	s->start = r->start;
	s->end = r->end < r->start ? r->start : r->end;
	s->binding = r->binding;
	s->type = r->type;
	s->inlined = false;
	s->linkage_name = str_at(h, r->linkage);
	/* last: a name says the entry is filled (a damaged index's offset:
	 * none) */
	s->name = name ? name : "";
}

int pa_elf_index_open(const char *idx_path, const struct pa_elfidx_src *src, struct pa_symtab *t)
{
	struct eix_ident want;
	void *map = NULL;
	size_t len = 0;
	int rc;

	bool as_written;
	if ((rc = ident_of(src, &want)) ||
	    (rc = pa_idx_map(idx_path, sizeof(struct eix_hdr), &map, &len, &as_written)))
		goto out;
	const struct eix_hdr *h = map;
	rc = -EINVAL;
	bool debug = want.debug.size || want.debug.ino;
	if (!pa_idx_valid(map, len, EIX_MAGIC, EIX_VERSION, sizeof(*h), &h->tab,
	                  sizeof(struct eix_rec), as_written) ||
	    memcmp(&h->id, &want, sizeof(want)) || !strings_ok(h) ||
	    !same_str(str_at(h, h->main_path), src->path) ||
	    !same_str(str_at(h, h->debug_path), debug ? src->candidate : NULL) ||
	    h->origin == EIX_NONE || h->symfile == EIX_NONE)
		goto out;
	rc = -ENOMEM;
	size_t n = (size_t)h->tab.n;
	/* (calloc: pages of zeros the kernel hands out when first touched) */
	if (n && !(t->syms = calloc(n, sizeof(*t->syms))))
		goto out;
	t->n = n;
	t->root = h->tab.root;
	t->overlaps = h->tab.overlaps != 0;
	t->tree = n ? (struct pa_symtab_node *)((char *)map + h->tab.tree_off) : NULL;
	t->origin = str_at(h, h->origin);
	t->symfile = str_at(h, h->symfile);
	t->lazy = true;
	t->fill = eix_fill;
	t->map = map;
	t->map_len = len;
	map = NULL;
	rc = 0;
out:
	if (map)
		munmap(map, len);
	return rc;
}

/* ---- writing ------------------------------------------------------------ */

struct strs {
	char *p;
	size_t len, cap;
};

/* off of s added to ss (EIX_NONE for NULL); -1 on ENOMEM or overflow */
static int64_t strs_add(struct strs *ss, const char *s)
{
	if (!s)
		return EIX_NONE;
	size_t l = strlen(s) + 1;
	if (ss->len + l >= EIX_NONE || PA_GROW(ss->p, ss->cap, ss->len + l, 4096))
		return -1;
	memcpy(ss->p + ss->len, s, l);
	ss->len += l;
	return (int64_t)(ss->len - l);
}

/* The strings of the records and the header, into ss and recs. */
static int put_strings(const struct pa_symtab *t, const struct pa_elfidx_src *src, bool debug,
                       struct strs *ss, struct eix_rec *recs, struct eix_hdr *h)
{
	int64_t o[4] = {strs_add(ss, src->path), strs_add(ss, debug ? src->candidate : NULL),
	                strs_add(ss, t->origin), strs_add(ss, t->symfile)};
	if (o[0] < 0 || o[1] < 0 || o[2] < 0 || o[3] < 0)
		return -ENOMEM;
	h->main_path = (uint32_t)o[0];
	h->debug_path = (uint32_t)o[1];
	h->origin = (uint32_t)o[2];
	h->symfile = (uint32_t)o[3];
	for (size_t i = 0; i < t->n; i++) {
		const struct pa_sym *s = &t->syms[i];
		int64_t name = strs_add(ss, s->name), link = strs_add(ss, s->linkage_name);
		if (name < 0 || link < 0)
			return -ENOMEM;
		recs[i] = (struct eix_rec){.start = s->start,
		                           .end = s->end,
		                           .name = (uint32_t)name,
		                           .linkage = (uint32_t)link,
		                           .binding = s->binding,
		                           .type = s->type};
	}
	return 0;
}

int pa_elf_index_write(const struct pa_symtab *t, const char *idx_path,
                       const struct pa_elfidx_src *src)
{
	struct strs ss = {0};
	struct eix_rec *recs = NULL;
	unsigned char *file = NULL;
	struct eix_hdr h;
	int rc;

	memset(&h, 0, sizeof(h));
	if ((rc = ident_of(src, &h.id)))
		goto out;
	rc = -EINVAL;
	if (t->kind != PA_SYMTAB_ELF || t->lazy || t->n >= PA_SYMB_NIL || !t->origin || !t->symfile)
		goto out;
	rc = -ENOMEM;
	if (t->n && !(recs = calloc(t->n, sizeof(*recs))))
		goto out;
	bool debug = h.id.debug.size || h.id.debug.ino;
	if ((rc = put_strings(t, src, debug, &ss, recs, &h)))
		goto out;
	pa_idx_layout(&h.head, &h.tab, EIX_MAGIC, EIX_VERSION, sizeof(h), t, sizeof(struct eix_rec),
	              ss.len);
	const struct pa_idx_table *tb = &h.tab;
	rc = -ENOMEM;
	if (h.head.file_len > SIZE_MAX || !(file = calloc(1, (size_t)h.head.file_len)))
		goto out;
	if (t->n) {
		memcpy(file + tb->tree_off, t->tree, t->n * sizeof(struct pa_symtab_node));
		memcpy(file + tb->recs_off, recs, t->n * sizeof(*recs));
	}
	memcpy(file + tb->strs_off, ss.p, ss.len);
	memcpy(file, &h, sizeof(h));
	rc = pa_idx_seal_write(idx_path, file, (size_t)h.head.file_len);
out:
	free(file);
	free(recs);
	free(ss.p);
	return rc;
}

char *pa_sym_elf_cache_default_dir(void)
{
	return pa_idx_cache_dir("elf", NULL);
}
