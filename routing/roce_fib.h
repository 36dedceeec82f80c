/*
 * roce_fib.h - proving what a RoCE fabric's switches really installed:
 * their kernel FIBs (topology/fibfile.h), read from the digital twin
 * (scripts/roce-twin.sh) or from real switches, over the plan's fabric
 * with some links down. The same loop, reachability and CBD proofs as the
 * plan's, and a comparison with what the plan's eBGP simulation predicts
 * for that state and with the planned tables.
 */
#ifndef ROUTING_ROCE_FIB_H
#define ROUTING_ROCE_FIB_H

#include "routing/roce_recheck.h"
#include "topology/fibfile.h"

struct roce_fib_report {
	bool safe;		/* no loop, no dead end a path could avoid, no CBD, every hop a live fabric link */
	char problem[PLANFILE_ERR_LEN];	/* not safe: the first problem */
	size_t prefixes, channels, dependencies;
	bool cbd;		/* the lossless traffic's buffer dependencies have a cycle (named in problem if first) */
	size_t cut_pairs;	/* (source switch, prefix) pairs no path joins with the links down */
	bool simulated;		/* every switch has an ASN: compared with ecmp_bgp */
	size_t sim_unsettled;	/* destinations the simulation found no fixed point for */
	size_t sim_differs;	/* switches whose FIB differs from the simulation */
	size_t plan_differs;	/* switches whose FIB differs from the planned tables */
	char first_difference[1024];	/* the first switch and prefix where the FIB and simulation differ */
};

/*
 * Proves fib (one table per switch of pf, in pf's order) with the links
 * down[i] of pf->rf.links out of service. 0 with the verdict in r, or -1
 * when out of memory.
 */
int roce_fib_prove(const struct roce_planfiles *pf, const struct fib_table *fib, const bool *down,
		   struct roce_fib_report *r);

#endif
