/* svg.c - the SVG writer: flamegraph.pl's layout (one <g> per frame with a
 * <title> for the hover text, a <rect> and a <text> label), plus svg.js for
 * zooming and searching. Frames carry their position in value units
 * (data-x, data-w) and depth (data-d) so the script rescales exactly. */
#include "internal.h"

#include <stdint.h>
#include <string.h>

#define XPAD       10 /* keep in step with out.c */
#define FRAME_H    16
#define FONT_SIZE  12
#define FONT_W     0.59 /* average glyph width per font size, as flamegraph.pl */
#define SEARCH_RGB "rgb(230,0,230)"
#define LEGEND_H   (FONT_SIZE * 3) /* differential graphs: the key under the title */

static const char *const kind_words[PA_FLAME_NKINDS] = {NULL, "kernel", "JIT", "inlined"};

/* The label that fits in w pixels: the name, the name cut with "..", or
 * nothing. svg.js does the same after a zoom. */
static void put_label(FILE *out, const struct pa_flame_name *nm, double w)
{
	double fit = (w - 3) / (FONT_SIZE * FONT_W);
	if (fit < 3)
		return;
	size_t chars = (size_t)fit, have = pa_flame_utf8_count(nm->s, nm->len);
	if (have <= chars) {
		pa_put_xml(out, nm->s, nm->len, SIZE_MAX);
	} else {
		pa_put_xml(out, nm->s, nm->len, chars - 2);
		fputs("..", out);
	}
}

static bool has_cxx(const struct pa_flame_name *nm)
{
	for (uint32_t i = 0; i + 1 < nm->len; i++)
		if (nm->s[i] == ':' && nm->s[i + 1] == ':')
			return true;
	return false;
}

static void put_frame(FILE *out, const struct pa_flame *fg, const struct pa_flame_conf *c,
		      const struct pa_flame_node *n, double ytop, double height)
{
	const struct pa_flame_name *nm = &fg->names[n->name];
	uint64_t total = fg->root->value;
	double per = (double)(c->width - 2 * XPAD) / (double)total;
	double x1 = XPAD + (double)n->x * per, x2 = XPAD + (double)(n->x + n->value) * per;
	double y1 = c->inverted
			? ytop + (double)n->depth * FRAME_H
			: height - (FONT_SIZE * 2 + 10) - (double)(n->depth + 1) * FRAME_H + 1;
	char num[32], ch[2][64];
	int rgb[3];
	struct pa_flame_delta d = {0};
	if (c->diff) {
		pa_flame_delta(fg, c, n, &d);
		pa_flame_diff_colour(c, d.self_change, rgb);
	} else {
		pa_flame_colour(c->palette, (enum pa_flame_kind)n->kind, nm->hash, has_cxx(nm), rgb);
	}
	fprintf(out, "<g data-x=\"%llu\" data-w=\"%llu\" data-d=\"%u\"><title>",
		(unsigned long long)n->x, (unsigned long long)n->value, n->depth);
	pa_put_xml(out, nm->s, nm->len, SIZE_MAX);
	fprintf(out, " (%s ", pa_flame_commas(num, n->value));
	pa_put_xml(out, c->unit, strlen(c->unit), SIZE_MAX);
	fprintf(out, ", %.2f%%", 100.0 * (double)n->value / (double)total);
	if (kind_words[n->kind])
		fprintf(out, ", %s", kind_words[n->kind]);
	if (c->diff) {
		/* (no parenthesis inside: svg.js takes the name up to the last " (") */
		uint64_t bt = fg->root->base;
		fprintf(out, "; baseline %s, %.2f%%; self %s, total %s",
			pa_flame_commas(num, n->base), bt ? 100.0 * (double)n->base / (double)bt : 0.0,
			pa_flame_change_str(ch[0], c, d.self_change),
			pa_flame_change_str(ch[1], c, d.total_change));
		if (d.only_new)
			fputs("; only in new", out);
		if (d.base_only)
			fprintf(out, "; %s baseline %s in callees only in baseline, not drawn",
				pa_flame_commas(num, d.base_only), c->unit);
	}
	fprintf(
	    out,
	    ")</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" ry=\"2\" "
	    "fill=\"rgb(%d,%d,%d)\"%s/><text x=\"%.2f\" y=\"%.1f\">",
	    x1, y1, x2 - x1, FRAME_H - 1, rgb[0], rgb[1], rgb[2],
	    !c->diff     ? ""
	    : d.only_new ? " class=\"new\""
			 : " class=\"diff\"",
	    x1 + 3, y1 + FRAME_H / 2.0 + FONT_SIZE / 3.0 + 0.5);
	put_label(out, nm, x2 - x1);
	fputs("</text></g>\n", out);
}

/* A differential graph's key, two lines: the colour scale (seven
 * swatches, blue through white to red) and what it means; the outline of
 * frames only in the new profile and what was left out. */
static void put_legend(FILE *out, const struct pa_flame *fg, const struct pa_flame_conf *c,
		       double y)
{
	char num[2][32], ch[64];
	int rgb[3];
	struct pa_flame_conf scale = *c;
	scale.max_change = 1;
	fputs("<g id=\"legend\">\n", out);
	for (int i = -3; i <= 3; i++) {
		pa_flame_diff_colour(&scale, i / 3.0, rgb);
		fprintf(out,
			"<rect x=\"%d\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"rgb(%d,%d,%d)\" "
			"stroke=\"#888\" stroke-width=\"0.5\"/>\n",
			XPAD + (i + 3) * 16, y + 1, rgb[0], rgb[1], rgb[2]);
	}
	fprintf(out, "<text x=\"%d\" y=\"%.1f\">shrank / unchanged / grew: colour is the change of "
		"each frame&#39;s self %s from the baseline (strongest %s). Widths: the new profile, ",
		XPAD + 7 * 16 + 6, y + 11, c->diff_raw ? "samples" : "share",
		pa_flame_change_str(ch, c, c->max_change));
	fprintf(out, "%s ", pa_flame_commas(num[0], fg->root->value));
	pa_put_xml(out, c->unit, strlen(c->unit), SIZE_MAX);
	fprintf(out, "; baseline %s.</text>\n", pa_flame_commas(num[1], fg->root->base));
	fprintf(out,
		"<rect x=\"%d\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"#fff\" stroke=\"#000\" "
		"stroke-dasharray=\"3,2\"/>\n<text x=\"%d\" y=\"%.1f\">only in new. ",
		XPAD, y + 18, XPAD + 22, y + 28);
	if (c->base_only_frames) {
		fprintf(out, "Frames only in the baseline: %s (%s ",
			pa_flame_commas(num[0], c->base_only_frames),
			pa_flame_commas(num[1], c->base_only_value));
		pa_put_xml(out, c->unit, strlen(c->unit), SIZE_MAX);
		fputs("), not drawn: they have no width in the new profile; their parents&#39; "
		      "details count them.",
		      out);
	} else {
		fputs("No frame is only in the baseline.", out);
	}
	fputs("</text>\n</g>\n", out);
}

int pa_flame_write_svg(struct pa_flame *fg, FILE *out, const struct pa_flame_conf *c)
{
	uint64_t total = fg->root->value;
	unsigned maxd = 0;
	for (struct pa_flame_node *n = fg->root; total && n;) {
		if (!pa_flame_visible(c, n->value, total)) {
			n = pa_flame_next(n, true);
			continue;
		}
		if (n->depth > maxd)
			maxd = n->depth;
		n = pa_flame_next(n, false);
	}
	double legend_y = FONT_SIZE * 3 + (c->subtitle ? FONT_SIZE * 2 : 0);
	double ytop = legend_y + (c->diff ? LEGEND_H : 0);
	double height = (double)(maxd + 1) * FRAME_H + ytop + FONT_SIZE * 2 + 10;
	unsigned w = c->width;

	fprintf(
	    out,
	    "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	    "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
	    "<svg version=\"1.1\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
	    "<!-- flame graph written by pa: click a frame to zoom, Ctrl-F to search -->\n"
	    "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	    "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" "
	    "offset=\"95%%\"/></linearGradient></defs>\n"
	    "<style type=\"text/css\">\n"
	    "text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: %dpx; fill: "
	    "#000; }\n"
	    "#title { text-anchor: middle; font-size: 17px; }\n"
	    "#subtitle { text-anchor: middle; fill: #a0a0a0; }\n"
	    "#search, #matched { text-anchor: end; }\n"
	    "#search, #unzoom { cursor: pointer; }\n"
	    "#search { opacity: 0.3; } #search:hover, #search.show { opacity: 1; }\n"
	    "#frames > g { cursor: pointer; }\n"
	    "#frames > g:hover > rect { stroke: #000; stroke-width: 0.5; }\n"
	    "#frames text { pointer-events: none; }\n"
	    ".hide { display: none; }\n"
	    ".parent { opacity: 0.5; }\n"
	    "rect.diff { stroke: #b0b0b0; stroke-width: 0.5; }\n"
	    "rect.new { stroke: #000; stroke-width: 1; stroke-dasharray: 3,2; }\n"
	    "#legend text { font-size: 11px; }\n"
	    "</style>\n"
	    "<script type=\"text/ecmascript\"><![CDATA[\n"
	    "var pa_fg = {width: %u, xpad: %d, fontsize: %d, fontwidth: %.2f, total: %llu, "
	    "search_fill: \"%s\"};\n",
	    w, height, w, height, FONT_SIZE, w, XPAD, FONT_SIZE, FONT_W, (unsigned long long)total,
	    SEARCH_RGB);
	fputs(pa_flame_asset_svg_js, out);
	fprintf(out,
		"]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"url(#background)\"/>\n"
		"<text id=\"title\" x=\"%.1f\" y=\"%d\">",
		w, height, w / 2.0, FONT_SIZE * 2);
	pa_put_xml(out, c->title, strlen(c->title), SIZE_MAX);
	fputs("</text>\n", out);
	if (c->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"%d\">", w / 2.0, FONT_SIZE * 4);
		pa_put_xml(out, c->subtitle, strlen(c->subtitle), SIZE_MAX);
		fputs("</text>\n", out);
	}
	if (c->diff)
		put_legend(out, fg, c, legend_y);
	fprintf(out,
		"<text id=\"details\" x=\"%d\" y=\"%.0f\">%s</text>\n"
		"<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"%d\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%.0f\"> </text>\n"
		"<g id=\"frames\">\n",
		XPAD, height - FONT_SIZE / 2.0 - 2, total ? " " : "No samples", XPAD, FONT_SIZE * 2,
		w - XPAD, FONT_SIZE * 2, w - XPAD, height - FONT_SIZE / 2.0 - 2);
	for (struct pa_flame_node *n = fg->root; total && n;) {
		if (!pa_flame_visible(c, n->value, total)) {
			n = pa_flame_next(n, true);
			continue;
		}
		put_frame(out, fg, c, n, ytop, height);
		n = pa_flame_next(n, false);
	}
	fputs("</g>\n</svg>\n", out);
	return 0;
}
