/*
 * topo_order.h - an order of an acyclic dependency graph's channels that
 * every dependency goes up, kept as dependencies are added one by one
 * (Pearce and Kelly's dynamic topological order): a dependency that
 * already goes up costs nothing, one that goes down costs a search of
 * the channels between its ends only, and a cycle it would close is
 * found by that search.
 */
#ifndef ROUTING_TOPO_ORDER_H
#define ROUTING_TOPO_ORDER_H

#include <stdint.h>

#include "routing/depgraph.h"

struct topo_order {
	const struct depgraph *g;	/* a graph of one VL */
	uint32_t *ord;		/* per channel: its place */
	uint32_t *seen;		/* per channel: the search that met it */
	uint32_t search;
	uint32_t *stack;
	uint64_t *fwd, *bwd;	/* what a search met: place << 32 | channel */
	size_t nfwd, nbwd;
	uint32_t *places;
	const struct node **node_of;	/* per channel: its node and port */
	uint8_t *port_of;
};

/* The order of g (acyclic) as it stands: 0, 1 when g has a cycle, -1 on allocation failure. */
int topo_order_init(struct topo_order *o, struct depgraph *g);
/*
 * Whether "(a, pa) waits for (b, pb)", not in g yet, can join g without
 * closing a cycle: 0 (the order then holds with it, and the caller adds
 * it to g), 1 when it would close one.
 */
int topo_order_insert(struct topo_order *o, const struct node *a, uint8_t pa, const struct node *b, uint8_t pb);
void topo_order_free(struct topo_order *o);

#endif
