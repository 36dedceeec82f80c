/*
 * DOC: channel dependency graphs
 *
 * Channels are numbered base[node index] + port. A dependency (a, pa) ->
 * (b, pb) is the turn "in on the port facing a, out on pb" at b, so each
 * node keeps a bit matrix of its turns: adding one is a bit set, however
 * many destinations repeat it (most do), and a multipath switch adds a
 * whole row of out-ports at once. The check reads the bits as they are:
 * a channel's successors are one row of the node it leads to, in
 * increasing order; an iterative three-colour DFS over them finds a cycle
 * and reports it in order, or hands each cycle it meets to a caller that
 * breaks it and lets the search go on (VL layering). A
 * graph over VLs has nvl channels per port, and its turn matrices a row
 * and a bit per (port, VL).
 */
#include "routing/depgraph.h"

#include <stdbool.h>
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
	memset(g, 0, sizeof(*g));
}

int depgraph_copy(struct depgraph *dst, const struct depgraph *src)
{
	return depgraph_copy_onto(dst, src, src->f);
}

int depgraph_copy_onto(struct depgraph *dst, const struct depgraph *src, const struct fabric *f)
{
	bool same = f == src->f;
	if (depgraph_init_vls(dst, f, src->nvl) < 0)
		goto fail;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *b = same ? f->nodes[i] : fabric_find_guid(src->f, f->nodes[i]->guid);
		if (!b || !src->turns[b->index])
			continue;
		size_t words = matrix_words(src, b);
		dst->turns[i] = malloc(words * sizeof(**dst->turns));
		if (!dst->turns[i])
			goto fail;
		memcpy(dst->turns[i], src->turns[b->index], words * sizeof(**dst->turns));
		for (size_t w = 0; !same && w < words; w++)
			dst->used += (size_t)__builtin_popcountll(dst->turns[i][w]);
	}
	if (same)
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

/* Where one channel's dependencies are: a row of the turn matrix of the node it leads to. */
struct succ {
	const uint64_t *row;	/* NULL: it leads nowhere, or nothing turns at that node */
	uint32_t node;		/* that node's index */
};

/* A channel on the DFS stack and how far through its row the search is. */
struct frame {
	size_t v;
	struct succ s;
	size_t w;		/* the row's word being read */
	uint64_t bits;		/* what is left of it */
};

/* The frame of channel v, which is (a, pa) on VL vl, before its first dependency. */
static struct frame frame_of(const struct depgraph *g, size_t v, const struct node *a, unsigned pa, unsigned vl)
{
	const struct port *p = &a->ports[pa];
	const struct node *b = p->remote;
	struct succ s = { NULL, 0 };
	if (b && g->turns[b->index])
		s = (struct succ){ g->turns[b->index] + ((size_t)p->remote_port * g->nvl + vl) * row_words(g, b),
				   (uint32_t)b->index };
	return (struct frame){ v, s, 0, s.row ? s.row[0] : 0 };
}

/* Where channel `to`, one that fr's channel waits for, is in the row of fr's channel. */
static size_t column_of(const struct depgraph *g, const struct frame *fr, size_t to)
{
	return to - g->base[fr->s.node] * g->nvl;
}

/* The frame of channel `to`, one that fr's channel waits for (a channel of the node fr's row is at). */
static struct frame frame_after(const struct depgraph *g, const struct frame *fr, size_t to)
{
	size_t col = column_of(g, fr, to);
	return frame_of(g, to, g->f->nodes[fr->s.node], (unsigned)(col / g->nvl), (unsigned)(col % g->nvl));
}

/* Whether fr's channel still waits for `to`: a cut may have removed the dependency. */
static bool waits_for(const struct depgraph *g, const struct frame *fr, size_t to)
{
	size_t col = column_of(g, fr, to);
	return fr->s.row && (fr->s.row[col / 64] >> (col % 64) & 1);
}

/*
 * The next channel fr's channel waits for (in increasing order), or false
 * when none is left. A bit of the word read earlier is taken only while
 * the row still has it.
 */
static bool next_succ(const struct depgraph *g, struct frame *fr, size_t *to)
{
	if (!fr->s.row)
		return false;
	size_t words = row_words(g, g->f->nodes[fr->s.node]);
	for (;;) {
		while (!fr->bits) {
			if (++fr->w >= words)
				return false;
			fr->bits = fr->s.row[fr->w];
		}
		uint64_t bit = fr->bits & -fr->bits;
		fr->bits &= fr->bits - 1;
		if (fr->s.row[fr->w] & bit) {
			*to = g->base[fr->s.node] * g->nvl + fr->w * 64 + (size_t)__builtin_ctzll(bit);
			return true;
		}
	}
}

static bool has_succ(const struct depgraph *g, const struct frame *fr)
{
	for (size_t w = 0; fr->s.row && w < row_words(g, g->f->nodes[fr->s.node]); w++)
		if (fr->s.row[w])
			return true;
	return false;
}

bool depgraph_has(const struct depgraph *g, const struct cdg_channel *a, const struct cdg_channel *b)
{
	const uint64_t *t = g->turns[b->node->index];
	size_t row = (size_t)a->node->ports[a->port].remote_port * g->nvl + a->vl, col = (size_t)b->port * g->nvl + b->vl;
	return t && a->node->ports[a->port].remote == b->node &&
	       (t[row * row_words(g, b->node) + col / 64] >> (col % 64) & 1);
}

void depgraph_remove_turn(struct depgraph *g, const struct node *b, uint8_t in_port, uint8_t out_port)
{
	uint64_t *t = g->turns[b->index];
	uint64_t *word = t ? t + in_port * DEPGRAPH_WORDS(b) + out_port / 64 : NULL, bit = 1ull << (out_port % 64);
	if (word && (*word & bit)) {
		*word &= ~bit;
		g->used--;
	}
}

/*
 * The search of depgraph_cut_cycles: an iterative three-colour DFS over
 * the turn bits. A cycle is the stack from the back edge's target to the
 * top. When cut has removed dependencies, the stack is kept up to its
 * first dependency that is gone and the rest goes back to new (its path
 * may be gone): the search goes on as a fresh one from the same root
 * would, which retraces the stack as long as its dependencies stand,
 * since whatever a kept channel met before its child is done. Channels
 * already done stay done: no cycle was reachable from them, and removing
 * dependencies makes none, so the search meets the cycle a fresh search
 * of the smaller graph would meet first.
 */
struct search {
	struct depgraph *g;
	depgraph_cut_fn *cut;
	void *arg;
	struct cdg_report *r;
	uint8_t *colour;	/* 0 new, 1 on stack, 2 done */
	struct frame *stack;
	size_t depth;
	struct cdg_channel *cycle;
};

/* The stack after cut removed dependencies: up to the first one that is gone. */
static void after_cut(struct search *s)
{
	size_t keep = 1;
	while (keep < s->depth && waits_for(s->g, &s->stack[keep - 1], s->stack[keep].v))
		keep++;
	while (s->depth > keep)
		s->colour[s->stack[--s->depth].v] = 0;
}

/* Hands the cycle from stack[from] to the top to cut; 0 to go on, 1 at the cycle reported, -1 on failure. */
static int met_cycle(struct search *s, size_t from)
{
	size_t len = s->depth - from;
	for (size_t k = 0; s->cut && k < len; k++)
		s->cycle[k] = channel_of(s->g, s->stack[from + k].v);
	int cut_rc = s->cut ? s->cut(s->arg, s->cycle, len) : -1;
	if (cut_rc < -1)
		return -1;
	if (cut_rc < 0) {
		for (size_t k = 0; k < len && k < CDG_MAX_CYCLE; k++)
			s->r->cycle[s->r->cycle_len++] = channel_of(s->g, s->stack[from + k].v);
		return 1;
	}
	after_cut(s);
	return 0;
}

/* The DFS from one root channel (not yet met); 0, or -1 on failure. */
static int search_from(struct search *s, struct frame root)
{
	if (s->colour[root.v] || !has_succ(s->g, &root))
		return 0;
	s->depth = 0;
	s->stack[s->depth++] = root;
	s->colour[root.v] = 1;
	while (s->depth) {
		struct frame *top = &s->stack[s->depth - 1];
		size_t w;
		if (!next_succ(s->g, top, &w)) {
			s->colour[top->v] = 2;
			s->depth--;
			continue;
		}
		if (!s->colour[w]) {
			s->colour[w] = 1;
			s->stack[s->depth] = frame_after(s->g, top, w);
			s->depth++;
			continue;
		}
		if (s->colour[w] != 1)
			continue;
		size_t from = s->depth - 1;	/* back edge: the stack from w to the top is a cycle */
		while (s->stack[from].v != w)
			from--;
		int rc = met_cycle(s, from);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
	return 0;
}

/* The search from the channels of roots (n of them), or from every channel in order when roots is NULL. */
static int find_cycles(struct depgraph *g, const struct cdg_channel *roots, size_t n, depgraph_cut_fn *cut,
		       void *arg, struct cdg_report *r)
{
	struct search s = { .g = g, .cut = cut, .arg = arg, .r = r, .colour = calloc(g->nch, 1),
			    .stack = malloc(g->nch * sizeof(*s.stack)),
			    .cycle = cut ? malloc(g->nch * sizeof(*s.cycle)) : NULL };
	int rc = -1;
	if (!s.colour || !s.stack || (cut && !s.cycle))
		goto done;
	rc = 0;
	for (size_t i = 0; roots && i < n && !rc && !r->cycle_len; i++) {
		const struct node *a = roots[i].node;
		rc = search_from(&s, frame_of(g, (g->base[a->index] + roots[i].port) * g->nvl + roots[i].vl, a,
					      roots[i].port, roots[i].vl));
	}
	for (size_t i = 0; !roots && i < g->f->nnodes && !rc && !r->cycle_len; i++) {
		const struct node *a = g->f->nodes[i];
		for (unsigned p = 0; p <= a->nports && !rc && !r->cycle_len; p++)
			for (unsigned vl = 0; vl < g->nvl && !rc && !r->cycle_len; vl++)
				rc = search_from(&s, frame_of(g, (g->base[i] + p) * g->nvl + vl, a, p, vl));
	}
done:
	free(s.colour);
	free(s.stack);
	free(s.cycle);
	return rc;
}

/*
 * The counts: a channel is in use if it has a dependency either way, each
 * set bit of a row that a channel leads into is one dependency.
 */
static int count_dependencies(const struct depgraph *g, struct cdg_report *r)
{
	uint8_t *used = calloc(g->nch + 1, 1);
	if (!used)
		return -1;
	for (size_t i = 0; i < g->f->nnodes; i++) {
		const struct node *a = g->f->nodes[i];
		for (unsigned pa = 0; pa <= a->nports; pa++) {
			const struct port *p = &a->ports[pa];
			const struct node *b = p->remote;
			if (!b || !g->turns[b->index])
				continue;
			size_t words = row_words(g, b);
			for (unsigned vl = 0; vl < g->nvl; vl++) {
				size_t c = (g->base[i] + pa) * g->nvl + vl;
				const uint64_t *row = g->turns[b->index] + ((size_t)p->remote_port * g->nvl + vl) * words;
				for (size_t w = 0; w < words; w++) {
					r->dependencies += (size_t)__builtin_popcountll(row[w]);
					used[c] |= row[w] != 0;
					for (uint64_t bits = row[w]; bits; bits &= bits - 1)
						used[g->base[b->index] * g->nvl + w * 64 + (size_t)__builtin_ctzll(bits)] = 1;
				}
			}
		}
	}
	for (size_t c = 0; c < g->nch; c++)
		r->channels += used[c];
	free(used);
	return 0;
}

static void report_init(const struct depgraph *g, struct cdg_report *r)
{
	r->per_vl = g->nvl > 1;
	r->channels = 0;
	r->dependencies = 0;
	r->cycle_len = 0;
}

int depgraph_cut_cycles(struct depgraph *g, depgraph_cut_fn *cut, void *arg, struct cdg_report *r)
{
	report_init(g, r);
	if (count_dependencies(g, r) < 0)
		return -1;
	return find_cycles(g, NULL, 0, cut, arg, r);
}

int depgraph_check(struct depgraph *g, struct cdg_report *r)
{
	return depgraph_cut_cycles(g, NULL, NULL, r);
}

int depgraph_check_from(struct depgraph *g, const struct cdg_channel *roots, size_t n, struct cdg_report *r)
{
	report_init(g, r);
	return n ? find_cycles(g, roots, n, NULL, NULL, r) : 0;	/* no roots: nothing to search (NULL is every channel) */
}
