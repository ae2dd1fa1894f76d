/* kcore.c - the kernel's code in an ELF core (a kcore copy, /proc/kcore):
 * a symbol's bytes from the PT_LOAD segment holding them, and perf's
 * extract of them (kcore_extract__create) for objdump. */
#include "annotate/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ann_core_read(Elf *elf, int fd, uint64_t start, uint64_t end, uint8_t **bytes, size_t *len)
{
	GElf_Ehdr eh;
	size_t n = 0;
	*bytes = NULL;
	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE || elf_getphdrnum(elf, &n))
		return -PA_ERR_NOT_FOUND;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || start < ph.p_vaddr ||
		    start - ph.p_vaddr >= ph.p_filesz)
			continue;
		if (end - ph.p_vaddr > ph.p_filesz)
			end = ph.p_vaddr + ph.p_filesz;
		*len = end - start;
		if (!(*bytes = malloc(*len ? *len : 1)))
			return -ENOMEM;
		if (pread(fd, *bytes, *len, (off_t)(ph.p_offset + start - ph.p_vaddr)) != (ssize_t)*len) {
			free(*bytes);
			*bytes = NULL;
			return -PA_ERR_NOT_FOUND;
		}
		return 0;
	}
	return -PA_ERR_NOT_FOUND;
}

/* write an ELF core like elf's with one PT_LOAD of bytes at addr */
static int write_extract(Elf *elf, int out, uint64_t addr, const uint8_t *bytes, size_t len)
{
	GElf_Ehdr src, h;
	GElf_Phdr ph;
	const size_t off = 4096; /* perf's: the headers rounded up to a page */
	int rc = -PA_ERR_NOT_FOUND;
	Elf *e = elf_begin(out, ELF_C_WRITE, NULL);
	if (!e || !gelf_getehdr(elf, &src) || !gelf_newehdr(e, gelf_getclass(elf)) ||
	    !gelf_newphdr(e, 1))
		goto out;
	if (!gelf_getehdr(e, &h))
		goto out;
	memcpy(h.e_ident, src.e_ident, EI_NIDENT);
	h.e_type = ET_CORE;
	h.e_machine = src.e_machine;
	h.e_version = EV_CURRENT;
	h.e_phoff = gelf_fsize(e, ELF_T_EHDR, 1, EV_CURRENT);
	ph = (GElf_Phdr){.p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X, .p_offset = off,
	                 .p_vaddr = addr, .p_filesz = len, .p_memsz = len, .p_align = off};
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	if (!gelf_update_ehdr(e, &h) || !gelf_update_phdr(e, 0, &ph) || elf_update(e, ELF_C_WRITE) < 0)
		goto out;
	if (pwrite(out, bytes, len, (off_t)off) != (ssize_t)len)
		goto out;
	rc = 0;
out:
	if (e)
		elf_end(e);
	return rc;
}

char *ann_core_extract(const char *path, uint64_t start, uint64_t end)
{
	uint8_t *bytes = NULL;
	size_t len = 0;
	char *tmp = NULL;
	int out = -1, fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = NULL;
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) ||
	    ann_core_read(elf, fd, start, end, &bytes, &len))
		goto out;
	const char *dir = getenv("TMPDIR");
	if (!(tmp = pa_asprintf("%s/pa-kcore-XXXXXX", dir && *dir ? dir : "/tmp")) ||
	    (out = mkstemp(tmp)) < 0 || write_extract(elf, out, start, bytes, len)) {
		if (out >= 0)
			unlink(tmp);
		free(tmp);
		tmp = NULL;
	}
out:
	if (out >= 0)
		close(out);
	free(bytes);
	if (elf)
		elf_end(elf);
	close(fd);
	return tmp;
}
