/*
 * cdg_vl.h - the deadlock proof over (channel, VL) pairs, with the VL of
 * every hop read from the switches' SL-to-VL tables instead of assumed
 * to be the destination's layer: any SM's VL scheme (layers, datelines,
 * a port-0 map) can be judged, as the switches really hold it.
 */
#ifndef ROUTING_CDG_VL_H
#define ROUTING_CDG_VL_H

#include "routing/depgraph.h"
#include "routing/routing.h"
#include "topology/sl2vl.h"

struct cdg_vl_request {
	const struct routing_tables *t;	/* the LFTs, and each LID's SL in t->sl */
	/*
	 * A transition from these tables (NULL: t's steady state): every
	 * switch may forward by either entry, and each LID's traffic runs on
	 * either SL (before->sl and t->sl), as routing/transition.h proves.
	 */
	const struct routing_tables *before;
	const struct sl2vl_tables *vl;
	bool answers;		/* also what LIDs send to CAs on their own SL (answers) */
	bool to_cas_only;	/* only traffic to CA LIDs */
};

/* The table a walk needed and the SL-to-VL tables did not hold. */
struct cdg_vl_missing {
	const struct node *node;
	unsigned in, out;
};

/*
 * Builds the dependencies between (switch output port, VL) pairs of the
 * traffic from every CA to every LID on the LID's SL (and, with answers,
 * from every LID to every CA on the sender's SL; a switch's own packets
 * enter at its port 0), each hop on the VL its switch maps the SL to, and
 * looks for a cycle (r->per_vl: the cycle names the VLs). A hop mapped to
 * VL 15 is dropped by the switch and ends the walk. Returns 0; -2 with
 * *missing when a walk crosses a switch port pair with no table; -1 on
 * allocation failure.
 */
int cdg_vl_check(const struct fabric *f, const struct cdg_vl_request *q, struct cdg_report *r,
		 struct cdg_vl_missing *missing);

#endif
