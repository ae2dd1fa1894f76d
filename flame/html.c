/* html.c - the HTML writer: one self-contained page (inline CSS and
 * script, no network). The tree goes in as data, html.js draws it:
 *   names:  the frame names, in order of first use
 *   frames: depth, name index, kind, x, width per frame, in preorder
 * (parents before children, siblings in order), so the script finds a
 * frame's subtree as the run of frames deeper than it. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PER_LINE 8 /* frames per line of data, for readable diffs */

/* A differential graph's key (styled by html.css, #legend). */
static void put_legend(FILE *out, const struct pa_flame *fg, const struct pa_flame_conf *c)
{
	char num[2][32], ch[64];
	int rgb[3];
	struct pa_flame_conf scale = *c;
	scale.max_change = 1;
	fputs("<div id=\"legend\"><span class=\"scale\">", out);
	for (int i = -3; i <= 3; i++) {
		pa_flame_diff_colour(&scale, i / 3.0, rgb);
		fprintf(out, "<i style=\"background:rgb(%d,%d,%d)\"></i>", rgb[0], rgb[1], rgb[2]);
	}
	fprintf(out,
		"</span> <b>shrank</b> / unchanged / <b>grew</b>: colour is the change of each "
		"frame&#39;s self %s from the baseline (strongest %s). Widths: the new profile, ",
		c->diff_raw ? "samples" : "share", pa_flame_change_str(ch, c, c->max_change));
	fprintf(out, "%s ", pa_flame_commas(num[0], fg->root->value));
	pa_put_xml(out, c->unit, strlen(c->unit), SIZE_MAX);
	fprintf(out, "; baseline %s.<br><i class=\"new\"></i> only in new. ",
		pa_flame_commas(num[1], fg->root->base));
	if (c->base_only_frames) {
		fprintf(out, "<span id=\"base-only\">Frames only in the baseline: %s (%s ",
			pa_flame_commas(num[0], c->base_only_frames),
			pa_flame_commas(num[1], c->base_only_value));
		pa_put_xml(out, c->unit, strlen(c->unit), SIZE_MAX);
		fputs("), not drawn: they have no width in the new profile; their parents&#39; "
		      "details count them.</span>",
		      out);
	} else {
		fputs("<span id=\"base-only\">No frame is only in the baseline.</span>", out);
	}
	fputs("</div>\n", out);
}

int pa_flame_write_html(struct pa_flame *fg, FILE *out, const struct pa_flame_conf *c)
{
	uint64_t total = fg->root->value;
	uint32_t *slot = malloc(((size_t)fg->nnames + 1) * sizeof(*slot));
	uint32_t *order = malloc(((size_t)fg->nnames + 1) * sizeof(*order));
	if (!slot || !order) {
		free(slot);
		free(order);
		return -ENOMEM;
	}
	memset(slot, 0xff, (size_t)fg->nnames * sizeof(*slot));
	uint32_t used = 0;
	for (struct pa_flame_node *n = fg->root; total && n;) {
		if (!pa_flame_visible(c, n->value, total)) {
			n = pa_flame_next(n, true);
			continue;
		}
		if (slot[n->name] == UINT32_MAX) {
			slot[n->name] = used;
			order[used++] = n->name;
		}
		n = pa_flame_next(n, false);
	}

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"pa flamegraph\">\n<title>",
	      out);
	pa_put_xml(out, c->title, strlen(c->title), SIZE_MAX);
	fputs("</title>\n<style>\n", out);
	fputs(pa_flame_asset_html_css, out);
	fputs("</style>\n</head>\n<body>\n<header>\n<h1 id=\"title\">", out);
	pa_put_xml(out, c->title, strlen(c->title), SIZE_MAX);
	fputs("</h1>\n", out);
	if (c->subtitle) {
		fputs("<p id=\"subtitle\">", out);
		pa_put_xml(out, c->subtitle, strlen(c->subtitle), SIZE_MAX);
		fputs("</p>\n", out);
	}
	if (c->diff)
		put_legend(out, fg, c);
	fputs("<nav id=\"controls\">"
	      "<button id=\"reset\" type=\"button\" disabled title=\"Escape\">Reset zoom</button>"
	      "<span id=\"matched\"></span>"
	      "<input id=\"search\" type=\"search\" placeholder=\"Search (regular expression)\" "
	      "title=\"Ctrl-F or /\" autocomplete=\"off\" spellcheck=\"false\">"
	      "</nav>\n</header>\n"
	      "<main id=\"chart\"></main>\n"
	      "<footer id=\"details\">&#160;</footer>\n"
	      "<div id=\"tip\" hidden></div>\n"
	      "<noscript><p>This flame graph needs JavaScript.</p></noscript>\n"
	      "<script>\nvar PA_FLAME = {\n\"unit\": ",
	      out);
	pa_put_json_str(out, c->unit, strlen(c->unit));
	fprintf(out, ",\n\"inverted\": %s,\n\"palette\": %d,\n\"total\": %llu,\n\"names\": [",
		c->inverted ? "true" : "false", (int)c->palette, (unsigned long long)total);
	for (uint32_t i = 0; i < used; i++) {
		const struct pa_flame_name *nm = &fg->names[order[i]];
		fputs(i ? (i % PER_LINE ? "," : ",\n") : "\n", out);
		pa_put_json_str(out, nm->s, nm->len);
	}
	if (c->diff)
		fprintf(out, "],\n\"diff\": {\"base\": %llu, \"raw\": %s},\n\"stride\": 11",
			(unsigned long long)fg->root->base, c->diff_raw ? "true" : "false");
	else
		fputs("],\n\"stride\": 5", out);
	fputs(",\n\"frames\": [", out);
	uint64_t k = 0;
	for (struct pa_flame_node *n = fg->root; total && n;) {
		if (!pa_flame_visible(c, n->value, total)) {
			n = pa_flame_next(n, true);
			continue;
		}
		fprintf(out, "%s%u,%u,%u,%llu,%llu", k ? (k % PER_LINE ? "," : ",\n") : "\n",
			n->depth, slot[n->name], n->kind, (unsigned long long)n->x,
			(unsigned long long)n->value);
		if (c->diff) {
			/* self, baseline value and self, colour, flags (1: only in
			 * new), baseline value of callees only in the baseline */
			struct pa_flame_delta d;
			int rgb[3];
			pa_flame_delta(fg, c, n, &d);
			pa_flame_diff_colour(c, d.self_change, rgb);
			fprintf(out, ",%llu,%llu,%llu,%d,%d,%llu", (unsigned long long)d.self,
				(unsigned long long)n->base, (unsigned long long)d.base_self,
				rgb[0] << 16 | rgb[1] << 8 | rgb[2], d.only_new ? 1 : 0,
				(unsigned long long)d.base_only);
		}
		k++;
		n = pa_flame_next(n, false);
	}
	fputs("]\n};\n</script>\n<script>\n", out);
	fputs(pa_flame_asset_html_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	free(slot);
	free(order);
	return 0;
}
