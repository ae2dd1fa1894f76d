/* elfimg.h - what the ELF loaders of symbols/ share: an opened image,
 * its sections, and the steps every table load goes through (elf.c), for
 * the kernel's loaders (elf_kernel.c: a vmlinux, a module). Included only
 * by symbols/ sources. */
#ifndef PA_SYMBOLS_ELFIMG_H
#define PA_SYMBOLS_ELFIMG_H

#include <gelf.h>
#include <libelf.h>

#include "symbols/internal.h"

/* One opened ELF image (a file, or decompressed memory). */
struct elf_img {
	int fd;
	Elf *elf;
	void *mem; /* malloc'd image for elf_memory(), or NULL */
	GElf_Ehdr ehdr;
	size_t shstrndx;
	size_t shnum;
	struct sec_info *secs; /* shnum entries, lazily filled */
};

struct sec_info {
	uint64_t flags, addr, offset;
	uint32_t type;
	bool is_text_or_data; /* section name contains "text" or "data" */
	bool is_text;         /* named exactly ".text" (the kernel's own) */
	bool valid;
};

struct load_ctx {
	struct pa_symtab *t;
	struct pa_symb b;
	struct pa_sym_opts o;
	struct pa_err *err;
	/* A vmlinux (perf's dso__process_kernel_symbol()): symbols of other
	 * sections than ".text" belong to per-section DSOs perf creates
	 * ("[kernel.kallsyms].init.text"), not to the kernel's table, and
	 * keys are st_value - (sh_addr - sh_offset) of the symbol's section. */
	bool kernel;
	/* A kernel module (.ko): kernel rules, and pa_sym.start is the key
	 * too (perf's symbol start), an ET_REL file having no addresses. */
	bool kmod;
};

/* ---- an image (elf.c) */
void pa_elfimg_close(struct elf_img *m);
/* m's ELF handle made (m->fd or m->mem set): its header and sections */
int pa_elfimg_init(struct elf_img *m, const char *what, struct pa_err *err);
int pa_elfimg_open(struct elf_img *m, const char *path, struct pa_err *err);
/* the first section named name, NULL if none */
Elf_Scn *pa_elfimg_find(struct elf_img *m, const char *name, GElf_Shdr *sh);
/* the section named name of that type, with entries, NULL if none */
Elf_Scn *pa_elfimg_symtab(struct elf_img *m, const char *name, uint32_t type, GElf_Shdr *sh);
Elf_Data *pa_elf_scn_data(Elf_Scn *scn);
/* the GNU build-id of a notes section's data: its size, 0 if none */
size_t pa_elf_notes_build_id(Elf_Data *d, uint8_t *out, size_t max);
size_t pa_elfimg_build_id(struct elf_img *m, uint8_t *out, size_t max);

/* ---- a table load (elf.c) */
int pa_elfload_begin(struct load_ctx *c, const struct pa_sym_opts *opts);
/* perf's two passes: syms' .symtab, then run's .dynsym */
int pa_elfload_passes(struct load_ctx *c, struct elf_img *syms, struct elf_img *run);
int pa_elfload_segments(struct pa_symtab *t, struct elf_img *m);
/* What every loader ends with: the table, or NULL with errno when r
 * (an error) says it failed. */
struct pa_symtab *pa_elfload_end(struct load_ctx *c, int r);

#endif
