/* diff.c - perf diff: the rows of two or more recordings' reports matched
 * by their keys' names, the baseline's shares and each other recording's
 * change, in perf 6.1's stdio layout.
 *
 * perf diff reads each file into its own hists, collapses them with the
 * symbol key compared by name (sort.c's diff mode: two recordings, two
 * binaries), pairs each baseline entry with the equal entry of every other
 * file (hists__match), adds the other files' unpaired entries to the
 * baseline as "dummies" of no period (hists__link), computes the change
 * of each pair, sorts and prints the baseline's entries. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One printed entry: a baseline entry or a dummy. */
struct dent {
	struct hkey k;
	uint64_t base; /* the baseline's period (0 for a dummy) */
	bool dummy;
	bool hidden;   /* filtered: paired and counted, not printed */
	bool paired;   /* has a pair in some other file */
	uint32_t slot; /* its pairs: ctx.pairs[slot * n + file] */
};

struct dpair {
	bool has;
	uint64_t period;
	double value; /* delta (percentage points) or ratio */
	int64_t wdiff;
};

struct dctx {
	struct pa_report *const *r;
	unsigned n;
	const struct pa_diff_opts *o;
	const int *keys;
	unsigned nr_keys;
	bool elided[8];
	struct dent *e;
	size_t ne, cap_e;
	struct dpair *pairs;
	size_t cap_pairs;
	uint64_t *tot;   /* each file's total (the baseline's after -b) */
	double base_pre; /* the baseline's total when changes are computed */
};

static int diff_key_cmp(const struct dctx *c, const struct hkey *a, const struct hkey *b)
{
	for (unsigned i = 0; i < c->nr_keys; i++) {
		int d = pa_keys[c->keys[i]].diff(a, b);
		if (d)
			return d;
	}
	return 0;
}

/* perf's entries_in order (se_cmp): the entry that collapses others into
 * itself is the first of them there (an unresolved address: the lowest). */
static int perf_in_order(const struct dctx *c, const struct hkey *a, const struct hkey *b)
{
	for (unsigned i = 0; i < c->nr_keys; i++) {
		int d = pa_keys[c->keys[i]].cmp(a, b);
		if (d)
			return d > 0 ? -1 : 1;
	}
	return 0;
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct pa_flat_row *a = pa, *b = pb;
	int d = diff_key_cmp(arg, &a->k, &b->k);
	return d ? d : perf_in_order(arg, &a->k, &b->k);
}

/* An event's rows of one report, collapsed as perf diff collapses them
 * (sorted by the diff comparators, equal rows summed into the first). */
static int collapsed_rows(struct dctx *c, struct pa_report *r, unsigned evsel,
                          struct pa_flat_row **out, size_t *n, uint64_t *nf)
{
	struct pa_flat_row *rows = NULL;
	size_t m = 0, w = 0;
	int ret = pa_report_flat_rows(r, evsel, &rows, &m, nf);
	if (ret)
		return ret;
	qsort_r(rows, m, sizeof(*rows), row_cmp, c);
	for (size_t i = 0; i < m; i++) {
		if (w && !diff_key_cmp(c, &rows[w - 1].k, &rows[i].k)) {
			rows[w - 1].period += rows[i].period;
			rows[w - 1].count += rows[i].count;
			continue;
		}
		rows[w++] = rows[i];
	}
	*out = rows;
	*n = w;
	return 0;
}

static struct dpair *pair_of(const struct dctx *c, const struct dent *e, unsigned file)
{
	return &c->pairs[(size_t)e->slot * c->n + file];
}

static int add_entry(struct dctx *c, const struct pa_flat_row *row, bool dummy)
{
	if (PA_GROW(c->e, c->cap_e, c->ne + 1, 64) ||
	    PA_GROW(c->pairs, c->cap_pairs, (c->ne + 1) * c->n, 64 * c->n))
		return -ENOMEM;
	memset(&c->pairs[c->ne * c->n], 0, c->n * sizeof(*c->pairs));
	c->e[c->ne] = (struct dent){.k = row->k,
	                            .base = dummy ? 0 : row->period,
	                            .dummy = dummy,
	                            .hidden = row->hidden,
	                            .slot = (uint32_t)c->ne};
	c->ne++;
	return 0;
}

static int dent_key_cmp(const void *pa, const void *pb, void *arg)
{
	const struct dent *a = pa, *b = pb;
	return diff_key_cmp(arg, &a->k, &b->k);
}

/* The entry of e[0, n) (sorted by key) equal to key, or NULL. */
static struct dent *find_entry(struct dctx *c, const struct hkey *key, size_t n)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = diff_key_cmp(c, &c->e[mid].k, key);
		if (!d)
			return &c->e[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The evsel of file f that perf pairs with the baseline's (evsel__match2:
 * same type and config), or -1. */
static int match_evsel(struct pa_report *base, unsigned evsel, struct pa_report *r)
{
	const struct pa_evsel *b = pa_file_evsel(pa_session_file(base->session), evsel);
	struct pa_file *f = pa_session_file(r->session);
	for (unsigned i = 0; b && i < pa_file_nr_evsels(f); i++) {
		const struct pa_evsel *e = pa_file_evsel(f, i);
		if (e->attr.type == b->attr.type && e->attr.config == b->attr.config)
			return (int)i;
	}
	return -1;
}

static uint64_t file_total(const struct pa_report *r, unsigned evsel, uint64_t nf)
{
	if (r->opts.relative)
		return nf;
	return evsel < r->nr_evsels ? r->total_period[evsel] : 0;
}

/* hists__match and hists__link of file i: its rows pair with the entries
 * (kept sorted by key), the others become dummies. */
static int match_file(struct dctx *c, unsigned i, unsigned evsel)
{
	int ev = match_evsel(c->r[0], evsel, c->r[i]);
	if (ev < 0)
		return 0;
	struct pa_flat_row *rows = NULL;
	size_t m = 0, ne = c->ne;
	uint64_t nf = 0;
	int ret = collapsed_rows(c, c->r[i], (unsigned)ev, &rows, &m, &nf);
	if (ret)
		return ret;
	c->tot[i] = file_total(c->r[i], (unsigned)ev, nf);
	for (size_t k = 0; k < m; k++) {
		struct dent *e = find_entry(c, &rows[k].k, ne);
		if (e) {
			struct dpair *p = pair_of(c, e, i);
			p->has = true;
			p->period = rows[k].period;
			e->paired = true;
		} else if (!c->o->baseline_only) {
			if ((ret = add_entry(c, &rows[k], true)))
				goto out;
			struct dent *d = &c->e[c->ne - 1];
			struct dpair *p = pair_of(c, d, i);
			p->has = true;
			p->period = rows[k].period;
			d->paired = true;
		}
	}
	qsort_r(c->e, c->ne, sizeof(*c->e), dent_key_cmp, c);
out:
	free(rows);
	return ret;
}

/* hists__precompute: each pair's change, against the totals the files had
 * before the output (the baseline's is recounted after -b). */
static void precompute(struct dctx *c)
{
	for (size_t j = 0; j < c->ne; j++) {
		struct dent *e = &c->e[j];
		for (unsigned i = 1; i < c->n; i++) {
			struct dpair *p = pair_of(c, e, i);
			if (!p->has)
				continue;
			switch (c->o->compute) {
			case PA_DIFF_DELTA:
			case PA_DIFF_DELTA_ABS:
				p->value = (double)p->period * 100.0 / (double)c->tot[i] -
				           (double)e->base * 100.0 / c->base_pre;
				break;
			case PA_DIFF_RATIO:
				p->value = (double)p->period / (double)(e->base ? e->base : 1);
				break;
			case PA_DIFF_WDIFF:
				p->wdiff = (int64_t)(p->period * (uint64_t)c->o->w2 -
				                     e->base * (uint64_t)c->o->w1);
				break;
			}
		}
	}
}

/* perf's cmp_doubles and its wdiff comparison: > 0 when a sorts first */
static int value_first(const struct dctx *c, const struct dpair *a, const struct dpair *b)
{
	switch (c->o->compute) {
	case PA_DIFF_DELTA_ABS:
		return PA_CMP(fabs(a->value), fabs(b->value));
	case PA_DIFF_WDIFF:
		return PA_CMP(a->wdiff, b->wdiff);
	default:
		return PA_CMP(a->value, b->value);
	}
}

/* hist_entry__cmp_compute(_idx) for file i: entries with a pair there
 * first; with -o (idx), also those that are no dummy where the change
 * needs a baseline; then by the change. > 0: a first. */
static int compute_first(const struct dctx *c, const struct dent *a, const struct dent *b,
                         unsigned i, bool idx)
{
	if (!idx && (a->paired != b->paired || !a->paired))
		return a->paired - b->paired;
	const struct dpair *pa = pair_of(c, a, i), *pb = pair_of(c, b, i);
	if (pa->has != pb->has || !pa->has)
		return pa->has - pb->has;
	bool needs_base = c->o->compute != PA_DIFF_DELTA && c->o->compute != PA_DIFF_DELTA_ABS;
	if (idx && needs_base && a->dummy != b->dummy)
		return b->dummy - a->dummy;
	if (idx && needs_base && a->dummy)
		return 0;
	return value_first(c, pa, pb);
}

/* perf's output sort list for diff: the -o file's change, the baseline's
 * period, each file's change, then the (shown) sort keys' se_sort. */
static int output_cmp(const void *pa, const void *pb, void *arg)
{
	const struct dctx *c = arg;
	const struct dent *a = pa, *b = pb;
	int d = c->o->order ? compute_first(c, a, b, c->o->order, true) : 0;
	if (!d)
		d = PA_CMP(a->base, b->base);
	for (unsigned i = 1; i < c->n && !d; i++)
		d = compute_first(c, a, b, i, false);
	for (unsigned i = 0; i < c->nr_keys && !d; i++)
		if (!c->elided[i] && pa_keys[c->keys[i]].sort)
			d = pa_keys[c->keys[i]].sort(&a->k, &b->k);
	if (d)
		return -d;
	return PA_CMP(a->slot, b->slot);
}

/* ---- columns ---- */

enum dcol { DC_BASELINE, DC_BASE_PERIOD, DC_COMPUTE, DC_FORMULA, DC_PERIOD };

struct column {
	enum dcol kind;
	unsigned file;
	int width;
	char header[64];
};

static const char *compute_header(enum pa_diff_compute c)
{
	static const char *const h[] = {[PA_DIFF_DELTA] = "Delta",
	                                [PA_DIFF_DELTA_ABS] = "Delta Abs",
	                                [PA_DIFF_RATIO] = "Ratio",
	                                [PA_DIFF_WDIFF] = "Weighted diff"};
	return h[c];
}

static void add_column(struct column *cols, unsigned *nc, enum dcol kind, unsigned file,
                       const char *name, int width, unsigned nfiles)
{
	struct column *col = &cols[(*nc)++];
	col->kind = kind;
	col->file = file;
	if (nfiles > 2)
		snprintf(col->header, sizeof(col->header), "%s/%u", name, file);
	else
		snprintf(col->header, sizeof(col->header), "%s", name);
	int len = (int)strlen(col->header);
	col->width = width > len ? width : len;
}

/* ui_init: the baseline's column (and -p's), each other file's change
 * (and -F's formula, -p's period). */
static unsigned diff_columns(const struct dctx *c, struct column *cols)
{
	unsigned nc = 0;
	for (unsigned i = 0; i < c->n; i++) {
		if (!i)
			add_column(cols, &nc, DC_BASELINE, i, "Baseline", 0, c->n);
		else
			add_column(cols, &nc, DC_COMPUTE, i, compute_header(c->o->compute),
			           c->o->compute == PA_DIFF_DELTA ||
			                   c->o->compute == PA_DIFF_DELTA_ABS
			               ? 7
			               : 14,
			           c->n);
		if (c->o->formula && i)
			add_column(cols, &nc, DC_FORMULA, i, "Formula", 70, c->n);
		if (c->o->period)
			add_column(cols, &nc, i ? DC_PERIOD : DC_BASE_PERIOD, i,
			           i ? "Period" : "Base period", 14, c->n);
	}
	return nc;
}

/* The baseline's and the changes' cells, as perf's stdio prints them
 * (its "color" functions: the change in the column's width, a weighted
 * difference in 14 characters whatever the column's). 0 when the cell is
 * entry text to right-align instead (cell_text). */
static int cell_value(const struct dctx *c, const struct column *col, const struct dent *e,
                      char *buf, size_t size)
{
	const struct dpair *p = pair_of(c, e, col->file);
	int w = col->width;
	if (col->kind == DC_BASELINE)
		return e->dummy ? snprintf(buf, size, "%*s", w, " ")
		                : snprintf(buf, size, "%*.2f%%", w - 1,
		                           100.0 * (double)e->base / (double)c->tot[0]);
	if (col->kind != DC_COMPUTE)
		return 0;
	if (!p->has)
		return snprintf(buf, size, "%*s", w, " ");
	switch (c->o->compute) {
	case PA_DIFF_DELTA:
	case PA_DIFF_DELTA_ABS:
		return snprintf(buf, size, "%+*.2f%%", w - 1, p->value);
	case PA_DIFF_RATIO:
		return e->dummy ? snprintf(buf, size, "%*s", w, "N/A")
		                : snprintf(buf, size, "%*.6f", w, p->value);
	case PA_DIFF_WDIFF:
		return e->dummy ? snprintf(buf, size, "%*s", w, "N/A")
		                : snprintf(buf, size, "%14" PRId64, p->wdiff);
	}
	return 0;
}

/* The other cells' text before perf right-aligns it in the column
 * (MAX_COL_WIDTH bytes at most, " " when there is nothing to say). */
static void cell_text(const struct dctx *c, const struct column *col, const struct dent *e,
                      char *buf, size_t size)
{
	const struct dpair *p = col->kind >= DC_COMPUTE ? pair_of(c, e, col->file) : NULL;
	snprintf(buf, size, " ");
	switch (col->kind) {
	case DC_BASE_PERIOD:
		snprintf(buf, size, "%" PRIu64, e->base);
		return;
	default:
		break;
	}
	if (!p->has)
		return;
	switch (col->kind) {
	case DC_PERIOD:
		snprintf(buf, size, "%" PRIu64, p->period);
		break;
	case DC_FORMULA:
		if (c->o->compute == PA_DIFF_RATIO)
			snprintf(buf, size, "%.0F / %.0F", (double)p->period, (double)e->base);
		else if (c->o->compute == PA_DIFF_WDIFF)
			snprintf(buf, size,
			         "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")",
			         p->period, c->o->w2, e->base, c->o->w1);
		else
			snprintf(buf, size,
			         "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64 " * 100 / %" PRIu64
			         ")",
			         p->period, c->tot[col->file], e->base, c->tot[0]);
		break;
	default:
		break;
	}
}

/* pa's --percent-limit (perf diff has none): an entry whose every share
 * is below the limit is left out. */
static bool below_limit(const struct dctx *c, const struct dent *e)
{
	double lim = c->o->percent_limit;
	if (lim <= 0)
		return false;
	if (!e->dummy && c->tot[0] && (double)e->base * 100.0 / (double)c->tot[0] >= lim)
		return false;
	for (unsigned i = 1; i < c->n; i++) {
		const struct dpair *p = pair_of(c, e, i);
		if (p->has && c->tot[i] && (double)p->period * 100.0 / (double)c->tot[i] >= lim)
			return false;
	}
	return true;
}

static void print_headers(const struct dctx *c, FILE *out, const struct column *cols, unsigned nc,
                          const int *kw)
{
	fputc('#', out);
	for (unsigned i = 0; i < nc; i++)
		fprintf(out, "%s%*s", i ? "  " : " ", cols[i].width, cols[i].header);
	for (unsigned i = 0; i < c->nr_keys; i++)
		if (!c->elided[i])
			fprintf(out, "  %-*s", kw[i], pa_keys[c->keys[i]].header);
	fputs("\n#", out);
	for (unsigned i = 0; i < nc + c->nr_keys; i++) {
		int w = i < nc ? cols[i].width : kw[i - nc];
		if (i >= nc && c->elided[i - nc])
			continue;
		fputs(i ? "  " : " ", out);
		for (int j = 0; j < w; j++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
}

static void print_entries(const struct dctx *c, FILE *out, const struct column *cols, unsigned nc,
                          const int *kw)
{
	unsigned last = c->nr_keys;
	while (last > 0 && c->elided[last - 1])
		last--;
	char cell[512];
	for (size_t j = 0; j < c->ne; j++) {
		const struct dent *e = &c->e[j];
		if (e->hidden || below_limit(c, e))
			continue;
		fputs("  ", out);
		for (unsigned i = 0; i < nc; i++) {
			char text[70]; /* perf's MAX_COL_WIDTH */
			fputs(i ? "  " : "", out);
			int len = cell_value(c, &cols[i], e, cell, sizeof(cell));
			if (len > 0) { /* perf pads a narrower cell to the width */
				fprintf(out, "%s%*s", cell,
				        len < cols[i].width ? cols[i].width - len : 0, "");
				continue;
			}
			cell_text(c, &cols[i], e, text, sizeof(text));
			fprintf(out, "%*s", cols[i].width, text);
		}
		for (unsigned i = 0; i < c->nr_keys; i++) {
			if (c->elided[i])
				continue;
			pa_keys[c->keys[i]].format(cell, sizeof(cell), &e->k, kw[i], i + 1 == last);
			fprintf(out, "  %s", cell);
		}
		fputc('\n', out);
	}
}

/* One event of the baseline: its entries paired, computed, sorted, printed. */
static int diff_event(struct dctx *c, unsigned evsel, FILE *out, bool first)
{
	struct pa_flat_row *rows = NULL;
	size_t m = 0;
	uint64_t nf = 0;
	int ret = collapsed_rows(c, c->r[0], evsel, &rows, &m, &nf);
	c->ne = 0;
	for (size_t k = 0; !ret && k < m; k++)
		ret = add_entry(c, &rows[k], false);
	free(rows);
	memset(c->tot, 0, c->n * sizeof(*c->tot));
	c->tot[0] = file_total(c->r[0], evsel, nf);
	for (unsigned i = 1; !ret && i < c->n; i++)
		ret = match_file(c, i, evsel);
	if (ret)
		return ret;
	c->base_pre = (double)c->tot[0];
	if (c->o->baseline_only) { /* hists__baseline_only: unpaired entries go */
		size_t w = 0;
		for (size_t j = 0; j < c->ne; j++)
			if (c->e[j].paired)
				c->e[w++] = c->e[j];
			else if (!c->r[0]->opts.relative)
				c->tot[0] -= c->e[j].base; /* perf recounts its total */
		c->ne = w;
	}
	if (c->r[0]->opts.relative) {
		/* the baseline's output resort recounts its shown total from the
		 * collapsed entries: a row merged into a filtered one is not in it */
		c->tot[0] = 0;
		for (size_t j = 0; j < c->ne; j++)
			if (!c->e[j].hidden)
				c->tot[0] += c->e[j].base;
	}
	precompute(c);
	qsort_r(c->e, c->ne, sizeof(*c->e), output_cmp, c);

	struct column cols[3 * 64];
	unsigned nc = diff_columns(c, cols);
	int kw[8];
	for (unsigned i = 0; i < c->nr_keys; i++) {
		kw[i] = pa_key_header_width(c->keys[i]);
		for (size_t j = 0; j < c->ne; j++) {
			if (c->e[j].hidden)
				continue;
			size_t w = pa_keys[c->keys[i]].natural_width(&c->e[j].k);
			kw[i] = (int)w > kw[i] ? (int)w : kw[i];
		}
	}
	if (!c->o->quiet) {
		char name[128];
		const struct pa_evsel *ev = pa_file_evsel(pa_session_file(c->r[0]->session), evsel);
		fprintf(out, "%s# Event '%s'\n#\n", first ? "" : "\n",
		        ev ? pa_evsel_name(ev, name, sizeof(name)) : "unknown");
	}
	if (c->o->verbose || (c->n > 2 && !c->o->quiet)) {
		fprintf(out, "# Data files:\n");
		for (unsigned i = 0; i < c->n; i++)
			fprintf(out, "#  [%u] %s %s\n", i, c->o->paths[i], i ? "" : "(Baseline)");
		fprintf(out, "#\n");
	}
	if (!c->o->quiet)
		print_headers(c, out, cols, nc, kw);
	print_entries(c, out, cols, nc, kw);
	return 0;
}

int pa_report_diff_print(struct pa_report *const *r, unsigned n, const struct pa_diff_opts *o,
                         FILE *out, struct pa_err *err)
{
	if (n < 2 || n > 64 || o->order >= n)
		return pa_err_set(err, -PA_ERR_USAGE,
		                  n > 64 ? "at most 64 files" : "Order option out of limit.");
	struct dctx c = {.r = r, .n = n, .o = o, .keys = r[0]->keys, .nr_keys = r[0]->nr_keys};
	for (unsigned i = 1; i < n; i++)
		if (r[i]->nr_keys != c.nr_keys ||
		    memcmp(r[i]->keys, c.keys, c.nr_keys * sizeof(int)))
			return pa_err_set(err, -PA_ERR_USAGE, "the reports have other sort keys");
	pa_report_elided_keys(r[0], c.elided);
	c.tot = calloc(n, sizeof(*c.tot));
	int ret = c.tot ? 0 : -ENOMEM;
	struct pa_file *f = pa_session_file(r[0]->session);
	for (unsigned e = 0; !ret && e < pa_file_nr_evsels(f); e++)
		ret = diff_event(&c, e, out, !e);
	free(c.tot);
	free(c.e);
	free(c.pairs);
	return ret ? pa_err_set(err, ret, "out of memory") : 0;
}
