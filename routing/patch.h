/*
 * patch.h - mending one destination's routes in place. Internal to
 * routing/ (routing/stable.c): after a loss, the switches whose old entry
 * for a LID no longer delivers are re-pointed at neighbours that do,
 * without routing the whole fabric again.
 */
#ifndef ROUTING_PATCH_H
#define ROUTING_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/rank.h"
#include "routing/routing.h"
#include "routing/swindex.h"

/* A switch's verdict on one LID's column, as routing/stable.c walks it. */
enum column_verdict { COLUMN_UNSEEN, COLUMN_ON_WALK, COLUMN_DELIVERS, COLUMN_FAILS };

struct column_patch {
	const struct swindex *x;
	const struct rank *r;	/* up*-down* order: which turns are legal */
	struct routing_tables *t;	/* the tables being mended, indexed by f's nodes */
	uint32_t *load;		/* [s * PATCH_PORT_SLOTS + p]: CA LIDs switch s sends out of p */
	bool *load_counted;	/* [s]: its row of load[] is filled */
	uint32_t *dist;		/* [s]: switch hops to the destination's switch, PATCH_UNSETTLED */
	uint8_t *how;		/* [s]: how the route from s runs (patch.c) */
	uint16_t lid;		/* the column being mended */
	uint32_t *seen, stamp;	/* [s] == stamp: how[s] and dist[s] are this column's */
	size_t *failing, nfailing;	/* the switches that do not deliver */
	size_t *order, *queue;	/* the search's starts by distance; its queue */
	size_t *stack;		/* a walk along the entries */
	size_t *found;		/* the starts, as found */
	uint32_t *key;		/* [s]: a start's hops, as found */
	uint32_t *count;	/* counting sort of the distances */
	bool *ca_lid;		/* [lid]: a CA's, counted in the load */
	bool *leaf;		/* [s]: a CA is cabled to switch s */
	/*
	 * [s * PATCH_PORT_SLOTS + q]: the switch port q of s leads to,
	 * PATCH_NO_PEER for port 0, a CA or no cable; and [s]: s's row of t.
	 * The searches step by these, touching no node.
	 */
	uint32_t *peer;
	uint8_t **row;
};

#define PATCH_PORT_SLOTS (FABRIC_MAX_PORTS + 1)
#define PATCH_UNSETTLED UINT32_MAX
#define PATCH_NO_PEER UINT32_MAX

/*
 * Sets up for mending t (a fabric's tables: own[lid] where each of its
 * LIDs lives) with its switches x ranked by r. -1 on allocation failure.
 */
int column_patch_init(struct column_patch *p, const struct lid_owner *own, const struct swindex *x,
		      const struct rank *r, struct routing_tables *t);
void column_patch_free(struct column_patch *p);

/*
 * Re-points the switches of lid's column that do not deliver it
 * (verdict[s] other than COLUMN_DELIVERS, s as x numbers the switches) so that every switch
 * does, without a loop: each takes a port to a neighbour that delivers,
 * on the fewest hops, an up*-down* legal route first and an escape route
 * (down, then up) only where none is legal, then the port that carries
 * the fewest CA LIDs. The switches that deliver keep their entries, and
 * the re-pointed ones are walked again. dst: where lid lives. 0 when
 * mended, with *leaf_escapes
 * true when a switch with CAs cabled to it reaches lid only by an escape
 * (what the fat-tree engine puts on a layer of its own); 1 when some
 * switch cannot reach it.
 */
int column_patch_mend(struct column_patch *p, uint16_t lid, const struct lid_owner *dst, const uint8_t *verdict,
		      bool *leaf_escapes);

#endif
