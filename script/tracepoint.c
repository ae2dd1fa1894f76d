/* tracepoint.c - a tracepoint sample's fields as perf script prints them
 * (its "trace" field): the raw payload formatted by libtraceevent from the
 * recording's own format files (the TRACING_DATA section), as perf's
 * event_format__fprintf does. Without libtraceevent at build time, or
 * without the section, the field is empty. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef PA_HAVE_TRACEEVENT
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

/* %pS and the like in a format: the kernel's symbol, as perf resolves it
 * for libtraceevent (machine__resolve_kernel_addr). */
static char *kernel_addr(void *priv, unsigned long long *addrp, char **modp)
{
	uint64_t start;
	const char *mod;
	const char *name = pa_resolver_kernel_sym(priv, *addrp, &start, &mod);
	if (!name)
		return NULL;
	*addrp = start;
	*modp = (char *)mod;
	return (char *)name;
}

/* The printer of the recording's tracepoints; NULL when it has none. r:
 * kernel symbols for function pointers, or NULL. */
static struct tep_handle *make_tep(const struct pa_tracing_data *td, struct pa_resolver *r)
{
	struct tep_handle *tep = tep_alloc();
	if (!tep)
		return NULL;
	if (r)
		tep_set_function_resolver(tep, kernel_addr, r);
	tep_set_file_bigendian(tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
	                                                                    : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, td->long_size);
	tep_set_page_size(tep, (int)td->page_size);
	/* (like perf, a format that does not parse leaves its event unprinted) */
	tep_parse_header_page(tep, (char *)td->header_page, td->header_page_len, td->long_size);
	for (uint32_t i = 0; i < td->nr_ftrace; i++)
		tep_parse_event(tep, td->ftrace[i].text, td->ftrace[i].len, "ftrace");
	for (uint32_t i = 0; i < td->nr_events; i++)
		tep_parse_event(tep, td->events[i].text, td->events[i].len, td->events[i].system);
	if (td->kallsyms_len)
		tep_parse_kallsyms(tep, td->kallsyms);
	if (td->printk_len)
		tep_parse_printk_formats(tep, td->printk);
	return tep;
}

int pa_script_tp_print(struct pa_script *sc, struct pa_file *f, const struct pa_evsel *e,
                       const struct pa_trace_sample *sm, struct obuf *b)
{
	if (!sm->raw || !sm->raw_size || pa_script_output_type(e) != T_TRACE)
		return 0;
	if (!sc->tp_tried) {
		sc->tp_tried = true;
		const struct pa_tracing_data *td = pa_file_header(f)->tracing;
		/* perf script gives its printer the kernel's symbols when it
		 * starts, which a pipe's tracing data comes after: a pipe's
		 * function pointers print as addresses */
		bool pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;
		sc->tp = td ? make_tep(td, pipe ? NULL : pa_trace_resolver(sc->t)) : NULL;
	}
	struct tep_event *ev = sc->tp ? tep_find_event(sc->tp, (int)e->attr.config) : NULL;
	if (!ev)
		return 0;
	struct tep_record rec = {.cpu = (int)sm->cpu, .size = (int)sm->raw_size,
	                         .data = (void *)sm->raw};
	struct trace_seq s;
	trace_seq_init(&s);
	tep_print_event(sc->tp, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	int ret = s.state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
	if (!ret)
		ob_mem(b, s.buffer, s.len);
	trace_seq_destroy(&s);
	return ret;
}

void pa_script_tp_free(struct pa_script *sc)
{
	if (sc->tp)
		tep_free(sc->tp);
	sc->tp = NULL;
}
#else
int pa_script_tp_print(struct pa_script *sc, struct pa_file *f, const struct pa_evsel *e,
                       const struct pa_trace_sample *sm, struct obuf *b)
{
	(void)sc;
	(void)f;
	(void)e;
	(void)sm;
	(void)b;
	return 0;
}

void pa_script_tp_free(struct pa_script *sc)
{
	(void)sc;
}
#endif
