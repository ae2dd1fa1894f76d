/* fuzz_elf.c - the ELF symbol loader (pa_symtab_load_elf: .symtab, .dynsym,
 * PLT, .gnu_debuglink, MiniDebugInfo, PT_LOAD offsets, demangling) and the
 * build-id note reader (pa_buildid_read_elf_mem) on arbitrary bytes. No
 * separate debug file is ever looked for: the finder callback says none.
 */
#include "fuzz_symbols.h"
#include "buildid/buildid.h"

#include <stdlib.h>

static char *no_debuginfo(void *ctx, const char *main_path, const uint8_t *build_id,
			  size_t build_id_len, const char *debuglink, uint32_t crc)
{
	uint64_t *h = ctx;
	*h += fuzz_touch(build_id, build_id_len) + fuzz_touch_str(debuglink) + crc;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_buildid id;
	struct pa_err err = {0};
	uint64_t h = 0;
	if (pa_buildid_read_elf_mem(data, size, &id, &err) == 0) {
		if (id.size > 20)
			fuzz_fail("build-id of %u bytes", id.size);
		h += fuzz_touch(id.data, id.size);
	}
	struct fuzz_file ff;
	if (fuzz_file_open(&ff, data, size))
		return 0;
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.find_debuginfo = no_debuginfo;
	o.find_ctx = &h;
	o.demangle = size % 3 != 0;
	o.demangle_params = size % 3 == 1;
	struct pa_symtab *t = pa_symtab_load_elf(ff.path, &o, &err);
	if (t)
		fuzz_check_symtab(t, data, size);
	else if (err.code >= 0)
		fuzz_fail("load failed without an error");
	pa_symtab_free(t);
	/* the same bytes as a vmlinux (perf's kernel rules) and as a kernel
	 * module (ET_REL relocation, plus one kallsyms symbol of its own) */
	pa_err_clear(&err);
	t = pa_symtab_load_vmlinux(ff.path, "_text", &o, &err);
	if (t) {
		struct pa_kimage ki;
		(void)pa_symtab_kimage(t, &ki);
		fuzz_check_symtab(t, data, size);
	} else if (err.code >= 0) {
		fuzz_fail("vmlinux load failed without an error");
	}
	pa_symtab_free(t);
	pa_err_clear(&err);
	struct pa_sym_insert late = {.start = 0x1000, .end = 0x1010, .name = "late"};
	t = pa_symtab_load_kmod(ff.path, PA_KMOD_PLAIN, size % 2 ? &late : NULL, size % 2, &o, &err);
	if (t)
		fuzz_check_symtab(t, data, size);
	else if (err.code >= 0)
		fuzz_fail("module load failed without an error");
	pa_symtab_free(t);
	fuzz_file_close(&ff);
	fuzz_sink += h;
	return 0;
}
