/* print.c - rows from buckets, and perf report --stdio's layout. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum key { K_OVERHEAD, K_SAMPLE, K_PERIOD, K_COMM, K_PID, K_TID, K_DSO, K_SYM, K_CPU };

struct row {
	const char *comm;
	int32_t pid, tid;
	const struct pa_dso *dso;
	const struct pa_sym *sym;
	uint64_t addr;
	char level;
	uint32_t cpu;
	uint64_t period, count;
};

struct rows_ctx {
	const int *keys;
	unsigned nr_keys;
};

static int cmp_str(const char *a, const char *b)
{
	int c = strcmp(a, b);
	return (c > 0) - (c < 0);
}

static const char *dso_name(const struct pa_dso *d)
{
	return d ? d->short_name : "[unknown]";
}

/* perf's collapse comparators: what makes two samples one row. */
static int collapse_key(int k, const struct row *a, const struct row *b)
{
	switch (k) {
	case K_COMM:
		return cmp_str(a->comm, b->comm);
	case K_PID:
	case K_TID:
		return PA_CMP(a->tid, b->tid);
	case K_DSO:
		if (a->dso == b->dso)
			return 0;
		return cmp_str(dso_name(a->dso), dso_name(b->dso));
	case K_SYM:
		if (!a->sym && !b->sym) {
			int c = PA_CMP(a->level, b->level);
			return c ? c : PA_CMP(a->addr, b->addr);
		}
		if (!a->sym || !b->sym)
			return a->sym ? 1 : -1;
		if (a->dso != b->dso) {
			int c = cmp_str(dso_name(a->dso), dso_name(b->dso));
			if (c)
				return c;
		}
		return PA_CMP(a->sym->start, b->sym->start);
	case K_CPU:
		return PA_CMP(a->cpu, b->cpu);
	default:
		return 0;
	}
}

static _Thread_local const struct rows_ctx *sort_ctx;

static int collapse_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	for (unsigned i = 0; i < sort_ctx->nr_keys; i++) {
		int c = collapse_key(sort_ctx->keys[i], a, b);
		if (c)
			return c;
	}
	return 0;
}

/* perf's output order: overhead first, then each key's sort function
 * (names ascending, resolved symbols before raw addresses), then the
 * order rows had after collapsing. */
static int output_key(int k, const struct row *a, const struct row *b)
{
	switch (k) {
	case K_SYM:
		if (!a->sym || !b->sym)
			return a->sym ? -1 : (b->sym ? 1 : 0);
		return cmp_str(a->sym->name, b->sym->name);
	default:
		return collapse_key(k, a, b);
	}
}

static int output_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	for (unsigned i = 0; i < sort_ctx->nr_keys; i++) {
		int c = output_key(sort_ctx->keys[i], a, b);
		if (c)
			return c;
	}
	return collapse_cmp(pa, pb);
}

static bool sym_passes(const struct pa_report *r, const struct row *w)
{
	if (!r->nr_sym_filter)
		return true;
	for (size_t i = 0; i < r->nr_sym_filter; i++)
		if (w->sym && !strcmp(w->sym->name, r->sym_filter[i]))
			return true;
	return false;
}

/* Rows of one event: buckets -> collapsed rows in output order. */
static struct row *build_rows(struct pa_report *r, unsigned evsel, size_t *nr)
{
	struct row *rows = malloc((r->nr_buckets + 1) * sizeof(*rows));
	if (!rows)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->nr_buckets; i++) {
		const struct bucket *b = &r->buckets[i];
		if (b->evsel != evsel)
			continue;
		const struct loc *l = &r->locs[b->loc];
		struct row w = {.comm = b->comm,
				.pid = pa_thread_pid(b->thread),
				.tid = pa_thread_tid(b->thread),
				.dso = l->dso,
				.sym = l->sym,
				.addr = l->addr,
				.level = l->level,
				.cpu = b->cpu,
				.period = b->period,
				.count = b->count};
		if (sym_passes(r, &w))
			rows[n++] = w;
	}
	struct rows_ctx ctx = {r->keys, r->nr_keys};
	sort_ctx = &ctx;
	qsort(rows, n, sizeof(*rows), collapse_cmp);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && collapse_cmp(&rows[m - 1], &rows[i]) == 0) {
			rows[m - 1].period += rows[i].period;
			rows[m - 1].count += rows[i].count;
		} else {
			rows[m++] = rows[i];
		}
	}
	qsort(rows, m, sizeof(*rows), output_cmp);
	sort_ctx = NULL;
	*nr = m;
	return rows;
}

/* ---- formatting --------------------------------------------------------- */

#define UNRESOLVED_WIDTH 16 /* the recording host's BITS_PER_LONG / 4 */

static int format_cell(char *buf, size_t size, int k, const struct row *w, int width,
		       double total)
{
	switch (k) {
	case K_OVERHEAD:
		return snprintf(buf, size, "%*.2f%%", width - 1,
				total > 0 ? 100.0 * (double)w->period / total : 0.0);
	case K_SAMPLE:
		return snprintf(buf, size, "%*" PRIu64, width, w->count);
	case K_PERIOD:
		return snprintf(buf, size, "%*" PRIu64, width, w->period);
	case K_COMM:
		return snprintf(buf, size, "%-*s", width, w->comm);
	case K_PID:
	case K_TID:
		return snprintf(buf, size, "%7d:%-*.*s", k == K_PID ? w->tid : w->tid,
				width > 8 ? width - 8 : 0, width > 8 ? width - 8 : 0, w->comm);
	case K_DSO:
		return snprintf(buf, size, "%-*s", width, dso_name(w->dso));
	case K_SYM:
		if (w->sym)
			return snprintf(buf, size, "[%c] %-*s", w->level, width > 4 ? width - 4 : 0,
					w->sym->name);
		return snprintf(buf, size, "[%c] %-#*.*" PRIx64, w->level, width > 4 ? width - 4 : 0,
				UNRESOLVED_WIDTH, w->addr);
	case K_CPU:
		return snprintf(buf, size, "%*.*d", width, 3, (int)w->cpu);
	}
	return 0;
}

static size_t natural_width(int k, const struct row *w)
{
	char buf[512];
	switch (k) {
	case K_COMM:
		return strlen(w->comm);
	case K_PID:
	case K_TID:
		return strlen(w->comm) + 8;
	case K_DSO:
		return w->dso ? strlen(w->dso->short_name) : 0;
	case K_SYM:
		return w->sym ? strlen(w->sym->name) + 4 : UNRESOLVED_WIDTH + 6;
	case K_CPU:
		return (size_t)snprintf(buf, sizeof(buf), "%.*d", 3, (int)w->cpu);
	default:
		return 0;
	}
}

static const char *col_header(int k)
{
	static const char *const h[] = {"Overhead", "Samples", "Period", "Command", "Pid:Command",
					"Tid:Command", "Shared Object", "Symbol", "CPU"};
	return h[k];
}

static int base_width(int k)
{
	return k == K_SAMPLE || k == K_PERIOD ? 12 : (int)strlen(col_header(k));
}

static bool right_aligned(int k)
{
	return k == K_OVERHEAD || k == K_SAMPLE || k == K_PERIOD;
}

static bool key_is_sort(int k)
{
	return k >= K_COMM;
}

static char **filter_for(const struct pa_report *r, int k, size_t *n)
{
	switch (k) {
	case K_DSO:
		*n = r->nr_dso_filter;
		return r->dso_filter;
	case K_COMM:
		*n = r->nr_comm_filter;
		return r->comm_filter;
	case K_SYM:
		*n = r->nr_sym_filter;
		return r->sym_filter;
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

static void rtrim_print(FILE *out, char *line)
{
	size_t n = strlen(line);
	while (n && line[n - 1] == ' ')
		n--;
	fprintf(out, "%.*s\n", (int)n, line);
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

static int print_event(struct pa_report *r, FILE *out, unsigned e, const bool *elide)
{
	size_t nr;
	struct row *rows = build_rows(r, e, &nr);
	if (!rows)
		return -ENOMEM;
	const struct pa_evsel *ev = pa_file_evsel(pa_session_file(r->session), e);
	uint64_t total = r->total_period[e];
	if (r->opts.relative) {
		total = 0;
		for (size_t i = 0; i < nr; i++)
			total += rows[i].period;
	}
	int width[16];
	bool any_unresolved = false;
	for (unsigned c = 0; c < r->nr_cols; c++) {
		width[c] = base_width(r->cols[c]);
		for (size_t i = 0; i < nr; i++) {
			int w = (int)natural_width(r->cols[c], &rows[i]);
			if (w > width[c])
				width[c] = w;
			any_unresolved |= r->cols[c] == K_SYM && !rows[i].sym;
		}
	}
	for (unsigned c = 0; c < r->nr_cols; c++)
		if (r->cols[c] == K_DSO && any_unresolved && !r->nr_dso_filter &&
		    width[c] < UNRESOLVED_WIDTH)
			width[c] = UNRESOLVED_WIDTH;

	if (!r->opts.quiet) {
		char unit;
		unsigned long ns = convert_unit((unsigned long)r->total_samples[e], &unit);
		fprintf(out, "# Samples: %lu%c of event '%s'\n", ns, unit,
			ev && ev->name ? ev->name : "unknown");
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", r->total_period[e]);
		char line[2048];
		size_t n = 0;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "#");
		for (unsigned c = 0; c < r->nr_cols; c++)
			if (!elide[c])
				n += (size_t)snprintf(line + n, sizeof(line) - n,
						      right_aligned(r->cols[c]) ? "%s%*s" : "%s%-*s",
						      c ? "  " : " ", width[c], col_header(r->cols[c]));
		fprintf(out, "%s\n", line);
		n = (size_t)snprintf(line, sizeof(line), "#");
		for (unsigned c = 0; c < r->nr_cols; c++) {
			if (elide[c])
				continue;
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s", c ? "  " : " ");
			for (int i = 0; i < width[c] && n + 1 < sizeof(line); i++)
				line[n++] = '.';
			line[n] = 0;
		}
		fprintf(out, "%s\n#\n", line);
	}
	for (size_t i = 0; i < nr; i++) {
		double pct = total ? 100.0 * (double)rows[i].period / (double)total : 0;
		if (r->opts.percent_limit > 0 && pct < r->opts.percent_limit)
			continue;
		char line[4096];
		size_t n = (size_t)snprintf(line, sizeof(line), " ");
		for (unsigned c = 0; c < r->nr_cols && n < sizeof(line); c++) {
			if (elide[c])
				continue;
			n += (size_t)snprintf(line + n, sizeof(line) - n, " ");
			if (c)
				n += (size_t)snprintf(line + n, sizeof(line) - n, " ");
			if (n < sizeof(line))
				n += (size_t)format_cell(line + n, sizeof(line) - n, r->cols[c],
							 &rows[i], width[c], (double)total);
		}
		rtrim_print(out, line);
	}
	fprintf(out, "\n\n");
	free(rows);
	return 0;
}

int pa_report_print(struct pa_report *r, FILE *out, struct pa_err *err)
{
	bool elide[16];
	compute_elide(r, elide);
	if (!r->opts.quiet) {
		fprintf(out, "# To display the perf.data header info, please use "
			     "--header/--header-only options.\n#\n");
		for (unsigned c = 0; c < r->nr_cols; c++) {
			size_t n;
			char **f = filter_for(r, r->cols[c], &n);
			if (n == 1)
				fprintf(out, "# %s: %s\n",
					r->cols[c] == K_SYM ? "symbol" : r->cols[c] == K_DSO ? "dso" : "comm",
					f[0]);
		}
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n",
			pa_session_nr_lost_samples(r->session));
	}
	unsigned nev = pa_file_nr_evsels(pa_session_file(r->session));
	for (unsigned e = 0; e < nev; e++) {
		if (e < r->nr_evsels && r->total_samples[e] == 0 && nev > 1)
			continue;
		if (print_event(r, out, e, elide))
			return pa_err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}
