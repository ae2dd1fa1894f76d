/* elf_kernel.c - the kernel's ELF files as perf loads them: a vmlinux
 * (perf report --vmlinux: its build-id, its symbols by section) and a
 * kernel module (a .ko, maybe compressed, found by perf's dso__load()).
 * The image and the load steps are elf.c's (elfimg.h). */
#include "symbols/elfimg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The table comes from path's .symtab. */
static int from_symtab(struct load_ctx *c, const char *path)
{
	c->t->origin = ".symtab";
	c->t->symfile = pa_arena_strdup(&c->t->arena, path);
	return c->t->symfile ? 0 : pa_err_set(c->err, -ENOMEM, "out of memory");
}

/* The kernel loaders' end: the table frozen (unless r says they failed),
 * the image closed. */
static struct pa_symtab *kernel_end(struct load_ctx *c, struct elf_img *m, int r)
{
	if (!r)
		r = pa_symtab_freeze(c->t, &c->b, false);
	if (r == -ENOMEM)
		pa_err_set(c->err, r, "out of memory");
	pa_elfimg_close(m);
	return pa_elfload_end(c, r);
}

/* ---- vmlinux (perf report --vmlinux) ---------------------------------------- */

/* perf's elf_read_build_id(): the first section named ".note.gnu.build-id",
 * else ".notes", else ".note" - only that one - holds the id or nothing. */
static size_t img_perf_build_id(struct elf_img *m, uint8_t *out, size_t max)
{
	static const char *const names[] = {".note.gnu.build-id", ".notes", ".note"};
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !scn; i++)
		scn = pa_elfimg_find(m, names[i], &sh);
	return scn ? pa_elf_notes_build_id(pa_elf_scn_data(scn), out, max) : 0;
}

int pa_sym_vmlinux_build_id(const char *path, uint8_t *out, size_t max, size_t *len,
                            struct pa_err *err)
{
	struct elf_img m;
	*len = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pa_err_set(err, PA_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
	int r = pa_elfimg_open(&m, path, err);
	if (r)
		return r;
	*len = img_perf_build_id(&m, out, max);
	pa_elfimg_close(&m);
	return 0;
}

/* The value of the first symbol called name in a symbol table (perf looks
 * at every entry, whatever its type or section). */
static bool find_value(struct elf_img *m, Elf_Scn *symscn, const GElf_Shdr *symsh, const char *name,
                       uint64_t *value)
{
	Elf_Data *data = pa_elf_scn_data(symscn);
	Elf_Data *strs = pa_elf_scn_data(elf_getscn(m->elf, symsh->sh_link));
	size_t fsz = gelf_fsize(m->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !strs || !fsz)
		return false;
	size_t n = data->d_size / fsz, len = strlen(name);
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_name >= strs->d_size ||
		    strs->d_size - sym.st_name <= len)
			continue;
		if (!memcmp((const char *)strs->d_buf + sym.st_name, name, len + 1)) {
			*value = sym.st_value;
			return true;
		}
	}
	return false;
}

/* The kernel image facts pa_symtab_kimage() reports: .text, and the
 * relocation reference symbol from .symtab, else .dynsym (perf looks for it
 * in each pass until it has it). */
static void read_kimage(struct pa_symtab *t, struct elf_img *m, const char *ref_name)
{
	GElf_Shdr sh;
	if (pa_elfimg_find(m, ".text", &sh)) {
		t->kimage.has_text = true;
		t->kimage.text_addr = sh.sh_addr;
		t->kimage.text_offset = sh.sh_offset;
		t->kimage.text_size = sh.sh_size;
	}
	if (!ref_name || !*ref_name)
		return;
	Elf_Scn *scn = pa_elfimg_symtab(m, ".symtab", SHT_SYMTAB, &sh);
	uint64_t v = 0;
	bool found = scn && find_value(m, scn, &sh, ref_name, &v);
	if (!found && (scn = pa_elfimg_symtab(m, ".dynsym", SHT_DYNSYM, &sh)))
		found = find_value(m, scn, &sh, ref_name, &v);
	/* perf treats a reference at 0 as not found */
	t->kimage.has_ref = found && v;
	t->kimage.ref_value = v;
}

struct pa_symtab *pa_symtab_load_vmlinux(const char *path, const char *ref_name,
                                         const struct pa_sym_opts *opts, struct pa_err *err)
{
	struct load_ctx c = {.err = err, .kernel = true};
	struct elf_img m = {.fd = -1};
	GElf_Shdr sh;
	int r;

	if ((r = pa_elfload_begin(&c, opts)))
		goto out;
	if ((r = pa_elfimg_open(&m, path, err)))
		goto out;
	/* perf: "if the vmlinux is stripped, fail" - its .dynsym (if any)
	 * is only read after a .symtab */
	if (!pa_elfimg_symtab(&m, ".symtab", SHT_SYMTAB, &sh)) {
		r = pa_err_set(err, -PA_ERR_NOT_FOUND, "'%s': no .symtab (stripped)", path);
		goto out;
	}
	c.t->elf_type = m.ehdr.e_type;
	c.t->build_id_len = pa_elfimg_build_id(&m, c.t->build_id, sizeof(c.t->build_id));
	if ((r = from_symtab(&c, path)))
		goto out;
	read_kimage(c.t, &m, ref_name);
	r = pa_elfload_segments(c.t, &m);
	if (!r)
		r = pa_elfload_passes(&c, &m, &m);
out:
	return kernel_end(&c, &m, r);
}

/* ---- kernel modules (a .ko, found by perf's dso__load() for a module) ------- */

enum pa_kmod_comp pa_kmod_comp_of(const char *name)
{
	/* perf's kmod_path__parse(): "[name]" is a module by name only;
	 * else NAME.ko.gz / NAME.ko.xz, the ".ko" not at the very start of
	 * the file name */
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *ext = strrchr(name, '.');
	if (base[0] == '[' || !ext || ext - 3 <= base || strncmp(ext - 3, ".ko", 3))
		return PA_KMOD_PLAIN;
	if (!strcmp(ext + 1, "gz"))
		return PA_KMOD_GZIP;
	if (!strcmp(ext + 1, "xz"))
		return PA_KMOD_XZ;
	return PA_KMOD_PLAIN;
}

static int read_fd_all(int fd, const char *path, uint8_t **out, size_t *len, struct pa_err *err)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return pa_err_set(err, -ENOMEM, "out of memory");
	for (;;) {
		if (n == cap) {
			if (cap >= PA_INFLATE_MAX) {
				free(buf);
				return pa_err_set(err, PA_ERR_LIMIT, "'%s': too large", path);
			}
			uint8_t *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return pa_err_set(err, -ENOMEM, "out of memory");
			}
			buf = p;
			cap *= 2;
		}
		ssize_t got = pread(fd, buf + n, cap - n, (off_t)n);
		if (got < 0) {
			int e = -errno;
			free(buf);
			return pa_err_set(err, e, "'%s': %s", path, pa_strerror(e));
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Opens a module file: inflated when it is compressed the way comp says
 * (perf checks the magic: a plain file is read as it is). */
static int kmod_open(struct elf_img *m, const char *path, enum pa_kmod_comp comp,
                     struct pa_err *err)
{
	static const uint8_t gz_magic[2] = {0x1f, 0x8b};
	static const uint8_t xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
	uint8_t head[6] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		return pa_err_set(err, e, "'%s': %s", path, pa_strerror(e));
	}
	ssize_t got = pread(fd, head, sizeof(head), 0);
	bool gz = comp == PA_KMOD_GZIP && got >= 2 && !memcmp(head, gz_magic, 2);
	bool xz = comp == PA_KMOD_XZ && got >= 6 && !memcmp(head, xz_magic, 6);
	if (!gz && !xz) {
		close(fd);
		return pa_elfimg_open(m, path, err);
	}
	uint8_t *raw = NULL, *img = NULL;
	size_t rawlen = 0, imglen = 0;
	int r = read_fd_all(fd, path, &raw, &rawlen, err);
	close(fd);
	if (r)
		return r;
	char *what = pa_asprintf("'%s'", path);
	if (!what) {
		r = pa_err_set(err, -ENOMEM, "out of memory");
	} else if (gz) {
		r = pa_inflate_gzip(raw, rawlen, what, &img, &imglen, err);
	} else {
#ifdef PA_HAVE_LZMA
		r = pa_inflate_xz(raw, rawlen, what, &img, &imglen, err);
#else
		r = pa_err_set(err, PA_ERR_UNSUPPORTED, "'%s': built without xz support", path);
#endif
	}
	free(what);
	free(raw);
	if (r)
		return r;
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->mem = img;
	m->elf = elf_memory((char *)img, imglen);
	r = pa_elfimg_init(m, path, err);
	if (r)
		pa_elfimg_close(m);
	return r;
}

struct pa_symtab *pa_symtab_load_kmod(const char *path, enum pa_kmod_comp comp,
                                      const struct pa_sym_insert *late, size_t nr_late,
                                      const struct pa_sym_opts *opts, struct pa_err *err)
{
	struct load_ctx c = {.err = err, .kernel = true, .kmod = true};
	struct elf_img m = {.fd = -1};
	GElf_Shdr sh;
	int r;

	if ((r = pa_elfload_begin(&c, opts)))
		goto out;
	if ((r = kmod_open(&m, path, comp, err)))
		goto out;
	c.t->elf_type = m.ehdr.e_type;
	/* what perf checks a module against: at most 20 bytes */
	c.t->build_id_len = img_perf_build_id(&m, c.t->build_id, 20);
	if (!pa_elfimg_symtab(&m, ".symtab", SHT_SYMTAB, &sh)) {
		r = pa_err_set(err, -PA_ERR_NOT_FOUND, "'%s': no .symtab", path);
		goto out;
	}
	if ((r = from_symtab(&c, path)))
		goto out;
	read_kimage(c.t, &m, NULL);
	r = pa_elfload_passes(&c, &m, &m);
	if (!r && (r = pa_symb_insert_all(&c.b, &c.t->arena, late, nr_late)))
		pa_err_set(err, r, "out of memory");
out:
	return kernel_end(&c, &m, r);
}
