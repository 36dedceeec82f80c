/*
 * DOC: forwarding loops
 *
 * For one LID, every switch's entry points at one next switch (or ends
 * the path: the LID's own switch, a CA, a drop), so the entries form a
 * functional graph. A three-colour walk from each switch finds every
 * entry whose path runs into a cycle: a switch's state is "on the walk
 * being followed", "ends" or "loops", and each walk stops at the first
 * switch already decided. Each switch is decided once per LID, so the
 * whole check costs switches x LIDs steps.
 */
#include "routing/loops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { UNSEEN, ON_WALK, ENDS, LOOPS };

/* The switch lid's entry at sw leads to, or NULL where the path ends. */
static const struct node *next_hop(const struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	return routing_next_switch(sw, routing_next_hop(t, sw, lid));
}

/* Keeps the first loop found: the switches from `from` round to itself. */
static void keep_cycle(const struct routing_tables *t, const struct node *from, uint16_t lid,
		       struct loops_report *r)
{
	const struct node *sw = from;
	r->first_lid = lid;
	r->cycle_len = 0;
	do {
		r->cycle[r->cycle_len++] = sw;
		sw = next_hop(t, sw, lid);
	} while (sw && sw != from && r->cycle_len < LOOPS_MAX_SHOWN);
}

/* Decides every switch (sw[0..nsw)) for lid; how many entries loop. */
static size_t check_lid(const struct node *const *sw, size_t nsw, const struct routing_tables *t, uint16_t lid,
			uint8_t *state, const struct node **walk, struct loops_report *r)
{
	size_t looping = 0;
	for (size_t i = 0; i < nsw; i++)
		state[sw[i]->index] = UNSEEN;
	for (size_t i = 0; i < nsw; i++) {
		const struct node *at = sw[i];
		size_t n = 0;
		while (at && state[at->index] == UNSEEN) {
			state[at->index] = ON_WALK;
			walk[n++] = at;
			at = next_hop(t, at, lid);
		}
		uint8_t verdict = !at || state[at->index] == ENDS ? ENDS : LOOPS;
		if (at && state[at->index] == ON_WALK && !r->first_lid)
			keep_cycle(t, at, lid, r);
		for (size_t k = 0; k < n; k++)
			state[walk[k]->index] = verdict;
		looping += verdict == LOOPS ? n : 0;
	}
	return looping;
}

int loops_find(const struct fabric *f, const struct routing_tables *t, struct loops_report *r)
{
	return loops_find_lids(f, t, NULL, r);
}

int loops_find_lids(const struct fabric *f, const struct routing_tables *t, const bool *lids, struct loops_report *r)
{
	memset(r, 0, sizeof(*r));
	uint8_t *state = malloc(f->nnodes + 1);
	const struct node **walk = malloc((f->nnodes + 1) * sizeof(*walk));
	const struct node **sw = malloc((f->nnodes + 1) * sizeof(*sw));
	size_t nsw = 0;
	if (!state || !walk || !sw) {
		free(state);
		free(walk);
		free(sw);
		return -1;
	}
	for (size_t i = 0; i < f->nnodes; i++)	/* only switches forward: CAs would cost a step per LID each */
		if (t->lft[i])
			sw[nsw++] = f->nodes[i];
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		if (lids && !lids[lid])
			continue;
		size_t n = check_lid(sw, nsw, t, (uint16_t)lid, state, walk, r);
		r->entries += n;
		r->lids += n > 0;
	}
	free(state);
	free(walk);
	free(sw);
	return 0;
}

void loops_text(const struct loops_report *r, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "LID %u:", r->first_lid);
	for (size_t i = 0; i <= r->cycle_len && r->cycle_len && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " -> " : " ",
					r->cycle[i % r->cycle_len]->desc);
}
