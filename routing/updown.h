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
	/* per switch index: route only the LIDs of these switches (NULL: all), the ports left unbalanced */
	const bool *only;
	/*
	 * With only: out already holds f's tables, and only those switches'
	 * LID columns are routed into it (first set to LFT_NO_PATH), the
	 * others kept; no second table of the whole fabric is allocated.
	 */
	bool in_place;
	/*
	 * loads: each port's count of CA LIDs to start from, as a fill over
	 * the same switch index left them (NULL: none); loads_out: where a
	 * fill hands its own over (the caller frees them; NULL: nowhere).
	 */
	const uint32_t *loads;
	uint32_t **loads_out;
	/*
	 * The LID of a switch without hosts that some leaf has no legal path
	 * to is only reported in gaps, its column left unrouted: the caller
	 * routes those LIDs elsewhere, or drops these tables.
	 */
	bool gaps_elsewhere;
};

/* What up/down could not route legally from every leaf. */
struct updown_gaps {
	size_t ca_pairs;	/* (leaf switch, CA LID) pairs without a legal path */
	uint16_t *switch_lids;	/* switch LIDs that some leaf has no legal path to */
	size_t nswitch_lids;
};

void updown_gaps_free(struct updown_gaps *g);

/*
 * Routes every LID on shortest up*down* paths of the order in plan->r: a
 * switch that can reach the destination going only down does so, others
 * go up. Switches without a legal path get an escape route (updown.c);
 * the leaves left without one go to *gaps (free it with updown_gaps_free).
 * With plan->only, the LIDs of other switches are left LFT_NO_PATH (or as
 * they were, plan->in_place) and count for no port's load, and no
 * balancing pass follows (a partial routing has no balance to keep). -1 on
 * allocation failure (out then freed, unless in place).
 */
int updown_fill(const struct fabric *f, const struct updown_plan *plan, struct routing_tables *out,
		struct updown_gaps *gaps);

/* The legal next hops of every switch towards one destination switch. */
struct updown_next {
	const size_t *base;	/* per switch index: where its ports start in cand[] */
	const uint8_t *cand;	/* candidate ports: one hop closer on a shortest legal path */
	const uint8_t *ncand;	/* per switch index: how many */
	const uint16_t *dist;	/* per switch index: legal distance, UINT16_MAX when none */
};

/*
 * Calls fn(arg, d, next) for each ranked destination switch d (only those
 * with want[d] when want is not NULL) with the candidates of every switch; where dist is UINT16_MAX the candidates are
 * an escape route (plain shortest path). Stops at fn's first nonzero
 * return and returns it; -1 on allocation failure.
 */
typedef int (*updown_dest_fn)(void *arg, size_t d, const struct updown_next *next);
int updown_each_destination(const struct fabric *f, const struct updown_plan *plan, const bool *want,
			    updown_dest_fn fn, void *arg);

#endif
