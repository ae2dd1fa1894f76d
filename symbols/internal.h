/* internal.h - shared by the symbols/ sources, never included elsewhere.
 *
 * A table is built by replaying perf's operations on a red-black tree that
 * behaves like the kernel's lib/rbtree.c (same insertion and erasure
 * rebalancing, hence the same shape), then frozen into arrays: the symbols
 * in address order plus, for each, the indices of its tree children. Lookup
 * walks that frozen tree with perf's comparison, so overlapping symbols
 * resolve to the symbol perf would return.
 */
#ifndef PA_SYMBOLS_INTERNAL_H
#define PA_SYMBOLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symbols.h"
#include "util/rbtree.h"
#include "util/util.h"

#define PA_SYMB_NIL PA_RB_NIL

/* A symbol of the build-time tree. The tree is util/rbtree.h's over the
 * same indices (struct pa_symb.rb); node memory is growable arrays, erased
 * nodes stay in them, unlinked. */
struct pa_symb_node {
	uint64_t start, end; /* perf's space: file offsets for ELF */
	uint64_t vstart;     /* what pa_sym.start reports: the ELF vaddr */
	const char *name;    /* arena; for kallsyms "name\t[module]" until frozen */
	const char *linkage_name; /* arena: the file's name when name is demangled */
	uint8_t binding, type;
};

struct pa_symb {
	struct pa_symb_node *nodes; /* by index, parallel to rb.node */
	size_t n, cap;
	struct pa_rb rb;
	size_t live; /* nodes linked in the tree */
};

void pa_symb_init(struct pa_symb *b);
void pa_symb_release(struct pa_symb *b);
/* perf's symbol__new() + __symbols__insert(): end = size ? start + size :
 * start; equal starts go to the right (after). vstart is the address the
 * table reports for it (== start except for ELF). name must outlive the
 * builder (arena). Returns 0 or -ENOMEM. */
int pa_symb_insert(struct pa_symb *b, uint64_t start, uint64_t vstart, uint64_t size,
                   uint8_t binding, uint8_t type, const char *name);
void pa_symb_erase(struct pa_symb *b, uint32_t idx);
uint32_t pa_symb_first(const struct pa_symb *b);
uint32_t pa_symb_next(const struct pa_symb *b, uint32_t idx);
/* Inserts each of v as it is (perf's symbols__insert() without fixups),
 * names copied into a. Returns 0 or -ENOMEM. */
int pa_symb_insert_all(struct pa_symb *b, struct pa_arena *a, const struct pa_sym_insert *v,
                       size_t n);
/* perf's symbols__fixup_end(is_kallsyms) and symbols__fixup_duplicate(). */
void pa_symb_fixup_end(struct pa_symb *b, bool is_kallsyms);
void pa_symb_fixup_duplicate(struct pa_symb *b);

/* perf's choose_best_symbol(): true when a wins over b (a comes first). */
bool pa_symb_choose_a(const struct pa_symb_node *a, const struct pa_symb_node *b);

/* A PT_LOAD of the main file (zero-sized ones left out). */
struct pa_symtab_seg {
	uint64_t offset, vaddr, filesz, memsz;
};

/* Frozen tree node: perf-space start/end and children. */
struct pa_symtab_node {
	uint64_t start, end;
	uint32_t left, right;
};
/* The most nodes on a path down a frozen tree: it is a red-black tree of
 * fewer than 2^32 nodes (2 log2(n + 1)). A walk goes no deeper, so a
 * damaged index's links cannot send it round a cycle. */
#define PA_SYMTAB_MAX_DEPTH 64

struct pa_symtab {
	enum pa_symtab_kind kind;
	size_t n;
	struct pa_sym *syms;         /* n, in perf's order */
	struct pa_symtab_node *tree; /* n, same order, perf's space */
	uint32_t root;
	/* When no two symbols can match the same address, a binary search over
	 * tree[].start gives perf's answer; otherwise walk the tree. */
	bool overlaps;
	const char **modules; /* kallsyms only: n entries, NULL = kernel */
	struct pa_symtab_seg *segs;
	size_t nsegs;
	const char *origin;
	const char *symfile;
	int elf_type;
	uint8_t build_id[64];
	size_t build_id_len;
	struct pa_kimage kimage; /* pa_symtab_load_vmlinux() tables only */
	struct pa_symtab *adopted; /* freed with this table (pa_symtab_adopt) */
	void *map;                 /* an index the table lies in (ksymcache.c, elfcache.c), */
	size_t map_len;  /* unmapped by pa_symtab_free */
	/* An index's syms and modules are filled entry by entry when first
	 * asked (fill, below): a report touches a few hundred of the
	 * kernel's ~200k symbols, and filling them all at open cost 10 MB of
	 * fresh pages each run (bench/README.md). Both calloc'd, NULL name:
	 * not filled yet. So a table is read by one thread at a time. fill:
	 * fills entry i (ksymcache.c, elfcache.c). */
	bool lazy;
	void (*fill)(const struct pa_symtab *t, size_t i);
	struct pa_arena arena; /* everything above that is allocated */
};

/* New empty table (arena initialised), or NULL. */
struct pa_symtab *pa_symtab_new(enum pa_symtab_kind kind);
/* Freeze the builder's tree into t. split_modules: names are
 * "name\t[module]" (kallsyms) and get split. Returns 0 or -ENOMEM. */
int pa_symtab_freeze(struct pa_symtab *t, const struct pa_symb *b, bool split_modules);

/* idxfile.c: what the symbol indexes share. pa_idx_cache_dir: pa's cache
 * directory SUB (malloc'd), NULL when PA_NO_SYM_CACHE or off_env is set
 * (non-empty, not "0") or there is no absolute home; pa_idx_name: the
 * index of bid (hex, "none" when len is 0) from src_path in dir;
 * pa_idx_map: the whole file mapped read-only (0, or -errno, -EINVAL when
 * shorter than min_len); *as_written: the file's inode and modification
 * time are the ones its writer recorded in its header (see
 * pa_idx_valid). */
uint64_t pa_idx_hash(const unsigned char *p, size_t n);
char *pa_idx_cache_dir(const char *sub, const char *off_env);
char *pa_idx_name(const char *dir, const uint8_t *bid, size_t len, const char *src_path);
int pa_idx_map(const char *path, size_t min_len, void **map, size_t *len, bool *as_written);
/* What every index starts with, and the sections of the table it holds:
 * the header, n frozen tree nodes, n records of the format's, the strings
 * (NUL-terminated). */
struct pa_idx_head {
	char magic[8];
	uint32_t version, bom, ptr_size, hdr_size;
	uint64_t file_len;
	uint64_t hash; /* of the bytes from PA_IDX_HASHED_FROM to the end */
	/* the file as its writer left it: its inode, and the modification
	 * time the writer gave it after its last write */
	uint64_t ino;
	int64_t mtime_sec, mtime_nsec;
};
#define PA_IDX_HASHED_FROM offsetof(struct pa_idx_head, ino)
struct pa_idx_table {
	uint64_t n, strs_len;
	uint32_t root, overlaps;
	uint64_t tree_off, recs_off, strs_off;
};
/* h (but its hash) and tb for t's table, records of rec_size bytes and
 * strs_len bytes of strings after a header of hdr_size; the index's
 * length in h->file_len. */
void pa_idx_layout(struct pa_idx_head *h, struct pa_idx_table *tb, const char *magic,
                   uint32_t version, size_t hdr_size, const struct pa_symtab *t, size_t rec_size,
                   uint64_t strs_len);
/* The index file (len bytes, its header in place but its stamp and hash)
 * written whole and atomically: a temporary file in path's directory
 * (directories made), stamped, hashed, given the stamp's modification
 * time and renamed over path. 0 or -errno. */
int pa_idx_seal_write(const char *path, unsigned char *file, size_t len);
/* Is the mapped index (len bytes) one of this magic, version and header
 * size, made here (byte order, pointer size), whole (its length), its
 * sections and root within it and its strings ended? Its hash is checked
 * only when the file is not as its writer left it (!as_written: written
 * to, or replaced, since): hashing the kernel's index took a tenth of a
 * small report's time (bench/README.md). What the hash cannot stand for,
 * a damaged or hostile file, is caught where it is read: tree walks stay
 * within the table (PA_SYMTAB_MAX_DEPTH), records' string offsets are
 * checked when filled. */
bool pa_idx_valid(const void *map, size_t len, const char *magic, uint32_t version, size_t hdr_size,
                  const struct pa_idx_table *tb, size_t rec_size, bool as_written);
/* The string at off of a valid index's strings (NUL-terminated, as
 * pa_idx_valid checked), or NULL when off is out of them: a record's
 * offsets are checked here, when its entry is filled. */
const char *pa_idx_str(const void *map, const struct pa_idx_table *tb, uint64_t off);
/* The running program's GNU build-id (its first 20 bytes): 0, or -ENOENT
 * when it has none. An index records it, so that one made by other code
 * is not used. */
int pa_idx_self_id(uint8_t out[20]);

/* elfcache.c: the index of an ELF file's table. What a table is made
 * from: the main file (path, and its open descriptor), the debug-file
 * candidate the finder gave (NULL: none), the loader's options
 * (PA_ELFIDX_*). open: fills t (whose build-id, segments and ELF type
 * the caller read from the main file) from a valid index at idx_path; 0,
 * or -errno / -EINVAL for a missing, stale or damaged one. write: t's
 * index, atomically; 0 or -errno. */
struct pa_elfidx_src {
	const char *path;
	int fd;
	const char *candidate;
	uint32_t opts;
};
enum {
	PA_ELFIDX_DEMANGLE = 1,
	PA_ELFIDX_PARAMS = 2,
	PA_ELFIDX_NO_MINIDEBUG = 4,
	PA_ELFIDX_LZMA = 8,
};
int pa_elf_index_open(const char *idx_path, const struct pa_elfidx_src *src, struct pa_symtab *t);
int pa_elf_index_write(const struct pa_symtab *t, const char *idx_path,
                       const struct pa_elfidx_src *src);

/* ksymcache.c: the kallsyms index at idx_path of the table parsed from
 * src_path (kernel build-id bid). open: 0 and *out, or -errno / -EINVAL for
 * a missing, stale, foreign or damaged index. write: atomically (temporary
 * file + rename), creating directories; 0 or -errno. */
int pa_ksym_index_open(const char *idx_path, const char *src_path, const uint8_t *bid,
		       size_t bid_len, struct pa_symtab **out);
int pa_ksym_index_write(const struct pa_symtab *t, const char *idx_path, const char *src_path,
			const uint8_t *bid, size_t bid_len);

/* Read opts safely whatever its sz: copies the known prefix into *out,
 * rejects a non-zero unknown tail (-EINVAL). */
int pa_sym_opts_read(const struct pa_sym_opts *opts, struct pa_sym_opts *out, struct pa_err *err);

/* The name perf would store for name: demangled (per perf) when demangle
 * is set, copied into the arena. NULL on ENOMEM. */
const char *pa_sym_name_arena(struct pa_arena *a, const char *name, bool demangle, bool params);

/* inflate.c: in[0, inlen) inflated into *out (malloc'ed, *outlen bytes);
 * what names the input in errors (PA_ERR_DECOMPRESS, PA_ERR_LIMIT past
 * PA_INFLATE_MAX or PA_XZ_MEMLIMIT, -ENOMEM). xz needs PA_HAVE_LZMA. */
#define PA_INFLATE_MAX (512u << 20) /* a module or MiniDebugInfo image */
#define PA_XZ_MEMLIMIT (128u << 20) /* liblzma's memory: xz -9 needs 65 MiB */
int pa_inflate_gzip(const uint8_t *in, size_t inlen, const char *what, uint8_t **out,
                    size_t *outlen, struct pa_err *err);
int pa_inflate_xz(const uint8_t *in, size_t inlen, const char *what, uint8_t **out, size_t *outlen,
                  struct pa_err *err);

#endif
