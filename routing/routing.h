/*
 * routing.h - what a routing engine returns: a linear forwarding table per
 * switch. Engines are pure functions of the fabric model (with LIDs
 * assigned); they never send a MAD.
 */
#ifndef ROUTING_H
#define ROUTING_H

#include <stdint.h>
#include "topology/fabric.h"

#define LFT_NO_PATH 0xff	/* as in a switch's LFT: drop */

struct routing_tables {
	uint16_t max_lid;	/* highest unicast LID in use */
	size_t nnodes;		/* == fabric.nnodes when computed */
	uint8_t **lft;		/* lft[node index][lid]: out port; NULL for non-switches */
};

void routing_tables_free(struct routing_tables *t);
/* Allocates one LFT (max_lid + 1 entries of LFT_NO_PATH) per switch; -1 on failure. */
int routing_tables_alloc(struct routing_tables *t, const struct fabric *f, uint16_t max_lid);
/* The highest LID assigned in f. */
uint16_t routing_max_lid(const struct fabric *f);

/*
 * Min-hop: every switch forwards each LID on a shortest path; among the
 * equally short ports it picks the one that carries the fewest LIDs so far
 * (balanced by destination, like OpenSM's default engine).
 */
int minhop_route(const struct fabric *f, struct routing_tables *out);

#endif
