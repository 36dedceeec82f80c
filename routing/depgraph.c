/*
 * DOC: channel dependency graphs
 *
 * Channels are numbered base[node index] + port. Edges go into a hash set
 * as they are found (many destinations share most of them), then into a
 * sorted CSR adjacency; an iterative three-colour DFS finds a cycle and
 * reports it in order.
 */
#include "routing/depgraph.h"

#include <stdlib.h>
#include <string.h>

#define SLOT_EMPTY UINT64_MAX

int depgraph_init(struct depgraph *g, const struct fabric *f)
{
	memset(g, 0, sizeof(*g));
	g->f = f;
	if (!(g->base = malloc((f->nnodes + 1) * sizeof(*g->base))))
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		g->base[i] = g->nch;
		g->nch += (size_t)f->nodes[i]->nports + 1;
	}
	return 0;
}

void depgraph_free(struct depgraph *g)
{
	free(g->base);
	free(g->slot);
	free(g->e);
	memset(g, 0, sizeof(*g));
}

static size_t slot_of(uint64_t key, size_t nslots)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (nslots - 1);
}

static int grow(struct depgraph *g)
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

int depgraph_add(struct depgraph *g, const struct node *a, uint8_t pa, const struct node *b, uint8_t pb)
{
	if (2 * (g->used + 1) > g->nslots && grow(g) < 0)
		return -1;
	uint64_t key = (uint64_t)(g->base[a->index] + pa) << 32 | (uint32_t)(g->base[b->index] + pb);
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

static int cmp_edge(const void *a, const void *b)
{
	const struct dep_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static struct cdg_channel channel_of(const struct depgraph *g, size_t id)
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
static int find_cycle(const struct depgraph *g, const size_t *start, struct cdg_report *r)
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

int depgraph_check(struct depgraph *g, struct cdg_report *r)
{
	size_t *start = NULL;
	uint8_t *used = NULL;
	int rc = -1;
	free(g->e);
	g->ne = 0;
	if (!(g->e = malloc((g->used + 1) * sizeof(*g->e))))
		return -1;
	for (size_t i = 0; i < g->nslots; i++)
		if (g->slot[i] != SLOT_EMPTY)
			g->e[g->ne++] = (struct dep_edge){ (uint32_t)(g->slot[i] >> 32), (uint32_t)g->slot[i] };
	qsort(g->e, g->ne, sizeof(*g->e), cmp_edge);
	r->dependencies = g->ne;
	r->channels = 0;
	r->cycle_len = 0;
	start = calloc(g->nch + 1, sizeof(*start));
	used = calloc(g->nch + 1, 1);
	if (!start || !used)
		goto done;
	for (size_t i = 0; i < g->ne; i++)
		start[g->e[i].from + 1]++;
	for (size_t c = 0; c < g->nch; c++)
		start[c + 1] += start[c];
	/* a channel is in use if it has a dependency either way */
	for (size_t i = 0; i < g->ne; i++)
		used[g->e[i].from] = used[g->e[i].to] = 1;
	for (size_t c = 0; c < g->nch; c++)
		r->channels += used[c];
	rc = find_cycle(g, start, r);
done:
	free(used);
	free(start);
	return rc;
}
