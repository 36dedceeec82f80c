/*
 * walk.h - following stored forwarding tables hop by hop.
 */
#ifndef CLI_WALK_H
#define CLI_WALK_H

#include "routing/routing.h"

struct hop {
	const struct node *node;
	uint8_t in, out;	/* in: port entered by (0 at the source); out: port left by (0 at the end) */
};

#define WALK_MAX_HOPS (FABRIC_MAX_HOPS + 2)

/*
 * Walks from (src, sport) to dlid, which belongs to (dst, dport). Fills
 * hops (WALK_MAX_HOPS entries) and returns their count, or 0 with the
 * reason in why when the tables drop, loop or misdeliver the packet.
 */
unsigned walk_route(const struct routing_tables *t, const struct node *src, uint8_t sport, uint16_t dlid,
		    const struct node *dst, uint8_t dport, struct hop *hops, char *why, size_t whylen);

#endif
