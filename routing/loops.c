/*
 * DOC: forwarding loops
 *
 * For one LID, every switch's entry points at one next switch (or ends
 * the path: the LID's own switch, a CA, a drop), so the entries form a
 * functional graph. A three-colour walk from each switch finds every
 * entry whose path runs into a cycle: a switch's state is "on the walk
 * being followed", "ends" or "loops", and each walk stops at the first
 * switch already decided. Each switch is decided once per LID, so the
 * whole check costs switches x LIDs steps. Those steps read the tables
 * 64 LIDs at a time, switch by switch (a line of each row), into a small
 * next-switch array per LID, which the walks then follow in cache. The
 * blocks of 64 LIDs are taken in turn by whoever works on the check (on
 * large fabrics every CPU, routing/shares.h; beside the VL layering, an
 * idle-priority thread and then the caller), each worker its own report,
 * joined so that the first loop named is the lowest LID's: the same report
 * as one walk over all, whoever took which block.
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

/* A check's LID blocks, taken in turn by its workers: each its own report. */
struct loops_work {
	const struct fabric *f;
	const struct routing_tables *t;
	const bool *lids;
	const struct node **sw;	/* the switches: only they forward (CAs would cost a step per LID each) */
	size_t nsw;
	size_t *base;		/* per switch: where its ports start in peer[] */
	uint32_t *peer;		/* per switch port: the switch (index in sw[]) it leads to, NO_NEXT for none */
	size_t next_block;	/* the next block to take (atomic) */
	unsigned nworkers;
	struct loops_report r[LOOPS_WORKERS_MAX];
	int rc[LOOPS_WORKERS_MAX];
};

/* loops_find_lids gives every share a worker */
_Static_assert(LOOPS_WORKERS_MAX >= SHARES_MAX, "a share without a worker's report");

#define NO_NEXT UINT32_MAX
#define LID_BLOCK 64	/* LIDs decided together: a switch's entries for them are one cache line */
#define FILL_PREFETCH 8	/* switches ahead */

/*
 * For LIDs lo .. lo + nk - 1, next[k * nsw + i]: the switch that switch
 * i's entry for lo + k leads to, NO_NEXT where the path ends. Read switch
 * by switch, a line of its row each, where a walk per LID would miss the
 * cache at every hop.
 */
static void fill_block(const struct loops_work *s, uint16_t lo, size_t nk, uint32_t *next)
{
	for (size_t i = 0; i < s->nsw; i++) {
		const struct node *sw = s->sw[i];
		const uint8_t *row = s->t->lft[sw->index] + lo;
		if (i + FILL_PREFETCH < s->nsw)	/* each row's line is a miss of its own: asked for ahead */
			__builtin_prefetch(s->t->lft[s->sw[i + FILL_PREFETCH]->index] + lo);
		const uint32_t *peer = s->peer + s->base[i];
		for (size_t k = 0; k < nk; k++)
			next[k * s->nsw + i] = row[k] <= sw->nports ? peer[row[k]] : NO_NEXT;
	}
}

/* Decides every switch for one LID (next: its row of fill_block); how many entries loop, *met where one did first. */
static size_t check_lid(const uint32_t *next, size_t nsw, uint8_t *state, uint32_t *walk, uint32_t *met)
{
	size_t looping = 0;
	memset(state, UNSEEN, nsw);
	*met = NO_NEXT;
	for (size_t i = 0; i < nsw; i++) {
		uint32_t at = (uint32_t)i;
		size_t n = 0;
		while (at != NO_NEXT && state[at] == UNSEEN) {
			state[at] = ON_WALK;
			walk[n++] = at;
			at = next[at];
		}
		uint8_t verdict = at == NO_NEXT || state[at] == ENDS ? ENDS : LOOPS;
		if (at != NO_NEXT && state[at] == ON_WALK && *met == NO_NEXT)
			*met = at;
		for (size_t k = 0; k < n; k++)
			state[walk[k]] = verdict;
		looping += verdict == LOOPS ? n : 0;
	}
	return looping;
}

int loops_find(const struct fabric *f, const struct routing_tables *t, struct loops_report *r)
{
	return loops_find_lids(f, t, NULL, r);
}

void loops_work_take(struct loops_work *s, unsigned k)
{
	uint8_t *state = malloc(s->nsw + 1);
	uint32_t *walk = malloc((s->nsw + 1) * sizeof(*walk)), *next = malloc(LID_BLOCK * (s->nsw + 1) * sizeof(*next));
	s->rc[k] = state && walk && next ? 0 : -1;
	while (s->rc[k] == 0) {
		size_t lo = 1 + LID_BLOCK * __atomic_fetch_add(&s->next_block, 1, __ATOMIC_RELAXED);
		if (lo > s->t->max_lid)
			break;
		size_t nk = s->t->max_lid - lo + 1 < LID_BLOCK ? s->t->max_lid - lo + 1 : LID_BLOCK, wanted = 0;
		for (size_t j = 0; j < nk && !wanted; j++)
			wanted = !s->lids || s->lids[lo + j];
		if (!wanted)
			continue;
		fill_block(s, (uint16_t)lo, nk, next);
		for (size_t j = 0; j < nk; j++) {
			uint16_t lid = (uint16_t)(lo + j);
			uint32_t met;
			if (s->lids && !s->lids[lid])
				continue;
			size_t n = check_lid(next + j * s->nsw, s->nsw, state, walk, &met);
			/* a worker's blocks come in LID order: its first loop is its lowest */
			if (met != NO_NEXT && !s->r[k].first_lid)
				keep_cycle(s->t, s->sw[met], lid, &s->r[k]);
			s->r[k].entries += n;
			s->r[k].lids += n > 0;
		}
	}
	free(state);
	free(walk);
	free(next);
}

/* Numbers the switches with tables and where each port leads among them; -1 on allocation failure. */
static int index_switches(struct loops_work *s)
{
	const struct fabric *f = s->f;
	size_t *of_node = malloc((f->nnodes + 1) * sizeof(*of_node)), ports = 0;
	s->sw = malloc((f->nnodes + 1) * sizeof(*s->sw));
	s->base = malloc((f->nnodes + 1) * sizeof(*s->base));
	if (!of_node || !s->sw || !s->base) {
		free(of_node);
		return -1;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		of_node[i] = SIZE_MAX;
		if (s->t->lft[i]) {
			of_node[i] = s->nsw;
			s->base[s->nsw] = ports;
			ports += f->nodes[i]->nports + 1u;
			s->sw[s->nsw++] = f->nodes[i];
		}
	}
	s->peer = malloc((ports + 1) * sizeof(*s->peer));
	for (size_t i = 0; s->peer && i < s->nsw; i++)
		for (unsigned p = 0; p <= s->sw[i]->nports; p++) {
			const struct node *nx = routing_next_switch(s->sw[i], (uint8_t)p);
			s->peer[s->base[i] + p] = nx && of_node[nx->index] != SIZE_MAX ? (uint32_t)of_node[nx->index]
										 : NO_NEXT;
		}
	free(of_node);
	return s->peer ? 0 : -1;
}

struct loops_work *loops_work_new(const struct fabric *f, const struct routing_tables *t, const bool *lids,
				  unsigned nworkers)
{
	struct loops_work *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	*w = (struct loops_work){ .f = f, .t = t, .lids = lids,
				  .nworkers = nworkers < 1 ? 1 : nworkers > LOOPS_WORKERS_MAX ? LOOPS_WORKERS_MAX : nworkers };
	if (index_switches(w) < 0) {
		struct loops_report none;
		loops_work_end(w, &none);
		return NULL;
	}
	return w;
}

int loops_work_end(struct loops_work *w, struct loops_report *r)
{
	int rc = 0;
	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < w->nworkers; k++) {
		const struct loops_report *x = &w->r[k];
		if (w->rc[k] < 0)
			rc = -1;
		if (x->first_lid && (!r->first_lid || x->first_lid < r->first_lid)) {
			r->first_lid = x->first_lid;
			r->cycle_len = x->cycle_len;
			memcpy(r->cycle, x->cycle, sizeof(r->cycle));
		}
		r->entries += x->entries;
		r->lids += x->lids;
	}
	free(w->sw);
	free(w->base);
	free(w->peer);
	free(w);
	if (rc < 0)
		memset(r, 0, sizeof(*r));
	return rc;
}

static void take_share(void *arg, size_t k, size_t from, size_t to)
{
	loops_work_take(arg, (unsigned)k);
}

/* Fabrics with fewer nodes are looked at by one thread: starting more costs more than it saves. */
#define SHARE_MIN_NODES 1024

int loops_find_lids(const struct fabric *f, const struct routing_tables *t, const bool *lids, struct loops_report *r)
{
	size_t nshares = shares_count(f->nnodes, SHARE_MIN_NODES);
	struct loops_work *w = loops_work_new(f, t, lids, (unsigned)nshares);
	if (!w) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	shares_run(nshares, nshares, take_share, w);	/* one item a share: each takes blocks until none is left */
	return loops_work_end(w, r);
}

void loops_text(const struct loops_report *r, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "LID %u:", r->first_lid);
	for (size_t i = 0; i <= r->cycle_len && r->cycle_len && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " -> " : " ",
					r->cycle[i % r->cycle_len]->desc);
}
