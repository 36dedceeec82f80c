/*
 * DOC: dynamic topological order of a dependency graph
 *
 * Pearce and Kelly (2006): the order starts as a DFS's reverse finishing
 * order. A dependency u -> v with u before v keeps it. One with v before
 * u: search forward from v over channels placed before u (meeting u is a
 * cycle) and backward from u over channels placed after v; the places of
 * both sets are then handed out again, the backward set first, each set
 * in its old order. Taking dependencies out never breaks an order, so
 * the caller may drop what it added and keep the order.
 */
#include "routing/topo_order.h"

#include <stdlib.h>
#include <string.h>

static uint32_t channel_id(const struct depgraph *g, const struct node *n, unsigned port)
{
	return (uint32_t)(g->base[n->index] + port);
}

void topo_order_free(struct topo_order *o)
{
	free(o->ord);
	free(o->seen);
	free(o->stack);
	free(o->fwd);
	free(o->bwd);
	free(o->places);
	free(o->node_of);
	free(o->port_of);
	memset(o, 0, sizeof(*o));
}

int topo_order_init(struct topo_order *o, struct depgraph *g)
{
	struct cdg_report r;
	size_t n = g->nch + 1;
	*o = (struct topo_order){ .g = g, .ord = malloc(n * sizeof(*o->ord)), .seen = calloc(n, sizeof(*o->seen)),
				  .stack = malloc(n * sizeof(*o->stack)), .fwd = malloc(n * sizeof(*o->fwd)),
				  .bwd = malloc(n * sizeof(*o->bwd)), .places = malloc(2 * n * sizeof(*o->places)),
				  .node_of = calloc(n, sizeof(*o->node_of)), .port_of = calloc(n, sizeof(*o->port_of)) };
	if (!o->ord || !o->seen || !o->stack || !o->fwd || !o->bwd || !o->places || !o->node_of || !o->port_of ||
	    depgraph_post_order(g, o->ord, &r) < 0)
		return -1;
	if (r.cycle_len)
		return 1;
	for (size_t i = 0; i < g->f->nnodes; i++)
		for (unsigned p = 0; p <= g->f->nodes[i]->nports; p++) {
			o->node_of[channel_id(g, g->f->nodes[i], p)] = g->f->nodes[i];
			o->port_of[channel_id(g, g->f->nodes[i], p)] = (uint8_t)p;
		}
	uint32_t done = 0, next;
	for (size_t c = 0; c < g->nch; c++)
		done += o->ord[c] != 0;
	next = done;
	for (size_t c = 0; c < g->nch; c++)	/* finished last goes first; channels never met (no dependency) after */
		o->ord[c] = o->ord[c] ? done - o->ord[c] : next++;
	return 0;
}

/*
 * Forward from v over channels placed before the limit: true when it
 * meets u (a cycle). What it meets goes into fwd.
 */
static bool search_forward(struct topo_order *o, uint32_t v, uint32_t u)
{
	const struct depgraph *g = o->g;
	uint32_t limit = o->ord[u];
	size_t top = 0;
	o->nfwd = 0;
	o->seen[v] = o->search;
	o->stack[top++] = v;
	while (top) {
		uint32_t c = o->stack[--top];
		const struct node *n = o->node_of[c], *b = n ? n->ports[o->port_of[c]].remote : NULL;
		o->fwd[o->nfwd++] = (uint64_t)o->ord[c] << 32 | c;
		if (!b || !g->turns[b->index])
			continue;
		const uint64_t *row = g->turns[b->index] + n->ports[o->port_of[c]].remote_port * DEPGRAPH_WORDS(b);
		for (size_t w = 0; w < DEPGRAPH_WORDS(b); w++)
			for (uint64_t bits = row[w]; bits; bits &= bits - 1) {
				uint32_t next = channel_id(g, b, (unsigned)(w * 64 + (size_t)__builtin_ctzll(bits)));
				if (next == u)
					return true;
				if (o->seen[next] != o->search && o->ord[next] < limit) {
					o->seen[next] = o->search;
					o->stack[top++] = next;
				}
			}
	}
	return false;
}

/* Backward from u over channels placed after v's place; what it meets goes into bwd. */
static void search_backward(struct topo_order *o, uint32_t u, uint32_t v)
{
	const struct depgraph *g = o->g;
	uint32_t limit = o->ord[v];
	size_t top = 0;
	o->nbwd = 0;
	o->seen[u] = o->search;
	o->stack[top++] = u;
	while (top) {
		uint32_t c = o->stack[--top];
		const struct node *b = o->node_of[c];	/* c = (b, pb): who turns into pb at b waits for it */
		unsigned pb = o->port_of[c];
		o->bwd[o->nbwd++] = (uint64_t)o->ord[c] << 32 | c;
		if (!b || !g->turns[b->index])
			continue;
		for (unsigned q = 0; q <= b->nports; q++) {
			const uint64_t *row = g->turns[b->index] + q * DEPGRAPH_WORDS(b);
			const struct node *a = b->ports[q].remote;
			if (!a || !(row[pb / 64] >> (pb % 64) & 1))
				continue;
			uint32_t prev = channel_id(g, a, b->ports[q].remote_port);
			if (o->seen[prev] != o->search && o->ord[prev] > limit) {
				o->seen[prev] = o->search;
				o->stack[top++] = prev;
			}
		}
	}
}

static int by_place(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

int topo_order_insert(struct topo_order *o, const struct node *a, uint8_t pa, const struct node *b, uint8_t pb)
{
	uint32_t u = channel_id(o->g, a, pa), v = channel_id(o->g, b, pb);
	if (u == v)
		return 1;
	if (o->ord[u] < o->ord[v])
		return 0;
	o->search++;
	if (search_forward(o, v, u))
		return 1;
	o->search++;
	search_backward(o, u, v);
	qsort(o->fwd, o->nfwd, sizeof(*o->fwd), by_place);
	qsort(o->bwd, o->nbwd, sizeof(*o->bwd), by_place);
	size_t n = 0, i = 0, j = 0;
	while (i < o->nbwd || j < o->nfwd)	/* the places both sets hold, in order */
		o->places[n++] = j >= o->nfwd || (i < o->nbwd && o->bwd[i] < o->fwd[j]) ? (uint32_t)(o->bwd[i++] >> 32)
											 : (uint32_t)(o->fwd[j++] >> 32);
	n = 0;
	for (i = 0; i < o->nbwd; i++)
		o->ord[(uint32_t)o->bwd[i]] = o->places[n++];
	for (j = 0; j < o->nfwd; j++)
		o->ord[(uint32_t)o->fwd[j]] = o->places[n++];
	return 0;
}
