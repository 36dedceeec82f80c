/*
 * stable.h - routing that moves only what must move. After a failure or a
 * repair, a fresh routing of the whole fabric re-balances nearly every
 * destination (ftree moved 685 of 720 switches' entries for one lost
 * link on a 3-level radix-24 tree), so every LFT block is rewritten and
 * the transition between old and new tables is large and hard to prove.
 * Keeping the route to each destination the change left whole makes the
 * repair touch only the destinations that used what changed.
 */
#ifndef ROUTING_STABLE_H
#define ROUTING_STABLE_H

#include "routing/rank.h"
#include "routing/routing.h"
#include "routing/swindex.h"

struct stable_report {
	size_t lids;	/* LIDs of f's end ports */
	size_t kept;	/* of them, routed (and on the SL) as the old tables had them */
	size_t patched;	/* kept but for the switches whose old route the change broke */
	bool grew;	/* the fresh routing uses a link the old tables did not: it was taken whole */
	bool mended;	/* patched in place, without a fresh routing (stable_patch) */
};

/*
 * Merges the tables the switches hold (old, of fabric old_f, matched to f
 * by GUID) with a fresh routing of f into out, sized like fresh. A LID
 * keeps old's entries at every switch from which, on f, they still
 * deliver it (and old's SL, if they do from all); the other switches
 * take fresh's entries and the LID fresh's SL, if it is then delivered
 * from every switch, else the LID takes fresh's column and SL. Switches old_f lacked take fresh's entries. When fresh
 * uses a link that old did not (r->grew: a link back, a new cable, an
 * isolated link healthy again), out is fresh whole, so that new capacity
 * is balanced as a fresh routing balances it. out is not proven: the
 * caller layers it and checks it like any engine's tables. from_fresh
 * (NULL, or fresh->max_lid + 1 entries) marks the LIDs whose column is
 * fresh's whole: every other column delivers from every switch of f
 * without a loop. old must be loop-free on old_f, as every table
 * routing_compute returns is. -1 on allocation failure.
 */
int stable_merge(const struct fabric *old_f, const struct routing_tables *old, const struct fabric *f,
		 const struct routing_tables *fresh, struct routing_tables *out, struct stable_report *r,
		 bool *from_fresh);

/*
 * The merge without a fresh routing, for a fabric that only lost: a LID's
 * switches whose old route fails on f are re-pointed in place, along up*-
 * down* legal routes of rk's order where they exist (routing/patch.h), and
 * the LID keeps its SL (a switch's LID that a leaf then reaches only by an
 * escape goes to layer 1, which max_layers must allow); x and rk: f's
 * switches and their ranking. 0 with
 * out merged (every column delivers from every switch without a loop; not
 * proven deadlock-free), 1 when a fresh routing is needed (f has a switch
 * or a link the old tables did not use, or some column cannot be
 * mended), -1 on allocation failure.
 */
int stable_patch(const struct fabric *old_f, const struct routing_tables *old, const struct fabric *f,
		 const struct swindex *x, const struct rank *rk, unsigned max_layers, struct routing_tables *out,
		 struct stable_report *r);

#endif
