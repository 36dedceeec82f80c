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

#include <stdlib.h>
#include <string.h>

/* Lists channel (sw, out) among those a dependency was added to, once. */
static void note_added(struct layer_graph *lg, const struct node *sw, uint8_t out)
{
	uint8_t *mark = &lg->is_added[lg->g->base[sw->index] + out];
	if (lg->recording && !*mark) {
		*mark = 1;
		lg->added[lg->nadded++] = (struct cdg_channel){ sw, out, 0 };
	}
}

/* Adds delta to each turn on the route from sw to lid; a turn no path makes any more leaves the graph. */
static void path(struct layer_graph *lg, const struct node *sw, uint16_t lid, int delta)
{
	for (size_t hops = 0; sw && hops <= lg->f->nnodes; hops++) {	/* a looping table is cut short */
		uint8_t out = routing_next_hop(lg->t, sw, lid);
		const struct node *next = routing_next_switch(sw, out);
		if (!next)
			return;
		uint8_t next_out = routing_next_hop(lg->t, next, lid), in = sw->ports[out].remote_port;
		uint32_t *count = lg->count[next->index];
		if (next_out && count) {
			uint32_t *c = &count[(size_t)in * (next->nports + 1u) + next_out];
			if (!*c && delta > 0) {	/* a LID coming back puts its turns back */
				depgraph_add(lg->g, sw, out, next, next_out);
				note_added(lg, sw, out);
			}
			*c += (uint32_t)delta;
			if (!*c)
				depgraph_remove_turn(lg->g, next, in, next_out);
		}
		sw = next;
	}
}

/* Where a switch's answer to CA LID d starts on the layer (routing/cdg.c): NULL when nowhere. */
static const struct node *own_start(const struct layer_graph *lg, const struct node *sw, uint16_t d)
{
	return cdg_own_hop_on_vl0(lg->layer) ? routing_next_switch(sw, routing_next_hop(lg->t, sw, d)) : sw;
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

/* The paths to lid from every CA's switch. */
static void paths_to(struct layer_graph *lg, uint16_t lid, int delta)
{
	for (size_t i = 0; i < lg->nentry; i++)
		path(lg, lg->entry[i], lid, delta);
}

/*
 * The answers to every CA from the switches of lg->from[] (where CAs
 * enter, or, own[], the switch's own LID). The destination is the outer
 * loop: consecutive destinations read the same lines of the switches'
 * tables.
 */
static void answers_from(struct layer_graph *lg, size_t nfrom, int delta)
{
	for (size_t i = 0; i < lg->nca; i++) {
		uint16_t d = lg->ca_lids[i];
		for (size_t k = 0; k < nfrom; k++)
			path(lg, lg->own[k] ? own_start(lg, lg->from[k], d) : lg->from[k], d, delta);
	}
}

/*
 * Adds lid's paths to the graph (delta 1) or takes them out (-1): its
 * destination paths at once, its answers listed in lg->from[] at *nfrom
 * (a CA's only when it is the first or last on the layer at its switch).
 */
static void lid_paths(struct layer_graph *lg, uint16_t lid, int delta, size_t *nfrom)
{
	paths_to(lg, lid, delta);
	if (!lg->answers)
		return;
	if (lg->lid_kind[lid] == LID_OWN) {
		lg->own[*nfrom] = true;
		lg->from[(*nfrom)++] = lg->lid_node[lid];
		return;
	}
	if (!ca_sender(lg, lid))
		return;
	uint32_t *at = &lg->cas_on_layer[lg->lid_node[lid]->index];
	bool changes = delta > 0 ? (*at)++ == 0 : --(*at) == 0;
	if (changes) {
		lg->own[*nfrom] = false;
		lg->from[(*nfrom)++] = lg->lid_node[lid];
	}
}

/* Adds (delta 1) or takes out (-1) the paths of the layer's LIDs with lids[lid] set (NULL: all of them). */
static void change(struct layer_graph *lg, const bool *lids, int delta)
{
	size_t nfrom = 0;
	for (uint32_t lid = 1; lid <= lg->t->max_lid; lid++)
		if ((!lids || lids[lid]) && on_layer(lg, (uint16_t)lid))
			lid_paths(lg, (uint16_t)lid, delta, &nfrom);
	answers_from(lg, nfrom, delta);
}

/* Indexes the fabric's LIDs as routing/cdg.c walks them: a switch's port 0, a CA's ports. */
static int index_lids(struct layer_graph *lg)
{
	const struct fabric *f = lg->f;
	size_t n = (size_t)lg->t->max_lid + 1;
	bool *entered = calloc(f->nnodes + 1, sizeof(*entered));
	lg->lid_node = calloc(n, sizeof(*lg->lid_node));
	lg->lid_kind = calloc(n, sizeof(*lg->lid_kind));
	lg->entry = malloc((f->nnodes + 1) * sizeof(*lg->entry));
	lg->ca_lids = malloc(n * sizeof(*lg->ca_lids));
	lg->from = malloc((f->nnodes + 1) * sizeof(*lg->from));
	lg->own = malloc((f->nnodes + 1) * sizeof(*lg->own));
	if (!entered || !lg->lid_node || !lg->lid_kind || !lg->entry || !lg->ca_lids || !lg->from || !lg->own) {
		free(entered);
		return -1;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *nd = f->nodes[i];
		bool own = nd->type == NODE_SWITCH;
		for (unsigned p = own ? 0 : 1; p <= (own ? 0 : nd->nports); p++) {
			const struct node *sw = cdg_entry_switch(nd, p);
			uint16_t lid = nd->ports[p].lid;
			if (!own && sw && !entered[sw->index]) {
				entered[sw->index] = true;
				lg->entry[lg->nentry++] = sw;
			}
			if (!lid || lid >= n)
				continue;
			lg->lid_node[lid] = sw;
			lg->lid_kind[lid] = own ? LID_OWN : LID_CA;
			if (!own)
				lg->ca_lids[lg->nca++] = lid;
		}
	}
	free(entered);
	return 0;
}

int layer_graph_init(struct layer_graph *lg, const struct fabric *f, const struct routing_tables *t,
		     unsigned layer, bool answers, struct depgraph *g)
{
	*lg = (struct layer_graph){ .f = f, .t = t, .layer = layer, .answers = answers, .g = g };
	lg->count = calloc(f->nnodes + 1, sizeof(*lg->count));
	lg->cas_on_layer = calloc(f->nnodes + 1, sizeof(*lg->cas_on_layer));
	lg->is_added = calloc(g->nch + 1, 1);
	lg->added = malloc((g->nch + 1) * sizeof(*lg->added));
	if (!lg->count || !lg->cas_on_layer || !lg->is_added || !lg->added || index_lids(lg) < 0)
		goto fail;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *sw = f->nodes[i];
		size_t ports = (size_t)sw->nports + 1;
		if (sw->type == NODE_SWITCH && !(lg->count[i] = calloc(ports * ports, sizeof(**lg->count))))
			goto fail;
	}
	change(lg, NULL, 1);
	return 0;
fail:
	layer_graph_free(lg);
	return -1;
}

void layer_graph_remove_lids(struct layer_graph *lg, const bool *lids)
{
	change(lg, lids, -1);
}

void layer_graph_add_lids(struct layer_graph *lg, const bool *lids)
{
	for (size_t i = 0; i < lg->nadded; i++)
		lg->is_added[lg->g->base[lg->added[i].node->index] + lg->added[i].port] = 0;
	lg->nadded = 0;
	lg->recording = true;
	change(lg, lids, 1);
	lg->recording = false;
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
	free(lg->from);
	free(lg->own);
	free(lg->is_added);
	free(lg->added);
	memset(lg, 0, sizeof(*lg));
}
