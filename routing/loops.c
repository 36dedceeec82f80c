/*
 * DOC: forwarding loops
 *
 * For one LID, every switch's entry points at one next switch (or ends
 * the path: the LID's own switch, a CA, a drop), so the entries form a
 * functional graph. A three-colour walk from each switch finds every
 * entry whose path runs into a cycle: a switch's state is "on the walk
 * being followed", "ends" or "loops", and each walk stops at the first
 * switch already decided. Each switch is decided once per LID, so the
 * whole check costs switches x LIDs steps. On large fabrics the LIDs are
 * shared out among the CPUs (routing/shares.h), each share's report
 * joined in LID order: the same report as one walk over all.
 */
#include "routing/loops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/shares.h"

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

/* The LIDs shared out among the CPUs: each share its own report, joined in LID order. */
struct lid_shares {
	const struct fabric *f;
	const struct routing_tables *t;
	const bool *lids;
	const struct node **sw;	/* the switches: only they forward (CAs would cost a step per LID each) */
	size_t nsw;
	struct loops_report r[SHARES_MAX];
	int rc[SHARES_MAX];
};

static void find_share(void *arg, size_t k, size_t from, size_t to)
{
	struct lid_shares *s = arg;
	uint8_t *state = malloc(s->f->nnodes + 1);
	const struct node **walk = malloc((s->f->nnodes + 1) * sizeof(*walk));
	memset(&s->r[k], 0, sizeof(s->r[k]));
	s->rc[k] = state && walk ? 0 : -1;
	for (size_t lid = from + 1; lid <= to && s->rc[k] == 0; lid++) {
		if (s->lids && !s->lids[lid])
			continue;
		size_t n = check_lid(s->sw, s->nsw, s->t, (uint16_t)lid, state, walk, &s->r[k]);
		s->r[k].entries += n;
		s->r[k].lids += n > 0;
	}
	free(state);
	free(walk);
}

/* Fabrics with fewer nodes are looked at by one thread: starting more costs more than it saves. */
#define SHARE_MIN_NODES 1024

int loops_find_lids(const struct fabric *f, const struct routing_tables *t, const bool *lids, struct loops_report *r)
{
	struct lid_shares s = { .f = f, .t = t, .lids = lids, .sw = malloc((f->nnodes + 1) * sizeof(*s.sw)) };
	int rc = 0;
	memset(r, 0, sizeof(*r));
	if (!s.sw)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++)
		if (t->lft[i])
			s.sw[s.nsw++] = f->nodes[i];
	size_t nshares = shares_count(f->nnodes, SHARE_MIN_NODES);
	shares_run(nshares, t->max_lid, find_share, &s);	/* LIDs 1..max_lid as items 0..max_lid-1 */
	for (size_t k = 0; k < nshares; k++) {
		if (s.rc[k] < 0)
			rc = -1;
		if (!r->first_lid && s.r[k].first_lid) {
			r->first_lid = s.r[k].first_lid;
			r->cycle_len = s.r[k].cycle_len;
			memcpy(r->cycle, s.r[k].cycle, sizeof(r->cycle));
		}
		r->entries += s.r[k].entries;
		r->lids += s.r[k].lids;
	}
	free(s.sw);
	if (rc < 0)
		memset(r, 0, sizeof(*r));
	return rc;
}

void loops_text(const struct loops_report *r, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "LID %u:", r->first_lid);
	for (size_t i = 0; i <= r->cycle_len && r->cycle_len && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " -> " : " ",
					r->cycle[i % r->cycle_len]->desc);
}
