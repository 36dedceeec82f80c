/*
 * swindex.h - the switches of a fabric numbered 0..nsw-1, the index every
 * routing engine works in.
 */
#ifndef ROUTING_SWINDEX_H
#define ROUTING_SWINDEX_H

#include <stddef.h>
#include "topology/fabric.h"

#define SW_NONE SIZE_MAX

struct swindex {
	size_t nsw;
	size_t *of_node;	/* node index -> switch index, or SW_NONE */
	struct node **sw;	/* switch index -> node */
};

/* Numbers f's switches in f->nodes order; -1 on allocation failure. */
int swindex_build(struct swindex *x, const struct fabric *f);
void swindex_free(struct swindex *x);

/* The switch index behind (n, port), or SW_NONE for a CA or nothing. */
static inline size_t swindex_peer(const struct swindex *x, const struct node *n, unsigned port)
{
	const struct node *r = n->ports[port].remote;
	return r && r->type == NODE_SWITCH ? x->of_node[r->index] : SW_NONE;
}

#endif
