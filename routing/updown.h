/*
 * updown.h - the up/down routing core shared by the fat-tree and up/down
 * engines. Internal to routing/.
 */
#ifndef ROUTING_UPDOWN_H
#define ROUTING_UPDOWN_H

#include "routing/rank.h"
#include "routing/routing.h"
#include "routing/swindex.h"

/* How to pick among equally short up-ports; NULL members: least loaded. */
struct updown_plan {
	const struct swindex *x;
	const struct rank *r;
	/*
	 * D-mod-K: up_order[s] lists switch s's up-ports in digit order; the
	 * destination numbered j leaves s on up_order[s][(j / stride[level]) %
	 * n_up[s]] when that port is on a shortest legal path.
	 */
	uint8_t **up_order;
	uint8_t *n_up;
	uint64_t *stride;
};

/*
 * Routes every LID on shortest up*down* paths of the order in plan->r: a
 * switch that can reach the destination going only down does so, others
 * go up. *unreachable counts (leaf switch, CA LID) pairs that have no
 * legal path; other switches without one get an escape route (updown.c). -1 on allocation failure.
 */
int updown_fill(const struct fabric *f, const struct updown_plan *plan, struct routing_tables *out,
		size_t *unreachable);

#endif
