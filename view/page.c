/* page.c - the page: inline style, the model as one JSON object in a
 * <script type="application/json"> element, then view.js, which draws
 * every view from it. JSON strings escape '<', '>' and '&'
 * (pa_put_json_str), so that no name ends the element early.
 *
 * The data object:
 *   title, filters, version: strings
 *   init: the page's initial filters {dsos, comms, symbols, pids, tids}:
 *         comma lists as pa report's options, or null
 *   header: host, arch, osrelease, perf version, cpu, cpus, cmdline, the
 *           recorded first and last sample times (ns, as strings)
 *   events: event names by index
 *   frames: [name, dso, level, has_sym] per frame (has_sym 0: an
 *           unresolved address, which no --symbols list names)
 *   threads: [pid, tid, comm] per (thread, comm) that has samples
 *   stacks: frame indices per stack, root first, then the frame of the
 *           sample's own ip (pa report's self entry)
 *   t0, width: first sample time and bucket width (ns, strings: exact)
 *   buckets: how many
 *   aggs: flat [event, thread, bucket, stack, count, period] x n
 *   notes: [dso, has_symbols, why] per DSO that -v says something of
 */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

static void put_str(FILE *out, const char *s)
{
	if (s)
		pa_put_json_str(out, s, strlen(s));
	else
		fputs("null", out);
}

static void put_key_str(FILE *out, const char *key, const char *s)
{
	fprintf(out, ",\"%s\":", key);
	put_str(out, s);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

static void put_header(struct vmodel *m, FILE *out)
{
	struct pa_file *f = pa_session_file(pa_trace_session(m->t));
	const struct pa_header_info *h = pa_file_header(f);
	fputs("\"header\":{\"input\":", out);
	put_str(out, pa_file_path(f));
	put_key_str(out, "host", h ? h->hostname : NULL);
	put_key_str(out, "arch", h ? h->arch : NULL);
	put_key_str(out, "osrelease", h ? h->osrelease : NULL);
	put_key_str(out, "perf_version", h ? h->version : NULL);
	put_key_str(out, "cpudesc", h ? h->cpudesc : NULL);
	fprintf(out, ",\"nr_cpus\":%" PRIu32 ",\"cmdline\":[", h ? h->nr_cpus_online : 0);
	for (uint32_t i = 0; h && i < h->nr_cmdline; i++) {
		if (i)
			putc(',', out);
		put_str(out, h->cmdline[i]);
	}
	fprintf(out, "],\"first\":\"%" PRIu64 "\",\"last\":\"%" PRIu64 "\"",
	        h ? h->first_sample_time : 0, h ? h->last_sample_time : 0);
	fprintf(out, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 "},\n", m->nr_samples,
	        m->total_period);
	fputs("\"events\":[", out);
	for (unsigned i = 0; i < pa_file_nr_evsels(f); i++) {
		char name[256];
		const struct pa_evsel *ev = pa_file_evsel(f, i);
		if (i)
			putc(',', out);
		put_str(out, ev ? pa_evsel_name(ev, name, sizeof(name)) : "unknown");
	}
	fputs("],\n\"notes\":[", out);
	for (size_t i = 0; i < m->nr_notes; i++) {
		fputs(i ? ",\n[" : "\n[", out);
		put_str(out, m->notes[i].dso);
		fputs(m->notes[i].has_symbols ? ",true," : ",false,", out);
		put_str(out, m->notes[i].why);
		putc(']', out);
	}
	fputs("],\n", out);
}

static void put_tables(struct vmodel *m, FILE *out)
{
	fputs("\"frames\":[", out);
	for (size_t i = 0; i < m->nr_frames; i++) {
		const struct vframe *f = &m->frames[i];
		fputs(i ? ",\n[" : "\n[", out);
		put_str(out, f->name);
		putc(',', out);
		put_str(out, f->dso);
		fprintf(out, ",\"%c\",%d]", f->level, f->has_sym ? 1 : 0);
	}
	fputs("],\n\"threads\":[", out);
	for (size_t i = 0; i < m->nr_threads; i++) {
		const struct vthread *t = &m->threads[i];
		fprintf(out, "%s[%" PRId32 ",%" PRId32 ",", i ? ",\n" : "\n", t->pid, t->tid);
		put_str(out, t->comm);
		putc(']', out);
	}
	fputs("],\n\"stacks\":[", out);
	for (uint32_t i = 0; i < m->stacks.nr; i++) {
		uint32_t len;
		const uint32_t *v = pa_seqset_get(&m->stacks, i, &len);
		fputs(i ? (i % 8 ? ",[" : ",\n[") : "[", out);
		for (uint32_t d = 0; d < len; d++)
			fprintf(out, d ? ",%" PRIu32 : "%" PRIu32, v[d]);
		putc(']', out);
	}
	fprintf(out, "],\n\"t0\":\"%" PRIu64 "\",\"width\":\"%" PRIu64 "\",\"buckets\":%u,", m->t0,
	        m->width, m->nr_buckets);
	fprintf(out, "\"has_time\":%s,\n\"aggs\":[", m->has_time ? "true" : "false");
	for (size_t i = 0; i < m->nr_aggs; i++) {
		const struct vagg *a = &m->aggs[i];
		fprintf(out,
		        "%s%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64,
		        i ? (i % 4 ? "," : ",\n") : "", a->evsel, a->thread, a->bucket, a->stack,
		        a->count, a->period);
	}
	fputs("]}\n", out);
}

int vpage_write(struct vmodel *m, const struct pa_view_opts *opts, FILE *out)
{
	struct pa_file *f = pa_session_file(pa_trace_session(m->t));
	const char *path = pa_file_path(f);
	const char *title = PA_OPTS_GET(opts, struct pa_view_opts, title, NULL);
	const char *filters = PA_OPTS_GET(opts, struct pa_view_opts, filters, NULL);
	if (!title)
		title = !path || !strcmp(path, "-") ? "perf.data" : base_name(path);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"pa " PA_VERSION "\">\n<title>pa view</title>\n"
	      "<style>\n",
	      out);
	fputs(pa_view_asset_view_css, out);
	fputs("</style></head>\n<body>\n<div id=\"app\">loading&hellip;</div>\n"
	      "<script id=\"pa-data\" type=\"application/json\">\n{\"title\":",
	      out);
	put_str(out, title);
	put_key_str(out, "filters", filters);
	const struct pa_filter_spec *rows = PA_OPTS_GET(opts, struct pa_view_opts, rows, NULL);
	fputs(",\"init\":{\"dsos\":", out);
	put_str(out, rows ? rows->dsos : NULL);
	put_key_str(out, "comms", rows ? rows->comms : NULL);
	put_key_str(out, "symbols", rows ? rows->symbols : NULL);
	put_key_str(out, "pids", rows ? rows->pids : NULL);
	put_key_str(out, "tids", rows ? rows->tids : NULL);
	putc('}', out);
	fputs(",\"version\":\"pa " PA_VERSION "\",\n", out);
	put_header(m, out);
	put_tables(m, out);
	fputs("</script>\n<script>\n", out);
	fputs(pa_view_asset_view_js, out);
	fputs("</script>\n</body></html>\n", out);
	return 0;
}
