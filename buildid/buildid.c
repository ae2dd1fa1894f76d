/* buildid.c - build-id values, ELF note reading, SHA-1 fallback ids, kernel notes. */
#include "buildid/buildid.h"
#include "buildid/internal.h"

#include <elf.h>
#include <errno.h>
#include <sys/auxv.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <openssl/evp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- values -------------------------------------------------------------- */

void pa_buildid_to_hex(const struct pa_buildid *id, char out[41])
{
	size_t n = id ? id->size : 0;
	if (n > PA_BUILDID_MAX)
		n = PA_BUILDID_MAX;
	pa_hex(out, id ? id->data : (const uint8_t *)"", n);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int pa_buildid_from_hex(const char *hex, struct pa_buildid *out)
{
	struct pa_buildid id = {0};
	size_t n;

	if (!hex || !out)
		return -EINVAL;
	n = strnlen(hex, 2 * PA_BUILDID_MAX + 1);
	if (n == 0 || n > 2 * PA_BUILDID_MAX || n % 2)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		id.data[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	id.size = (uint8_t)(n / 2);
	*out = id;
	return 0;
}

bool pa_buildid_equal(const struct pa_buildid *a, const struct pa_buildid *b)
{
	if (!a || !b || a->size != b->size || a->size > PA_BUILDID_MAX)
		return false;
	return memcmp(a->data, b->data, a->size) == 0;
}

bool pa_buildid_is_defined(const struct pa_buildid *id)
{
	if (!id || id->size == 0 || id->size > PA_BUILDID_MAX)
		return false;
	for (size_t i = 0; i < id->size; i++)
		if (id->data[i])
			return true;
	return false;
}

/* ---- ELF notes ----------------------------------------------------------- */

/* Scan one translated note area; 0 and *out set, or -PA_ERR_NOT_FOUND. */
static int scan_notes(Elf_Data *d, struct pa_buildid *out)
{
	uint8_t id[PA_BUILDID_MAX];
	size_t n;

	if (!d || !d->d_buf || (d->d_type != ELF_T_NHDR && d->d_type != ELF_T_NHDR8))
		return -PA_ERR_NOT_FOUND;
	/* translated: the header words are in host order */
	n = pa_note_gnu_build_id(d->d_buf, d->d_size, d->d_type == ELF_T_NHDR8 ? 8 : 4, false, id,
	                         sizeof(id));
	if (!n)
		return -PA_ERR_NOT_FOUND;
	memset(out, 0, sizeof(*out));
	memcpy(out->data, id, n);
	out->size = (uint8_t)n;
	return 0;
}

static int read_elf_notes(Elf *elf, const char *what, struct pa_buildid *out, struct pa_err *err)
{
	Elf_Scn *scn = NULL;
	size_t phnum = 0;

	if (elf_kind(elf) != ELF_K_ELF)
		return pa_err_set(err, PA_ERR_FORMAT, "'%s': not an ELF file", what);

	/* Sections first: they exist in debug files, whose PT_NOTE segments
	 * point at NOBITS data. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || (d->d_type != ELF_T_NHDR && d->d_type != ELF_T_NHDR8))
			continue;
		if (scan_notes(d, out) == 0)
			return 0;
	}
	if (elf_getphdrnum(elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			Elf_Data *d;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE || ph.p_filesz == 0)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (d && scan_notes(d, out) == 0)
				return 0;
		}
	}
	return pa_err_set(err, PA_ERR_NOT_FOUND, "'%s': no build-id note", what);
}

int pa_buildid__read_elf_fd(int fd, const char *what, struct pa_buildid *out, struct pa_err *err)
{
	Elf *elf;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return pa_err_set(err, PA_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return pa_err_set(err, PA_ERR_FORMAT, "'%s': %s", what, elf_errmsg(-1));
	ret = read_elf_notes(elf, what, out, err);
	elf_end(elf);
	return ret;
}

int pa_buildid_read_elf(const char *path, struct pa_buildid *out, struct pa_err *err)
{
	int fd, ret;

	if (!path || !out)
		return pa_err_set(err, -EINVAL, "invalid argument");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", path, strerror(errno));
	ret = pa_buildid__read_elf_fd(fd, path, out, err);
	close(fd);
	return ret;
}

int pa_buildid_read_elf_mem(const void *data, size_t len, struct pa_buildid *out,
			    struct pa_err *err)
{
	Elf *elf;
	int ret;

	if (!data || !out)
		return pa_err_set(err, -EINVAL, "invalid argument");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pa_err_set(err, PA_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
	/* elf_memory() takes a non-const pointer but does not write through it
	 * for read-only use. */
	elf = elf_memory((char *)data, len);
	if (!elf)
		return pa_err_set(err, PA_ERR_FORMAT, "'<memory>': %s", elf_errmsg(-1));
	ret = read_elf_notes(elf, "<memory>", out, err);
	elf_end(elf);
	return ret;
}

/* ---- SHA-1 fallback ------------------------------------------------------ */

int pa_buildid__sha1_fd(int fd, const char *what, struct pa_buildid *out, struct pa_err *err)
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ret = 0;

	if (!ctx)
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) != 1) {
		ret = pa_err_set(err, PA_ERR_UNSUPPORTED, "libcrypto: SHA-1 unavailable");
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = pa_err_set(err, -errno, "'%s': %s", what, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1) {
			ret = pa_err_set(err, PA_ERR_UNSUPPORTED, "libcrypto: SHA-1 failed");
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen < PA_BUILDID_MAX) {
		ret = pa_err_set(err, PA_ERR_UNSUPPORTED, "libcrypto: SHA-1 failed");
		goto out;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->data, md, PA_BUILDID_MAX);
	out->size = PA_BUILDID_MAX;
out:
	EVP_MD_CTX_free(ctx);
	return ret;
}

int pa_buildid_sha1_file(const char *path, struct pa_buildid *out, struct pa_err *err)
{
	int fd, ret;

	if (!path || !out)
		return pa_err_set(err, -EINVAL, "invalid argument");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", path, strerror(errno));
	ret = pa_buildid__sha1_fd(fd, path, out, err);
	close(fd);
	return ret;
}

int pa_buildid_sha1_mem(const void *data, size_t len, struct pa_buildid *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if ((!data && len) || !out)
		return -EINVAL;
	if (EVP_Digest(data ? data : "", len, md, &mdlen, EVP_sha1(), NULL) != 1 ||
	    mdlen < PA_BUILDID_MAX)
		return -PA_ERR_UNSUPPORTED;
	memset(out, 0, sizeof(*out));
	memcpy(out->data, md, PA_BUILDID_MAX);
	out->size = PA_BUILDID_MAX;
	return 0;
}

/* ---- identity ------------------------------------------------------------ */

int pa_buildid__identify_fd(int fd, const char *what, struct pa_buildid *out, bool *is_fallback,
			    struct pa_err *err)
{
	int ret = pa_buildid__read_elf_fd(fd, what, out, err);

	if (is_fallback)
		*is_fallback = false;
	if (ret != -PA_ERR_NOT_FOUND && ret != -PA_ERR_FORMAT)
		return ret;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return pa_err_set(err, -errno, "'%s': %s", what, strerror(errno));
	if (is_fallback)
		*is_fallback = true;
	pa_err_clear(err);
	return pa_buildid__sha1_fd(fd, what, out, err);
}

int pa_buildid_identify(const char *path, struct pa_buildid *out, bool *is_fallback,
			struct pa_err *err)
{
	int fd, ret;

	if (!path || !out)
		return pa_err_set(err, -EINVAL, "invalid argument");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", path, strerror(errno));
	ret = pa_buildid__identify_fd(fd, path, out, is_fallback, err);
	close(fd);
	return ret;
}

int pa_buildid__fd_matches(int fd, const char *what, const struct pa_buildid *id,
			   struct pa_err *err)
{
	struct pa_buildid got;
	int ret = pa_buildid__read_elf_fd(fd, what, &got, err);

	if (ret == 0)
		return pa_buildid_equal(&got, id);
	if (ret != -PA_ERR_NOT_FOUND && ret != -PA_ERR_FORMAT)
		return ret;
	/* No note: only a SHA-1 sized id can name this file. */
	if (!id || id->size != PA_BUILDID_MAX)
		return 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return pa_err_set(err, -errno, "'%s': %s", what, strerror(errno));
	pa_err_clear(err);
	ret = pa_buildid__sha1_fd(fd, what, &got, err);
	if (ret < 0)
		return ret;
	return pa_buildid_equal(&got, id);
}

int pa_buildid_file_matches(const char *path, const struct pa_buildid *id, struct pa_err *err)
{
	int fd, ret;

	if (!path || !id)
		return pa_err_set(err, -EINVAL, "invalid argument");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", path, strerror(errno));
	ret = pa_buildid__fd_matches(fd, path, id, err);
	close(fd);
	return ret;
}

/* ---- the running kernel -------------------------------------------------- */

/* The GNU build-id in a raw, 4-byte aligned note list; 0 or -1. */
static int scan_kernel_notes(const unsigned char *buf, size_t len, bool swap,
			     struct pa_buildid *out)
{
	uint8_t id[PA_BUILDID_MAX];
	size_t n = pa_note_gnu_build_id(buf, len, 4, swap, id, sizeof(id));

	if (!n)
		return -1;
	memset(out, 0, sizeof(*out));
	memcpy(out->data, id, n);
	out->size = (uint8_t)n;
	return 0;
}

int pa_buildid_running_kernel(const char *notes_path, struct pa_buildid *out,
			      struct pa_err *err)
{
	unsigned char buf[65536];
	size_t len = 0;
	int fd;

	if (!out)
		return pa_err_set(err, -EINVAL, "invalid argument");
	if (!notes_path)
		notes_path = "/sys/kernel/notes";
	fd = open(notes_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pa_err_set(err, -errno, "'%s': %s", notes_path, strerror(errno));
	while (len < sizeof(buf)) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return pa_err_set(err, -e, "'%s': %s", notes_path, strerror(e));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);

	/* A raw list of notes in the kernel's byte order: the native one,
	 * except under an emulator (qemu-user runs an s390x pa on an x86_64
	 * kernel), hence a second pass swapped. */
	if (scan_kernel_notes(buf, len, false, out) == 0 ||
	    scan_kernel_notes(buf, len, true, out) == 0)
		return 0;
	return pa_err_set(err, PA_ERR_NOT_FOUND, "'%s': no build-id note", notes_path);
}

const void *pa_buildid_running_vdso(size_t *size)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	uint64_t end;

	if (!img || memcmp(img, "\177ELF", 4))
		return NULL;
	if (img[4] == 2) {
		uint64_t shoff;
		uint16_t shentsize, shnum;
		memcpy(&shoff, img + 0x28, 8);
		memcpy(&shentsize, img + 0x3a, 2);
		memcpy(&shnum, img + 0x3c, 2);
		end = shoff + (uint64_t)shentsize * shnum;
	} else {
		uint32_t shoff;
		uint16_t shentsize, shnum;
		memcpy(&shoff, img + 0x20, 4);
		memcpy(&shentsize, img + 0x2e, 2);
		memcpy(&shnum, img + 0x30, 2);
		end = shoff + (uint64_t)shentsize * shnum;
	}
	if (end < 64 || end > (1u << 20))
		return NULL;
	*size = (size_t)end;
	return img;
}
