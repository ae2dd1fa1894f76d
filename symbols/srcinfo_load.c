/* srcinfo_load.c - a srcinfo handle opened, loaded once (the addr2line
 * file's sections, function symbols and CUs with their address ranges)
 * and freed. srcinfo.c answers the lookups from what is loaded. */
#include "symbols/a2l.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- lifecycle ---------------------------------------------------------- */

struct pa_srcinfo *pa_srcinfo_open(const char *elf_path, const char *debug_path, struct pa_err *err)
{
	if (!elf_path || !*elf_path) {
		pa_err_set(err, -EINVAL, "srcinfo: no ELF file given");
		errno = EINVAL;
		return NULL;
	}
	struct pa_srcinfo *s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->fd = -1;
	pa_arena_init(&s->arena, 64 * 1024);
	s->elf_path = strdup(elf_path);
	s->dbg_path = debug_path && *debug_path ? strdup(debug_path) : NULL;
	if (!s->elf_path || (debug_path && *debug_path && !s->dbg_path)) {
		pa_srcinfo_free(s);
		goto nomem;
	}
	return s;
nomem:
	pa_err_set(err, -ENOMEM, "out of memory");
	errno = ENOMEM;
	return NULL;
}

void pa_srcinfo_free(struct pa_srcinfo *s)
{
	if (!s)
		return;
	if (s->dw)
		dwarf_end(s->dw);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s->secs);
	free(s->syms);
	for (size_t i = 0; i < s->ncus; i++) {
		free(s->cus[i].file0);
		free(s->cus[i].seqs);
		free(s->cus[i].fns);
		free(s->cus[i].franges);
		free(s->cus[i].seg_at);
		free(s->cus[i].seg_fn);
	}
	free(s->cus);
	free(s->ranges);
	free(s->ranges_maxhi);
	free(s->noranges);
	free(s->seqranges);
	free(s->seqranges_maxhi);
	pa_u64map_release(&s->memo);
	pa_arena_release(&s->arena);
	free(s->elf_path);
	free(s->dbg_path);
	free(s);
}

/* ---- loading ------------------------------------------------------------ */

/* .text's sh_addr - sh_offset of the runtime image (perf's dso->text_offset,
 * 0 when there is no .text or no file). */
static uint64_t read_text_offset(const char *path)
{
	uint64_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		while ((scn = elf_nextscn(e, scn))) {
			const char *n;
			if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)))
				continue;
			if (!strcmp(n, ".text")) {
				off = sh.sh_addr - sh.sh_offset;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return off;
}

static int load_sections(struct pa_srcinfo *s)
{
	size_t shnum;
	if (elf_getshdrnum(s->elf, &shnum))
		return 0;
	s->secs = calloc(shnum ? shnum : 1, sizeof(*s->secs));
	if (!s->secs)
		return -ENOMEM;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(s->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		s->secs[s->nsecs++] = (struct a2l_sec){sh.sh_addr, sh.sh_size, elf_ndxscn(scn)};
	}
	return 0;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct a2l_sym *a = pa, *b = pb;
	if (a->shndx != b->shndx)
		return PA_CMP(a->shndx, b->shndx);
	if (a->value != b->value)
		return PA_CMP(a->value, b->value);
	if (a->size != b->size)
		return PA_CMP(b->size, a->size); /* larger first */
	return PA_CMP(a->order, b->order);
}

/* Reads one symbol table into s->syms with bfd's filters; returns the
 * number of symbols the table has (bfd's canonical count, index 0 left
 * out), or a negative errno. */
static long load_symtab(struct pa_srcinfo *s, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (sh->sh_type == SHT_NOBITS || !d || !d->d_buf || !sh->sh_entsize)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	if (n <= 1)
		return 0;
	s->syms = calloc(n, sizeof(*s->syms));
	if (!s->syms)
		return -ENOMEM;
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL_SEEN } state = NOTHING_SEEN;
	const char *file = NULL;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Sym *y = gelf_getsym(d, (int)i, &sym);
		if (!y)
			continue;
		int type = GELF_ST_TYPE(y->st_info), bind = GELF_ST_BIND(y->st_info);
		const char *name = elf_strptr(s->elf, sh->sh_link, y->st_name);
		if (type == STT_FILE) {
			file = name;
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL_SEEN;
			continue;
		}
		bool cand = type != STT_SECTION && type != STT_OBJECT && type != STT_COMMON &&
		            type != STT_TLS && type != STT_RELC && type != STT_SRELC &&
		            y->st_shndx != SHN_UNDEF && y->st_shndx < SHN_LORESERVE;
		/* annobin's markers: hidden local zero-sized NOTYPE */
		if (cand && y->st_size == 0 && bind == STB_LOCAL && type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(y->st_other) == STV_HIDDEN)
			cand = false;
		if (cand) {
			struct a2l_sym *f = &s->syms[s->nsyms++];
			f->value = y->st_value;
			f->size = y->st_size ? y->st_size : 1;
			f->shndx = y->st_shndx;
			f->order = (uint32_t)i;
			f->name = name ? name : "";
			f->file = file && (bind == STB_LOCAL || state != FILE_AFTER_SYMBOL_SEEN)
			              ? file
			              : NULL;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
	}
	/* names point into the ELF image, which lives as long as s */
	qsort(s->syms, s->nsyms, sizeof(*s->syms), cmp_sym);
	return (long)(n - 1);
}

static int load_symbols(struct pa_srcinfo *s)
{
	/* addr2line: .symtab, or .dynsym when .symtab has no symbol */
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dynsh;
	while ((scn = elf_nextscn(s->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			long r = load_symtab(s, scn, &sh);
			if (r != 0)
				return r < 0 ? (int)r : 0;
			free(s->syms);
			s->syms = NULL;
			s->nsyms = 0;
			break;
		}
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dynsh = sh;
		}
	}
	if (!dyn) {
		scn = NULL;
		while ((scn = elf_nextscn(s->elf, scn)))
			if (gelf_getshdr(scn, &dynsh) && dynsh.sh_type == SHT_DYNSYM) {
				dyn = scn;
				break;
			}
	}
	if (dyn) {
		long r = load_symtab(s, dyn, &dynsh);
		if (r < 0)
			return (int)r;
	}
	return 0;
}

int pa_a2l_cmp_range(const void *pa, const void *pb)
{
	const struct a2l_range *a = pa, *b = pb;
	if (a->lo != b->lo)
		return PA_CMP(a->lo, b->lo);
	return PA_CMP(a->cu, b->cu);
}

static int push_range(struct pa_srcinfo *s, size_t *cap, uint64_t lo, uint64_t hi, uint32_t cu)
{
	if (PA_GROW(s->ranges, *cap, s->nranges + 1, 256))
		return -ENOMEM;
	s->ranges[s->nranges++] = (struct a2l_range){lo, hi, cu};
	return 0;
}

static int load_dwarf(struct pa_srcinfo *s)
{
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	if (!s->dw)
		return 0; /* no DWARF: symbols only, like addr2line */
	size_t cap = 0, rcap = 0, ncap = 0;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;
	while (dwarf_get_units(s->dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		if (PA_GROW(s->cus, cap, s->ncus + 1, 64))
			return -ENOMEM;
		uint32_t idx = (uint32_t)s->ncus++;
		struct a2l_cu *c = &s->cus[idx];
		memset(c, 0, sizeof(*c));
		c->die = cudie;
		Dwarf_Attribute cd;
		c->comp_dir =
		    dwarf_attr(&cudie, DW_AT_comp_dir, &cd) ? dwarf_formstring(&cd) : NULL;
		c->lang = dwarf_srclang(&cudie);
		ptrdiff_t off = 0;
		Dwarf_Addr base, lo, hi;
		bool any = false;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (push_range(s, &rcap, lo, hi, idx))
				return -ENOMEM;
			any = true;
		}
		if (!any) {
			if (PA_GROW(s->noranges, ncap, s->nnoranges + 1, 16))
				return -ENOMEM;
			s->noranges[s->nnoranges++] = idx;
		}
	}
	if (s->nranges) {
		qsort(s->ranges, s->nranges, sizeof(*s->ranges), pa_a2l_cmp_range);
		s->ranges_maxhi = malloc(s->nranges * sizeof(*s->ranges_maxhi));
		if (!s->ranges_maxhi)
			return -ENOMEM;
		uint64_t m = 0;
		for (size_t i = 0; i < s->nranges; i++) {
			if (s->ranges[i].hi > m)
				m = s->ranges[i].hi;
			s->ranges_maxhi[i] = m;
		}
	}
	return 0;
}

/* Opens everything once; afterwards the handle answers from what it has
 * (possibly nothing). Returns 0 or -ENOMEM. */
static int load(struct pa_srcinfo *s)
{
	if (s->state)
		return 0;
	s->state = 1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	s->text_offset = read_text_offset(s->elf_path);
	const char *f = s->dbg_path ? s->dbg_path : s->elf_path;
	s->fd = open(f, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return 0;
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		if (s->elf)
			elf_end(s->elf);
		s->elf = NULL;
		return 0;
	}
	int r = load_sections(s);
	if (!r)
		r = load_symbols(s);
	if (!r)
		r = load_dwarf(s);
	return r;
}

int pa_srcinfo_load(struct pa_srcinfo *s)
{
	return load(s);
}
