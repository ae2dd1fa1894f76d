/* dl.h - shared libraries opened when first needed, not linked.
 *
 * Linked, a library and those it needs are loaded and relocated at every
 * start of pa, whatever the command: libarchive (with libxml2, ICU and
 * libstdc++), capstone and libcrypto cost a small report a quarter of its
 * time (bench/README.md). The layer that uses one keeps a table of the
 * functions it calls and opens the library on its first call.
 */
#ifndef PA_UTIL_DL_H
#define PA_UTIL_DL_H

#include <stdbool.h>
#include <stddef.h>

/* Open soname and look up names[0..n) into slots[0..n) (dlsym's object
 * pointers; a function pointer is taken from one's bytes, as POSIX says).
 * The handle, or NULL with why[why_size] said (the library or a symbol
 * missing). Never unloaded: what a library set up at its load stays
 * reachable, as when linked. */
void *pa_dl_open(const char *soname, const char *const *names, void **slots, size_t n,
                 char *why, size_t why_size);

/* A library used through forwarders of its own names: opened once, by
 * whichever thread calls first. soname NULL: pa was built without it. */
struct pa_dl_lib {
	const char *soname;
	const char *const *names;
	void **slots;
	size_t n;
	_Atomic int done; /* 1: tried (handle set when it worked) */
	void *handle;
	char why[192];
};
#define PA_DL_LIB_INIT(so, nm, sl)                                                                 \
	{ .soname = (so), .names = (nm), .slots = (sl), .n = sizeof(nm) / sizeof((nm)[0]) }

/* l opened (once); false: not there, l->why says why. */
bool pa_dl_lib_load(struct pa_dl_lib *l);
/* NULL when l is opened (now, if not yet), else why not. */
const char *pa_dl_lib_why(struct pa_dl_lib *l);

/* A library's forwarders: FUNCS(X, V) lists its functions, X(ret, name,
 * (params), (args), value on failure) and V(name, (params), (args)) for
 * those returning void. In the file that has them, #define PA_DL_THIS as
 * the table's name, then PA_DL_DEFINE(soname, FUNCS): the table, and a
 * function of each name that opens the library on the first call and
 * calls its own (the call sites stay the library's). */
#define PA_DL_DEFINE(so, FUNCS)       PA_DL_DEFINE_(PA_DL_THIS, so, FUNCS)
#define PA_DL_DEFINE_(lib, so, FUNCS) PA_DL_DEFINE__(lib, so, FUNCS)
#define PA_DL_DEFINE__(lib, so, FUNCS)                                                             \
	enum { FUNCS(PA_DL_ENUM_X, PA_DL_ENUM_V) PA_DL_NR_##lib };                                 \
	static const char *const lib##_names[] = {FUNCS(PA_DL_NAME_X, PA_DL_NAME_V)};              \
	static void *lib##_slots[PA_DL_NR_##lib];                                                  \
	static struct pa_dl_lib lib = PA_DL_LIB_INIT(so, lib##_names, lib##_slots);                \
	FUNCS(PA_DL_FWD_X, PA_DL_FWD_V)
#define PA_DL_ENUM_X(r, n, p, a, f) PA_DL_I_##n,
#define PA_DL_ENUM_V(n, p, a)       PA_DL_I_##n,
#define PA_DL_NAME_X(r, n, p, a, f) #n,
#define PA_DL_NAME_V(n, p, a)       #n,
#define PA_DL_FWD_X(r, n, p, a, f)  PA_DL_FWD_X_(PA_DL_THIS, r, n, p, a, f)
#define PA_DL_FWD_V(n, p, a)        PA_DL_FWD_V_(PA_DL_THIS, n, p, a)
#define PA_DL_FWD_X_(lib, r, n, p, a, f)                                                           \
	r n p                                                                                      \
	{                                                                                          \
		r(*fn_) p;                                                                         \
		if (!pa_dl_lib_load(&lib))                                                         \
			return f;                                                                  \
		memcpy(&fn_, &lib.slots[PA_DL_I_##n], sizeof(fn_));                                \
		return fn_ a;                                                                      \
	}
#define PA_DL_FWD_V_(lib, n, p, a)                                                                 \
	void n p                                                                                   \
	{                                                                                          \
		void(*fn_) p;                                                                      \
		if (!pa_dl_lib_load(&lib))                                                         \
			return;                                                                    \
		memcpy(&fn_, &lib.slots[PA_DL_I_##n], sizeof(fn_));                                \
		fn_ a;                                                                             \
	}

#endif
