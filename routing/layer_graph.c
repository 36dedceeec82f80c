/*
 * DOC: a layer's dependency graph, kept exact while LIDs leave it
 *
 * VL layering (routing/layers.c) moves LIDs off a layer one cycle at a
 * time and must search the layer's graph as it is after each move.
 * Building it again walks every destination over the whole fabric; here
 * each turn instead counts the paths that make it, a path being the route
 * from one place where the layer's traffic starts to one destination
 * (the walks of routing/cdg.c, taken one start at a time), and a LID
 * leaving the layer takes its paths away: the paths to it from every
 * CA's switch and, with answers, its answers' paths to every CA. A CA's
 * answers start at its switch, shared with the other CAs there on the
 * layer, so they leave with the last of them. A turn whose count drops to
 * 0 leaves the depgraph, which then holds what cdg_add_layer would build
 * for the layer as it now is.
 */
#include "routing/layer_graph.h"
#include "routing/shares.h"

#include <stdlib.h>
#include <string.h>

/* Lists the dependency (sw, out) -> (next, next_out) among those the change adding paths gave g. -1 on failure. */
static int note_added(struct layer_graph *lg, const struct node *sw, uint8_t out, const struct node *next,
		      uint8_t next_out)
{
	if (lg->nadded == lg->cap_added) {
		size_t cap = lg->cap_added ? 2 * lg->cap_added : 256;
		struct dep_edge *more = realloc(lg->added, cap * sizeof(*more));
		if (!more)
			return -1;
		lg->added = more;
		lg->cap_added = cap;
	}
	lg->added[lg->nadded++] = (struct dep_edge){ (uint32_t)(lg->g->base[sw->index] + out),
						     (uint32_t)(lg->g->base[next->index] + next_out) };
	return 0;
}

static void note_crossing(struct layer_crossings *x, const struct node *sw, uint8_t out, const struct node *next,
			  uint8_t next_out)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;
		struct layer_crossing *v = realloc(x->v, cap * sizeof(*v));
		if (!v) {
			x->failed = true;
			return;
		}
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = (struct layer_crossing){ sw, next, out, next_out };
}

/*
 * Adds delta (paths: as many as its size, all of one sign) to each turn
 * on the route from sw to lid; a turn whose count leaves or reaches 0 goes
 * into x, for the graph. The counts are atomic: shares walk at once, and
 * within one change every delta has the same sign, so each turn crosses 0
 * in one share only. The steps read the hop map, not the nodes: these
 * walks take billions of steps on the largest fabrics.
 */
static void path(const struct layer_graph *lg, uint32_t sw, uint16_t lid, int delta, struct layer_crossings *x)
{
	uint32_t paths = (uint32_t)(delta > 0 ? delta : -delta);
	uint8_t out = 0, next_out = 0;
	const struct hop *h = hop_map_step(lg->hops, lg->t, sw, lid, &out);
	for (size_t hops = 0; h && h->next < HOP_CA && hops <= lg->f->nnodes; hops++) {	/* a looping table is cut short */
		uint32_t next = h->next;
		const struct hop *nh = hop_map_step(lg->hops, lg->t, next, lid, &next_out);
		uint32_t *count = lg->count[next];
		if (nh && count) {
			uint32_t *c = &count[(size_t)h->in * (lg->hops->nports[next] + 1u) + next_out];
			bool crossed = delta > 0 ? __atomic_fetch_add(c, paths, __ATOMIC_RELAXED) == 0
						 : __atomic_sub_fetch(c, paths, __ATOMIC_RELAXED) == 0;
			if (crossed)
				note_crossing(x, lg->f->nodes[sw], out, lg->f->nodes[next], next_out);
		}
		sw = next;
		out = next_out;
		h = nh;
	}
}

#define NO_START UINT32_MAX

/* Where switch sw's (node index) answer to CA LID d starts on the layer (routing/cdg.c): NO_START when nowhere. */
static uint32_t own_start(const struct layer_graph *lg, uint32_t sw, uint16_t d)
{
	if (!cdg_own_hop_on_vl0(lg->layer))
		return sw;
	uint8_t out;
	const struct hop *h = hop_map_step(lg->hops, lg->t, sw, d, &out);
	return h && h->next < HOP_CA ? h->next : NO_START;
}

static bool on_layer(const struct layer_graph *lg, uint16_t lid)
{
	return lg->lid_kind[lid] != LID_NONE && lg->t->sl[lid] == lg->layer;
}

/* Whether lid is a CA's that sends into the fabric (its answers start at its switch). */
static bool ca_sender(const struct layer_graph *lg, uint16_t lid)
{
	return lg->lid_kind[lid] == LID_CA && lg->lid_node[lid];
}

/*
 * Notes lid among the destinations whose paths change and, with answers,
 * the switch its answers start at in lg->from[] (a CA's only when it is
 * the first or last on the layer at its switch).
 */
static void note_lid(struct layer_graph *lg, uint16_t lid, int delta)
{
	lg->dest[lg->ndest++] = lid;
	if (!lg->answers)
		return;
	if (lg->lid_kind[lid] == LID_OWN) {
		lg->own[lg->nfrom] = true;
		lg->from[lg->nfrom++] = (uint32_t)lg->lid_node[lid]->index;
		return;
	}
	if (!ca_sender(lg, lid))
		return;
	uint32_t *at = &lg->cas_on_layer[lg->lid_node[lid]->index];
	bool changes = delta > 0 ? (*at)++ == 0 : --(*at) == 0;
	if (changes) {
		lg->own[lg->nfrom] = false;
		lg->from[lg->nfrom++] = (uint32_t)lg->lid_node[lid]->index;
	}
}

/* One change's paths, shared out: the requests (ndest * nentry), then the answers (one item per CA). */
struct walk_run {
	struct layer_graph *lg;
	int delta;
	struct layer_crossings *x;	/* per share */
};

/* Walks the paths to destination i / nentry from entry switch i % nentry, for i in [from, to). */
static void walk_requests(void *arg, size_t k, size_t from, size_t to)
{
	const struct walk_run *w = arg;
	const struct layer_graph *lg = w->lg;
	for (size_t i = from; i < to; i++)
		path(lg, (uint32_t)lg->entry[i % lg->nentry]->index, lg->dest[i / lg->nentry], w->delta, &w->x[k]);
}

#define ANSWER_BLOCK 64	/* CAs whose answers' starts are found together: a line of each start's table */

/*
 * Walks the answers to CAs ca_lids[from, to) from each switch of
 * lg->from[]. Answers that start at the same switch (a switch's own start
 * on a layer above 0 is its next hop, which many share) take the same path
 * there: it is walked once, with as many paths. The starts are found
 * ANSWER_BLOCK CAs at a time, each switch's table read once for them.
 */
static void walk_answers(void *arg, size_t k, size_t from, size_t to)
{
	const struct walk_run *w = arg;
	struct layer_graph *lg = w->lg;
	struct layer_starts *st = &lg->starts[k];
	uint32_t *start = malloc(ANSWER_BLOCK * (lg->nfrom + 1) * sizeof(*start));
	if (!start) {
		w->x[k].failed = true;
		return;
	}
	for (size_t lo = from; lo < to; lo += ANSWER_BLOCK) {
		size_t nb = to - lo < ANSWER_BLOCK ? to - lo : ANSWER_BLOCK;
		for (size_t f = 0; f < lg->nfrom; f++)
			for (size_t j = 0; j < nb; j++)
				start[j * lg->nfrom + f] = lg->own[f] ? own_start(lg, lg->from[f], lg->ca_lids[lo + j]) :
									lg->from[f];
		for (size_t j = 0; j < nb; j++) {
			const uint32_t *at = start + j * lg->nfrom;
			size_t n = 0;
			st->gen++;
			for (size_t f = 0; f < lg->nfrom; f++) {
				if (at[f] == NO_START)
					continue;
				if (st->stamp[at[f]] != st->gen) {
					st->stamp[at[f]] = st->gen;
					st->paths[at[f]] = 0;
					st->at[n++] = at[f];
				}
				st->paths[at[f]]++;
			}
			for (size_t i = 0; i < n; i++)
				path(lg, st->at[i], lg->ca_lids[lo + j], w->delta * (int)st->paths[st->at[i]], &w->x[k]);
		}
	}
	free(start);
}

/* Puts the turns that crossed 0 into the graph (delta 1) or takes them out (-1), share by share. */
static int apply_crossings(struct layer_graph *lg, size_t nshares, int delta)
{
	for (size_t k = 0; k < nshares; k++) {
		struct layer_crossings *x = &lg->crossings[k];
		if (x->failed)
			return -1;
		for (size_t i = 0; i < x->n; i++) {
			const struct layer_crossing *c = &x->v[i];
			if (delta < 0) {
				depgraph_remove_turn(lg->g, c->next, c->sw->ports[c->out].remote_port, c->next_out);
				continue;
			}
			if (depgraph_add(lg->g, c->sw, c->out, c->next, c->next_out) < 0 ||	/* a LID coming back */
			    (lg->listing && note_added(lg, c->sw, c->out, c->next, c->next_out) < 0))
				return -1;
		}
	}
	return 0;
}

#define WALK_SHARE_MIN_PATHS 8192

/* Adds (delta 1) or takes out (-1) the paths of the layer's LIDs with lids[lid] set (NULL: all of them). */
static int change(struct layer_graph *lg, const bool *lids, int delta)
{
	lg->ndest = lg->nfrom = 0;
	for (uint32_t lid = 1; lid <= lg->t->max_lid; lid++)
		if ((!lids || lids[lid]) && on_layer(lg, (uint16_t)lid))
			note_lid(lg, (uint16_t)lid, delta);
	size_t requests = lg->ndest * lg->nentry, answers = lg->nfrom ? lg->nca : 0;
	size_t nreq = shares_count(requests, WALK_SHARE_MIN_PATHS);
	size_t nans = shares_count(answers * lg->nfrom, WALK_SHARE_MIN_PATHS);
	struct walk_run w = { lg, delta, lg->crossings };
	for (size_t k = 0; k < SHARES_MAX; k++)
		lg->crossings[k].n = 0;
	shares_run(nreq, requests, walk_requests, &w);	/* each share appends its crossings */
	shares_run(nans, answers, walk_answers, &w);
	return apply_crossings(lg, nreq > nans ? nreq : nans, delta);
}

/* Indexes the fabric's LIDs as routing/cdg.c walks them: a switch's port 0, a CA's ports. */
static int index_lids(struct layer_graph *lg)
{
	const struct fabric *f = lg->f;
	size_t n = (size_t)lg->t->max_lid + 1;
	lg->lid_node = calloc(n, sizeof(*lg->lid_node));
	lg->lid_kind = calloc(n, sizeof(*lg->lid_kind));
	lg->entry = malloc((f->nnodes + 1) * sizeof(*lg->entry));
	lg->ca_lids = malloc(n * sizeof(*lg->ca_lids));
	lg->dest = malloc(n * sizeof(*lg->dest));
	lg->from = malloc((f->nnodes + 1) * sizeof(*lg->from));
	lg->own = malloc((f->nnodes + 1) * sizeof(*lg->own));
	if (!lg->lid_node || !lg->lid_kind || !lg->entry || !lg->ca_lids || !lg->dest || !lg->from || !lg->own ||
	    (lg->nentry = cdg_entry_switches(f, lg->entry)) == SIZE_MAX)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *nd = f->nodes[i];
		bool own = nd->type == NODE_SWITCH;
		for (unsigned p = own ? 0 : 1; p <= (own ? 0 : nd->nports); p++) {
			const struct node *sw = cdg_entry_switch(nd, p);
			uint16_t lid = nd->ports[p].lid;
			if (!lid || lid >= n)
				continue;
			lg->lid_node[lid] = sw;
			lg->lid_kind[lid] = own ? LID_OWN : LID_CA;
			if (!own)
				lg->ca_lids[lg->nca++] = lid;
		}
	}
	return 0;
}

int layer_graph_init(struct layer_graph *lg, const struct fabric *f, const struct routing_tables *t,
		     const struct hop_map *hops, unsigned layer, bool answers, struct depgraph *g)
{
	*lg = (struct layer_graph){ .f = f, .t = t, .hops = hops, .layer = layer, .answers = answers, .g = g };
	lg->count = calloc(f->nnodes + 1, sizeof(*lg->count));
	lg->cas_on_layer = calloc(f->nnodes + 1, sizeof(*lg->cas_on_layer));
	if (!lg->count || !lg->cas_on_layer || index_lids(lg) < 0)
		goto fail;
	for (size_t k = 0; k < SHARES_MAX; k++) {
		struct layer_starts *st = &lg->starts[k];
		st->stamp = calloc(f->nnodes + 1, sizeof(*st->stamp));
		st->paths = malloc((f->nnodes + 1) * sizeof(*st->paths));
		st->at = malloc((f->nnodes + 1) * sizeof(*st->at));
		if (!st->stamp || !st->paths || !st->at)
			goto fail;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *sw = f->nodes[i];
		size_t ports = (size_t)sw->nports + 1;
		if (sw->type == NODE_SWITCH && !(lg->count[i] = calloc(ports * ports, sizeof(**lg->count))))
			goto fail;
	}
	if (change(lg, NULL, 1) < 0)
		goto fail;
	return 0;
fail:
	layer_graph_free(lg);
	return -1;
}

int layer_graph_remove_lids(struct layer_graph *lg, const bool *lids)
{
	return change(lg, lids, -1);
}

int layer_graph_add_lids(struct layer_graph *lg, const bool *lids)
{
	lg->nadded = 0;
	lg->listing = true;
	int rc = change(lg, lids, 1);
	lg->listing = false;
	return rc;
}

void layer_graph_free(struct layer_graph *lg)
{
	for (size_t i = 0; lg->count && i < lg->f->nnodes; i++)
		free(lg->count[i]);
	free(lg->count);
	free(lg->cas_on_layer);
	free(lg->lid_node);
	free(lg->lid_kind);
	free(lg->entry);
	free(lg->ca_lids);
	free(lg->dest);
	free(lg->from);
	free(lg->own);
	for (size_t k = 0; k < SHARES_MAX; k++) {
		free(lg->crossings[k].v);
		free(lg->starts[k].stamp);
		free(lg->starts[k].paths);
		free(lg->starts[k].at);
	}
	free(lg->added);
	memset(lg, 0, sizeof(*lg));
}
