/* rbtree.h - Linux's red-black tree insertion on array indices, so that a
 * replay of perf's insertions gives perf's tree shapes (report/ only). */
#ifndef PA_REPORT_RBTREE_H
#define PA_REPORT_RBTREE_H

#include <stddef.h>
#include <stdint.h>

#define PA_RB_NIL UINT32_MAX

struct pa_rb_node {
	uint32_t left, right, parent;
	uint8_t red;
};

struct pa_rb {
	struct pa_rb_node *node; /* by index */
	uint32_t root;
	size_t cap; /* indices below cap may be inserted */
};

/* Where the new node goes relative to an existing one: < 0 left, > 0
 * right, 0 found (nothing inserted). */
typedef int (*pa_rb_dir_fn)(void *ctx, uint32_t new_idx, uint32_t existing_idx);

/* For indices 0..n-1. init/release. */
int pa_rb_init(struct pa_rb *t, size_t n);
void pa_rb_release(struct pa_rb *t);
/* Room for indices 0..n-1 (the tree kept). */
int pa_rb_reserve(struct pa_rb *t, size_t n);
/* Insert idx; returns idx, or the node found equal. */
uint32_t pa_rb_insert(struct pa_rb *t, uint32_t idx, pa_rb_dir_fn dir, void *ctx);
/* Rebalance after linking node (red, no children) where a search ended:
 * what Linux's rb_link_node() + rb_insert_color() do. */
void pa_rb_insert_color(struct pa_rb *t, uint32_t node);
/* In-order walk; PA_RB_NIL at the end. */
uint32_t pa_rb_first(const struct pa_rb *t);
uint32_t pa_rb_next(const struct pa_rb *t, uint32_t n);

#endif
