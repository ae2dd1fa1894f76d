/* fuzz_perf_map.c - pa_symtab_load_perf_map() on arbitrary text, then every
 * symbol looked up (see fuzz_symbols.h). */
#include "fuzz_symbols.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file ff;
	if (fuzz_file_open(&ff, data, size))
		return 0;
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	o.demangle = size % 2 == 0;
	struct pa_err err = {0};
	struct pa_symtab *t = pa_symtab_load_perf_map(ff.path, &o, &err);
	if (t) {
		if (pa_symtab_kind(t) != PA_SYMTAB_PERF_MAP)
			fuzz_fail("wrong table kind");
		fuzz_check_symtab(t, data, size);
	} else if (err.code >= 0) {
		fuzz_fail("load failed without an error");
	}
	pa_symtab_free(t);
	fuzz_file_close(&ff);
	return 0;
}
