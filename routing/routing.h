/*
 * routing.h - what a routing engine returns: a linear forwarding table per
 * switch. Engines are pure functions of the fabric model (with LIDs
 * assigned); they never send a MAD.
 */
#ifndef ROUTING_H
#define ROUTING_H

#include <stdint.h>
#include "topology/fabric.h"

#define LFT_NO_PATH 0xff	/* as in a switch's LFT: drop */

#define ROUTING_MAX_LAYERS 15	/* data VLs an IB port can have */

struct routing_tables {
	uint16_t max_lid;	/* highest unicast LID in use */
	size_t nnodes;		/* == fabric.nnodes when computed */
	uint8_t **lft;		/* lft[node index][lid]: out port; NULL for non-switches */
	uint8_t *rows;		/* the switches' rows, one block that lft[] points into */
	/*
	 * sl[lid]: the service level of traffic to lid, which the uniform
	 * SL-to-VL map turns into VL sl on every hop; layers: how many are in
	 * use (1: everything on SL/VL 0).
	 */
	uint8_t *sl;
	unsigned layers;
	uint8_t vl_by_sl[16];	/* the SL-to-VL map programmed on every port */
};

void routing_tables_free(struct routing_tables *t);
/* Allocates one LFT (max_lid + 1 entries of LFT_NO_PATH) per switch; -1 on failure. */
int routing_tables_alloc(struct routing_tables *t, const struct fabric *f, uint16_t max_lid);
/* The same for the switches with rows[i] set only (NULL: all); the others' lft[] stay NULL. */
int routing_tables_alloc_some(struct routing_tables *t, const struct fabric *f, uint16_t max_lid, const bool *rows);
/* dst = a copy of src (its tables, SLs and layers); -1 on allocation failure. */
int routing_tables_copy(struct routing_tables *dst, const struct routing_tables *src);
/*
 * The same, but only the rows of the nodes with own[i] set are dst's
 * (copied; own NULL: all, routing_tables_copy): the others are src's own
 * rows, which must outlive dst and which nothing may write through dst.
 * For states that differ from src in a few switches' rows: a 27,648-host
 * tree's tables are 88 MB.
 */
int routing_tables_share(struct routing_tables *dst, const struct routing_tables *src, const bool *own);
/* The highest LID assigned in f. */
uint16_t routing_max_lid(const struct fabric *f);
/* Where a LID lives: a switch's port 0 or a CA's port. */
struct lid_owner {
	const struct node *node;	/* NULL: no port of the fabric holds the LID */
	uint8_t port;
};
/* Where each LID of f up to max_lid lives, into own[0..max_lid] (an LMC range counts for every LID in it). */
void routing_lid_owners(const struct fabric *f, uint16_t max_lid, struct lid_owner *own);
/*
 * The one step of every walk through the tables (the SA's paths, fabricctl
 * route, link loads, the deadlock and loop checks): the port switch sw
 * sends LID lid out of, if that port exists and leads somewhere; 0 when
 * the entry is empty (LFT_NO_PATH), beyond the table, port 0 (sw is lid's
 * switch), out of range, or unconnected. routing_lft_entry gives the raw
 * entry (LFT_NO_PATH beyond the table) for callers that say which it was.
 * Inline: the deadlock proofs take these steps billions of times on the
 * largest fabrics.
 */
static inline uint8_t routing_lft_entry(const struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	return lid <= t->max_lid && t->lft[sw->index] ? t->lft[sw->index][lid] : LFT_NO_PATH;
}

static inline uint8_t routing_next_hop(const struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	uint8_t out = routing_lft_entry(t, sw, lid);
	return out != LFT_NO_PATH && out && out <= sw->nports && sw->ports[out].remote ? out : 0;
}

/* The switch that port (n, port) leads to; NULL for port 0, nothing cabled, or a CA. */
static inline const struct node *routing_next_switch(const struct node *n, uint8_t port)
{
	const struct node *r = port && port <= n->nports ? n->ports[port].remote : NULL;
	return r && r->type == NODE_SWITCH ? r : NULL;
}
/*
 * Switch-to-switch links from sw, along t, to the switch that delivers
 * lid (0: sw is lid's switch or hands it to its CA); ROUTING_HOPS_NONE
 * when the walk drops or circles.
 */
#define ROUTING_HOPS_NONE 255u
unsigned routing_switch_hops(const struct routing_tables *t, const struct node *sw, uint16_t lid);

/*
 * Min-hop: every switch forwards each LID on a shortest path; among the
 * equally short ports it picks the one that carries the fewest LIDs so far
 * (balanced by destination, like OpenSM's default engine).
 */
int minhop_route(const struct fabric *f, struct routing_tables *out);

/* What an engine did: the engine that made the tables and why it was that one. */
struct route_info {
	char engine[16];	/* "ftree", "updown" or "minhop" */
	unsigned levels;	/* switch levels of the ranking used */
	char note[400];		/* why ftree fell back to up/down, or "" */
};

/*
 * Fat-tree routing (see ftree.c); roots are optional top-switch GUIDs.
 * Falls back to up/down, saying so in info, on fabrics it cannot route
 * as a fat tree. Deadlock-free by construction: one VL, or two on a
 * degraded tree when max_layers allows (t->sl says which).
 */
int ftree_route(const struct fabric *f, const uint64_t *roots, size_t nroots, unsigned max_layers,
		struct routing_tables *out, struct route_info *info);
/*
 * The fat-tree engine's repair after a loss, without routing afresh: old
 * (the tables of old_f) with the broken routes mended in place along the
 * fat tree's up*-down* order (routing/stable.h, stable_patch), within
 * max_layers VLs. 0 with out
 * (not proven) and r, 1 when a fresh routing is needed, -1 on allocation
 * failure.
 */
struct stable_report;
int ftree_mend(const struct fabric *f, const uint64_t *roots, size_t nroots, unsigned max_layers,
	       const struct fabric *old_f, const struct routing_tables *old, struct routing_tables *out,
	       struct route_info *info, struct stable_report *r);
/* Up/down routing ranked from one root switch: any connected fabric. */
int updown_route(const struct fabric *f, struct routing_tables *out, struct route_info *info);

#endif
