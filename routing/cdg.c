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
 * Walks start at the switches that have CAs, once per switch. Edges go
 * into a hash set as they are found (many destinations share most of
 * them), then into a sorted CSR adjacency; an iterative three-colour DFS
 * finds a cycle.
 */
#include "routing/cdg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct edge {
	uint32_t from, to;
};

#define SLOT_EMPTY UINT64_MAX

struct graph {
	const struct fabric *f;
	size_t *base;		/* channel id = base[node index] + port */
	size_t nch;
	const struct node **entry;	/* switches with CAs: where traffic enters */
	size_t nentry;
	uint32_t *mark;		/* per node: the walk generation that passed it */
	uint32_t generation;
	uint64_t *slot;		/* hash set of from << 32 | to */
	size_t nslots, used;
	struct edge *e;		/* the set's edges, sorted */
	size_t ne;
};

static size_t slot_of(uint64_t key, size_t nslots)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (nslots - 1);
}

static int grow(struct graph *g)
{
	size_t n = g->nslots ? g->nslots * 2 : 1 << 16;
	uint64_t *slot = malloc(n * sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < n; i++)
		slot[i] = SLOT_EMPTY;
	for (size_t i = 0; i < g->nslots; i++) {
		if (g->slot[i] == SLOT_EMPTY)
			continue;
		size_t j = slot_of(g->slot[i], n);
		while (slot[j] != SLOT_EMPTY)
			j = (j + 1) & (n - 1);
		slot[j] = g->slot[i];
	}
	free(g->slot);
	g->slot = slot;
	g->nslots = n;
	return 0;
}

static int add_edge(struct graph *g, uint32_t from, uint32_t to)
{
	if (2 * (g->used + 1) > g->nslots && grow(g) < 0)
		return -1;
	uint64_t key = (uint64_t)from << 32 | to;
	size_t j = slot_of(key, g->nslots);
	while (g->slot[j] != SLOT_EMPTY) {
		if (g->slot[j] == key)
			return 0;
		j = (j + 1) & (g->nslots - 1);
	}
	g->slot[j] = key;
	g->used++;
	return 0;
}

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
			    add_edge(g, (uint32_t)(g->base[sw->index] + out),
				     (uint32_t)(g->base[next->index] + next_out)) < 0)
				return -1;
			sw = next;
		}
	}
	return 0;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static struct cdg_channel channel_of(const struct graph *g, size_t id)
{
	size_t lo = 0, hi = g->f->nnodes;
	while (hi - lo > 1) {	/* base[] is increasing: find the node owning id */
		size_t mid = (lo + hi) / 2;
		if (g->base[mid] <= id)
			lo = mid;
		else
			hi = mid;
	}
	return (struct cdg_channel){ g->f->nodes[lo], (uint8_t)(id - g->base[lo]) };
}

/* Iterative DFS over the CSR graph; fills r->cycle with the first cycle found. */
static int find_cycle(const struct graph *g, const size_t *start, struct cdg_report *r)
{
	uint8_t *colour = calloc(g->nch, 1);	/* 0 new, 1 on stack, 2 done */
	size_t *stack = malloc(g->nch * sizeof(*stack)), *next = malloc(g->nch * sizeof(*next));
	if (!colour || !stack || !next) {
		free(colour);
		free(stack);
		free(next);
		return -1;
	}
	for (size_t root = 0; root < g->nch && !r->cycle_len; root++) {
		if (colour[root] || start[root] == start[root + 1])
			continue;
		size_t depth = 0;
		stack[depth] = root;
		next[depth++] = start[root];
		colour[root] = 1;
		while (depth && !r->cycle_len) {
			size_t v = stack[depth - 1];
			if (next[depth - 1] == start[v + 1]) {
				colour[v] = 2;
				depth--;
				continue;
			}
			size_t w = g->e[next[depth - 1]++].to;
			if (colour[w] == 1) {	/* back edge: the stack from w to v is a cycle */
				size_t from = depth;
				while (stack[from - 1] != w)
					from--;
				for (size_t k = from - 1; k < depth && r->cycle_len < CDG_MAX_CYCLE; k++)
					r->cycle[r->cycle_len++] = channel_of(g, stack[k]);
			} else if (!colour[w]) {
				colour[w] = 1;
				stack[depth] = w;
				next[depth++] = start[w];
			}
		}
	}
	free(colour);
	free(stack);
	free(next);
	return 0;
}

/* Switches with a CA attached, each once: where CA traffic enters. */
static int find_entries(struct graph *g)
{
	const struct fabric *f = g->f;
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

/* The hash set's edges into g->e, sorted. */
static int collect_edges(struct graph *g)
{
	if (!(g->e = malloc((g->used + 1) * sizeof(*g->e))))
		return -1;
	for (size_t i = 0; i < g->nslots; i++)
		if (g->slot[i] != SLOT_EMPTY)
			g->e[g->ne++] = (struct edge){ (uint32_t)(g->slot[i] >> 32), (uint32_t)g->slot[i] };
	qsort(g->e, g->ne, sizeof(*g->e), cmp_edge);
	return 0;
}

int cdg_check_layer(const struct fabric *f, const struct routing_tables *t, unsigned layer,
		    struct cdg_report *r)
{
	struct graph g = { .f = f };
	size_t *start = NULL;
	uint8_t *used = NULL;
	int rc = -1;
	memset(r, 0, sizeof(*r));
	r->vl = layer;
	g.base = malloc((f->nnodes + 1) * sizeof(*g.base));
	g.mark = calloc(f->nnodes + 1, sizeof(*g.mark));
	if (!g.base || !g.mark || find_entries(&g) < 0)
		goto done;
	for (size_t i = 0; i < f->nnodes; i++) {
		g.base[i] = g.nch;
		g.nch += (size_t)f->nodes[i]->nports + 1;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++)
			if (n->ports[p].lid && (n->type == NODE_SWITCH ? p == 0 : p > 0) &&
			    n->ports[p].lid <= t->max_lid && t->sl[n->ports[p].lid] == layer &&
			    add_destination(&g, t, n->ports[p].lid) < 0)
				goto done;
	}
	if (collect_edges(&g) < 0)
		goto done;
	r->dependencies = g.ne;
	start = calloc(g.nch + 1, sizeof(*start));
	used = calloc(g.nch + 1, 1);
	if (!start || !used)
		goto done;
	for (size_t i = 0; i < g.ne; i++)
		start[g.e[i].from + 1]++;
	for (size_t c = 0; c < g.nch; c++)
		start[c + 1] += start[c];
	/* a channel is in use if it has a dependency either way */
	for (size_t i = 0; i < g.ne; i++)
		used[g.e[i].from] = used[g.e[i].to] = 1;
	for (size_t c = 0; c < g.nch; c++)
		r->channels += used[c];
	rc = find_cycle(&g, start, r);
done:
	free(used);
	free(start);
	free(g.mark);
	free(g.entry);
	free(g.slot);
	free(g.base);
	free(g.e);
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
