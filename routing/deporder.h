/*
 * deporder.h - a topological order of an acyclic channel dependency graph
 * (one VL), kept as dependencies are added. A dependency u -> v that
 * agrees with the order costs nothing; one against it searches only what
 * v reaches below u, and either finds the cycle it closes or moves that
 * just above u, so that the order holds again. VL layering's take-back (routing/layers.c) asks it
 * whether a LID's dependencies fit on an acyclic layer, where a search of
 * everything the new dependencies reach cost milliseconds a try.
 */
#ifndef ROUTING_DEPORDER_H
#define ROUTING_DEPORDER_H

#include "routing/depgraph.h"

/* A dependency between two channels of a graph of one VL, by channel id (depgraph.h). */
struct dep_edge {
	uint32_t from, to;
};

/*
 * Places closer than this are spread again. A double keeps 52 bits; a
 * place below 2^22 (4 million channels) needs 22 of them, this step 20,
 * which leaves 10 for the sums of places and steps to stay exact enough.
 */
#define DEPORDER_MIN_STEP 0x1p-20

struct deporder {
	const struct depgraph *g;
	size_t nch;
	double *place;		/* per channel: its place in the order (room between places) */
	double min_step;	/* DEPORDER_MIN_STEP, or wider (tests spread often) */
	uint32_t *node;		/* per channel: the node index it belongs to */
	uint32_t *mark;		/* per channel: the search that met it last */
	uint32_t search;
	uint32_t *met;		/* what the last search met */
	size_t nmet;
	uint32_t *stack;	/* scratch */
	/* the dependencies of one deporder_admit, sorted; per channel, how many leave it not taken in yet */
	struct dep_edge *pending;
	size_t npending, cap;
	uint16_t *pending_out;
};

/*
 * An order of g, which must be acyclic and have one VL: 0, 1 when g has a
 * cycle after all (o then holds nothing to free), -1 on allocation failure.
 * o reads g as it changes: the caller adds and removes its dependencies.
 */
int deporder_init(struct deporder *o, const struct depgraph *g);
/*
 * g now holds the n dependencies e[] on top of the graph o orders (none of
 * them in it before): 0 when g is still acyclic (o orders g), 1 when they
 * close a cycle (o still orders g without them: take them out again), -1
 * on allocation failure (o no longer to be trusted).
 */
int deporder_admit(struct deporder *o, const struct dep_edge *e, size_t n);
void deporder_free(struct deporder *o);

#endif
