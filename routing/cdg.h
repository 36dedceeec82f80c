/*
 * cdg.h - the channel dependency graph of a set of forwarding tables, and
 * the deadlock check on it (Dally & Seitz: a routing is deadlock-free on
 * one virtual lane if its channel dependency graph has no cycle).
 */
#ifndef CDG_H
#define CDG_H

#include "routing/depgraph.h"
#include "routing/routing.h"

/*
 * Builds the dependencies that CA-to-LID traffic creates through the
 * tables on each VL layer (traffic to lid travels on layer t->sl[lid]) and
 * looks for a cycle. The report is the first cyclic layer's, or, when all
 * are acyclic, the sums over layers. Returns 0, or -1 on allocation
 * failure.
 */
int cdg_check(const struct fabric *f, const struct routing_tables *t, struct cdg_report *r);
/* The same for one layer only. */
int cdg_check_layer(const struct fabric *f, const struct routing_tables *t, unsigned layer,
		    struct cdg_report *r);
/* The same, with more dependencies (multicast trees) added by extra before the cycle search. */
int cdg_check_layer_with(const struct fabric *f, const struct routing_tables *t, unsigned layer,
			 int (*extra)(void *arg, struct depgraph *g), void *arg, struct cdg_report *r);
/* True if traffic to lid makes channel a depend on channel b. */
bool cdg_lid_uses(const struct routing_tables *t, uint16_t lid, const struct cdg_channel *a,
		  const struct cdg_channel *b);
/* "L0[9] -> A0[3] -> ... -> L0[9]" into buf. */
void cdg_cycle_text(const struct cdg_report *r, char *buf, size_t len);

#endif
