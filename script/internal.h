/* internal.h - shared by script/ sources only. */
#ifndef PA_SCRIPT_INTERNAL_H
#define PA_SCRIPT_INTERNAL_H

#include "script/script.h"

/* perf script's output fields (its PERF_OUTPUT_* bits, same order) */
enum {
	F_COMM = 1ull << 0,
	F_TID = 1ull << 1,
	F_PID = 1ull << 2,
	F_TIME = 1ull << 3,
	F_CPU = 1ull << 4,
	F_EVNAME = 1ull << 5,
	F_TRACE = 1ull << 6,
	F_IP = 1ull << 7,
	F_SYM = 1ull << 8,
	F_DSO = 1ull << 9,
	F_ADDR = 1ull << 10,
	F_SYMOFFSET = 1ull << 11,
	F_SRCLINE = 1ull << 12,
	F_PERIOD = 1ull << 13,
	F_IREGS = 1ull << 14,
	F_BRSTACK = 1ull << 15,
	F_BRSTACKSYM = 1ull << 16,
	F_DATA_SRC = 1ull << 17,
	F_WEIGHT = 1ull << 18,
	F_BPF_OUTPUT = 1ull << 19,
	F_CALLINDENT = 1ull << 20,
	F_INSN = 1ull << 21,
	F_INSNLEN = 1ull << 22,
	F_BRSTACKINSN = 1ull << 23,
	F_BRSTACKOFF = 1ull << 24,
	F_SYNTH = 1ull << 25,
	F_PHYS_ADDR = 1ull << 26,
	F_UREGS = 1ull << 27,
	F_METRIC = 1ull << 28,
	F_MISC = 1ull << 29,
	F_SRCCODE = 1ull << 30,
	F_IPC = 1ull << 31,
	F_TOD = 1ull << 32,
	F_DATA_PAGE_SIZE = 1ull << 33,
	F_CODE_PAGE_SIZE = 1ull << 34,
	F_INS_LAT = 1ull << 35,
	F_BRSTACKINSNLEN = 1ull << 36,
};

/* perf's output types: the attr types below PERF_TYPE_MAX, synth, other */
enum { T_HW, T_SW, T_TRACE, T_HW_CACHE, T_RAW, T_BREAK, T_SYNTH, T_OTHER, T_MAX };

struct out_type {
	bool user_set, wildcard_set;
	uint64_t fields, invalid, user_set_fields, user_unset_fields;
};

struct pa_script {
	struct pa_trace *t;
	struct pa_script_opts opts;
	struct out_type out[T_MAX];
	bool print_flags;
	char **stop_bt;
	size_t nr_stop_bt;
	struct pa_arena arena;
	/* the text of each location, made once: its line in a call chain
	 * (chain) or its part after the ip otherwise, per output type */
	struct loc_text {
		uint32_t off, len; /* into text; len 0: not made yet */
	} * loc_text[2 * T_MAX];
	struct pa_buf text;
	/* print state */
	bool use_callchain;
	int name_width;
	uint64_t first_time, prev_time;
	bool have_first;
	/* brstackoff: the DSOs perf has read the symbols of (by idx) */
	uint8_t *dso_seen;
	unsigned nr_seen;
	/* tracepoint.c: libtraceevent's handle, made at the first tracepoint
	 * sample (NULL: none to be had) */
	struct tep_handle *tp;
	bool tp_tried;
};

/* out.c: a buffer for the text, numbers written without printf (see
 * there why) */
#define OB_SIZE (1u << 16)
struct obuf {
	FILE *f;
	size_t len;
	char buf[OB_SIZE];
};
void ob_init(struct obuf *b, FILE *f);
int ob_flush(struct obuf *b); /* -1 on a write error */
void ob_mem(struct obuf *b, const void *p, size_t n);
void ob_str(struct obuf *b, const char *s);
void ob_char(struct obuf *b, char c);
void ob_pad(struct obuf *b, size_t n);
void ob_rstr(struct obuf *b, const char *s, size_t width);
void ob_num(struct obuf *b, uint64_t v, unsigned base, size_t width, bool left);
void ob_zero_num(struct obuf *b, uint64_t v, size_t width);
void ob_int(struct obuf *b, int64_t v, size_t width, bool left);
void ob_printf(struct obuf *b, const char *fmt, ...) PA_PRINTF(2, 3);

/* What the start of a line shows: a sample's, or a side record's. */
struct pa_script_line {
	const char *comm;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time;
	uint16_t misc;
	uint32_t type; /* of the record (the misc letters of side records) */
};

/* record misc bits perf script reads */
#define PA_SCRIPT_MISC_MMAP_DATA          (1u << 13)
#define PA_SCRIPT_MISC_COMM_EXEC          (1u << 13)
#define PA_SCRIPT_MISC_SWITCH_OUT         (1u << 13)
#define PA_SCRIPT_MISC_SWITCH_OUT_PREEMPT (1u << 14)

/* The walk's context (script.c). */
struct pa_script_walk {
	struct pa_script *sc;
	struct pa_file *f;
	struct obuf *b;
};

/* script.c */
bool pa_script_has_callchain(const struct pa_evsel *e);
/* print.c: perf's perf_sample__fprintf_start; a sample's text */
void pa_script_line_start(struct pa_script *sc, const struct out_type *o, const struct pa_evsel *e,
                          const struct pa_script_line *ls, struct obuf *b);
int pa_script_sample(void *ctx, const struct pa_trace_sample *sm);
/* a DSO's name as perf script prints it ("[unknown]": none) */
const char *pa_script_dso_name(const struct pa_script *sc, const struct pa_dso *d);
/* branch.c: the brstack, brstacksym or brstackoff text of a sample (chain:
 * its call chain was printed). 0 or -ENOMEM. */
int pa_script_branches(struct pa_script *sc, const struct out_type *o,
                       const struct pa_trace_sample *sm, bool chain, struct obuf *b);
/* records.c: a side record's text */
int pa_script_side(void *ctx, const struct pa_trace_side *sd);

/* fields.c */
int pa_script_parse_fields(struct pa_script *sc, const char *arg, struct pa_err *err);
void pa_script_default_fields(struct pa_script *sc);
/* perf's check of every type's fields against its first event. */
int pa_script_check_fields(struct pa_script *sc, struct pa_err *err);
int pa_script_output_type(const struct pa_evsel *e);

/* tracepoint.c: sm's "trace" field (its raw payload formatted) into b;
 * nothing for other events, or without libtraceevent. */
int pa_script_tp_print(struct pa_script *sc, struct pa_file *f, const struct pa_evsel *e,
                       const struct pa_trace_sample *sm, struct obuf *b);
void pa_script_tp_free(struct pa_script *sc);

#endif
