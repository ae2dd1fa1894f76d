/* rbtree.h - the Linux kernel's red-black tree (lib/rbtree.c) on array
 * indices.
 *
 * perf keeps hist entries and symbols in rb-trees whose output depends on
 * the trees' shapes (comparators that are not orders, overlapping symbols
 * found by a tree walk). Replaying perf's insertions and erasures with the
 * same rebalancing, case for case, gives the same shapes, hence perf's
 * output. report/ and symbols/ both use this one implementation.
 *
 * Invariants: nodes live in an array owned by struct pa_rb and are named by
 * their index; PA_RB_NIL is "no node". A node that is not in the tree is
 * ignored by every function here; per-node payloads live in parallel arrays
 * indexed the same way.
 */
#ifndef PA_UTIL_RBTREE_H
#define PA_UTIL_RBTREE_H

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

/* For indices 0..n-1; 0 or -ENOMEM. Released by pa_rb_release(). */
int pa_rb_init(struct pa_rb *t, size_t n);
/* Frees the node array (t itself is the caller's); accepts a zeroed t. */
void pa_rb_release(struct pa_rb *t);
/* Room for indices 0..n-1 (the tree kept): the capacity doubles from 64
 * until it covers n. 0 or -ENOMEM. */
int pa_rb_reserve(struct pa_rb *t, size_t n);

/* Insert idx (idx < cap) by the search dir describes; returns idx, or the
 * node found equal (then nothing is inserted). */
uint32_t pa_rb_insert(struct pa_rb *t, uint32_t idx, pa_rb_dir_fn dir, void *ctx);
/* Rebalance after linking node (red, no children) where a search ended:
 * what Linux's rb_link_node() + rb_insert_color() do. */
void pa_rb_insert_color(struct pa_rb *t, uint32_t node);
/* Unlink node and rebalance: Linux's rb_erase(). The erased node's links
 * are reset to PA_RB_NIL. */
void pa_rb_erase(struct pa_rb *t, uint32_t node);

/* In-order walk; PA_RB_NIL at the end. */
uint32_t pa_rb_first(const struct pa_rb *t);
uint32_t pa_rb_next(const struct pa_rb *t, uint32_t n);

#endif
