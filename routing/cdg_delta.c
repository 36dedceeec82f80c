/*
 * DOC: the dependencies a change of some entries adds
 *
 * A transition step goes from a state (table A) to A with some entries
 * changed (B); its graph is A's plus the mixture's extra dependencies at
 * the destinations that change. Walking those destinations' mixture over
 * the whole fabric costs as much as building the graph; but for a
 * destination most of the mixture is A's own paths. A dependency
 * (x, o) -> (y, o') of the mixture (x reached by the traffic, o an entry
 * of x in A or B, o' one of y's) is new only if x is not on A's paths
 * (its reach, R), or x changed, or y changed. So the walk starts at the
 * changed switches on R and adds, for each, what its R predecessors
 * (whose A entry leads to it) send into it; from there it follows both
 * entries and goes on through every switch not on R. A switch on R
 * reached that way adds its turns into the next switch, and the rest of
 * its path is A's unless it meets a changed switch, which started a walk
 * of its own. No switch off R is reached but through a changed switch on
 * R, since R is closed under A's entries.
 */
#include "routing/cdg_delta.h"

#include <stdlib.h>
#include <string.h>

#include "routing/shares.h"

struct cdg_reach {
	size_t words;		/* per LID: a bit per node */
	uint16_t max_lid;
	uint64_t **row;		/* [lid]: NULL for a LID not in the set */
	uint64_t *bits;
};

static inline bool reached(const uint64_t *row, const struct node *n)
{
	return row[n->index / 64] >> (n->index % 64) & 1;
}

/* Marks n in row; whether it was not marked before. */
static bool mark(uint64_t *row, const struct node *n)
{
	if (reached(row, n))
		return false;
	row[n->index / 64] |= 1ull << (n->index % 64);
	return true;
}

/* Marks in row the switches t's entries lead through from entry[0..nentry) towards lid. */
static void reach_lid(const struct routing_tables *t, uint16_t lid, const struct node *const *entry, size_t nentry,
		      const struct node **stack, uint64_t *row)
{
	size_t top = 0;
	for (size_t i = 0; i < nentry; i++)
		if (mark(row, entry[i]))
			stack[top++] = entry[i];
	while (top) {
		const struct node *sw = stack[--top];
		const struct node *next = routing_next_switch(sw, routing_next_hop(t, sw, lid));
		if (next && mark(row, next))
			stack[top++] = next;
	}
}

/* The LIDs of one reach shared out among the CPUs: each share walks its own with a stack of its own. */
struct reach_shares {
	const struct routing_tables *t;
	struct cdg_reach *r;
	const uint16_t *lid;
	const struct node *const *entry;
	size_t nentry, nnodes;
	bool failed[SHARES_MAX];
};

static void reach_share(void *arg, size_t k, size_t from, size_t to)
{
	struct reach_shares *s = arg;
	const struct node **stack = malloc((s->nnodes + 1) * sizeof(*stack));
	s->failed[k] = !stack;
	for (size_t i = from; stack && i < to; i++)
		reach_lid(s->t, s->lid[i], s->entry, s->nentry, stack, s->r->row[s->lid[i]]);
	free(stack);
}

/* Fewer LIDs than this are walked by one thread: starting another costs more than it saves. */
#define REACH_SHARE_MIN_LIDS 64

/* Walks r's rows of lid[0..nlids) (cleared) under t, the CPUs sharing the LIDs; -1 on allocation failure. */
static int walk_rows(const struct fabric *f, const struct routing_tables *t, struct cdg_reach *r, const uint16_t *lid,
		     size_t nlids)
{
	const struct node **entry = malloc((f->nnodes + 1) * sizeof(*entry));
	size_t nentry;
	int rc = -1;
	if (!entry || (nentry = cdg_entry_switches(f, entry)) == SIZE_MAX)
		goto done;
	struct reach_shares s = { .t = t, .r = r, .lid = lid, .entry = entry, .nentry = nentry, .nnodes = f->nnodes };
	size_t nshares = shares_count(nlids, REACH_SHARE_MIN_LIDS);
	shares_run(nshares, nlids, reach_share, &s);
	rc = 0;
	for (size_t k = 0; k < nshares; k++)
		if (s.failed[k])
			rc = -1;
done:
	free(entry);
	return rc;
}

struct cdg_reach *cdg_reach_new(const struct fabric *f, const struct routing_tables *t, const bool *lids)
{
	struct cdg_reach *r = calloc(1, sizeof(*r));
	uint16_t *lid = malloc(((size_t)t->max_lid + 1) * sizeof(*lid));
	size_t nlids = 0;
	if (!r || !lid)
		goto fail;
	r->words = f->nnodes / 64 + 1;
	r->max_lid = t->max_lid;
	for (uint32_t l = 1; l <= t->max_lid; l++)
		if (lids[l])
			lid[nlids++] = (uint16_t)l;
	r->row = calloc((size_t)t->max_lid + 1, sizeof(*r->row));
	r->bits = calloc(nlids * r->words + 1, sizeof(*r->bits));
	if (!r->row || !r->bits)
		goto fail;
	for (size_t i = 0; i < nlids; i++)
		r->row[lid[i]] = r->bits + i * r->words;
	if (walk_rows(f, t, r, lid, nlids) < 0)
		goto fail;
	free(lid);
	return r;
fail:
	free(lid);
	cdg_reach_free(r);
	return NULL;
}

int cdg_reach_refresh(struct cdg_reach *r, const struct fabric *f, const struct routing_tables *t, const bool *lids)
{
	uint16_t *lid = malloc(((size_t)r->max_lid + 1) * sizeof(*lid));
	size_t nlids = 0;
	if (!lid)
		return -1;
	for (uint32_t l = 1; l <= r->max_lid; l++)
		if (lids[l] && r->row[l]) {
			memset(r->row[l], 0, r->words * sizeof(*r->row[l]));
			lid[nlids++] = (uint16_t)l;
		}
	int rc = walk_rows(f, t, r, lid, nlids);
	free(lid);
	return rc;
}

void cdg_reach_free(struct cdg_reach *r)
{
	if (!r)
		return;
	free(r->row);
	free(r->bits);
	free(r);
}

/* One destination's walk: the mixture m, its reach under m->lft[0], the graph and the walk's marks. */
struct delta_walk {
	const struct cdg_mix *m;
	uint16_t lid;
	const uint64_t *row;
	struct depgraph *g;
	const struct node **stack;
	size_t top;
	uint32_t *mark;
	uint32_t generation;
	struct cdg_roots *roots;
};

/* sw's distinct entries for the walk's LID in the two tables; how many. */
static unsigned outs_of(const struct delta_walk *w, const struct node *sw, uint8_t out[2])
{
	out[0] = routing_next_hop(w->m->lft[0], sw, w->lid);
	out[1] = routing_next_hop(w->m->lft[1], sw, w->lid);
	return out[1] != out[0] ? 2 : 1;
}

/* Adds (x, o) -> (y, each entry of y), y the switch o leads to, and lists (x, o) among the roots. */
static int add_turns_into(struct delta_walk *w, const struct node *x, uint8_t o, const struct node *y)
{
	struct cdg_roots *r = w->roots;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct cdg_channel *v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct cdg_channel){ x, o, 0 };
	uint8_t yo[2];
	unsigned n = outs_of(w, y, yo);
	for (unsigned j = 0; j < n; j++)
		if (yo[j] && depgraph_add(w->g, x, o, y, yo[j]) < 0)
			return -1;
	return 0;
}

static void push(struct delta_walk *w, const struct node *sw)
{
	if (w->mark[sw->index] != w->generation) {
		w->mark[sw->index] = w->generation;
		w->stack[w->top++] = sw;
	}
}

/* What the switches on R whose lft[0] entry leads into s (which changed) send into it now. */
static int add_from_predecessors(struct delta_walk *w, const struct node *s)
{
	for (unsigned q = 1; q <= s->nports; q++) {
		const struct node *p = s->ports[q].remote;
		uint8_t rp = s->ports[q].remote_port;
		if (p && p->type == NODE_SWITCH && reached(w->row, p) && routing_next_hop(w->m->lft[0], p, w->lid) == rp &&
		    add_turns_into(w, p, rp, s) < 0)
			return -1;
	}
	return 0;
}

/* Follows both tables from the switches on the stack, adding each turn; stops at unchanged switches on R. */
static int walk_on(struct delta_walk *w)
{
	while (w->top) {
		const struct node *x = w->stack[--w->top];
		uint8_t xo[2];
		unsigned n = outs_of(w, x, xo);
		for (unsigned k = 0; k < n; k++) {
			const struct node *y = routing_next_switch(x, xo[k]);
			if (!y)
				continue;
			if (add_turns_into(w, x, xo[k], y) < 0)
				return -1;
			if (!reached(w->row, y))
				push(w, y);
		}
	}
	return 0;
}

static int by_lid(const void *a, const void *b)
{
	const struct cdg_change *x = a, *y = b;
	return x->lid != y->lid ? (x->lid < y->lid ? -1 : 1) : (x->node > y->node) - (x->node < y->node);
}

/* The byte of the (LID, node) key a radix pass sorts on: node's bytes first, then the LID's. */
static unsigned key_byte(const struct cdg_change *c, unsigned pass)
{
	return pass < 4 ? (c->node >> (8 * pass)) & 0xff : (unsigned)(c->lid >> (8 * (pass - 4))) & 0xff;
}

/*
 * A plan sorts every batch it checks, tens of thousands of entries each
 * (a switch's loss at 3,456 hosts): byte-wise radix passes, stable, each
 * skipped where every key has the same byte, cost a fifth of qsort's
 * comparisons there. Without memory for the second buffer, qsort.
 */
void cdg_changes_sort(struct cdg_change *ch, size_t n)
{
	struct cdg_change *tmp = n > 1 ? malloc(n * sizeof(*tmp)) : NULL;
	if (!tmp) {
		qsort(ch, n, sizeof(*ch), by_lid);
		return;
	}
	struct cdg_change *from = ch, *to = tmp;
	for (unsigned pass = 0; pass < 6; pass++) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[key_byte(&from[i], pass) + 1]++;
		if (count[key_byte(&from[0], pass) + 1] == n)
			continue;	/* one value: the order stands */
		for (unsigned d = 1; d <= 256; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			to[count[key_byte(&from[i], pass)]++] = from[i];
		struct cdg_change *swap = from;
		from = to;
		to = swap;
	}
	if (from != ch)
		memcpy(ch, from, n * sizeof(*ch));
	free(tmp);
}

int cdg_add_changes(const struct fabric *f, const struct cdg_mix *m, unsigned layer, const struct cdg_reach *r,
		    const struct cdg_change *ch, size_t n, struct depgraph *g, struct cdg_roots *roots)
{
	struct delta_walk w = { .m = m, .g = g, .roots = roots, .stack = malloc((f->nnodes + 1) * sizeof(*w.stack)),
				.mark = calloc(f->nnodes + 1, sizeof(*w.mark)) };
	int rc = -1;
	if (!w.stack || !w.mark)
		goto done;
	for (size_t i = 0; i < n;) {
		size_t end = i;
		while (end < n && ch[end].lid == ch[i].lid)
			end++;
		w.lid = ch[i].lid;
		w.row = w.lid <= r->max_lid ? r->row[w.lid] : NULL;
		if (w.row && cdg_on_layer(m, w.lid, layer)) {
			w.generation++;
			for (size_t k = i; k < end; k++) {
				const struct node *s = f->nodes[ch[k].node];
				if (!reached(w.row, s))	/* off A's paths: reached, if at all, through a changed switch on them */
					continue;
				push(&w, s);
				if (add_from_predecessors(&w, s) < 0)
					goto done;
			}
			if (walk_on(&w) < 0)
				goto done;
		}
		i = end;
	}
	rc = 0;
done:
	free(w.stack);
	free(w.mark);
	return rc;
}
