/*
 * DOC: up/down routing core
 *
 * Switches are ordered by (level, GUID); a hop to a higher switch is "up".
 * Paths of the form up* down* cannot close a cycle of channel
 * dependencies: a dependency from a down channel to an up channel never
 * occurs, up channels climb and down channels descend the order.
 *
 * For each destination switch D, one search gives every switch's shortest
 * down-only distance to D (walking up from D), and one pass from the top
 * of the order gives the shortest up-then-down distance of the others.
 * Each switch's candidate ports (one hop closer, legally) are computed once
 * per D and shared by every LID attached to D. A switch that can reach D
 * going down must go down: a destination-routed table cannot tell whether
 * a packet arrived going up or down, and sending a descending packet up
 * would break the rule.
 *
 * Among candidates: the D-mod-K port if the plan has one and it is a
 * candidate, else the port that carries the fewest CA LIDs so far.
 *
 * In a degraded fat tree a switch above the leaves may have no legal path
 * to some destination (its column lost the way down). No host traffic can
 * reach it for that destination, since nobody routes to a switch without a
 * legal path, so its entry only serves the switch's own management
 * packets: it gets a plain shortest path (an "escape" route), which adds
 * nothing to the host traffic's channel dependencies. A leaf without a
 * legal path is a real failure, counted in *unreachable.
 */
#include "routing/updown.h"

#include <stdlib.h>
#include <string.h>

#include "routing/hostorder.h"

#define DIST_INF UINT16_MAX

struct ud {
	const struct fabric *f;
	const struct updown_plan *p;
	const struct swindex *x;
	const struct rank *r;
	size_t *desc;		/* ranked switches, top of the order first */
	size_t ndesc;
	uint16_t *down, *dist;	/* per switch, for the current D */
	uint16_t *hops;		/* plain shortest distance, for escape routes */
	bool *leaf;		/* per switch: has hosts */
	size_t *queue;
	size_t *base;		/* per switch: offset of its ports in cand[] and load[] */
	uint8_t *cand;		/* candidate ports, for the current D */
	uint8_t *ncand;
	uint32_t *load;		/* CA LIDs routed per (switch, port) */
	uint32_t *jpos;		/* per LID: number in host order, or UINT32_MAX */
};

static int cmp_desc(const void *a, const void *b, void *arg)
{
	const struct ud *u = arg;
	size_t s = *(const size_t *)a, t = *(const size_t *)b;
	return rank_above(u->r, u->x, s, t) ? -1 : rank_above(u->r, u->x, t, s);
}

static bool ranked(const struct ud *u, size_t s)
{
	return s != SW_NONE && u->r->level[s] != RANK_NONE;
}

/* Shortest down-only distance to D: walk up from D. */
static void down_distances(struct ud *u, size_t d)
{
	size_t head = 0, tail = 0;
	for (size_t s = 0; s < u->x->nsw; s++)
		u->down[s] = DIST_INF;
	u->down[d] = 0;
	u->queue[tail++] = d;
	while (head < tail) {
		size_t v = u->queue[head++];
		const struct node *n = u->x->sw[v];
		for (unsigned p = 1; p <= n->nports; p++) {
			size_t w = swindex_peer(u->x, n, p);
			if (ranked(u, w) && u->down[w] == DIST_INF && rank_above(u->r, u->x, w, v)) {
				u->down[w] = (uint16_t)(u->down[v] + 1);
				u->queue[tail++] = w;
			}
		}
	}
}

/* Up-then-down distances, top of the order first: up-neighbours are done before. */
static void updown_distances(struct ud *u)
{
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		uint16_t best = u->down[s];
		if (best == DIST_INF) {
			const struct node *n = u->x->sw[s];
			for (unsigned p = 1; p <= n->nports; p++) {
				size_t w = swindex_peer(u->x, n, p);
				if (ranked(u, w) && rank_above(u->r, u->x, w, s) && u->dist[w] != DIST_INF &&
				    u->dist[w] + 1 < best)
					best = (uint16_t)(u->dist[w] + 1);
			}
		}
		u->dist[s] = best;
	}
}

/* Plain BFS distances to D over every switch link, for escape routes. */
static void plain_distances(struct ud *u, size_t d)
{
	size_t head = 0, tail = 0;
	for (size_t s = 0; s < u->x->nsw; s++)
		u->hops[s] = DIST_INF;
	u->hops[d] = 0;
	u->queue[tail++] = d;
	while (head < tail) {
		size_t v = u->queue[head++];
		const struct node *n = u->x->sw[v];
		for (unsigned p = 1; p <= n->nports; p++) {
			size_t w = swindex_peer(u->x, n, p);
			if (ranked(u, w) && u->hops[w] == DIST_INF) {
				u->hops[w] = (uint16_t)(u->hops[v] + 1);
				u->queue[tail++] = w;
			}
		}
	}
}

static bool legal_step(const struct ud *u, size_t s, size_t w)
{
	if (u->down[s] != DIST_INF)
		return u->down[w] != DIST_INF && u->down[w] + 1 == u->down[s] && rank_above(u->r, u->x, s, w);
	return u->dist[w] != DIST_INF && u->dist[w] + 1 == u->dist[s] && rank_above(u->r, u->x, w, s);
}

static bool escape_step(const struct ud *u, size_t s, size_t w)
{
	return u->hops[w] != DIST_INF && u->hops[w] + 1 == u->hops[s];
}

/* Candidate ports of every switch for D; returns the leaves without a legal path. */
static size_t candidates(struct ud *u, size_t d)
{
	size_t stranded = 0;
	bool have_plain = false;
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		const struct node *n = u->x->sw[s];
		uint8_t *c = u->cand + u->base[s], k = 0;
		bool legal = u->dist[s] != DIST_INF;
		if (!legal) {
			stranded += u->leaf[s];
			if (!have_plain) {
				plain_distances(u, d);
				have_plain = true;
			}
		}
		for (unsigned p = 1; p <= n->nports && s != d; p++) {
			size_t w = swindex_peer(u->x, n, p);
			if (ranked(u, w) && (legal ? legal_step(u, s, w) : escape_step(u, s, w)))
				c[k++] = (uint8_t)p;
		}
		u->ncand[s] = k;
	}
	return stranded;
}

static uint8_t least_loaded(const struct ud *u, size_t s)
{
	const uint8_t *c = u->cand + u->base[s];
	const uint32_t *load = u->load + u->base[s];
	uint8_t best = c[0];
	for (unsigned i = 1; i < u->ncand[s]; i++)
		if (load[c[i]] < load[best])
			best = c[i];
	return best;
}

static uint8_t dmodk_port(const struct ud *u, size_t s, uint16_t lid)
{
	const struct updown_plan *p = u->p;
	uint32_t j = u->jpos[lid];
	if (!p->up_order || j == UINT32_MAX || u->down[s] != DIST_INF || !p->n_up[s])
		return 0;
	uint8_t port = p->up_order[s][(j / p->stride[u->r->level[s]]) % p->n_up[s]];
	const uint8_t *c = u->cand + u->base[s];
	for (unsigned i = 0; i < u->ncand[s]; i++)
		if (c[i] == port)
			return port;
	return 0;
}

/* Routes lid, attached to D through port at_port (0: D's own LID), on every switch. */
static void route_lid(struct ud *u, struct routing_tables *t, size_t d, uint16_t lid, uint8_t at_port)
{
	bool ca = at_port != 0;
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		uint8_t port;
		if (s == d) {
			port = at_port;
		} else if (!u->ncand[s]) {
			continue;
		} else if (!(port = dmodk_port(u, s, lid))) {
			port = least_loaded(u, s);
		}
		t->lft[u->x->sw[s]->index][lid] = port;
		if (ca && port)
			u->load[u->base[s] + port]++;
	}
}

static void route_destination(struct ud *u, struct routing_tables *t, size_t d, size_t *unreachable)
{
	const struct node *sw = u->x->sw[d];
	down_distances(u, d);
	updown_distances(u);
	size_t stranded = candidates(u, d);
	for (unsigned p = 1; p <= sw->nports; p++) {
		const struct node *r = sw->ports[p].remote;
		if (!r || r->type == NODE_SWITCH)
			continue;
		uint16_t lid = r->ports[sw->ports[p].remote_port].lid;
		if (lid && lid <= t->max_lid) {
			route_lid(u, t, d, lid, (uint8_t)p);
			*unreachable += stranded;
		}
	}
	if (sw->ports[0].lid && sw->ports[0].lid <= t->max_lid)
		route_lid(u, t, d, sw->ports[0].lid, 0);
}

static void ud_free(struct ud *u)
{
	free(u->desc);
	free(u->down);
	free(u->dist);
	free(u->hops);
	free(u->leaf);
	free(u->queue);
	free(u->base);
	free(u->cand);
	free(u->ncand);
	free(u->load);
	free(u->jpos);
}

static int ud_setup(struct ud *u, const struct fabric *f, const struct updown_plan *p, uint16_t max_lid)
{
	size_t nsw = p->x->nsw + 1, ports = 0;
	memset(u, 0, sizeof(*u));
	u->f = f;
	u->p = p;
	u->x = p->x;
	u->r = p->r;
	u->desc = malloc(nsw * sizeof(*u->desc));
	u->down = malloc(nsw * sizeof(*u->down));
	u->dist = malloc(nsw * sizeof(*u->dist));
	u->hops = malloc(nsw * sizeof(*u->hops));
	u->leaf = calloc(nsw, sizeof(*u->leaf));
	u->queue = malloc(nsw * sizeof(*u->queue));
	u->base = malloc(nsw * sizeof(*u->base));
	u->ncand = calloc(nsw, 1);
	u->jpos = malloc(((size_t)max_lid + 1) * sizeof(*u->jpos));
	if (!u->desc || !u->down || !u->dist || !u->hops || !u->leaf || !u->queue || !u->base || !u->ncand ||
	    !u->jpos)
		return -1;
	for (size_t s = 0; s < u->x->nsw; s++) {
		u->base[s] = ports;
		ports += (size_t)u->x->sw[s]->nports + 1;
		if (ranked(u, s))
			u->desc[u->ndesc++] = s;
	}
	u->cand = malloc(ports + 1);
	u->load = calloc(ports + 1, sizeof(*u->load));
	if (!u->cand || !u->load)
		return -1;
	qsort_r(u->desc, u->ndesc, sizeof(*u->desc), cmp_desc, u);
	for (size_t l = 0; l <= max_lid; l++)
		u->jpos[l] = UINT32_MAX;
	struct host_ref *order;
	size_t n;
	if (host_order(f, &order, &n) < 0)
		return -1;
	for (size_t j = 0; j < n; j++) {
		if (order[j].lid <= max_lid)
			u->jpos[order[j].lid] = (uint32_t)j;
		u->leaf[u->x->of_node[order[j].leaf->index]] = true;
	}
	free(order);
	return 0;
}

int updown_fill(const struct fabric *f, const struct updown_plan *plan, struct routing_tables *out,
		size_t *unreachable)
{
	struct ud u;
	int rc = -1;
	*unreachable = 0;
	uint16_t max_lid = routing_max_lid(f);
	if (ud_setup(&u, f, plan, max_lid) < 0 || routing_tables_alloc(out, f, max_lid) < 0)
		goto done;
	/* bottom of the order first: leaves, in GUID order, take the balance */
	for (size_t i = u.ndesc; i-- > 0;)
		route_destination(&u, out, u.desc[i], unreachable);
	rc = 0;
done:
	ud_free(&u);
	return rc;
}
