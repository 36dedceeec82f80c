/*
 * DOC: channel dependency graphs
 *
 * Channels are numbered base[node index] + port. A dependency (a, pa) ->
 * (b, pb) is the turn "in on the port facing a, out on pb" at b, so each
 * node keeps a bit matrix of its turns: adding one is a bit set, however
 * many destinations repeat it (most do), and a multipath switch adds a
 * whole row of out-ports at once. The check turns the bits into a
 * sorted CSR adjacency (a counting sort: the bits come in order); an
 * iterative three-colour DFS finds a cycle and reports it in order. A
 * graph over VLs has nvl channels per port, and its turn matrices a row
 * and a bit per (port, VL).
 */
#include "routing/depgraph.h"

#include <stdlib.h>
#include <string.h>

int depgraph_init_vls(struct depgraph *g, const struct fabric *f, unsigned nvl)
{
	memset(g, 0, sizeof(*g));
	g->f = f;
	g->nvl = nvl;
	g->base = malloc((f->nnodes + 1) * sizeof(*g->base));
	g->turns = calloc(f->nnodes + 1, sizeof(*g->turns));
	if (!g->base || !g->turns)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		g->base[i] = g->nch;
		g->nch += (size_t)f->nodes[i]->nports + 1;
	}
	g->nch *= nvl;
	return 0;
}

int depgraph_init(struct depgraph *g, const struct fabric *f)
{
	return depgraph_init_vls(g, f, 1);
}

/* Words in one row of b's turn matrix: a bit per (port, VL). */
static size_t row_words(const struct depgraph *g, const struct node *b)
{
	return (((size_t)b->nports + 1) * g->nvl + 63) / 64;
}

/* Words in b's whole turn matrix: a row per (port, VL). */
static size_t matrix_words(const struct depgraph *g, const struct node *b)
{
	return ((size_t)b->nports + 1) * g->nvl * row_words(g, b);
}

void depgraph_free(struct depgraph *g)
{
	for (size_t i = 0; g->turns && i < g->f->nnodes; i++)
		free(g->turns[i]);
	free(g->turns);
	free(g->base);
	free(g->e);
	memset(g, 0, sizeof(*g));
}

int depgraph_copy(struct depgraph *dst, const struct depgraph *src)
{
	if (depgraph_init_vls(dst, src->f, src->nvl) < 0)
		goto fail;
	for (size_t i = 0; i < src->f->nnodes; i++) {
		const struct node *b = src->f->nodes[i];
		size_t words = matrix_words(src, b);
		if (!src->turns[i])
			continue;
		dst->turns[i] = malloc(words * sizeof(**dst->turns));
		if (!dst->turns[i])
			goto fail;
		memcpy(dst->turns[i], src->turns[i], words * sizeof(**dst->turns));
	}
	dst->used = src->used;
	return 0;
fail:
	depgraph_free(dst);
	return -1;
}

/* Node b's turn matrix, allocated on first use; NULL on allocation failure. */
static uint64_t *turns_of(struct depgraph *g, const struct node *b)
{
	uint64_t **t = &g->turns[b->index];
	if (!*t)
		*t = calloc(matrix_words(g, b), sizeof(**t));
	return *t;
}

int depgraph_merge(struct depgraph *dst, const struct depgraph *src)
{
	for (size_t i = 0; i < src->f->nnodes; i++) {
		const struct node *b = src->f->nodes[i];
		if (!src->turns[i])
			continue;
		uint64_t *t = turns_of(dst, b);
		if (!t)
			return -1;
		for (size_t w = 0; w < matrix_words(src, b); w++) {
			dst->used += (size_t)__builtin_popcountll(src->turns[i][w] & ~t[w]);
			t[w] |= src->turns[i][w];
		}
	}
	return 0;
}

int depgraph_add_vl(struct depgraph *g, const struct node *a, uint8_t pa, uint8_t va, const struct node *b,
		    uint8_t pb, uint8_t vb)
{
	uint64_t *t = turns_of(g, b);
	if (!t)
		return -1;
	size_t row = (size_t)a->ports[pa].remote_port * g->nvl + va, col = (size_t)pb * g->nvl + vb;
	uint64_t *word = t + row * row_words(g, b) + col / 64, bit = 1ull << (col % 64);
	if (!(*word & bit)) {
		*word |= bit;
		g->used++;
	}
	return 0;
}

int depgraph_add(struct depgraph *g, const struct node *a, uint8_t pa, const struct node *b, uint8_t pb)
{
	return depgraph_add_vl(g, a, pa, 0, b, pb, 0);
}

int depgraph_add_turns(struct depgraph *g, const struct node *b, uint8_t in_port, const uint64_t *out)
{
	uint64_t *t = turns_of(g, b);
	if (!t)
		return -1;
	uint64_t *row = t + in_port * DEPGRAPH_WORDS(b);
	for (size_t w = 0; w < DEPGRAPH_WORDS(b); w++) {
		g->used += (size_t)__builtin_popcountll(out[w] & ~row[w]);
		row[w] |= out[w];
	}
	return 0;
}

static struct cdg_channel channel_of(const struct depgraph *g, size_t id)
{
	size_t lo = 0, hi = g->f->nnodes, vl = id % g->nvl;
	id /= g->nvl;
	while (hi - lo > 1) {	/* base[] is increasing: find the node owning id */
		size_t mid = (lo + hi) / 2;
		if (g->base[mid] <= id)
			lo = mid;
		else
			hi = mid;
	}
	return (struct cdg_channel){ g->f->nodes[lo], (uint8_t)(id - g->base[lo]), (uint8_t)vl };
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

/*
 * Calls fn(from, to, arg) for every dependency, node by node, row by row,
 * column by column: for one from channel (its turns are all at the node
 * it leads to, in one row) the to channels come in increasing order.
 */
static void each_edge(const struct depgraph *g, void (*fn)(size_t from, size_t to, void *arg), void *arg)
{
	for (size_t i = 0; i < g->f->nnodes; i++) {
		const struct node *b = g->f->nodes[i];
		size_t rows = ((size_t)b->nports + 1) * g->nvl, words = row_words(g, b);
		for (size_t row = 0; g->turns[i] && row < rows; row++) {
			const struct port *p = &b->ports[row / g->nvl];
			if (!p->remote)	/* port 0 or nothing cabled: no turns come in there */
				continue;
			size_t from = (g->base[p->remote->index] + p->remote_port) * g->nvl + row % g->nvl;
			for (size_t w = 0; w < words; w++)
				for (uint64_t bits = g->turns[i][row * words + w]; bits; bits &= bits - 1)
					fn(from, g->base[i] * g->nvl + w * 64 + (size_t)__builtin_ctzll(bits), arg);
		}
	}
}

static void count_edge(size_t from, size_t to, void *arg)
{
	(void)to;
	((size_t *)arg)[from + 1]++;
}

struct fill {
	struct dep_edge *e;
	size_t *next;		/* per from channel: where its next edge goes */
};

static void fill_edge(size_t from, size_t to, void *arg)
{
	struct fill *fl = arg;
	fl->e[fl->next[from]++] = (struct dep_edge){ (uint32_t)from, (uint32_t)to };
}

/*
 * The edges sorted by (from, to) into g->e and the CSR index start[] by a
 * counting sort: each from channel's edges come in increasing order.
 */
static int build_csr(struct depgraph *g, size_t *start)
{
	size_t *next = malloc((g->nch + 1) * sizeof(*next));
	if (!next)
		return -1;
	each_edge(g, count_edge, start);
	for (size_t c = 0; c < g->nch; c++)
		start[c + 1] += start[c];
	memcpy(next, start, (g->nch + 1) * sizeof(*next));
	struct fill fl = { g->e, next };
	each_edge(g, fill_edge, &fl);
	g->ne = start[g->nch];
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
	r->per_vl = g->nvl > 1;
	r->channels = 0;
	r->cycle_len = 0;
	g->e = malloc((g->used + 1) * sizeof(*g->e));
	start = calloc(g->nch + 1, sizeof(*start));
	used = calloc(g->nch + 1, 1);
	if (!g->e || !start || !used || build_csr(g, start) < 0)
		goto done;
	r->dependencies = g->ne;
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
