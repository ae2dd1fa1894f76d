/* print.c - perf annotate --stdio's text of one symbol (perf 6.1's
 * symbol__annotate_printf, annotation_line__print, print_summary). */
#include "annotate/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const percent_names[] = {
    [PA_ANNOTATE_LOCAL_PERIOD] = "local period",
    [PA_ANNOTATE_GLOBAL_PERIOD] = "global period",
    [PA_ANNOTATE_LOCAL_HITS] = "local hits",
    [PA_ANNOTATE_GLOBAL_HITS] = "global hits",
};

/* the first sampled offset >= off */
static size_t lower_bound(const struct ann_sym *s, uint64_t off)
{
	size_t lo = 0, hi = s->nr_addrs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->addrs[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* perf's calc_percent: the samples on [off, next instruction's off) */
void ann_line_pct(const struct pa_annotate *a, const struct ann_sym *s, const struct ann_listing *l,
                  size_t i, unsigned m, struct ann_pct *out)
{
	*out = (struct ann_pct){0};
	const struct ann_line *ln = &l->v[i];
	if (ln->off < 0)
		return;
	uint64_t end = s->end - s->start;
	for (size_t j = i + 1; j < l->n; j++)
		if (l->v[j].off >= 0) {
			end = (uint64_t)l->v[j].off;
			break;
		}
	for (size_t k = lower_bound(s, (uint64_t)ln->off); k < s->nr_addrs && s->addrs[k].off < end;
	     k++) {
		if (s->addrs[k].member != m)
			continue;
		out->hits += s->addrs[k].hits;
		out->period += s->addrs[k].period;
	}
	const struct ann_event *ev = &a->events[s->evsel + m];
	double num = 0, den = 0;
	switch (a->opts.percent_type) {
	case PA_ANNOTATE_LOCAL_PERIOD:
		num = (double)out->period, den = (double)s->period[m];
		break;
	case PA_ANNOTATE_GLOBAL_PERIOD:
		/* a group member's hists keep no total in perf 6.1: 0 */
		num = (double)out->period, den = m ? 0 : (double)ev->total_period;
		break;
	case PA_ANNOTATE_LOCAL_HITS:
		num = (double)out->hits, den = (double)s->nr_samples[m];
		break;
	case PA_ANNOTATE_GLOBAL_HITS:
		/* perf 6.1 divides by its hists' nr_non_filtered_samples, which
		 * perf annotate never counts: every global-hits share is 0 */
		num = (double)out->hits, den = 0;
		(void)ev->nr_samples;
		break;
	}
	out->pct = den > 0 ? 100.0 * num / den : 0;
}

/* perf's annotated_source__addr_fmt_width: the last instruction's address */
static int addr_width(const struct ann_sym *s, const struct ann_listing *l)
{
	char buf[32];
	for (size_t i = l->n; i-- > 0;)
		if (l->v[i].off >= 0)
			return snprintf(buf, sizeof(buf), "%" PRIx64,
			                s->start + (uint64_t)l->v[i].off);
	return 0;
}

static void print_header(const struct pa_annotate *a, const struct ann_sym *s, FILE *out)
{
	int width = (a->opts.show_total_period ? 12 : 8) * (int)s->nr_members;
	const char *what = a->opts.show_total_period ? "Period"
	                   : a->opts.show_nr_samples ? "Samples"
	                                             : "Percent";
	const char *name = ann_dso_name(a, s->dso), *slash = strrchr(name, '/');
	if (!a->opts.full_path && slash)
		name = slash + 1;
	int n = fprintf(out,
	                " %-*.*s|\tSource code & Disassembly of %s for %s (%" PRIu64
	                " samples, percent: %s)\n",
	                width, width, what, name, a->events[s->evsel].name, s->nr_samples[0],
	                percent_names[a->opts.percent_type]);
	for (int i = 0; i < n + 4; i++)
		fputc('-', out);
	fputc('\n', out);
}

/* -l: perf's annotation__calc_lines + print_summary: instructions over
 * 0.5%, summed per srcline (addr2line's, as perf asks it), hottest first */
struct summary {
	const char *srcline;
	double pct[64]; /* per member */
	unsigned nr;
};

static int cmp_summary(const void *pa, const void *pb)
{
	const struct summary *x = pa, *y = pb;
	for (unsigned m = 0; m < x->nr; m++)
		if (x->pct[m] != y->pct[m])
			return (x->pct[m] < y->pct[m]) - (x->pct[m] > y->pct[m]);
	/* perf's tree of paths holds them in descending order, and equal
	 * shares keep that order */
	int c = strcmp(y->srcline, x->srcline);
	return (c > 0) - (c < 0);
}

/* perf's al->path: the srcline of each instruction over 0.5% (-l), as its
 * get_srcline gives it without a symbol: addr2line's, else "DSO[ADDR]" */
static const char **line_paths(struct pa_annotate *a, const struct ann_sym *s,
                               const struct ann_listing *l)
{
	const char **paths = calloc(l->n ? l->n : 1, sizeof(*paths));
	for (size_t i = 0; paths && i < l->n; i++) {
		double max = 0;
		for (unsigned m = 0; m < s->nr_members; m++) {
			struct ann_pct p;
			ann_line_pct(a, s, l, i, m, &p);
			max = p.pct > max ? p.pct : max;
		}
		if (l->v[i].off < 0 || max <= 0.5)
			continue;
		struct pa_loc loc = {.dso = s->dso,
		                     .addr = s->map_base + (uint64_t)l->v[i].off,
		                     .level = '.',
		                     .sym = s->sym};
		const char *sl = pa_resolver_map_srcline(a->res, &loc);
		paths[i] = sl ? sl : PA_SRCLINE_UNKNOWN;
	}
	return paths;
}

static void print_summary(struct pa_annotate *a, const struct ann_sym *s,
                          const struct ann_listing *l, const char **paths, FILE *out)
{
	struct summary *v = calloc(l->n ? l->n : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; v && i < l->n; i++) {
		if (!paths[i])
			continue;
		size_t j = 0;
		while (j < n && strcmp(v[j].srcline, paths[i]))
			j++;
		if (j == n)
			v[n++] = (struct summary){.srcline = paths[i], .nr = s->nr_members};
		for (unsigned m = 0; m < s->nr_members; m++) {
			struct ann_pct p;
			ann_line_pct(a, s, l, i, m, &p);
			v[j].pct[m] += p.pct;
		}
	}
	fprintf(out, "\nSorted summary for file %s\n", ann_dso_name(a, s->dso));
	fprintf(out, "----------------------------------------------\n\n");
	if (!n)
		fprintf(out, " Nothing higher than 0.5%%\n");
	qsort(v, n, sizeof(*v), cmp_summary);
	for (size_t j = 0; j < n; j++) {
		for (unsigned m = 0; m < v[j].nr; m++)
			fprintf(out, " %7.2f", v[j].pct[m]);
		fprintf(out, " %s\n", v[j].srcline);
	}
	free(v);
}

/* perf's " // SRCLINE" after an instruction with a path, unless the
 * previous one printed (in any symbol: perf keeps it static) was the same */
static void print_path(struct pa_annotate *a, const char *path, FILE *out)
{
	if (!path || (a->last_path && !strcmp(a->last_path, path)))
		return;
	fprintf(out, " // %s", path);
	free(a->last_path);
	a->last_path = strdup(path);
}

int ann_print_stdio(struct pa_annotate *a, const struct ann_sym *s, const struct ann_listing *l,
                    FILE *out)
{
	int width = (a->opts.show_total_period ? 12 : 8) * (int)s->nr_members,
	    aw = addr_width(s, l);
	const char **paths = NULL;
	if (a->opts.print_line) {
		if (!(paths = line_paths(a, s, l)))
			return -ENOMEM;
		print_summary(a, s, l, paths, out);
	}
	print_header(a, s, out);
	for (size_t i = 0; i < l->n; i++) {
		const struct ann_line *ln = &l->v[i];
		if (ln->off < 0) {
			if (!*ln->text)
				fprintf(out, " %*s:\n", width, " ");
			else
				fprintf(out, " %*s: %-*d %s\n", width, " ", aw, ln->line_nr,
				        ln->text);
			continue;
		}
		for (unsigned m = 0; m < s->nr_members; m++) {
			struct ann_pct p;
			ann_line_pct(a, s, l, i, m, &p);
			if (a->opts.show_total_period)
				fprintf(out, " %11" PRIu64, p.period);
			else if (a->opts.show_nr_samples)
				fprintf(out, " %7" PRIu64, p.hits);
			else
				fprintf(out, " %7.2f", p.pct);
		}
		fprintf(out, " :   %*" PRIx64 ":%s", aw, s->start + (uint64_t)ln->off, ln->text);
		if (paths)
			print_path(a, paths[i], out);
		fputc('\n', out);
	}
	free(paths);
	return ferror(out) ? -EIO : 0;
}
