/*
 * quality.h - how evenly a set of forwarding tables spreads traffic:
 * per-link flow counts under permutation traffic between the hosts.
 */
#ifndef ROUTING_QUALITY_H
#define ROUTING_QUALITY_H

#include <stddef.h>
#include <stdint.h>
#include "routing/routing.h"

#define QUALITY_HOT 8

struct quality_link {
	const struct node *sw;	/* the link out of sw's port */
	uint8_t port;
	uint32_t load;
};

struct quality_report {
	size_t hosts;
	size_t permutations;
	size_t flows;
	size_t broken;		/* flows the tables drop or loop */
	uint32_t max_load;	/* the worst link in the worst permutation */
	double mean_max_load;	/* the worst link's load, averaged over permutations */
	double mean_load;	/* load of a used link, averaged over links and permutations */
	size_t worst;		/* the worst permutation: shift k, or random draw number */
	struct quality_link hot[QUALITY_HOT];	/* the busiest links of the worst permutation */
	size_t nhot;
};

/*
 * Shift permutations over the hosts in host_order(): host i sends to
 * host (i + k) mod N for k = 1 .. N-1, or only k = 1 .. max_shifts spread
 * evenly when max_shifts is smaller. -1 on allocation failure.
 */
int quality_shifts(const struct fabric *f, const struct routing_tables *t, size_t max_shifts,
		   struct quality_report *r);
/* count uniformly random permutations drawn from seed. */
int quality_random(const struct fabric *f, const struct routing_tables *t, size_t count, uint64_t seed,
		   struct quality_report *r);

#endif
