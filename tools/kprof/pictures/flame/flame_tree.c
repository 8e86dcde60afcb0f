/*
 * flame_tree.c - the flame graph's prefix tree (flame.h): nodes in one
 * growing array, each with its first child and next sibling as indexes,
 * so a node's address changes as the array grows but its index does not.
 * Children are looked up by (parent, name) in a hash index: most frames
 * have few callees, but a process has a child per thread, and a log of
 * 80,000 threads made a scan of the siblings quadratic.
 */
#include "tools/kprof/pictures/flame/flame.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

static size_t add_node(struct kp_flame *fl, const char *name, enum kp_flame_kind kind, enum kp_flame_tone tone)
{
	fl->nodes = kp_grow(fl->nodes, &fl->cap, fl->nnodes + 1, sizeof(*fl->nodes));
	fl->nodes[fl->nnodes] = (struct kp_flame_node){ .name = kp_xstrdup(name), .kind = (uint8_t)kind,
							.tone = (uint8_t)tone };
	return fl->nnodes++;
}

void kp_flame_init(struct kp_flame *fl)
{
	*fl = (struct kp_flame){ 0 };
	add_node(fl, "all", KP_FLAME_ROOT, KP_TONE_WORK);
}

void kp_flame_free(struct kp_flame *fl)
{
	for (size_t i = 0; i < fl->nnodes; i++)
		free(fl->nodes[i].name);
	free(fl->nodes);
	kp_index_free(&fl->by_name);
	*fl = (struct kp_flame){ 0 };
}

size_t kp_flame_child(struct kp_flame *fl, size_t parent, const char *name, enum kp_flame_kind kind,
		      enum kp_flame_tone tone)
{
	uint64_t h = kp_hash_str(name, parent);
	size_t it;

	for (size_t c = kp_index_first(&fl->by_name, h, &it); c != KP_INDEX_NONE; c = kp_index_next(&fl->by_name, h, &it))
		if (fl->nodes[c].parent == parent && !strcmp(fl->nodes[c].name, name))
			return c;
	size_t n = add_node(fl, name, kind, tone);
	fl->nodes[n].parent = parent;
	kp_index_add(&fl->by_name, h, n);
	fl->nodes[n].sibling = fl->nodes[parent].child;
	fl->nodes[parent].child = n + 1;
	return n;
}

static int cmp_node_name(const void *a, const void *b)
{
	return strcmp((*(const struct kp_flame_node *const *)a)->name, (*(const struct kp_flame_node *const *)b)->name);
}

const struct kp_flame_node **kp_flame_children(const struct kp_flame *fl, const struct kp_flame_node *node,
					       size_t *n)
{
	size_t nc = 0;

	for (size_t c = node->child; c; c = fl->nodes[c - 1].sibling)
		nc++;
	const struct kp_flame_node **kids = kp_xrealloc(NULL, nc ? nc : 1, sizeof(*kids));
	nc = 0;
	for (size_t c = node->child; c; c = fl->nodes[c - 1].sibling)
		kids[nc++] = &fl->nodes[c - 1];
	kp_sort(kids, nc, sizeof(*kids), cmp_node_name);
	*n = nc;
	return kids;
}
