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
		pa_flame_put_xml(out, nm->s, nm->len, SIZE_MAX);
	} else {
		pa_flame_put_xml(out, nm->s, nm->len, chars - 2);
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
	char num[32];
	int rgb[3];
	pa_flame_colour(c->palette, (enum pa_flame_kind)n->kind, nm->hash, has_cxx(nm), rgb);
	fprintf(out, "<g data-x=\"%llu\" data-w=\"%llu\" data-d=\"%u\"><title>",
		(unsigned long long)n->x, (unsigned long long)n->value, n->depth);
	pa_flame_put_xml(out, nm->s, nm->len, SIZE_MAX);
	fprintf(out, " (%s ", pa_flame_commas(num, n->value));
	pa_flame_put_xml(out, c->unit, strlen(c->unit), SIZE_MAX);
	fprintf(out, ", %.2f%%", 100.0 * (double)n->value / (double)total);
	if (kind_words[n->kind])
		fprintf(out, ", %s", kind_words[n->kind]);
	fprintf(
	    out,
	    ")</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" ry=\"2\" "
	    "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%.1f\">",
	    x1, y1, x2 - x1, FRAME_H - 1, rgb[0], rgb[1], rgb[2], x1 + 3,
	    y1 + FRAME_H / 2.0 + FONT_SIZE / 3.0 + 0.5);
	put_label(out, nm, x2 - x1);
	fputs("</text></g>\n", out);
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
	double ytop = FONT_SIZE * 3 + (c->subtitle ? FONT_SIZE * 2 : 0);
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
	pa_flame_put_xml(out, c->title, strlen(c->title), SIZE_MAX);
	fputs("</text>\n", out);
	if (c->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"%d\">", w / 2.0, FONT_SIZE * 4);
		pa_flame_put_xml(out, c->subtitle, strlen(c->subtitle), SIZE_MAX);
		fputs("</text>\n", out);
	}
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
