/* print.c - rows from buckets, and perf report --stdio's layout. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum key { K_OVERHEAD, K_SAMPLE, K_PERIOD, K_COMM, K_PID, K_TID, K_DSO, K_SYM, K_CPU };

struct row {
	const char *comm;        /* at sample time */
	const char *thread_comm; /* the thread's last comm, which perf's pid column shows */
	int32_t pid, tid;
	const struct pa_dso *dso;
	const struct pa_sym *sym;
	uint64_t addr;
	char level;
	uint32_t cpu;
	unsigned member;      /* which event of the group, while collecting */
	uint64_t period, count; /* the leader's (or the only event's) */
	uint64_t *vals;       /* per member: period, then count (2 * nr_members) */
};

struct rows_ctx {
	const int *keys;
	unsigned nr_keys;
	unsigned nr_members;
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
	for (unsigned m = 0; m < sort_ctx->nr_members; m++)
		if (a->vals[2 * m] != b->vals[2 * m])
			return a->vals[2 * m] > b->vals[2 * m] ? -1 : 1;
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

/* Rows of one event group (members first..first+nr-1; a lone event is a
 * group of one): buckets -> collapsed rows in output order. *vals_out
 * holds the per-member sums the rows point into. */
static struct row *build_rows(struct pa_report *r, unsigned first, unsigned nr_members,
			      size_t *nr, uint64_t **vals_out)
{
	struct row *rows = malloc((r->nr_buckets + 1) * sizeof(*rows));
	if (!rows)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->nr_buckets; i++) {
		const struct bucket *b = &r->buckets[i];
		if (b->evsel < first || b->evsel >= first + nr_members)
			continue;
		const struct loc *l = &r->locs[b->loc];
		struct row w = {.comm = b->comm,
				.thread_comm = pa_thread_comm(b->thread),
				.pid = pa_thread_pid(b->thread),
				.tid = pa_thread_tid(b->thread),
				.dso = l->dso,
				.sym = l->sym,
				.addr = l->addr,
				.level = l->level,
				.cpu = b->cpu,
				.member = b->evsel - first,
				.period = b->period,
				.count = b->count};
		if (sym_passes(r, &w))
			rows[n++] = w;
	}
	struct rows_ctx ctx = {r->keys, r->nr_keys, nr_members};
	sort_ctx = &ctx;
	qsort(rows, n, sizeof(*rows), collapse_cmp);
	uint64_t *vals = calloc(n * 2 * nr_members + 1, sizeof(*vals));
	if (!vals) {
		free(rows);
		return NULL;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct row w = rows[i];
		if (!m || collapse_cmp(&rows[m - 1], &w) != 0) {
			rows[m] = w;
			rows[m].vals = vals + m * 2 * nr_members;
			m++;
		}
		rows[m - 1].vals[2 * w.member] += w.period;
		rows[m - 1].vals[2 * w.member + 1] += w.count;
	}
	for (size_t i = 0; i < m; i++) {
		rows[i].period = rows[i].vals[0];
		rows[i].count = rows[i].vals[1];
	}
	qsort(rows, m, sizeof(*rows), output_cmp);
	sort_ctx = NULL;
	*nr = m;
	*vals_out = vals;
	return rows;
}

/* ---- formatting --------------------------------------------------------- */

#define UNRESOLVED_WIDTH 16 /* the recording host's BITS_PER_LONG / 4 */

static int format_cell(char *buf, size_t size, int k, const struct row *w, int width,
		       double total, bool last)
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
				width > 8 ? width - 8 : 0, width > 8 ? width - 8 : 0, w->thread_comm);
	case K_DSO:
		return snprintf(buf, size, "%-*s", width, dso_name(w->dso));
	case K_SYM: {
		/* perf pads the symbol unless it ends the line */
		int pad = last ? 0 : (width > 4 ? width - 4 : 0);
		if (w->sym)
			return snprintf(buf, size, "[%c] %-*s", w->level, pad, w->sym->name);
		return snprintf(buf, size, "[%c] %-#*.*" PRIx64, w->level, pad, UNRESOLVED_WIDTH,
				w->addr);
	}
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
	case K_TID: /* the comm part is at least as wide as "Command" */
		return (strlen(w->thread_comm) > 7 ? strlen(w->thread_comm) : 7) + 8;
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

/* Overhead/Samples/Period cells of a group: one value per member. */
static size_t format_values(char *buf, size_t size, int k, const struct row *w, unsigned nr,
			    const uint64_t *totals, int width)
{
	size_t n = 0;
	int each = nr > 1 ? width / (int)nr : width;
	for (unsigned m = 0; m < nr && n < size; m++) {
		uint64_t period = w->vals[2 * m], count = w->vals[2 * m + 1];
		double t = (double)totals[m];
		if (k == K_OVERHEAD)
			n += (size_t)snprintf(buf + n, size - n, "%*.2f%%", each - 1,
					      t > 0 ? 100.0 * (double)period / t : 0.0);
		else
			n += (size_t)snprintf(buf + n, size - n, "%*" PRIu64, each,
					      k == K_SAMPLE ? count : period);
	}
	return n;
}

static const char *evsel_name(const struct pa_evsel *ev)
{
	return ev && ev->name ? ev->name : "unknown";
}

static void print_section_header(struct pa_report *r, FILE *out, const struct group *g)
{
	struct pa_file *f = pa_session_file(r->session);
	uint64_t samples = 0, period = 0;
	for (unsigned m = 0; m < g->nr; m++) {
		samples += r->total_samples[g->first + m];
		period += r->total_period[g->first + m];
	}
	char unit;
	unsigned long ns = convert_unit((unsigned long)samples, &unit);
	if (g->nr == 1) {
		fprintf(out, "# Samples: %lu%c of event '%s'\n", ns, unit,
			evsel_name(pa_file_evsel(f, g->first)));
	} else {
		fprintf(out, "# Samples: %lu%c of events '%s { %s", ns, unit,
			g->name ? g->name : "anon group", evsel_name(pa_file_evsel(f, g->first)));
		for (unsigned m = 1; m < g->nr; m++)
			fprintf(out, ", %s", evsel_name(pa_file_evsel(f, g->first + m)));
		fprintf(out, " }'\n");
	}
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", period);
}

static void print_column_header(struct pa_report *r, FILE *out, const int *width,
				 const bool *elide)
{
	char line[2048];
	size_t n = (size_t)snprintf(line, sizeof(line), "#");
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

static int print_group(struct pa_report *r, FILE *out, const struct group *g, const bool *elide)
{
	size_t nr;
	uint64_t *vals;
	struct row *rows = build_rows(r, g->first, g->nr, &nr, &vals);
	if (!rows)
		return -ENOMEM;
	uint64_t totals[64];
	for (unsigned m = 0; m < g->nr; m++) {
		totals[m] = r->total_period[g->first + m];
		if (r->opts.relative) {
			totals[m] = 0;
			for (size_t i = 0; i < nr; i++)
				totals[m] += rows[i].vals[2 * m];
		}
	}
	int width[16];
	bool any_unresolved = false;
	for (unsigned c = 0; c < r->nr_cols; c++) {
		width[c] = base_width(r->cols[c]) * (right_aligned(r->cols[c]) ? (int)g->nr : 1);
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
		print_section_header(r, out, g);
		print_column_header(r, out, width, elide);
	}
	unsigned last = 0;
	for (unsigned c = 0; c < r->nr_cols; c++)
		if (!elide[c])
			last = c;
	for (size_t i = 0; i < nr; i++) {
		double pct = totals[0] ? 100.0 * (double)rows[i].period / (double)totals[0] : 0;
		if (r->opts.percent_limit > 0 && pct < r->opts.percent_limit)
			continue;
		char line[4096];
		size_t n = (size_t)snprintf(line, sizeof(line), " ");
		for (unsigned c = 0; c < r->nr_cols && n < sizeof(line); c++) {
			if (elide[c])
				continue;
			n += (size_t)snprintf(line + n, sizeof(line) - n, c ? "  " : " ");
			if (n >= sizeof(line))
				break;
			if (right_aligned(r->cols[c]))
				n += format_values(line + n, sizeof(line) - n, r->cols[c], &rows[i],
						   g->nr, totals, width[c]);
			else
				n += (size_t)format_cell(line + n, sizeof(line) - n, r->cols[c],
							 &rows[i], width[c], 0, c == last);
		}
		fprintf(out, "%s\n", line);
	}
	fprintf(out, "\n\n");
	free(vals);
	free(rows);
	return 0;
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
				g.name = d->name && strcmp(d->name, "{anon_group}") ? d->name : NULL;
			}
		}
		gs[n++] = g;
		e += g.nr;
	}
	return n;
}

int pa_report_print(struct pa_report *r, FILE *out, struct pa_err *err)
{
	bool elide[16];
	compute_elide(r, elide);
	if (!r->opts.quiet)
		fprintf(out, "# To display the perf.data header info, please use "
			     "--header/--header-only options.\n#\n");
	/* what an elided column would have said; perf prints it even with -q */
	for (unsigned c = 0; c < r->nr_cols; c++) {
		size_t n;
		char **f = filter_for(r, r->cols[c], &n);
		if (n == 1)
			fprintf(out, "# %s: %s\n",
				r->cols[c] == K_SYM ? "symbol" : r->cols[c] == K_DSO ? "dso" : "comm",
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
			samples += gs[i].first + m < r->nr_evsels ? r->total_samples[gs[i].first + m] : 0;
		if (!samples && ng > 1)
			continue;
		if (print_group(r, out, &gs[i], elide))
			return pa_err_set(err, -ENOMEM, "out of memory");
	}
	/* perf frames a random tip here; the frame without the tip */
	if (!r->opts.quiet)
		fprintf(out, "#\n#\n");
	return 0;
}
