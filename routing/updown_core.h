/*
 * updown_core.h - what the up/down core's two halves share: updown.c
 * finds every destination's candidate ports (towards it, on every
 * switch) and keeps them in a candidate table; updown_ports.c then
 * chooses each switch's ports from that table, switch by switch, and
 * balances them. Internal to updown*.c.
 */
#ifndef ROUTING_UPDOWN_CORE_H
#define ROUTING_UPDOWN_CORE_H

#include "routing/ahead.h"
#include "routing/updown.h"

#define DIST_INF UINT16_MAX

/* A cell of the candidate table: which ports a switch may take towards one destination. */
#define CAND_NONE 0		/* none (the destination itself, or no path) */
#define EVERY_UP 1		/* all its up-links */
#define EVERY_DOWN 2		/* all its down-links */
#define CAND_LIST 3		/* the ports listed in the switch's list */
#define CAND_KIND 3
#define CAND_UP_LEGAL 4		/* with: the switch goes up on a legal path (D-mod-K may choose) */

/* What one destination switch D gives every switch: distances and candidate ports. */
struct towards {
	uint16_t *down, *dist;	/* per switch */
	uint16_t *hops;		/* escape distance, for switches without a legal path */
	size_t *queue;
	bool *queued;		/* per switch: on the escape worklist */
	uint8_t *cand;		/* candidate ports, at base[] like load[] */
	uint8_t *ncand;
	uint8_t *whole;		/* per switch: EVERY_UP, EVERY_DOWN when the candidates are all of those links */
	size_t stranded;	/* leaves without a legal path to D */
	bool unrouted;		/* D's own LID left to the caller (plan->gaps_elsewhere): no candidates */
};

/* One switch's CAND_LIST cells, in row order: the count, then the ports. */
struct cand_list {
	uint8_t *v;
	size_t n, cap;
};

/*
 * Destinations' candidates, a row per destination in the fill's order. A
 * switch's choices depend on its own loads alone, so ports are chosen
 * switch by switch, each switch's cells lying together.
 */
struct cand_table {
	size_t rows, nrows;	/* room, and rows kept */
	size_t *dest;		/* per row: the destination switch */
	size_t *lid_start;	/* per row: where its LIDs start in lids[] and at_port[]; nrows + 1 */
	uint16_t *lids;		/* each row's LIDs: its CAs' first, then the switch's own */
	uint8_t *at_port;	/* per LID: the destination's port it hangs off, 0 for the switch's own */
	size_t nlids, lids_cap;
	uint8_t *code;		/* per switch in desc order, per row: a CAND_* cell */
	struct cand_list *lists;	/* per switch in desc order */
};

/* A switch-to-switch link as seen from one end. */
struct nbr {
	uint32_t sw;		/* the switch at the other end */
	uint8_t port;		/* the local port */
	bool up;		/* the other end is above this one */
};

struct ud {
	const struct fabric *f;
	const struct updown_plan *p;
	const struct swindex *x;
	const struct rank *r;
	size_t *desc;		/* ranked switches, top of the order first */
	size_t ndesc;
	size_t *place;		/* per switch: its place in desc[], SIZE_MAX when not ranked */
	bool *leaf;		/* per switch: has hosts */
	size_t *adj_start;	/* per switch: its links to ranked switches in adj[] and padj[] */
	struct nbr *adj;	/* each switch's up-links, then its down-links, each part in port order */
	struct nbr *padj;	/* the same links in port order */
	uint8_t *adj_port;	/* the port of each link of adj[] */
	size_t *base;		/* per switch: offset of its ports in cand[] and load[] */
	struct towards *s;	/* the current D's: one of sets[], swapped with those filled ahead */
	struct towards sets[1 + AHEAD_SLOTS];
	uint32_t *load;		/* CA LIDs routed per (switch, port) */
	uint32_t *jpos;		/* per LID: number in host order, or UINT32_MAX */
	uint16_t max_lid;
	uint8_t *n_upnbr;	/* per switch: its links up (the candidates of a switch going up, at most) */
	uint8_t (*kept_min)[2];	/* per switch: its least loaded up-link and down-link, while fresh */
	uint8_t *fresh;		/* per switch: EVERY_UP, EVERY_DOWN bits: no load changed since found */
	uint64_t *magic;	/* per switch: for the remainder by its up-slot count (fast_mod) */
	uint32_t *digit;	/* per level, per LID: j / stride[level], UINT32_MAX for LIDs not in host order */
	struct cand_table cands;	/* the rows whose ports are chosen next */
	struct cand_table leaves;	/* every leaf's CA LIDs and the cells with a choice (2+), for balancing */
};

/* Chooses every switch's ports towards every row of u->cands, in turn, into t (updown_ports.c). */
void updown_route_switches(struct ud *u, struct routing_tables *t);

/*
 * Moves CA LIDs between equally good candidates where a degraded tree left
 * a switch's ports unbalanced (updown_ports.c). -1 on allocation failure.
 */
int updown_balance(struct ud *u, struct routing_tables *t);

#endif
