/* internal.h - shared by annotate/ sources only. */
#ifndef PA_ANNOTATE_INTERNAL_H
#define PA_ANNOTATE_INTERNAL_H

#include "annotate/annotate.h"
#include "buildid/buildid.h"

#include <gelf.h>

/* Samples of one member event at one offset of a symbol (perf's
 * sym_hist_entry). */
struct ann_addr {
	uint64_t off;
	uint32_t member;
	uint64_t hits, period;
};

/* One symbol of one event, or of one event group (recorded with perf
 * record -e '{a,b}': its members shown side by side, as perf does): perf's
 * annotation of a symbol. */
struct ann_sym {
	unsigned evsel;      /* the event, or the group's leader */
	unsigned nr_members; /* 1, or the group's events */
	struct pa_dso *dso;
	const struct pa_sym *sym;
	uint64_t start, end;           /* objdump addresses: [start, end) */
	uint64_t *nr_samples, *period; /* per member */
	struct ann_addr *addrs;        /* one per sample until merged (hist.c), then by offset */
	size_t nr_addrs, cap_addrs;
	bool hidden;       /* under --percent-limit */
	uint64_t map_base; /* the map-relative address of its start (locations') */
};

struct ann_event {
	uint64_t nr_samples, total_period;
	unsigned leader, member; /* its group's leader, its index there */
	unsigned nr_members;     /* a leader's: its group's events */
	char name[512];          /* a leader's: perf's group description */
};

struct pa_annotate {
	struct pa_trace *trace;
	struct pa_resolver *res;
	struct pa_annotate_opts opts;
	struct pa_u64map map;  /* (symbol, event) -> struct ann_sym * */
	struct ann_sym **syms; /* ranked (after pa_annotate_new) */
	size_t nr_syms, cap_syms;
	size_t nr_shown;
	struct ann_event *events;
	unsigned nr_events;
	struct pa_finder *finder;
	struct pa_u64map noted; /* DSOs already noted as without bytes */
	char *last_path;        /* -l: the srcline printed last (print.c) */
	char *kcore;            /* the kernel's code as an ELF core, once found */
	bool kcore_x86;         /* ... an x86 one: perf drops its symbols' last nops */
	struct pa_arena arena;
};

/* One line of a symbol's listing (perf's annotation_line): off -1 for a
 * line that is not an instruction of the symbol. */
struct ann_line {
	int64_t off;
	int line_nr;
	const char *text;
	bool nop; /* perf's nop: an x86 "nop", "nopl" or "nopw" instruction */
};

struct ann_listing {
	struct ann_line *v;
	size_t n, cap;
	int line_nr; /* perf's running line number */
	struct pa_arena arena;
};

void ann_listing_init(struct ann_listing *l);
void ann_listing_release(struct ann_listing *l);
/* Feed one line of objdump's output (or of its imitation) through perf
 * 6.1's parser (symbol__disassemble + symbol__parse_objdump_line): trimmed,
 * tabs expanded, "/FILE:LINE" lines set the line number, "ADDR:" lines in
 * [start, end) become instructions. 0 or -ENOMEM. */
int ann_listing_feed(struct ann_listing *l, const char *raw, uint64_t start, uint64_t end);
/* kcore.c: [start, end) from the PT_LOAD of an ELF core holding start
 * (malloc'd into *bytes): 0, -PA_ERR_NOT_FOUND (not a core, no segment) or
 * -ENOMEM */
int ann_core_read(Elf *elf, int fd, uint64_t start, uint64_t end, uint8_t **bytes, size_t *len);
/* perf's kcore extract for objdump: a temporary ELF core holding only
 * [start, end) as its one segment ("load0"); its path (malloc'd; the
 * caller unlinks it), or NULL when path is not a core holding start */
char *ann_core_extract(const char *path, uint64_t start, uint64_t end);

/* perf's delete_last_nop (a kcore's, x86): the trailing nop lines go */
void ann_listing_drop_last_nops(struct ann_listing *l);

/* hist.c: gather and rank */
int ann_hist_gather(struct pa_annotate *a, struct pa_err *err);

/* The DSO's file name as perf annotate prints it: a kernel's is the
 * --vmlinux file's (perf renames the DSO when it loads one). */
const char *ann_dso_name(const struct pa_annotate *a, const struct pa_dso *d);

/* Whether s's code is read from a kcore (a kernel symbol without -k). */
static inline bool ann_from_kcore(const struct pa_annotate *a, const struct ann_sym *s)
{
	return s->dso->kind == PA_DSO_KERNEL && !a->opts.vmlinux && a->kcore;
}

/* The binary of a DSO (via the finder), malloc'd; NULL with *why set. */
char *ann_binary_path(struct pa_annotate *a, const struct pa_dso *d, const char **why);

/* disasm.c: capstone, objdump-like lines into the listing */
int ann_disasm_capstone(struct pa_annotate *a, const struct ann_sym *s, const char *path,
                        struct ann_listing *l, struct pa_err *err);
/* objdump.c: run opts.objdump as perf does, its output into the listing */
int ann_disasm_objdump(struct pa_annotate *a, const struct ann_sym *s, const char *path,
                       struct ann_listing *l, struct pa_err *err);

/* source.c: a binary's source lines (symbols/' pa_dwlines) and the text
 * of its source files */
struct ann_src;
struct ann_src *ann_src_open(const char *path);
void ann_src_free(struct ann_src *s);
/* pa_dwlines_at(): strings live until ann_src_free. */
bool ann_src_at(struct ann_src *s, uint64_t addr, const char **file, int *line, unsigned *discr,
                const char **func);
/* Line number n (1-based) of file, without its newline, or NULL. */
const char *ann_src_text(struct ann_src *s, const char *file, int n);

/* annotate.c: the recording's events and groups into a->events */
int ann_events_init(struct pa_annotate *a);

/* print.c: per-line percentages and perf's --stdio text */
struct ann_pct {
	double pct; /* as the percent type says */
	uint64_t hits, period;
};
/* line i's numbers for member event m */
void ann_line_pct(const struct pa_annotate *a, const struct ann_sym *s, const struct ann_listing *l,
                  size_t i, unsigned m, struct ann_pct *out);
int ann_print_stdio(struct pa_annotate *a, const struct ann_sym *s, const struct ann_listing *l,
                    FILE *out);
/* The listing of a symbol: 0, -PA_ERR_NOT_FOUND with *why (no bytes),
 * or another error. */
int ann_make_listing(struct pa_annotate *a, const struct ann_sym *s, struct ann_listing *l,
                     const char **why, struct pa_err *err);

#endif
