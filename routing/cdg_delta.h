/*
 * cdg_delta.h - what changing a few entries adds to a state's channel
 * dependency graph. A transition step from a state to the state with some
 * entries changed has the state's dependencies plus those of the mixture
 * at the changed destinations; those are found from the changed switches
 * outward, not by walking each changed destination over the whole fabric.
 */
#ifndef ROUTING_CDG_DELTA_H
#define ROUTING_CDG_DELTA_H

#include "routing/cdg.h"

/* One entry that changes: the switch (its index in the fabric) and the LID. */
struct cdg_change {
	uint32_t node;
	uint16_t lid;
};

/*
 * Per LID of a set: the switches the CAs' traffic to it passes under one
 * table (from every switch with CAs, following the entries). cdg_reach_new
 * returns NULL on allocation failure.
 */
struct cdg_reach;
struct cdg_reach *cdg_reach_new(const struct fabric *f, const struct routing_tables *t, const bool *lids);
void cdg_reach_free(struct cdg_reach *r);

/*
 * r's rows of the LIDs lids marks (those r has) walked again under t,
 * whose other LIDs' entries must be those r was walked under: a step's
 * reach from the state's, only the LIDs the step changed walked. The
 * other rows stay as they were. -1 on allocation failure (r then holds
 * cleared rows: free it).
 */
int cdg_reach_refresh(struct cdg_reach *r, const struct fabric *f, const struct routing_tables *t, const bool *lids);

/* Channels a walk gave dependencies: roots for depgraph_check_from. */
struct cdg_roots {
	struct cdg_channel *v;
	size_t n, cap;
};

/* Sorts ch[0..n) by LID, then node: the order cdg_add_changes takes them in, once for every layer. */
void cdg_changes_sort(struct cdg_change *ch, size_t n);

/*
 * g holds (at least) the dependencies one layer of the CAs' traffic has
 * under table m->lft[0] for the LIDs of the changes, and r is their reach
 * under it (cdg_reach_new, or cdg_reach_refresh, of lft[0] for a set
 * holding every LID of ch: a LID r lacks adds nothing); m->lft[1] is that table with the entries
 * ch[0..n) changed
 * (every other entry of those LIDs equal), m->no_answers is set, and SLs
 * are m's. Adds the dependencies the mixture of the two tables has on the
 * layer for those LIDs beyond lft[0]'s: g then holds what cdg_add_layer of
 * the mixture would add for them. ch must be in cdg_changes_sort's order.
 * Each channel given a dependency is appended to roots (the caller frees
 * roots->v). -1 on allocation failure.
 */
int cdg_add_changes(const struct fabric *f, const struct cdg_mix *m, unsigned layer, const struct cdg_reach *r,
		    const struct cdg_change *ch, size_t n, struct depgraph *g, struct cdg_roots *roots);

#endif
