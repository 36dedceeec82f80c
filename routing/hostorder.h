/*
 * hostorder.h - the order in which fat-tree routing numbers destinations,
 * also the order of the shift permutations the route-quality tool replays.
 */
#ifndef ROUTING_HOSTORDER_H
#define ROUTING_HOSTORDER_H

#include <stddef.h>
#include <stdint.h>
#include "topology/fabric.h"

struct host_ref {
	uint16_t lid;			/* the CA port's LID */
	const struct node *leaf;	/* the switch it hangs off */
	uint8_t leaf_port;
};

/*
 * The CA ports attached to switches: leaves ordered by the lowest
 * GUID among the switches above them (so a pod's leaves are adjacent),
 * then by GUID; each leaf's hosts by port number. Ports without a LID
 * are left out. *hosts is malloc'ed; -1 on allocation failure.
 */
int host_order(const struct fabric *f, struct host_ref **hosts, size_t *n);

#endif
