/* a2l.h - a srcinfo handle's tables, shared by srcinfo_load.c (which
 * fills them) and srcinfo.c (which answers from them) only. */
#ifndef PA_SYMBOLS_A2L_H
#define PA_SYMBOLS_A2L_H

#include "symbols/symbols.h"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#ifndef STT_RELC
#define STT_RELC 8
#endif
#ifndef STT_SRELC
#define STT_SRELC 9
#endif

/* An SHF_ALLOC section of the addr2line file. */
struct a2l_sec {
	uint64_t addr, size;
	size_t index;
};

/* A function candidate for elf_find_function. */
struct a2l_sym {
	uint64_t value, size; /* size as bfd's maybe_function_sym: >= 1 */
	size_t shndx;
	uint32_t order;   /* index in the symbol table */
	const char *name; /* in the ELF image */
	const char *file; /* STT_FILE name bfd would report, or NULL */
};

/* An address range of a CU. */
struct a2l_range {
	uint64_t lo, hi;
	uint32_t cu;
};

/* A function-like DIE of a CU: subprogram, inlined_subroutine, entry_point. */
struct a2l_fn {
	Dwarf_Die die;
	uint64_t low;   /* start of its first range (bfd's arange.low) */
	int32_t caller; /* inlined_subroutine: the enclosing function, else -1 */
	/* bfd's history of a function without a linkage name: the first query
	 * whose innermost function it is names it after the ELF symbol
	 * covering the address, and renames it for good after that symbol
	 * when the symbol starts where the function does; later queries (and
	 * its inlined callees' records) give its name then */
	bool asked;
	const char *renamed;
};

struct a2l_cu {
	Dwarf_Die die;
	const char *comp_dir;
	int lang;
	int lines_state; /* 0 not read, 1 read, -1 none */
	Dwarf_Lines *lines;
	size_t nlines;
	Dwarf_Files *files;
	size_t nfiles;
	/* DWARF 5 only: row i never had its file set by its sequence (bfd
	 * starts a sequence with file 0, libdw with file 1); NULL when files 0
	 * and 1 are the same anyway */
	uint8_t *file0;
	/* the address ranges of the line table's sequences */
	struct a2l_range *seqs;
	size_t nseqs;
	/* function DIEs (bfd's function_table), built on first use */
	int fns_state; /* 0 not built, 1 built, -1 failed */
	struct a2l_fn *fns;
	size_t nfns;
	struct a2l_range *franges; /* .cu = index in fns; grouped by function */
	size_t nfranges;
	/* the winner of find_fn() between consecutive range boundaries:
	 * seg_fn[i] answers [seg_at[i], seg_at[i + 1]) (-1: none) */
	uint64_t *seg_at;
	int32_t *seg_fn;
	size_t nseg;
};

/* The memoized answer for one address. */
struct a2l_answer {
	const char *line; /* perf's srcline, NULL when addr2line has no answer */
	const char *file; /* the file addr2line names (its path), NULL: none */
	unsigned line_nr;
	size_t nframes;
	struct pa_srcinfo_frame *frames;
};

struct pa_srcinfo {
	char *elf_path, *dbg_path;
	int state; /* 0 not loaded, 1 loaded (possibly without DWARF/symbols) */
	uint64_t text_offset;

	int fd;
	Elf *elf; /* the addr2line file */
	Dwarf *dw;

	struct a2l_sec *secs;
	size_t nsecs;
	struct a2l_sym *syms; /* sorted by (shndx, value, -size, order) */
	size_t nsyms;

	struct a2l_cu *cus;
	size_t ncus;
	struct a2l_range *ranges; /* sorted by lo */
	uint64_t *ranges_maxhi;   /* max hi over ranges[0..i] */
	size_t nranges;
	uint32_t *noranges; /* CUs without address ranges */
	size_t nnoranges;
	/* all CUs' line sequences (bfd adds them to its CU lookup once it has
	 * decoded a line table), built on the first address no CU range has */
	int seq_state;
	struct a2l_range *seqranges;
	uint64_t *seqranges_maxhi;
	size_t nseqranges;

	struct pa_u64map memo; /* file offset -> struct a2l_answer */
	struct pa_arena arena;
};

/* Orders struct a2l_range by lo (qsort). */
int pa_a2l_cmp_range(const void *pa, const void *pb);

#endif
