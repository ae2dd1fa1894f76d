/* libcapstone.c - capstone, opened when pa annotate first disassembles
 * (util/dl.h: linked, its relocations alone slowed every pa start by a
 * millisecond). The functions disasm.c calls, by their own names. */
#include "annotate/internal.h"

#ifdef PA_HAVE_CAPSTONE
#include "util/dl.h"

#include <capstone/capstone.h>
#include <string.h>

/* (a failed open: cs_open says CS_ERR_MEM, and nothing else is called
 * without a handle) */
#define FUNCS(X, V)                                                                                \
	X(cs_err, cs_open, (cs_arch arch, cs_mode mode, csh *h), (arch, mode, h), CS_ERR_MEM)      \
	X(cs_err, cs_option, (csh h, cs_opt_type t, size_t v), (h, t, v), CS_ERR_HANDLE)           \
	X(cs_insn *, cs_malloc, (csh h), (h), NULL)                                                \
	V(cs_free, (cs_insn * in, size_t n), (in, n))                                              \
	X(cs_err, cs_close, (csh * h), (h), CS_ERR_HANDLE)                                         \
	X(bool, cs_disasm_iter,                                                                    \
	  (csh h, const uint8_t **code, size_t *size, uint64_t *addr, cs_insn *in),                \
	  (h, code, size, addr, in), false)                                                        \
	X(bool, cs_insn_group, (csh h, const cs_insn *in, unsigned int g), (h, in, g), false)

#define PA_DL_THIS libcapstone
PA_DL_DEFINE(PA_SONAME_CAPSTONE, FUNCS)

const char *pa_annotate_capstone_why(void)
{
	return pa_dl_lib_why(&libcapstone);
}
#else
const char *pa_annotate_capstone_why(void)
{
	return "pa was built without capstone";
}
#endif
