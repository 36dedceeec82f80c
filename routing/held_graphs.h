/*
 * held_graphs.h - the channel dependency graphs of the tables the switches
 * hold, built on another CPU while nothing is changing, so that the next
 * repair's transition plan starts from them instead of walking every LID
 * of the fabric again (routing/transition.c).
 */
#ifndef ROUTING_HELD_GRAPHS_H
#define ROUTING_HELD_GRAPHS_H

#include "routing/depgraph.h"
#include "routing/routing.h"

struct held_graphs;

/*
 * Starts building, on a thread of its own, the graph of every layer of t's
 * CA traffic (no answers: what a transition proves) on f. f and t must
 * stay as they are until held_graphs_free. NULL when no thread or memory
 * can be had: a plan then builds what it needs itself.
 */
struct held_graphs *held_graphs_start(const struct fabric *f, const struct routing_tables *t);
/* Waits for the build (if still running) and frees everything; NULL is fine. */
void held_graphs_free(struct held_graphs *h);

/*
 * Waits for the build, then: the graphs (layers of them; NULL if the build
 * failed, or if f is not the built-on fabric with nodes or links lost, or
 * links gained between switches where t sends nothing: each node of f
 * there by GUID, with the same ports and LIDs). On such an f, t's entries
 * (remapped to f by GUID) have
 * every dependency they had on the built-on fabric or fewer, so each
 * graph holds all of theirs. acyclic: whether every layer's graph is.
 */
const struct depgraph *held_graphs_for(struct held_graphs *h, const struct fabric *f, unsigned *layers,
				       bool *acyclic);

#endif
