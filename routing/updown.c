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
 * The candidates depend on D alone; on fabrics of AHEAD_MIN_SWITCHES or
 * more they are computed on two CPUs (ahead.h) and kept in a table, a
 * row per destination (updown_core.h); updown_ports.c then chooses each
 * switch's ports from the table (D-mod-K, else the least loaded) and
 * balances them.
 *
 * In a degraded fat tree a switch above the leaves may have no legal path
 * to some destination (its column lost the way down). No host traffic can
 * reach it for that destination, since nobody routes to a switch without a
 * legal path, so its entry only serves the switch's own management
 * packets: it gets a plain shortest path (an "escape" route), which adds
 * nothing to the host traffic's channel dependencies. A leaf without a
 * legal path to a CA is a real failure; to a switch LID it is reported too,
 * for the caller to route that LID on another VL.
 */
#include "routing/updown_core.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routing/hostorder.h"

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

/* Switch s's links up, then its links down: adj[] holds each switch's up-links first, each part in port order. */
static const struct nbr *ups(const struct ud *u, size_t s)
{
	return u->adj + u->adj_start[s];
}

static const struct nbr *downs(const struct ud *u, size_t s)
{
	return u->adj + u->adj_start[s] + u->n_upnbr[s];
}

static const struct nbr *links_end(const struct ud *u, size_t s)
{
	return u->adj + u->adj_start[s + 1];
}

/* BFS distances to D into dist along links walked upward from D: the down-only paths to D. */
static void down_distances(struct ud *u, size_t d, uint16_t *dist)
{
	size_t head = 0, tail = 0;
	for (size_t s = 0; s < u->x->nsw; s++)
		dist[s] = DIST_INF;
	dist[d] = 0;
	u->s->queue[tail++] = d;
	while (head < tail) {
		size_t v = u->s->queue[head++];
		for (const struct nbr *a = ups(u, v); a < downs(u, v); a++)
			if (dist[a->sw] == DIST_INF) {
				dist[a->sw] = (uint16_t)(dist[v] + 1);
				u->s->queue[tail++] = a->sw;
			}
	}
}

/* Whether candidates c[0..k) of s, of which ups go up, are every up-link or every down-link of s. */
static uint8_t whole_of(const struct ud *u, size_t s, unsigned k, unsigned ups)
{
	unsigned all_up = u->n_upnbr[s], all_down = (unsigned)(links_end(u, s) - downs(u, s));
	if (k && ups == k && k == all_up)
		return EVERY_UP;
	return k && !ups && k == all_down ? EVERY_DOWN : 0;
}

/*
 * The fewest of dist[] over the links [a, end) of s, plus one (DIST_INF:
 * none known), and s's candidates: the ports of those links at the
 * fewest, in the links' order.
 */
static uint16_t nearest(struct ud *u, size_t s, const struct nbr *a, const struct nbr *end, const uint16_t *dist)
{
	uint8_t *c = u->s->cand + u->base[s], k = 0;
	unsigned nup = 0;
	uint16_t best = DIST_INF;
	for (; a < end; a++) {
		uint16_t via = dist[a->sw];
		if (via == DIST_INF || via + 1 > best)
			continue;
		if (via + 1 < best) {
			best = (uint16_t)(via + 1);
			k = 0;
			nup = 0;
		}
		c[k++] = a->port;
		nup += a->up;
	}
	u->s->ncand[s] = k;
	u->s->whole[s] = whole_of(u, s, k, nup);
	return best;
}

/*
 * Up-then-down distances, top of the order first: up-neighbours are done
 * before. A switch going up takes as candidates the up-links one hop
 * closer, found in the same scan (in port order, as all candidates are).
 */
static void updown_distances(struct ud *u)
{
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		uint16_t best = u->s->down[s];
		if (best == DIST_INF)	/* down-reachable switches must go down; the others go up */
			best = nearest(u, s, ups(u, s), downs(u, s), u->s->dist);
		u->s->dist[s] = best;
	}
}

/* One hop closer on a legal path down. */
static bool down_step(const struct ud *u, size_t s, const struct nbr *a)
{
	return u->s->down[a->sw] != DIST_INF && u->s->down[a->sw] + 1 == u->s->down[s];
}

/*
 * Escape routes of the switches without a legal path: hops, and the
 * candidates one hop closer. A switch with a legal path keeps its legal
 * distance; one without takes the shortest way to a switch that has one,
 * plus that switch's legal distance. So an escape route is a way into the
 * legal region followed by the legal path the tables give there, and its
 * length is the length the tables really give (a plain shortest path
 * would not be, once it meets switches that go their own legal way).
 *
 * A worklist of the switches without a legal path, bottom of the order
 * first (in a fat tree they escape down to a leaf, so the lower ones
 * settle first and the others from them). Each is scanned (nearest);
 * one that gets shorter puts back on the list its neighbours without a
 * legal path that it is now as close as or closer than their candidates
 * (hops can only fall, so every switch's last scan sees its neighbours'
 * final hops). Each switch is on the list at most once at a time
 * (queued), so the queue is a ring of nsw.
 */
static void escapes(struct ud *u)
{
	size_t nsw = u->x->nsw, head = 0, tail = 0, waiting = 0;
	for (size_t i = 0; i < u->ndesc; i++)
		u->s->hops[u->desc[i]] = u->s->dist[u->desc[i]];
	for (size_t i = u->ndesc; i-- > 0;)
		if (u->s->dist[u->desc[i]] == DIST_INF) {
			u->s->queue[tail++ % nsw] = u->desc[i];
			u->s->queued[u->desc[i]] = true;
			waiting++;
		}
	while (waiting) {
		size_t s = u->s->queue[head++ % nsw];
		u->s->queued[s] = false;
		waiting--;
		/* its hops from its neighbours' as they stand, its candidates in port order */
		uint16_t h = nearest(u, s, u->padj + u->adj_start[s], u->padj + u->adj_start[s + 1], u->s->hops);
		if (h >= u->s->hops[s])
			continue;
		u->s->hops[s] = h;
		for (const struct nbr *a = ups(u, s); a < links_end(u, s); a++)
			if (u->s->dist[a->sw] == DIST_INF && !u->s->queued[a->sw] && u->s->hops[a->sw] > h) {
				u->s->queue[tail++ % nsw] = a->sw;
				u->s->queued[a->sw] = true;
				waiting++;
			}
	}
}

/* Candidate ports of every switch for D (those going up have theirs from updown_distances). */
static void candidates(struct ud *u, size_t d)
{
	size_t escaping = 0;
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		if (s == d) {
			u->s->ncand[s] = 0;
			u->s->whole[s] = 0;
		} else if (u->s->dist[s] == DIST_INF) {
			escaping++;
		} else if (u->s->down[s] != DIST_INF) {
			uint8_t *c = u->s->cand + u->base[s], k = 0;
			for (const struct nbr *a = downs(u, s); a < links_end(u, s); a++)
				if (down_step(u, s, a))
					c[k++] = a->port;
			u->s->ncand[s] = k;
			u->s->whole[s] = whole_of(u, s, k, 0);
		}
	}
	if (escaping)
		escapes(u);
}

/*
 * The LIDs attached to switch d: its CA ports' first (at_port[i]: the
 * port of d they hang off), then d's own (at_port 0). Returns how many;
 * *cas: how many of them are CA LIDs.
 */
static unsigned attached_lids(const struct ud *u, const struct routing_tables *t, size_t d, uint16_t *lids,
			      uint8_t *at_port, unsigned *cas)
{
	const struct node *sw = u->x->sw[d];
	unsigned n = 0;
	for (unsigned p = 1; p <= sw->nports; p++) {
		const struct node *r = sw->ports[p].remote;
		if (!r || r->type == NODE_SWITCH)
			continue;
		uint16_t lid = r->ports[sw->ports[p].remote_port].lid;
		if (lid && lid <= t->max_lid) {
			lids[n] = lid;
			at_port[n++] = (uint8_t)p;
		}
	}
	*cas = n;
	if (sw->ports[0].lid && sw->ports[0].lid <= t->max_lid) {
		lids[n] = sw->ports[0].lid;
		at_port[n++] = 0;
	}
	return n;
}

/* The leaves without a legal path to the current destination (updown_distances done). */
static size_t stranded_leaves(const struct ud *u)
{
	size_t n = 0;
	for (size_t i = 0; i < u->ndesc; i++)
		n += u->leaf[u->desc[i]] && u->s->dist[u->desc[i]] == DIST_INF;
	return n;
}

/*
 * Distances and every switch's candidate ports towards d; returns the
 * leaves without a legal path. A switch without hosts that some leaf
 * cannot reach legally gets no candidates when the caller routes such
 * LIDs elsewhere: in a degraded tree that is most switches above the
 * leaves, and their escape searches were most of the work here.
 */
static size_t towards(struct ud *u, size_t d)
{
	down_distances(u, d, u->s->down);
	updown_distances(u);
	size_t stranded = stranded_leaves(u);
	u->s->unrouted = stranded && u->p->gaps_elsewhere && !u->leaf[d];
	if (!u->s->unrouted)
		candidates(u, d);
	return stranded;
}

/* towards() into set buf, for ahead.h: ctx is a copy of the ud whose shared parts it reads. */
static void fill_towards(const void *ctx, void *buf, size_t d)
{
	struct ud v = *(const struct ud *)ctx;
	v.s = buf;
	v.s->stranded = towards(&v, d);
}

/* Fabrics with fewer switches compute each destination's candidates in turn: a thread costs more. */
#define AHEAD_MIN_SWITCHES 256

/*
 * Visits the destinations d[0..n) in order, u->s holding each one's
 * candidates in turn (computed on another CPU ahead of time on large
 * fabrics; frozen is a copy of u made for it). Call ahead_next for each,
 * then ahead_end.
 */
static void towards_each(struct ahead *a, const struct ud *u, const struct ud *frozen, const size_t *d, size_t n)
{
	void *spare[AHEAD_SLOTS];
	size_t k = 0;
	for (size_t i = 0; i <= AHEAD_SLOTS && k < AHEAD_SLOTS; i++)
		if (&u->sets[i] != u->s)
			spare[k++] = (void *)&u->sets[i];
	ahead_start(a, fill_towards, frozen, d, n, spare,
		    u->x->nsw >= AHEAD_MIN_SWITCHES && sysconf(_SC_NPROCESSORS_ONLN) > 1);
}

/* Room for n rows in k, a cell per ranked switch each. -1 on allocation failure. */
static int cands_alloc(struct cand_table *k, size_t n, size_t ndesc)
{
	k->rows = n;
	k->dest = malloc((n + 1) * sizeof(*k->dest));
	k->lid_start = malloc((n + 1) * sizeof(*k->lid_start));
	k->code = malloc(n * ndesc + 1);
	k->lists = calloc(ndesc + 1, sizeof(*k->lists));
	if (!k->dest || !k->lid_start || !k->code || !k->lists)
		return -1;
	k->lid_start[0] = 0;
	return 0;
}

/* Empties k, keeping its room. */
static void cands_reset(struct cand_table *k, size_t ndesc)
{
	k->nrows = k->nlids = 0;
	for (size_t i = 0; i < ndesc; i++)
		k->lists[i].n = 0;
}

static void cands_free(struct cand_table *k, size_t ndesc)
{
	for (size_t i = 0; k->lists && i < ndesc; i++)
		free(k->lists[i].v);
	free(k->lists);
	free(k->dest);
	free(k->lid_start);
	free(k->lids);
	free(k->at_port);
	free(k->code);
}

/* Appends n ports c to list l, after their count. -1 on allocation failure. */
static int list_append(struct cand_list *l, const uint8_t *c, unsigned n)
{
	if (l->n + n + 1 > l->cap) {
		size_t cap = 2 * (l->n + n + 1);
		uint8_t *more = realloc(l->v, cap);
		if (!more)
			return -1;
		l->v = more;
		l->cap = cap;
	}
	l->v[l->n++] = (uint8_t)n;
	memcpy(l->v + l->n, c, n);
	l->n += n;
	return 0;
}

/* Room for n more LIDs in k. -1 on allocation failure. */
static int lids_room(struct cand_table *k, size_t n)
{
	if (k->nlids + n <= k->lids_cap)
		return 0;
	size_t cap = 2 * (k->nlids + n);
	uint16_t *lids = realloc(k->lids, cap * sizeof(*lids));
	if (lids)
		k->lids = lids;
	uint8_t *at_port = realloc(k->at_port, cap);
	if (at_port)
		k->at_port = at_port;
	if (!lids || !at_port)
		return -1;
	k->lids_cap = cap;
	return 0;
}

/*
 * Appends destination d, its LIDs lids[0..n), and every switch's
 * candidates towards it (u->s) as the next row of k: the cells of
 * switches with at least min candidates, the others CAND_NONE. -1 on
 * allocation failure.
 */
static int add_row(struct ud *u, struct cand_table *k, size_t d, const uint16_t *lids, const uint8_t *at_port,
		   unsigned n, unsigned min)
{
	size_t r = k->nrows++;
	if (lids_room(k, n) < 0)
		return -1;
	memcpy(k->lids + k->nlids, lids, n * sizeof(*lids));
	memcpy(k->at_port + k->nlids, at_port, n);
	k->dest[r] = d;
	k->nlids += n;
	k->lid_start[r + 1] = k->nlids;
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		unsigned nc = s == d ? 0 : u->s->ncand[s];
		uint8_t code = nc < min ? CAND_NONE : u->s->whole[s] ? u->s->whole[s] : CAND_LIST;
		if (code && u->s->down[s] == DIST_INF && u->s->dist[s] != DIST_INF)
			code |= CAND_UP_LEGAL;
		k->code[i * k->rows + r] = code;
		if ((code & CAND_KIND) == CAND_LIST && list_append(&k->lists[i], u->s->cand + u->base[s], nc) < 0)
			return -1;
	}
	return 0;
}

/*
 * Keeps destination d (u->s: every switch's candidates towards it) as the
 * next row of u->cands, a leaf's choices also in u->leaves (for the
 * balancing pass, when there is one), and what could not be routed
 * legally in gaps. -1 on allocation failure.
 */
static int keep_destination(struct ud *u, const struct routing_tables *t, size_t d, struct updown_gaps *gaps)
{
	uint16_t lids[FABRIC_MAX_PORTS + 1];
	uint8_t at_port[FABRIC_MAX_PORTS + 1];
	unsigned cas, n = attached_lids(u, t, d, lids, at_port, &cas);
	size_t stranded = u->s->stranded;
	gaps->ca_pairs += stranded * cas;
	if (stranded && n > cas) {
		uint16_t *more = realloc(gaps->switch_lids, (gaps->nswitch_lids + 1) * sizeof(*more));
		if (!more)
			return -1;
		gaps->switch_lids = more;
		gaps->switch_lids[gaps->nswitch_lids++] = lids[cas];
	}
	if (u->s->unrouted)	/* left to the caller: no row */
		return 0;
	if (add_row(u, &u->cands, d, lids, at_port, n, 1) < 0)
		return -1;
	return u->leaves.code && cas ? add_row(u, &u->leaves, d, lids, at_port, cas, 2) : 0;
}

/*
 * Rows kept before their ports are chosen: kept all at once, the
 * candidates of a 27,648-host tree's switch LIDs (escape routes, dozens
 * of ports each) took 64 MB (route-bench peak 216 MB; 117 MB with 64).
 */
#define CAND_ROWS 64

void updown_gaps_free(struct updown_gaps *g)
{
	free(g->switch_lids);
	memset(g, 0, sizeof(*g));
}

static void towards_free(struct towards *t)
{
	free(t->down);
	free(t->dist);
	free(t->hops);
	free(t->queue);
	free(t->cand);
	free(t->ncand);
	free(t->whole);
	free(t->queued);
}

static int towards_alloc(struct towards *t, size_t nsw, size_t ports)
{
	t->down = malloc(nsw * sizeof(*t->down));
	t->dist = malloc(nsw * sizeof(*t->dist));
	t->hops = malloc(nsw * sizeof(*t->hops));
	t->queue = malloc(nsw * sizeof(*t->queue));
	t->cand = malloc(ports + 1);
	t->ncand = calloc(nsw, 1);
	t->whole = calloc(nsw, 1);
	t->queued = calloc(nsw, sizeof(*t->queued));
	return t->down && t->dist && t->hops && t->queue && t->cand && t->ncand && t->whole && t->queued ? 0 : -1;
}

static void ud_free(struct ud *u)
{
	free(u->desc);
	free(u->place);
	free(u->leaf);
	free(u->adj_start);
	free(u->adj);
	free(u->padj);
	free(u->base);
	for (size_t k = 0; k <= AHEAD_SLOTS; k++)
		towards_free(&u->sets[k]);
	free(u->load);
	free(u->jpos);
	free(u->n_upnbr);
	free(u->kept_min);
	free(u->fresh);
	free(u->magic);
	free(u->digit);
	free(u->adj_port);
	cands_free(&u->cands, u->ndesc);
	cands_free(&u->leaves, u->ndesc);
}

static int ud_setup(struct ud *u, const struct fabric *f, const struct updown_plan *p, uint16_t max_lid)
{
	size_t nsw = p->x->nsw + 1, ports = 0;
	memset(u, 0, sizeof(*u));
	u->f = f;
	u->p = p;
	u->x = p->x;
	u->r = p->r;
	u->s = &u->sets[0];
	u->desc = malloc(nsw * sizeof(*u->desc));
	u->place = malloc(nsw * sizeof(*u->place));
	u->leaf = calloc(nsw, sizeof(*u->leaf));
	u->base = malloc(nsw * sizeof(*u->base));
	u->jpos = malloc(((size_t)max_lid + 1) * sizeof(*u->jpos));
	if (!u->desc || !u->place || !u->leaf || !u->base || !u->jpos)
		return -1;
	for (size_t s = 0; s < u->x->nsw; s++) {
		u->base[s] = ports;
		ports += (size_t)u->x->sw[s]->nports + 1;
		if (ranked(u, s))
			u->desc[u->ndesc++] = s;
	}
	for (size_t k = 0; k <= AHEAD_SLOTS; k++)
		if (towards_alloc(&u->sets[k], nsw, ports) < 0)
			return -1;
	u->load = calloc(ports + 1, sizeof(*u->load));
	u->adj = malloc((ports + 1) * sizeof(*u->adj));
	u->padj = malloc((ports + 1) * sizeof(*u->padj));
	u->adj_start = malloc(nsw * sizeof(*u->adj_start));
	u->n_upnbr = calloc(nsw, sizeof(*u->n_upnbr));
	u->kept_min = calloc(nsw, sizeof(*u->kept_min));
	u->fresh = calloc(nsw, sizeof(*u->fresh));
	u->magic = calloc(nsw, sizeof(*u->magic));
	u->max_lid = max_lid;
	u->digit = p->up_order ? malloc(((size_t)u->r->top + 1) * ((size_t)max_lid + 1) * sizeof(*u->digit)) : NULL;
	u->adj_port = malloc(ports + 1);
	if (!u->load || !u->adj || !u->padj || !u->adj_start || !u->n_upnbr || !u->kept_min || !u->fresh || !u->magic ||
	    (p->up_order && !u->digit) || !u->adj_port)
		return -1;
	size_t na = 0;
	for (size_t s = 0; s < u->x->nsw; s++) {
		const struct node *n = u->x->sw[s];
		u->adj_start[s] = na;
		size_t first = na, np = na;
		for (unsigned p = 1; p <= n->nports && ranked(u, s); p++) {
			size_t w = swindex_peer(u->x, n, p);
			if (ranked(u, w)) {
				u->padj[np++] = (struct nbr){ (uint32_t)w, (uint8_t)p, rank_above(u->r, u->x, w, s) };
				u->n_upnbr[s] += u->padj[np - 1].up;
			}
		}
		for (int up = 1; up >= 0; up--)	/* up-links first */
			for (size_t k = first; k < np; k++)
				if (u->padj[k].up == up)
					u->adj[na++] = u->padj[k];
		if (u->p->n_up && u->p->n_up[s])
			u->magic[s] = UINT64_MAX / u->p->n_up[s] + 1;
	}
	u->adj_start[u->x->nsw] = na;
	for (size_t i = 0; i < na; i++)
		u->adj_port[i] = u->adj[i].port;
	qsort_r(u->desc, u->ndesc, sizeof(*u->desc), cmp_desc, u);
	for (size_t s = 0; s < u->x->nsw; s++)
		u->place[s] = SIZE_MAX;
	for (size_t i = 0; i < u->ndesc; i++)
		u->place[u->desc[i]] = i;
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
	for (uint32_t l = 0; u->digit && l <= u->r->top; l++)	/* D-mod-K's digit of each LID at each level */
		for (size_t lid = 0; lid <= max_lid; lid++)
			u->digit[l * ((size_t)max_lid + 1) + lid] = u->jpos[lid] == UINT32_MAX ? UINT32_MAX :
								     (uint32_t)(u->jpos[lid] / p->stride[l]);
	if (p->loads)
		memcpy(u->load, p->loads, ports * sizeof(*u->load));
	return 0;
}

/* Sets the LID columns of plan->only's switches to LFT_NO_PATH in t, row by row. -1 on allocation failure. */
static int clear_only_columns(const struct ud *u, const struct fabric *f, struct routing_tables *t)
{
	uint16_t *cols = NULL, lids[FABRIC_MAX_PORTS + 1];
	uint8_t at_port[FABRIC_MAX_PORTS + 1];
	size_t n = 0, cap = 0;
	for (size_t s = 0; s < u->x->nsw; s++) {
		unsigned cas, k = u->p->only[s] ? attached_lids(u, t, s, lids, at_port, &cas) : 0;
		if (!k)
			continue;
		if (n + k > cap) {
			cap = 2 * (n + k);
			uint16_t *more = realloc(cols, cap * sizeof(*cols));
			if (!more) {
				free(cols);
				return -1;
			}
			cols = more;
		}
		memcpy(cols + n, lids, k * sizeof(*lids));
		n += k;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		for (size_t k = 0; t->lft[i] && k < n; k++)
			t->lft[i][cols[k]] = LFT_NO_PATH;
	free(cols);
	return 0;
}

int updown_fill(const struct fabric *f, const struct updown_plan *plan, struct routing_tables *out,
		struct updown_gaps *gaps)
{
	struct ud u;
	size_t *bottom_up = NULL;
	int rc = -1;
	bool in_place = plan->only && plan->in_place;
	memset(gaps, 0, sizeof(*gaps));
	if (!in_place)
		memset(out, 0, sizeof(*out));
	uint16_t max_lid = routing_max_lid(f);
	if (ud_setup(&u, f, plan, max_lid) < 0 ||
	    (in_place ? clear_only_columns(&u, f, out) : routing_tables_alloc(out, f, max_lid)) < 0)
		goto done;
	/* bottom of the order first: leaves, in GUID order, take the balance */
	bottom_up = malloc((u.ndesc + 1) * sizeof(*bottom_up));
	if (!bottom_up)
		goto done;
	size_t ndest = 0;
	for (size_t i = 0; i < u.ndesc; i++)
		if (!plan->only || plan->only[u.desc[u.ndesc - 1 - i]])
			bottom_up[ndest++] = u.desc[u.ndesc - 1 - i];
	size_t leaves = 0;
	for (size_t i = 0; i < ndest; i++)
		leaves += u.leaf[bottom_up[i]];
	if (cands_alloc(&u.cands, ndest < CAND_ROWS ? ndest : CAND_ROWS, u.ndesc) < 0 ||
	    (!plan->only && cands_alloc(&u.leaves, leaves, u.ndesc) < 0))	/* the balancing pass reads these */
		goto done;
	/* destinations' candidates, CAND_ROWS at a time, then every switch's ports from them */
	struct ud frozen = u;
	struct ahead a;
	towards_each(&a, &u, &frozen, bottom_up, ndest);
	int failed = 0;
	for (size_t i = 0; i < ndest && !failed; i++) {
		ahead_next(&a, (void **)&u.s);
		failed = keep_destination(&u, out, bottom_up[i], gaps);
		if (!failed && (u.cands.nrows == u.cands.rows || i + 1 == ndest)) {
			updown_route_switches(&u, out);
			cands_reset(&u.cands, u.ndesc);
		}
	}
	ahead_end(&a);
	if (failed)
		goto done;
	rc = plan->only ? 0 : updown_balance(&u, out);
	if (rc == 0 && plan->loads_out) {
		*plan->loads_out = u.load;
		u.load = NULL;
	}
done:
	if (rc < 0) {
		updown_gaps_free(gaps);
		if (!in_place)
			routing_tables_free(out);
	}
	free(bottom_up);
	ud_free(&u);
	return rc;
}

int updown_each_destination(const struct fabric *f, const struct updown_plan *plan, const bool *want,
			    updown_dest_fn fn, void *arg)
{
	struct ud u;
	int rc = -1;
	if (ud_setup(&u, f, plan, routing_max_lid(f)) == 0) {
		struct updown_next next = { u.base, u.s->cand, u.s->ncand, u.s->dist };
		rc = 0;
		for (size_t i = 0; i < u.ndesc && rc == 0; i++) {
			size_t d = u.desc[i];
			if (want && !want[d])
				continue;
			towards(&u, d);
			rc = fn(arg, d, &next);
		}
	}
	ud_free(&u);
	return rc;
}
