/* ksymcache.c - kernel symbols from a compact index instead of kallsyms text.
 *
 * Why: parsing a kallsyms file (~120k lines) and replaying perf's
 * red-black tree over it costs ~150 ms of CPU on every report with kernel
 * samples, most of a small report's time. The frozen table that
 * pa_symtab_load_kallsyms() makes is written once to an index file, and
 * later runs mmap it: the tree nodes and the names are used where they lie
 * in the mapping, only the pa_sym and module-pointer arrays are built.
 * Measured (bench/README.md, "Kernel symbol index"): a small report with
 * kernel samples (122k kallsyms lines) goes from 160-240 ms to 57-92 ms of
 * CPU (perf: ~190 ms); opening the index takes 2-5 ms where the parse took
 * 110-190 ms; the first run pays ~20-60 ms more to write it. The table is
 * the same, so the output stays perf's. The other way considered, parsing
 * on demand beside the stream, is what runs without an index (the
 * resolver's kernel preload thread): it hides wall time on two cores but
 * not CPU, so the index is kept.
 *
 * Where: ${XDG_CACHE_HOME:-$HOME/.cache}/pa/kallsyms/BUILDID-SRC.idx
 * (hex; SRC: a hash of the kallsyms file's path, so that the running
 * kernel's /proc/kallsyms and a copy in a build-id cache, both of one
 * build-id, keep an index each instead of rewriting one in turn), a cache
 * of pa's own (a read-only command may write there; never ~/.debug).
 * PA_NO_KSYM_CACHE=1 (any non-empty value but "0") turns the cache off:
 * pa_ksym_cache_default_dir() then returns NULL.
 *
 * Format (host byte order, 8-aligned sections, offsets from the file start):
 *   header  magic "PAKSYMIX", version, byte-order mark, pointer size,
 *           header size, file length, the stamp of the file as written
 *           (inode, modification time), hash of everything after the
 *           hash; then the source's identity (the pa binary's own
 *           build-id, so that a table made by other code is not used; the
 *           kernel's build-id; the kallsyms file's size and mtime, or for a file
 *           without a size such as /proc/kallsyms the boot id and a hash
 *           of /proc/modules' names and sizes) and the table's n, root,
 *           overlaps and section offsets
 *   tree    n struct pa_symtab_node (perf's-space start/end, children)
 *   recs    n { name offset, module offset or UINT32_MAX, binding, type }
 *   strs    NUL-terminated names and module names
 * An index whose header, identity, length or hash (checked when the file
 * is not as written, idxfile.c) does not match is ignored (and
 * rewritten). Writing goes to a temporary file in the same directory
 * renamed over the index; a failure to write is ignored.
 */
#include "symbols/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KSX_MAGIC       "PAKSYMIX"
#define KSX_VERSION     3u
#define KSX_NOMOD       UINT32_MAX

_Static_assert(sizeof(struct pa_symtab_node) == 24, "index layout");

/* What the index was made from: equal or the index is not used. */
struct ksx_ident {
	uint8_t pa_id[20]; /* the running pa's build-id (pa_idx_self_id) */
	uint32_t pad;
	uint8_t build_id[64];
	uint32_t build_id_len;
	uint32_t from_proc; /* 1: size-less file (boot id + modules), 0: size/mtime */
	uint64_t size;
	int64_t mtime_sec, mtime_nsec;
	char boot_id[48];
	uint64_t modules_hash;
};

struct ksx_hdr {
	struct pa_idx_head head;
	struct ksx_ident id;
	struct pa_idx_table tab;
};

struct ksx_rec {
	uint32_t name, mod;
	uint8_t binding, type, pad[2];
};

/* The names and sizes of /proc/modules (its other columns change while a
 * module is in use): module addresses can change without a reboot. */
static uint64_t modules_hash(void)
{
	uint64_t h = 0x6d6f64756c6573ull;
	char line[512];
	FILE *f = fopen("/proc/modules", "re");
	if (!f)
		return h;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		if (sp)
			sp = strchr(sp + 1, ' ');
		size_t len = sp ? (size_t)(sp - line) : strlen(line);
		h = pa_hash64(h ^ pa_hash_bytes(line, len));
	}
	fclose(f);
	return h;
}

static int ident_of(const char *path, const uint8_t *bid, size_t bid_len, struct ksx_ident *id)
{
	struct stat st;
	memset(id, 0, sizeof(*id));
	if (!bid_len || bid_len > sizeof(id->build_id))
		return -EINVAL;
	if (pa_idx_self_id(id->pa_id))
		return -ENOENT; /* no build-id of our own: no index */
	if (stat(path, &st))
		return -errno;
	memcpy(id->build_id, bid, bid_len);
	id->build_id_len = (uint32_t)bid_len;
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		id->size = (uint64_t)st.st_size;
		id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
		id->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
		return 0;
	}
	/* /proc/kallsyms: same build-id and boot, same modules */
	int rc = -ENOENT;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	id->from_proc = 1;
	if (f && fgets(id->boot_id, sizeof(id->boot_id), f) && id->boot_id[0])
		rc = 0;
	if (f)
		fclose(f);
	id->modules_hash = modules_hash();
	return rc;
}

char *pa_ksym_cache_default_dir(void)
{
	return pa_idx_cache_dir("kallsyms", "PA_NO_KSYM_CACHE");
}

/* ---- reading ------------------------------------------------------------ */

static void ksx_fill(const struct pa_symtab *t, size_t i);

int pa_ksym_index_open(const char *idx_path, const char *src_path, const uint8_t *bid,
                       size_t bid_len, struct pa_symtab **out)
{
	struct ksx_ident want;
	struct pa_symtab *t = NULL;
	void *map = MAP_FAILED;
	size_t len = 0;
	int rc;

	*out = NULL;
	if ((rc = ident_of(src_path, bid, bid_len, &want)))
		goto out;
	void *m;
	bool as_written;
	if ((rc = pa_idx_map(idx_path, sizeof(struct ksx_hdr), &m, &len, &as_written)))
		goto out;
	map = m;
	rc = -EINVAL;
	const unsigned char *base = map;
	const struct ksx_hdr *h = map;
	const struct pa_idx_table *tb = &h->tab;
	if (!pa_idx_valid(map, len, KSX_MAGIC, KSX_VERSION, sizeof(*h), tb, sizeof(struct ksx_rec),
	                  as_written) ||
	    memcmp(&h->id, &want, sizeof(want)))
		goto out;
	uint64_t n = tb->n;
	rc = -ENOMEM;
	if (!(t = pa_symtab_new(PA_SYMTAB_KALLSYMS)))
		goto out;
	t->origin = "kallsyms";
	t->symfile = pa_arena_strdup(&t->arena, src_path);
	t->n = (size_t)n;
	t->root = tb->root;
	t->overlaps = tb->overlaps != 0;
	t->tree = (struct pa_symtab_node *)(base + tb->tree_off);
	/* (calloc: pages of zeros the kernel hands out when first touched) */
	t->lazy = true;
	t->fill = ksx_fill;
	if (n) {
		t->syms = calloc(n, sizeof(*t->syms));
		t->modules = calloc(n, sizeof(*t->modules));
	}
	if (!t->symfile || (n && (!t->syms || !t->modules)))
		goto out;
	t->map = map;
	t->map_len = len;
	map = MAP_FAILED;
	*out = t;
	t = NULL;
	rc = 0;
out:
	if (map != MAP_FAILED)
		munmap(map, len);
	pa_symtab_free(t);
	return rc;
}

static void ksx_fill(const struct pa_symtab *t, size_t i)
{
	const unsigned char *base = t->map;
	const struct ksx_hdr *h = t->map;
	const struct ksx_rec *r = (const struct ksx_rec *)(base + h->tab.recs_off) + i;
	const struct pa_symtab_node *x = &t->tree[i];
	struct pa_sym *s = &t->syms[i]; /* (the table's own memory: see lazy) */
	const char *name = pa_idx_str(t->map, &h->tab, r->name);
	s->start = x->start;
	s->end = x->end < x->start ? x->start : x->end;
	s->binding = r->binding;
	s->type = r->type;
	s->inlined = false;
	s->linkage_name = NULL;
	t->modules[i] = r->mod == KSX_NOMOD ? NULL : pa_idx_str(t->map, &h->tab, r->mod);
	/* last: a name says the entry is filled (a damaged index's offset:
	 * none) */
	s->name = name ? name : "";
}

/* ---- writing ------------------------------------------------------------ */

/* The distinct module names, each with its offset in the module area. */
struct mods {
	struct pa_u64map by_hash; /* hash -> index + 1 of its first name */
	const char **name;
	uint32_t *off;
	size_t n, cap;
	uint64_t len;
};

/* Index of module name m in ms, added when new (-1: ENOMEM). */
static long mods_find(struct mods *ms, const char *m)
{
	int created;
	void **slot = pa_u64map_slot(&ms->by_hash, pa_hash_str(m), &created);
	if (!slot)
		return -1;
	if (!created) {
		size_t j = (size_t)(uintptr_t)*slot - 1;
		if (!strcmp(ms->name[j], m))
			return (long)j;
		for (j = 0; j < ms->n; j++) /* a hash collision: by name */
			if (!strcmp(ms->name[j], m))
				return (long)j;
	}
	if (PA_GROW(ms->name, ms->cap, ms->n + 1, 64))
		return -1;
	uint32_t *off = realloc(ms->off, ms->cap * sizeof(*off));
	if (!off)
		return -1;
	ms->off = off;
	if (created)
		*slot = (void *)(uintptr_t)(ms->n + 1);
	ms->name[ms->n] = m;
	ms->off[ms->n] = (uint32_t)ms->len;
	ms->len += strlen(m) + 1;
	return (long)ms->n++;
}

int pa_ksym_index_write(const struct pa_symtab *t, const char *idx_path, const char *src_path,
                        const uint8_t *bid, size_t bid_len)
{
	struct mods ms = {0};
	unsigned char *file = NULL;
	int rc;
	struct ksx_hdr h;

	memset(&h, 0, sizeof(h));
	if ((rc = ident_of(src_path, bid, bid_len, &h.id)))
		goto out;
	/* sizes first: the file is made in one buffer, written at once */
	rc = -EINVAL;
	if (t->kind != PA_SYMTAB_KALLSYMS || t->n >= PA_SYMB_NIL)
		goto out;
	uint64_t names_len = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pa_sym *s = &t->syms[i];
		/* kallsyms: vstart == start, so syms[] follow from tree[] */
		rc = -EINVAL;
		if (s->start != t->tree[i].start || s->end != t->tree[i].end || s->linkage_name ||
		    s->inlined)
			goto out;
		names_len += strlen(s->name) + 1;
		rc = -ENOMEM;
		if (t->modules && t->modules[i] && mods_find(&ms, t->modules[i]) < 0)
			goto out;
	}
	rc = -E2BIG;
	if (names_len + ms.len >= UINT32_MAX)
		goto out;
	pa_idx_layout(&h.head, &h.tab, KSX_MAGIC, KSX_VERSION, sizeof(h), t, sizeof(struct ksx_rec),
	              names_len + ms.len);
	const struct pa_idx_table *tb = &h.tab;
	rc = -ENOMEM;
	if (h.head.file_len > SIZE_MAX || !(file = malloc((size_t)h.head.file_len)))
		goto out;
	memset(file, 0, (size_t)tb->tree_off);
	if (t->n)
		memcpy(file + tb->tree_off, t->tree, t->n * sizeof(struct pa_symtab_node));
	struct ksx_rec *recs = (struct ksx_rec *)(file + tb->recs_off);
	char *strs = (char *)(file + tb->strs_off);
	uint32_t pos = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pa_sym *s = &t->syms[i];
		size_t l = strlen(s->name) + 1;
		const char *m = t->modules ? t->modules[i] : NULL;
		long j = m ? mods_find(&ms, m) : -1; /* found: added in the first pass */
		recs[i] = (struct ksx_rec){
		    .name = pos,
		    .mod = j < 0 ? KSX_NOMOD : (uint32_t)(names_len + ms.off[j]),
		    .binding = s->binding,
		    .type = s->type,
		};
		memcpy(strs + pos, s->name, l);
		pos += (uint32_t)l;
	}
	for (size_t j = 0; j < ms.n; j++)
		memcpy(strs + names_len + ms.off[j], ms.name[j], strlen(ms.name[j]) + 1);
	memcpy(file, &h, sizeof(h));
	rc = pa_idx_seal_write(idx_path, file, (size_t)h.head.file_len);
out:
	free(file);
	pa_u64map_release(&ms.by_hash);
	free(ms.name);
	free(ms.off);
	return rc;
}

/* ---- the loader --------------------------------------------------------- */

struct pa_symtab *pa_symtab_load_kallsyms_cached(const char *path, const struct pa_ksym_cache *c,
                                                 const struct pa_sym_opts *opts, struct pa_err *err)
{
	struct pa_symtab *t = NULL;
	struct pa_sym_opts o;
	char *idx = NULL;
	int rc;

	if ((rc = pa_sym_opts_read(opts, &o, err))) { /* as the parse would */
		errno = -rc;
		goto out;
	}
	if (!c || !c->dir || !c->build_id_len || c->build_id_len > 64 ||
	    !(idx = pa_idx_name(c->dir, c->build_id, c->build_id_len, path)))
		goto parse;
	if (!pa_ksym_index_open(idx, path, c->build_id, c->build_id_len, &t))
		goto out;
parse:
	t = pa_symtab_load_kallsyms(path, opts, err);
	if (t && idx)
		(void)pa_ksym_index_write(t, idx, path, c->build_id, c->build_id_len);
out:
	free(idx);
	return t;
}
