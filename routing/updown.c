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
 * more they are computed on a second CPU ahead of their use (ahead.h),
 * while this one chooses ports, which depends on the destinations before.
 *
 * Among candidates: the D-mod-K port if the plan has one and it is a
 * candidate, else the port that carries the fewest CA LIDs so far. Where
 * that leaves a switch's ports more than one CA LID apart (a degraded
 * tree), a balancing pass moves destinations between candidates.
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
#include "routing/updown.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routing/ahead.h"
#include "routing/hostorder.h"
#include "routing/shares.h"

#define DIST_INF UINT16_MAX
#define EVERY_UP 1		/* a switch's candidates are all its up-links */
#define EVERY_DOWN 2		/* ... all its down-links */
#define BALANCE_PASSES 16	/* a safety bound: degraded trees seen here need 2-4 */

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

/*
 * Each leaf's candidates as the fill found them, for the balancing pass
 * (they depend on the destination alone, not the loads). The pass works
 * switch by switch (a switch's moves change only its own loads and
 * table), so each switch's candidates lie together: a code per leaf row,
 * and the port lists of the rows whose candidates are not all its
 * up-links or all its down-links.
 */
#define KEPT_LIST 3	/* beside EVERY_UP and EVERY_DOWN: the ports are in the switch's list */

struct kept_list {
	uint8_t *v;		/* per KEPT_LIST row, in row order: the count, then the ports */
	size_t n, cap;
};

struct kept_candidates {
	size_t *row;		/* per switch: its leaf row, in the fill's order; SIZE_MAX when none */
	size_t nrows, rows;	/* rows kept so far, and room for */
	uint8_t *code;		/* per switch in desc order, per row: 0 (fewer than 2), EVERY_UP, EVERY_DOWN, KEPT_LIST */
	struct kept_list *lists;	/* per switch in desc order */
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
	bool *leaf;		/* per switch: has hosts */
	size_t *adj_start;	/* per switch: its links to ranked switches in adj[] and padj[] */
	struct nbr *adj;	/* each switch's up-links, then its down-links, each part in port order */
	struct nbr *padj;	/* the same links in port order */
	size_t *base;		/* per switch: offset of its ports in cand[] and load[] */
	struct towards *s;	/* the current D's: one of sets[], swapped with those filled ahead */
	struct towards sets[1 + AHEAD_SLOTS];
	uint32_t *load;		/* CA LIDs routed per (switch, port) */
	uint32_t *jpos;		/* per LID: number in host order, or UINT32_MAX */
	uint8_t *n_upnbr;	/* per switch: its links up (the candidates of a switch going up, at most) */
	uint8_t (*kept_min)[2];	/* per switch: its least loaded up-link and down-link, while fresh */
	uint8_t *fresh;		/* per switch: EVERY_UP, EVERY_DOWN bits: no load changed since found */
	uint64_t *magic;	/* per switch: for the remainder by its up-slot count (fast_mod) */
	uint32_t *digit;	/* per level, per LID of the current destination: j / stride[level] */
	uint8_t *adj_port;	/* the port of each link of adj[] */
	struct kept_candidates kept;
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

/*
 * Candidate ports of every switch for D (those going up have theirs from
 * updown_distances); returns the leaves without a legal path.
 */
static size_t candidates(struct ud *u, size_t d)
{
	size_t stranded = 0, escaping = 0;
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		if (s == d) {
			u->s->ncand[s] = 0;
			u->s->whole[s] = 0;
		} else if (u->s->dist[s] == DIST_INF) {
			stranded += u->leaf[s];
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
	return stranded;
}

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

static uint8_t least_loaded_kept(struct ud *u, size_t s)
{
	return least_kept(u, s, u->s->whole[s], u->s->cand + u->base[s], u->s->ncand[s]);
}

/* a % n for 32-bit a, with magic = UINT64_MAX / n + 1 (Lemire's remainder by multiplication). */
static uint32_t fast_mod(uint32_t a, uint64_t magic, uint32_t n)
{
	return (uint32_t)(((unsigned __int128)(magic * a) * n) >> 64);
}

/* What D-mod-K needs of switch s towards the current destination. */
struct dmodk_at {
	const uint8_t *up_order;	/* NULL: not for s (no plan, going down, escaping, no up-ports) */
	const uint32_t *digit;		/* per LID of the destination: j / stride[level of s] */
	uint32_t n_up;
	uint64_t magic;
	bool every_up;			/* every up-port is a candidate */
};

static struct dmodk_at dmodk_at(const struct ud *u, size_t s, unsigned nlids)
{
	const struct updown_plan *p = u->p;
	struct dmodk_at at = { 0 };
	/* only a switch that goes up legally: an escape route's candidates may be down-ports */
	if (!p->up_order || u->s->down[s] != DIST_INF || u->s->dist[s] == DIST_INF || !p->n_up[s])
		return at;
	at.up_order = p->up_order[s];
	at.digit = u->digit + (size_t)u->r->level[s] * nlids;
	at.n_up = p->n_up[s];
	at.magic = u->magic[s];
	at.every_up = u->s->ncand[s] == p->n_up[s];
	return at;
}

/* The D-mod-K port of the destination's LID number k at s, when it is a candidate; else 0. */
static inline __attribute__((always_inline)) uint8_t dmodk_port(const struct ud *u, size_t s,
								  const struct dmodk_at *at, unsigned k)
{
	if (!at->up_order || at->digit[k] == UINT32_MAX)
		return 0;
	uint8_t port = at->up_order[fast_mod(at->digit[k], at->magic, at->n_up)];
	if (!port)	/* a hole: this switch lacks that link */
		return 0;
	if (at->every_up)
		return port;
	const uint8_t *c = u->s->cand + u->base[s];
	for (unsigned i = 0; i < u->s->ncand[s]; i++)
		if (c[i] == port)
			return port;
	return 0;
}

/* Each level's digit of the LIDs lids[0..n) into u->digit: j / stride[level], UINT32_MAX unnumbered. */
static void digits(struct ud *u, const uint16_t *lids, unsigned n)
{
	if (!u->p->up_order)
		return;
	for (uint32_t l = 0; l <= u->r->top; l++)
		for (unsigned k = 0; k < n; k++) {
			uint32_t j = u->jpos[lids[k]];
			u->digit[(size_t)l * n + k] = j == UINT32_MAX ? UINT32_MAX : (uint32_t)(j / u->p->stride[l]);
		}
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
static void fill_least_loaded(struct ud *u, size_t s, uint8_t *lft, const uint16_t *lids, unsigned n)
{
	const uint8_t *c = u->s->cand + u->base[s];
	uint32_t *load = u->load + u->base[s], level = UINT32_MAX;
	for (unsigned i = 0; i < u->s->ncand[s]; i++)
		if (load[c[i]] < level)
			level = load[c[i]];
	for (unsigned k = 0; k < n && u->s->ncand[s]; level++)
		for (unsigned i = 0; i < u->s->ncand[s] && k < n; i++)
			if (load[c[i]] == level) {
				lft[lids[k++]] = c[i];
				load[c[i]]++;
			}
	u->fresh[s] = 0;
}

/*
 * Routes the LIDs attached to D (at_port[i]: the port of D they hang off,
 * 0 for D's own LID) on every switch, switch by switch so each table is
 * written in one run. Consecutive CA LIDs without a D-mod-K port are
 * given the least loaded ports in one fill.
 */
static void route_lids(struct ud *u, struct routing_tables *t, size_t d, const uint16_t *lids,
		       const uint8_t *at_port, unsigned n)
{
	digits(u, lids, n);
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		uint8_t *lft = t->lft[u->x->sw[s]->index];
		if (s != d && !u->s->ncand[s])
			continue;
		struct dmodk_at at = dmodk_at(u, s, n);
		uint32_t *load = u->load + u->base[s];
		for (unsigned k = 0; k < n;) {
			uint8_t port;
			if (s == d)
				port = at_port[k];
			else if (!(port = dmodk_port(u, s, &at, k)) && at_port[k]) {
				unsigned end = k + 1;
				while (end < n && at_port[end] && !dmodk_port(u, s, &at, end))
					end++;
				fill_least_loaded(u, s, lft, lids + k, end - k);
				k = end;
				continue;
			} else if (!port) {
				port = least_loaded_kept(u, s);
			}
			lft[lids[k]] = port;
			if (at_port[k] && port) {	/* CA LIDs carry the traffic: they count for balance */
				load[port]++;
				u->fresh[s] = 0;
			}
			k++;
		}
	}
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
	u->s->unrouted = false;
	if (u->p->gaps_elsewhere && !u->leaf[d]) {
		size_t stranded = stranded_leaves(u);
		if (stranded) {
			u->s->unrouted = true;
			return stranded;
		}
	}
	return candidates(u, d);
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

/* Keeps leaf d's candidates (u->s) as its row of u->kept. -1 on allocation failure. */
static int keep_candidates(struct ud *u, size_t d)
{
	struct kept_candidates *k = &u->kept;
	size_t r = k->nrows++;
	k->row[d] = r;
	for (size_t i = 0; i < u->ndesc; i++) {
		size_t s = u->desc[i];
		unsigned n = s == d ? 0 : u->s->ncand[s];
		uint8_t code = n < 2 ? 0 : u->s->whole[s] ? u->s->whole[s] : KEPT_LIST;
		k->code[i * k->rows + r] = code;
		if (code != KEPT_LIST)
			continue;
		struct kept_list *l = &k->lists[i];
		if (l->n + n + 1 > l->cap) {
			size_t cap = 2 * (l->n + n + 1);
			uint8_t *more = realloc(l->v, cap);
			if (!more)
				return -1;
			l->v = more;
			l->cap = cap;
		}
		l->v[l->n++] = (uint8_t)n;
		memcpy(l->v + l->n, u->s->cand + u->base[s], n);
		l->n += n;
	}
	return 0;
}

static int kept_alloc(struct ud *u)
{
	struct kept_candidates *k = &u->kept;
	for (size_t i = 0; i < u->ndesc; i++)
		k->rows += u->leaf[u->desc[i]];
	k->row = malloc((u->x->nsw + 1) * sizeof(*k->row));
	k->code = malloc(k->rows * u->ndesc + 1);
	k->lists = calloc(u->ndesc + 1, sizeof(*k->lists));
	if (!k->row || !k->code || !k->lists)
		return -1;
	for (size_t s = 0; s < u->x->nsw; s++)
		k->row[s] = SIZE_MAX;
	return 0;
}

static void kept_free(struct kept_candidates *k, size_t ndesc)
{
	for (size_t i = 0; k->lists && i < ndesc; i++)
		free(k->lists[i].v);
	free(k->lists);
	free(k->row);
	free(k->code);
}

static int route_destination(struct ud *u, struct routing_tables *t, size_t d, struct updown_gaps *gaps)
{
	uint16_t lids[FABRIC_MAX_PORTS + 1];
	uint8_t at_port[FABRIC_MAX_PORTS + 1];
	unsigned cas;
	size_t stranded = u->s->stranded;
	unsigned n = attached_lids(u, t, d, lids, at_port, &cas);
	if (!u->s->unrouted)
		route_lids(u, t, d, lids, at_port, n);
	if (u->kept.code && cas && keep_candidates(u, d) < 0)
		return -1;
	gaps->ca_pairs += stranded * cas;
	if (stranded && n > cas) {
		uint16_t *more = realloc(gaps->switch_lids, (gaps->nswitch_lids + 1) * sizeof(*more));
		if (!more)
			return -1;
		gaps->switch_lids = more;
		gaps->switch_lids[gaps->nswitch_lids++] = lids[cas];
	}
	return 0;
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
	const size_t *lid_start;	/* per leaf in that order: its CA LIDs in lids[], nleaves + 1 */
	const uint16_t *lids;
	const bool *want;
	bool one;
	uint32_t *at[SHARES_MAX];	/* per share, per row: where switch i's list for it starts */
	size_t moved[SHARES_MAX];
};

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
	const struct kept_candidates *k = &u->kept;
	const uint8_t *code = k->code + i * k->rows, *list = k->lists[i].v;
	size_t s = u->desc[i], moved = 0;
	uint32_t pos = 0;
	for (size_t r = 0; r < k->nrows; r++)
		if (code[r] == KEPT_LIST) {
			at[r] = pos;
			pos += 1u + list[pos];
		}
	uint8_t *lft = b->t->lft[u->x->sw[s]->index];
	uint32_t *load = u->load + u->base[s];
	unsigned ups = u->n_upnbr[s], links = (unsigned)(u->adj_start[s + 1] - u->adj_start[s]);
	for (size_t j = 0; j < b->nleaves; j++) {
		size_t r = b->rows[j];
		uint8_t whole = code[r] == KEPT_LIST ? 0 : code[r];
		if (!code[r])
			continue;
		const uint8_t *c = whole ? u->adj_port + u->adj_start[s] + (whole == EVERY_UP ? 0 : ups) : list + at[r] + 1;
		unsigned n = whole ? (whole == EVERY_UP ? ups : links - ups) : list[at[r]];
		uint8_t to = least_kept(u, s, whole, c, n);	/* changes only when a move changes the loads */
		for (size_t x = b->lid_start[j]; x < b->lid_start[j + 1]; x++) {
			uint8_t from = lft[b->lids[x]];
			if (load[from] >= load[to] + 2) {
				lft[b->lids[x]] = to;
				load[from]--;
				load[to]++;
				u->fresh[s] = 0;
				moved++;
				if (b->one)
					break;
				to = least_kept(u, s, whole, c, n);
			}
		}
	}
	return moved;
}

static void balance_share(void *arg, size_t k, size_t from, size_t to)
{
	struct balance_run *b = arg;
	b->moved[k] = 0;
	for (size_t i = from; i < to; i++)
		if (b->want[b->u->desc[i]])
			b->moved[k] += balance_switch(b, i, b->at[k]);
}

struct leaf_at {
	size_t sw;
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
 * The leaves in bit-reversed host order (0, n/2, n/4, 3n/4, ...): the
 * destinations a switch moves first then lie in different pods and
 * columns, so the moves of different switches do not all land on the
 * links into one pod.
 */
static size_t spread_leaves(const struct ud *u, const struct routing_tables *t, size_t *out)
{
	struct leaf_at *at = malloc((u->ndesc + 1) * sizeof(*at));
	size_t n = 0, k = 0;
	if (!at)
		return SIZE_MAX;
	for (size_t i = 0; i < u->ndesc; i++) {
		uint16_t lids[FABRIC_MAX_PORTS + 1];
		uint8_t at_port[FABRIC_MAX_PORTS + 1];
		unsigned cas;
		attached_lids(u, t, u->desc[i], lids, at_port, &cas);
		uint32_t j = UINT32_MAX;
		for (unsigned c = 0; c < cas; c++)
			if (u->jpos[lids[c]] < j)
				j = u->jpos[lids[c]];
		if (cas)
			at[n++] = (struct leaf_at){ u->desc[i], j };
	}
	qsort(at, n, sizeof(*at), cmp_leaf_at);
	unsigned bits = 0;
	while (((size_t)1 << bits) < n)
		bits++;
	for (uint32_t v = 0; v < ((uint32_t)1 << bits); v++) {
		uint32_t i = bit_reverse(v, bits);
		if (i < n)
			out[k++] = at[i].sw;
	}
	free(at);
	return k;
}

/* Fabrics with fewer switches balance on one CPU: a thread costs more. */
#define BALANCE_SHARE_MIN_SWITCHES 256

/*
 * The leaves leaves[0..n) as the balancing pass visits them: each one's
 * row in b->rows, its CA LIDs in b->lids from b->lid_start. -1 on
 * allocation failure.
 */
static int balance_leaves(struct balance_run *b, const size_t *leaves, size_t n, size_t **rows, size_t **lid_start,
			  uint16_t **lids)
{
	const struct ud *u = b->u;
	*rows = malloc((n + 1) * sizeof(**rows));
	*lid_start = malloc((n + 1) * sizeof(**lid_start));
	*lids = malloc((n + 1) * (FABRIC_MAX_PORTS + 1) * sizeof(**lids));
	if (!*rows || !*lid_start || !*lids)
		return -1;
	size_t at = 0;
	for (size_t j = 0; j < n; j++) {
		uint8_t at_port[FABRIC_MAX_PORTS + 1];
		unsigned cas;
		(*rows)[j] = u->kept.row[leaves[j]];
		(*lid_start)[j] = at;
		attached_lids(u, b->t, leaves[j], *lids + at, at_port, &cas);
		at += cas;
	}
	(*lid_start)[n] = at;
	b->rows = *rows;
	b->nleaves = n;
	b->lid_start = *lid_start;
	b->lids = *lids;
	return 0;
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
 * within one CA LID of each other.) Each switch is balanced on its own,
 * over the leaves in that order, its table and loads at hand; the
 * switches are shared out among the CPUs.
 */
static int balance(struct ud *u, struct routing_tables *t)
{
	bool *want = calloc(u->x->nsw + 1, sizeof(*want));
	size_t *leaves = malloc((u->ndesc + 1) * sizeof(*leaves)), n, *rows = NULL, *lid_start = NULL;
	uint16_t *lids = NULL;
	size_t nshares = shares_count(u->ndesc, BALANCE_SHARE_MIN_SWITCHES);
	struct balance_run b = { .u = u, .t = t, .want = want };
	int rc = -1;
	if (!want || !leaves || (n = spread_leaves(u, t, leaves)) == SIZE_MAX ||
	    balance_leaves(&b, leaves, n, &rows, &lid_start, &lids) < 0)
		goto done;
	for (size_t k = 0; k < nshares; k++)
		if (!(b.at[k] = malloc((u->kept.nrows + 1) * sizeof(*b.at[k]))))
			goto done;
	for (unsigned pass = 0; pass < BALANCE_PASSES; pass++) {
		size_t moved = 0, left = 0;
		for (size_t i = 0; i < u->ndesc; i++)
			left += want[u->desc[i]] = unbalanced(u, u->desc[i]);
		if (!left)
			break;
		b.one = pass == 0;
		shares_run(nshares, u->ndesc, balance_share, &b);
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
	free(leaves);
	free(rows);
	free(lid_start);
	free(lids);
	return rc;
}

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
	kept_free(&u->kept, u->ndesc);
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
	u->leaf = calloc(nsw, sizeof(*u->leaf));
	u->base = malloc(nsw * sizeof(*u->base));
	u->jpos = malloc(((size_t)max_lid + 1) * sizeof(*u->jpos));
	if (!u->desc || !u->leaf || !u->base || !u->jpos)
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
	u->digit = malloc(((size_t)u->r->top + 1) * (FABRIC_MAX_PORTS + 1) * sizeof(*u->digit));
	u->adj_port = malloc(ports + 1);
	if (!u->load || !u->adj || !u->padj || !u->adj_start || !u->n_upnbr || !u->kept_min || !u->fresh || !u->magic ||
	    !u->digit || !u->adj_port)
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
	if (!plan->only && kept_alloc(&u) < 0)	/* the balancing pass reads the leaves' candidates */
		goto done;
	struct ud frozen = u;
	struct ahead a;
	towards_each(&a, &u, &frozen, bottom_up, ndest);
	int failed = 0;
	for (size_t i = 0; i < ndest && !failed; i++) {
		ahead_next(&a, (void **)&u.s);
		failed = route_destination(&u, out, bottom_up[i], gaps);
	}
	ahead_end(&a);
	if (failed)
		goto done;
	rc = plan->only ? 0 : balance(&u, out);
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
