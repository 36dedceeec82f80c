/*
 * DOC: channel dependency graph
 *
 * For each destination LID, the paths to it are the union of the
 * switches' next hops, a tree towards the destination (or, in a mixture
 * of two tables during a change, a graph where each switch has up to two
 * next hops). Walking from each place where traffic on the layer starts
 * marks the switches on those paths; each marked switch whose next hop is
 * another switch that forwards further adds the dependency (its out
 * channel -> the next switch's out channel). CA injection channels have no
 * incoming dependency, so they can never close a cycle and are left out.
 *
 * Walks start at the switches that have CAs, for the destinations whose
 * SL (in any of the mixture's SL sets) is the layer. A forwarding loop
 * met on the way closes a cycle too. Each switch is walked once per
 * destination; the dependencies go into a depgraph, which finds the
 * cycle. (Loops in entries no CA traffic uses: routing/loops.c.) On a
 * large fabric the destinations are shared out among the CPUs, one graph
 * each, merged before the search.
 */
#include "routing/cdg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/cdg_rows.h"
#include "routing/shares.h"

/* Fabrics smaller than this, or fewer destinations, are walked by one thread: starting more costs more than it saves. */
#define CDG_SHARE_MIN_NODES 256
#define CDG_SHARE_MIN_DESTINATIONS 32

struct graph {
	const struct cdg_mix *m;
	unsigned layer;
	struct depgraph *dg;	/* the caller's */
	const struct node **entry;	/* switches with CAs: where CA traffic enters */
	size_t nentry;
	const struct node **source;	/* where the layer's CA LIDs send from (to CAs) */
	size_t nsource;
	const struct node **answering;	/* the switches whose LIDs are on the layer (they answer CAs) */
	size_t nanswering;
	const struct node **stack;
	uint32_t *mark;		/* per node: the walk generation that passed it */
	uint32_t generation;
	uint16_t max_lid;
};

struct cdg_mix cdg_mix_of(const struct routing_tables *t)
{
	return (struct cdg_mix){ .lft = { t }, .nlft = 1, .sl = { t }, .nsl = 1 };
}

/* The largest LID any of m's tables routes. */
static uint16_t mix_max_lid(const struct cdg_mix *m)
{
	uint16_t max = 0;
	for (unsigned k = 0; k < m->nlft; k++)
		if (m->lft[k]->max_lid > max)
			max = m->lft[k]->max_lid;
	return max;
}

/* Whether v is among a[0..n): a mixture's tables mostly agree, and an entry they share is taken once. */
static inline bool among(const uint8_t *a, unsigned n, uint8_t v)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] == v)
			return true;
	return false;
}

/* Pushes sw unless this destination's walk has passed it already. */
static void visit(struct graph *g, const struct node *sw, size_t *top)
{
	if (g->mark[sw->index] != g->generation) {
		g->mark[sw->index] = g->generation;
		g->stack[(*top)++] = sw;
	}
}

/* Adds the dependencies of the traffic to lid that starts at the switches on the stack. */
static int walk(struct graph *g, uint16_t lid, size_t top)
{
	const struct cdg_mix *m = g->m;
	while (top) {
		const struct node *sw = g->stack[--top];
		uint8_t outs[CDG_MAX_SETS];
		for (unsigned k = 0; k < m->nlft; k++) {
			uint8_t out = outs[k] = routing_next_hop(m->lft[k], sw, lid);
			const struct node *next = routing_next_switch(sw, out);
			if (!next || among(outs, k, out))
				continue;
			uint8_t next_outs[CDG_MAX_SETS];
			for (unsigned j = 0; j < m->nlft; j++) {
				uint8_t next_out = next_outs[j] = routing_next_hop(m->lft[j], next, lid);
				if (next_out && !among(next_outs, j, next_out) &&
				    depgraph_add(g->dg, sw, out, next, next_out) < 0)
					return -1;
			}
			visit(g, next, &top);
		}
	}
	return 0;
}

/*
 * Adds the dependencies of the traffic to lid on the layer: from every CA
 * if lid's SL is the layer, and, if lid is a CA's, from the LIDs whose SL
 * is the layer (their answers to requests that came on their SL).
 */
static int add_destination(struct graph *g, uint16_t lid, bool to_ca)
{
	size_t top = 0;
	bool mine = cdg_on_layer(g->m, lid, g->layer);
	g->generation++;
	for (size_t i = 0; mine && i < g->nentry; i++)
		visit(g, g->entry[i], &top);
	for (size_t i = 0; to_ca && i < g->nsource; i++)
		visit(g, g->source[i], &top);
	for (size_t i = 0; to_ca && i < g->nanswering; i++) {
		const struct node *sw = g->answering[i];
		if (!cdg_own_hop_on_vl0(g->layer)) {
			visit(g, sw, &top);
			continue;
		}
		for (unsigned k = 0; k < g->m->nlft; k++) {	/* on the layer's VL from the next switch on */
			uint8_t out = routing_next_hop(g->m->lft[k], sw, lid);
			const struct node *next = routing_next_switch(sw, out);
			if (next)
				visit(g, next, &top);
		}
	}
	return top ? walk(g, lid, top) : 0;
}

const struct node *cdg_entry_switch(const struct node *n, unsigned port)
{
	const struct node *sw = n->type == NODE_SWITCH ? n : port <= n->nports ? n->ports[port].remote : NULL;
	return sw && sw->type == NODE_SWITCH ? sw : NULL;
}

size_t cdg_entry_switches(const struct fabric *f, const struct node **out)
{
	bool *seen = calloc(f->nnodes + 1, sizeof(*seen));
	size_t n = 0;
	if (!seen)
		return SIZE_MAX;
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; f->nodes[i]->type != NODE_SWITCH && p <= f->nodes[i]->nports; p++) {
			const struct node *sw = cdg_entry_switch(f->nodes[i], p);
			if (sw && !seen[sw->index]) {
				seen[sw->index] = true;
				out[n++] = sw;
			}
		}
	free(seen);
	return n;
}

void cdg_each_layer_lid(const struct fabric *f, const struct cdg_mix *m, unsigned layer, uint16_t max_lid,
			cdg_sender_fn fn, void *arg)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		bool own = n->type == NODE_SWITCH;
		for (unsigned p = own ? 0 : 1; p <= (own ? 0 : n->nports); p++) {
			const struct node *sw = cdg_entry_switch(n, p);
			uint16_t lid = n->ports[p].lid;
			if (lid && sw && lid <= max_lid && cdg_on_layer(m, lid, layer))
				fn(arg, lid, sw, own);
		}
	}
}

/* A source of the graph's layer: switches answering on their own LID, the distinct entry switches of CAs. */
static void add_source(void *arg, uint16_t lid, const struct node *sw, bool own)
{
	struct graph *g = arg;
	(void)lid;
	if (own)
		g->answering[g->nanswering++] = sw;
	else if (g->mark[sw->index] != g->generation) {
		g->mark[sw->index] = g->generation;
		g->source[g->nsource++] = sw;
	}
}

static void find_sources(struct graph *g, const struct fabric *f)
{
	g->generation++;
	cdg_each_layer_lid(f, g->m, g->layer, g->max_lid, add_source, g);
}

static int graph_init(struct graph *g, const struct fabric *f, const struct cdg_mix *m, unsigned layer,
		      struct depgraph *dg)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->layer = layer;
	g->dg = dg;
	g->max_lid = mix_max_lid(m);
	g->mark = calloc(f->nnodes + 1, sizeof(*g->mark));
	g->entry = malloc((f->nnodes + 1) * sizeof(*g->entry));
	g->stack = malloc((f->nnodes + 1) * sizeof(*g->stack));
	g->source = malloc((f->nnodes + 1) * sizeof(*g->source));
	g->answering = malloc((f->nnodes + 1) * sizeof(*g->answering));
	if (!g->mark || !g->entry || !g->stack || !g->source || !g->answering)
		return -1;
	if ((g->nentry = cdg_entry_switches(f, g->entry)) == SIZE_MAX)
		return -1;
	g->generation = 1;
	if (!m->to_cas_only && !m->no_answers)
		find_sources(g, f);
	return 0;
}

static void graph_free(struct graph *g)
{
	free(g->mark);
	free(g->entry);
	free(g->stack);
	free(g->source);
	free(g->answering);
}

/* At most one in this many switches with a table may start nothing for cdg_rows.c to be used. */
#define ROWS_QUIET_SHARE 8

static void rows_free(struct cdg_starts *s)
{
	free((void *)s->always);
	free((void *)s->mine);
	free((void *)s->mine_lid);
}

/*
 * Whether the walks towards CAs start at nearly every switch (one table,
 * answers from switches that send on their own hop: layer 0, and at most
 * one in ROWS_QUIET_SHARE of the switches with a table starting nothing):
 * then cdg_rows.c builds their dependencies row by row. Fills s (arrays
 * per node index and per LID, freed with rows_free); -1 on allocation
 * failure.
 */
static int rows_starts(struct graph *g, const struct fabric *f, struct cdg_starts *s)
{
	const struct routing_tables *t = g->m->lft[0];
	bool *always = NULL, *mine = NULL, *mine_lid = NULL;
	size_t quiet = 0, tables = 0;
	memset(s, 0, sizeof(*s));
	if (g->m->nlft != 1 || g->m->to_cas_only || g->m->no_answers || cdg_own_hop_on_vl0(g->layer))
		return 0;
	always = calloc(f->nnodes + 1, sizeof(*always));
	mine = calloc(f->nnodes + 1, sizeof(*mine));
	mine_lid = calloc((size_t)g->max_lid + 1, sizeof(*mine_lid));
	s->always = always;
	s->mine = mine;
	s->mine_lid = mine_lid;
	if (!always || !mine || !mine_lid)
		return -1;
	for (size_t i = 0; i < g->nsource; i++)
		always[g->source[i]->index] = true;
	for (size_t i = 0; i < g->nanswering; i++)
		always[g->answering[i]->index] = true;
	for (size_t i = 0; i < g->nentry; i++)
		mine[g->entry[i]->index] = true;
	for (uint32_t lid = 1; lid <= g->max_lid; lid++)
		mine_lid[lid] = cdg_on_layer(g->m, (uint16_t)lid, g->layer);
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->type == NODE_SWITCH && t->lft[i]) {
			tables++;
			quiet += !always[i];
		}
	return quiet * ROWS_QUIET_SHARE <= tables;
}

/* A destination of a layer's walks: a LID, and whether a CA has it (the answers go to CAs only). */
struct destination {
	uint16_t lid;
	bool to_ca;
};

/*
 * The destinations whose walks a layer's graph holds (lids: which ones;
 * NULL all) into out, in node order; how many. out needs a slot per port
 * of f (a LID per end port at most, even where a bad dump repeats one).
 */
static size_t layer_destinations(const struct fabric *f, const struct cdg_mix *m, const bool *lids,
				 struct destination *out)
{
	uint16_t max_lid = mix_max_lid(m);
	size_t n = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *x = f->nodes[i];
		for (unsigned p = 0; p <= x->nports; p++) {
			uint16_t lid = x->ports[p].lid;
			if (lid && (x->type == NODE_SWITCH ? p == 0 && !m->to_cas_only : p > 0) && lid <= max_lid &&
			    (!lids || lids[lid]))
				out[n++] = (struct destination){ lid, x->type != NODE_SWITCH };
		}
	}
	return n;
}

/* Adds the walks to d[0..n) to dg. */
static int add_destinations(const struct fabric *f, const struct cdg_mix *m, unsigned layer,
			    const struct destination *d, size_t n, struct depgraph *dg)
{
	struct graph g;
	struct cdg_starts starts = { 0 };
	uint16_t *cas = NULL;	/* CA destinations nearly every switch sends to: row by row */
	size_t ncas = 0;
	int rc = -1, rows = 0;
	if (graph_init(&g, f, m, layer, dg) < 0 || (rows = rows_starts(&g, f, &starts)) < 0)
		goto done;
	if (rows && !(cas = malloc((n + 1) * sizeof(*cas))))
		goto done;
	for (size_t i = 0; i < n; i++) {
		if (cas && d[i].to_ca)
			cas[ncas++] = d[i].lid;
		else if (add_destination(&g, d[i].lid, d[i].to_ca) < 0)
			goto done;
	}
	rc = cas ? cdg_add_rows(f, m->lft[0], cas, ncas, &starts, dg) : 0;
done:
	free(cas);
	rows_free(&starts);
	graph_free(&g);
	return rc;
}

/* The layer's destinations shared out among the CPUs: share 0 adds to the caller's graph, each other to its own. */
struct layer_shares {
	const struct fabric *f;
	const struct cdg_mix *m;
	unsigned layer;
	const struct destination *d;
	struct depgraph *dg;
	struct depgraph g[SHARES_MAX];
	int rc[SHARES_MAX];
};

static void add_share(void *arg, size_t k, size_t from, size_t to)
{
	struct layer_shares *s = arg;
	if (s->rc[k] == 0)
		s->rc[k] = add_destinations(s->f, s->m, s->layer, s->d + from, to - from, k ? &s->g[k] : s->dg);
}

/*
 * Each destination's walk is independent of the others', so the
 * destinations are shared out among the CPUs, an equal count each (not
 * an equal range of nodes: a transition's moving LIDs sit on few nodes),
 * each share filling its own graph, and the graphs are merged: the same
 * bits, whatever the order.
 */
int cdg_add_layer(const struct fabric *f, const struct cdg_mix *m, unsigned layer, const bool *lids,
		  struct depgraph *dg)
{
	struct layer_shares s = { .f = f, .m = m, .layer = layer, .dg = dg };
	size_t ports = 0, n, nshares;
	int rc = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		ports += (size_t)f->nodes[i]->nports + 1;
	struct destination *d = malloc((ports + 1) * sizeof(*d));
	if (!d)
		return -1;
	n = layer_destinations(f, m, lids, d);
	s.d = d;
	nshares = f->nnodes < CDG_SHARE_MIN_NODES ? 1 : shares_count(n, CDG_SHARE_MIN_DESTINATIONS);
	for (size_t k = 1; k < nshares; k++)
		s.rc[k] = depgraph_init(&s.g[k], f);
	shares_run(nshares, n, add_share, &s);
	for (size_t k = 0; k < nshares; k++) {
		if (s.rc[k] < 0 || (k && depgraph_merge(dg, &s.g[k]) < 0))
			rc = -1;
		if (k)
			depgraph_free(&s.g[k]);
	}
	free(d);
	return rc;
}

int cdg_check_layers_with(const struct fabric *f, const struct cdg_mix *m, uint32_t layers,
			  int (*extra)(void *arg, struct depgraph *g), void *arg, struct cdg_report *r)
{
	struct depgraph dg;
	int rc = depgraph_init(&dg, f);
	memset(r, 0, sizeof(*r));
	for (unsigned l = 0; l < 32 && rc == 0; l++)
		if (layers & 1u << l)
			rc = cdg_add_layer(f, m, l, NULL, &dg);
	if (rc == 0 && (!extra || extra(arg, &dg) == 0))
		rc = depgraph_check(&dg, r);
	else
		rc = -1;
	r->vl = layers ? (unsigned)__builtin_ctz(layers) : 0;
	depgraph_free(&dg);
	return rc;
}

int cdg_check_layer_with(const struct fabric *f, const struct cdg_mix *m, unsigned layer,
			 int (*extra)(void *arg, struct depgraph *g), void *arg, struct cdg_report *r)
{
	return cdg_check_layers_with(f, m, 1u << layer, extra, arg, r);
}

int cdg_check_layer(const struct fabric *f, const struct routing_tables *t, unsigned layer,
		    struct cdg_report *r)
{
	struct cdg_mix m = cdg_mix_of(t);
	return cdg_check_layer_with(f, &m, layer, NULL, NULL, r);
}

int cdg_check_mix(const struct fabric *f, const struct cdg_mix *m, struct cdg_report *r)
{
	struct cdg_report sum = { 0 };
	unsigned layers = 1;
	for (unsigned k = 0; k < m->nsl; k++)
		if (m->sl[k]->layers > layers)
			layers = m->sl[k]->layers;
	for (unsigned l = 0; l < layers; l++) {
		if (cdg_check_layer_with(f, m, l, NULL, NULL, r) < 0)
			return -1;
		if (r->cycle_len)
			return 0;
		sum.channels += r->channels;
		sum.dependencies += r->dependencies;
	}
	*r = sum;
	return 0;
}

int cdg_check(const struct fabric *f, const struct routing_tables *t, struct cdg_report *r)
{
	struct cdg_mix m = cdg_mix_of(t);
	return cdg_check_mix(f, &m, r);
}

bool cdg_lid_uses(const struct routing_tables *t, uint16_t lid, const struct cdg_channel *a,
		  const struct cdg_channel *b)
{
	return routing_lft_entry(t, a->node, lid) == a->port && routing_next_switch(a->node, a->port) == b->node &&
	       routing_lft_entry(t, b->node, lid) == b->port;
}

void cdg_cycle_text(const struct cdg_report *r, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i <= r->cycle_len && r->cycle_len && off < len; i++) {
		const struct cdg_channel *c = &r->cycle[i % r->cycle_len];
		off += (size_t)snprintf(buf + off, len - off, "%s%s[%u]", i ? " -> " : "", c->node->desc, c->port);
		if (r->per_vl && off < len)
			off += (size_t)snprintf(buf + off, len - off, "/VL%u", c->vl);
	}
}
