/* archive.h - take the symbols to another machine: pack the build-id cache
 * entries a recording needs into one tarball, and unpack such tarballs (pa's
 * own and `perf archive`'s) into a cache, safely.
 *
 * Invariants:
 *  - The tarball holds perf's ~/.debug layout and nothing else:
 *        .pa-manifest                                 (pa's own, first)
 *        <dso>/<hex>/{elf,debug,kallsyms,vdso}        regular files
 *        .build-id/<hex[0:2]>/<hex[2:]> -> ../../<dso>/<hex>   symlinks
 *    so `tar xf OUT -C ~/.debug` works for perf users, and pa reads perf's
 *    `perf archive` tarballs (which add directories and "probes" files).
 *  - Packing never writes anything but the cache (entries it adds, each
 *    validated by build-id) and the output, which is written under a
 *    temporary name in its directory and renamed into place: there is never
 *    a partial output file.
 *  - Unpacking never lets the tarball choose a file-system path.  Every
 *    member's name is checked against the cache layout (no absolute paths,
 *    no "..", symlinks only as .build-id links pointing at an entry in the
 *    cache, hard links only to an earlier member), its data is counted
 *    against size and compression-ratio limits, and it is staged under a
 *    temporary directory in the cache.  Only when the whole tarball has been
 *    read and every ELF checked against its build-id is anything published,
 *    through pa_bcache_add_file() (temporary name, fsync, no-replace
 *    rename): a refused tarball leaves nothing in the cache.
 *  - Library code never prints: what could not be packed, conflicts and
 *    skipped members are reported through the caller's callback.
 *
 * Lifecycle: pa_archive_pack() and pa_archive_unpack() are single calls;
 * nothing outlives them.
 */
#ifndef PA_ARCHIVE_H
#define PA_ARCHIVE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid/buildid.h"
#include "util/util.h"

/* The manifest's member name: one line per packed file,
 *     <hex> TAB <kind> TAB <size> TAB <member name> TAB <original path>
 * after a "# pa archive manifest 1" line and a column header comment. */
#define PA_ARCHIVE_MANIFEST ".pa-manifest"

/* ---- packing ------------------------------------------------------------- */

/* What kind of DSO a recording names (the caller maps its session's kinds). */
enum pa_archive_dso_kind {
	PA_ARCHIVE_DSO_USER,     /* an ELF file by its absolute path */
	PA_ARCHIVE_DSO_KERNEL,   /* [kernel.kallsyms]: packs kallsyms (and a cached vmlinux) */
	PA_ARCHIVE_DSO_MODULE,   /* a kernel module, by path or [name] */
	PA_ARCHIVE_DSO_VDSO,     /* [vdso] and friends */
	PA_ARCHIVE_DSO_PERF_MAP, /* a JIT's /tmp/perf-PID.map: filed by the SHA-1 of its content */
};

struct pa_archive_dso {
	const char *name; /* as recorded: "/usr/lib/x/libc.so.6", "[kernel.kallsyms]" */
	enum pa_archive_dso_kind kind;
	struct pa_buildid id; /* size 0: none recorded */
};

enum pa_archive_compression {
	PA_ARCHIVE_BY_SUFFIX, /* .tar.gz/.tgz, .tar.bz2/.tbz2, .tar.xz/.txz, .tar.zst/.tzst, .tar;
	                         else zstd */
	PA_ARCHIVE_NONE,
	PA_ARCHIVE_GZIP,
	PA_ARCHIVE_BZIP2,
	PA_ARCHIVE_XZ,
	PA_ARCHIVE_ZSTD,
};

/* The compression a name asks for: the first five values above; NONE only
 * for ".tar", ZSTD for any other name. */
enum pa_archive_compression pa_archive_compression_for(const char *path);

struct pa_archive_pack_opts {
	size_t sz;               /* sizeof(struct pa_archive_pack_opts) */
	const char *buildid_dir; /* cache; NULL = pa_bcache_open(NULL) default */
	const char *symfs;       /* like perf --symfs: where the original files are */
	bool no_debuginfod;      /* never ask DEBUGINFOD_URLS servers for missing files */
	enum pa_archive_compression compression;
	const char *kernel_notes;  /* for tests: default /sys/kernel/notes */
	const char *proc_kallsyms; /* for tests: default /proc/kallsyms */
	/* the recording was made on this host: a JIT's /tmp/perf-PID.map may be
	 * read there (else only a copy already in the cache is packed) */
	bool recorded_here;
};
#define PA_ARCHIVE_PACK_OPTS(...)                                                                  \
	((struct pa_archive_pack_opts){.sz = sizeof(struct pa_archive_pack_opts), __VA_ARGS__})

/* One call per distinct DSO (by build-id; by name when it has none): the
 * files packed for it (a bit per enum pa_bcache_kind), their total size,
 * and when nothing or not everything could be packed, why (else NULL).
 * "name" is the DSO's recorded name. */
struct pa_archive_dso_result {
	const char *name;
	struct pa_buildid id;
	unsigned kinds; /* 1u << PA_BCACHE_ELF | ... */
	uint64_t bytes;
	const char *why;     /* NULL: packed completely */
	bool added_to_cache; /* something had to be copied into the cache first */
	/* Recorded without a build-id, and the file found at its path has no
	 * build-id note: packed under the SHA-1 of its content (pa report finds
	 * it by name).  Nothing can tell whether it is still the file that was
	 * recorded. */
	bool content_id;
};
typedef void (*pa_archive_pack_fn)(void *ctx, const struct pa_archive_dso_result *r);

/* Pack the cache entries of dsos[0..n) into out_path (see the invariants).
 * DSOs missing from the cache are first added to it from their original
 * path (or symfs) when the build-id matches, the kernel's kallsyms from
 * /proc/kallsyms only when the running kernel's build-id is the recorded
 * one, the vdso from the running process only when its build-id matches,
 * separate debug files from /usr/lib/debug, and any of them from debuginfod
 * when DEBUGINFOD_URLS is set.  Returns the number of DSOs packed (>= 0;
 * 0 writes no file: -PA_ERR_NOT_FOUND with err set), or a negative error;
 * out_path is then left as it was. */
int pa_archive_pack(const struct pa_archive_dso *dsos, size_t n, const char *out_path,
                    const struct pa_archive_pack_opts *opts, pa_archive_pack_fn cb, void *ctx,
                    struct pa_err *err);

/* ---- unpacking ----------------------------------------------------------- */

struct pa_archive_unpack_opts {
	size_t sz;               /* sizeof(struct pa_archive_unpack_opts) */
	const char *buildid_dir; /* cache; NULL = pa_bcache_open(NULL) default */
	uint64_t max_file_size;  /* per member; 0 = PA_ARCHIVE_MAX_FILE */
	uint64_t max_total_size; /* all members; 0 = PA_ARCHIVE_MAX_TOTAL */
	/* Refuse when the data read exceeds max_ratio times the compressed
	 * bytes read, once past PA_ARCHIVE_RATIO_FLOOR bytes; 0 = default,
	 * UINT32_MAX = off. */
	uint32_t max_ratio;
};
#define PA_ARCHIVE_UNPACK_OPTS(...)                                                                \
	((struct pa_archive_unpack_opts){.sz = sizeof(struct pa_archive_unpack_opts), __VA_ARGS__})

#define PA_ARCHIVE_MAX_FILE    (4ull << 30)
#define PA_ARCHIVE_MAX_TOTAL   (16ull << 30)
#define PA_ARCHIVE_MAX_RATIO   100u
#define PA_ARCHIVE_RATIO_FLOOR (32ull << 20)
#define PA_ARCHIVE_MAX_MEMBERS 1000000u

enum pa_archive_event {
	PA_ARCHIVE_ADDED,    /* a file was added to the cache */
	PA_ARCHIVE_KEPT,     /* an identical file was already cached */
	PA_ARCHIVE_CONFLICT, /* a different file is cached under that name: kept, not replaced */
	PA_ARCHIVE_SKIPPED,  /* a member pa has no use for (perf's "probes", a link to nothing) */
};
/* member: the member's name; msg: details (NULL for ADDED and KEPT). */
typedef void (*pa_archive_unpack_fn)(void *ctx, enum pa_archive_event ev, const char *member,
                                     const char *msg);

struct pa_archive_unpack_stats {
	unsigned added, kept, conflicts, skipped;
	uint64_t bytes; /* data read from the members */
};

/* Unpack archive_path into the cache (see the invariants).  Returns 0 when
 * every usable member is in the cache (conflicts are reported through cb and
 * counted, not errors), or a negative error with err naming the member:
 * -PA_ERR_UNSAFE (name, link or type not allowed), -PA_ERR_LIMIT (size or
 * ratio), -PA_ERR_TRUNCATED, -PA_ERR_FORMAT (not a tarball, bad manifest),
 * -PA_ERR_BUILDID_MISMATCH (a file is not what its name says), or an errno.
 * cb and stats may be NULL. */
int pa_archive_unpack(const char *archive_path, const struct pa_archive_unpack_opts *opts,
                      pa_archive_unpack_fn cb, void *ctx, struct pa_archive_unpack_stats *stats,
                      struct pa_err *err);

/* ---- member names (exported for unit tests) ------------------------------ */

enum pa_archive_member_type {
	PA_MEMBER_DIR,      /* a directory: ignored (created as needed) */
	PA_MEMBER_FILE,     /* <dso>/<hex>/<kind> (or perf's old [kernel.kallsyms]/<hex>) */
	PA_MEMBER_EXTRA,    /* another regular file inside an entry (perf's "probes") */
	PA_MEMBER_LINK,     /* .build-id/xx/rest -> ../../<dso>/<hex> */
	PA_MEMBER_MANIFEST, /* PA_ARCHIVE_MANIFEST */
};

struct pa_archive_member {
	enum pa_archive_member_type type;
	char name[PATH_MAX];      /* normalized: no leading "./", no trailing '/' */
	char dso_name[PATH_MAX];  /* FILE, EXTRA, LINK: "/usr/lib/x.so", "[vdso]" */
	struct pa_buildid id;     /* FILE, EXTRA, LINK */
	enum pa_bcache_kind kind; /* FILE */
};

/* Classify a member by name and type: 'f' regular file, 'd' directory,
 * 'l' symlink (target = its target), 'h' hard link (target = the member it
 * links to; it is classified like a regular file).  Returns 0, or
 * -PA_ERR_UNSAFE with err saying why (absolute path, "..", a symlink that is
 * not a .build-id link into the cache, a file outside the cache layout...). */
int pa_archive_classify(const char *name, char type, const char *target,
                        struct pa_archive_member *out, struct pa_err *err);


#endif
