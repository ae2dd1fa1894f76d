/* print.c - perf script's text of a sample: the start of the line (comm,
 * pid/tid, cpu, misc, time), period and event, addr, then the ip with its
 * symbol and DSO, or the call chain one entry per line. Each location's
 * text is made once (struct loc_text) and copied after that. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PRINT(o, x) (((o)->fields & (x)) != 0)

/* perf's misc letters of side records: M(map of data), E(xec), S(witch
 * out), p(reempted) */
static const char *misc_letters(const struct pa_script_line *ls)
{
	switch (ls->type) {
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		return ls->misc & PA_SCRIPT_MISC_MMAP_DATA ? "M" : "";
	case PA_REC_COMM:
		return ls->misc & PA_SCRIPT_MISC_COMM_EXEC ? "E" : "";
	case PA_REC_SWITCH:
	case PA_REC_SWITCH_CPU_WIDE:
		return !(ls->misc & PA_SCRIPT_MISC_SWITCH_OUT)        ? ""
		       : ls->misc & PA_SCRIPT_MISC_SWITCH_OUT_PREEMPT ? "Sp"
		                                                      : "S";
	default:
		return "";
	}
}

static void print_misc(const struct pa_script_line *ls, struct obuf *b)
{
	/* perf tests each mode as a bit pattern of the 3-bit field */
	static const struct {
		uint8_t m;
		char c;
	} modes[] = {{1, 'K'}, {2, 'U'}, {3, 'H'}, {4, 'G'}, {5, 'g'}};
	size_t n = 0;
	for (size_t i = 0; i < PA_ARRAY_SIZE(modes); i++)
		if ((ls->misc & modes[i].m) == modes[i].m)
			ob_char(b, modes[i].c), n++;
	const char *s = misc_letters(ls);
	ob_str(b, s);
	n += strlen(s);
	ob_pad(b, n < 6 ? 6 - n : 1); /* perf's "%*s" of " " to 6 columns */
}

static void print_time(struct pa_script *sc, uint64_t time, struct obuf *b)
{
	uint64_t t = time;
	if (sc->opts.reltime) {
		if (!sc->have_first)
			sc->first_time = time, sc->have_first = true;
		t = time - sc->first_time;
	} else if (sc->opts.deltatime) {
		t = sc->have_first ? time - sc->prev_time : 0;
		sc->prev_time = time;
		sc->have_first = true;
	}
	/* "%5lu.%06lu: " (--ns: "%5lu.%09llu: ") */
	ob_num(b, t / 1000000000u, 10, 5, false);
	ob_char(b, '.');
	if (sc->opts.ns)
		ob_zero_num(b, t % 1000000000u, 9);
	else
		ob_zero_num(b, t % 1000000000u / 1000, 6);
	ob_mem(b, ": ", 2);
}

void pa_script_line_start(struct pa_script *sc, const struct out_type *o, const struct pa_evsel *e,
                          const struct pa_script_line *ls, struct obuf *b)
{
	if (PRINT(o, F_COMM)) {
		if (PRINT(o, F_IP) && pa_script_has_callchain(e) && sc->use_callchain)
			ob_str(b, ls->comm);
		else
			ob_rstr(b, ls->comm, 16);
		ob_char(b, ' ');
	}
	if (PRINT(o, F_PID) && PRINT(o, F_TID)) {
		ob_int(b, ls->pid, 5, false);
		ob_char(b, '/');
		ob_int(b, ls->tid, 5, true);
		ob_char(b, ' ');
	} else if (PRINT(o, F_PID) || PRINT(o, F_TID)) {
		ob_int(b, PRINT(o, F_PID) ? ls->pid : ls->tid, 5, false);
		ob_char(b, ' ');
	}
	if (PRINT(o, F_CPU)) {
		ob_char(b, '[');
		ob_zero_num(b, ls->cpu, 3);
		ob_mem(b, "] ", 2);
	}
	if (PRINT(o, F_MISC))
		print_misc(ls, b);
	if (PRINT(o, F_TIME))
		print_time(sc, ls->time, b);
}

static bool kernel_dso(const struct pa_dso *d)
{
	return d && (d->kind == PA_DSO_KERNEL || d->kind == PA_DSO_KERNEL_MODULE);
}

const char *pa_script_dso_name(const struct pa_script *sc, const struct pa_dso *d)
{
	if (!d)
		return "[unknown]";
	return sc->opts.show_kernel_path || !kernel_dso(d) ? d->long_name : d->short_name;
}

/* A location's text into sc->text (see struct loc_text): in a chain
 * "\t%16lx SYM+0xOFF (DSO)[\n  SRCLINE][ (inlined)]\n", else what follows
 * the ip: " SYM+0xOFF (DSO)[\n  SRCLINE]" (perf's sample__fprintf_sym and
 * sample__fprintf_callchain; a chain entry shows the map-relative address
 * of a user DSO, else the raw ip). */
static int make_loc_text(struct pa_script *sc, const struct out_type *o, const struct pa_loc *l,
                         bool chain)
{
	struct pa_resolver *r = pa_trace_resolver(sc->t);
	struct pa_buf *t = &sc->text;
	bool inlined = chain && l->sym && l->sym->inlined;
	int ret = 0;
	if (chain && PRINT(o, F_IP))
		ret |=
		    pa_buf_addf(t, "\t%16" PRIx64, l->dso && !kernel_dso(l->dso) ? l->addr : l->ip);
	if (PRINT(o, F_SYM) && !l->sym)
		ret |= pa_buf_addf(t, " [unknown]");
	else if (PRINT(o, F_SYM) && PRINT(o, F_SYMOFFSET))
		ret |= pa_buf_addf(t, " %s+0x%" PRIx64, l->sym->name, pa_resolver_sym_offset(r, l));
	else if (PRINT(o, F_SYM))
		ret |= pa_buf_addf(t, " %s", l->sym->name);
	if (PRINT(o, F_DSO) && !inlined)
		ret |= pa_buf_addf(t, " (%s)", pa_script_dso_name(sc, l->dso));
	if (PRINT(o, F_SRCLINE)) {
		/* (an inline frame's line came with it, the call site in its
		 * caller, and perf prints it whatever it is; it leaves out
		 * a map's "??:0") */
		const char *s = l->inl_frame ? l->srcline : pa_resolver_map_srcline(r, l);
		if (s && (l->inl_frame || strcmp(s, PA_SRCLINE_UNKNOWN)))
			ret |= pa_buf_addf(t, "\n  %s", s);
	}
	if (inlined)
		ret |= pa_buf_addf(t, " (inlined)");
	if (chain)
		ret |= pa_buf_addf(t, "\n");
	return ret ? -ENOMEM : 0;
}

/* Copy a location's text, made the first time. 0 or -ENOMEM. */
static int put_loc(struct pa_script *sc, int type, const struct out_type *o, uint32_t id,
                   bool chain, struct obuf *b)
{
	struct loc_text **lt = &sc->loc_text[2 * type + chain];
	if (!*lt && !(*lt = calloc(pa_resolver_nr_locs(pa_trace_resolver(sc->t)), sizeof(**lt))))
		return -ENOMEM;
	struct loc_text *x = &(*lt)[id];
	if (!x->len) {
		size_t start = sc->text.len;
		if (make_loc_text(sc, o, &pa_resolver_locs(pa_trace_resolver(sc->t))[id], chain))
			return -ENOMEM;
		x->off = (uint32_t)start;
		x->len = (uint32_t)(sc->text.len - start);
	}
	if (x->len) /* (an empty text is made again each time: cheap) */
		ob_mem(b, sc->text.data + x->off, x->len);
	return 0;
}

static bool stops_bt(const struct pa_script *sc, const struct pa_sym *sym)
{
	for (size_t i = 0; sym && i < sc->nr_stop_bt; i++)
		if (!strcmp(sym->name, sc->stop_bt[i]))
			return true;
	return false;
}

static int print_ip(struct pa_script *sc, int type, const struct out_type *o,
                    const struct pa_trace_sample *sm, bool chain, struct obuf *b)
{
	if (!chain) {
		ob_num(b, sm->ip, 16, 16, false);
		return put_loc(sc, type, o, sm->loc, false, b);
	}
	const struct pa_loc *locs = pa_resolver_locs(pa_trace_resolver(sc->t));
	for (uint32_t i = 0; i < sm->nr_frames; i++) {
		if (put_loc(sc, type, o, sm->frames[i], true, b))
			return -ENOMEM;
		if (sc->nr_stop_bt && stops_bt(sc, locs[sm->frames[i]].sym))
			break;
	}
	return 0;
}

int pa_script_sample(void *ctx, const struct pa_trace_sample *sm)
{
	struct pa_script_walk *w = ctx;
	struct pa_script *sc = w->sc;
	const struct pa_evsel *e = pa_file_evsel(w->f, sm->evsel);
	int type = pa_script_output_type(e);
	const struct out_type *o = &sc->out[type];
	struct obuf *b = w->b;
	if (!o->fields)
		return 0;
	struct pa_script_line ls = {.comm = sm->comm,
	                            .pid = sm->pid,
	                            .tid = sm->tid,
	                            .cpu = sm->cpu,
	                            .time = sm->time,
	                            .misc = sm->cpumode,
	                            .type = PA_REC_SAMPLE};
	pa_script_line_start(sc, o, e, &ls, b);
	if (PRINT(o, F_PERIOD)) {
		ob_num(b, sm->period, 10, 10, false);
		ob_char(b, ' ');
	}
	if (PRINT(o, F_EVNAME)) {
		char buf[256];
		ob_rstr(b, pa_evsel_name(e, buf, sizeof(buf)), (size_t)sc->name_width);
		ob_mem(b, ": ", 2);
	}
	if (PRINT(o, F_TRACE) && pa_script_tp_print(sc, w->f, e, sm, b))
		return -ENOMEM;
	if (PRINT(o, F_ADDR))
		ob_num(b, sm->addr, 16, 16, false);
	bool chain = PRINT(o, F_IP) && sc->use_callchain && pa_script_has_callchain(e);
	if (PRINT(o, F_IP)) {
		ob_char(b, chain ? '\n' : ' ');
		if (print_ip(sc, type, o, sm, chain, b))
			return -ENOMEM;
	}
	if (pa_script_branches(sc, o, sm, chain, b))
		return -ENOMEM;
	ob_char(b, '\n');
	return ferror(b->f) ? -EIO : 0;
}
