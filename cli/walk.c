/*
 * DOC: route walk
 *
 * What a packet to dlid does in the stored tables: at each switch the LFT
 * gives the output port; the walk ends at the switch with dlid (port 0)
 * or at the CA port with dlid, and fails on a drop, a dead end, a CA on
 * the way, or more hops than a directed route could have.
 */
#include "cli/walk.h"

#include <stdio.h>

unsigned walk_route(const struct routing_tables *t, const struct node *src, uint8_t sport, uint16_t dlid,
		    const struct node *dst, uint8_t dport, struct hop *hops, char *why, size_t whylen)
{
	const struct node *at = src;
	uint8_t in = 0, out = sport;
	for (unsigned n = 0; n < WALK_MAX_HOPS; n++) {
		if (at == dst && (at->type == NODE_SWITCH || in == dport)) {
			hops[n] = (struct hop){ at, in, 0 };
			return n + 1;
		}
		if (at->type == NODE_SWITCH) {
			out = routing_lft_entry(t, at, dlid);
			if (out == LFT_NO_PATH || out == 0 || out > at->nports) {
				snprintf(why, whylen, "%s has no route to LID %u", at->desc, dlid);
				return 0;
			}
		} else if (n > 0) {
			snprintf(why, whylen, "the route to LID %u ends at %s", dlid, at->desc);
			return 0;
		}
		hops[n] = (struct hop){ at, in, out };
		const struct port *p = &at->ports[out];
		if (!p->remote) {
			snprintf(why, whylen, "%s port %u leads nowhere", at->desc, out);
			return 0;
		}
		in = p->remote_port;
		at = p->remote;
	}
	snprintf(why, whylen, "the tables loop: no arrival at LID %u after %d hops", dlid, FABRIC_MAX_HOPS);
	return 0;
}
