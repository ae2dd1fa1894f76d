/* buildid.h - build-ids, the perf-compatible build-id cache, and DSO finders.
 *
 * This is the only header of the buildid/ layer that other layers include.
 *
 * Invariants:
 *  - A build-id is at most 20 bytes; size 0 means "no build-id".  Two ids are
 *    equal only if their sizes and bytes are equal.
 *  - Identity of a file: the GNU build-id note (NT_GNU_BUILD_ID, owner "GNU")
 *    when the file has one.  For files without a note pa uses a FALLBACK id:
 *    the SHA-1 of the whole file content (20 bytes).  Such ids are pa's own
 *    convention: perf records no build-id for note-less files, so a SHA-1 id
 *    can only come from pa itself (e.g. an archive made by pa).  Everything
 *    that validates a candidate file against an id (cache adds, finders)
 *    accepts a file if its note equals the id, or, when it has no note, if
 *    its SHA-1 equals the id.
 *  - The cache uses perf's ~/.debug layout and stays readable by real perf:
 *        DIR/<dso>/<hex>/{elf,debug,kallsyms,vdso}
 *        DIR/.build-id/<hex[0:2]>/<hex[2:]> -> ../../<dso>/<hex>   (relative)
 *    where <dso> is the absolute DSO path without its leading '/', or a
 *    bracketed name such as "[kernel.kallsyms]" or "[vdso]".
 *  - Nothing is ever visible half-written under a final cache name: files are
 *    written to a temporary name in the same directory, fsync'ed, validated
 *    and then published with a no-replace rename.  Existing entries are never
 *    overwritten.  Stale temporaries left by a crash are named ".tmp-*" and
 *    ignored by everything here (and by perf, which only looks at hex names
 *    and the fixed file names above).
 *  - Library code never prints or exits; errors are negative errno values or
 *    negated PA_ERR_* codes (-PA_ERR_NOT_FOUND...), with a message in the
 *    caller's struct pa_err (err may be NULL everywhere).
 *  - No global mutable state.  A struct pa_bcache is immutable after open and
 *    may be shared between threads; a struct pa_finder is not thread-safe.
 */
#ifndef PA_BUILDID_H
#define PA_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define PA_BUILDID_MAX 20
#define PA_BUILDID_HEX_MAX (2 * PA_BUILDID_MAX + 1)

struct pa_buildid {
	uint8_t data[PA_BUILDID_MAX];
	uint8_t size; /* 0 = none */
};

/* ---- Build-id values ---------------------------------------------------- */

/* Lower-case hex of id->size bytes ("" for size 0). */
void pa_buildid_to_hex(const struct pa_buildid *id, char out[41]);
/* Parse an even number (2..40) of hex digits, either case.  0 or -EINVAL. */
int pa_buildid_from_hex(const char *hex, struct pa_buildid *out);
bool pa_buildid_equal(const struct pa_buildid *a, const struct pa_buildid *b);
/* True if size > 0 and not all bytes are zero (perf's build_id__is_defined). */
bool pa_buildid_is_defined(const struct pa_buildid *id);

/* ---- Reading build-ids -------------------------------------------------- */

/* GNU build-id note of an ELF file: SHT_NOTE sections first, then PT_NOTE
 * segments; any ELF class and byte order (via libelf).  Notes longer than 20
 * bytes are truncated to 20 (as perf does).
 * Returns 0, -PA_ERR_NOT_FOUND when the file has no build-id note,
 * -PA_ERR_FORMAT when it is not ELF, or a negative errno. */
int pa_buildid_read_elf(const char *path, struct pa_buildid *out, struct pa_err *err);
/* Same for an ELF image in memory. */
int pa_buildid_read_elf_mem(const void *data, size_t len, struct pa_buildid *out,
			    struct pa_err *err);

/* Fallback id for files without a note: SHA-1 (libcrypto EVP) of the whole
 * content, 20 bytes.  Reads to EOF, so it works on pipes and procfs files. */
int pa_buildid_sha1_file(const char *path, struct pa_buildid *out, struct pa_err *err);
int pa_buildid_sha1_mem(const void *data, size_t len, struct pa_buildid *out);

/* The id pa uses for a file: its note, else its SHA-1.  *is_fallback (may be
 * NULL) is set when the SHA-1 was used.  Non-ELF files get their SHA-1. */
int pa_buildid_identify(const char *path, struct pa_buildid *out, bool *is_fallback,
			struct pa_err *err);

/* 1 if the file at path is identified by id (note equal, or no note and
 * SHA-1 equal), 0 if it exists but is something else, negative on error
 * (-ENOENT when it does not exist). */
int pa_buildid_file_matches(const char *path, const struct pa_buildid *id, struct pa_err *err);

/* The running process's vdso image (it ends with its section header
 * table): its bytes and *size, or NULL when there is none that looks
 * whole (at most 1 MiB). */
const void *pa_buildid_running_vdso(size_t *size);

/* The running kernel's build-id, parsed from the raw note list in
 * /sys/kernel/notes (notes_path overrides it, for tests; NULL = default).
 * 0, -PA_ERR_NOT_FOUND when there is no GNU build-id note, or an error. */
int pa_buildid_running_kernel(const char *notes_path, struct pa_buildid *out,
			      struct pa_err *err);

/* ---- The build-id cache (perf's ~/.debug) ------------------------------- */

/* PERF_MAP is pa's own: a JIT's /tmp/perf-PID.map, filed under the SHA-1
 * of its content (it has no build-id), for another machine to read. */
enum pa_bcache_kind {
	PA_BCACHE_ELF,
	PA_BCACHE_DEBUG,
	PA_BCACHE_KALLSYMS,
	PA_BCACHE_VDSO,
	PA_BCACHE_PERF_MAP,
	PA_BCACHE_KCORE, /* pa's: a copy of perf's kcore copy, beside kallsyms */
	PA_BCACHE_NR_KINDS
};

/* "elf", "debug", "kallsyms", "vdso" (perf's file names), "perf-map",
 * "kcore", or NULL. */
const char *pa_bcache_kind_name(enum pa_bcache_kind kind);

/* Whether a file of this kind carries the build-id it is filed under
 * (kallsyms and kcore do not: they are taken on the kernel's word). */
bool pa_bcache_kind_has_buildid(enum pa_bcache_kind kind);

struct pa_bcache;

/* Open the cache rooted at dir.  dir NULL means perf's default: the
 * PERF_BUILDID_DIR environment variable if set and non-empty (perf exports it
 * to its scripts, and perf-archive reads it), else $HOME/.debug.  Real perf
 * itself takes the directory from --buildid-dir or the buildid.dir config;
 * pass it explicitly to match those.  Does not touch the file system: a
 * missing directory is created by the first add.  Returns NULL with *err set
 * (and errno) on failure.  Free with pa_bcache_close(). */
struct pa_bcache *pa_bcache_open(const char *dir, struct pa_err *err);
void pa_bcache_close(struct pa_bcache *c);
const char *pa_bcache_dir(const struct pa_bcache *c);

/* Path of the cached file for id/kind if it exists, resolved through the
 * .build-id link (DIR/<dso>/<hex>/<kind>).  Also understands perf's old
 * layouts (the link being the file itself; DIR/[kernel.kallsyms]/<hex> as a
 * file).  malloc'd string, or NULL with err->code -PA_ERR_NOT_FOUND when not
 * cached, or another error. */
char *pa_bcache_find(const struct pa_bcache *c, const struct pa_buildid *id,
		     enum pa_bcache_kind kind, struct pa_err *err);

/* The newest of perf's kcore copies for the kernel id (`perf buildid-cache
 * --kcore`: DIR/[kernel.kcore]/<hex>/<timestamp>/kcore), malloc'd, or NULL. */
char *pa_bcache_find_perf_kcore(const struct pa_bcache *c, const struct pa_buildid *id);

/* Path of the entry directory the .build-id link of id points to
 * (DIR/<dso>/<hex>), malloc'd, or NULL (-PA_ERR_NOT_FOUND, or an error). */
char *pa_bcache_entry_dir(const struct pa_bcache *c, const struct pa_buildid *id,
			  struct pa_err *err);

/* Add a copy of src_path as DIR/<dso_name>/<hex>/<kind> and link it from
 * DIR/.build-id.  dso_name is the original absolute path of the DSO as
 * recorded (canonical: no empty, "." or ".." components; not under
 * "/.build-id"; pa does not realpath() it, the file may be foreign), or a
 * bracketed name such as "[kernel.kallsyms]" or "[vdso]"; anything else is
 * -EINVAL.  src_path is read to EOF (pipes and /proc files work).
 *
 * For PA_BCACHE_ELF, PA_BCACHE_DEBUG and PA_BCACHE_VDSO the copied content
 * must be identified by id (see the invariants above), else
 * -PA_ERR_BUILDID_MISMATCH and nothing is published; KALLSYMS is not checked.
 *
 * Atomic and safe against concurrent adders (other threads or processes,
 * including real perf): the data is written to a temporary file in the entry
 * directory, fsync'ed and published with a no-replace rename; the link is
 * created as a temporary symlink and published the same way.
 *  - An existing file with identical content is kept: returns 0.
 *  - An existing file with different content is a conflict:
 *    -PA_ERR_BUILDID_MISMATCH, nothing is overwritten.
 *  - If the id is already linked to another DSO name (e.g. /lib vs /usr/lib
 *    on merged-/usr systems) the link is kept, as perf does, and 0 is
 *    returned; the data is stored under dso_name as asked.  A dangling link
 *    is replaced.
 * Returns 0 or a negative error. */
int pa_bcache_add_file(struct pa_bcache *c, const char *src_path, const char *dso_name,
		       const struct pa_buildid *id, enum pa_bcache_kind kind, struct pa_err *err);
int pa_bcache_add_mem(struct pa_bcache *c, const void *data, size_t len, const char *dso_name,
		      const struct pa_buildid *id, enum pa_bcache_kind kind, struct pa_err *err);

/* The DSO name the .build-id link of id points to ("/usr/lib/libc.so.6",
 * "[kernel.kallsyms]"), malloc'd, or NULL (-PA_ERR_NOT_FOUND, or an error). */
char *pa_bcache_dso_name(const struct pa_bcache *c, const struct pa_buildid *id,
			 struct pa_err *err);

/* Like `perf buildid-cache --remove`: unlink the .build-id link of id first
 * (the entry disappears atomically), then delete the entry directory it
 * pointed to.  0, -PA_ERR_NOT_FOUND, or an error. */
int pa_bcache_remove(struct pa_bcache *c, const struct pa_buildid *id, struct pa_err *err);

/* Like `perf buildid-cache --purge`: remove every id cached under dso_name
 * (each DIR/<dso>/<hex> directory, and its link if it points there).
 * Returns the number of ids removed (>= 0), -PA_ERR_NOT_FOUND when nothing is
 * cached under that name, or an error. */
int pa_bcache_purge(struct pa_bcache *c, const char *dso_name, struct pa_err *err);

/* Iterate the entries reachable from DIR/.build-id (what `perf buildid-cache
 * --list` shows), in sorted order.  cb gets the id, the DSO name ("/usr/lib/..."
 * or "[kernel.kallsyms]"; NULL for an old-style entry whose link is a plain
 * file) and the entry path (the DIR/<dso>/<hex> directory, or the old-style
 * file).  Dangling links and temporaries are skipped.  A non-zero return from
 * cb stops the walk and is returned; otherwise 0 or a negative error. */
int pa_bcache_foreach(const struct pa_bcache *c,
		      int (*cb)(void *ctx, const struct pa_buildid *id, const char *dso_name,
				const char *path),
		      void *ctx, struct pa_err *err);

/* Iterate the ids cached under one DSO name (the DIR/<dso>/<hex> directories,
 * linked or not), in sorted order; cb as for pa_bcache_foreach (path is the
 * entry directory).  0 when there are none (or the name was never cached), a
 * non-zero value from cb, or a negative error (-EINVAL for a bad name). */
int pa_bcache_foreach_dso(const struct pa_bcache *c, const char *dso_name,
			  int (*cb)(void *ctx, const struct pa_buildid *id, const char *dso_name,
				    const char *path),
			  void *ctx, struct pa_err *err);

/* ---- Finders: where is the ELF / debug file / kallsyms for a build-id ---- */

enum pa_find_result {
	PA_FIND_OK,
	PA_FIND_NOT_FOUND, /* no candidate exists */
	PA_FIND_MISMATCH,  /* candidates exist, none has the wanted build-id */
	PA_FIND_DELETED,   /* the mapping was of a deleted file and nothing matched */
	PA_FIND_ERROR,
};

/* String for a result ("ok", "not found", ...). */
const char *pa_find_result_str(enum pa_find_result r);

struct pa_finder_opts {
	size_t sz;		      /* sizeof(struct pa_finder_opts) */
	const char *symfs;	      /* like perf --symfs: root prepended to original paths */
	const char *buildid_dir;      /* cache root; NULL = pa_bcache_open(NULL) default */
	bool no_debuginfod;	      /* never ask debuginfod */
	const char *system_debug_dir; /* default: <symfs>/usr/lib/debug */
	const char *kernel_notes;     /* default /sys/kernel/notes (for tests) */
	const char *proc_kallsyms;    /* default /proc/kallsyms (for tests) */
	bool no_cache_add;	      /* do not add debuginfod downloads to the cache */
	bool no_system_debug;	      /* find_elf: skip the system debug dir, whose
				       * .debug files are not binaries (pa archive) */
};
#define PA_FINDER_OPTS(...) ((struct pa_finder_opts){.sz = sizeof(struct pa_finder_opts), __VA_ARGS__})

struct pa_finder;

/* opts may be NULL (defaults).  Unknown non-zero bytes beyond what this
 * version knows are rejected (-EINVAL).  debuginfod is used only when built
 * with libdebuginfod (PA_HAVE_DEBUGINFOD), !no_debuginfod and DEBUGINFOD_URLS
 * is set and non-empty when the finder is created.  Returns NULL with *err
 * set on failure.  Free with pa_finder_free(). */
struct pa_finder *pa_finder_new(const struct pa_finder_opts *opts, struct pa_err *err);
void pa_finder_free(struct pa_finder *f);
/* The cache the finder uses (owned by the finder). */
struct pa_bcache *pa_finder_cache(struct pa_finder *f);

/* Find the binary for (orig_path, id), trying in order, each candidate
 * validated against id:
 *   "symfs"        <symfs><orig_path>
 *   "cache"        the cache's elf, then its debug file
 *   "path"         orig_path itself
 *   "system-debug" <system_debug_dir>/.build-id/xx/rest.debug, then .../xx/rest
 *                  (skipped with opts->no_system_debug)
 *   "debuginfod"   debuginfod_find_executable, then find_debuginfo; the
 *                  download is added to the cache and the cache path returned
 * Bracketed names ("[vdso]", "[kernel.kallsyms]" for a vmlinux) are not files:
 * only the id-keyed steps apply (for "[vdso]" the cache's vdso file first).
 * An orig_path ending in " (deleted)" is looked up without the suffix, and
 * NOT_FOUND/MISMATCH become PA_FIND_DELETED.  With no id (NULL or size 0) nothing can be
 * validated: only <symfs><orig_path> and orig_path are tried, with origins
 * "symfs-unverified" / "path-unverified", then the cache under orig_path's
 * name, origin "cache-sha1": only when exactly one entry is cached under that
 * name and it is a note-less ELF filed under the SHA-1 of its content (what
 * pa archive packs for a file without a build-id note; nothing else can be
 * told apart from a stale entry).
 * On PA_FIND_OK *path_out is malloc'd and *origin (may be NULL) is a static
 * string.  MISMATCH means some candidate existed with another build-id. */
enum pa_find_result pa_finder_find_elf(struct pa_finder *f, const char *orig_path,
				       const struct pa_buildid *id, char **path_out,
				       const char **origin);
/* A JIT's symbol map "/tmp/perf-PID.map" (it has no build-id): orig_path
 * itself when use_path (the caller knows the recording was made on this
 * host: on another, that path is some other process's), origin "path";
 * else the cache's perf-map entry under orig_path's name, origin
 * "cache-sha1", only when exactly one is cached there and its content still
 * has the SHA-1 it is filed under (pa archive packs it so). NOT_FOUND, or
 * MISMATCH when several are cached and none can be told to be the one.
 * id_out (may be NULL) gets the SHA-1 of the file found: the id it is (or
 * is to be) filed under in the cache. */
enum pa_find_result pa_finder_find_perf_map(struct pa_finder *f, const char *orig_path,
					    bool use_path, char **path_out, const char **origin,
					    struct pa_buildid *id_out);
/* Why pa_finder_find_perf_map() found nothing (fr not OK), for -v and
 * pa archive: a static string. */
const char *pa_finder_perf_map_why(enum pa_find_result fr, bool use_path);
/* Separate debug info for id: cache "debug", system debug dir
 * (.build-id/xx/rest.debug), debuginfod find_debuginfo (added to the cache
 * only if the id already has a cache entry, whose DSO name is reused);
 * or NOT_FOUND / MISMATCH as above. */
enum pa_find_result pa_finder_find_debug(struct pa_finder *f, const struct pa_buildid *id,
					 char **path_out);
/* Files that may hold a kernel module's symbols, in perf 6.1's order
 * (dso__load() for a module DSO), NOT validated (the symbol loader checks
 * the build-id, perf's way): with an id, DIR/.build-id/xx/rest when that is
 * a file (old layout), else DIR/.build-id/xx/rest/elf then .../debug -
 * "kallsyms" both times for a module recorded as "[name]" rather than by
 * its path, as perf does; then <symfs>/<orig_path> (orig_path as it is
 * without a symfs: for "[name]" relative to the current directory, like
 * perf). Nothing from /lib/modules of this machine otherwise. cb gets each
 * candidate that is a regular file, with its origin ("cache",
 * "cache-debug", "path"), until it returns non-zero, which is returned;
 * else 0, or -ENOMEM. */
int pa_finder_kmod_candidates(struct pa_finder *f, const char *orig_path,
			      const struct pa_buildid *id,
			      int (*cb)(void *ctx, const char *path, const char *origin),
			      void *ctx);
/* The kernel's symbols for id: the cached kallsyms; else /proc/kallsyms ONLY
 * if the running kernel's build-id equals id.  A recording from another
 * kernel never gets the local kallsyms: PA_FIND_MISMATCH.  NOT_FOUND when the
 * running kernel's id cannot be read, or /proc/kallsyms shows only zero
 * addresses (kptr_restrict; perf caches kallsyms only when it is 0). */
enum pa_find_result pa_finder_find_kallsyms(struct pa_finder *f, const struct pa_buildid *id,
					    char **path_out);
/* The kernel's code for id as an ELF core: a cached copy (pa's kind
 * "kcore", else perf's newest kcore copy), else /proc/kcore ONLY if the
 * running kernel's build-id equals id and it can be read (root). */
enum pa_find_result pa_finder_find_kcore(struct pa_finder *f, const struct pa_buildid *id,
                                         char **path_out);

#endif
