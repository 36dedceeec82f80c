/*
 * ecmp.h - multipath next-hop tables (every switch's set of equally good
 * next hops per destination), as an Ethernet fabric forwards, and the
 * proofs a lossless plan needs: no forwarding loop, every source reaches
 * every destination, and no cyclic buffer dependency (CBD).
 */
#ifndef ROUTING_ECMP_H
#define ROUTING_ECMP_H

#include <stdbool.h>
#include "routing/depgraph.h"
#include "routing/rank.h"

/* Destination d is delivered at switch dst_node[d] (a node index of f). */
struct ecmp_tables {
	const struct fabric *f;
	size_t ndst;
	size_t *dst_node;
	/* next hops of node n towards d: port[d][start[d][n] .. start[d][n + 1]) */
	uint32_t **start;
	uint8_t **port;
	size_t escapes;		/* entries with no legal up/down path (plain shortest instead) */
	const char *const *dst_label;	/* optional names of destinations for reports (else the node's) */
};

#define ECMP_TEXT_LEN 512

struct ecmp_report {
	size_t loops;		/* destinations whose next hops contain a loop */
	size_t unreachable;	/* (source, destination) pairs with a path that dead-ends */
	size_t bad_hops;	/* next hops over a port that does not lead to a switch */
	char first_problem[ECMP_TEXT_LEN];	/* the first of the above, in words; "" if none */
	struct cdg_report cbd;	/* dependencies of the lossless destinations' traffic */
};

void ecmp_free(struct ecmp_tables *t);
/*
 * Up/down ECMP over f (every node a switch) ranked by r: towards each
 * switch s with want[s], in switch order, every next hop on a shortest
 * legal up*down* path. -1 on allocation failure.
 */
int ecmp_updown(const struct fabric *f, const struct swindex *x, const struct rank *r, const bool *want,
		struct ecmp_tables *out);
/* Every next hop on a shortest path, ignoring any order: what an IGP would install. */
int ecmp_shortest(const struct fabric *f, const struct swindex *x, const bool *want, struct ecmp_tables *out);
/*
 * What eBGP converges to over f with the switches' ASNs asn (by switch
 * index): towards each wanted switch, every session whose neighbour's
 * best AS path, without the receiver's own ASN, has the shortest length
 * (bestpath as-path multipath-relax). A switch advertises the path of its
 * first best session in port order (where real BGP's tie-break is the
 * oldest route or the router ID). *unsettled counts destinations whose rounds did
 * not settle. -1 on allocation failure.
 */
int ecmp_bgp(const struct fabric *f, const struct swindex *x, const uint32_t *asn, const bool *want,
	     struct ecmp_tables *out, size_t *unsettled);
/* Empty tables for ndst destinations (for readers that fill them); -1 on allocation failure. */
int ecmp_alloc(struct ecmp_tables *t, const struct fabric *f, size_t ndst);
/* Next hops of node n towards d. */
static inline unsigned ecmp_hops(const struct ecmp_tables *t, size_t d, size_t n, const uint8_t **ports)
{
	*ports = t->port[d] + t->start[d][n];
	return t->start[d][n + 1] - t->start[d][n];
}

/*
 * Checks t: loops in any entry, dead ends on the paths from each source
 * node (source[n]) to each destination, and, over the destinations with
 * lossless[d], the buffer dependencies: traffic that enters switch t from
 * channel (s, e) and leaves on (t, e') makes the queue of (s, e) wait on
 * (t, e'). Fills r; -1 on allocation failure.
 */
int ecmp_check(const struct ecmp_tables *t, const bool *source, const bool *lossless, struct ecmp_report *r);
/* True when r found nothing wrong. */
bool ecmp_report_ok(const struct ecmp_report *r);
/* How many switches have a different next-hop set in a and b (same destinations). */
size_t ecmp_changed_switches(const struct ecmp_tables *a, const struct ecmp_tables *b);

#endif
