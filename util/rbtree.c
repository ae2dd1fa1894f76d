/* rbtree.c - the Linux kernel's red-black tree, on indices.
 *
 * Insertion is lib/rbtree.c's __rb_insert, erasure its
 * __rb_erase_augmented + ____rb_erase_color (without augmentation), case
 * for case: callers depend on the shapes they produce (see rbtree.h). The
 * algorithms are the classic ones; the code is ours.
 */
#include "util/rbtree.h"
#include "util/util.h"

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
	return PA_GROW(t->node, t->cap, n, 64);
}

void pa_rb_release(struct pa_rb *t)
{
	free(t->node);
	t->node = NULL;
	t->cap = 0;
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

static void set_parent_black(struct pa_rb_node *n, uint32_t node, uint32_t parent)
{
	n[node].parent = parent;
	n[node].red = 0;
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
				/* uncle red: flip colours, go up */
				n[tmp].red = 0;
				n[parent].red = 0;
				node = gparent;
				parent = n[node].parent;
				n[node].red = 1;
				continue;
			}
			tmp = n[parent].right;
			if (node == tmp) {
				/* node is the right child: left rotate at parent */
				tmp = n[node].left;
				n[parent].right = tmp;
				n[node].left = parent;
				if (tmp != PA_RB_NIL)
					set_parent_black(n, tmp, parent);
				n[parent].parent = node;
				n[parent].red = 1;
				parent = node;
				tmp = n[node].right;
			}
			/* right rotate at gparent */
			n[gparent].left = tmp;
			n[parent].right = gparent;
			if (tmp != PA_RB_NIL)
				set_parent_black(n, tmp, gparent);
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
				if (tmp != PA_RB_NIL)
					set_parent_black(n, tmp, parent);
				n[parent].parent = node;
				n[parent].red = 1;
				parent = node;
				tmp = n[node].left;
			}
			/* left rotate at gparent */
			n[gparent].right = tmp;
			n[parent].left = gparent;
			if (tmp != PA_RB_NIL)
				set_parent_black(n, tmp, gparent);
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

/* ____rb_erase_color: parent lost a black node on its (now NIL) side. */
static void erase_color(struct pa_rb *t, uint32_t parent)
{
	struct pa_rb_node *n = t->node;
	uint32_t node = PA_RB_NIL, sibling, tmp1, tmp2;

	for (;;) {
		sibling = n[parent].right;
		if (node != sibling) { /* node is parent's left child */
			if (n[sibling].red) {
				/* left rotate at parent */
				tmp1 = n[sibling].left;
				n[parent].right = tmp1;
				n[sibling].left = parent;
				set_parent_black(n, tmp1, parent);
				rotate_set_parents(t, parent, sibling, 1);
				sibling = tmp1;
			}
			tmp1 = n[sibling].right;
			if (tmp1 == PA_RB_NIL || !n[tmp1].red) {
				tmp2 = n[sibling].left;
				if (tmp2 == PA_RB_NIL || !n[tmp2].red) {
					/* sibling colour flip */
					n[sibling].red = 1;
					if (n[parent].red) {
						n[parent].red = 0;
					} else {
						node = parent;
						parent = n[node].parent;
						if (parent != PA_RB_NIL)
							continue;
					}
					break;
				}
				/* right rotate at sibling */
				tmp1 = n[tmp2].right;
				n[sibling].left = tmp1;
				n[tmp2].right = sibling;
				n[parent].right = tmp2;
				if (tmp1 != PA_RB_NIL)
					set_parent_black(n, tmp1, sibling);
				tmp1 = sibling;
				sibling = tmp2;
			}
			/* left rotate at parent + colour flips */
			tmp2 = n[sibling].left;
			n[parent].right = tmp2;
			n[sibling].left = parent;
			set_parent_black(n, tmp1, sibling);
			if (tmp2 != PA_RB_NIL)
				n[tmp2].parent = parent;
			rotate_set_parents(t, parent, sibling, 0);
			break;
		} else {
			sibling = n[parent].left;
			if (n[sibling].red) {
				/* right rotate at parent */
				tmp1 = n[sibling].right;
				n[parent].left = tmp1;
				n[sibling].right = parent;
				set_parent_black(n, tmp1, parent);
				rotate_set_parents(t, parent, sibling, 1);
				sibling = tmp1;
			}
			tmp1 = n[sibling].left;
			if (tmp1 == PA_RB_NIL || !n[tmp1].red) {
				tmp2 = n[sibling].right;
				if (tmp2 == PA_RB_NIL || !n[tmp2].red) {
					n[sibling].red = 1;
					if (n[parent].red) {
						n[parent].red = 0;
					} else {
						node = parent;
						parent = n[node].parent;
						if (parent != PA_RB_NIL)
							continue;
					}
					break;
				}
				/* left rotate at sibling */
				tmp1 = n[tmp2].left;
				n[sibling].right = tmp1;
				n[tmp2].left = sibling;
				n[parent].left = tmp2;
				if (tmp1 != PA_RB_NIL)
					set_parent_black(n, tmp1, sibling);
				tmp1 = sibling;
				sibling = tmp2;
			}
			/* right rotate at parent + colour flips */
			tmp2 = n[sibling].right;
			n[parent].left = tmp2;
			n[sibling].right = parent;
			set_parent_black(n, tmp1, sibling);
			if (tmp2 != PA_RB_NIL)
				n[tmp2].parent = parent;
			rotate_set_parents(t, parent, sibling, 0);
			break;
		}
	}
}

void pa_rb_erase(struct pa_rb *t, uint32_t node)
{
	struct pa_rb_node *n = t->node;
	uint32_t child = n[node].right, tmp = n[node].left, parent, rebalance;

	if (tmp == PA_RB_NIL) {
		/* at most one child, on the right */
		parent = n[node].parent;
		change_child(t, node, child, parent);
		if (child != PA_RB_NIL) {
			n[child].parent = parent;
			n[child].red = n[node].red;
			rebalance = PA_RB_NIL;
		} else {
			rebalance = n[node].red ? PA_RB_NIL : parent;
		}
	} else if (child == PA_RB_NIL) {
		/* one child, on the left */
		parent = n[node].parent;
		n[tmp].parent = parent;
		n[tmp].red = n[node].red;
		change_child(t, node, tmp, parent);
		rebalance = PA_RB_NIL;
	} else {
		uint32_t successor = child, child2;
		tmp = n[child].left;
		if (tmp == PA_RB_NIL) {
			/* the successor is the right child */
			parent = successor;
			child2 = n[successor].right;
		} else {
			/* the successor is leftmost in the right subtree */
			do {
				parent = successor;
				successor = tmp;
				tmp = n[tmp].left;
			} while (tmp != PA_RB_NIL);
			child2 = n[successor].right;
			n[parent].left = child2;
			n[successor].right = child;
			n[child].parent = successor;
		}
		tmp = n[node].left;
		n[successor].left = tmp;
		n[tmp].parent = successor;
		uint32_t np = n[node].parent;
		uint8_t ncolor = n[node].red;
		change_child(t, node, successor, np);
		if (child2 != PA_RB_NIL) {
			set_parent_black(n, child2, parent);
			rebalance = PA_RB_NIL;
		} else {
			rebalance = n[successor].red ? PA_RB_NIL : parent;
		}
		n[successor].parent = np;
		n[successor].red = ncolor;
	}
	if (rebalance != PA_RB_NIL)
		erase_color(t, rebalance);
	n[node].left = n[node].right = n[node].parent = PA_RB_NIL;
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
