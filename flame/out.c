/* out.c - what both writers use: colours, options, and pa_flame_write()
 * itself (UTF-8 cleaning, XML escaping and JSON strings: util/). */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

size_t pa_flame_utf8_count(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	uint32_t cp;
	for (size_t i = 0; i < len; n++)
		i += pa_utf8_next(p + i, len - i, &cp);
	return n;
}

const char *pa_flame_commas(char *buf, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), k = 0;
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = tmp[i];
	}
	buf[k] = 0;
	return buf;
}

/* The colour scheme follows flamegraph.pl's palettes; "kind" is its java
 * palette driven by the frame's kind instead of name patterns (user code
 * red, C++ yellow, kernel orange, JIT green, inlined aqua). The variation
 * comes from a hash of the name, so that a function keeps its colour
 * between graphs (flamegraph.pl --hash). html.js computes the same. */
static uint32_t mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	h *= 0x846ca68bu;
	h ^= h >> 16;
	return h;
}

void pa_flame_colour(enum pa_flame_palette pal, enum pa_flame_kind kind, uint32_t hash, bool cxx,
		     int rgb[3])
{
	uint32_t m = mix32(hash);
	double v1 = (m & 0xff) / 255.0, v2 = (m >> 8 & 0xff) / 255.0, v3 = (m >> 16 & 0xff) / 255.0;
	if (pal == PA_FLAME_PAL_KIND && kind == PA_FLAME_KERNEL) { /* orange */
		rgb[0] = (int)(190 + 65 * v1), rgb[1] = (int)(90 + 65 * v1), rgb[2] = 0;
	} else if (pal == PA_FLAME_PAL_KIND && kind == PA_FLAME_JIT) { /* green */
		rgb[0] = (int)(50 + 60 * v1), rgb[1] = (int)(200 + 55 * v1), rgb[2] = rgb[0];
	} else if (pal == PA_FLAME_PAL_KIND && kind == PA_FLAME_INLINE) { /* aqua */
		rgb[0] = (int)(50 + 60 * v1), rgb[1] = (int)(165 + 55 * v1), rgb[2] = rgb[1];
	} else if (pal == PA_FLAME_PAL_MEM) {
		rgb[0] = 0, rgb[1] = (int)(190 + 50 * v2), rgb[2] = (int)(210 * v1);
	} else if (pal == PA_FLAME_PAL_IO) {
		rgb[0] = (int)(80 + 60 * v1), rgb[1] = rgb[0], rgb[2] = (int)(190 + 55 * v2);
	} else if (pal == PA_FLAME_PAL_KIND && cxx) { /* yellow */
		rgb[0] = (int)(175 + 55 * v1), rgb[1] = rgb[0], rgb[2] = (int)(50 + 20 * v1);
	} else if (pal == PA_FLAME_PAL_KIND) { /* red */
		rgb[0] = (int)(200 + 55 * v1), rgb[1] = (int)(50 + 80 * v1), rgb[2] = rgb[1];
	} else { /* hot */
		rgb[0] = (int)(205 + 50 * v3), rgb[1] = (int)(230 * v1), rgb[2] = (int)(55 * v2);
	}
}

enum pa_flame_format pa_flame_format_from_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return PA_FLAME_FMT_NONE;
	return pa_flame_format_from_name(dot + 1);
}

enum pa_flame_format pa_flame_format_from_name(const char *name)
{
	if (!name)
		return PA_FLAME_FMT_NONE;
	if (!strcasecmp(name, "svg"))
		return PA_FLAME_SVG;
	if (!strcasecmp(name, "html") || !strcasecmp(name, "htm"))
		return PA_FLAME_HTML;
	return PA_FLAME_FMT_NONE;
}

int pa_flame_palette_from_name(const char *name, enum pa_flame_palette *pal)
{
	static const struct {
		const char *name;
		enum pa_flame_palette pal;
	} tab[] = {
	    {"kind", PA_FLAME_PAL_KIND}, {"java", PA_FLAME_PAL_KIND}, {"hot", PA_FLAME_PAL_HOT},
	    {"mem", PA_FLAME_PAL_MEM},   {"io", PA_FLAME_PAL_IO},
	};
	for (size_t i = 0; name && i < PA_ARRAY_SIZE(tab); i++)
		if (!strcmp(name, tab[i].name)) {
			*pal = tab[i].pal;
			return 0;
		}
	return -EINVAL;
}

#define SVG_XPAD 10 /* keep in step with svg.c */

int pa_flame_conf_init(struct pa_flame_conf *c, const struct pa_flame_opts *opts,
		       enum pa_flame_format fmt, struct pa_err *err)
{
	struct pa_flame_opts o = {0};
	switch (pa_opts_check(opts, sizeof(o))) {
	case 0:
		break;
	case -EINVAL:
		return pa_err_set(err, PA_ERR_USAGE, "options: sz not set");
	default:
		return pa_err_set(err, PA_ERR_USAGE, "options: unknown fields set");
	}
	pa_opts_copy(&o, sizeof(o), opts);
	*c = (struct pa_flame_conf){
	    .title = o.title      ? o.title
		     : o.inverted ? "Icicle Graph"
				  : "Flame Graph",
	    .subtitle = o.subtitle && *o.subtitle ? o.subtitle : NULL,
	    .unit = o.unit && *o.unit ? o.unit : "samples",
	    .width = o.width ? o.width : 1200,
	    .minwidth = o.minwidth,
	    .inverted = o.inverted,
	    .palette = o.palette,
	    .diff_raw = o.diff_raw,
	};
	if (c->width < 100 || c->width > 1000000)
		return pa_err_set(err, PA_ERR_USAGE, "width %u out of range (100 to 1000000)",
				  c->width);
	if (!(c->minwidth >= 0 && c->minwidth <= 100))
		return pa_err_set(err, PA_ERR_USAGE, "minwidth must be a percentage (0 to 100)");
	if ((unsigned)c->palette > PA_FLAME_PAL_IO)
		return pa_err_set(err, PA_ERR_USAGE, "unknown palette %d", (int)c->palette);
	if (c->minwidth == 0 && fmt == PA_FLAME_SVG)
		c->minwidth = 0.1 * 100.0 / (c->width - 2 * SVG_XPAD);
	return 0;
}

/* ---- differential graphs ---- */

void pa_flame_delta(const struct pa_flame *fg, const struct pa_flame_conf *c,
		    const struct pa_flame_node *n, struct pa_flame_delta *d)
{
	uint64_t kids = 0, base_kids = 0, base_only = 0;
	for (const struct pa_flame_node *k = n->child; k; k = k->next) {
		kids += k->value;
		base_kids += k->base;
		if (!k->value)
			base_only += k->base;
	}
	uint64_t total = fg->root->value, btotal = fg->root->base;
	*d = (struct pa_flame_delta){
	    .self = n->value - kids,
	    .base_self = n->base - base_kids,
	    .base_only = base_only,
	    .only_new = !n->base,
	};
	if (c->diff_raw) {
		d->self_change = (double)d->self - (double)d->base_self;
		d->total_change = (double)n->value - (double)n->base;
		return;
	}
	double nt = total ? 100.0 / (double)total : 0, bt = btotal ? 100.0 / (double)btotal : 0;
	d->self_change = (double)d->self * nt - (double)d->base_self * bt;
	d->total_change = (double)n->value * nt - (double)n->base * bt;
}

/* Growth goes from white to red, shrink from white to blue, in
 * proportion to the change over the largest one drawn (flamegraph.pl's
 * differential scale); the darkest end keeps black labels legible. */
void pa_flame_diff_colour(const struct pa_flame_conf *c, double change, int rgb[3])
{
	double t = c->max_change > 0 ? change / c->max_change : 0;
	if (t > 1)
		t = 1;
	if (t < -1)
		t = -1;
	int fade = (int)(255.5 - 190.0 * (t < 0 ? -t : t));
	if (t > 0)
		rgb[0] = 255, rgb[1] = rgb[2] = fade;
	else if (t < 0)
		rgb[0] = rgb[1] = fade, rgb[2] = 255;
	else
		rgb[0] = rgb[1] = rgb[2] = 255;
}

const char *pa_flame_change_str(char *buf, const struct pa_flame_conf *c, double change)
{
	if (c->diff_raw)
		snprintf(buf, 64, "%+.0f %s", change, c->unit);
	else
		snprintf(buf, 64, "%+.2f pp", change);
	return buf;
}

/* The differential graph's scale and what it leaves out. */
static void diff_conf(struct pa_flame *fg, struct pa_flame_conf *c)
{
	uint64_t total = fg->root->value;
	c->diff = true;
	for (struct pa_flame_node *n = fg->root; total && n;) {
		if (!pa_flame_visible(c, n->value, total)) {
			if (!n->value && n->base && n->parent && n->parent->value) {
				c->base_only_frames++;
				c->base_only_value += n->base;
			}
			n = pa_flame_next(n, true);
			continue;
		}
		struct pa_flame_delta d;
		pa_flame_delta(fg, c, n, &d);
		double a = d.self_change < 0 ? -d.self_change : d.self_change;
		if (a > c->max_change)
			c->max_change = a;
		n = pa_flame_next(n, false);
	}
}

int pa_flame_write(struct pa_flame *fg, FILE *out, enum pa_flame_format fmt,
		   const struct pa_flame_opts *opts, struct pa_err *err)
{
	struct pa_flame_conf c;
	if (fmt != PA_FLAME_SVG && fmt != PA_FLAME_HTML)
		return pa_err_set(err, PA_ERR_USAGE, "unknown output format");
	int rc = pa_flame_conf_init(&c, opts, fmt, err);
	if (rc)
		return rc;
	if ((rc = pa_flame_prepare(fg)))
		return pa_err_set(err, rc, "%s", pa_strerror(rc));
	if (fg->diff)
		diff_conf(fg, &c);
	rc = fmt == PA_FLAME_SVG ? pa_flame_write_svg(fg, out, &c)
				 : pa_flame_write_html(fg, out, &c);
	if (rc)
		return pa_err_set(err, rc, "%s", pa_strerror(rc));
	if (fflush(out) || ferror(out))
		return pa_err_set(err, errno ? -errno : -EIO, "write error: %s",
				  strerror(errno ? errno : EIO));
	return 0;
}
