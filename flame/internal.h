/* internal.h - what the flame/ files share; not for use outside flame/.
 *
 * The tree: every node has a parent, a singly linked list of children and
 * a next sibling. Children are found through one hash table keyed by
 * (parent id, name id, kind). pa_flame_prepare() sorts every sibling list
 * (by the name's rank in byte order, then kind) and computes x offsets;
 * it runs again only after stacks were added.
 */
#ifndef PA_FLAME_INTERNAL_H
#define PA_FLAME_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flame.h"

struct pa_flame_node {
	struct pa_flame_node *parent, *child, *next;
	uint64_t value;
	uint64_t base; /* the baseline's value (differential graphs) */
	uint64_t x;    /* valid after pa_flame_prepare() */
	uint32_t id, name, depth;
	uint8_t kind;
};

struct pa_flame_name {
	const char *s; /* NUL-terminated copy in the arena */
	uint32_t len;
	uint32_t hash; /* FNV-1a of the bytes; seeds the colour */
	uint32_t rank; /* position in byte order, valid after prepare */
};

struct pa_flame {
	struct pa_arena arena;
	struct pa_flame_node *root;
	uint32_t nnodes; /* including the root */
	/* (parent, name, kind) -> node; open addressing, power-of-two size */
	struct pa_flame_node **tab;
	size_t tab_cap;
	/* interned names; name_tab holds id + 1, 0 for empty */
	struct pa_flame_name *names;
	uint32_t nnames, names_cap;
	uint32_t *name_tab;
	size_t name_tab_cap;
	bool baseline;    /* stacks added now go to base (pa_flame_set_baseline) */
	bool diff;        /* a baseline was set: a differential graph */
	bool ranks_stale; /* names added since the last rank_names() */
	bool order_stale; /* stacks added since the last pa_flame_prepare() */
};

/* Sort siblings and compute x. Returns 0 or -ENOMEM. */
int pa_flame_prepare(struct pa_flame *fg);

/* Preorder successor; with skip, not into n's children. NULL at the end. */
static inline struct pa_flame_node *pa_flame_next(struct pa_flame_node *n, bool skip)
{
	if (!skip && n->child)
		return n->child;
	for (; n; n = n->parent)
		if (n->next)
			return n->next;
	return NULL;
}

/* ---- output helpers (out.c) ---- */

/* Code points in s, as pa_utf8_next (util.h) counts them. */
size_t pa_flame_utf8_count(const char *s, size_t len);

/* 1234567 -> "1,234,567" (buf of 32 bytes). */
const char *pa_flame_commas(char *buf, uint64_t v);

/* The colour of a frame: rgb in 0..255. cxx: the name has "::". */
void pa_flame_colour(enum pa_flame_palette pal, enum pa_flame_kind kind, uint32_t hash, bool cxx,
		     int rgb[3]);
uint32_t pa_flame_hash(const char *s, size_t len);

/* Effective options: defaults filled in. */
struct pa_flame_conf {
	const char *title, *subtitle, *unit;
	unsigned width;
	double minwidth; /* percent; 0 keeps everything */
	bool inverted;
	enum pa_flame_palette palette;
	/* differential graphs (fg->diff): the largest |self change| of the
	 * frames drawn, and the baseline-only frames left out */
	bool diff, diff_raw;
	double max_change;
	uint64_t base_only_frames, base_only_value;
};

/* A drawn frame's numbers in a differential graph. Changes are percentage
 * points of each side's total, or samples with diff_raw. */
struct pa_flame_delta {
	uint64_t self, base_self;
	uint64_t base_only; /* baseline value of children that only the baseline has */
	double self_change, total_change;
	bool only_new;
};
void pa_flame_delta(const struct pa_flame *fg, const struct pa_flame_conf *c,
		    const struct pa_flame_node *n, struct pa_flame_delta *d);
/* The colour of a change: white for none, red growth, blue shrink, more
 * saturated towards max_change. */
void pa_flame_diff_colour(const struct pa_flame_conf *c, double change, int rgb[3]);
/* "+1.23 pp" / "-4 samples" into buf (64 bytes). */
const char *pa_flame_change_str(char *buf, const struct pa_flame_conf *c, double change);
int pa_flame_conf_init(struct pa_flame_conf *c, const struct pa_flame_opts *opts,
		       enum pa_flame_format fmt, struct pa_err *err);
/* Is the frame wide enough to be drawn? */
static inline bool pa_flame_visible(const struct pa_flame_conf *c, uint64_t value, uint64_t total)
{
	return value && (double)value * 100.0 >= c->minwidth * (double)total;
}

int pa_flame_write_svg(struct pa_flame *fg, FILE *out, const struct pa_flame_conf *c);
int pa_flame_write_html(struct pa_flame *fg, FILE *out, const struct pa_flame_conf *c);

/* Embedded assets: flame/svg.js, html.js, html.css as C strings (cmake/embed.cmake). */
extern const char pa_flame_asset_svg_js[];
extern const char pa_flame_asset_html_js[];
extern const char pa_flame_asset_html_css[];

#endif
