/* rbtree.c - the Linux kernel's red-black tree insertion, on indices.
 *
 * perf keeps hist entries in rb-trees whose comparators are not always
 * orders (the children sort compares call-graph depths only between
 * entries of one thread; unresolved addresses compare by a wrapping
 * difference), so the output order depends on the tree's shape. Replaying
 * the same insertions with the same rebalancing (lib/rbtree.c's
 * __rb_insert) gives the same shape, hence perf's order.
 */
#include "rbtree.h"

#include <errno.h>
#include <stdlib.h>

int pa_rb_init(struct pa_rb *t, size_t n)
{
	t->node = malloc((n + 1) * sizeof(*t->node));
	t->root = PA_RB_NIL;
	t->cap = t->node ? n + 1 : 0;
	return t->node ? 0 : -ENOMEM;
}

int pa_rb_reserve(struct pa_rb *t, size_t n)
{
	if (n <= t->cap)
		return 0;
	size_t cap = t->cap ? t->cap : 64;
	while (cap < n)
		cap *= 2;
	struct pa_rb_node *p = realloc(t->node, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->node = p;
	t->cap = cap;
	return 0;
}

void pa_rb_release(struct pa_rb *t)
{
	free(t->node);
	t->node = NULL;
}

static void change_child(struct pa_rb *t, uint32_t old, uint32_t new, uint32_t parent)
{
	if (parent == PA_RB_NIL)
		t->root = new;
	else if (t->node[parent].left == old)
		t->node[parent].left = new;
	else
		t->node[parent].right = new;
}

/* __rb_rotate_set_parents: new takes old's place and colour, old becomes
 * new's child with the given colour. */
static void rotate_set_parents(struct pa_rb *t, uint32_t old, uint32_t new, uint8_t red)
{
	uint32_t parent = t->node[old].parent;
	t->node[new].parent = parent;
	t->node[new].red = t->node[old].red;
	t->node[old].parent = new;
	t->node[old].red = red;
	change_child(t, old, new, parent);
}

void pa_rb_insert_color(struct pa_rb *t, uint32_t node)
{
	struct pa_rb_node *n = t->node;
	uint32_t parent = n[node].parent, gparent, tmp;
	for (;;) {
		if (parent == PA_RB_NIL) {
			n[node].red = 0;
			break;
		}
		if (!n[parent].red)
			break;
		gparent = n[parent].parent;
		tmp = n[gparent].right;
		if (parent != tmp) { /* parent is gparent's left child */
			if (tmp != PA_RB_NIL && n[tmp].red) {
				n[tmp].red = 0;
				n[parent].red = 0;
				node = gparent;
				parent = n[node].parent;
				n[node].red = 1;
				continue;
			}
			tmp = n[parent].right;
			if (node == tmp) {
				/* left rotate at parent */
				tmp = n[node].left;
				n[parent].right = tmp;
				n[node].left = parent;
				if (tmp != PA_RB_NIL) {
					n[tmp].parent = parent;
					n[tmp].red = 0;
				}
				n[parent].parent = node;
				n[parent].red = 1;
				parent = node;
				tmp = n[node].right;
			}
			/* right rotate at gparent */
			n[gparent].left = tmp;
			n[parent].right = gparent;
			if (tmp != PA_RB_NIL) {
				n[tmp].parent = gparent;
				n[tmp].red = 0;
			}
			rotate_set_parents(t, gparent, parent, 1);
			break;
		} else {
			tmp = n[gparent].left;
			if (tmp != PA_RB_NIL && n[tmp].red) {
				n[tmp].red = 0;
				n[parent].red = 0;
				node = gparent;
				parent = n[node].parent;
				n[node].red = 1;
				continue;
			}
			tmp = n[parent].left;
			if (node == tmp) {
				/* right rotate at parent */
				tmp = n[node].right;
				n[parent].left = tmp;
				n[node].right = parent;
				if (tmp != PA_RB_NIL) {
					n[tmp].parent = parent;
					n[tmp].red = 0;
				}
				n[parent].parent = node;
				n[parent].red = 1;
				parent = node;
				tmp = n[node].left;
			}
			/* left rotate at gparent */
			n[gparent].right = tmp;
			n[parent].left = gparent;
			if (tmp != PA_RB_NIL) {
				n[tmp].parent = gparent;
				n[tmp].red = 0;
			}
			rotate_set_parents(t, gparent, parent, 1);
			break;
		}
	}
}

uint32_t pa_rb_insert(struct pa_rb *t, uint32_t idx, pa_rb_dir_fn dir, void *ctx)
{
	uint32_t parent = PA_RB_NIL, *link = &t->root;
	while (*link != PA_RB_NIL) {
		parent = *link;
		int d = dir(ctx, idx, parent);
		if (d == 0)
			return parent;
		link = d < 0 ? &t->node[parent].left : &t->node[parent].right;
	}
	t->node[idx] = (struct pa_rb_node){PA_RB_NIL, PA_RB_NIL, parent, 1};
	*link = idx;
	pa_rb_insert_color(t, idx);
	return idx;
}

uint32_t pa_rb_first(const struct pa_rb *t)
{
	uint32_t n = t->root;
	if (n == PA_RB_NIL)
		return n;
	while (t->node[n].left != PA_RB_NIL)
		n = t->node[n].left;
	return n;
}

uint32_t pa_rb_next(const struct pa_rb *t, uint32_t n)
{
	if (t->node[n].right != PA_RB_NIL) {
		n = t->node[n].right;
		while (t->node[n].left != PA_RB_NIL)
			n = t->node[n].left;
		return n;
	}
	uint32_t p;
	while ((p = t->node[n].parent) != PA_RB_NIL && n == t->node[p].right)
		n = p;
	return p;
}
