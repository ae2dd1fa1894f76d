/* internal.h - shared by resolver/ sources only. */
#ifndef PA_RESOLVER_INTERNAL_H
#define PA_RESOLVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "resolver/resolver.h"
#include "buildid/buildid.h"

/* A DSO's symbols, loaded on first use. */
struct dso_syms {
	int state; /* 0 untried, 1 loaded, 2 borrows the kernel's, -1 failed */
	struct pa_symtab *tab;
	struct dso_syms *borrow;
	const char *why;  /* for -v: why it has no symbols (failed, or a table with none) */
	const char *from; /* for -v: where its symbols came from, when worth saying */
	const char *where; /* the finder's origin of elf_path (pa_finder_find_elf) */
	bool live;        /* the running kernel's symbols (perf then also reads /proc/kcore) */
	char *elf_path;   /* the file the symbols came from (ELF DSOs) */
	struct pa_srcinfo *src; /* source lines, opened on first use */
	/* --vmlinux: tab holds the vmlinux's .text symbols, keyed by file
	 * offset; a kernel address a in [vml_start, vml_end) (perf's kernel
	 * map once it has loaded the vmlinux) is at offset
	 * a - vml_start + vml_pgoff. */
	bool vmlinux;
	uint64_t vml_start, vml_end, vml_pgoff;
	/* the kernel's locs now hold perf's map-relative address there (the
	 * file offset), as perf's kernel map does once remapped */
	bool vml_remapped;
	/* A kernel module (resolve.c): perf's module map [kmod_start,
	 * kmod_end) at kmod_pgoff (the .ko's .text offset once symbols came
	 * from a .ko, kmod_ko); with kmod_remapped its locs hold perf's
	 * map-relative address a - kmod_start + kmod_pgoff, which tab is
	 * keyed by. kmod_late: kallsyms' share perf adds after the module
	 * was loaded (the kernel's first sample came later), owned by tab;
	 * it serves the locations first seen since then, whose addresses are
	 * kmod_late_addrs (sorted, in the resolver's arena). */
	bool kmod, kmod_ko, kmod_remapped;
	uint64_t kmod_start, kmod_end, kmod_pgoff;
	struct pa_symtab *kmod_late;
	uint64_t *kmod_late_addrs;
	size_t nr_kmod_late_addrs;
};

/* A user DSO's symbols (and source lines) loaded beside the stream, taken
 * by pa_resolver_dso_syms when the DSO is first looked up unchanged. */
struct upreload {
	const struct pa_dso *d;
	struct pa_dso snap; /* a copy: the stream may touch the DSO meanwhile */
	struct dso_syms ds;
	bool loaded; /* by the thread, before the stream ended */
	bool taken;
};

/* The kernel's symbols, then those of the user DSOs the recording's
 * build-id table names (the DSOs perf record saw samples in), loaded beside
 * the stream (resolver.c). */
struct kpreload {
	pthread_t th;
	struct pa_resolver *r;
	struct pa_dso snap; /* a copy: the stream may touch the DSO meanwhile */
	const struct pa_dso *d; /* the kernel, or NULL */
	struct dso_syms ds;
	struct upreload *u;
	size_t nr_u;
	bool src; /* the user DSOs' source lines too */
	/* set when the stream ends: the DSOs not begun by then are left to
	 * be loaded when looked up (never wait for what may not be needed:
	 * a DSO filtered out, a debug file debuginfod would send) */
	atomic_bool stop;
	bool started;
};

struct pa_resolver {
	struct pa_session *session;
	struct pa_resolver_opts opts;
	struct pa_finder *finder;
	struct dso_syms *dsyms; /* by DSO index, made by pa_resolver_symbolize */
	unsigned nr_dsyms;

	struct pa_loc *locs;
	size_t nr_locs, cap_locs;
	uint32_t *loc_table; /* open addressing: loc index + 1 */
	size_t loc_table_cap;

	uint32_t *inl; /* inline frames' location ids (pa_resolver_inlines) */
	size_t nr_inl, cap_inl;

	struct kpreload kp;
	char *elf_index_dir; /* pa's index of ELF tables (symbols/elfcache.c), or NULL */
	struct pa_arena arena;
	_Atomic uint64_t mem; /* bytes of locs and their table (either thread) */
};

/* resolve.c: a DSO's symbols (loaded on first use), the kernel's into ds
 * (what pa_resolver_dso_syms does for it: reads only d's build-id, the
 * options and the finder, so it runs beside the stream on a copy of d),
 * the symbol at a location's address, perf's srcline of a location. */
struct dso_syms *pa_resolver_dso_syms(struct pa_resolver *r, const struct pa_dso *d);
void pa_resolver_load_kernel(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds);
/* A user DSO's into ds the same way (and with src its source lines, read
 * whole), for the preload: reads d, the options and the finder only. */
void pa_resolver_load_user(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds,
                           bool src);
/* resolver.c: the preloaded symbols of d into ds when there are any for d
 * as it is now; false when not. */
bool pa_resolver_take_preloaded(struct pa_resolver *r, const struct pa_dso *d, struct dso_syms *ds);
const struct pa_sym *pa_resolver_lookup(struct pa_resolver *r, const struct pa_dso *d,
                                        uint64_t addr);
/* inline.c: the inline frames of every unwound location */
int pa_resolver_add_inlines(struct pa_resolver *r);
/* The source lines of an ELF DSO's symbols file (opened on first use), and
 * where a location's address is in it; NULL where perf asks no addr2line. */
struct pa_srcinfo *pa_resolver_srcinfo(struct pa_resolver *r, const struct pa_loc *l,
                                       uint64_t *addr);

/* unwind.c */
/* User call chains from DWARF (perf record --call-graph dwarf): a sample's
 * user registers and stack copy unwound by libdwfl's CFI rules, as perf's
 * unwind__get_entries does. An instance is used by one thread at a time;
 * two may unwind at once while the session stands still (they only read
 * it, through pa_session_lookup_map). */
struct pa_unwind;
/* NULL with *why set when this recording's stacks cannot be unwound (its
 * arch); NULL with *why NULL when out of memory. Free with
 * pa_unwind_free(). */
struct pa_unwind *pa_unwind_new(struct pa_resolver *r, const char **why);
void pa_unwind_free(struct pa_unwind *u);
/* Up to max entries of the sample's user call chain into ips, leaf first:
 * the sampled user ip, then each caller's return address minus one.
 * Returns how many (0 without user registers and stack). */
size_t pa_unwind_sample(struct pa_unwind *u, struct pa_thread *t, const struct pa_sample *sm,
                        uint64_t *ips, size_t max);
/* How many samples u unwound with libdwfl (not by the fast path alone). */
uint64_t pa_unwind_nr_slow(const struct pa_unwind *u);

#endif
