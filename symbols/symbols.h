/* symbols.h - symbol tables from ELF files, kallsyms and perf-PID.map files,
 * resolved exactly the way perf 6.1's `perf report` resolves them.
 *
 * Invariants:
 * - A struct pa_symtab does not change once loaded, but a table read from
 *   an index (the kernel's, ELF files' with opts.index_dir) fills each
 *   symbol's entry when a lookup first reaches it: a table is read by one
 *   thread at a time. Lookups never allocate.
 * - The table owns every string it hands out (names, origin); they live as
 *   long as the table.
 * - Symbols are kept in perf's order (by lookup key, see below; equal keys
 *   in load order); pa_symtab_at(t, i) walks them in that order.
 * - Lookup is O(log n). Where symbols overlap (a label inside a function,
 *   JIT code regions reused in a perf map), the symbol returned is the one
 *   perf returns: perf searches a red-black tree and takes the first node on
 *   its search path that covers the address, so the winner depends on the
 *   tree's shape. pa replays perf's insertions and erasures to obtain the same
 *   shape and walks it the same way.
 *
 * Address spaces:
 * - ELF tables: pa_sym.start/end are ELF virtual addresses of the main file
 *   (start = st_value, end = start + perf's size after its fixups).
 *   Internally, like perf, the table is keyed by file
 *   offset (each symbol's vaddr converted through the main file's PT_LOADs),
 *   which is what a sample gives: ip - map start + map pgoff. Look samples
 *   up with pa_symtab_find_offset() to get exactly perf's answer;
 *   pa_symtab_find() takes a vaddr and converts it the same way first.
 * - kallsyms and perf maps: absolute addresses, as written in the file;
 *   find and find_offset are the same there.
 *
 * What perf does and pa copies (perf 6.1, checked against perf 6.1.192):
 * - ELF: symbols from .symtab AND .dynsym of the symbol file; FUNC, GNU_IFUNC
 *   and OBJECT symbols with a name in an allocated section, plus NOTYPE
 *   labels (not hidden/internal) in sections whose name contains "text" or
 *   "data"; zero-sized symbols end where the next one starts (the last one
 *   at the next page boundary + 4096); symbols at the same address are
 *   reduced to one (sized > weak-vs-not > global > fewer leading '_' >
 *   longer name > not "SyS"/"compat_SyS"); then "NAME@plt" symbols for
 *   .plt entries, perf 6.1 style (header skipped, sh_entsize-sized on x86).
 * - Demangling: C++/Rust through libiberty's cplus_demangle, without
 *   parameters (perf's default; `perf report -v` adds them: see
 *   demangle_params), then perf's own legacy-Rust hash stripping, OCaml and
 *   Java demangling.
 * - kallsyms: t/T/w/W and d/D/b/B symbols, all of size 0, ends fixed up
 *   (the last symbol before a kernel/module switch ends at
 *   roundup(start + 4096, 4096), the very last at roundup(start, 4096) +
 *   4096), duplicates reduced; perf's line-parsing quirks kept.
 * - perf maps: "START SIZE name", no fixups at all, perf's parsing quirks
 *   kept (the last character of each line is dropped, names shorter than 2
 *   characters drop the line).
 * Not perf 6.1 (pa extensions): MiniDebugInfo is read (opts can turn that
 * off), and a debug file must match by build-id, or by CRC when there is
 * none (perf checks only the build-id recorded in perf.data).
 *
 * Lifecycle: pa_symtab_load_*() -> lookups -> pa_symtab_free().
 */
#ifndef PA_SYMBOLS_H
#define PA_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* One symbol: [start, end), except that a symbol with start == end covers
 * exactly its start address (as in perf). binding and type are the ELF
 * STB_* and STT_* values (kallsyms and perf maps get perf's equivalents). */
struct pa_sym {
	uint64_t start, end;
	const char *name;
	uint8_t binding, type;
	/* a frame of inlined code (the resolver's inline frames): named by
	 * the inlined function, start and end those of the function it was
	 * inlined into, as perf's new_inline_sym makes them */
	bool inlined;
	/* the name in the file (C++'s mangled one) where name is its
	 * demangled form; NULL where they are the same */
	const char *linkage_name;
};

struct pa_symtab;

enum pa_symtab_kind { PA_SYMTAB_ELF, PA_SYMTAB_KALLSYMS, PA_SYMTAB_PERF_MAP };

/* Callback to locate a separate debug file (lookup policy belongs to the
 * caller, like libdwfl's find_debuginfo): given the main file path, its
 * build-id (may be NULL/0), the .gnu_debuglink name and CRC (NULL/0 when the
 * file has none), return a malloc'd path or NULL. The loader validates the
 * candidate (ELF, has .symtab, build-id equal to the main file's, or the
 * debuglink CRC when the main file has no build-id) and falls back to the
 * main file when it is rejected. */
typedef char *(*pa_sym_find_debuginfo_fn)(void *ctx, const char *main_path, const uint8_t *build_id,
                                          size_t build_id_len, const char *debuglink, uint32_t crc);

struct pa_sym_opts {
	size_t sz;     /* sizeof(struct pa_sym_opts); fields past sz read as 0 */
	bool demangle; /* C++, Rust, OCaml, Java, as perf does by default */
	pa_sym_find_debuginfo_fn find_debuginfo; /* NULL: pa_sym_find_debuginfo_default */
	void *find_ctx;
	/* Demangle with parameters and cv-qualifiers (DMGL_PARAMS|DMGL_ANSI),
	 * as `perf report -v` does. Default (false) is perf's plain output:
	 * "ns::K::m" rather than "ns::K::m(int, char const*) const". */
	bool demangle_params;
	/* Ignore .gnu_debugdata (MiniDebugInfo). perf 6.1 does not read it,
	 * so set this to get perf 6.1's exact output on Fedora-style binaries;
	 * the default reads it (more symbols than perf 6.1 shows). */
	bool no_minidebuginfo;
	/* Keep an index of each ELF file's table in this directory and load
	 * the table from it while the files it was made from stay the same
	 * (symbols/elfcache.c); NULL: none. pa_sym_elf_cache_default_dir()
	 * gives pa's. */
	const char *index_dir;
};

/* Initialise opts to defaults (demangle on, default debug finder). */
#define PA_SYM_OPTS_INIT ((struct pa_sym_opts){.sz = sizeof(struct pa_sym_opts), .demangle = true})

/* Loaders. Return a table to release with pa_symtab_free(), or NULL with
 * errno set and *err filled (if err is not NULL): -ENOENT/-EACCES for files
 * that cannot be opened, PA_ERR_FORMAT for a file that is not what it should
 * be, -ENOMEM, -EINVAL for bad opts. opts may be NULL (defaults: demangle on,
 * default debug finder). A file without any symbol loads as an empty table.
 *
 * ELF: symbols come from, in perf's order of preference, a separate debug
 * file found through find_debuginfo, the file's own .symtab, its
 * .gnu_debugdata (MiniDebugInfo, merged with .dynsym), its .dynsym. */
struct pa_symtab *pa_symtab_load_elf(const char *path, const struct pa_sym_opts *opts,
                                     struct pa_err *err);
/* The same for an ELF image in memory (a copy is taken); name stands for
 * its path in messages and in the debug-file search (the find_debuginfo
 * callback gets it as the main path). */
struct pa_symtab *pa_symtab_load_elf_mem(const char *name, const void *data, size_t len,
                                         const struct pa_sym_opts *opts, struct pa_err *err);
/* /proc/kallsyms format: "ADDR TYPE NAME[\t[MODULE]]" per line. */
struct pa_symtab *pa_symtab_load_kallsyms(const char *path, const struct pa_sym_opts *opts,
                                          struct pa_err *err);
/* The same through an index of the frozen table (symbols/ksymcache.c), kept
 * in c->dir as BUILDID-SRC.idx (hex; SRC a hash of path: one index per
 * source of a build-id's symbols) and checked against the kernel's build-id and
 * the source's identity: a valid index is mmap'ed (the table's names point
 * into it), else path is parsed and the index (re)written, errors in writing
 * ignored. c NULL, c->dir NULL or no build-id: just the parse. */
struct pa_ksym_cache {
	const char *dir;
	const uint8_t *build_id;
	size_t build_id_len;
};
struct pa_symtab *pa_symtab_load_kallsyms_cached(const char *path, const struct pa_ksym_cache *c,
						 const struct pa_sym_opts *opts,
						 struct pa_err *err);
/* pa's index directory, ${XDG_CACHE_HOME:-$HOME/.cache}/pa/kallsyms
 * (malloc'd); NULL when PA_NO_KSYM_CACHE or PA_NO_SYM_CACHE is set (non-empty, not "0"), or
 * there is no absolute home. */
char *pa_ksym_cache_default_dir(void);
/* pa's directory of ELF tables' indexes, ${XDG_CACHE_HOME:-$HOME/.cache}/pa/elf
 * (malloc'd); NULL when PA_NO_SYM_CACHE is set (non-empty, not "0"), or
 * there is no absolute home. */
char *pa_sym_elf_cache_default_dir(void);
/* /tmp/perf-PID.map format: "START SIZE NAME" per line, hex numbers. */
struct pa_symtab *pa_symtab_load_perf_map(const char *path, const struct pa_sym_opts *opts,
                                          struct pa_err *err);
void pa_symtab_free(struct pa_symtab *t); /* accepts NULL */

/* ELF: translate a file offset (what a sample's ip - map start + map pgoff
 * gives) to the ELF virtual address of the main file, using its PT_LOAD
 * segments (file bytes first, then memsz tails); returns 0 or
 * -PA_ERR_NOT_FOUND (also for non-ELF tables). For code,
 * find(offset_to_vaddr(off)) == find_offset(off). */
int pa_symtab_offset_to_vaddr(const struct pa_symtab *t, uint64_t file_off, uint64_t *vaddr);
/* Symbol covering addr (ELF vaddr for ELF tables; absolute address for
 * kallsyms/perf maps), or NULL. O(log n), no allocation. An ELF vaddr is
 * first converted to a file offset through the first PT_LOAD whose
 * [p_vaddr, p_vaddr + max(filesz, memsz)) holds it (none: NULL). */
const struct pa_sym *pa_symtab_find(const struct pa_symtab *t, uint64_t addr);
/* Symbol covering a file offset (ELF; for other kinds, an address): perf's
 * own lookup, the one to use for samples. O(log n), no allocation. */
const struct pa_sym *pa_symtab_find_offset(const struct pa_symtab *t, uint64_t file_off);
size_t pa_symtab_count(const struct pa_symtab *t);
/* i-th symbol in perf's order (by file offset for ELF, which is vaddr order
 * for any ordinary file; by address otherwise); NULL when i >= count. */
const struct pa_sym *pa_symtab_at(const struct pa_symtab *t, size_t i);
enum pa_symtab_kind pa_symtab_kind(const struct pa_symtab *t);
/* Where the symbols came from: ".symtab" (the file's own, with its
 * .dynsym merged as perf does), ".dynsym" (nothing better), "none",
 * "debuglink:<path>" (a separate debug file, whoever found it),
 * "minidebuginfo" (+ .dynsym), "kallsyms", "perf-map". */
const char *pa_symtab_origin(const struct pa_symtab *t);
/* ELF facts for the caller: e_type of the main file (ET_EXEC, ET_DYN, ...;
 * -1 for non-ELF tables) and its build-id note (len 0 if none). */
int pa_symtab_elf_type(const struct pa_symtab *t);
const uint8_t *pa_symtab_build_id(const struct pa_symtab *t, size_t *len);
/* Path of the file the symbols were read from (the debug file when one was
 * used, else the loaded file). */
const char *pa_symtab_symbol_file(const struct pa_symtab *t);

/* ---- Kernel images: perf report --vmlinux -------------------------------
 *
 * perf 6.1's dso__load_vmlinux() (symsrc__init + dso__load_sym), checked
 * against perf 6.1.192:
 * - the file must have a .symtab (a stripped vmlinux gives no symbols;
 *   perf does not fall back to kallsyms); then, like any ELF, .symtab and
 *   .dynsym passes, FUNC/GNU_IFUNC/OBJECT symbols in allocated sections and
 *   NOTYPE labels in sections named "*text*"/"*data*", zero-sized symbols
 *   extended to the next one (the last to the next page boundary + 4096),
 *   duplicates reduced (see the top of this file);
 * - but only symbols of the section named ".text" are the kernel's: perf
 *   files the others under per-section DSOs ("[kernel.kallsyms].init.text");
 * - keys (pa_sym_key) are file offsets: st_value - (sh_addr - sh_offset)
 *   of the symbol's section; pa_sym.start/end stay link-time addresses;
 * - no separate debug file, no MiniDebugInfo, no @plt symbols; kernel
 *   symbols are not demangled by perf (set opts->demangle = false).
 * perf then maps the kernel at .text: start = sh_addr + reloc, end = start +
 * sh_size, pgoff = sh_offset, where reloc = (runtime address of the
 * relocation reference symbol, from the recording) - (its value here);
 * a runtime address a is looked up as pa_symtab_find_offset(a - start +
 * pgoff). */
struct pa_kimage {
	bool has_text; /* a section named ".text" exists */
	uint64_t text_addr, text_offset, text_size;
	bool has_ref;       /* the reference symbol exists, with a non-zero value */
	uint64_t ref_value; /* its link-time value */
};

/* Load a vmlinux's kernel symbols. ref_name: perf's relocation reference
 * symbol ("_text", from the kernel's MMAP record; NULL or "" for none).
 * NULL with errno and *err on failure: -PA_ERR_NOT_FOUND for a file without
 * .symtab, else as pa_symtab_load_elf(). Free with pa_symtab_free(). */
struct pa_symtab *pa_symtab_load_vmlinux(const char *path, const char *ref_name,
                                         const struct pa_sym_opts *opts, struct pa_err *err);
/* The facts above for a table from pa_symtab_load_vmlinux(); 0, or
 * -PA_ERR_NOT_FOUND when it has no .text (then perf shows no symbol). */
int pa_symtab_kimage(const struct pa_symtab *t, struct pa_kimage *out);
/* A vmlinux's build-id the way perf 6.1 reads it to validate the file:
 * only from the first section named ".note.gnu.build-id", else ".notes",
 * else ".note" (*len = 0 when none has a GNU build-id note). Returns 0 or an
 * error (file unreadable, not ELF). */
int pa_sym_vmlinux_build_id(const char *path, uint8_t *out, size_t max, size_t *len,
                            struct pa_err *err);

/* ---- Kernel modules: perf report with a module's .ko ---------------------
 *
 * perf 6.1 (dso__load() for a module DSO -> dso__load_sym() with kmodule),
 * checked against perf 6.1.192:
 * - the .ko (ET_REL) must have a .symtab; its symbols are read with the
 *   vmlinux rules above: FUNC/GNU_IFUNC/OBJECT and text/data labels of
 *   allocated sections, zero-sized ones extended, duplicates reduced, only
 *   those of the section named ".text" are the module's (perf files the
 *   others under "[mod].init.text"-style DSOs that no sample reaches);
 * - keys are file offsets: st_value + .text's sh_offset; for these tables
 *   pa_sym.start/end ARE the keys (perf's symbol start; an ET_REL file has
 *   no addresses), and pa_sym_key() equals pa_sym.start;
 * - perf then maps the module's runtime range [start, end) (its MMAP
 *   record) at pgoff = .text's sh_offset: address a is looked up as
 *   a - start + pgoff - but only when a .text symbol was read (an empty
 *   table leaves pgoff 0);
 * - build-id: read like pa_sym_vmlinux_build_id() (at most 20 bytes);
 *   the caller compares (perf rejects a file with another id, or with none
 *   when the recording has one);
 * - a module named NAME.ko.gz / NAME.ko.xz: every candidate file
 *   compressed that way (by its magic) is inflated first, any other file
 *   read as it is; no demangling (perf's default for kernel symbols). */
enum pa_kmod_comp { PA_KMOD_PLAIN, PA_KMOD_GZIP, PA_KMOD_XZ };

/* The compression perf 6.1 expects from a module's name ("/lib/modules/
 * .../ext4.ko.xz": PA_KMOD_XZ; "[ext4]", "x.ko": PA_KMOD_PLAIN). */
enum pa_kmod_comp pa_kmod_comp_of(const char *name);

/* A symbol inserted as it is, as perf's symbols__insert() does (no end or
 * duplicate fixups): [start, end) in the table's lookup space. */
struct pa_sym_insert {
	uint64_t start, end;
	const char *name; /* copied */
	uint8_t binding, type;
};

/* Load a .ko's symbols; then insert the late symbols (perf: kallsyms'
 * symbols of the module that its split moves into an already loaded
 * module). NULL with errno and *err on failure: -PA_ERR_NOT_FOUND for a
 * file without .symtab, PA_ERR_DECOMPRESS, else as pa_symtab_load_elf().
 * pa_symtab_build_id() gives the id perf checks, pa_symtab_kimage() the
 * .text facts. Free with pa_symtab_free(). */
struct pa_symtab *pa_symtab_load_kmod(const char *path, enum pa_kmod_comp comp,
                                      const struct pa_sym_insert *late, size_t nr_late,
                                      const struct pa_sym_opts *opts, struct pa_err *err);
/* A table of the given symbols, inserted in order without fixups (kind
 * PA_SYMTAB_KALLSYMS: a module's share of kallsyms as perf's split makes
 * it, in the module map's space). NULL (-ENOMEM) on failure. */
struct pa_symtab *pa_symtab_from_syms(const struct pa_sym_insert *v, size_t n,
                                      struct pa_err *err);
/* other is freed by pa_symtab_free(t) (a table kept beside t). */
void pa_symtab_adopt(struct pa_symtab *t, struct pa_symtab *other);

/* kallsyms: the module a symbol belongs to ("ext4" for "... [ext4]"), or
 * NULL for the kernel proper and for other table kinds. */
const char *pa_sym_module(const struct pa_symtab *t, const struct pa_sym *s);
/* Index of s in pa_symtab_at() order (s must come from t). */
size_t pa_sym_index(const struct pa_symtab *t, const struct pa_sym *s);
/* Where s starts in the lookup space: its file offset for ELF tables (what
 * perf's symbol start is; a sample's offset minus this is perf's "symoff"),
 * its address otherwise. */
uint64_t pa_sym_key(const struct pa_symtab *t, const struct pa_sym *s);

/* The default debug-file finder, perf's order: for a debuglink NAME next to
 * DIR/FILE: NAME (as given), DIR/NAME, DIR/.debug/NAME,
 * /usr/lib/debug/DIR/NAME; then /usr/lib/debug/DIR/FILE.debug,
 * /usr/lib/debug/DIR/FILE, /usr/lib/debug/.build-id/xx/rest.debug. Returns the
 * first regular file that exists (malloc'd), or NULL. ctx is unused. */
char *pa_sym_find_debuginfo_default(void *ctx, const char *main_path, const uint8_t *build_id,
                                    size_t build_id_len, const char *debuglink, uint32_t crc);

/* Demangle one name the way perf 6.1 does (C++/Rust via libiberty, perf's
 * Rust hash stripping, OCaml, Java). Returns a malloc'd string, or NULL when
 * the name is not mangled (or on allocation failure). */
char *pa_sym_demangle(const char *name, bool params);

/* An ARM or AArch64 mapping symbol's kind, the letter of "$a" (arm code),
 * "$t" (thumb), "$d" (data) or "$x" (A64), a ".SUFFIX" allowed after it;
 * 0 for any other name. Not functions: perf skips them. */
char pa_sym_mapping_kind(const char *name);

/* ---- Source lines: perf 6.1's `--sort srcline` and inline frames --------
 *
 * perf 6.1 as Debian builds it (no libbfd) asks a long-running
 * `addr2line -e FILE -i -f` per DSO, one request per lookup, and parses its
 * answer; pa reproduces that pipeline with elfutils libdw, emulating GNU
 * addr2line (binutils 2.40) rather than spawning it:
 *   - the address asked is perf's map__rip_2objdump(): the sample's file
 *     offset plus (.text sh_addr - sh_offset) of the runtime image, i.e. the
 *     ELF vaddr for ET_EXEC, the offset itself for ordinary ET_DYN;
 *   - addr2line "finds" an address that lies in an SHF_ALLOC section and
 *     either falls in a DWARF line-table row / function of a CU, or has a
 *     function symbol (.symtab, else .dynsym) at or below it in the same
 *     section - bfd's nearest-preceding-symbol rule, sizes ignored; then
 *     the file is the STT_FILE name of a local symbol ("??" otherwise) and
 *     the line 0: "??:0" is a real answer for a DSO without debug info;
 *   - perf cuts the "FILE:LINE" answer at its first ':' and keeps the part
 *     after the last '/' (srcline_full_filename off): "burn.c:21";
 *   - when addr2line has nothing, perf prints "SYM+OFF" (decimal offset of
 *     the sample from the start of perf's symbol) or, with no symbol,
 *     "DSO[ADDR]" (short name, objdump address in lowercase hex); with no
 *     map at all "??:0".
 * Lookups are memoized per file offset; the DWARF and the symbol table of a
 * DSO are read once, on the first lookup, and a DSO without them costs one
 * attempt. Not thread-safe (the memo): one pa_srcinfo per thread.
 *
 * Which files (perf's dso__name(): the file with a .symtab that symbols were
 * loaded from, else the DSO's own path):
 *   elf_path   the runtime image (what pa_symtab_load_elf() was given): its
 *              .text fixes the address;
 *   debug_path the file addr2line reads (DWARF and the symbol fallback): the
 *              separate debug file symbols came from
 *              (pa_symtab_symbol_file() when it differs from elf_path), or
 *              NULL for elf_path itself.
 * Never call this for DSOs perf does not hand to addr2line: names starting
 * with '[' ([kernel.kallsyms], [vdso] unless a file with a .symtab was
 * found for it, ...) and /tmp/perf-PID.map JIT maps; format those with
 * pa_srcline_fallback().
 *
 * Lifecycle: pa_srcinfo_open() -> lookups -> pa_srcinfo_free(). Strings
 * returned live until pa_srcinfo_free(). */
struct pa_srcinfo; /* per DSO: the DWARF handle, opened lazily, failure cached */

/* Returns a handle to free with pa_srcinfo_free(), or NULL with errno set
 * and *err filled: -EINVAL (no elf_path), -ENOMEM. Files are only opened
 * by the first lookup: an unreadable file is not an error here, its
 * lookups just find nothing (as perf's addr2line would). */
struct pa_srcinfo *pa_srcinfo_open(const char *elf_path, const char *debug_path /* may be NULL */,
                                   struct pa_err *err);
void pa_srcinfo_free(struct pa_srcinfo *s); /* accepts NULL */
/* Reads now what the first lookup would (after which another thread may
 * use s). 0 or -ENOMEM. */
int pa_srcinfo_load(struct pa_srcinfo *s);

/* Source line for a file offset in an ELF DSO (same address space as
 * pa_symtab_find_offset), formatted exactly as perf 6.1's `--sort srcline`
 * shows it when addr2line answers: "burn.c:21", "??:0", "crtstuff.c:0".
 * When it does not: dso_short_name != NULL gives perf's no-symbol fallback
 * "libc.so.6[2a1b0]", dso_short_name == NULL gives NULL (so the caller can
 * tell, e.g. to print "SYM+OFF" - see pa_srcinfo_srcline()). */
const char *pa_srcinfo_line(struct pa_srcinfo *s, uint64_t file_off, const char *dso_short_name);

/* perf's whole `--sort srcline` value for a sample at file_off in this DSO:
 * the line when addr2line has one, else "SYM+OFF" when perf has a symbol
 * there (sym_name as perf shows it, sym_off = file_off - pa_sym_key()),
 * else "DSO[ADDR]". sym_name may be NULL. NULL only on ENOMEM. */
const char *pa_srcinfo_srcline(struct pa_srcinfo *s, uint64_t file_off, const char *dso_short_name,
                               const char *sym_name, uint64_t sym_off);

/* The source file addr2line names for file_off (its path as the DWARF
 * gives it, before perf cuts it to its base name for the srcline) and the
 * line (*line, not 0); NULL when it names no file or line. */
const char *pa_srcinfo_file(struct pa_srcinfo *s, uint64_t file_off, unsigned *line);

/* The address perf hands to addr2line (and prints in "DSO[ADDR]"). */
uint64_t pa_srcinfo_objdump_addr(struct pa_srcinfo *s, uint64_t file_off);

/* One record of `addr2line -i -f`: the function as addr2line prints it
 * (DWARF linkage name when there is one - mangled C++, which perf then
 * demangles like a symbol -, else DW_AT_name, else the ELF symbol's name,
 * "??" when none) and its location in perf's srcline form. */
struct pa_srcinfo_frame {
	const char *name;
	const char *srcline;
	unsigned decl_line; /* where the frame's function is declared (DWARF), 0: unknown */
};

/* Inline chain at an address, innermost first: frame 0 is the function
 * containing the address with the address's own line; each further frame
 * is the caller of the previous (inlined) one, with the call site as its
 * srcline; the last is the real (out-of-line) function. An address outside
 * any inlined code gives one frame; an address addr2line cannot resolve
 * gives none. Fills min(n, max) frames and returns n. perf 6.1 (with its
 * default --inline) replaces a callchain entry that has a symbol by these
 * frames, each named frames[i].name demangled and marked "(inlined)"
 * unless that name equals the name of perf's symbol at the address. */
size_t pa_srcinfo_frames(struct pa_srcinfo *s, uint64_t file_off, struct pa_srcinfo_frame *frames,
                         size_t max);
/* Inline chain at an address (innermost first): function names and call sites, for call graphs.
 * The names of pa_srcinfo_frames(); same return value. */
size_t pa_srcinfo_inlines(struct pa_srcinfo *s, uint64_t file_off, const char **names, size_t max);

/* A binary's DWARF line table and scopes by (objdump's) address, as
 * objdump -l reads them (pa annotate's source lines): dwlines.c. Opening
 * never fails for want of DWARF (its lookups then find nothing); NULL only
 * without memory. */
struct pa_dwlines;
struct pa_dwlines *pa_dwlines_open(const char *path);
void pa_dwlines_free(struct pa_dwlines *s); /* accepts NULL */
/* The line at addr: its file (full path, as DWARF names it), line,
 * discriminator and innermost function (inlined or not); false when
 * DWARF has none. Strings live until pa_dwlines_free. */
bool pa_dwlines_at(struct pa_dwlines *s, uint64_t addr, const char **file, int *line,
                   unsigned *discr, const char **func);

/* perf's SRCLINE_UNKNOWN: the srcline of a sample without a map. */
#define PA_SRCLINE_UNKNOWN "??:0"
/* perf's A2L_FAIL_LIMIT: when the first this-many srcline lookups of a DSO
 * all fail, perf stops asking addr2line for it and every later lookup
 * falls back; one success before that turns the limit off for good. perf
 * counts every computation (one per sample whose comparison reaches the
 * srcline key, not one per address), so pa_srcinfo leaves the counting to
 * its caller. */
#define PA_SRCLINE_FAIL_LIMIT 123

/* perf's srcline when addr2line is not asked or has no answer:
 * "SYM+OFF" (sym_off decimal) when sym_name != NULL, else "DSO[ADDR]"
 * (addr = the objdump address: the sample's address for the kernel). Writes
 * like snprintf and returns its result. */
int pa_srcline_fallback(char *buf, size_t size, const char *dso_short_name, uint64_t addr,
                        const char *sym_name, uint64_t sym_off);

#endif
