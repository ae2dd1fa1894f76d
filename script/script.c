/* script.c - pa_script's lifecycle, and perf's setup before the text:
 * its field checks, its use of call chains, the width of event names. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pa_script *pa_script_new(const struct pa_script_opts *opts, struct pa_err *err)
{
	struct pa_script *sc = calloc(1, sizeof(*sc));
	if (!sc) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	pa_opts_copy(&sc->opts, sizeof(sc->opts), opts);
	pa_arena_init(&sc->arena, 4096);
	pa_script_default_fields(sc);
	/* --stop-bt is a comma list, like the filters' */
	struct pa_filter bt;
	struct pa_filter_spec spec = {.symbols = sc->opts.stop_bt};
	if ((sc->opts.fields && pa_script_parse_fields(sc, sc->opts.fields, err)) ||
	    pa_filter_parse(&bt, &sc->arena, &spec, err)) {
		pa_script_free(sc);
		return NULL;
	}
	sc->stop_bt = bt.syms;
	sc->nr_stop_bt = bt.nr_syms;
	return sc;
}

void pa_script_free(struct pa_script *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < PA_ARRAY_SIZE(sc->loc_text); i++)
		free(sc->loc_text[i]);
	pa_buf_release(&sc->text);
	free(sc->dso_seen);
	pa_script_tp_free(sc);
	pa_arena_release(&sc->arena);
	free(sc);
}

bool pa_script_has_callchain(const struct pa_evsel *e)
{
	return (e->attr.sample_type & PA_SAMPLE_CALLCHAIN) != 0;
}

/* perf's use of call chains: in a file, when an event samples them (none
 * with -G); in a pipe always, then fields for them on each type (its
 * process_attr). Tracepoints with call chains show ip, sym, symoff, dso. */
static void setup_callchains(struct pa_script *sc, struct pa_file *f)
{
	unsigned n = pa_file_nr_evsels(f);
	bool pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;
	sc->use_callchain = !sc->opts.hide_call_graph && pipe;
	for (unsigned i = 0; i < n && !sc->opts.hide_call_graph; i++)
		sc->use_callchain |= pa_script_has_callchain(pa_file_evsel(f, i));
	uint64_t combined = 0;
	for (unsigned i = 0; i < n; i++)
		combined |= pa_file_evsel(f, i)->attr.sample_type;
	for (unsigned i = 0; pipe && sc->use_callchain && (combined & PA_SAMPLE_CALLCHAIN) && i < n;
	     i++) {
		struct out_type *o = &sc->out[pa_script_output_type(pa_file_evsel(f, i))];
		o->fields |= (F_IP | F_SYM) & ~o->user_unset_fields;
	}
	if (!sc->use_callchain || sc->out[T_TRACE].user_set)
		return;
	for (unsigned i = 0; i < n; i++) {
		const struct pa_evsel *e = pa_file_evsel(f, i);
		if (e->attr.type == 2 && pa_script_has_callchain(e)) { /* PERF_TYPE_TRACEPOINT */
			sc->out[T_TRACE].fields |= F_IP | F_SYM | F_SYMOFFSET | F_DSO;
			break;
		}
	}
}

bool pa_script_reads_branches(const struct pa_script *sc)
{
	for (int i = 0; i < T_MAX; i++)
		if (sc->out[i].fields & (F_BRSTACK | F_BRSTACKSYM | F_BRSTACKOFF))
			return true;
	return false;
}

int pa_script_print(struct pa_script *sc, struct pa_trace *t, FILE *out, struct pa_err *err)
{
	sc->t = t;
	struct pa_file *f = pa_session_file(pa_trace_session(sc->t));
	int ret = pa_script_check_fields(sc, err);
	if (ret)
		return ret;
	setup_callchains(sc, f);
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++) {
		char buf[256];
		int len = (int)strlen(pa_evsel_name(pa_file_evsel(f, i), buf, sizeof(buf)));
		sc->name_width = len > sc->name_width ? len : sc->name_width;
	}
	struct obuf *b = malloc(sizeof(*b));
	if (!b)
		return pa_err_set(err, -ENOMEM, "out of memory");
	ob_init(b, out);
	struct pa_script_walk w = {sc, f, b};
	ret = pa_trace_foreach(sc->t, pa_script_sample, pa_script_side, &w);
	ob_flush(b);
	free(b);
	if (ret == -EIO)
		return 0; /* (the caller sees the stream's error) */
	if (ret)
		pa_err_set(err, ret, "out of memory");
	return ret;
}
