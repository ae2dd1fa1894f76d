/* elf.c - ELF symbol tables the way perf 6.1 loads a user-space DSO
 * (dso__load() -> dso__load_sym() -> dso__load_sym_internal()).
 *
 * Choice of the symbol file (perf tries debug files before the file itself):
 *   1. a separate debug file from the finder callback, if it is an ELF file
 *      with a .symtab and matches (build-id, else .gnu_debuglink CRC);
 *   2. the file's own .symtab;
 *   3. its .gnu_debugdata (MiniDebugInfo, an xz-compressed ELF whose
 *      .symtab holds the functions missing from .dynsym) - a pa extension,
 *      perf 6.1 does not read it;
 *   4. its .dynsym.
 * Loading (per perf): pass 1 over the symbol file's .symtab, pass 2 over its
 * .dynsym when it has a real one (a debug file's is NOBITS), each pass
 * followed by fixup_end + fixup_duplicate. MiniDebugInfo gets the main
 * file's .dynsym as pass 2, as later perfs do.
 *
 * Like perf, the table works in file offsets (each symbol's vaddr converted
 * through the main file's PT_LOADs), so zero-sized symbols are extended and
 * overlaps resolved exactly as perf does even where segments' vaddr-offset
 * deltas differ; pa_sym.start/end still report ELF vaddrs.
 *
 * A vmlinux and kernel modules are loaded in elf_kernel.c, through the
 * image and load steps of elfimg.h.
 */
#include "symbols/elfimg.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h> /* crc32 of a debuglink */

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

void pa_elfimg_close(struct elf_img *m)
{
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	free(m->mem);
	free(m->secs);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

/* Fills m from m->elf; PA_ERR_FORMAT when it is not a usable ELF image. */
int pa_elfimg_init(struct elf_img *m, const char *what, struct pa_err *err)
{
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF)
		return pa_err_set(err, PA_ERR_FORMAT, "'%s': not an ELF file", what);
	if (!gelf_getehdr(m->elf, &m->ehdr))
		return pa_err_set(err, PA_ERR_FORMAT, "'%s': bad ELF header: %s", what,
		                  elf_errmsg(-1));
	if (elf_getshdrstrndx(m->elf, &m->shstrndx) || elf_getshdrnum(m->elf, &m->shnum))
		return pa_err_set(err, PA_ERR_FORMAT, "'%s': bad section headers: %s", what,
		                  elf_errmsg(-1));
	m->secs = calloc(m->shnum ? m->shnum : 1, sizeof(*m->secs));
	if (!m->secs)
		return pa_err_set(err, -ENOMEM, "out of memory");
	return 0;
}

int pa_elfimg_open(struct elf_img *m, const char *path, struct pa_err *err)
{
	memset(m, 0, sizeof(*m));
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		int e = -errno;
		return pa_err_set(err, e, "'%s': %s", path, pa_strerror(e));
	}
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	int r = pa_elfimg_init(m, path, err);
	if (r)
		pa_elfimg_close(m);
	return r;
}

static const struct sec_info *img_sec(struct elf_img *m, size_t idx)
{
	if (idx >= m->shnum)
		return NULL;
	struct sec_info *si = &m->secs[idx];
	if (!si->valid) {
		Elf_Scn *scn = elf_getscn(m->elf, idx);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			return NULL;
		si->flags = sh.sh_flags;
		si->addr = sh.sh_addr;
		si->offset = sh.sh_offset;
		si->type = sh.sh_type;
		const char *name = elf_strptr(m->elf, m->shstrndx, sh.sh_name);
		si->is_text_or_data = name && (strstr(name, "text") || strstr(name, "data"));
		si->is_text = name && !strcmp(name, ".text");
		si->valid = true;
	}
	return si;
}

/* Section by name (first match), with its header. */
Elf_Scn *pa_elfimg_find(struct elf_img *m, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(m->elf, m->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* A symbol table section of the wanted type (".symtab"/SHT_SYMTAB or
 * ".dynsym"/SHT_DYNSYM, as perf looks them up), or NULL. */
Elf_Scn *pa_elfimg_symtab(struct elf_img *m, const char *name, uint32_t type, GElf_Shdr *sh)
{
	Elf_Scn *scn = pa_elfimg_find(m, name, sh);
	return scn && sh->sh_type == type ? scn : NULL;
}

/* A section's data, or NULL when it has none to read: libelf hands out
 * d_buf NULL with d_size > 0 for SHT_NOBITS sections, which a hostile file
 * can give any role (string table, symbol table, notes). */
Elf_Data *pa_elf_scn_data(Elf_Scn *scn)
{
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	return d && (d->d_buf || !d->d_size) ? d : NULL;
}

size_t pa_elf_notes_build_id(Elf_Data *d, uint8_t *out, size_t max)
{
	if (!d || !d->d_buf || (d->d_type != ELF_T_NHDR && d->d_type != ELF_T_NHDR8))
		return 0;
	/* translated: the header words are in host order */
	return pa_note_gnu_build_id(d->d_buf, d->d_size, d->d_type == ELF_T_NHDR8 ? 8 : 4, false,
	                            out, max);
}

/* The NT_GNU_BUILD_ID note, from SHT_NOTE sections (a debug file has no
 * loadable segments to read), else from PT_NOTE segments. 0 if none. */
size_t pa_elfimg_build_id(struct elf_img *m, uint8_t *out, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		size_t n = pa_elf_notes_build_id(elf_getdata(scn, NULL), out, max);
		if (n)
			return n;
	}
	size_t phnum;
	if (elf_getphdrnum(m->elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d =
		    elf_getdata_rawchunk(m->elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		size_t n = pa_elf_notes_build_id(d, out, max);
		if (n)
			return n;
	}
	return 0;
}

/* .gnu_debuglink: NUL-terminated file name, padding to 4, CRC32 in the
 * file's byte order. Returns a pointer into the image or NULL. */
static const char *img_debuglink(struct elf_img *m, uint32_t *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pa_elfimg_find(m, ".gnu_debuglink", &sh);
	if (!scn)
		return NULL;
	Elf_Data *d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 5)
		return NULL;
	const char *p = d->d_buf;
	size_t len = strnlen(p, d->d_size);
	size_t crc_off = (len + 4) & ~(size_t)3;
	if (len == 0 || crc_off + 4 > d->d_size)
		return NULL;
	const unsigned char *c = (const unsigned char *)p + crc_off;
	if (m->ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
	else
		*crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
	return p;
}

static int file_crc32(const char *path, uint32_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unsigned char *buf = malloc(1 << 16);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n;
	while ((n = read(fd, buf, 1 << 16)) > 0)
		crc = crc32(crc, buf, (uInt)n);
	int e = n < 0 ? -errno : 0;
	free(buf);
	close(fd);
	*out = (uint32_t)crc;
	return e;
}

/* ---- the default finder --------------------------------------------------- */

static bool is_regular(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *try_path(struct pa_buf *b)
{
	return b->data && is_regular(b->data) ? strdup(b->data) : NULL;
}

char *pa_sym_find_debuginfo_default(void *ctx, const char *main_path, const uint8_t *build_id,
                                    size_t build_id_len, const char *debuglink, uint32_t crc)
{
	(void)ctx;
	(void)crc;
	struct pa_buf b = {0};
	char *res = NULL;
	const char *slash = strrchr(main_path, '/');
	int dirlen = slash ? (int)(slash - main_path) : 1;
	const char *dir = slash ? main_path : ".";

	if (debuglink && *debuglink) {
		/* perf's debuglink_paths: the name as given, then next to the
		 * file, in .debug/ there, under /usr/lib/debug/DIR/ */
		for (int i = 0; i < 4 && !res; i++) {
			int e = -1;
			b.len = 0;
			if (i == 0)
				e = pa_buf_addf(&b, "%s", debuglink);
			else if (i == 1)
				e = pa_buf_addf(&b, "%.*s/%s", dirlen, dir, debuglink);
			else if (i == 2)
				e = pa_buf_addf(&b, "%.*s/.debug/%s", dirlen, dir, debuglink);
			else if (slash)
				e = pa_buf_addf(&b, "/usr/lib/debug%.*s/%s", dirlen, dir,
				                debuglink);
			if (!e)
				res = try_path(&b);
		}
	}
	if (!res && main_path[0] == '/') {
		/* Fedora-style, then Ubuntu-style copies under /usr/lib/debug */
		b.len = 0;
		if (!pa_buf_addf(&b, "/usr/lib/debug%s.debug", main_path))
			res = try_path(&b);
		b.len = 0;
		if (!res && !pa_buf_addf(&b, "/usr/lib/debug%s", main_path))
			res = try_path(&b);
	}
	if (!res && build_id && build_id_len > 1) {
		char hex[2 * 64 + 1];
		pa_hex(hex, build_id, build_id_len > 64 ? 64 : build_id_len);
		b.len = 0;
		if (!pa_buf_addf(&b, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2))
			res = try_path(&b);
	}
	pa_buf_release(&b);
	return res;
}

/* ---- MiniDebugInfo --------------------------------------------------------- */

#ifdef PA_HAVE_LZMA
/* Inflates .gnu_debugdata into an ELF image in m. 0, PA_ERR_NOT_FOUND (no
 * section), or another error. */
static int img_open_minidebug(struct elf_img *main, struct elf_img *m, struct pa_err *err)
{
	GElf_Shdr sh;
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	Elf_Scn *scn = pa_elfimg_find(main, ".gnu_debugdata", &sh);
	if (!scn || sh.sh_type == SHT_NOBITS)
		return -PA_ERR_NOT_FOUND;
	Elf_Data *d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return -PA_ERR_NOT_FOUND;

	uint8_t *out = NULL;
	size_t len = 0;
	int r = pa_inflate_xz(d->d_buf, d->d_size, ".gnu_debugdata", &out, &len, err);
	if (r)
		return r;
	m->mem = out;
	m->elf = elf_memory(m->mem, len);
	r = pa_elfimg_init(m, ".gnu_debugdata", err);
	if (r)
		pa_elfimg_close(m);
	return r;
}
#endif

/* ---- loading --------------------------------------------------------------- */

/* perf keeps a user DSO's symbols as file offsets: st_value minus
 * (p_vaddr - p_offset) of the first PT_LOAD of the main file whose
 * [p_vaddr, p_vaddr + max(filesz, memsz)) holds it, else minus
 * (sh_addr - sh_offset) of its section. */
static uint64_t perf_space(const struct pa_symtab *t, uint64_t v, const struct sec_info *si)
{
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct pa_symtab_seg *g = &t->segs[i];
		uint64_t sz = g->filesz > g->memsz ? g->filesz : g->memsz;
		if (v >= g->vaddr && v - g->vaddr < sz)
			return v - (g->vaddr - g->offset);
	}
	return v - (si->addr - si->offset);
}

char pa_sym_mapping_kind(const char *n)
{
	return n[0] == '$' && n[1] && strchr("adtx", n[1]) && (!n[2] || n[2] == '.') ? n[1] : 0;
}

/* ppc64's ELFv1 function descriptors: a function symbol in .opd names its
 * descriptor, whose first doubleword is the code's address; perf reads it
 * in the runtime image and files the symbol under the section holding
 * that address. */
struct opd {
	size_t idx; /* .opd's section index, 0: none */
	uint64_t addr;
	Elf_Data *data;
};

static void opd_find(struct elf_img *run, struct opd *o)
{
	GElf_Shdr sh;
	Elf_Scn *scn = run->ehdr.e_machine == EM_PPC64 ? pa_elfimg_find(run, ".opd", &sh) : NULL;
	*o = (struct opd){0};
	if (!scn || sh.sh_type != SHT_PROGBITS || !(o->data = elf_rawdata(scn, NULL)))
		return;
	o->idx = elf_ndxscn(scn);
	o->addr = sh.sh_addr;
}

/* the code address a descriptor holds, and its section in run; false: none */
static bool opd_entry(const struct opd *o, struct elf_img *run, uint64_t value, uint64_t *code,
                      size_t *shndx)
{
	uint64_t off = value - o->addr, word;
	if (value < o->addr || off > o->data->d_size || o->data->d_size - off < 8)
		return false;
	Elf_Data src = {.d_buf = (char *)o->data->d_buf + off,
	                .d_type = ELF_T_XWORD,
	                .d_size = 8,
	                .d_version = EV_CURRENT};
	Elf_Data dst = {.d_buf = &word, .d_size = 8, .d_version = EV_CURRENT};
	if (!gelf_xlatetom(run->elf, &dst, &src, run->ehdr.e_ident[EI_DATA]))
		return false;
	for (size_t i = 1; i < run->shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(run->elf, i);
		if (scn && gelf_getshdr(scn, &sh) && word >= sh.sh_addr &&
		    word - sh.sh_addr < sh.sh_size) {
			*code = word;
			*shndx = i;
			return true;
		}
	}
	return false;
}

/* perf's dso__load_sym_internal() for a user DSO: one pass over the symbol
 * table symscn of syms; run is the runtime (main) image whose section
 * headers replace NOBITS ones. Returns the number of symbols or <0. */
static int load_pass(struct load_ctx *c, struct elf_img *syms, struct elf_img *run, Elf_Scn *symscn,
                     const GElf_Shdr *symsh)
{
	Elf_Data *data = pa_elf_scn_data(symscn);
	Elf_Scn *strscn = elf_getscn(syms->elf, symsh->sh_link);
	Elf_Data *strs = pa_elf_scn_data(strscn);
	if (!data || !strs || !symsh->sh_entsize)
		return pa_err_set(c->err, PA_ERR_FORMAT, "bad symbol table: %s", elf_errmsg(-1));
	size_t fsz = gelf_fsize(syms->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!fsz)
		return pa_err_set(c->err, PA_ERR_FORMAT, "bad symbol table: %s", elf_errmsg(-1));
	size_t nr = symsh->sh_size / symsh->sh_entsize;
	if (nr > data->d_size / fsz)
		nr = data->d_size / fsz;
	const char *strtab = strs->d_buf;
	size_t strsz = strs->d_size;
	unsigned machine = syms->ehdr.e_machine;
	int count = 0;
	struct opd opd;
	opd_find(run, &opd);

	for (size_t i = 0; i < nr; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		unsigned vis = GELF_ST_VISIBILITY(sym.st_other);
		if (sym.st_name == 0 || sym.st_name >= strsz || sym.st_shndx == SHN_UNDEF)
			continue;
		bool is_label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS &&
		                vis != STV_HIDDEN && vis != STV_INTERNAL;
		bool is_sym = type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT;
		if (!is_label && !is_sym)
			continue;
		const char *name = strtab + sym.st_name;
		if (!memchr(name, 0, strsz - sym.st_name))
			continue;

		if ((machine == EM_ARM || machine == EM_AARCH64) && pa_sym_mapping_kind(name))
			continue;

		/* ABS symbols are skipped, as perf does; other special section
		 * indices (COMMON, XINDEX) make perf fail the whole load, pa
		 * skips those symbols too. */
		uint64_t value = sym.st_value;
		size_t shndx = sym.st_shndx;
		if (opd.idx && shndx == opd.idx &&
		    !opd_entry(&opd, run, sym.st_value, &value, &shndx))
			continue;
		const struct sec_info *si = img_sec(syms, shndx);
		if (!si || !(si->flags & SHF_ALLOC))
			continue;
		if (si->type == SHT_NOBITS && run != syms) {
			const struct sec_info *rs = img_sec(run, shndx);
			if (!rs)
				continue;
			si = rs;
		}
		if (is_label && !si->is_text_or_data)
			continue;

		if (machine == EM_ARM && type == STT_FUNC && (value & 1))
			value--;
		if (c->kernel && !si->is_text) {
			/* perf counts it (the pass's fixups still run) but
			 * files it under another DSO */
			count++;
			continue;
		}
		uint64_t off =
		    c->kernel ? value - (si->addr - si->offset) : perf_space(c->t, value, si);

		const char *nm =
		    pa_sym_name_arena(&c->t->arena, name, c->o.demangle, c->o.demangle_params);
		if (!nm)
			return pa_err_set(c->err, -ENOMEM, "out of memory");
		if (pa_symb_insert(&c->b, off, c->kmod ? off : value, sym.st_size,
		                   GELF_ST_BIND(sym.st_info),
		                   (uint8_t)type, nm))
			return pa_err_set(c->err, -ENOMEM, "out of memory");
		/* the file's own name too, where it was demangled (pprof's
		 * system name) */
		if (strcmp(nm, name) &&
		    !(c->b.nodes[c->b.n - 1].linkage_name = pa_arena_strdup(&c->t->arena, name)))
			return pa_err_set(c->err, -ENOMEM, "out of memory");
		count++;
	}
	if (count > 0) {
		pa_symb_fixup_end(&c->b, false);
		pa_symb_fixup_duplicate(&c->b);
	}
	return count;
}

/* Both perf passes over syms: .symtab, then .dynsym if syms has a real one. */
int pa_elfload_passes(struct load_ctx *c, struct elf_img *syms, struct elf_img *run)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pa_elfimg_symtab(syms, ".symtab", SHT_SYMTAB, &sh);
	int r;
	if (scn && (r = load_pass(c, syms, run, scn, &sh)) < 0)
		return r;
	scn = pa_elfimg_symtab(syms, ".dynsym", SHT_DYNSYM, &sh);
	if (scn && (r = load_pass(c, syms, run, scn, &sh)) < 0)
		return r;
	return 0;
}

/* perf 6.1's dso__synthesize_plt_symbols() (before the 6.3 rework): one
 * "NAME@plt" symbol per .rela.plt/.rel.plt entry, laid out from the .plt
 * start plus one header entry, entry size by machine (sh_entsize when not
 * known), names from the runtime file's .dynsym. Inserted without fixups.
 * (Placed at sh_offset like perf, reported at sh_addr.) */
static int synthesize_plt(struct load_ctx *c, struct elf_img *run)
{
	GElf_Shdr dynsh, relsh, pltsh;
	size_t dynidx = 0;
	Elf_Scn *dyn = pa_elfimg_symtab(run, ".dynsym", SHT_DYNSYM, &dynsh);
	if (!dyn)
		return 0;
	dynidx = elf_ndxscn(dyn);
	Elf_Scn *rel = pa_elfimg_find(run, ".rela.plt", &relsh);
	if (!rel)
		rel = pa_elfimg_find(run, ".rel.plt", &relsh);
	if (!rel || relsh.sh_link != dynidx || !pa_elfimg_find(run, ".plt", &pltsh))
		return 0;
	Elf_Data *reldata = pa_elf_scn_data(rel);
	Elf_Data *syms = pa_elf_scn_data(dyn);
	Elf_Scn *strscn = elf_getscn(run->elf, dynsh.sh_link);
	Elf_Data *strs = pa_elf_scn_data(strscn);
	if (!reldata || !syms || !strs || !strs->d_size || !relsh.sh_entsize)
		return 0;
	if (relsh.sh_type != SHT_RELA && relsh.sh_type != SHT_REL)
		return 0;

	uint64_t hdr, ent;
	switch (run->ehdr.e_machine) {
	case EM_ARM:
		hdr = 20, ent = 12;
		break;
	case EM_AARCH64:
		hdr = 32, ent = 16;
		break;
	case EM_SPARC:
		hdr = 48, ent = 12;
		break;
	case EM_SPARCV9:
		hdr = 128, ent = 32;
		break;
	default:
		hdr = ent = pltsh.sh_entsize;
		break;
	}
	uint64_t off = pltsh.sh_offset + hdr, addr = pltsh.sh_addr + hdr;
	size_t nr = relsh.sh_size / relsh.sh_entsize;
	char buf[1024];
	for (size_t i = 0; i < nr; i++) {
		uint64_t info;
		if (relsh.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(reldata, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(reldata, (int)i, &r))
				break;
			info = r.r_info;
		}
		GElf_Sym sym;
		const char *name = "";
		if (gelf_getsym(syms, (int)GELF_R_SYM(info), &sym) && sym.st_name < strs->d_size &&
		    memchr((const char *)strs->d_buf + sym.st_name, 0, strs->d_size - sym.st_name))
			name = (const char *)strs->d_buf + sym.st_name;
		char *d = c->o.demangle ? pa_sym_demangle(name, c->o.demangle_params) : NULL;
		snprintf(buf, sizeof(buf), "%s@plt", d ? d : name);
		free(d);
		const char *nm = pa_arena_strdup(&c->t->arena, buf);
		if (!nm || pa_symb_insert(&c->b, off, addr, ent, STB_GLOBAL, STT_FUNC, nm))
			return -ENOMEM;
		off += ent;
		addr += ent;
	}
	return 0;
}

static bool same_file(int fd_a, int fd_b)
{
	struct stat a, b;
	return fstat(fd_a, &a) == 0 && fstat(fd_b, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Open and validate a debug-file candidate. 0 when usable. */
static int open_debug(struct load_ctx *c, struct elf_img *main, const char *path,
                      const char *debuglink, uint32_t crc, struct elf_img *dbg)
{
	struct pa_err scratch;
	GElf_Shdr sh;
	if (pa_elfimg_open(dbg, path, &scratch))
		return -1;
	if (same_file(dbg->fd, main->fd) || !pa_elfimg_symtab(dbg, ".symtab", SHT_SYMTAB, &sh))
		goto reject;
	if (c->t->build_id_len) {
		uint8_t bid[64];
		size_t n = pa_elfimg_build_id(dbg, bid, sizeof(bid));
		if (n != c->t->build_id_len || memcmp(bid, c->t->build_id, n))
			goto reject;
	} else if (debuglink) {
		uint32_t got = 0;
		if (file_crc32(path, &got) || got != crc)
			goto reject;
	}
	return 0;
reject:
	pa_elfimg_close(dbg);
	return -1;
}

int pa_elfload_segments(struct pa_symtab *t, struct elf_img *m)
{
	size_t phnum;
	if (elf_getphdrnum(m->elf, &phnum) || !phnum)
		return 0;
	t->segs = pa_arena_alloc(&t->arena, phnum * sizeof(*t->segs));
	if (!t->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!ph.p_filesz && !ph.p_memsz)
			continue;
		t->segs[t->nsegs++] = (struct pa_symtab_seg){
		    .offset = ph.p_offset,
		    .vaddr = ph.p_vaddr,
		    .filesz = ph.p_filesz,
		    .memsz = ph.p_memsz,
		};
	}
	return 0;
}

#ifdef PA_HAVE_LZMA
/* MiniDebugInfo: its .symtab (sections from the main file where NOBITS),
 * then the main file's .dynsym. PA_ERR_NOT_FOUND when unusable. */
static int load_minidebug(struct load_ctx *c, struct elf_img *main_img, struct elf_img *mini)
{
	struct pa_err scratch;
	GElf_Shdr sh;
	if (img_open_minidebug(main_img, mini, &scratch))
		return -PA_ERR_NOT_FOUND;
	Elf_Scn *scn = pa_elfimg_symtab(mini, ".symtab", SHT_SYMTAB, &sh);
	if (!scn)
		return -PA_ERR_NOT_FOUND;
	int r = load_pass(c, mini, main_img, scn, &sh);
	scn = pa_elfimg_symtab(main_img, ".dynsym", SHT_DYNSYM, &sh);
	if (r >= 0 && scn)
		r = load_pass(c, main_img, main_img, scn, &sh);
	return r < 0 ? r : 0;
}
#endif

/* Loads the symbols of the source (see the top of this file) that the
 * debug-file candidate dbg_path (the finder's; NULL: none) leaves; sets
 * c->t->origin and c->t->symfile. link, crc: the main file's debuglink. */
static int load_symbols(struct load_ctx *c, const char *path, struct elf_img *main_img,
                        const char *dbg_path, const char *link, uint32_t crc, struct elf_img *dbg,
                        struct elf_img *mini)
{
	struct pa_symtab *t = c->t;
	GElf_Shdr sh;
	int r;

	if (dbg_path && open_debug(c, main_img, dbg_path, link, crc, dbg) == 0) {
		struct pa_buf o = {0};
		r = pa_buf_addf(&o, "debuglink:%s", dbg_path);
		t->origin = r ? NULL : pa_arena_strdup(&t->arena, o.data);
		t->symfile = pa_arena_strdup(&t->arena, dbg_path);
		pa_buf_release(&o);
		if (!t->origin || !t->symfile)
			return -ENOMEM;
		return pa_elfload_passes(c, dbg, main_img);
	}

	t->symfile = pa_arena_strdup(&t->arena, path);
	if (!t->symfile)
		return -ENOMEM;
	if (pa_elfimg_symtab(main_img, ".symtab", SHT_SYMTAB, &sh)) {
		t->origin = ".symtab";
		return pa_elfload_passes(c, main_img, main_img);
	}
#ifdef PA_HAVE_LZMA
	if (!c->o.no_minidebuginfo) {
		r = load_minidebug(c, main_img, mini);
		if (r != -PA_ERR_NOT_FOUND) {
			t->origin = "minidebuginfo";
			return r;
		}
		pa_elfimg_close(mini);
	}
#else
	(void)mini;
#endif
	t->origin = pa_elfimg_symtab(main_img, ".dynsym", SHT_DYNSYM, &sh) ? ".dynsym" : "none";
	return pa_elfload_passes(c, main_img, main_img);
}

/* What every loader starts with: the options, libelf, an empty table. */
int pa_elfload_begin(struct load_ctx *c, const struct pa_sym_opts *opts)
{
	int r;
	pa_symb_init(&c->b);
	if ((r = pa_sym_opts_read(opts, &c->o, c->err)))
		return r;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pa_err_set(c->err, PA_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
	c->t = pa_symtab_new(PA_SYMTAB_ELF);
	if (!c->t)
		return pa_err_set(c->err, -ENOMEM, "out of memory");
	return 0;
}

struct pa_symtab *pa_elfload_end(struct load_ctx *c, int r)
{
	pa_symb_release(&c->b);
	if (r) {
		pa_symtab_free(c->t);
		errno = r < 0 ? -r : EINVAL;
		return NULL;
	}
	return c->t;
}

/* What the table of an opened file is made from, for its index
 * (elfcache.c); false: no index (none asked, or an image in memory). */
static bool index_src(const struct load_ctx *c, const char *path, const struct elf_img *main_img,
                      const char *candidate, struct pa_elfidx_src *src)
{
	if (!c->o.index_dir || main_img->fd < 0)
		return false;
	uint32_t o = (c->o.demangle ? PA_ELFIDX_DEMANGLE : 0) |
	             (c->o.demangle_params ? PA_ELFIDX_PARAMS : 0) |
	             (c->o.no_minidebuginfo ? PA_ELFIDX_NO_MINIDEBUG : 0);
#ifdef PA_HAVE_LZMA
	o |= PA_ELFIDX_LZMA;
#endif
	*src = (struct pa_elfidx_src){
	    .path = path, .fd = main_img->fd, .candidate = candidate, .opts = o};
	return true;
}

/* The loader of an opened image (main_img); closes it. The symbols come
 * from the file's index when one holds for the same files (elfcache.c),
 * else from the files, and the index is written. */
static struct pa_symtab *load_elf_img(struct load_ctx *c, const char *path,
                                      struct elf_img *main_img, struct pa_err *err)
{
	struct elf_img dbg = {.fd = -1}, mini = {.fd = -1};
	struct pa_symtab *t = c->t;
	struct pa_elfidx_src src;
	char *idx = NULL, *dbg_path = NULL;
	t->elf_type = main_img->ehdr.e_type;
	t->build_id_len = pa_elfimg_build_id(main_img, t->build_id, sizeof(t->build_id));
	int r = pa_elfload_segments(t, main_img);
	if (r)
		goto out;
	uint32_t crc = 0;
	const char *link = img_debuglink(main_img, &crc);
	pa_sym_find_debuginfo_fn find =
	    c->o.find_debuginfo ? c->o.find_debuginfo : pa_sym_find_debuginfo_default;
	dbg_path = find(c->o.find_ctx, path, t->build_id_len ? t->build_id : NULL, t->build_id_len,
	                link, crc);
	if (index_src(c, path, main_img, dbg_path, &src) &&
	    (idx = pa_idx_name(c->o.index_dir, t->build_id, t->build_id_len, path)) &&
	    !pa_elf_index_open(idx, &src, t))
		goto out;
	r = load_symbols(c, path, main_img, dbg_path, link, crc, &dbg, &mini);
	/* perf synthesizes PLT entries when the load found symbols */
	if (!r && c->b.live > 0)
		r = synthesize_plt(c, main_img);
	if (!r)
		r = pa_symtab_freeze(t, &c->b, false);
	if (!r && idx)
		(void)pa_elf_index_write(t, idx, &src); /* (a cache: failing is fine) */
out:
	if (r == -ENOMEM)
		pa_err_set(err, r, "out of memory");
	free(idx);
	free(dbg_path);
	pa_elfimg_close(&mini);
	pa_elfimg_close(&dbg);
	pa_elfimg_close(main_img);
	return pa_elfload_end(c, r);
}

struct pa_symtab *pa_symtab_load_elf(const char *path, const struct pa_sym_opts *opts,
                                     struct pa_err *err)
{
	struct load_ctx c = {.err = err};
	struct elf_img main_img = {.fd = -1};
	int r;

	if ((r = pa_elfload_begin(&c, opts)) || (r = pa_elfimg_open(&main_img, path, err)))
		return pa_elfload_end(&c, r);
	return load_elf_img(&c, path, &main_img, err);
}

struct pa_symtab *pa_symtab_load_elf_mem(const char *name, const void *data, size_t len,
                                         const struct pa_sym_opts *opts, struct pa_err *err)
{
	struct load_ctx c = {.err = err};
	struct elf_img main_img = {.fd = -1};
	int r;

	if ((r = pa_elfload_begin(&c, opts)))
		return pa_elfload_end(&c, r);
	/* a copy: the image lives as long as the loader needs it, whatever
	 * the caller's memory is (a mapping such as the running vdso) */
	main_img.mem = malloc(len ? len : 1);
	if (!main_img.mem)
		return pa_elfload_end(&c, pa_err_set(err, -ENOMEM, "out of memory"));
	memcpy(main_img.mem, data, len);
	main_img.elf = elf_memory(main_img.mem, len);
	if ((r = pa_elfimg_init(&main_img, name, err))) {
		pa_elfimg_close(&main_img);
		return pa_elfload_end(&c, r);
	}
	return load_elf_img(&c, name, &main_img, err);
}
