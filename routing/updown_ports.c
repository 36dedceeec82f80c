/*
 * DOC: up/down port choice
 *
 * updown.c gives every destination's candidate ports on every switch (a
 * candidate table); here each switch chooses among them. Among
 * candidates: the D-mod-K port if the plan has one and it is a candidate,
 * else the port that carries the fewest CA LIDs so far, destinations
 * taken in the fill's order. A switch's choices depend on its own loads
 * alone, so the switches are shared out among the CPUs and each one goes
 * through the destinations with its table and loads at hand: the same
 * tables as choosing destination by destination over every switch.
 *
 * Where that leaves a switch's ports more than one CA LID apart (a
 * degraded tree), a balancing pass moves destinations between
 * candidates, again switch by switch.
 */
#include "routing/updown_core.h"

#include <stdlib.h>
#include <string.h>

#include "routing/shares.h"

#define BALANCE_PASSES 16	/* a safety bound: degraded trees seen here need 2-4 */

/* Fabrics with fewer switches choose on one CPU: a thread costs more. */
#define PORTS_SHARE_MIN_SWITCHES 256

/* The first of ports c[0..n) (n > 0) at the lowest load. */
static uint8_t least_of(const uint8_t *c, unsigned n, const uint32_t *load)
{
	uint8_t best = c[0];
	uint32_t lowest = load[best];	/* kept apart: reading load[best] again would chain each step to the last */
	for (unsigned i = 1; i < n; i++)
		if (load[c[i]] < lowest) {
			best = c[i];
			lowest = load[best];
		}
	return best;
}

/*
 * least_of s's candidates c[0..n), remembered per switch while its loads
 * stay where they are every up-link or every down-link of the switch
 * (whole: EVERY_UP, EVERY_DOWN; else 0): the same ports in the same order
 * towards every such destination. The switches' own LIDs (which add no
 * load) mostly meet one of the two: a switch going up that may take any
 * up-link, or one escaping by any of its down-links; so do most of the
 * balancing pass's looks.
 */
static uint8_t least_kept(struct ud *u, size_t s, uint8_t whole, const uint8_t *c, unsigned n)
{
	if (!whole)
		return least_of(c, n, u->load + u->base[s]);
	uint8_t *kept = &u->kept_min[s][whole == EVERY_DOWN];
	if (!(u->fresh[s] & whole)) {
		*kept = least_of(c, n, u->load + u->base[s]);
		u->fresh[s] |= whole;
	}
	return *kept;
}

/* A switch's candidates towards one destination. */
struct cell {
	const uint8_t *c;
	unsigned n;
	uint8_t whole;		/* EVERY_UP, EVERY_DOWN, else 0 */
};

/* The candidates of cell code at switch desc[i]; list: the switch's list, at this cell when it is CAND_LIST. */
static struct cell cell_of(const struct ud *u, size_t i, uint8_t code, const uint8_t *list)
{
	size_t s = u->desc[i];
	uint8_t kind = code & CAND_KIND;
	if (kind == CAND_LIST)
		return (struct cell){ list + 1, list[0], 0 };
	unsigned ups = u->n_upnbr[s], links = (unsigned)(u->adj_start[s + 1] - u->adj_start[s]);
	const uint8_t *first = u->adj_port + u->adj_start[s];
	return kind == EVERY_UP ? (struct cell){ first, ups, EVERY_UP } :
				  (struct cell){ first + ups, links - ups, EVERY_DOWN };
}

/* a % n for 32-bit a, with magic = UINT64_MAX / n + 1 (Lemire's remainder by multiplication). */
static uint32_t fast_mod(uint32_t a, uint64_t magic, uint32_t n)
{
	return (uint32_t)(((unsigned __int128)(magic * a) * n) >> 64);
}

/* What D-mod-K needs of switch s towards one destination. */
struct dmodk_at {
	const uint8_t *up_order;	/* NULL: not for s (no plan, going down, escaping, no up-ports) */
	const uint32_t *digit;		/* per LID: j / stride[level of s] */
	uint32_t n_up;
	uint64_t magic;
	bool every_up;			/* every up-port is a candidate */
};

static struct dmodk_at dmodk_at(const struct ud *u, size_t s, uint8_t code, const struct cell *c)
{
	const struct updown_plan *p = u->p;
	struct dmodk_at at = { 0 };
	/* only a switch that goes up legally: an escape route's candidates may be down-ports */
	if (!p->up_order || !(code & CAND_UP_LEGAL) || !p->n_up[s])
		return at;
	at.up_order = p->up_order[s];
	at.digit = u->digit + (size_t)u->r->level[s] * ((size_t)u->max_lid + 1);
	at.n_up = p->n_up[s];
	at.magic = u->magic[s];
	at.every_up = c->n == p->n_up[s];
	return at;
}

/* The D-mod-K port of lid at s, when it is one of the candidates c; else 0. */
static inline __attribute__((always_inline)) uint8_t dmodk_port(const struct dmodk_at *at, const struct cell *c,
								  uint16_t lid)
{
	if (!at->up_order || at->digit[lid] == UINT32_MAX)
		return 0;
	uint8_t port = at->up_order[fast_mod(at->digit[lid], at->magic, at->n_up)];
	if (!port)	/* a hole: this switch lacks that link */
		return 0;
	if (at->every_up)
		return port;
	for (unsigned i = 0; i < c->n; i++)
		if (c->c[i] == port)
			return port;
	return 0;
}

/*
 * Gives the CA LIDs lids[0..n) at switch s the least loaded candidate each,
 * in turn, every one adding to its port's load: what n calls of
 * least_loaded with an increment after each give, in one pass per load
 * level instead of a scan per LID. The first candidate (in candidate
 * order) at the lowest load is taken, so at level L the picks go through
 * the candidates at load L in candidate order, each rising to L + 1; when
 * none is left at L, the same from the first candidate at L + 1.
 */
static void fill_least_loaded(struct ud *u, size_t s, const struct cell *c, uint8_t *lft, const uint16_t *lids,
			      unsigned n)
{
	uint32_t *load = u->load + u->base[s], level = UINT32_MAX;
	for (unsigned i = 0; i < c->n; i++)
		if (load[c->c[i]] < level)
			level = load[c->c[i]];
	for (unsigned k = 0; k < n && c->n; level++)
		for (unsigned i = 0; i < c->n && k < n; i++)
			if (load[c->c[i]] == level) {
				lft[lids[k++]] = c->c[i];
				load[c->c[i]]++;
			}
	u->fresh[s] = 0;
}

/*
 * Routes the LIDs of one destination (at_port[k]: the port of the
 * destination they hang off, 0 for its own LID) at switch s. Consecutive
 * CA LIDs without a D-mod-K port are given the least loaded ports in one
 * fill.
 */
static void route_cell(struct ud *u, size_t s, uint8_t code, const struct cell *c, uint8_t *lft,
		       const uint16_t *lids, const uint8_t *at_port, unsigned n)
{
	struct dmodk_at at = dmodk_at(u, s, code, c);
	uint32_t *load = u->load + u->base[s];
	for (unsigned k = 0; k < n;) {
		uint8_t port = dmodk_port(&at, c, lids[k]);
		if (!port && at_port[k]) {
			unsigned end = k + 1;
			while (end < n && at_port[end] && !dmodk_port(&at, c, lids[end]))
				end++;
			fill_least_loaded(u, s, c, lft, lids + k, end - k);
			k = end;
			continue;
		}
		if (!port)
			port = least_kept(u, s, c->whole, c->c, c->n);
		lft[lids[k]] = port;
		if (at_port[k]) {	/* CA LIDs carry the traffic: they count for balance */
			load[port]++;
			u->fresh[s] = 0;
		}
		k++;
	}
}

/* Switch desc[i]'s ports towards every routed row, in row order. */
static void route_switch(struct ud *u, struct routing_tables *t, size_t i)
{
	const struct cand_table *k = &u->cands;
	size_t s = u->desc[i];
	uint8_t *lft = t->lft[u->x->sw[s]->index];
	uint32_t *load = u->load + u->base[s];
	const uint8_t *code = k->code + i * k->rows, *list = k->lists[i].v;
	for (size_t r = 0; r < k->nrows; r++) {
		const uint16_t *lids = k->lids + k->lid_start[r];
		const uint8_t *at_port = k->at_port + k->lid_start[r];
		unsigned n = (unsigned)(k->lid_start[r + 1] - k->lid_start[r]);
		if (k->dest[r] == s) {	/* its own CAs and LID */
			for (unsigned j = 0; j < n; j++) {
				lft[lids[j]] = at_port[j];
				if (at_port[j]) {
					load[at_port[j]]++;
					u->fresh[s] = 0;
				}
			}
			continue;
		}
		if (!code[r])
			continue;
		struct cell c = cell_of(u, i, code[r], list);
		if ((code[r] & CAND_KIND) == CAND_LIST)
			list += 1u + list[0];
		route_cell(u, s, code[r], &c, lft, lids, at_port, n);
	}
}

struct route_run {
	struct ud *u;
	struct routing_tables *t;
};

/*
 * The switches are shared out by their index, not their place in the
 * order: a share's loads and flags then lie together, away from the
 * others' (a cache line written by two CPUs at once goes back and forth).
 */
static void route_share(void *arg, size_t k, size_t from, size_t to)
{
	struct route_run *w = arg;
	(void)k;
	for (size_t s = from; s < to; s++)
		if (w->u->place[s] != SIZE_MAX)
			route_switch(w->u, w->t, w->u->place[s]);
}

void updown_route_switches(struct ud *u, struct routing_tables *t)
{
	struct route_run w = { u, t };
	shares_run(shares_count(u->ndesc, PORTS_SHARE_MIN_SWITCHES), u->x->nsw, route_share, &w);
}

/*
 * Whether s's up-ports, or its down-ports, carry CA LID counts more than
 * one apart. (Up- and down-ports of a middle switch carry different
 * kinds of traffic and are never compared.)
 */
static bool unbalanced(const struct ud *u, size_t s)
{
	uint32_t lo[2] = { UINT32_MAX, UINT32_MAX }, hi[2] = { 0, 0 };
	for (const struct nbr *a = u->adj + u->adj_start[s]; a < u->adj + u->adj_start[s + 1]; a++) {
		uint32_t load = u->load[u->base[s] + a->port];
		if (load < lo[a->up])
			lo[a->up] = load;
		if (load > hi[a->up])
			hi[a->up] = load;
	}
	return (lo[0] != UINT32_MAX && hi[0] > lo[0] + 1) || (lo[1] != UINT32_MAX && hi[1] > lo[1] + 1);
}

/* A balancing step, shared out by switches. */
struct balance_run {
	struct ud *u;
	struct routing_tables *t;
	const size_t *rows;	/* the leaves in the order the pass visits them: their rows */
	size_t nleaves;
	const bool *want;
	bool one;
	uint32_t *at[SHARES_MAX];	/* per share, per row: where switch i's list for it starts */
	size_t moved[SHARES_MAX];
};

/* How many LIDs leaf row r holds: its CA LIDs (u->leaves keeps no switch's own). */
static unsigned row_cas(const struct cand_table *k, size_t r)
{
	return (unsigned)(k->lid_start[r + 1] - k->lid_start[r]);
}

/*
 * One balancing step at switch desc[i] (in want), over every leaf in
 * turn: each CA LID of the leaf whose least loaded candidate carries at
 * least two fewer CA LIDs than the port it is on moves there. Any
 * candidate is as legal and as short as another, so paths stay up/down
 * and shortest. With one, only the first such LID per leaf moves: in the
 * first pass the destinations one switch moves then hang off different
 * leaves, rather than crowding onto one leaf's down-link (measured: worst
 * shift permutation 9 flows on a link instead of 5). Returns how many
 * moved.
 */
static size_t balance_switch(const struct balance_run *b, size_t i, uint32_t *at)
{
	struct ud *u = b->u;
	const struct cand_table *k = &u->leaves;
	const uint8_t *code = k->code + i * k->rows, *list = k->lists[i].v;
	size_t s = u->desc[i], moved = 0;
	uint32_t pos = 0;
	for (size_t r = 0; r < k->nrows; r++)
		if ((code[r] & CAND_KIND) == CAND_LIST) {
			at[r] = pos;
			pos += 1u + list[pos];
		}
	uint8_t *lft = b->t->lft[u->x->sw[s]->index];
	uint32_t *load = u->load + u->base[s];
	for (size_t j = 0; j < b->nleaves; j++) {
		size_t r = b->rows[j];
		if (!code[r])	/* no choice there (the leaf itself among them) */
			continue;
		struct cell c = cell_of(u, i, code[r], (code[r] & CAND_KIND) == CAND_LIST ? list + at[r] : NULL);
		if (c.n < 2)
			continue;
		uint8_t to = least_kept(u, s, c.whole, c.c, c.n);	/* changes only when a move changes the loads */
		const uint16_t *lids = k->lids + k->lid_start[r];
		for (unsigned x = 0, cas = row_cas(k, r); x < cas; x++) {
			uint8_t from = lft[lids[x]];
			if (load[from] >= load[to] + 2) {
				lft[lids[x]] = to;
				load[from]--;
				load[to]++;
				u->fresh[s] = 0;
				moved++;
				if (b->one)
					break;
				to = least_kept(u, s, c.whole, c.c, c.n);
			}
		}
	}
	return moved;
}

/* Shared out by switch index, as route_share. */
static void balance_share(void *arg, size_t k, size_t from, size_t to)
{
	struct balance_run *b = arg;
	b->moved[k] = 0;
	for (size_t s = from; s < to; s++)
		if (b->want[s] && b->u->place[s] != SIZE_MAX)
			b->moved[k] += balance_switch(b, b->u->place[s], b->at[k]);
}

struct leaf_at {
	size_t row;
	uint32_t j;	/* its first host's number in host order */
};

static int cmp_leaf_at(const void *a, const void *b)
{
	const struct leaf_at *x = a, *y = b;
	return x->j < y->j ? -1 : x->j > y->j;
}

static uint32_t bit_reverse(uint32_t v, unsigned bits)
{
	uint32_t r = 0;
	for (unsigned b = 0; b < bits; b++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

/*
 * The rows of the leaves in bit-reversed host order (0, n/2, n/4, 3n/4,
 * ...): the destinations a switch moves first then lie in different pods
 * and columns, so the moves of different switches do not all land on the
 * links into one pod. How many; SIZE_MAX on allocation failure.
 */
static size_t spread_leaves(const struct ud *u, size_t *out)
{
	const struct cand_table *k = &u->leaves;
	struct leaf_at *at = malloc((k->nrows + 1) * sizeof(*at));
	size_t n = 0, m = 0;
	if (!at)
		return SIZE_MAX;
	for (size_t r = 0; r < k->nrows; r++) {	/* a leaf has a row only with CA LIDs */
		uint32_t j = UINT32_MAX;
		for (unsigned c = 0, cas = row_cas(k, r); c < cas; c++)
			if (u->jpos[k->lids[k->lid_start[r] + c]] < j)
				j = u->jpos[k->lids[k->lid_start[r] + c]];
		at[n++] = (struct leaf_at){ r, j };
	}
	qsort(at, n, sizeof(*at), cmp_leaf_at);
	unsigned bits = 0;
	while (((size_t)1 << bits) < n)
		bits++;
	for (uint32_t v = 0; v < ((uint32_t)1 << bits); v++) {
		uint32_t i = bit_reverse(v, bits);
		if (i < n)
			out[m++] = at[i].row;
	}
	free(at);
	return m;
}

/*
 * Where a degraded tree left a switch's ports unbalanced (a port that
 * lost legal paths carries fewer destinations, the ports that took them
 * more), moves destinations between equally good ports until no move
 * narrows a gap, or after BALANCE_PASSES passes over the leaves. Every
 * switch sees the leaves in the same order, so switches with the same
 * gap move the same destinations, which adds one flow to a link, not one
 * per switch. Full trees are balanced by D-mod-K already and skip this.
 * (infiniband-diags' check_lft_balance judges this: a switch's ports
 * within one CA LID of each other.)
 */
int updown_balance(struct ud *u, struct routing_tables *t)
{
	bool *want = calloc(u->x->nsw + 1, sizeof(*want));
	size_t *rows = malloc((u->leaves.nrows + 1) * sizeof(*rows));
	size_t nshares = shares_count(u->ndesc, PORTS_SHARE_MIN_SWITCHES);
	struct balance_run b = { .u = u, .t = t, .rows = rows, .want = want };
	int rc = -1;
	if (!want || !rows || (b.nleaves = spread_leaves(u, rows)) == SIZE_MAX)
		goto done;
	for (size_t k = 0; k < nshares; k++)
		if (!(b.at[k] = malloc((u->leaves.nrows + 1) * sizeof(*b.at[k]))))
			goto done;
	for (unsigned pass = 0; pass < BALANCE_PASSES; pass++) {
		size_t moved = 0, left = 0;
		for (size_t i = 0; i < u->ndesc; i++)
			left += want[u->desc[i]] = unbalanced(u, u->desc[i]);
		if (!left)
			break;
		b.one = pass == 0;
		shares_run(nshares, u->x->nsw, balance_share, &b);
		for (size_t k = 0; k < nshares; k++)
			moved += b.moved[k];
		if (!moved)
			break;
	}
	rc = 0;
done:
	for (size_t k = 0; k < nshares; k++)
		free(b.at[k]);
	free(want);
	free(rows);
	return rc;
}
