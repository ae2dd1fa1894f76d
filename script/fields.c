/* fields.c - perf script's -F: the field table, the default fields of each
 * event type, the parse of perf's syntax and its checks against the
 * recording's events. */
#include "internal.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name;
	uint64_t bit;
} fields[] = {
    {"comm", F_COMM},
    {"tid", F_TID},
    {"pid", F_PID},
    {"time", F_TIME},
    {"cpu", F_CPU},
    {"event", F_EVNAME},
    {"trace", F_TRACE},
    {"ip", F_IP},
    {"sym", F_SYM},
    {"dso", F_DSO},
    {"addr", F_ADDR},
    {"symoff", F_SYMOFFSET},
    {"srcline", F_SRCLINE},
    {"period", F_PERIOD},
    {"iregs", F_IREGS},
    {"uregs", F_UREGS},
    {"brstack", F_BRSTACK},
    {"brstacksym", F_BRSTACKSYM},
    {"data_src", F_DATA_SRC},
    {"weight", F_WEIGHT},
    {"bpf-output", F_BPF_OUTPUT},
    {"callindent", F_CALLINDENT},
    {"insn", F_INSN},
    {"insnlen", F_INSNLEN},
    {"brstackinsn", F_BRSTACKINSN},
    {"brstackoff", F_BRSTACKOFF},
    {"synth", F_SYNTH},
    {"phys_addr", F_PHYS_ADDR},
    {"metric", F_METRIC},
    {"misc", F_MISC},
    {"srccode", F_SRCCODE},
    {"ipc", F_IPC},
    {"tod", F_TOD},
    {"data_page_size", F_DATA_PAGE_SIZE},
    {"code_page_size", F_CODE_PAGE_SIZE},
    {"ins_lat", F_INS_LAT},
    {"brstackinsnlen", F_BRSTACKINSNLEN},
};

static const char *const type_names[T_MAX] = {"hw",  "sw",    "trace", "hw_cache",
                                              "raw", "break", "synth", "other"};

#define F_BASE (F_COMM | F_TID | F_CPU | F_TIME | F_EVNAME | F_IP | F_SYM | F_SYMOFFSET | F_DSO)

void pa_script_default_fields(struct pa_script *sc)
{
	static const uint64_t def[T_MAX] = {
	    [T_HW] = F_BASE | F_PERIOD,
	    [T_SW] = F_BASE | F_PERIOD | F_BPF_OUTPUT,
	    [T_TRACE] = F_COMM | F_TID | F_CPU | F_TIME | F_EVNAME | F_TRACE,
	    [T_HW_CACHE] = F_BASE | F_PERIOD,
	    [T_RAW] = F_BASE | F_PERIOD | F_ADDR | F_DATA_SRC | F_WEIGHT | F_PHYS_ADDR |
	              F_DATA_PAGE_SIZE | F_CODE_PAGE_SIZE | F_INS_LAT,
	    [T_BREAK] = F_BASE | F_PERIOD,
	    [T_SYNTH] = F_BASE | F_SYNTH,
	    [T_OTHER] = F_BASE | F_PERIOD,
	};
	for (int j = 0; j < T_MAX; j++) {
		sc->out[j] = (struct out_type){.fields = def[j]};
		sc->out[j].invalid = j == T_TRACE ? 0
		                     : j == T_SW  ? F_TRACE
		                                  : F_TRACE | F_BPF_OUTPUT;
	}
}

int pa_script_output_type(const struct pa_evsel *e)
{
	uint32_t type = e->attr.type;
	if (type == 0x80000000u) /* PERF_TYPE_SYNTH */
		return T_SYNTH;
	return type < 6 ? (int)type : T_OTHER;
}

static int type_by_name(const char *s)
{
	for (int j = 0; j < T_MAX; j++)
		if (j != T_HW_CACHE && j != T_OTHER && !strcmp(s, type_names[j]))
			return j;
	return -1;
}

static void set_field(struct out_type *o, uint64_t bit, bool remove, bool wildcard)
{
	if (remove) {
		o->fields &= ~bit;
		if (wildcard) {
			o->user_set_fields &= ~bit;
			o->user_unset_fields |= bit;
		}
	} else {
		o->fields |= bit;
		if (wildcard) {
			o->user_set_fields |= bit;
			o->user_unset_fields &= ~bit;
		}
	}
	o->user_set = o->wildcard_set = true;
}

/* One token of the list: "f", "+f" or "-f" (mode: 0 unset yet, 1 set, 2
 * add or remove; perf refuses a mix). */
static int parse_token(struct pa_script *sc, char *tok, int type, int *mode, struct pa_err *err)
{
	bool remove = false;
	if (*tok == '+' || *tok == '-') {
		if (*mode == 1)
			return pa_err_set(err, PA_ERR_USAGE,
			                  "Cannot mix +-field with overridden fields");
		remove = *tok++ == '-';
		*mode = 2;
	} else {
		if (*mode == 2)
			return pa_err_set(err, PA_ERR_USAGE,
			                  "Cannot mix +-field with overridden fields");
		*mode = 1;
	}
	if (!strcmp(tok, "flags")) {
		sc->print_flags = !remove;
		return 0;
	}
	size_t i = 0;
	while (i < PA_ARRAY_SIZE(fields) && strcmp(tok, fields[i].name))
		i++;
	if (i == PA_ARRAY_SIZE(fields))
		return pa_err_set(err, PA_ERR_USAGE, "Invalid field requested.");
	if (type < 0) {
		for (int j = 0; j < T_MAX; j++)
			if (!(sc->out[j].invalid & fields[i].bit))
				set_field(&sc->out[j], fields[i].bit, remove, true);
		return 0;
	}
	if (sc->out[type].invalid & fields[i].bit)
		return pa_err_set(err, PA_ERR_USAGE, "'%s' not valid for %s events.", tok,
		                  type_names[type]);
	set_field(&sc->out[type], fields[i].bit, remove, false);
	return 0;
}

int pa_script_parse_fields(struct pa_script *sc, const char *arg, struct pa_err *err)
{
	char *str = pa_arena_strdup(&sc->arena, arg);
	if (!str)
		return pa_err_set(err, -ENOMEM, "out of memory");
	int type = -1;
	char *tok = strchr(str, ':');
	bool plus_minus;
	if (tok) {
		*tok++ = 0;
		if ((type = type_by_name(str)) < 0)
			return pa_err_set(err, PA_ERR_USAGE, "Invalid event type in field string.");
		plus_minus = strchr(tok, '+') || strchr(tok, '-');
		if (!plus_minus)
			sc->out[type] =
			    (struct out_type){.invalid = sc->out[type].invalid, .user_set = true};
	} else {
		tok = str;
		if (!*str)
			return pa_err_set(err, PA_ERR_USAGE,
			                  "Cannot set fields to 'none' for all event types.");
		plus_minus = strchr(str, '+') || strchr(str, '-');
		for (int j = 0; !plus_minus && j < T_MAX; j++) {
			sc->out[j].fields = 0;
			sc->out[j].user_set = sc->out[j].wildcard_set = true;
		}
	}
	int mode = 0;
	char *save = NULL;
	for (char *t = strtok_r(tok, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int ret = parse_token(sc, t, type, &mode, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- perf's checks against the events ---------------------------------- */

static bool is_dummy(const struct pa_evsel *e)
{
	return e->attr.type == 1 && e->attr.config == 9; /* PERF_COUNT_SW_DUMMY */
}

/* A field shown where its event does not record what it needs: dropped
 * from a default or typed list, an error from a list for all types. */
static int check_stype(struct out_type *o, const struct pa_evsel *e, uint64_t need,
                       const char *what, uint64_t field, const char *fname, struct pa_err *err)
{
	if ((o->fields & field) == 0 || (e->attr.sample_type & need))
		return 0;
	if (o->user_set_fields & field) {
		char buf[128];
		return pa_err_set(
		    err, PA_ERR_USAGE,
		    "Samples for '%s' event do not have %s attribute set. Cannot print "
		    "'%s' field.",
		    pa_evsel_name(e, buf, sizeof(buf)), what, fname);
	}
	o->fields &= ~field;
	return 0;
}

static int check_attr(struct out_type *o, const struct pa_evsel *e, struct pa_err *err)
{
	static const struct {
		uint64_t need;
		const char *what;
		uint64_t field;
		const char *fname;
	} checks[] = {
	    {PA_SAMPLE_IP, "IP", F_IP, "ip"},
	    {PA_SAMPLE_ADDR, "ADDR", F_ADDR, "addr"},
	    {PA_SAMPLE_DATA_SRC, "DATA_SRC", F_DATA_SRC, "data_src"},
	    {PA_SAMPLE_WEIGHT | PA_SAMPLE_WEIGHT_STRUCT, "WEIGHT", F_WEIGHT, "weight"},
	    {PA_SAMPLE_TID, "TID", F_TID | F_PID, "tid"},
	    {PA_SAMPLE_TIME, "TIME", F_TIME, "time"},
	    {PA_SAMPLE_CPU, "CPU", F_CPU, "cpu"},
	    {PA_SAMPLE_REGS_INTR, "IREGS", F_IREGS, "iregs"},
	    {PA_SAMPLE_REGS_USER, "UREGS", F_UREGS, "uregs"},
	    {PA_SAMPLE_PHYS_ADDR, "PHYS_ADDR", F_PHYS_ADDR, "phys_addr"},
	    {PA_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE", F_DATA_PAGE_SIZE, "data_page_size"},
	    {PA_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE", F_CODE_PAGE_SIZE, "code_page_size"},
	    {PA_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", F_INS_LAT, "ins_lat"},
	};
	if (is_dummy(e))
		return 0;
	uint64_t st = e->attr.sample_type;
	for (size_t i = 0; i < PA_ARRAY_SIZE(checks); i++) {
		int ret = check_stype(o, e, checks[i].need, checks[i].what, checks[i].field,
		                      checks[i].fname, err);
		if (ret)
			return ret;
		if (i == 3) { /* perf checks these between weight and tid */
			if ((o->fields & (F_SYM | F_DSO)) &&
			    !(st & (PA_SAMPLE_IP | PA_SAMPLE_ADDR)))
				return pa_err_set(
				    err, PA_ERR_USAGE,
				    "Display of symbols requested but neither sample IP "
				    "nor sample address available.");
			if ((o->fields & F_SYMOFFSET) && !(o->fields & F_SYM))
				return pa_err_set(err, PA_ERR_USAGE,
				                  "Display of offsets requested but symbol is not "
				                  "selected.");
			if ((o->fields & F_SRCLINE) && !(o->fields & F_IP))
				return pa_err_set(
				    err, PA_ERR_USAGE,
				    "Display of source line number requested but sample "
				    "IP is not selected.");
		}
	}
	return 0;
}

int pa_script_check_fields(struct pa_script *sc, struct pa_err *err)
{
	struct pa_file *f = pa_session_file(pa_trace_session(sc->t));
	unsigned n = pa_file_nr_evsels(f);
	for (int j = 0; j < T_MAX; j++) {
		const struct pa_evsel *first = NULL;
		for (unsigned i = 0; i < n && !first; i++) {
			const struct pa_evsel *e = pa_file_evsel(f, i);
			if (!is_dummy(e) && pa_script_output_type(e) == j)
				first = e;
		}
		struct out_type *o = &sc->out[j];
		if (!first && o->user_set && !o->wildcard_set && j != T_SYNTH)
			return pa_err_set(err, PA_ERR_USAGE,
			                  "%s events do not exist. Remove corresponding -F option "
			                  "to proceed.",
			                  type_names[j]);
		int ret = first && o->fields ? check_attr(o, first, err) : 0;
		if (ret)
			return ret;
		/* accepted as perf's names, not printed yet: said, rather than
		 * a line without them */
		const uint64_t insns = F_BRSTACKINSN | F_BRSTACKINSNLEN;
		for (size_t i = 0; first && i < PA_ARRAY_SIZE(fields); i++)
			if (fields[i].bit & insns & o->fields)
				return pa_err_set(
				    err, PA_ERR_USAGE,
				    "-F %s: pa script does not print the instructions "
				    "between branches yet (brstack, brstacksym and "
				    "brstackoff it does)",
				    fields[i].name);
	}
	return 0;
}
