/*
 * DOC: VL layering
 *
 * A layer carries the traffic to its LIDs (from every CA) and from its
 * LIDs (to every CA: answers keep the request's SL). One LID's routes
 * cannot close a cycle unless a table loops, so a cycle is made by two or
 * more; moving every LID whose traffic makes one dependency of the cycle
 * breaks that cycle on the current layer. Of the cycle's dependencies the
 * one with the fewest users is moved, so layers stay full. One search of
 * the layer's graph meets the cycles one after the other: each move takes
 * the moved LIDs' paths out of the graph (routing/layer_graph.c) and the
 * search goes on (depgraph_cut_cycles). Moved LIDs are checked again on
 * their new layer. If every dependency is made by all the layer's LIDs,
 * no layering helps, and the cycle is reported. Where the engine's own
 * layers above 1 are only a first guess (a degraded tree's escape LIDs,
 * one layer per switch level), each acyclic layer offers a place to the
 * engine's LIDs of the layer above.
 *
 * When the VLs are too few for the answers too, the layering starts over
 * with the CAs' traffic alone, which must fit, and the answers' cycle is
 * reported beside a routing that is still accepted.
 */
#include "routing/layers.h"
#include "routing/layer_graph.h"
#include "routing/order_proof.h"
#include "routing/users_memo.h"

#include <stdlib.h>
#include <string.h>

/* What breaks the cycles of layer l as the search meets them (depgraph_cut_fn). */
struct cutter {
	const struct fabric *f;
	struct routing_tables *t;
	const struct hop_map *hops;	/* of f, for the users search and the counted paths */
	unsigned l;
	bool answers;
	struct cdg_users *users;	/* who makes a dependency */
	struct users_memo memo;	/* what it found, per dependency */
	bool *uses, *chosen, *left;	/* max_lid + 1 each; left: moved off l */
	unsigned on_layer;	/* LIDs on l */
	unsigned moved;
	struct depgraph *g;	/* the layer's graph */
	struct layer_graph lg;	/* its paths, counted where LIDs may leave or come back */
	bool counted;		/* lg holds them */
	struct cut_record {	/* each cut: its cycle and the dependency whose users moved */
		struct cdg_channel *cycle;
		size_t len, chosen;
	} *cuts;
	size_t ncuts, cap;
	uint32_t *cut_of;	/* [lid]: the cut that moved it, + 1 */
};

/* Notes the cycle a cut broke at its dependency i, for the LIDs it moves. -1 on allocation failure. */
static int record_cut(struct cutter *c, const struct cdg_channel *cycle, size_t len, size_t i)
{
	if (c->ncuts == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cut_record *more = realloc(c->cuts, cap * sizeof(*more));
		if (!more)
			return -1;
		c->cuts = more;
		c->cap = cap;
	}
	struct cdg_channel *copy = malloc(len * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, cycle, len * sizeof(*copy));
	c->cuts[c->ncuts++] = (struct cut_record){ copy, len, i };
	return 0;
}

/*
 * Whether the cycle lid was moved for still stands but for the dependency
 * lid made: bringing it back would close that cycle again.
 */
static bool cycle_waits(const struct cutter *c, uint16_t lid)
{
	if (!c->cut_of[lid])
		return false;
	const struct cut_record *k = &c->cuts[c->cut_of[lid] - 1];
	for (size_t j = 0; j < k->len; j++)
		if (j != k->chosen && !depgraph_has(c->g, &k->cycle[j], &k->cycle[(j + 1) % k->len]))
			return false;
	return true;
}

/*
 * The users of a -> b on layer l, stopping at limit (cdg_users_of). The
 * search only takes LIDs off the layer, so a dependency's users are those
 * found before that are still on it: a complete answer serves again, and
 * so does a partial one that still reaches the limit. -1 on failure.
 */
static long users_of(struct cutter *c, const struct cdg_channel *a, const struct cdg_channel *b, unsigned limit)
{
	const struct users_memo_entry *e = users_memo_find(&c->memo, a, b);
	if (e) {
		unsigned users = 0;
		memset(c->uses, 0, (size_t)c->t->max_lid + 1);
		for (uint32_t i = 0; i < e->n; i++)
			if (c->t->sl[e->lids[i]] == c->l) {
				c->uses[e->lids[i]] = true;
				users++;
			}
		if (e->complete || users >= limit)
			return users;
	}
	unsigned users = cdg_users_of(c->users, a, b, c->uses, limit);
	if (users_memo_keep(&c->memo, a, b, c->uses, c->t->max_lid, users < limit) < 0)
		return -1;
	return users;
}

/* A dependency of the cycle (cycle[i] -> the next) and how many routes make it. */
struct candidate {
	size_t reach;
	size_t i;
};

static int by_reach(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;
	return a->reach != b->reach ? (a->reach > b->reach) - (a->reach < b->reach) : (a->i > b->i) - (a->i < b->i);
}

/*
 * Moves to layer l + 1 the LIDs on layer l whose traffic makes one
 * dependency of the cycle: of the cycle's dependencies, the first of
 * those used by the fewest, as long as they are not all of the layer's
 * LIDs, and takes their paths out of the layer's graph. The dependencies
 * are asked in the order of how many routes make them, so that the best
 * is met early and the others' counts stop at it. 0, or -1 when no move
 * breaks the cycle (every dependency made by all of the layer's LIDs), -2
 * on failure.
 */
static int cut(void *arg, const struct cdg_channel *cycle, size_t len)
{
	struct cutter *c = arg;
	size_t n = (size_t)c->t->max_lid + 1, best_i = len;
	unsigned best = 0;
	struct candidate *order = malloc(len * sizeof(*order));
	if (!order)
		return -2;
	cdg_users_list(c->users);
	for (size_t i = 0; i < len; i++)
		order[i] = (struct candidate){ cdg_users_reach(c->users, &cycle[i], &cycle[(i + 1) % len]), i };
	qsort(order, len, sizeof(*order), by_reach);
	for (size_t k = 0; k < len; k++) {	/* a later dependency must have fewer users, an earlier one as few */
		size_t i = order[k].i;
		unsigned limit = !best ? c->on_layer : i < best_i ? best + 1 : best;
		if (limit <= 1)	/* only 0 users would be fewer, and a dependency without users is never taken */
			continue;
		long users = users_of(c, &cycle[i], &cycle[(i + 1) % len], limit);
		if (users < 0) {
			free(order);
			return -2;
		}
		if (users && users < limit) {
			best = (unsigned)users;
			best_i = i;
			memcpy(c->chosen, c->uses, n * sizeof(*c->uses));
		}
	}
	free(order);
	if (!best)
		return -1;
	if (layer_graph_remove_lids(&c->lg, c->chosen) < 0 || record_cut(c, cycle, len, best_i) < 0)
		return -2;
	for (size_t lid = 1; lid < n; lid++)
		if (c->chosen[lid]) {
			c->cut_of[lid] = (uint32_t)c->ncuts;
			c->left[lid] = true;
			c->t->sl[lid] = (uint8_t)(c->l + 1);
		}
	c->on_layer -= best;
	c->moved += best;
	return 0;
}

/*
 * Once this many offers in a row were refused, the rest are not made: the
 * engine puts the switches of one level on a layer, and where some of
 * them cannot come down most cannot (a degraded radix-48 tree: 500 of 572
 * refused, 2 s of tries). Stopping after 16 gives the same layer counts
 * as after 32 on 67 smaller trees, the same SLs on the radix-48 one, and
 * the same transition-bench verdicts; each refusal costs a walk of the
 * LID's paths there and back and a search.
 */
#define OFFERS_REFUSED_MAX 16

/*
 * Gives back to layer l, one by one, the LIDs moved off it while its
 * cycles were broken, each staying if the layer's graph stays acyclic
 * with it: a later move often took away what made an earlier one
 * necessary (first fit, as LASH places its paths). A LID whose cycle
 * still stands but for the dependency its move took away stays off
 * without a try (the cut counted it among that dependency's users). The
 * layer is acyclic before each LID comes back, so a cycle must pass
 * through a dependency the LID added: a topological order of the layer's
 * graph, kept as dependencies come back (routing/deporder.c), looks only
 * between the two ends of each that runs against it. The LIDs the
 * engine put on the layer above and offers (no cut moved them) are tried
 * the same way, up to OFFERS_REFUSED_MAX refusals in a row. -1 on
 * failure.
 */
static int take_back(struct cutter *c)
{
	size_t n = (size_t)c->t->max_lid + 1;
	struct deporder order;
	if (deporder_init(&order, c->g))	/* acyclic: the cuts left no cycle */
		return -1;
	memset(c->chosen, 0, n * sizeof(*c->chosen));
	unsigned refused = 0;	/* offers refused in a row */
	int rc = 0;
	for (size_t lid = 1; lid < n && rc == 0; lid++) {
		if (!c->left[lid] || c->t->sl[lid] != c->l + 1)
			continue;
		if (!c->cut_of[lid] && refused >= OFFERS_REFUSED_MAX)
			continue;
		if (cycle_waits(c, (uint16_t)lid))
			continue;
		c->t->sl[lid] = (uint8_t)c->l;
		c->chosen[lid] = true;
		int cyclic = layer_graph_add_lids(&c->lg, c->chosen) < 0 ? -1 :
			     deporder_admit(&order, c->lg.added, c->lg.nadded);
		if (cyclic < 0) {
			rc = -1;
			break;
		}
		if (cyclic) {
			if (layer_graph_remove_lids(&c->lg, c->chosen) < 0)
				rc = -1;
			c->t->sl[lid] = (uint8_t)(c->l + 1);
			refused += !c->cut_of[lid];
		} else if (c->cut_of[lid])
			c->moved--;
		else
			refused = 0;
		c->chosen[lid] = false;
	}
	deporder_free(&order);
	return rc;
}

/*
 * The graph of c's layer into the empty c->g: counted path by path
 * (c->lg) where LIDs may leave it or come back (cuts, offers), walked
 * once per destination where they cannot (fixed: the last layer without
 * offers). -1 on allocation failure.
 */
static int build(struct cutter *c, const struct cdg_mix *m, bool fixed)
{
	if (fixed)
		return cdg_add_layer(c->f, m, c->l, NULL, c->g);
	if (layer_graph_init(&c->lg, c->f, c->t, c->hops, c->l, c->answers, c->g) < 0)
		return -1;
	c->counted = true;
	return 0;
}

/*
 * Breaks the cycles of layer l (last: no layer above it) with one graph
 * search that moves LIDs up as it meets cycles, then takes back what the
 * layer can hold, and what offered (per LID: the engine's layer, if
 * offered lower; NULL: none) puts on the layer above. A layer whose
 * walks rise in the up*-down* order is acyclic without its graph
 * (*by_order, r's figures 0). 0 with the figures of the acyclic layer in
 * r, 1 with the cycle no move breaks, -1 on failure.
 */
static int split_layer(const struct fabric *f, const struct hop_map *hops, struct routing_tables *t, unsigned l,
		       bool last, const struct cdg_mix *m, const uint8_t *offered, unsigned *moved, bool *by_order,
		       struct cdg_report *r)
{
	struct depgraph g = { 0 };
	struct cutter c = { .f = f, .t = t, .hops = hops, .l = l, .answers = !m->no_answers, .g = &g,
			    .uses = malloc((size_t)t->max_lid + 1), .chosen = malloc((size_t)t->max_lid + 1),
			    .left = calloc((size_t)t->max_lid + 1, 1),
			    .cut_of = calloc((size_t)t->max_lid + 1, sizeof(*c.cut_of)),
			    .users = last ? NULL : cdg_users_new(f, t, hops, l, !m->no_answers) };
	int rc = -1;
	bool offers = false;
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		c.on_layer += t->sl[lid] == l;
		if (c.left && offered && l >= 1 && offered[lid] == l + 1 && t->sl[lid] == l + 1)
			offers = c.left[lid] = true;
	}
	int ordered = offers ? 0 : order_proof_layer(f, m, l);	/* offers need the graph */
	if (ordered == 1) {
		memset(r, 0, sizeof(*r));
		*by_order = true;
		rc = 0;
	} else if (ordered == 0 && c.uses && c.chosen && c.left && c.cut_of && (last || c.users) &&
		   depgraph_init(&g, f) == 0 && build(&c, m, last && !offers) == 0 &&
		   depgraph_cut_cycles(&g, last ? NULL : cut, &c, r) == 0) {
		if (r->cycle_len)
			rc = 1;
		else if (!c.ncuts && !offers)	/* nothing to take back: the search found no cycle */
			rc = 0;
		else if (take_back(&c) < 0 || depgraph_check(&g, r) < 0)	/* counted: cuts or offers */
			rc = -1;
		else
			rc = r->cycle_len ? 1 : 0;	/* the whole layer checked again after take_back */
	}
	r->vl = l;
	*moved = c.moved;
	if (c.counted)
		layer_graph_free(&c.lg);
	depgraph_free(&g);
	cdg_users_free(c.users);
	users_memo_free(&c.memo);
	free(c.uses);
	free(c.chosen);
	free(c.left);
	free(c.cut_of);
	for (size_t k = 0; k < c.ncuts; k++)
		free(c.cuts[k].cycle);
	free(c.cuts);
	return rc;
}

/*
 * The layering over t's SLs; answers: with what LIDs send on their own SL;
 * offered: per LID, the engine's layer of a LID it may offer lower down,
 * else 0 (NULL: none). 0, 1 (cyclic) or -1.
 */
static int assign(const struct fabric *f, const struct hop_map *hops, struct routing_tables *t,
		  const uint8_t *offered, unsigned max_layers, bool answers, struct layers_report *r)
{
	struct cdg_report sum = { 0 };
	unsigned engine_layers = t->layers ? t->layers : 1;
	r->moved = r->ordered = 0;
	for (unsigned l = 0; l < max_layers; l++) {
		struct cdg_mix m = cdg_mix_of(t);
		unsigned moved;
		bool by_order = false;
		m.no_answers = !answers;
		t->layers = l + 1 > engine_layers ? l + 1 : engine_layers;
		int rc = split_layer(f, hops, t, l, l + 1 >= max_layers, &m, offered, &moved, &by_order, &r->cdg);
		r->moved += moved;
		r->ordered += by_order;
		if (rc) {
			r->layers = t->layers;
			return rc;
		}
		sum.channels += r->cdg.channels;
		sum.dependencies += r->cdg.dependencies;
		bool more = false;
		for (uint32_t lid = 1; lid <= t->max_lid && !more; lid++)
			more = t->sl[lid] > l;
		if (!more)
			break;
	}
	unsigned used = 1;	/* the engine's layers above may have been emptied by the take-backs */
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		used = t->sl[lid] + 1u > used ? t->sl[lid] + 1u : used;
	t->layers = used;
	r->layers = t->layers;
	r->cdg = sum;
	return 0;
}

int layers_assign(const struct fabric *f, struct routing_tables *t, unsigned max_layers, const bool *offer,
		  struct layers_report *r)
{
	unsigned engine_layers = t->layers ? t->layers : 1;
	memset(r, 0, sizeof(*r));
	if (max_layers > ROUTING_MAX_LAYERS)
		max_layers = ROUTING_MAX_LAYERS;
	if (engine_layers > max_layers) {
		r->layers = engine_layers;
		return 1;
	}
	size_t n = (size_t)t->max_lid + 1;
	uint8_t *engine_sl = malloc(n), *offered = offer ? calloc(n, 1) : NULL;
	struct hop_map hops;	/* one for every layer's users search and counted paths */
	if (!engine_sl || (offer && !offered) || hop_map_build(&hops, f) < 0) {
		free(engine_sl);
		free(offered);
		return -1;
	}
	memcpy(engine_sl, t->sl, n);
	for (size_t lid = 1; offer && lid < n; lid++)
		offered[lid] = offer[lid] ? engine_sl[lid] : 0;
	int rc = assign(f, &hops, t, offered, max_layers, true, r);
	r->answers_proven = rc == 0;
	if (rc == 1) {	/* the CAs' traffic alone, so that too few VLs for the answers leave the fabric routed */
		r->answers = r->cdg;
		memcpy(t->sl, engine_sl, n);
		t->layers = engine_layers;
		rc = assign(f, &hops, t, offered, max_layers, false, r);
	}
	hop_map_free(&hops);
	free(engine_sl);
	free(offered);
	return rc;
}
