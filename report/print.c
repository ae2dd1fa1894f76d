/* print.c - perf report --stdio's layout of the rows (rows.c). */
#include "rows.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- formatting --------------------------------------------------------- */

/* Cells without printf's per-call setup: a large profile prints tens of
 * thousands of rows. Each returns what snprintf would, and falls back to
 * it when the text does not fit. */

/* perf's " %*.2f%%" of x in a cell of width (one space even when the number
 * is wider than width - 2). printf rounds the exact binary value;
 * away from a tie (checked with room for x * 100's own rounding) rounding
 * the product gives the same digits. */
static int put_pct(char *buf, size_t size, int width, double x)
{
	double y = x * 100.0;
	if (x >= 0 && y < 1e7) {
		uint64_t iy = (uint64_t)y;
		double frac = y - (double)iy;
		if (frac < 0.4999999 || frac > 0.5000001) {
			uint64_t v = iy + (frac > 0.5);
			char d[16];
			int n = (int)sizeof(d);
			d[--n] = (char)('0' + v % 10);
			d[--n] = (char)('0' + v / 10 % 10);
			d[--n] = '.';
			uint64_t ip = v / 100;
			do
				d[--n] = (char)('0' + ip % 10);
			while ((ip /= 10) && n > 0);
			/* perf's " %*.2f%%" in width - 2: one space even when
			 * the number is wider */
			int len = (int)sizeof(d) - n,
			    pad = 1 + (width - 2 > len ? width - 2 - len : 0);
			if ((size_t)(pad + len + 2) <= size) {
				memset(buf, ' ', (size_t)pad);
				memcpy(buf + pad, d + n, (size_t)len);
				buf[pad + len] = '%';
				buf[pad + len + 1] = 0;
				return pad + len + 1;
			}
		}
	}
	return snprintf(buf, size, " %*.2f%%", width - 2, x);
}

static int format_cell(char *buf, size_t size, int k, const struct row *w, int width, double total,
                       bool last)
{
	switch (k) {
	case K_OVERHEAD:
		return put_pct(buf, size, width,
		               total > 0 ? 100.0 * (double)w->period / total : 0.0);
	case K_SAMPLE:
		return snprintf(buf, size, "%*" PRIu64, width, w->count);
	case K_PERIOD:
		return snprintf(buf, size, "%*" PRIu64, width, w->period);
	default:
		return pa_keys[k].format ? pa_keys[k].format(buf, size, &w->k, width, last) : 0;
	}
	return 0;
}

static size_t natural_width(int k, const struct row *w)
{
	return pa_keys[k].natural_width ? pa_keys[k].natural_width(&w->k) : 0;
}

/* With --children (self), perf calls the overhead column "Self" (not
 * when --fields names the columns). */
static const char *col_header(int k, bool self)
{
	return k == K_OVERHEAD && self ? "Self" : pa_keys[k].header;
}

static int base_width(int k)
{
	return pa_key_header_width(k);
}

static bool right_aligned(int k)
{
	return pa_keys[k].right;
}

static bool key_is_sort(int k)
{
	return pa_keys[k].is_sort;
}

static char **filter_for(const struct pa_report *r, int k, size_t *n)
{
	switch (k) {
	case K_DSO:
		*n = r->filter.nr_dsos;
		return r->filter.dsos;
	case K_COMM:
		*n = r->filter.nr_comms;
		return r->filter.comms;
	case K_SYM:
		*n = r->filter.nr_syms;
		return r->filter.syms;
	default:
		*n = 0;
		return NULL;
	}
}

/* perf hides a sort column whose filter names one value, unless that
 * would hide every sort column. */
static void compute_elide(const struct pa_report *r, bool *elide)
{
	unsigned shown = 0, sort_cols = 0;
	for (unsigned c = 0; c < r->nr_cols; c++) {
		size_t n;
		filter_for(r, r->cols[c], &n);
		elide[c] = n == 1;
		if (key_is_sort(r->cols[c])) {
			sort_cols++;
			shown += !elide[c];
		}
	}
	if (sort_cols && !shown)
		for (unsigned c = 0; c < r->nr_cols; c++)
			elide[c] = false;
}

/* Which sort keys perf's output sort (hist_entry__sort) skips: those
 * whose column is elided (a filter with one value, e.g. --comms head). */
void pa_report_elided_keys(const struct pa_report *r, bool *elided)
{
	bool elide[16];
	compute_elide(r, elide);
	for (unsigned i = 0; i < r->nr_keys; i++) {
		elided[i] = false;
		for (unsigned c = 0; c < r->nr_cols; c++)
			if (r->cols[c] == r->keys[i])
				elided[i] = elide[c];
	}
}

static unsigned long convert_unit(unsigned long v, char *unit)
{
	*unit = ' ';
	if (v > 1000) {
		v /= 1000;
		*unit = 'K';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'M';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'G';
	}
	return v;
}

struct group {
	unsigned first, nr;
	const char *name; /* NULL for an anonymous group */
};

/* Overhead/Samples/Period cells of a group: one value per member. (A
 * Children column without --children: perf's "N/A" in the first
 * member's place.) */
static size_t format_values(char *buf, size_t size, int k, const struct row *w, unsigned nr,
                            const uint64_t *totals, int width, bool children)
{
	size_t n = 0;
	int each = nr > 1 ? width / (int)nr : width;
	if (k == K_CHILDREN && !children)
		return (size_t)snprintf(buf, size, " %*s%*s", each - 1, "N/A", width - each, "");
	for (unsigned m = 0; m < nr && n < size; m++) {
		uint64_t period = w->vals[2 * m], count = w->vals[2 * m + 1];
		double t = (double)totals[m];
		if (k == K_CHILDREN)
			period = w->accs ? w->accs[m] : m ? 0 : w->acc_period;
		if (k == K_OVERHEAD || k == K_CHILDREN)
			n += (size_t)put_pct(buf + n, size - n, each,
			                     t > 0 ? 100.0 * (double)period / t : 0.0);
		else
			n += (size_t)snprintf(buf + n, size - n, "%*" PRIu64, each,
			                      k == K_SAMPLE ? count : period);
	}
	return n;
}

/* (one name per call site: each has its own buffer) */
#define evsel_name(ev) ((ev) ? pa_evsel_name((ev), (char[128]){0}, 128) : "unknown")

/* With --percentage relative, perf counts only its non-filtered samples
 * and period (nf, from member_nf_totals). */
static void print_section_header(struct pa_report *r, FILE *out, const struct group *g,
                                 const uint64_t *nf)
{
	struct pa_file *f = pa_session_file(r->session);
	uint64_t samples = 0, period = 0;
	for (unsigned m = 0; m < g->nr; m++) {
		samples += r->opts.relative ? nf[2 * m + 1] : r->total_samples[g->first + m];
		period += r->opts.relative ? nf[2 * m] : r->total_period[g->first + m];
	}
	char unit;
	unsigned long ns = convert_unit((unsigned long)samples, &unit);
	if (g->nr == 1) {
		fprintf(out, "# Samples: %lu%c of event '%s'", ns, unit,
		        evsel_name(pa_file_evsel(f, g->first)));
	} else {
		fprintf(out, "# Samples: %lu%c of events '%s { %s", ns, unit,
		        g->name ? g->name : "anon group", evsel_name(pa_file_evsel(f, g->first)));
		for (unsigned m = 1; m < g->nr; m++)
			fprintf(out, ", %s", evsel_name(pa_file_evsel(f, g->first + m)));
		fprintf(out, " }'");
	}
	if (r->opts.time) /* (perf's, for any --time) */
		fprintf(out, " (time slices: %s)", r->opts.time);
	fputc('\n', out);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", period);
}

/* perf writes each header cell through a 1024-byte buffer: a column wider
 * than that has its name padded to 1023 characters only (the dots below
 * go the whole width). */
#define HEADER_CELL_MAX 1023

static void print_column_header(struct pa_report *r, FILE *out, const int *width, const bool *elide)
{
	bool self = r->cgs && r->cg.children && !pa_report_strict_fields(r);
	const char *sep = " ";
	fputc('#', out);
	for (unsigned c = 0; c < r->nr_cols; c++) {
		if (elide[c])
			continue;
		int w = width[c] < HEADER_CELL_MAX ? width[c] : HEADER_CELL_MAX;
		fprintf(out, right_aligned(r->cols[c]) ? "%s%*.*s" : "%s%-*.*s", sep, w, w,
		        col_header(r->cols[c], self));
		sep = "  ";
	}
	fputs("\n#", out);
	sep = " ";
	for (unsigned c = 0; c < r->nr_cols; c++) {
		if (elide[c])
			continue;
		fputs(sep, out);
		for (int i = 0; i < width[c]; i++)
			fputc('.', out);
		sep = "  ";
	}
	fputs("\n#\n", out);
}

/* perf computes an entry's srcline lazily, when a comparison reaches that
 * key: only for samples that tie with another on every earlier key. The
 * others get it at print time, cut to the column width the first ones set. */
static int prefix_cmp(const void *pa, const void *pb, void *ctx)
{
	return pa_rows_collapse_cmp(*(const struct row *const *)pa, *(const struct row *const *)pb,
	                            ctx);
}

static int mark_late_srclines(struct pa_report *r, struct row *rows, size_t nr, unsigned nr_members)
{
	unsigned p = 0;
	while (p < r->nr_keys && r->keys[p] != K_SRCLINE)
		p++;
	if (p == r->nr_keys || !nr)
		return 0;
	struct row **v = malloc(nr * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		v[i] = &rows[i];
	/* the keys before the srcline */
	struct rows_ctx ctx = {r->keys, p, 1};
	qsort_r(v, nr, sizeof(*v), prefix_cmp, &ctx);
	for (size_t i = 0; i < nr;) {
		size_t j = i + 1;
		while (j < nr && prefix_cmp(&v[i], &v[j], &ctx) == 0)
			j++;
		/* a second sample with the same earlier keys is a comparison */
		uint64_t samples = 0;
		for (size_t k = i; k < j; k++)
			if (v[k]->e && r->cg.children) /* (every sample it got) */
				samples += v[k]->e->acc_count;
			else
				for (unsigned m = 0; m < nr_members; m++)
					samples += v[k]->vals ? v[k]->vals[2 * m + 1] : v[k]->count;
		/* (with --children, perf compares a sample's own entry with the
		 * first entry of its call chain, the same address: a row with
		 * samples of its own has its srcline then; and the output
		 * sort reaches the srcline of rows tied before it, src_sized) */
		for (size_t k = i; k < j; k++)
			v[k]->k.src_late =
			    samples < 2 && !v[k]->k.src_sized &&
			    !(v[k]->e && r->cg.children && (v[k]->e->count || v[k]->e->src_given));
		i = j;
	}
	free(v);
	return 0;
}

static int index_printed_refs(struct pa_report *r, const struct row *rows, size_t nr)
{
	const struct cg_entry **es = malloc((nr + 1) * sizeof(*es));
	if (!es)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		es[i] = rows[i].e;
	int ret = pa_cg_index_refs(r, es, nr);
	free(es);
	return ret;
}

/* Whether a row prints (--percent-limit), and its value (*v). */
static bool row_shown(const struct pa_report *r, const struct row *row, uint64_t total, uint64_t *v)
{
	*v = r->cgs && r->cg.children ? row->acc_period : row->period;
	double pct = total ? 100.0 * (double)*v / (double)total : 0;
	return !(r->opts.percent_limit > 0 && pct < r->opts.percent_limit);
}

/* The rows that print a graph, in row order, for graphs.c (*jobs, *n);
 * 0 or -ENOMEM. */
static int graph_jobs(struct pa_report *r, const struct row *rows, size_t nr, uint64_t total,
                      struct pa_graph_job **jobs, size_t *n)
{
	*n = 0;
	if (!(*jobs = malloc((nr + 1) * sizeof(**jobs))))
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		uint64_t v;
		if (row_shown(r, &rows[i], total, &v) && rows[i].e &&
		    pa_cg_graph_prints(r, rows[i].e))
			(*jobs)[(*n)++] = (struct pa_graph_job){rows[i].e, v, i};
	}
	return 0;
}

/* Each column's width over the rows: the widest cell, and perf's widths
 * for unresolved entries. */
static void column_widths(const struct pa_report *r, const struct group *g, const struct row *rows,
                          size_t nr, int *width)
{
	bool any_unresolved = false, unres_from = false;
	for (unsigned c = 0; c < r->nr_cols; c++) {
		width[c] = base_width(r->cols[c]) * (right_aligned(r->cols[c]) ? (int)g->nr : 1);
		for (size_t i = 0; i < nr; i++) {
			int w = (int)natural_width(r->cols[c], &rows[i]);
			if (w > width[c])
				width[c] = w;
			/* perf: any entry without a symbol, sym a key or not */
			any_unresolved |= !rows[i].k.sym;
			unres_from |= rows[i].k.branch && !rows[i].k.sym_from;
		}
	}
	for (unsigned c = 0; c < r->nr_cols; c++) {
		int k = r->cols[c];
		/* the same for a branch's source and target, whose address
		 * columns widen to an unresolved one's "[l] 0x..." only */
		bool unres = k == K_DSO_FROM || k == K_ADDR_FROM ? unres_from : any_unresolved;
		if ((k == K_DSO || k == K_DSO_FROM || k == K_DSO_TO) && unres &&
		    !r->filter.nr_dsos && width[c] < PA_UNRESOLVED_WIDTH)
			width[c] = PA_UNRESOLVED_WIDTH;
		if ((k == K_ADDR_FROM || k == K_ADDR_TO) && unres &&
		    width[c] < PA_UNRESOLVED_WIDTH + 6)
			width[c] = PA_UNRESOLVED_WIDTH + 6;
	}
}

/* One row's line (last: the last column shown). */
static void print_row(struct pa_report *r, FILE *out, const struct group *g, struct row *w,
                      const uint64_t *totals, const int *width, const bool *elide, unsigned last)
{
	char line[4096];
	size_t n = 1;
	line[0] = ' ';
	if (r->branch)
		pa_branch_shown_mispredict(r, &w->k);
	for (unsigned c = 0; c < r->nr_cols && n + 3 < sizeof(line); c++) {
		if (elide[c])
			continue;
		line[n++] = ' ';
		if (c)
			line[n++] = ' ';
		if (right_aligned(r->cols[c]))
			n += format_values(line + n, sizeof(line) - n, r->cols[c], w, g->nr, totals,
			                   width[c], r->opts.children);
		else
			n += (size_t)format_cell(line + n, sizeof(line) - n, r->cols[c], w,
			                         width[c], 0, c == last);
	}
	line[n < sizeof(line) ? n : sizeof(line) - 1] = 0;
	fputs(line, out);
	fputc('\n', out);
}

static int print_group(struct pa_report *r, FILE *out, const struct group *g, const bool *elide)
{
	size_t nr, nr_all, nr_jobs = 0, nr_graphs = 0;
	uint64_t *vals = NULL, nf[2 * 64], totals[64];
	struct pa_graphs *graphs = NULL;
	struct pa_graph_job *jobs = NULL;
	int width[16], ret = -ENOMEM;
	struct row *rows = r->cgs ? pa_rows_build_cg(r, g->first, g->nr, &nr, &vals, nf)
	                          : pa_rows_build(r, g->first, g->nr, &nr, &nr_all, &vals, nf);
	if (!rows || mark_late_srclines(r, rows, nr, g->nr))
		goto out;
	for (unsigned m = 0; m < g->nr; m++)
		totals[m] = r->opts.relative ? nf[2 * m] : r->total_period[g->first + m];
	column_widths(r, g, rows, nr, width);
	if (!r->opts.quiet) {
		print_section_header(r, out, g, nf);
		print_column_header(r, out, width, elide);
	}
	unsigned last = 0;
	for (unsigned c = 0; c < r->nr_cols; c++)
		if (!elide[c])
			last = c;
	if (r->cgs && (index_printed_refs(r, rows, nr) ||
	               graph_jobs(r, rows, nr, totals[0], &jobs, &nr_jobs) ||
	               !(graphs = pa_graphs_start(r, jobs, nr_jobs, r->total_period[g->first]))))
		goto out;
	ret = 0;
	for (size_t i = 0; i < nr && !ret; i++) {
		uint64_t v;
		if (!row_shown(r, &rows[i], totals[0], &v))
			continue;
		print_row(r, out, g, &rows[i], totals, width, elide, last);
		if (nr_graphs < nr_jobs && jobs[nr_graphs].row == i) {
			char *buf;
			size_t len;
			ret = pa_graphs_take(graphs, nr_graphs++, &buf, &len);
			if (!ret && len)
				fwrite(buf, 1, len, out);
			free(buf);
		}
	}
	pa_graphs_stop(graphs);
	if (!ret)
		fprintf(out, "\n\n");
out:
	free(jobs);
	free(vals);
	free(rows);
	return ret;
}

/* Events are shown by group (GROUP_DESC), as perf's report does. */
static size_t make_groups(struct pa_report *r, struct group *gs, size_t max)
{
	struct pa_file *f = pa_session_file(r->session);
	const struct pa_header_info *h = pa_file_header(f);
	unsigned nev = pa_file_nr_evsels(f);
	size_t n = 0;
	for (unsigned e = 0; e < nev && n < max;) {
		struct group g = {e, 1, NULL};
		for (uint32_t i = 0; i < h->nr_groups; i++) {
			const struct pa_group_desc *d = &h->groups[i];
			if (d->leader_idx == e && d->nr_members > 1 && e + d->nr_members <= nev &&
			    d->nr_members <= 64) {
				g.nr = d->nr_members;
				g.name =
				    d->name && strcmp(d->name, "{anon_group}") ? d->name : NULL;
			}
		}
		gs[n++] = g;
		e += g.nr;
	}
	return n;
}

bool pa_report_no_samples(const struct pa_report *r)
{
	for (unsigned e = 0; e < r->nr_evsels; e++)
		if (r->total_samples[e])
			return false;
	return true;
}

int pa_report_print(struct pa_report *r, FILE *out, struct pa_err *err)
{
	bool elide[16];
	int ret = r->chains ? pa_cg_build(r) : 0;
	if (ret && r->limit_hit) /* (callers pass it up as -ENOMEM) */
		return pa_report_limit_error(r, err);
	if (ret)
		return pa_err_set(err, -ENOMEM, "out of memory");
	compute_elide(r, elide);
	if (!r->opts.quiet)
		fprintf(out, "# To display the perf.data header info, please use "
		             "--header/--header-only options.\n#\n");
	/* (perf stops when it has no hist entry: nothing else, not even -T) */
	if (pa_report_no_samples(r))
		return 0;
	/* what an elided column would have said; perf prints it even with -q */
	for (unsigned c = 0; c < r->nr_cols; c++) {
		size_t n;
		char **f = filter_for(r, r->cols[c], &n);
		if (n == 1)
			fprintf(out, "# %s: %s\n",
			        r->cols[c] == K_SYM   ? "symbol"
			        : r->cols[c] == K_DSO ? "dso"
			                              : "comm",
			        f[0]);
	}
	if (!r->opts.quiet)
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n",
		        pa_session_nr_lost_samples(r->session));
	struct group gs[256];
	size_t ng = make_groups(r, gs, PA_ARRAY_SIZE(gs));
	for (size_t i = 0; i < ng; i++) {
		uint64_t samples = 0;
		for (unsigned m = 0; m < gs[i].nr; m++)
			samples +=
			    gs[i].first + m < r->nr_evsels ? r->total_samples[gs[i].first + m] : 0;
		if (!samples && ng > 1)
			continue;
		if (print_group(r, out, &gs[i], elide))
			return r->limit_hit ? pa_report_limit_error(r, err)
			                    : pa_err_set(err, -ENOMEM, "out of memory");
	}
	/* perf frames a random tip here; the frame without the tip */
	if (!r->opts.quiet)
		fprintf(out, "#\n#\n");
	if (r->opts.show_threads && pa_readvals_print(r, out))
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (r->branch)
		pa_branch_print_stats(r, out);
	return 0;
}
