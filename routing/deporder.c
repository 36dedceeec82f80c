/*
 * DOC: a topological order kept as dependencies come in
 *
 * One-way search (as Marchetti-Spaccamela, Nanni and Rohnert's dynamic
 * order): each channel has a place, a number, and every dependency runs
 * from a lower place to a higher one. A dependency u -> v with place[u]
 * below place[v] keeps that true. One against it closes a cycle exactly
 * when v reaches u, and any path from v to u keeps below u's place, so
 * the forward search from v looks at channels placed below u only:
 * meeting u is the cycle. Otherwise the channels it met (v and what v
 * reaches below u) move, in their old order, just above u: between u's
 * place and the lowest place of anything they lead to beyond. Channels
 * before them stay before, what they lead to stays after, so the order
 * holds with u -> v in it. Places are numbers with room between them;
 * when a gap is too narrow to split (steps under min_step), every
 * channel is placed again at 0, 1, 2, ... in its order.
 *
 * A batch of dependencies is already in the graph when it comes: they are
 * taken in one after the other, and a search skips those not taken in
 * yet, so that each step sees the graph the order holds for plus one
 * dependency. A batch that closes a cycle leaves the order holding for
 * the graph without the batch (some of it taken in, which removing the
 * batch cannot make wrong).
 */
#include "routing/deporder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Channel x's row of dependencies (the turns at the node it leads to), and that node; NULL: none. */
static const uint64_t *succ_row(const struct deporder *o, uint32_t x, const struct node **b)
{
	const struct depgraph *g = o->g;
	const struct node *a = g->f->nodes[o->node[x]];
	const struct port *p = &a->ports[x - g->base[a->index]];
	*b = p->remote;
	if (!*b || !g->turns[(*b)->index])
		return NULL;
	return g->turns[(*b)->index] + (size_t)p->remote_port * DEPGRAPH_WORDS(*b);
}

/* The channel of bit col of a row at node b. */
static uint32_t channel_at(const struct deporder *o, const struct node *b, size_t col)
{
	return (uint32_t)(o->g->base[b->index] + col);
}

static int by_edge(const void *x, const void *y)
{
	const struct dep_edge *a = x, *b = y;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

/* Whether x -> y is one of the batch's dependencies after the k-th, not taken in yet. */
static bool pending(const struct deporder *o, size_t k, uint32_t x, uint32_t y)
{
	if (!o->pending_out[x])
		return false;
	struct dep_edge key = { x, y };
	return bsearch(&key, o->pending + k + 1, o->npending - k - 1, sizeof(key), by_edge) != NULL;
}

/* Kahn's order of g: places 0, 1, 2, ...; 0, or 1 when some channels are left on a cycle. */
static int first_order(struct deporder *o)
{
	uint32_t *indeg = o->stack, *queue = o->met;
	size_t head = 0, tail = 0, placed = 0;
	memset(indeg, 0, o->nch * sizeof(*indeg));
	for (uint32_t x = 0; x < o->nch; x++) {
		const struct node *b;
		const uint64_t *row = succ_row(o, x, &b);
		for (size_t w = 0; row && w < DEPGRAPH_WORDS(b); w++)
			for (uint64_t bits = row[w]; bits; bits &= bits - 1)
				indeg[channel_at(o, b, w * 64 + (size_t)__builtin_ctzll(bits))]++;
	}
	for (uint32_t x = 0; x < o->nch; x++)
		if (!indeg[x])
			queue[tail++] = x;
	while (head < tail) {
		uint32_t x = queue[head++];
		o->place[x] = (double)placed++;
		const struct node *b;
		const uint64_t *row = succ_row(o, x, &b);
		for (size_t w = 0; row && w < DEPGRAPH_WORDS(b); w++)
			for (uint64_t bits = row[w]; bits; bits &= bits - 1) {
				uint32_t y = channel_at(o, b, w * 64 + (size_t)__builtin_ctzll(bits));
				if (!--indeg[y])
					queue[tail++] = y;
			}
	}
	return placed == o->nch ? 0 : 1;
}

int deporder_init(struct deporder *o, const struct depgraph *g)
{
	memset(o, 0, sizeof(*o));
	o->g = g;
	o->nch = g->nch;
	o->min_step = DEPORDER_MIN_STEP;
	size_t n = o->nch + 1;
	o->place = malloc(n * sizeof(*o->place));
	o->node = malloc(n * sizeof(*o->node));
	o->mark = calloc(n, sizeof(*o->mark));
	o->met = malloc(n * sizeof(*o->met));
	o->stack = malloc(n * sizeof(*o->stack));
	o->pending_out = calloc(n, sizeof(*o->pending_out));
	if (g->nvl != 1 || !o->place || !o->node || !o->mark || !o->met || !o->stack || !o->pending_out) {
		deporder_free(o);
		return -1;
	}
	for (size_t i = 0; i < g->f->nnodes; i++)
		for (unsigned p = 0; p <= g->f->nodes[i]->nports; p++)
			o->node[g->base[i] + p] = (uint32_t)i;
	if (first_order(o)) {
		deporder_free(o);
		return 1;
	}
	return 0;
}

/*
 * The channels v reaches placed below u, into met[] (v first): true when
 * u is among what it reaches. *beyond: the lowest place of a channel
 * they lead to above u (INFINITY: none).
 */
static bool search_forward(struct deporder *o, size_t k, uint32_t v, uint32_t u, double *beyond)
{
	double ub = o->place[u];
	size_t depth = 0;
	o->search++;
	o->nmet = 0;
	*beyond = INFINITY;
	o->mark[v] = o->search;
	o->stack[depth++] = v;
	o->met[o->nmet++] = v;
	while (depth) {
		uint32_t x = o->stack[--depth];
		const struct node *b;
		const uint64_t *row = succ_row(o, x, &b);
		for (size_t w = 0; row && w < DEPGRAPH_WORDS(b); w++)
			for (uint64_t bits = row[w]; bits; bits &= bits - 1) {
				uint32_t y = channel_at(o, b, w * 64 + (size_t)__builtin_ctzll(bits));
				if (o->mark[y] == o->search || pending(o, k, x, y))
					continue;
				if (y == u)
					return true;
				if (o->place[y] > ub) {
					*beyond = o->place[y] < *beyond ? o->place[y] : *beyond;
					continue;
				}
				o->mark[y] = o->search;
				o->stack[depth++] = y;
				o->met[o->nmet++] = y;
			}
	}
	return false;
}

static int by_place(const void *x, const void *y, void *arg)
{
	const double *place = arg;
	double a = place[*(const uint32_t *)x], b = place[*(const uint32_t *)y];
	return (a > b) - (a < b);
}

/* Every channel placed again at 0, 1, 2, ... in its order (the gaps ran out). */
static void spread(struct deporder *o)
{
	for (uint32_t x = 0; x < o->nch; x++)
		o->stack[x] = x;
	qsort_r(o->stack, o->nch, sizeof(*o->stack), by_place, o->place);
	for (size_t i = 0; i < o->nch; i++)
		o->place[o->stack[i]] = (double)i;
}

/*
 * Moves met[] (in their old order) between u's place and beyond: false,
 * unless forced, when that puts them less than min_step apart.
 */
static bool move_above(struct deporder *o, uint32_t u, double beyond, bool force)
{
	double lo = o->place[u], hi = isinf(beyond) ? lo + 1 : beyond;
	double step = (hi - lo) / ((double)o->nmet + 1);
	if (step < o->min_step && !force)
		return false;
	qsort_r(o->met, o->nmet, sizeof(*o->met), by_place, o->place);
	for (size_t i = 0; i < o->nmet; i++)
		o->place[o->met[i]] = lo + step * (double)(i + 1);
	return true;
}

/* Takes the batch's k-th dependency in: false when it closes a cycle. */
static bool take_in(struct deporder *o, size_t k)
{
	uint32_t u = o->pending[k].from, v = o->pending[k].to;
	double beyond;
	if (o->place[u] < o->place[v])
		return true;
	if (u == v || search_forward(o, k, v, u, &beyond))
		return false;
	if (!move_above(o, u, beyond, false)) {
		spread(o);	/* places change, the order does not: search again for beyond */
		search_forward(o, k, v, u, &beyond);
		move_above(o, u, beyond, true);	/* whole numbers a gap apart: room for every channel */
	}
	return true;
}

int deporder_admit(struct deporder *o, const struct dep_edge *e, size_t n)
{
	if (!n)		/* a LID whose paths add nothing new */
		return 0;
	if (n > o->cap) {
		struct dep_edge *more = realloc(o->pending, n * sizeof(*more));
		if (!more)
			return -1;
		o->pending = more;
		o->cap = n;
	}
	memcpy(o->pending, e, n * sizeof(*e));
	qsort(o->pending, n, sizeof(*e), by_edge);
	o->npending = n;
	for (size_t k = 0; k < n; k++)
		o->pending_out[o->pending[k].from]++;
	int rc = 0;
	for (size_t k = 0; k < n; k++) {
		o->pending_out[o->pending[k].from]--;
		if (!rc && !take_in(o, k))
			rc = 1;	/* the rest only leave the pending counts */
	}
	o->npending = 0;
	return rc;
}

void deporder_free(struct deporder *o)
{
	free(o->place);
	free(o->node);
	free(o->mark);
	free(o->met);
	free(o->stack);
	free(o->pending);
	free(o->pending_out);
	memset(o, 0, sizeof(*o));
}
