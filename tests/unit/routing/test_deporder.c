/*
 * The topological order kept as dependencies come in (routing/deporder.c),
 * against the whole-graph cycle search of routing/depgraph.c: on the
 * channels of a 3-level radix-8 fat tree, thousands of random batches of
 * turns are added to an acyclic graph; a batch is refused exactly when
 * depgraph_check finds a cycle with it (and then taken out again), and
 * after every batch each dependency of the graph runs from a lower place
 * to a higher one; the same when places must stay a third apart, so that
 * the channels are placed again over and over. Batches whose turns all
 * agree with the order, and a turn closing a cycle of two channels, too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/deporder.h"
#include "topology/fattree_gen.h"

/* Each dependency of g runs upward in o's places. */
static void assert_ordered(const struct deporder *o, const struct depgraph *g)
{
	for (size_t i = 0; i < g->f->nnodes; i++) {
		const struct node *b = g->f->nodes[i];
		for (unsigned q = 0; g->turns[i] && q <= b->nports; q++) {
			const struct node *a = b->ports[q].remote;
			const uint64_t *row = g->turns[i] + q * DEPGRAPH_WORDS(b);
			for (unsigned pb = 0; a && pb <= b->nports; pb++)
				if (row[pb / 64] >> (pb % 64) & 1)
					assert_true(o->place[g->base[a->index] + b->ports[q].remote_port] <
						    o->place[g->base[i] + pb]);
		}
	}
}

/* A random turn at a switch not in g: in from a linked port, out on another linked one. */
static bool random_turn(const struct depgraph *g, const struct node **a, uint8_t *pa, const struct node **b,
			uint8_t *pb)
{
	const struct fabric *f = g->f;
	const struct node *sw = f->nodes[(size_t)rand() % f->nnodes];
	if (sw->type != NODE_SWITCH)
		return false;
	unsigned q = 1 + (unsigned)rand() % sw->nports, out = 1 + (unsigned)rand() % sw->nports;
	if (q == out || !sw->ports[q].remote || !sw->ports[out].remote)
		return false;
	const uint64_t *t = g->turns[sw->index];
	if (t && (t[q * DEPGRAPH_WORDS(sw) + out / 64] >> (out % 64) & 1))
		return false;
	*a = sw->ports[q].remote;
	*pa = sw->ports[q].remote_port;
	*b = sw;
	*pb = (uint8_t)out;
	return true;
}

/* The random batches; min_step: how close places may come before every channel is placed again. */
static void batches_match_the_whole_search(double min_step)
{
	struct fabric f;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	struct depgraph g;
	struct deporder o;
	assert_int_equal(depgraph_init(&g, &f), 0);
	assert_int_equal(deporder_init(&o, &g), 0);
	o.min_step = min_step;
	srand(7);
	size_t refused = 0, taken = 0, agreeing = 0;
	for (int step = 0; step < 4000; step++) {
		struct dep_edge e[4];
		struct {
			const struct node *a, *b;
			uint8_t pa, pb;
		} turn[4];
		size_t n = 0, want = 1 + (size_t)rand() % 4;
		while (n < want) {
			if (!random_turn(&g, &turn[n].a, &turn[n].pa, &turn[n].b, &turn[n].pb))
				continue;
			assert_int_equal(depgraph_add(&g, turn[n].a, turn[n].pa, turn[n].b, turn[n].pb), 0);
			e[n] = (struct dep_edge){ (uint32_t)(g.base[turn[n].a->index] + turn[n].pa),
						  (uint32_t)(g.base[turn[n].b->index] + turn[n].pb) };
			n++;
		}
		bool agree = true;
		for (size_t k = 0; k < n; k++)
			agree &= o.place[e[k].from] < o.place[e[k].to];
		struct cdg_report r;
		assert_int_equal(depgraph_check(&g, &r), 0);
		int rc = deporder_admit(&o, e, n);
		assert_int_equal(rc, r.cycle_len ? 1 : 0);
		if (rc) {
			for (size_t k = 0; k < n; k++)
				depgraph_remove_turn(&g, turn[k].b, turn[k].a->ports[turn[k].pa].remote_port, turn[k].pb);
			refused++;
		} else {
			taken++;
			agreeing += agree;
		}
		assert_ordered(&o, &g);
	}
	/* the walk met all three kinds, and the graph grew dense enough to refuse often */
	assert_true(refused > 100);
	assert_true(taken > 100);
	assert_true(agreeing > 10 && agreeing < taken);
	deporder_free(&o);
	depgraph_free(&g);
	fabric_free(&f);
}

static void test_batches_match_the_whole_search(void **state)
{
	(void)state;
	batches_match_the_whole_search(DEPORDER_MIN_STEP);
}

/* Places a third apart at least: the channels are placed again at 0, 1, 2, ... most of the time. */
static void test_spread_keeps_the_order(void **state)
{
	(void)state;
	batches_match_the_whole_search(0.34);
}

/* A turn and its reverse at one link's two ends: the second closes a cycle of two channels. */
static void test_two_channel_cycle(void **state)
{
	(void)state;
	struct fabric f;
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	const struct node *sw = NULL;
	for (size_t i = 0; i < f.nnodes && !sw; i++)
		if (f.nodes[i]->type == NODE_SWITCH && f.nodes[i]->ports[1].remote &&
		    f.nodes[i]->ports[1].remote->type == NODE_SWITCH)
			sw = f.nodes[i];
	assert_non_null(sw);
	const struct node *peer = sw->ports[1].remote;
	uint8_t back = sw->ports[1].remote_port;
	struct depgraph g;
	struct deporder o;
	assert_int_equal(depgraph_init(&g, &f), 0);
	assert_int_equal(deporder_init(&o, &g), 0);
	assert_int_equal(deporder_admit(&o, NULL, 0), 0);	/* a LID that adds nothing */
	/* (sw, 1) waits for (peer, back): in on back at peer, out on back; and the other way round */
	assert_int_equal(depgraph_add(&g, sw, 1, peer, back), 0);
	struct dep_edge there = { (uint32_t)(g.base[sw->index] + 1), (uint32_t)(g.base[peer->index] + back) };
	assert_int_equal(deporder_admit(&o, &there, 1), 0);
	assert_int_equal(depgraph_add(&g, peer, back, sw, 1), 0);
	struct dep_edge again = { there.to, there.from };
	assert_int_equal(deporder_admit(&o, &again, 1), 1);
	depgraph_remove_turn(&g, sw, 1, 1);
	assert_ordered(&o, &g);
	deporder_free(&o);
	depgraph_free(&g);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_match_the_whole_search),
		cmocka_unit_test(test_spread_keeps_the_order),
		cmocka_unit_test(test_two_channel_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
