/*
 * The deadlock checker: min-hop on a ring of five switches has a credit
 * loop around the ring and the checker names it; min-hop on a full fat
 * tree has none, with the exact number of channels and dependencies; on a
 * degraded 3-level tree min-hop turns down and up again, and the checker
 * names that loop; VL layering splits the ring's routes over two acyclic
 * layers, and with one VL the result is refused. A graph built by
 * threads is the merge of the graphs of its parts. A search that hands
 * its cycles to a cutter meets each of the ring's two; a search from
 * given channels finds the ring's cycle only from a channel that reaches
 * it; the memo of a dependency's users keeps each apart and finds them
 * after it grows; a layer's counted
 * graph, after LIDs leave the layer and some come back, is the graph
 * built afresh, a looping entry included. Giving moved LIDs back to the
 * layers that can hold them fits the degraded radix-16 tree in 5 VLs.
 * What a change of some entries adds to a state's graph, walked from the
 * changed switches, is what walking the changed LIDs' mixture adds; a
 * layer built row by row is the layer the walks build; changes sort by
 * LID, then node, as a comparison sort orders them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/cdg.h"
#include "routing/cdg_delta.h"
#include "routing/engine.h"
#include "routing/transition.h"
#include "routing/layer_graph.h"
#include "routing/layers.h"
#include "routing/users_memo.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

static void test_cdg_minhop_ring_of_five_has_a_cycle_around_the_ring(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct cdg_report r;
	ring(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(cdg_check(&f, &t, &r), 0);
	assert_int_equal(r.cycle_len, 5);
	/* the cycle goes one way round: every channel leaves by the same port */
	for (size_t i = 0; i < r.cycle_len; i++) {
		assert_int_equal(r.cycle[i].port, r.cycle[0].port);
		assert_int_equal(r.cycle[(i + 1) % 5].node->ports[r.cycle[i].port].remote == r.cycle[(i + 1) % 5].node, 0);
		assert_ptr_equal(r.cycle[i].node->ports[r.cycle[i].port].remote, r.cycle[(i + 1) % 5].node);
	}
	char text[256];
	cdg_cycle_text(&r, text, sizeof(text));
	assert_non_null(strstr(text, " -> "));
	assert_int_equal(strncmp(text, text + strlen(text) - strlen(r.cycle[0].node->desc) - 3,
				 strlen(r.cycle[0].node->desc)), 0);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_cdg_minhop_fat_tree_is_acyclic(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct cdg_report r;
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(cdg_check(&f, &t, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	/* 4 leaves x 2 up-channels + 2 spines x 4 down-channels + 8 leaf-to-host channels */
	assert_int_equal(r.channels, 24);
	/* every (leaf, spine, other leaf) turn, 4 x 2 x 3, and each spine-to-leaf channel
	 * feeding that leaf's 2 host channels, 8 x 2: hosts' traffic takes 8 of those,
	 * the spines' answers to the hosts all 16 */
	assert_int_equal(r.dependencies, 24 + 16);
	routing_tables_free(&t);
	fabric_free(&f);
}

/* min-hop routes some switch LIDs down and up again on a degraded tree: a real credit loop */
static void test_cdg_minhop_degraded_three_level_tree_has_a_down_up_cycle(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct cdg_report r;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 2, .seed = 5 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(cdg_check(&f, &t, &r), 0);
	char text[512];
	cdg_cycle_text(&r, text, sizeof(text));
	assert_string_equal(text, "L0[5] -> A0[2] -> L1[8] -> A3[1] -> L0[5]");
	routing_tables_free(&t);
	fabric_free(&f);
}

/* The ring's credit loop, then VL layering: two layers, each acyclic; with one VL it is refused. */
static void test_cdg_layering_removes_the_ring_cycle(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct routing_result res;
	struct cdg_report r;
	ring(&f);
	struct routing_request one_vl = { .engine = ENGINE_MINHOP, .max_layers = 1 };
	assert_int_equal(routing_compute(&f, &one_vl, &t, &res), 1);
	assert_int_equal(res.cdg.cycle_len, 5);
	routing_tables_free(&t);
	struct routing_request eight_vls = { .engine = ENGINE_MINHOP, .max_layers = 8 };
	assert_int_equal(routing_compute(&f, &eight_vls, &t, &res), 0);
	assert_int_equal(t.layers, 2);
	assert_true(res.layers.moved > 0);
	for (unsigned l = 0; l < t.layers; l++) {
		assert_int_equal(cdg_check_layer(&f, &t, l, &r), 0);
		assert_int_equal(r.cycle_len, 0);
	}
	assert_int_equal(cdg_check(&f, &t, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	routing_tables_free(&t);
	fabric_free(&f);
}

/*
 * On a fabric large enough to have its destinations shared out among
 * threads (routing/cdg.c), the graph of all of them is the merge of the
 * graphs of two disjoint halves: the same dependencies, edge for edge.
 */
static void test_cdg_shared_out_build_is_the_merge_of_its_parts(void **state)
{
	struct fabric f;
	struct routing_tables t;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 16, .remove_links = 24, .remove_switches = 4, .seed = 7 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	assert_true(f.nnodes > 1000);
	number_lids(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	struct cdg_mix m = cdg_mix_of(&t);
	bool *odd = calloc((size_t)t.max_lid + 1, sizeof(*odd)), *even = calloc((size_t)t.max_lid + 1, sizeof(*even));
	assert_non_null(odd);
	assert_non_null(even);
	for (uint32_t lid = 1; lid <= t.max_lid; lid++)
		(lid % 2 ? odd : even)[lid] = true;
	struct depgraph all, half, other;
	struct cdg_report ra, rh;
	assert_int_equal(depgraph_init(&all, &f), 0);
	assert_int_equal(depgraph_init(&half, &f), 0);
	assert_int_equal(depgraph_init(&other, &f), 0);
	assert_int_equal(cdg_add_layer(&f, &m, 0, NULL, &all), 0);
	assert_int_equal(cdg_add_layer(&f, &m, 0, odd, &half), 0);
	assert_int_equal(cdg_add_layer(&f, &m, 0, even, &other), 0);
	assert_true(half.used < all.used);
	assert_int_equal(depgraph_merge(&half, &other), 0);
	assert_int_equal(depgraph_merge(&half, &other), 0);	/* merging again adds nothing */
	assert_int_equal(half.used, all.used);
	assert_int_equal(depgraph_check(&all, &ra), 0);
	assert_int_equal(depgraph_check(&half, &rh), 0);
	assert_int_equal(ra.dependencies, rh.dependencies);
	assert_int_equal(ra.channels, rh.channels);
	assert_true(ra.dependencies > 1000);
	for (size_t i = 0; i < f.nnodes; i++) {	/* the same turns, bit for bit */
		assert_true(!all.turns[i] == !half.turns[i]);
		if (all.turns[i])
			assert_memory_equal(all.turns[i], half.turns[i],
					    (f.nodes[i]->nports + 1u) * DEPGRAPH_WORDS(f.nodes[i]) * sizeof(uint64_t));
	}
	depgraph_free(&all);
	depgraph_free(&half);
	depgraph_free(&other);
	free(odd);
	free(even);
	routing_tables_free(&t);
	fabric_free(&f);
}

/* A cutter that removes the cycle's first dependency and counts the cycles it met. */
struct ring_cutter {
	struct depgraph *g;
	unsigned calls;
};

static int cut_first(void *arg, const struct cdg_channel *cycle, size_t len)
{
	struct ring_cutter *c = arg;
	const struct cdg_channel *a = &cycle[0], *b = &cycle[1 % len];
	c->calls++;
	depgraph_remove_turn(c->g, b->node, a->node->ports[a->port].remote_port, b->port);
	return 0;
}

/* The ring of five routed min-hop, and its graph. */
static void ring_graph(struct fabric *f, struct routing_tables *t, struct depgraph *g)
{
	ring(f);
	assert_int_equal(minhop_route(f, t), 0);
	struct cdg_mix m = cdg_mix_of(t);
	assert_int_equal(depgraph_init(g, f), 0);
	assert_int_equal(cdg_add_layer(f, &m, 0, NULL, g), 0);
}

static void test_cdg_cut_search_meets_each_ring_direction_once(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct cdg_report first, r;
	struct depgraph g;
	ring_graph(&f, &t, &g);
	assert_int_equal(depgraph_cut_cycles(&g, NULL, NULL, &first), 0);	/* no cutter: depgraph_check */
	assert_int_equal(first.cycle_len, 5);
	size_t before = g.used;
	struct ring_cutter c = { &g, 0 };
	assert_int_equal(depgraph_cut_cycles(&g, cut_first, &c, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	assert_int_equal(c.calls, 2);	/* clockwise and counter-clockwise */
	assert_int_equal(g.used, before - 2);
	assert_int_equal(depgraph_check(&g, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	depgraph_free(&g);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_cdg_check_from_finds_only_cycles_its_roots_reach(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct cdg_report all, r;
	struct depgraph g;
	ring_graph(&f, &t, &g);
	assert_int_equal(depgraph_check(&g, &all), 0);
	assert_int_equal(all.cycle_len, 5);
	struct cdg_channel on_cycle = all.cycle[2], dead_end = { 0 };
	for (size_t i = 0; i < f.nnodes && !dead_end.node; i++)	/* a switch port facing a CA: waits for nothing */
		for (unsigned p = 1; p <= f.nodes[i]->nports && !dead_end.node; p++)
			if (f.nodes[i]->type == NODE_SWITCH && f.nodes[i]->ports[p].remote &&
			    f.nodes[i]->ports[p].remote->type != NODE_SWITCH)
				dead_end = (struct cdg_channel){ f.nodes[i], (uint8_t)p, 0 };
	assert_non_null(dead_end.node);
	assert_int_equal(depgraph_check_from(&g, &dead_end, 1, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	assert_int_equal(depgraph_check_from(&g, NULL, 0, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	struct cdg_channel roots[2] = { dead_end, on_cycle };
	assert_int_equal(depgraph_check_from(&g, roots, 2, &r), 0);
	assert_int_equal(r.cycle_len, 5);
	assert_ptr_equal(r.cycle[0].node, on_cycle.node);	/* the search started there */
	assert_int_equal(r.cycle[0].port, on_cycle.port);
	depgraph_free(&g);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_cdg_users_memo_keeps_each_dependency_apart(void **state)
{
	struct fabric f;
	struct users_memo m;
	ring(&f);
	users_memo_init(&m);
	bool uses[USERS_MEMO_MAX_LIDS + 8] = { false };
	const struct node *sw = f.nodes[0];
	struct cdg_channel a = { sw, 1, 0 }, b = { sw->ports[1].remote, 1, 0 }, b2 = { b.node, 3, 0 };
	assert_null(users_memo_find(&m, &a, &b));
	uses[3] = uses[7] = true;
	assert_int_equal(users_memo_keep(&m, &a, &b, uses, 10, true), 0);
	uses[7] = false;
	uses[9] = true;
	assert_int_equal(users_memo_keep(&m, &a, &b2, uses, 10, false), 0);
	const struct users_memo_entry *e = users_memo_find(&m, &a, &b);
	assert_non_null(e);
	assert_int_equal(e->n, 2);
	assert_int_equal(e->lids[0], 3);
	assert_int_equal(e->lids[1], 7);
	assert_true(e->complete);
	e = users_memo_find(&m, &a, &b2);
	assert_non_null(e);
	assert_int_equal(e->lids[1], 9);
	assert_false(e->complete);
	for (unsigned node = 1; node < 5; node++)	/* enough keys to grow the table past its first size */
		for (unsigned p = 0; p < 255; p++) {
			struct cdg_channel x = { f.nodes[node], (uint8_t)p, 0 }, y = { b.node, (uint8_t)(p % 7), 0 };
			assert_int_equal(users_memo_keep(&m, &x, &y, uses, 10, true), 0);
		}
	assert_true(m.cap > 1024);
	assert_int_equal(users_memo_find(&m, &a, &b)->lids[1], 7);	/* still found after growing */
	for (unsigned lid = 1; lid <= USERS_MEMO_MAX_LIDS + 1; lid++)
		uses[lid] = true;
	assert_int_equal(users_memo_keep(&m, &a, &b, uses, USERS_MEMO_MAX_LIDS + 1, true), 0);
	assert_int_equal(users_memo_find(&m, &a, &b)->n, 2);	/* too many users: not remembered */
	users_memo_free(&m);
	fabric_free(&f);
}

/* Whether g and h hold the same turns (a matrix never allocated is all zeros). */
static bool same_turns(const struct fabric *f, const struct depgraph *g, const struct depgraph *h)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		size_t words = (f->nodes[i]->nports + 1u) * DEPGRAPH_WORDS(f->nodes[i]);
		for (size_t w = 0; w < words; w++)
			if ((g->turns[i] ? g->turns[i][w] : 0) != (h->turns[i] ? h->turns[i][w] : 0))
				return false;
	}
	return g->used == h->used;
}

static void test_cdg_layer_graph_after_lids_leave_is_the_graph_built_afresh(void **state)
{
	struct fabric f;
	struct routing_tables t;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 1 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	for (uint32_t lid = 1; lid <= t.max_lid; lid++)	/* two layers of mixed CA and switch LIDs */
		t.sl[lid] = lid % 3 == 0;
	const struct node *a = NULL;	/* and a forwarding loop: two switches send a CA's LID to each other */
	uint16_t looping = 0;
	for (size_t i = 0; i < f.nnodes && !looping; i++)
		if (f.nodes[i]->type != NODE_SWITCH && f.nodes[i]->ports[1].lid % 3 == 0)
			looping = f.nodes[i]->ports[1].lid;
	for (size_t i = 0; i < f.nnodes && !a; i++)
		if (f.nodes[i]->type == NODE_SWITCH && routing_next_switch(f.nodes[i], 1))
			a = f.nodes[i];
	assert_non_null(a);
	assert_int_not_equal(looping, 0);
	t.lft[a->index][looping] = 1;
	t.lft[a->ports[1].remote->index][looping] = a->ports[1].remote_port;
	t.layers = 3;
	struct hop_map hops;
	assert_int_equal(hop_map_build(&hops, &f), 0);
	for (unsigned layer = 0; layer < 2; layer++) {
		for (int answers = 0; answers < 2; answers++) {
			struct cdg_mix m = cdg_mix_of(&t);
			struct depgraph g, fresh;
			struct layer_graph lg;
			m.no_answers = !answers;
			assert_int_equal(depgraph_init(&g, &f), 0);
			assert_int_equal(cdg_add_layer(&f, &m, layer, NULL, &g), 0);
			assert_int_equal(layer_graph_init(&lg, &f, &t, &hops, layer, answers, &g), 0);
			size_t all = g.used;
			struct depgraph counted;	/* the layering builds a layer's graph by counting its paths */
			struct layer_graph from_empty;
			assert_int_equal(depgraph_init(&counted, &f), 0);
			assert_int_equal(layer_graph_init(&from_empty, &f, &t, &hops, layer, answers, &counted), 0);
			assert_true(all > 0 && same_turns(&f, &g, &counted));
			layer_graph_free(&from_empty);
			depgraph_free(&counted);
			bool *leaving = calloc((size_t)t.max_lid + 1, sizeof(*leaving));
			assert_non_null(leaving);
			for (uint32_t round = 0; round < 3; round++) {	/* most of the layer leaves, in 3 moves */
				for (uint32_t lid = 1; lid <= t.max_lid; lid++)
					leaving[lid] = t.sl[lid] == layer && lid % 4 && lid % 3 == round;
				assert_int_equal(layer_graph_remove_lids(&lg, leaving), 0);
				for (uint32_t lid = 1; lid <= t.max_lid; lid++)
					if (leaving[lid])
						t.sl[lid] = 2;
			}
			free(leaving);
			assert_int_equal(depgraph_init(&fresh, &f), 0);
			assert_int_equal(cdg_add_layer(&f, &m, layer, NULL, &fresh), 0);
			assert_true(fresh.used > 0 && fresh.used < all);
			assert_true(same_turns(&f, &g, &fresh));
			size_t fewer = fresh.used;
			depgraph_free(&fresh);
			bool *back = calloc((size_t)t.max_lid + 1, sizeof(*back));
			assert_non_null(back);
			for (uint32_t lid = 1; lid <= t.max_lid; lid++)	/* some come back */
				if (t.sl[lid] == 2 && lid % 5 == 0) {
					t.sl[lid] = (uint8_t)layer;
					back[lid] = true;
				}
			assert_int_equal(layer_graph_add_lids(&lg, back), 0);
			free(back);
			assert_int_equal(depgraph_init(&fresh, &f), 0);
			assert_int_equal(cdg_add_layer(&f, &m, layer, NULL, &fresh), 0);
			assert_true(fresh.used > fewer);
			assert_true(same_turns(&f, &g, &fresh));
			for (uint32_t lid = 1; lid <= t.max_lid; lid++)	/* and comes back for the next round */
				if (t.sl[lid] == 2)
					t.sl[lid] = (uint8_t)layer;
			layer_graph_free(&lg);
			depgraph_free(&g);
			depgraph_free(&fresh);
		}
	}
	hop_map_free(&hops);
	routing_tables_free(&t);
	fabric_free(&f);
}

/*
 * The engine starts a degraded tree's escape LIDs one layer per switch
 * level (aggregation switches 1, cores 2). Here they all fit on layer 1:
 * offered, the cores come down and layer 2 is dropped; not offered (SLs
 * hosts already use), they stay.
 */
static void test_cdg_layering_offers_the_engines_upper_layers_a_place_lower_down(void **state)
{
	struct fabric f;
	struct routing_tables t, kept;
	struct route_info info;
	struct layers_report lr;
	struct cdg_report r;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 2 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(ftree_route(&f, NULL, 0, 8, &t, &info), 0);
	assert_int_equal(t.layers, 3);
	unsigned on_2 = 0;
	for (uint32_t lid = 1; lid <= t.max_lid; lid++)
		if (t.sl[lid] == 2) {
			const struct node *n = fabric_find_lid(&f, (uint16_t)lid, &(uint8_t){ 0 });
			assert_true(n && n->type == NODE_SWITCH && n->desc[0] == 'C');	/* the cores */
			on_2++;
		}
	assert_true(on_2 > 0);
	assert_int_equal(routing_tables_copy(&kept, &t), 0);
	assert_int_equal(layers_assign(&f, &kept, 8, NULL, &lr), 0);
	assert_int_equal(kept.layers, 3);
	bool every[t.max_lid + 1];
	memset(every, true, sizeof(every));
	assert_int_equal(layers_assign(&f, &t, 8, every, &lr), 0);
	assert_true(lr.answers_proven);
	assert_int_equal(t.layers, 2);
	for (uint32_t lid = 1; lid <= t.max_lid; lid++)
		assert_true(t.sl[lid] <= 1);
	assert_int_equal(cdg_check(&f, &t, &r), 0);	/* answers included */
	assert_int_equal(r.cycle_len, 0);
	routing_tables_free(&kept);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_cdg_layering_takes_back_what_a_layer_can_hold(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct routing_result res;
	struct cdg_report r;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 16, .remove_links = 24, .remove_switches = 4, .seed = 7 };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(routing_compute(&f, &rq, &t, &res), 0);
	assert_true(res.layers.answers_proven);
	/* 7 when every LID moved up stayed up, 5 before the escape layers went by switch level */
	assert_int_equal(t.layers, 4);
	assert_int_equal(cdg_check(&f, &t, &r), 0);	/* answers included */
	assert_int_equal(r.cycle_len, 0);
	routing_tables_free(&t);
	fabric_free(&f);
}

/*
 * A repair's change on a degraded tree: the old tables (A) against the
 * tables routed after a lost link (B), all of the changed entries, and
 * every other one. For each layer the state's graph plus cdg_add_changes
 * must equal the state's graph plus the changed LIDs' mixture walked
 * whole, and must have grown.
 */
static void test_cdg_changes_add_what_the_mixture_walk_adds(void **state)
{
	struct fabric f, g;
	struct routing_tables old, a, b, part;
	struct routing_result res;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 1 };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(routing_compute(&f, &rq, &old, &res), 0);
	assert_int_equal(fabric_copy(&g, &f), 0);
	struct node *leaf = fabric_find_desc(&g, "L0");
	unsigned up = 1;
	while (!routing_next_switch(leaf, up))
		up++;
	fabric_unlink(leaf, (uint8_t)up);
	rq.keep_fabric = &f;
	rq.keep = &old;
	assert_int_equal(routing_compute(&g, &rq, &b, &res), 0);
	assert_int_equal(transition_remap(&f, &old, &g, &b, &a), 0);
	struct cdg_change *ch = calloc((size_t)g.nnodes * (b.max_lid + 1u), sizeof(*ch));
	bool *lids = calloc(b.max_lid + 1u, sizeof(*lids));
	assert_true(ch && lids);
	for (unsigned every = 1; every <= 2; every++) {
		size_t n = 0, seen = 0;
		assert_int_equal(routing_tables_copy(&part, &a), 0);
		memcpy(part.sl, b.sl, b.max_lid + 1u);
		memset(lids, 0, b.max_lid + 1u);
		for (size_t i = 0; i < g.nnodes; i++)
			for (uint32_t lid = 1; a.lft[i] && lid <= b.max_lid; lid++)
				if (a.lft[i][lid] != b.lft[i][lid] && seen++ % every == 0) {
					part.lft[i][lid] = b.lft[i][lid];
					ch[n++] = (struct cdg_change){ (uint32_t)i, (uint16_t)lid };
					lids[lid] = true;
				}
		assert_true(n > 10);
		cdg_changes_sort(ch, n);
		struct cdg_reach *reach = cdg_reach_new(&g, &a, lids);
		assert_non_null(reach);
		struct cdg_mix state_m = { .lft = { &a }, .nlft = 1, .sl = { &a, &part }, .nsl = 2, .no_answers = true };
		struct cdg_mix step_m = { .lft = { &a, &part }, .nlft = 2, .sl = { &a, &part }, .nsl = 2,
					  .no_answers = true };
		for (unsigned layer = 0; layer < b.layers; layer++) {
			struct depgraph st, walked, delta;
			struct cdg_roots roots = { 0 };
			assert_int_equal(depgraph_init(&st, &g), 0);
			assert_int_equal(cdg_add_layer(&g, &state_m, layer, NULL, &st), 0);
			assert_int_equal(depgraph_copy(&walked, &st), 0);
			assert_int_equal(cdg_add_layer(&g, &step_m, layer, lids, &walked), 0);
			assert_int_equal(depgraph_copy(&delta, &st), 0);
			assert_int_equal(cdg_add_changes(&g, &step_m, layer, reach, ch, n, &delta, &roots), 0);
			assert_true(layer > 0 || walked.used > st.used);	/* the change adds turns */
			assert_true(same_turns(&g, &walked, &delta));
			assert_true(roots.n > 0 || walked.used == st.used);
			free(roots.v);
			depgraph_free(&st);
			depgraph_free(&walked);
			depgraph_free(&delta);
		}
		cdg_reach_free(reach);
		routing_tables_free(&part);
	}
	free(ch);
	free(lids);
	routing_tables_free(&a);
	routing_tables_free(&b);
	routing_tables_free(&old);
	fabric_free(&g);
	fabric_free(&f);
}

/*
 * Layer 0 with the switches' answers starts traffic to every CA at nearly
 * every switch, which cdg_rows.c builds row by row: the same turns as the
 * walks of the same table given twice (a mixture, which walks), on a
 * degraded tree routed by ftree (its escape layer leaves some switches
 * starting nothing on layer 0) and by min-hop, with every switch on layer
 * 0 and a third of the hosts on layer 1, then with every tenth switch on
 * layer 1 too. Layer 1 (walked either way) agrees as well.
 */
static int by_lid_then_node(const void *a, const void *b)
{
	const struct cdg_change *x = a, *y = b;
	return x->lid != y->lid ? (x->lid < y->lid ? -1 : 1) : (x->node > y->node) - (x->node < y->node);
}

/* The changes' order (radix passes, skipping constant bytes) is a comparison sort's, on keys of every width. */
static void test_cdg_changes_sort_by_lid_then_node(void **state)
{
	(void)state;
	unsigned seed = 7;
	const uint32_t node_span[] = { 1, 200, 70000, 1u << 30 };
	const uint16_t lid_span[] = { 1, 40, 49151 };
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 3; b++) {
			size_t n = 5000;
			struct cdg_change *ch = malloc(n * sizeof(*ch)), *want = malloc(n * sizeof(*want));
			assert_non_null(ch);
			assert_non_null(want);
			for (size_t i = 0; i < n; i++) {
				ch[i] = (struct cdg_change){ (uint32_t)(rand_r(&seed) % node_span[a]),
							     (uint16_t)(1 + rand_r(&seed) % lid_span[b]) };
				want[i] = ch[i];
			}
			qsort(want, n, sizeof(*want), by_lid_then_node);
			cdg_changes_sort(ch, n);
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(ch[i].lid, want[i].lid);
				assert_int_equal(ch[i].node, want[i].node);
			}
			free(ch);
			free(want);
		}
}

static void test_cdg_rows_build_what_the_walks_build(void **state)
{
	struct fabric f;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 3 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	for (int config = 0; config < 3; config++) {
		struct routing_tables t;
		struct routing_result res;
		struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
		if (config == 0) {
			assert_int_equal(routing_compute(&f, &rq, &t, &res), 0);
			assert_true(t.layers > 1);
		} else {
			assert_int_equal(minhop_route(&f, &t), 0);
			for (size_t i = 0; i < f.nnodes; i++) {
				bool sw = f.nodes[i]->type == NODE_SWITCH;
				uint16_t lid = f.nodes[i]->ports[sw ? 0 : 1].lid;
				t.sl[lid] = sw ? config == 2 && lid % 10 == 0 : lid % 3 == 0;
			}
			t.layers = 2;
		}
		for (unsigned layer = 0; layer < 2; layer++) {
			struct cdg_mix once = cdg_mix_of(&t), twice = { .lft = { &t, &t }, .nlft = 2, .sl = { &t }, .nsl = 1 };
			struct depgraph rows, walks;
			assert_int_equal(depgraph_init(&rows, &f), 0);
			assert_int_equal(depgraph_init(&walks, &f), 0);
			assert_int_equal(cdg_add_layer(&f, &once, layer, NULL, &rows), 0);
			assert_int_equal(cdg_add_layer(&f, &twice, layer, NULL, &walks), 0);
			assert_true(walks.used > 0);
			assert_true(same_turns(&f, &rows, &walks));
			depgraph_free(&rows);
			depgraph_free(&walks);
		}
		routing_tables_free(&t);
	}
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cdg_minhop_ring_of_five_has_a_cycle_around_the_ring),
		cmocka_unit_test(test_cdg_minhop_fat_tree_is_acyclic),
		cmocka_unit_test(test_cdg_minhop_degraded_three_level_tree_has_a_down_up_cycle),
		cmocka_unit_test(test_cdg_layering_removes_the_ring_cycle),
		cmocka_unit_test(test_cdg_shared_out_build_is_the_merge_of_its_parts),
		cmocka_unit_test(test_cdg_cut_search_meets_each_ring_direction_once),
		cmocka_unit_test(test_cdg_check_from_finds_only_cycles_its_roots_reach),
		cmocka_unit_test(test_cdg_users_memo_keeps_each_dependency_apart),
		cmocka_unit_test(test_cdg_layer_graph_after_lids_leave_is_the_graph_built_afresh),
		cmocka_unit_test(test_cdg_layering_takes_back_what_a_layer_can_hold),
		cmocka_unit_test(test_cdg_layering_offers_the_engines_upper_layers_a_place_lower_down),
		cmocka_unit_test(test_cdg_changes_add_what_the_mixture_walk_adds),
		cmocka_unit_test(test_cdg_rows_build_what_the_walks_build),
		cmocka_unit_test(test_cdg_changes_sort_by_lid_then_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
