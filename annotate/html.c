/* html.c - pa annotate --html: one self-contained page, the symbols
 * ranked, each with its source lines and its assembly side by side (the
 * source line of each instruction beside it), hot lines shaded by their
 * share of the symbol's samples. No script: the page is static. */
#include "annotate/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

/* text for the page (util's XML escaping) */
static void put_html(FILE *out, const char *s)
{
	pa_put_xml(out, s, strlen(s), SIZE_MAX);
}

static const char style[] = "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
                            "td,th{padding:0 .6em;text-align:left;vertical-align:top}"
                            ".code td{font-family:monospace;white-space:pre}"
                            ".src{color:#235;border-right:1px solid #ccc}.pct{text-align:right}"
                            "h2{font-size:1.05em;margin-top:2em}";

/* a line's shade: white to red with its share */
static void shade(FILE *out, double pct)
{
	if (pct <= 0)
		return;
	int g = 255 - (int)(pct * 2.2 > 200 ? 200 : pct * 2.2);
	fprintf(out, " style=\"background:rgb(255,%d,%d)\"", g, g);
}

static void print_ranking(const struct pa_annotate *a, FILE *out)
{
	fputs("<h1>pa annotate</h1><table><tr><th>#</th><th>Overhead</th><th>Samples</th>"
	      "<th>Event</th><th>Shared object</th><th>Symbol</th></tr>\n",
	      out);
	size_t k = 0;
	for (size_t i = 0; i < a->nr_syms; i++) {
		const struct ann_sym *s = a->syms[i];
		if (s->hidden)
			continue;
		const struct ann_event *ev = &a->events[s->evsel];
		double pct =
		    ev->total_period ? 100.0 * (double)s->period[0] / (double)ev->total_period : 0;
		fprintf(out,
		        "<tr><td>%zu</td><td class=pct>%.2f%%</td><td class=pct>%" PRIu64
		        "</td><td>",
		        ++k, pct, s->nr_samples[0]);
		put_html(out, ev->name);
		fputs("</td><td>", out);
		put_html(out, s->dso->short_name);
		fprintf(out, "</td><td><a href=\"#s%zu\">", i);
		put_html(out, s->sym->name);
		fputs("</a></td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* source (the last source line seen) | percent | address | instruction */
static void print_symbol(struct pa_annotate *a, const struct ann_sym *s,
                         const struct ann_listing *l, FILE *out)
{
	const char *src = "";
	fputs("<h2>", out);
	put_html(out, s->sym->name);
	fprintf(out, " &mdash; ");
	put_html(out, ann_dso_name(a, s->dso));
	fprintf(out, " (%" PRIu64 " samples)</h2>\n<table class=code>\n", s->nr_samples[0]);
	for (size_t i = 0; i < l->n; i++) {
		const struct ann_line *ln = &l->v[i];
		if (ln->off < 0) {
			if (*ln->text)
				src = ln->text;
			continue;
		}
		struct ann_pct p;
		ann_line_pct(a, s, l, i, 0, &p);
		fputs("<tr", out);
		shade(out, p.pct);
		fputs("><td class=src>", out);
		put_html(out, src);
		src = "";
		fprintf(out, "</td><td class=pct>%.2f</td><td>%" PRIx64 ":</td><td>", p.pct,
		        s->start + (uint64_t)ln->off);
		put_html(out, ln->text);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

int pa_annotate_print_html(struct pa_annotate *a, FILE *out, struct pa_err *err)
{
	fprintf(out,
	        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	        "<title>pa annotate</title><style>%s</style></head><body>\n",
	        style);
	print_ranking(a, out);
	for (size_t i = 0; i < a->nr_syms; i++) {
		const struct ann_sym *s = a->syms[i];
		if (s->hidden)
			continue;
		struct ann_listing l;
		const char *why = NULL;
		struct pa_err e = {0};
		ann_listing_init(&l);
		int rc = ann_make_listing(a, s, &l, &why, &e);
		if (rc && rc != -PA_ERR_NOT_FOUND) {
			ann_listing_release(&l);
			if (err)
				*err = e;
			return rc;
		}
		fprintf(out, "<a id=\"s%zu\"></a>", i);
		if (rc) {
			fputs("<h2>", out);
			put_html(out, s->sym->name);
			fputs("</h2><p>no bytes: ", out);
			put_html(out, why ? why : "");
			fputs("</p>\n", out);
		} else {
			print_symbol(a, s, &l, out);
		}
		ann_listing_release(&l);
	}
	fputs("</body></html>\n", out);
	return ferror(out) ? pa_err_set(err, -EIO, "annotate: write error") : 0;
}
