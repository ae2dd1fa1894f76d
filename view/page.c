/* page.c - the page: inline style, the model as one JSON object in a
 * <script type="application/json"> element, then view.js, which draws
 * every view from it. JSON strings escape '<', '>' and '&'
 * (pa_put_json_str), so that no name ends the element early. The bulk
 * (stacks, aggs) is a string of base64 (libcrypto's EVP_EncodeBlock) of
 * unsigned LEB128 varints (7 bits a byte, the lowest first, the high bit
 * set on every byte but a value's last), written byte by byte: the page
 * is the same on every host. A difference is zigzag: 0, -1, 1, -2 ... as
 * 0, 1, 2, 3 ...
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
 *   stacks: {n, nodes, data}: n stacks, each its frames root first, then
 *           the frame of the sample's own ip (pa report's self entry); as
 *           the top-down trie of their chains (the frames but the last):
 *           nodes nodes, 0 the root, each after its parent, in the order
 *           the stacks first reach them; data: per node but the root, its
 *           id - 1 - its parent's id, its frame; then per stack its
 *           chain's node (a difference from the previous stack's, the
 *           first's from 0), its own frame
 *   t0, width: first sample time and bucket width (ns, strings: exact)
 *   buckets: how many
 *   aggs: {n, events, units, data}: n aggregates (event, thread, bucket,
 *         stack, count, period) in the order of their first samples;
 *         units[e]: event e's period per sample when it is fixed (the
 *         first aggregate's period / count, when whole), else 0; data:
 *         per aggregate thread * events + event, bucket and stack (each a
 *         difference from the previous aggregate's, the first's from 0),
 *         count * 2 + 1 when the period follows (else it is count *
 *         units[event], units[event] not 0), the period
 *   lines: [srcline, text] per source line of samples' own addresses
 *          that addr2line names (perf's srcline, as pa report --sort
 *          srcline; the line's text, or null when its file cannot be read)
 *   laggs: {n, data}: n line aggregates (event, thread, bucket, frame,
 *          line, count, period) in the order of their first samples:
 *          samples by their own frame and line (index + 1 in lines; the
 *          samples of no line are in none); data: per aggregate thread *
 *          events + event, bucket (a difference from the previous one's),
 *          frame, line, count and period as in aggs
 *   notes: [dso, has_symbols, why] per DSO that -v says something of
 *   replay: null, or with an inline frame (then perf's --children
 *           entries of dso,sym depend on its hist-entry tree's shape,
 *           which view.js replays) {sym, n, seq}: sym per frame its
 *           inlined flag (0, 1), its symbol's start and end as ranks
 *           among all the symbols' starts and ends (0 0 for an
 *           unresolved address, whose name is its address); seq: per
 *           sample in the trace's order (n) its aggregate * 2 + 1 when
 *           its period follows (else it is units[event], not 0), the
 *           period
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

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

/* ---- the bulk data: varints in bytes, base64 in a JSON string ---- */

/* v as LEB128: 7 bits a byte, the lowest first, the high bit set on all
 * but the last (b has room: at most 10 bytes) */
static void put_varint(struct pa_buf *b, uint64_t v)
{
	unsigned char *p = (unsigned char *)b->data + b->len;
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	b->len += n;
}

/* a signed difference as an unsigned varint: 0, -1, 1, -2 ... as 0, 1,
 * 2, 3 ... (zigzag) */
static void put_delta(struct pa_buf *b, uint64_t from, uint64_t to)
{
	put_varint(b, to >= from ? (to - from) * 2 : (from - to) * 2 - 1);
}

/* n bytes as one JSON string of their base64 (no '<', '>', '&'); 0, or
 * -ENOSYS when libcrypto cannot be opened (util/dl.h) */
static int put_base64(FILE *out, const unsigned char *p, size_t n)
{
	enum { CHUNK = 3 * 4096 }; /* whole groups of 3: no padding between */
	unsigned char text[4 * (CHUNK / 3) + 1];
	putc('"', out);
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t len = n - at < CHUNK ? n - at : CHUNK;
		int w = EVP_EncodeBlock(text, p + at, (int)len);
		if (w < 0)
			return -ENOSYS;
		fwrite(text, 1, (size_t)w, out);
	}
	putc('"', out);
	return 0;
}

/* the top-down trie of the stacks' chains: a node's parent and frame
 * (node 0 the root), (parent, frame) -> node in an open-addressed table;
 * end[s]: stack s's chain's node */
struct trie {
	uint32_t *par, *fr, *tab;
	size_t nr, mask;
};

static int trie_build(struct vmodel *m, struct trie *t, uint32_t *end)
{
	size_t cap = 1, size = 1024;
	int ret = -ENOMEM;
	for (uint32_t s = 0; s < m->stacks.nr; s++) {
		uint32_t len;
		pa_seqset_get(&m->stacks, s, &len);
		cap += len;
	}
	while (size < 2 * cap)
		size *= 2;
	t->par = calloc(cap, sizeof(*t->par));
	t->fr = calloc(cap, sizeof(*t->fr));
	t->tab = calloc(size, sizeof(*t->tab));
	if (!t->par || !t->fr || !t->tab)
		goto out;
	t->mask = size - 1;
	t->nr = 1;
	for (uint32_t s = 0; s < m->stacks.nr; s++) {
		uint32_t len, nd = 0;
		const uint32_t *v = pa_seqset_get(&m->stacks, s, &len);
		for (uint32_t d = 0; d + 1 < len; d++) {
			size_t j = pa_hash64((uint64_t)nd << 32 | v[d]) & t->mask;
			uint32_t c;
			while ((c = t->tab[j]) && (t->par[c] != nd || t->fr[c] != v[d]))
				j = (j + 1) & t->mask;
			if (!c) {
				c = (uint32_t)t->nr++;
				t->par[c] = nd;
				t->fr[c] = v[d];
				t->tab[j] = c;
			}
			nd = c;
		}
		end[s] = nd;
	}
	ret = 0;
out:
	return ret;
}

/* the stacks object (above; a stack of one frame: the root) */
static int put_stacks(struct vmodel *m, FILE *out)
{
	struct trie t = {0};
	struct pa_buf b = {0};
	uint32_t *end = calloc(m->stacks.nr ? m->stacks.nr : 1, sizeof(*end));
	int ret = -ENOMEM;
	if (!end || trie_build(m, &t, end))
		goto out;
	if (pa_buf_grow(&b, 20 * (t.nr + m->stacks.nr)))
		goto out;
	for (size_t i = 1; i < t.nr; i++) {
		put_varint(&b, i - 1 - t.par[i]);
		put_varint(&b, t.fr[i]);
	}
	for (uint32_t s = 0, prev = 0; s < m->stacks.nr; prev = end[s], s++) {
		uint32_t len;
		const uint32_t *v = pa_seqset_get(&m->stacks, s, &len);
		put_delta(&b, prev, end[s]);
		put_varint(&b, len ? v[len - 1] : 0);
	}
	fprintf(out, "\"stacks\":{\"n\":%zu,\"nodes\":%zu,\"data\":\n", m->stacks.nr, t.nr);
	ret = put_base64(out, (const unsigned char *)b.data, b.len);
	fputs("},\n", out);
out:
	pa_buf_release(&b);
	free(t.par);
	free(t.fr);
	free(t.tab);
	free(end);
	return ret;
}

/* The events (the file's, or more when an aggregate names one past them)
 * and each one's units value (above): NULL when out of memory. */
static uint64_t *event_units(struct vmodel *m, uint32_t *nevp)
{
	uint32_t nev = pa_file_nr_evsels(pa_session_file(pa_trace_session(m->t)));
	for (size_t i = 0; i < m->nr_aggs; i++)
		if (m->aggs[i].evsel >= nev)
			nev = m->aggs[i].evsel + 1;
	bool *seen = calloc(nev ? nev : 1, sizeof(*seen));
	uint64_t *unit = seen ? calloc(nev ? nev : 1, sizeof(*unit)) : NULL;
	for (size_t i = 0; unit && i < m->nr_aggs; i++) {
		const struct vagg *a = &m->aggs[i];
		if (seen[a->evsel] || !a->count)
			continue;
		seen[a->evsel] = true;
		if (a->period % a->count == 0)
			unit[a->evsel] = a->period / a->count;
	}
	free(seen);
	*nevp = nev;
	return unit;
}

/* count * 2 + 1 and the period, or count * 2 when the period is count
 * times the event's unit */
static void put_count(struct pa_buf *b, uint64_t count, uint64_t period, uint64_t u)
{
	bool fixed = u && count <= UINT64_MAX / u && period == count * u;
	/* (a count is at most the samples': below 2^63) */
	put_varint(b, count * 2 + (fixed ? 0 : 1));
	if (!fixed)
		put_varint(b, period);
}

/* the lines array and laggs object (above) */
static int put_lines(struct vmodel *m, const uint64_t *unit, uint32_t nev, FILE *out)
{
	struct pa_buf b = {0};
	uint32_t bucket = 0;
	int ret = -ENOMEM;
	fputs("\"lines\":[", out);
	for (size_t i = 0; i < m->nr_lines; i++) {
		fputs(i ? ",\n[" : "\n[", out);
		put_str(out, m->lines[i].srcline);
		putc(',', out);
		put_str(out, m->lines[i].text);
		putc(']', out);
	}
	fputs("],\n", out);
	for (size_t i = 0; i < m->nr_laggs; i++) {
		const struct vlagg *a = &m->laggs[i];
		if (pa_buf_grow(&b, 70))
			goto out;
		put_varint(&b, (uint64_t)a->thread * nev + a->evsel);
		put_delta(&b, bucket, a->bucket);
		put_varint(&b, a->frame);
		put_varint(&b, a->line);
		put_count(&b, a->count, a->period, unit[a->evsel]);
		bucket = a->bucket;
	}
	fprintf(out, "\"laggs\":{\"n\":%zu,\"data\":\n", m->nr_laggs);
	ret = put_base64(out, (const unsigned char *)b.data, b.len);
	fputs("},\n", out);
out:
	pa_buf_release(&b);
	return ret;
}

/* the aggs object (above) */
static int put_aggs(struct vmodel *m, const uint64_t *unit, uint32_t nev, FILE *out)
{
	struct pa_buf b = {0};
	uint32_t bucket = 0, stack = 0;
	int ret = -ENOMEM;
	for (size_t i = 0; i < m->nr_aggs; i++) {
		const struct vagg *a = &m->aggs[i];
		if (pa_buf_grow(&b, 60))
			goto out;
		put_varint(&b, (uint64_t)a->thread * nev + a->evsel);
		put_delta(&b, bucket, a->bucket);
		put_delta(&b, stack, a->stack);
		put_count(&b, a->count, a->period, unit[a->evsel]);
		bucket = a->bucket;
		stack = a->stack;
	}
	fprintf(out, "\"aggs\":{\"n\":%zu,\"events\":%" PRIu32 ",\"units\":[", m->nr_aggs, nev);
	for (uint32_t e = 0; e < nev; e++)
		fprintf(out, e ? ",%" PRIu64 : "%" PRIu64, unit[e]);
	fputs("],\"data\":\n", out);
	ret = put_base64(out, (const unsigned char *)b.data, b.len);
	fputs("}}\n", out);
out:
	pa_buf_release(&b);
	return ret;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return PA_CMP(x, y);
}

/* the rank of v in sorted[0, n) (v is there) */
static uint32_t rank_of(const uint64_t *sorted, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sorted[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* the replay object (above) */
static int put_replay(struct vmodel *m, const uint64_t *unit, FILE *out)
{
	if (!m->has_inline) {
		fputs("\"replay\":null,\n", out);
		return 0;
	}
	struct pa_buf b = {0};
	uint64_t *v = malloc((2 * m->nr_frames + 1) * sizeof(*v));
	size_t n = 0;
	int ret = -ENOMEM;
	if (!v || pa_buf_grow(&b, 15 * m->nr_seq + 1))
		goto out;
	for (size_t i = 0; i < m->nr_frames; i++)
		if (m->frames[i].has_sym) {
			v[n++] = m->frames[i].start;
			v[n++] = m->frames[i].end;
		}
	qsort(v, n, sizeof(*v), u64_cmp);
	fputs("\"replay\":{\"sym\":[", out);
	for (size_t i = 0; i < m->nr_frames; i++) {
		const struct vframe *f = &m->frames[i];
		fprintf(out, "%s%d,%" PRIu32 ",%" PRIu32, i ? "," : "", f->inlined ? 1 : 0,
		        f->has_sym ? rank_of(v, n, f->start) : 0,
		        f->has_sym ? rank_of(v, n, f->end) : 0);
	}
	for (size_t i = 0; i < m->nr_seq; i++) {
		const struct vseq *q = &m->seq[i];
		bool given = q->period != unit[m->aggs[q->agg].evsel];
		put_varint(&b, (uint64_t)q->agg * 2 + given);
		if (given)
			put_varint(&b, q->period);
	}
	fprintf(out, "],\"n\":%zu,\"seq\":\n", m->nr_seq);
	ret = put_base64(out, (const unsigned char *)b.data, b.len);
	fputs("},\n", out);
out:
	pa_buf_release(&b);
	free(v);
	return ret;
}

static int put_tables(struct vmodel *m, FILE *out)
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
	fputs("],\n", out);
	uint32_t nev;
	uint64_t *unit = event_units(m, &nev);
	int ret = unit ? put_stacks(m, out) : -ENOMEM;
	if (!ret)
		ret = put_replay(m, unit, out);
	if (!ret)
		ret = put_lines(m, unit, nev, out);
	if (!ret) {
		fprintf(out, "\"t0\":\"%" PRIu64 "\",\"width\":\"%" PRIu64 "\",\"buckets\":%u,",
		        m->t0, m->width, m->nr_buckets);
		fprintf(out, "\"has_time\":%s,\n", m->has_time ? "true" : "false");
		ret = put_aggs(m, unit, nev, out);
	}
	free(unit);
	return ret;
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
	int ret = put_tables(m, out);
	if (ret)
		return ret;
	fputs("</script>\n<script>\n", out);
	fputs(pa_view_asset_view_js, out);
	fputs("</script>\n</body></html>\n", out);
	return 0;
}
