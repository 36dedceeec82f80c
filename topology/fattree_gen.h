/*
 * fattree_gen.h - generated fat trees for tests and benchmarks.
 */
#ifndef FATTREE_GEN_H
#define FATTREE_GEN_H

#include "topology/fabric.h"

struct fattree_spec {
	unsigned levels;	/* 2 or 3 */
	unsigned radix;		/* even, 4..FABRIC_MAX_PORTS */
	unsigned pods;		/* 3 levels: pods built (0: all k); 2 levels: leaves (0: k) */
	unsigned remove_links;	/* random switch-to-switch links to drop */
	unsigned remove_switches; /* random non-leaf switches to drop */
	uint64_t seed;
};

/*
 * Builds a full k-ary fat tree, then applies the removals. Two levels: k
 * leaves with k/2 hosts each under k/2 spines. Three levels: k pods of k/2
 * leaves and k/2 aggregation switches under (k/2)^2 cores, k^3/4 hosts.
 * A smaller pods count builds only that many pods (or leaves), with the
 * top switches' other ports left empty, as a fabric built for growth.
 * Names: L<i> leaves, S<i> spines, A<i> aggregation, C<i> cores,
 * H<leaf>_<i> hosts. Leaves come first, so ibsim attaches its SM to L0.
 * Removals never cut a switch's last uplink or downlink. Returns 0, or -1
 * with a reason in err.
 */
int fattree_generate(const struct fattree_spec *spec, struct fabric *f, char err[256]);

#endif
