/*
 * DOC: mending a destination's routes in place
 *
 * After a loss, most of a LID's column still delivers: only the switches
 * whose route crossed the lost link or switch fail. Those are re-pointed
 * here, and nothing else is touched, so a repair costs a walk of the
 * broken columns instead of a routing of the whole fabric.
 *
 * The switches that deliver are settled, each at its hop count to the
 * LID's switch along its entries (walked only for those next to a failing
 * one). A search over the failing switches, shortest first, starting
 * from those next to a settled one, settles them: a switch takes a port
 * to a neighbour settled one hop closer. It runs twice. First only
 * along up*-down* legal routes (rank.h: a route that goes down never goes
 * up again): a switch may go up to a neighbour whose route is legal, or
 * down to one whose route only goes down. Then, for the switches no legal
 * route reaches (a degraded tree's detours), along any route: an escape,
 * as the fat-tree engine gives the switches it cannot route up*-down*.
 * Among a switch's candidates, one that keeps its route going only down
 * comes first, then the port that carries the fewest CA LIDs (the
 * fat-tree engine's balance), then the lowest port.
 *
 * Every switch then delivers without a loop: each entry leads to a switch
 * settled before it, one hop closer. Whether the mended tables are
 * deadlock-free is for the caller's proof.
 */
#include "routing/patch.h"

#include <stdlib.h>
#include <string.h>

/* How a settled switch's route runs: only down, up then down, or with a turn from down to up. */
enum { HOW_NONE, HOW_PENDING, HOW_DOWN, HOW_LEGAL, HOW_ESCAPE };

int column_patch_init(struct column_patch *p, const struct lid_owner *own, const struct swindex *x,
		      const struct rank *r, struct routing_tables *t)
{
	size_t nsw = x->nsw + 1;
	memset(p, 0, sizeof(*p));
	p->x = x;
	p->r = r;
	p->t = t;
	p->load = calloc(nsw * PATCH_PORT_SLOTS, sizeof(*p->load));
	p->load_counted = calloc(nsw, sizeof(*p->load_counted));
	p->dist = malloc(nsw * sizeof(*p->dist));
	p->how = malloc(nsw);
	p->order = malloc(nsw * sizeof(*p->order));
	p->queue = malloc(nsw * sizeof(*p->queue));
	p->failing = malloc(nsw * sizeof(*p->failing));
	p->found = malloc(nsw * sizeof(*p->found));
	p->stack = malloc(nsw * sizeof(*p->stack));
	p->key = malloc(nsw * sizeof(*p->key));
	p->count = malloc((nsw + 1) * sizeof(*p->count));
	p->seen = calloc(nsw, sizeof(*p->seen));
	p->ca_lid = calloc((size_t)t->max_lid + 1, sizeof(*p->ca_lid));
	p->leaf = calloc(nsw, sizeof(*p->leaf));
	p->peer = malloc(nsw * PATCH_PORT_SLOTS * sizeof(*p->peer));
	p->row = malloc(nsw * sizeof(*p->row));
	if (!p->load || !p->load_counted || !p->dist || !p->how || !p->order || !p->queue || !p->failing ||
	    !p->found || !p->stack || !p->key || !p->count || !p->seen || !p->ca_lid || !p->leaf || !p->peer || !p->row) {
		column_patch_free(p);
		return -1;
	}
	for (size_t sw = 0; sw < x->nsw; sw++) {
		const struct node *n = x->sw[sw];
		p->row[sw] = t->lft[n->index];
		for (unsigned q = 0; q < PATCH_PORT_SLOTS; q++) {
			size_t m = q && q <= n->nports ? swindex_peer(x, n, q) : SW_NONE;
			p->peer[sw * PATCH_PORT_SLOTS + q] = m == SW_NONE ? PATCH_NO_PEER : (uint32_t)m;
		}
	}
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		p->ca_lid[lid] = own[lid].node && own[lid].node->type != NODE_SWITCH;
	for (size_t sw = 0; sw < x->nsw; sw++)
		p->leaf[sw] = rank_has_hosts(x->sw[sw]);
	return 0;
}

void column_patch_free(struct column_patch *p)
{
	free(p->load);
	free(p->load_counted);
	free(p->dist);
	free(p->how);
	free(p->order);
	free(p->queue);
	free(p->failing);
	free(p->found);
	free(p->stack);
	free(p->key);
	free(p->count);
	free(p->seen);
	free(p->ca_lid);
	free(p->leaf);
	free(p->peer);
	free(p->row);
	memset(p, 0, sizeof(*p));
}

/* The switch port q of s leads to, or PATCH_NO_PEER. */
static inline uint32_t peer_of(const struct column_patch *p, size_t s, unsigned q)
{
	return p->peer[s * PATCH_PORT_SLOTS + q];
}

/* The switch s's entry for the column leads to; PATCH_NO_PEER: s hands the LID over itself, or drops it. */
static inline uint32_t next_of(const struct column_patch *p, size_t s)
{
	uint8_t e = p->row[s][p->lid];
	return e < PATCH_PORT_SLOTS ? peer_of(p, s, e) : PATCH_NO_PEER;
}

/* Switch s's row of load[]: how many CA LIDs it sends out of each port, filled on first use. */
static uint32_t *load_row(struct column_patch *p, size_t s)
{
	uint32_t *row = &p->load[s * PATCH_PORT_SLOTS];
	if (!p->load_counted[s]) {
		const struct node *sw = p->x->sw[s];
		const uint8_t *lft = p->t->lft[sw->index];
		for (uint32_t lid = 1; lid <= p->t->max_lid; lid++)
			if (p->ca_lid[lid] && lft[lid] <= sw->nports)
				row[lft[lid]]++;
		p->load_counted[s] = true;
	}
	return row;
}

/* What a route from s that goes on to settled n is: HOW_NONE when the pass does not allow it. */
static int joined(const struct column_patch *p, size_t s, size_t n, bool any)
{
	bool up = rank_above(p->r, p->x, n, s);
	if (p->how[n] == HOW_ESCAPE || (!up && p->how[n] == HOW_LEGAL))
		return any ? HOW_ESCAPE : HOW_NONE;
	return up ? HOW_LEGAL : p->how[n];
}

/*
 * Whether s is settled for the column. A switch that delivers is, from
 * its first use on: its hops and how its route runs come from a walk
 * along its entries, which meets only switches that deliver (the column
 * walk gave every switch of a walk one verdict), and are kept for the
 * column (stamp). The failing switches were stamped when the column began.
 */
static bool settled(struct column_patch *p, size_t s)
{
	size_t depth = 0, at = s;
	while (p->seen[at] != p->stamp) {
		p->stack[depth++] = at;
		p->seen[at] = p->stamp;
		uint32_t next = next_of(p, at);
		if (next == PATCH_NO_PEER) {	/* the LID's switch: it hands the LID over itself */
			p->how[at] = HOW_DOWN;
			p->dist[at] = 0;
			depth--;
			break;
		}
		at = next;
	}
	while (depth--) {	/* back along the walk: each one hop farther than the next */
		size_t on = p->stack[depth];
		p->dist[on] = p->dist[at] + 1;
		p->how[on] = (uint8_t)joined(p, on, at, true);
		at = on;
	}
	return p->how[s] >= HOW_DOWN;
}

/*
 * The failing switches next to a settled one they may go on to (legally
 * only, unless any), pending at the hops through the nearest (key[]), in
 * order[] sorted by them: where the search starts. Returns how many.
 */
static size_t starts(struct column_patch *p, bool any)
{
	size_t nsw = p->x->nsw, n = 0;
	for (size_t i = 0; i < p->nfailing; i++) {
		size_t f = p->failing[i];
		if (p->how[f] != HOW_NONE)	/* settled by the first pass */
			continue;
		unsigned nports = p->x->sw[f]->nports;
		uint32_t key = PATCH_UNSETTLED;
		for (unsigned q = 1; q <= nports; q++) {
			uint32_t s = peer_of(p, f, q);
			if (s != PATCH_NO_PEER && settled(p, s) && p->dist[s] + 1 < key && joined(p, f, s, any) != HOW_NONE)
				key = p->dist[s] + 1;
		}
		if (key != PATCH_UNSETTLED) {
			p->how[f] = HOW_PENDING;
			p->dist[f] = p->key[f] = key;
			p->found[n++] = f;
		}
	}
	memset(p->count, 0, (nsw + 1) * sizeof(*p->count));
	for (size_t i = 0; i < n; i++)
		p->count[p->key[p->found[i]]]++;
	for (size_t d = 1; d <= nsw; d++)
		p->count[d] += p->count[d - 1];
	for (size_t i = n; i--;)
		p->order[--p->count[p->key[p->found[i]]]] = p->found[i];
	return n;
}

/* Points pending switch s at its best neighbour one hop closer (module comment); 0, or 1 if none. */
static int choose(struct column_patch *p, size_t s, uint16_t lid, bool any)
{
	const struct node *sw = p->x->sw[s];
	uint32_t *load = p->ca_lid[lid] ? load_row(p, s) : NULL;
	unsigned best = 0;
	int best_how = HOW_NONE;
	for (unsigned q = 1; q <= sw->nports; q++) {
		uint32_t n = peer_of(p, s, q);
		if (n == PATCH_NO_PEER || !settled(p, n) || p->dist[n] + 1 != p->dist[s])
			continue;
		int how = joined(p, s, n, any);
		if (how == HOW_NONE)
			continue;
		bool better = !best || (how == HOW_DOWN && best_how != HOW_DOWN) ||
			      ((how == HOW_DOWN) == (best_how == HOW_DOWN) && load && load[q] < load[best]);
		if (better) {
			best = q;
			best_how = how;
		}
	}
	if (!best)
		return 1;
	uint8_t *entry = &p->t->lft[sw->index][lid];
	if (load) {
		if (*entry <= sw->nports)
			load[*entry]--;
		load[best]++;
	}
	*entry = (uint8_t)best;
	p->how[s] = (uint8_t)best_how;
	return 0;
}

/*
 * One pass of the search (legal routes only, or any) over the failing
 * switches, shortest first: the starts, sorted, and the queue of those
 * found from a switch the search settled, in the order found, both run by
 * hops; the nearer head goes first, so a switch is chosen for once all
 * its candidates are settled. Only failing switches are ever expanded:
 * a repair that broke one switch's route looks at that switch alone.
 */
static void search(struct column_patch *p, uint16_t lid, bool any)
{
	size_t nstart = starts(p, any), si = 0, head = 0, tail = 0;
	while (si < nstart || head < tail) {
		size_t s;
		if (head < tail && (si == nstart || p->dist[p->queue[head]] < p->key[p->order[si]])) {
			s = p->queue[head++];
		} else {
			s = p->order[si++];
			if (p->how[s] == HOW_PENDING && p->dist[s] < p->key[s])
				continue;	/* found nearer since: it waits in the queue */
		}
		if (p->how[s] != HOW_PENDING)
			continue;	/* chosen for already */
		if (choose(p, s, lid, any)) {
			p->how[s] = HOW_NONE;	/* cannot happen: a settled switch was one hop closer */
			continue;
		}
		unsigned nports = p->x->sw[s]->nports;
		for (unsigned q = 1; q <= nports; q++) {
			uint32_t m = peer_of(p, s, q);
			if (m == PATCH_NO_PEER || p->seen[m] != p->stamp || (p->how[m] != HOW_NONE && p->how[m] != HOW_PENDING) ||
			    (p->how[m] == HOW_PENDING && p->dist[m] <= p->dist[s] + 1) || joined(p, m, s, any) == HOW_NONE)
				continue;
			p->how[m] = HOW_PENDING;
			p->dist[m] = p->dist[s] + 1;
			p->queue[tail++] = m;
		}
	}
}

/* The LID's own switch, put in charge of it when its entry fails: SW_NONE if no switch holds it. */
static size_t own_switch(struct column_patch *p, uint16_t lid, const struct lid_owner *dst)
{
	const struct node *sw = dst->node;
	uint8_t entry = 0;
	if (sw->type != NODE_SWITCH) {
		sw = routing_next_switch(dst->node, dst->port);
		entry = dst->node->ports[dst->port].remote_port;
	}
	if (!sw)
		return SW_NONE;
	size_t s = p->x->of_node[sw->index];
	if (p->seen[s] == p->stamp && p->how[s] == HOW_NONE) {	/* it fails too */
		uint8_t *e = &p->t->lft[sw->index][lid];
		if (p->ca_lid[lid]) {
			uint32_t *load = load_row(p, s);
			if (*e <= sw->nports)
				load[*e]--;
			load[entry]++;
		}
		*e = entry;
		p->how[s] = HOW_DOWN;
		p->dist[s] = 0;
	}
	return s;
}

/*
 * Whether each failing switch, settled, now leads without a loop to one
 * that delivered already or hands the LID over itself: the search's
 * promise, walked again.
 */
static bool mended_deliver(struct column_patch *p, const uint8_t *verdict)
{
	for (size_t i = 0; i < p->nfailing; i++) {
		size_t at = p->failing[i], hops = 0;
		while (verdict[at] != COLUMN_DELIVERS) {
			uint32_t next = next_of(p, at);
			if (next == PATCH_NO_PEER)
				break;
			if (++hops > p->nfailing)
				return false;
			at = next;
		}
		if (verdict[at] != COLUMN_DELIVERS && p->dist[at] != 0)
			return false;
	}
	return true;
}

int column_patch_mend(struct column_patch *p, uint16_t lid, const struct lid_owner *dst, const uint8_t *verdict,
		      bool *leaf_escapes)
{
	p->lid = lid;
	p->stamp++;
	p->nfailing = 0;
	for (size_t s = 0; s < p->x->nsw; s++)
		if (verdict[s] != COLUMN_DELIVERS) {
			p->failing[p->nfailing++] = s;
			p->seen[s] = p->stamp;
			p->how[s] = HOW_NONE;
			p->dist[s] = PATCH_UNSETTLED;
		}
	if (own_switch(p, lid, dst) == SW_NONE)
		return 1;
	search(p, lid, false);
	search(p, lid, true);
	*leaf_escapes = false;
	for (size_t i = 0; i < p->nfailing; i++) {
		size_t s = p->failing[i];
		if (p->how[s] < HOW_DOWN)
			return 1;
		*leaf_escapes |= p->leaf[s] && p->how[s] == HOW_ESCAPE;
	}
	return mended_deliver(p, verdict) ? 0 : 1;
}
