/* unwind.c - user call chains from DWARF (perf record --call-graph dwarf).
 *
 * Such a sample carries no user part in its kernel call chain, but the
 * user registers and a copy of the top of the user stack. perf 6.1 unwinds
 * them after the kernel part (thread__resolve_callchain ->
 * unwind__get_entries), with libdw (unwind-libdw.c) or, as Debian's perf
 * 6.1 is built, libunwind (unwind-libunwind-local.c). pa unwinds with
 * libdwfl and gives the entries perf's libunwind build prints where the
 * two differ (the reference pa is tested against):
 *  - the first entry is the sampled user ip (the IP register), kept even
 *    when nothing more can be unwound;
 *  - a caller's entry is its return address minus one; the frame a signal
 *    interrupted is exact, the signal trampoline itself is not (libdw's
 *    perf keeps the trampoline exact too);
 *  - memory is read from the stack copy when the 8 bytes lie in it (from
 *    SP; libunwind's perf leaves out the copy's last 8 bytes), else from
 *    the file of the map there; a map with no file to read (the stack
 *    past the copy, anonymous memory) reads as 0, an address in no map
 *    fails;
 *  - a frame in no map, or in a map without an ELF file (anonymous, JIT,
 *    a file not found), is kept and ends the chain; the end of the CFI
 *    (_start, a thread's start) ends it; a return address that comes out
 *    0 adds one more entry, 0 less 1 (libunwind; libdw's perf stops);
 *  - at most max_stack entries.
 * Where libunwind's perf is wrong pa is not: it takes a DSO's load address
 * from the lowest map of that DSO the process ever had, so after fork and
 * exec, or dlclose and dlopen, a stale map can break its unwinding through
 * that DSO; pa, like libdw's perf, uses the map at the address. Without CFI
 * at an address both guess from the frame pointer, not the same way.
 * Registers follow the recording's arch: x86_64, and i386 processes (which
 * libunwind's perf does not unwind: libdw's rules). A register missing
 * from the sample's mask is left undefined, so a step that needs it ends
 * the chain.
 *
 * How: one libdwfl Dwfl per process (pid and register ABI) kept between
 * samples, with a module per ELF file reported when a frame first lands in
 * it, at the load bias of the map there, so CFI is parsed once per process
 * and file. Each ELF file is looked up once per DSO through pa's finder
 * (build-id checked, the rules symbols use), opened and mapped once, and
 * its libelf handle is shared by the modules of every process (libelf
 * counts the references). A module that no longer matches the process's
 * map at a frame (exec, dlclose then dlopen) makes that process start over
 * with a new Dwfl; NSPACES process Dwfls are kept, least recently used out.
 * Most x86_64 frames are stepped without libdwfl, by the rules it would
 * apply, read once per address from its CFI ("the fast path" below).
 *
 * One thread: the session's delivering one (stream.c's stage 1).
 */
#include "resolver/internal.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define NSPACES 32

/* PERF_SAMPLE_REGS_ABI_* */
enum { ABI_32 = 1, ABI_64 = 2 };

/* perf's x86 register ids (the bit numbers of sample_regs_user). */
enum {
	R_AX,
	R_BX,
	R_CX,
	R_DX,
	R_SI,
	R_DI,
	R_BP,
	R_SP,
	R_IP,
	R_FLAGS,
	R_CS,
	R_SS,
	R_DS,
	R_ES,
	R_FS,
	R_GS,
	R_R8,
	R_R9,
	R_R10,
	R_R11,
	R_R12,
	R_R13,
	R_R14,
	R_R15,
};

/* The perf id of each DWARF register number the unwinder starts from:
 * x86_64 rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; i386 eax ecx edx ebx
 * esp ebp esi edi eip. */
static const uint8_t dwarf_x86_64[17] = {R_AX, R_DX,  R_CX,  R_BX,  R_SI,  R_DI,  R_BP,  R_SP, R_R8,
                                         R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15, R_IP};
static const uint8_t dwarf_i386[9] = {R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI, R_IP};

struct useg {
	uint64_t vaddr, off;
};

/* One DSO's ELF file: looked up and opened once. Modules point to it:
 * never moved. */
struct ufile {
	struct pa_unwind *u;
	const struct pa_dso *dso;
	int state; /* 1 usable, -1 not */
	int fd;
	Elf *elf;
	const uint8_t *raw; /* the file's bytes (libelf's mapping) */
	size_t raw_size;
	char *path;
	uint16_t machine;
	uint64_t lo, hi; /* span of the PT_LOADs (lo aligned as libdwfl does) */
	struct useg *segs;
	unsigned nsegs;
	int dbg_state; /* separate debug file: 0 untried, 1 found, -1 none */
	char *dbg_path;
};

/* A module reported into a process's Dwfl. */
struct umod {
	uint64_t lo, hi, bias;
	const struct pa_dso *dso;
	const struct ufile *f;
};

/* The CFI rules of one address of a file, as the fast path steps them. */
enum { RULE_UNDEF = 1, RULE_SAME, RULE_AT };
struct fast_rule {
	const struct ufile *f;
	uint64_t addr;   /* file-relative */
	int8_t ok;       /* 1: the common rules below; -1: libdwfl's to step */
	uint8_t cfa_reg; /* DWARF 7 rsp or 6 rbp */
	uint8_t ra, bp;  /* RULE_*: rip (never SAME) and rbp */
	int64_t cfa_off, ra_off, bp_off, sp_off;
};
#define NRULES 4096

/* One process's address space as libdwfl sees it. */
struct uspace {
	Dwfl *dwfl;
	int32_t pid;
	uint8_t abi;
	uint64_t used; /* LRU clock */
	struct umod *mods;
	size_t nmods, cap_mods;
	struct pa_unwind *u;
};

struct pa_unwind {
	struct pa_session *session;
	struct pa_finder *finder;
	struct ufile **files; /* by DSO idx, NULL: untried */
	size_t nfiles;
	struct uspace spaces[NSPACES];
	uint64_t clock;
	/* ELF headers naming i386 and x86_64, for libdwfl's backends */
	union {
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} ehdr[2];
	Elf *arch[2]; /* [0] i386, [1] x86_64 */

	/* the sample being unwound */
	struct pa_thread *t;
	const struct pa_sample *sm;
	struct uspace *sp;
	bool abi32;
	uint64_t ip, stack_start;
	uint64_t *ips;
	size_t n, max;
	bool first, conflict;
	bool prev_sigreturn; /* the previous frame is the signal trampoline */
	bool last_ok;        /* the last frame's file has CFI to look at */
	uint64_t last_pc;    /* where libdwfl looked its CFI up */
	/* the last frame's stack and frame pointers (x86_64), when known */
	uint64_t last_sp, last_bp;
	bool have_sp, have_bp;
	/* per (file, address): is the return address undefined there? */
	struct ra_slot {
		const struct ufile *f;
		uint64_t addr;
		int8_t undefined;
	} ra_cache[256];
	struct fast_rule *rules; /* NRULES, by (file, address); made when first used */
	bool no_fast;            /* every frame stepped by libdwfl */
	uint64_t nr_slow;        /* samples libdwfl unwound */
};

/* ---- registers and memory ------------------------------------------------ */

/* perf_reg_value(): the registers in the sample are those of the mask, in
 * the order of their ids. */
static bool reg_value(const struct pa_sample *sm, unsigned id, uint64_t *val)
{
	uint64_t mask = sm->user_regs.mask;
	if (id >= 64 || !((mask >> id) & 1))
		return false;
	unsigned idx = (unsigned)__builtin_popcountll(mask & ((1ull << id) - 1));
	if (idx >= sm->user_regs.nr)
		return false;
	*val = sm->user_regs.regs[idx];
	return true;
}

/* The little-endian word of size bytes at b. */
static uint64_t le_word(const uint8_t *b, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/* Byte i of the user's stack (formats says whether the copy's 8-byte
 * units are reversed; perf reading such a file swaps them back). */
static uint8_t stack_byte(const struct pa_unwind *u, uint64_t i)
{
	if (u->sm->user_stack.units_reversed)
		i = (i & ~7ull) | (7 - (i & 7));
	return i < u->sm->user_stack.size ? u->sm->user_stack.data[i] : 0;
}

static struct ufile *file_for(struct pa_unwind *u, const struct pa_dso *d);

/* A word of the target (x86: little-endian) at addr, the way perf's
 * libunwind reader (access_mem) gets it: from the stack copy when addr >=
 * SP and addr + 8 < the copy's end (its bound; libdw's is <=); else from
 * the file of the map there, and when no file can be read there (a
 * [stack] or anonymous map, past the end of the stack copy), 0 - it
 * returns 1, which libunwind takes for success; only an address in no map
 * fails. */
static bool read_mem(struct pa_unwind *u, uint64_t addr, unsigned size, uint64_t *out)
{
	uint64_t len = pa_sample_stack_len(u->sm);
	if (addr + 8 < addr)
		return false;
	uint8_t b[8] = {0};
	bool in = addr >= u->stack_start && (u->abi32 ? addr - u->stack_start + size <= len
	                                              : addr - u->stack_start + 8 < len);
	if (in) {
		uint64_t off = addr - u->stack_start;
		if (!u->sm->user_stack.units_reversed)
			memcpy(b, u->sm->user_stack.data + off, size);
		else
			for (unsigned i = 0; i < size; i++)
				b[i] = stack_byte(u, off + i);
	} else {
		struct pa_addr_loc al;
		if (!pa_session_lookup_map(u->session, u->t, PA_MISC_USER, addr, &al))
			return false;
		struct ufile *f = al.dso && !al.map->identity ? file_for(u, al.dso) : NULL;
		if (f && al.addr < f->raw_size && f->raw_size - al.addr >= size)
			memcpy(b, f->raw + al.addr, size);
	}
	*out = le_word(b, size);
	return true;
}

/* ---- ELF files ----------------------------------------------------------- */

static void file_free(struct ufile *f)
{
	if (!f)
		return;
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f->segs);
	free(f->dbg_path);
	free(f);
}

/* 1: f is usable, -1: no ELF file for it, -ENOMEM. */
static int file_open(struct pa_unwind *u, const struct pa_dso *d, struct ufile *f)
{
	if (d->kind != PA_DSO_USER && d->kind != PA_DSO_VDSO)
		return -1;
	struct pa_buildid id = {.size = d->build_id_size};
	memcpy(id.data, d->build_id, d->build_id_size);
	if (pa_finder_find_elf(u->finder, d->long_name, &id, &f->path, NULL) != PA_FIND_OK)
		return -1;
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -1;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t phnum;
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386) || elf_getphdrnum(f->elf, &phnum))
		return -1;
	f->machine = eh.e_machine;
	f->raw = (const uint8_t *)elf_rawfile(f->elf, &f->raw_size);
	if (!f->raw)
		return -1;
	if (!(f->segs = calloc(phnum ? phnum : 1, sizeof(*f->segs))))
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			return -1;
		if (ph.p_type != PT_LOAD)
			continue;
		if (!f->nsegs) /* where libdwfl puts a module's low address */
			f->lo = ph.p_align ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > f->hi)
			f->hi = ph.p_vaddr + ph.p_memsz;
		f->segs[f->nsegs++] = (struct useg){ph.p_vaddr, ph.p_offset};
	}
	return f->nsegs && f->hi > f->lo ? 1 : -1;
}

/* The usable ELF file of a DSO, or NULL (a failure is remembered). */
static struct ufile *file_for(struct pa_unwind *u, const struct pa_dso *d)
{
	if (d->idx >= u->nfiles) {
		size_t n = u->nfiles ? u->nfiles : 64;
		while (n <= d->idx)
			n *= 2;
		struct ufile **p = realloc(u->files, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + u->nfiles, 0, (n - u->nfiles) * sizeof(*p));
		u->files = p;
		u->nfiles = n;
	}
	struct ufile *f = u->files[d->idx];
	if (!f) {
		if (!(f = calloc(1, sizeof(*f))))
			return NULL;
		*f = (struct ufile){.u = u, .dso = d, .fd = -1};
		int ret = file_open(u, d, f);
		if (ret == -ENOMEM) {
			file_free(f); /* untried: a later sample tries again */
			return NULL;
		}
		if (ret < 0) { /* keep only the verdict */
			if (f->elf)
				elf_end(f->elf);
			if (f->fd >= 0)
				close(f->fd);
			f->elf = NULL;
			f->fd = -1;
		}
		f->state = ret;
		u->files[d->idx] = f;
	}
	return f->state > 0 ? f : NULL;
}

/* The load bias of a file mapped at m: the PT_LOAD the map's offset falls
 * in gives the vaddr at the map's start. perf's libdw takes start - pgoff,
 * the same when vaddr and offset agree, as they do for the text of any
 * file not prelinked. */
static uint64_t map_bias(const struct ufile *f, const struct pa_map *m)
{
	for (unsigned i = 0; i < f->nsegs; i++) {
		const struct useg *s = &f->segs[i];
		if (s->off >= m->pgoff && s->off - m->pgoff < m->end - m->start)
			return m->start - (s->vaddr - (s->off - m->pgoff));
	}
	return m->start - m->pgoff - f->lo;
}

/* ---- libdwfl callbacks ----------------------------------------------------- */

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                    char **file_name, Elf **elfp)
{
	struct ufile *f = *userdata;
	if (!f || !f->elf)
		return -1;
	/* the same handle, one more reference (libdwfl ends it with the module) */
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->elf);
	if (*elfp && !(*file_name = strdup(f->path))) {
		elf_end(*elfp);
		*elfp = NULL;
	}
	return -1;
}

/* A separate debug file, for .debug_frame when .eh_frame does not cover an
 * address: by build-id only, through the finder. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                          const char *file_name, const char *debuglink, GElf_Word crc,
                          char **debuginfo_file_name)
{
	struct ufile *f = *userdata;
	if (!f)
		return -1;
	if (!f->dbg_state) {
		struct pa_buildid id = {.size = f->dso->build_id_size};
		memcpy(id.data, f->dso->build_id, f->dso->build_id_size);
		f->dbg_state =
		    id.size && pa_finder_find_debug(f->u->finder, &id, &f->dbg_path) == PA_FIND_OK
		        ? 1
		        : -1;
	}
	if (f->dbg_state < 0)
		return -1;
	int fd = open(f->dbg_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !(*debuginfo_file_name = strdup(f->dbg_path))) {
		close(fd);
		return -1;
	}
	return fd;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pa_unwind *u = ((struct uspace *)arg)->u;
	uint64_t v;
	if (!read_mem(u, addr, u->abi32 ? 4 : 8, &v))
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *th, void *arg)
{
	struct pa_unwind *u = ((struct uspace *)arg)->u;
	const uint8_t *map = u->abi32 ? dwarf_i386 : dwarf_x86_64;
	unsigned n = u->abi32 ? PA_ARRAY_SIZE(dwarf_i386) : PA_ARRAY_SIZE(dwarf_x86_64);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v;
		if (!reg_value(u->sm, map[i], &v))
			continue;
		Dwarf_Word w = u->abi32 ? (uint32_t)v : v;
		if (!dwfl_thread_state_registers(th, (int)i, 1, &w))
			return false;
	}
	dwfl_thread_state_register_pc(th, u->ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = find_elf,
    .find_debuginfo = find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* ---- process address spaces ------------------------------------------------ */

static void space_reset(struct uspace *sp)
{
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	sp->dwfl = NULL;
	sp->nmods = 0;
}

static bool space_start(struct pa_unwind *u, struct uspace *sp)
{
	space_reset(sp);
	sp->u = u;
	if (!(sp->dwfl = dwfl_begin(&dwfl_callbacks)))
		return false;
	if (!dwfl_attach_state(sp->dwfl, u->arch[sp->abi == ABI_64], 1, &thread_callbacks, sp)) {
		space_reset(sp);
		return false;
	}
	return true;
}

static struct uspace *space_for(struct pa_unwind *u, int32_t pid, uint8_t abi)
{
	struct uspace *victim = &u->spaces[0];
	for (size_t i = 0; i < NSPACES; i++) {
		struct uspace *sp = &u->spaces[i];
		if (sp->dwfl && sp->pid == pid && sp->abi == abi) {
			sp->used = ++u->clock;
			return sp;
		}
		if (!sp->dwfl ? victim->dwfl != NULL || sp->used < victim->used
		              : victim->dwfl && sp->used < victim->used)
			victim = sp;
	}
	victim->pid = pid;
	victim->abi = abi;
	victim->used = ++u->clock;
	return space_start(u, victim) ? victim : NULL;
}

/* Makes sure the process's Dwfl has a module for the ELF file mapped at pc
 * (through *modp and *mapp, when not NULL: the module and the map at pc).
 * false when no map with an ELF file covers pc (the chain ends there), or
 * when a module there is another file's (u->conflict: start over). */
static bool ensure_module(struct pa_unwind *u, uint64_t pc, const struct umod **modp,
                          const struct pa_map **mapp)
{
	struct pa_addr_loc al;
	if (!pa_session_lookup_map(u->session, u->t, PA_MISC_USER, pc, &al) || !al.dso ||
	    al.map->identity)
		return false;
	if (mapp)
		*mapp = al.map;
	struct ufile *f = file_for(u, al.dso);
	if (!f || f->machine != (u->abi32 ? EM_386 : EM_X86_64))
		return false;
	uint64_t bias = map_bias(f, al.map);
	uint64_t lo = bias + f->lo, hi = bias + f->hi;
	struct uspace *sp = u->sp;
	for (size_t i = 0; i < sp->nmods; i++) {
		const struct umod *m = &sp->mods[i];
		if (m->lo < hi && lo < m->hi) {
			if (m->dso == al.dso && m->bias == bias) {
				if (modp)
					*modp = m;
				return true;
			}
			u->conflict = true;
			return false;
		}
	}
	if (PA_GROW(sp->mods, sp->cap_mods, sp->nmods + 1, 16))
		return false;
	Dwfl_Module *mod = dwfl_report_module(sp->dwfl, al.dso->short_name, lo, hi);
	if (!mod)
		return false;
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	if (modp)
		*modp = &sp->mods[sp->nmods];
	sp->mods[sp->nmods++] = (struct umod){lo, hi, bias, al.dso, f};
	return true;
}

/* Does the x86_64 signal trampoline (mov $15,%rax; syscall: glibc's and
 * musl's __restore_rt) start at pc? */
static bool sigreturn_words(uint64_t w0, uint64_t w1)
{
	return w0 == 0x0f0000000fc0c748ull && (w1 & 0xff) == 0x05;
}

static bool sigreturn_at(struct pa_unwind *u, uint64_t pc)
{
	uint64_t w0, w1;
	return read_mem(u, pc, 8, &w0) && read_mem(u, pc + 8, 8, &w1) && sigreturn_words(w0, w1);
}

/* Is pc in the signal trampoline: at its start (a return address, or a
 * sampled ip), or at its syscall (a sampled ip between the two
 * instructions)? The frame after it is the one the signal interrupted:
 * perf's libunwind knows the trampoline's whole range (its CFI says it is
 * a signal frame). */
static bool is_sigreturn(struct pa_unwind *u, uint64_t pc)
{
	return sigreturn_at(u, pc) || (pc >= 7 && sigreturn_at(u, pc - 7));
}

/* The word read_mem gives at offset off of f's file. */
static uint64_t file_word(const struct ufile *f, uint64_t off)
{
	return off < f->raw_size && f->raw_size - off >= 8 ? le_word(f->raw + off, 8) : 0;
}

/* is_sigreturn(u, pc) for a pc in map of file f: read from the file
 * without looking the maps up when every byte it looks at lies in the map
 * and none in the stack copy (where read_mem would read them). */
static bool sigreturn_in(struct pa_unwind *u, const struct pa_map *map, const struct ufile *f,
                         uint64_t pc)
{
	uint64_t lo = pc - 7, hi = pc + 16, len = pa_sample_stack_len(u->sm);
	if (pc < 7 || hi < pc || lo < map->start || hi > map->end ||
	    (u->stack_start != UINT64_MAX &&
	     (u->stack_start > UINT64_MAX - len - 8 ||
	      (lo < u->stack_start + len + 8 && u->stack_start < hi))))
		return is_sigreturn(u, pc);
	uint64_t off = pc - map->start + map->pgoff;
	for (int k = 0; k < 2; k++, off -= 7)
		if (sigreturn_words(file_word(f, off), file_word(f, off + 8)))
			return true;
	return false;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pa_unwind *u = arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	bool initial = u->first;
	u->first = false;
	if (!initial && !pc)
		return DWARF_CB_ABORT;
	/* Whether the entry is the address itself: the sampled ip, and the
	 * frame a signal interrupted (perf's libunwind knows the signal frame
	 * once it has stepped through the trampoline). libdwfl also counts
	 * the trampoline as an activation: kept for i386 only, which perf's
	 * libunwind does not unwind. */
	bool exact = initial || u->prev_sigreturn;
	/* the module before libdwfl looks at its CFI */
	bool ok = ensure_module(u, exact ? pc : pc - 1, NULL, NULL);
	if (u->conflict)
		return DWARF_CB_ABORT;
	if (!exact && ok && u->abi32 && !dwfl_frame_pc(state, &pc, &exact))
		return DWARF_CB_ABORT;
	u->prev_sigreturn = !u->abi32 && ok && is_sigreturn(u, pc);
	u->last_ok = ok;
	u->last_pc = exact ? pc : pc - 1;
	if (!u->abi32) { /* (DWARF registers 7 and 6: rsp, rbp) */
		u->have_sp = !dwfl_frame_reg(state, 7, &u->last_sp);
		u->have_bp = !dwfl_frame_reg(state, 6, &u->last_bp);
	}
	u->ips[u->n++] = exact ? pc : pc - 1;
	return ok && u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Does the CFI at pc (the last frame's) leave the return address
 * undefined (the end of the chain, _start, a thread's start)? A return
 * address that is defined yet came out 0 also ends libdwfl's unwinding,
 * while perf's libunwind then keeps one more entry: 0 less 1 (not where
 * the address could not be read: ra_readable). */
static bool ra_defined(struct pa_unwind *u, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->sp->dwfl, pc);
	void **userdata;
	Dwarf_Addr bias;
	if (!mod || !dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		return false;
	const struct ufile *f = *userdata;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi)
		return false;
	uint64_t addr = pc - bias;
	struct ra_slot *rs = &u->ra_cache[pa_hash64(addr ^ (uint64_t)(uintptr_t)f) & 255];
	if (rs->f == f && rs->addr == addr && f)
		return !rs->undefined;
	Dwarf_Frame *fr;
	if (dwarf_cfi_addrframe(cfi, addr, &fr))
		return false; /* no CFI there: libdwfl guessed from the frame pointer */
	Dwarf_Op ops_mem[3], *ops;
	size_t nops;
	int ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	bool undefined = ra < 0 || (!dwarf_frame_register(fr, ra, ops_mem, &ops, &nops) && !nops &&
	                            ops == ops_mem);
	free(fr);
	*rs = (struct ra_slot){f, addr, undefined};
	return !undefined;
}

/* Can the last frame's return address be read from the stack copy? Where
 * it cannot (the copy stops short of it), libdwfl ends as when it reads
 * 0, but perf's libunwind keeps no entry then. Known only for a CFA of a
 * register (rsp, rbp: DWARF reg 7, 6) plus off, with the return address
 * just below it (x86_64); else taken as readable. */
static bool cfa_ra_readable(struct pa_unwind *u, uint64_t reg, uint64_t off)
{
	bool sp = reg == 7 && u->have_sp, bp = reg == 6 && u->have_bp;
	uint64_t v;
	return !(sp || bp) || read_mem(u, (sp ? u->last_sp : u->last_bp) + off - 8, 8, &v);
}

/* The same, with the CFA rule of the CFI at pc. */
static bool ra_readable(struct pa_unwind *u, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->sp->dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	Dwarf_Frame *fr;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr))
		return true;
	Dwarf_Op *ops;
	size_t nops;
	bool readable = true;
	if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1) {
		/* (libdw gives the CFA rule as DW_OP_bregx reg, offset) */
		bool x = ops[0].atom == DW_OP_bregx;
		uint64_t reg = x ? ops[0].number : (uint64_t)(ops[0].atom - DW_OP_breg0);
		uint64_t off = x ? ops[0].number2 : ops[0].number;
		if (x || (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31))
			readable = cfa_ra_readable(u, reg, off);
	}
	free(fr);
	return readable;
}

/* ---- the fast path ------------------------------------------------------------ */

/* libdwfl steps a frame by evaluating the rule of each of the 17 x86_64
 * registers, in frames and expression stacks it allocates, after looking
 * the address's CFI up (a search and the CIE's and FDE's programs run,
 * into another allocation). A call chain needs only the CFA and the rules
 * of rip, rsp and rbp, and a profile steps the same few return addresses
 * again and again. So the x86_64 frames whose rules are the common ones
 * (the CFA rsp or rbp plus an offset; rip saved at an offset from it, or
 * undefined; rsp the CFA plus an offset; rbp the same, undefined or saved)
 * are stepped here, from those rules taken once per (file, address) from
 * libdwfl's CFI for the module (its ABI defaults included) and cached. A
 * sample with any other frame (no CFI there, other rules, a signal frame
 * or its trampoline) is unwound by libdwfl from the start, so a chain is
 * the same either way, in a tenth of the time (bench/README.md). */

/* A rule at an offset from the CFA as libdw gives it: DW_OP_call_frame_cfa,
 * DW_OP_plus_uconst N when N is not 0, then DW_OP_stack_value when the rule
 * is the value (val_offset) rather than where it is saved (offset). */
static bool cfa_relative(const Dwarf_Op *ops, size_t nops, bool value, int64_t *off)
{
	size_t i = 1;
	if (!nops || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = 0;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[i++].number;
	if (value && (i >= nops || ops[i++].atom != DW_OP_stack_value))
		return false;
	return i == nops;
}

/* RULE_* of a register (0: another rule). */
static int reg_rule(Dwarf_Frame *fr, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	if (dwarf_frame_register(fr, reg, mem, &ops, &nops))
		return 0;
	if (!nops)
		return ops == mem ? RULE_UNDEF : !ops ? RULE_SAME : 0;
	return cfa_relative(ops, nops, false, off) ? RULE_AT : 0;
}

static void rule_fill(struct fast_rule *r, Dwarf_Frame *fr)
{
	Dwarf_Op *ops, mem[3], *sops;
	size_t nops, snops;
	bool signal;
	if (dwarf_frame_info(fr, NULL, NULL, &signal) != 16 || signal ||
	    dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != 6 && ops[0].number != 7))
		return;
	r->cfa_reg = (uint8_t)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	int ra = reg_rule(fr, 16, &r->ra_off), bp = reg_rule(fr, 6, &r->bp_off);
	if (dwarf_frame_register(fr, 7, mem, &sops, &snops) ||
	    !cfa_relative(sops, snops, true, &r->sp_off) || !bp ||
	    (ra != RULE_UNDEF && ra != RULE_AT))
		return;
	r->ra = (uint8_t)ra;
	r->bp = (uint8_t)bp;
	r->ok = 1;
}

/* The rules at pc (m's file, at its bias), or NULL without memory. */
static const struct fast_rule *rule_at(struct pa_unwind *u, const struct umod *m, uint64_t pc)
{
	if (!u->rules && !(u->rules = calloc(NRULES, sizeof(*u->rules))))
		return NULL;
	uint64_t addr = pc - m->bias;
	struct fast_rule *r = &u->rules[pa_hash64(addr ^ (uint64_t)(uintptr_t)m->f) & (NRULES - 1)];
	if (r->f == m->f && r->addr == addr)
		return r;
	*r = (struct fast_rule){.f = m->f, .addr = addr, .ok = -1};
	Dwfl_Module *mod = dwfl_addrmodule(u->sp->dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	Dwarf_Frame *fr;
	/* (the file-relative address is the key: libdwfl's bias must be ours) */
	if (cfi && bias == m->bias && !dwarf_cfi_addrframe(cfi, addr, &fr)) {
		rule_fill(r, fr);
		free(fr);
	}
	return r;
}

/* Unwinds the sample as frame_cb and libdwfl would, for the frames the
 * fast path steps: true with *ret as dwfl_getthread_frames would return
 * it (and, when 0, *last the rules of the last frame), false when libdwfl
 * is to unwind the sample (u->conflict: start over). */
static bool unwind_fast(struct pa_unwind *u, int *ret, const struct fast_rule **last)
{
	uint64_t pc = u->ip, sp = 0, bp = 0;
	bool have_sp = reg_value(u->sm, R_SP, &sp), have_bp = reg_value(u->sm, R_BP, &bp);
	for (bool initial = true;; initial = false) {
		/* frame_cb's part */
		uint64_t at = initial ? pc : pc - 1;
		const struct umod *m = NULL;
		const struct pa_map *map = NULL;
		bool ok = ensure_module(u, at, &m, &map);
		if (u->conflict || (ok && sigreturn_in(u, map, m->f, pc)))
			return false;
		u->last_ok = ok;
		u->last_pc = at;
		u->have_sp = have_sp;
		u->last_sp = sp;
		u->have_bp = have_bp;
		u->last_bp = bp;
		u->ips[u->n++] = at;
		if (!ok || u->n >= u->max) {
			*ret = DWARF_CB_ABORT;
			return true;
		}
		/* libdwfl's step, by the module's CFI at at */
		if (at < m->lo || at >= m->hi)
			return false;
		const struct fast_rule *r = rule_at(u, m, at);
		if (!r || r->ok < 0)
			return false;
		uint64_t cfa, ra;
		*ret = 0; /* the return address undefined: the end */
		*last = r;
		if (!(r->cfa_reg == 7 ? have_sp : have_bp) || r->ra == RULE_UNDEF)
			return true;
		cfa = (r->cfa_reg == 7 ? sp : bp) + (uint64_t)r->cfa_off;
		if (!read_mem(u, cfa + (uint64_t)r->ra_off, 8, &ra) || !ra)
			return true;
		if (r->bp == RULE_UNDEF)
			have_bp = false;
		else if (r->bp == RULE_AT)
			have_bp = read_mem(u, cfa + (uint64_t)r->bp_off, 8, &bp);
		sp = cfa + (uint64_t)r->sp_off;
		have_sp = true;
		pc = ra;
	}
}

/* ---- the unwinder ------------------------------------------------------------ */

/* (perf's perf_env__arch(): the recording's uname -m, or this machine's
 * when the recording does not say) */
bool pa_resolver_unwinds_arch(const char *arch)
{
	struct utsname un;
	if (!arch || !*arch)
		arch = uname(&un) ? "" : un.machine;
	return !strcmp(arch, "x86_64") || !strcmp(arch, "x86") || !strcmp(arch, "amd64") ||
	       (arch[0] == 'i' && arch[1] && arch[2] == '8' && arch[3] == '6' && !arch[4]);
}

struct pa_unwind *pa_unwind_new(struct pa_resolver *r, const char **why)
{
	struct pa_file *file = pa_session_file(r->session);
	const char *arch = pa_file_header(file)->arch;
	*why = NULL;
	if (!pa_resolver_unwinds_arch(arch)) {
		*why = "pa unwinds the user stacks of x86 recordings only";
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*why = "libelf is unusable";
		return NULL;
	}
	struct pa_unwind *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->session = r->session;
	u->no_fast = r->opts.slow_unwind;
	struct pa_err err = {0};
	/* read-only: what debuginfod sends stays in its client's cache */
	struct pa_finder_opts fo = {.sz = sizeof(fo),
	                            .symfs = r->opts.symfs,
	                            .buildid_dir = r->opts.buildid_dir,
	                            .no_cache_add = true};
	u->finder = pa_finder_new(&fo, &err);
	/* headers in this host's byte order, for libdwfl's i386 and x86_64
	 * backends (registers, return-address column, default CFI) */
	static const unsigned char host_data =
	    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	Elf32_Ehdr *h32 = &u->ehdr[0].e32;
	memcpy(h32->e_ident, ELFMAG, SELFMAG);
	h32->e_ident[EI_CLASS] = ELFCLASS32;
	h32->e_ident[EI_DATA] = host_data;
	h32->e_ident[EI_VERSION] = EV_CURRENT;
	h32->e_type = ET_EXEC;
	h32->e_machine = EM_386;
	h32->e_version = EV_CURRENT;
	h32->e_ehsize = sizeof(*h32);
	Elf64_Ehdr *h64 = &u->ehdr[1].e64;
	memcpy(h64->e_ident, ELFMAG, SELFMAG);
	h64->e_ident[EI_CLASS] = ELFCLASS64;
	h64->e_ident[EI_DATA] = host_data;
	h64->e_ident[EI_VERSION] = EV_CURRENT;
	h64->e_type = ET_EXEC;
	h64->e_machine = EM_X86_64;
	h64->e_version = EV_CURRENT;
	h64->e_ehsize = sizeof(*h64);
	u->arch[0] = elf_memory((char *)h32, sizeof(*h32));
	u->arch[1] = elf_memory((char *)h64, sizeof(*h64));
	if (!u->finder || !u->arch[0] || !u->arch[1]) {
		*why = u->finder ? "libelf is unusable" : NULL;
		pa_unwind_free(u);
		return NULL;
	}
	return u;
}

void pa_unwind_free(struct pa_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < NSPACES; i++) {
		space_reset(&u->spaces[i]);
		free(u->spaces[i].mods);
	}
	for (size_t i = 0; i < u->nfiles; i++)
		file_free(u->files[i]);
	free(u->files);
	free(u->rules);
	for (size_t i = 0; i < 2; i++)
		if (u->arch[i])
			elf_end(u->arch[i]);
	pa_finder_free(u->finder);
	free(u);
}

uint64_t pa_unwind_nr_slow(const struct pa_unwind *u)
{
	return u->nr_slow;
}

size_t pa_unwind_sample(struct pa_unwind *u, struct pa_thread *t, const struct pa_sample *sm,
                        uint64_t *ips, size_t max)
{
	uint8_t abi = (uint8_t)sm->user_regs.abi;
	if (!max || !sm->user_regs.regs || !pa_sample_stack_len(sm) ||
	    (abi != ABI_32 && abi != ABI_64) || !reg_value(sm, R_IP, &u->ip))
		return 0;
	u->abi32 = abi == ABI_32;
	if (u->abi32)
		u->ip = (uint32_t)u->ip;
	if (!u->ip) /* perf drops 0 entries, and nothing unwinds from there */
		return 0;
	u->t = t;
	u->sm = sm;
	uint64_t sp = 0;
	u->stack_start = reg_value(sm, R_SP, &sp) ? (u->abi32 ? (uint32_t)sp : sp) : UINT64_MAX;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		u->sp = space_for(u, pa_thread_pid(t), abi);
		if (!u->sp)
			break;
		u->n = 0;
		u->conflict = false;
		int ret = 0;
		const struct fast_rule *last = NULL;
		bool fast = !u->abi32 && !u->no_fast && unwind_fast(u, &ret, &last);
		if (!fast && !u->conflict) {
			u->n = 0;
			u->first = true;
			u->prev_sigreturn = false;
			u->nr_slow++;
			ret = dwfl_getthread_frames(u->sp->dwfl, 1, frame_cb, u);
		}
		if (!u->conflict) {
			if (!ret && !u->abi32 && u->n && u->n < max && u->last_ok &&
			    (fast ? last->ra == RULE_AT &&
			                cfa_ra_readable(u, last->cfa_reg, (uint64_t)last->cfa_off)
			          : ra_defined(u, u->last_pc) && ra_readable(u, u->last_pc)))
				ips[u->n++] = UINT64_MAX;
			break;
		}
		/* the process's maps changed under a module: a fresh Dwfl */
		space_reset(u->sp);
		u->n = 0;
	}
	u->sm = NULL;
	if (!u->n) {
		/* perf's libunwind keeps the sampled ip whatever the unwinding did */
		ips[0] = u->ip;
		u->n = 1;
	}
	return u->n;
}
