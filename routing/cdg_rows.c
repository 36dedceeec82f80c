/*
 * DOC: dependencies from (nearly) every switch, row by row
 *
 * A walk per destination reads one byte of every switch's table per step,
 * each from another row: a cache miss each. When almost every switch
 * starts traffic to the destinations (layer 0 with the switches'
 * answers), the walks reach almost every switch, and their dependencies
 * are each reached switch's entry with the next switch's entry for the
 * same LID. Read that way, a switch's row and its neighbours' rows are
 * each read in LID order, and the turns into each neighbour are gathered
 * in one bit row per port before they go into the graph.
 *
 * The few switches with a table that start nothing (their LID on another
 * layer, no host there on this one) are reached for a LID when a reached
 * neighbour's entry for it points at them: a bit per LID, from the
 * neighbours' rows, again until no more is reached through another such
 * switch.
 */
#include "routing/cdg_rows.h"

#include <stdlib.h>
#include <string.h>

/* What port p of a switch leads to: the next switch's table and how packets enter it. */
struct hop {
	const struct node *next;
	const uint8_t *row;	/* next's table, NULL when p leads to no switch with a table */
	uint8_t in;		/* the port of next they enter by */
};

/* One build: the LIDs, and for the switches that start nothing, which LIDs' walks reach them. */
struct rows {
	const struct routing_tables *t;
	const uint16_t *lids;
	size_t n, words;	/* words: of a bit per LID */
	size_t *quiet;		/* per node index: its row in reached[], or SIZE_MAX (starts every walk) */
	uint64_t *reached;
	uint64_t *mask;		/* per port: the turns gathered into the next switch */
};

static bool bit(const uint64_t *v, size_t i)
{
	return v[i / 64] >> (i % 64) & 1;
}

/* Adds sw's turns for the LIDs whose walks reach it (reach NULL: every LID). */
static int add_switch(struct rows *r, const struct node *sw, const uint64_t *reach, struct depgraph *g)
{
	struct hop hop[256];
	size_t mw = (FABRIC_MAX_PORTS + 64) / 64;
	memset(hop, 0, sizeof(hop));
	for (unsigned p = 1; p <= sw->nports; p++) {
		const struct node *next = routing_next_switch(sw, (uint8_t)p);
		if (next && r->t->lft[next->index])
			hop[p] = (struct hop){ next, r->t->lft[next->index], sw->ports[p].remote_port };
	}
	memset(r->mask, 0, (size_t)(sw->nports + 1) * mw * sizeof(*r->mask));
	const uint8_t *row = r->t->lft[sw->index];
	for (size_t i = 0; i < r->n; i++) {
		uint8_t out = row[r->lids[i]];
		const struct hop *h = &hop[out];
		if (!h->row || (reach && !bit(reach, i)))
			continue;
		uint8_t next_out = h->row[r->lids[i]];	/* as routing_next_hop: a port that leads somewhere */
		if (next_out && next_out <= h->next->nports && h->next->ports[next_out].remote)
			r->mask[out * mw + next_out / 64] |= 1ull << (next_out % 64);
	}
	for (unsigned p = 1; p <= sw->nports; p++)
		if (hop[p].row && depgraph_add_turns(g, hop[p].next, hop[p].in, r->mask + p * mw) < 0)
			return -1;
	return 0;
}

/*
 * Ors into quiet switch x's bits the LIDs its neighbours' walks send into
 * it (a neighbour that starts nothing only for the LIDs that reach it);
 * whether any bit was new.
 */
static bool reach_from_neighbours(struct rows *r, const struct node *x)
{
	uint64_t *mine = r->reached + r->quiet[x->index] * r->words;
	bool grew = false;
	for (unsigned q = 1; q <= x->nports; q++) {
		const struct node *y = routing_next_switch(x, (uint8_t)q);
		const uint8_t *row = y ? r->t->lft[y->index] : NULL;
		if (!row)
			continue;
		uint8_t to_x = x->ports[q].remote_port;
		const uint64_t *via = r->quiet[y->index] == SIZE_MAX ? NULL : r->reached + r->quiet[y->index] * r->words;
		for (size_t i = 0; i < r->n; i++)
			if (row[r->lids[i]] == to_x && (!via || bit(via, i)) && !bit(mine, i)) {
				mine[i / 64] |= 1ull << (i % 64);
				grew = true;
			}
	}
	return grew;
}

int cdg_add_rows(const struct fabric *f, const struct routing_tables *t, const uint16_t *lids, size_t n,
		 const struct cdg_starts *s, struct depgraph *g)
{
	struct rows r = { .t = t, .lids = lids, .n = n, .words = n / 64 + 1,
			  .quiet = malloc((f->nnodes + 1) * sizeof(*r.quiet)),
			  .mask = malloc((FABRIC_MAX_PORTS + 1) * ((FABRIC_MAX_PORTS + 64) / 64) * sizeof(*r.mask)) };
	size_t nquiet = 0;
	int rc = -1;
	if (!r.quiet || !r.mask)
		goto done;
	for (size_t i = 0; i < f->nnodes; i++) {
		bool quiet = f->nodes[i]->type == NODE_SWITCH && t->lft[i] && !s->always[i];
		r.quiet[i] = quiet ? nquiet++ : SIZE_MAX;
	}
	if (!(r.reached = calloc(nquiet * r.words + 1, sizeof(*r.reached))))
		goto done;
	for (size_t i = 0; i < f->nnodes; i++)	/* quiet switches that start the walks to their LIDs anyway */
		for (size_t k = 0; r.quiet[i] != SIZE_MAX && s->mine[i] && k < n; k++)
			if (s->mine_lid[lids[k]])
				r.reached[r.quiet[i] * r.words + k / 64] |= 1ull << (k % 64);
	for (bool grew = nquiet > 0; grew;) {
		grew = false;
		for (size_t i = 0; i < f->nnodes; i++)
			if (r.quiet[i] != SIZE_MAX)
				grew |= reach_from_neighbours(&r, f->nodes[i]);
	}
	rc = 0;
	for (size_t i = 0; rc == 0 && i < f->nnodes; i++)
		if (f->nodes[i]->type == NODE_SWITCH && t->lft[i])
			rc = add_switch(&r, f->nodes[i], r.quiet[i] == SIZE_MAX ? NULL : r.reached + r.quiet[i] * r.words,
					g);
done:
	free(r.quiet);
	free(r.reached);
	free(r.mask);
	return rc;
}
