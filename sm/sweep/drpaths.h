/*
 * drpaths.h - directed routes to every node of a model, recomputed after
 * its links changed (a repair unlinked or linked ports).
 */
#ifndef SM_DRPATHS_H
#define SM_DRPATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "topology/fabric.h"

/*
 * Gives every node reachable from the SM's node (the one at 0 hops) a
 * shortest directed route, breadth first by port number: node->hops,
 * path and local_port, and each CA port its own route (sm_node_reached).
 * reached[node->index] says which nodes it got to. -1 without memory or
 * without an SM node; the routes are then as they were.
 */
int drpaths_compute(struct fabric *f, bool *reached);
/* Takes the nodes not reached out of f (their sm_node freed); returns how many. */
size_t drpaths_prune(struct fabric *f, const bool *reached);

#endif
