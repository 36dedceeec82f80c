/*
 * cdg_rows.h - the channel dependencies of traffic that (nearly) every
 * switch sends to some destinations (on layer 0 the switches answer the
 * hosts: traffic to a host starts almost everywhere), built table row by
 * table row instead of one walk per destination.
 */
#ifndef ROUTING_CDG_ROWS_H
#define ROUTING_CDG_ROWS_H

#include "routing/depgraph.h"
#include "routing/routing.h"

/* Where the walks start: per node index. */
struct cdg_starts {
	const bool *always;	/* towards every LID */
	const bool *mine;	/* also towards the LIDs with mine_lid[lid] set */
	const bool *mine_lid;
};

/*
 * Adds to g the dependencies of the walks along t towards each LID of
 * lids[0..n) (each at most t->max_lid) from the switches s says, that is
 * every reached switch's turn into the next switch's entry: (sw, out) ->
 * (next, next's out). Meant for starts that leave out few switches with
 * a table: for those, whether a walk reaches them is worked out per LID
 * from their neighbours' rows. -1 on allocation failure.
 */
int cdg_add_rows(const struct fabric *f, const struct routing_tables *t, const uint16_t *lids, size_t n,
		 const struct cdg_starts *s, struct depgraph *g);

#endif
