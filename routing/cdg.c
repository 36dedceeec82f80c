/*
 * DOC: channel dependency graph
 *
 * For each destination LID, the paths from every CA to it are the union
 * of the switches' next hops, a tree towards the destination. Walking from
 * each CA's switch marks the switches on those paths; each marked switch
 * whose next hop is another switch that forwards further adds the
 * dependency (its out channel -> the next switch's out channel). CA
 * injection channels have no incoming dependency, so they can never close
 * a cycle and are left out.
 *
 * Walks start at the switches that have CAs, once per switch; the
 * dependencies go into a depgraph, which finds the cycle.
 */
#include "routing/cdg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct graph {
	struct depgraph dg;
	const struct node **entry;	/* switches with CAs: where traffic enters */
	size_t nentry;
	uint32_t *mark;		/* per node: the walk generation that passed it */
	uint32_t generation;
};

/* The switch that (n, port) leads to, or NULL. */
static const struct node *next_switch(const struct node *n, uint8_t port)
{
	const struct node *r = port && port <= n->nports ? n->ports[port].remote : NULL;
	return r && r->type == NODE_SWITCH ? r : NULL;
}

static uint8_t out_port(const struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	return lid <= t->max_lid && t->lft[sw->index] ? t->lft[sw->index][lid] : LFT_NO_PATH;
}

/* Adds the dependencies of the traffic to lid. */
static int add_destination(struct graph *g, const struct routing_tables *t, uint16_t lid)
{
	uint32_t *mark = g->mark, gen = ++g->generation;
	for (size_t i = 0; i < g->nentry; i++) {
		const struct node *sw = g->entry[i];
		/* walk until the path joins one already walked */
		for (unsigned hops = 0; sw && mark[sw->index] != gen && hops < FABRIC_MAX_HOPS; hops++) {
			mark[sw->index] = gen;
			uint8_t out = out_port(t, sw, lid);
			if (out == 0 || out == LFT_NO_PATH)
				break;
			const struct node *next = next_switch(sw, out);
			uint8_t next_out = next ? out_port(t, next, lid) : LFT_NO_PATH;
			if (next && next_out != 0 && next_out != LFT_NO_PATH &&
			    depgraph_add(&g->dg, sw, out, next, next_out) < 0)
				return -1;
			sw = next;
		}
	}
	return 0;
}

/* Switches with a CA attached, each once: where CA traffic enters. */
static int find_entries(struct graph *g)
{
	const struct fabric *f = g->dg.f;
	if (!(g->entry = malloc((f->nnodes + 1) * sizeof(*g->entry))))
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *ca = f->nodes[i];
		for (unsigned p = 1; p <= ca->nports && ca->type != NODE_SWITCH; p++) {
			const struct node *sw = ca->ports[p].remote;
			if (sw && sw->type == NODE_SWITCH && g->mark[sw->index] != 1) {
				g->mark[sw->index] = 1;
				g->entry[g->nentry++] = sw;
			}
		}
	}
	g->generation = 1;
	return 0;
}

int cdg_check_layer(const struct fabric *f, const struct routing_tables *t, unsigned layer,
		    struct cdg_report *r)
{
	return cdg_check_layer_with(f, t, layer, NULL, NULL, r);
}

int cdg_check_layer_with(const struct fabric *f, const struct routing_tables *t, unsigned layer,
			 int (*extra)(void *arg, struct depgraph *g), void *arg, struct cdg_report *r)
{
	struct graph g = { 0 };
	int rc = -1;
	memset(r, 0, sizeof(*r));
	r->vl = layer;
	g.mark = calloc(f->nnodes + 1, sizeof(*g.mark));
	if (depgraph_init(&g.dg, f) < 0 || !g.mark || find_entries(&g) < 0)
		goto done;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++)
			if (n->ports[p].lid && (n->type == NODE_SWITCH ? p == 0 : p > 0) &&
			    n->ports[p].lid <= t->max_lid && t->sl[n->ports[p].lid] == layer &&
			    add_destination(&g, t, n->ports[p].lid) < 0)
				goto done;
	}
	if (extra && extra(arg, &g.dg) < 0)
		goto done;
	rc = depgraph_check(&g.dg, r);
	r->vl = layer;
done:
	free(g.mark);
	free(g.entry);
	depgraph_free(&g.dg);
	return rc;
}

int cdg_check(const struct fabric *f, const struct routing_tables *t, struct cdg_report *r)
{
	struct cdg_report sum = { 0 };
	for (unsigned l = 0; l < t->layers; l++) {
		if (cdg_check_layer(f, t, l, r) < 0)
			return -1;
		if (r->cycle_len)
			return 0;
		sum.channels += r->channels;
		sum.dependencies += r->dependencies;
	}
	*r = sum;
	return 0;
}

bool cdg_lid_uses(const struct routing_tables *t, uint16_t lid, const struct cdg_channel *a,
		  const struct cdg_channel *b)
{
	return out_port(t, a->node, lid) == a->port && next_switch(a->node, a->port) == b->node &&
	       out_port(t, b->node, lid) == b->port;
}

void cdg_cycle_text(const struct cdg_report *r, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i <= r->cycle_len && r->cycle_len && off < len; i++) {
		const struct cdg_channel *c = &r->cycle[i % r->cycle_len];
		off += (size_t)snprintf(buf + off, len - off, "%s%s[%u]", i ? " -> " : "", c->node->desc, c->port);
	}
}
