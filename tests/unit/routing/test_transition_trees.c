/*
 * Multicast trees in a transition's proof (routing/transition.h's trees,
 * routing/mtree_saved.c). The switches hold their MFTs while a repair's
 * LFT stages go in, so every step's mixture must be acyclic with the
 * trees held, and so must the state the SA then publishes.
 *
 * - A tree kept by GUID comes back on a fabric that lost a switch with
 *   every port of the switches still there, and none of the lost one's;
 *   the union of two kept trees holds both.
 * - On seed 8 of the degraded radix-8 family, a group of every host on
 *   SL 0: each leaf's first aggregation switch lost in turn, the routes
 *   mended as a repair mends them. Where the plan with the tree held is
 *   proven, every step of it is acyclic with the tree by the CDG code on
 *   its own, and so is the published state; and some plan proven without
 *   the tree is refused with it (the tree's turns close the cycle with the
 *   new escape routes: L14's loss, measured with transition-bench
 *   --mcast). Before 2026-12-08 plans did not see the trees, and such a
 *   repair was reported proven.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/depgraph.h"
#include "routing/engine.h"
#include "routing/mtree.h"
#include "routing/transition.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

/* The tree of a group of every host of f, from the first root. */
static bool **every_host_tree(const struct fabric *f)
{
	struct mtree_member *m = calloc(f->nnodes + 1, sizeof(*m));
	size_t n = 0;
	assert_non_null(m);
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->type != NODE_SWITCH)
			m[n++] = (struct mtree_member){ f->nodes[i], 1 };
	bool **on = mtree_new(f);
	assert_non_null(on);
	assert_int_equal(mtree_build(f, m, n, on), 0);
	free(m);
	return on;
}

static void degraded(unsigned seed, struct fabric *f)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = seed };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
}

/* The first port of leaf that leads to a switch. */
static unsigned leaf_uplink(const struct node *leaf)
{
	for (unsigned p = 1; p <= leaf->nports; p++)
		if (leaf->ports[p].remote && leaf->ports[p].remote->type == NODE_SWITCH)
			return p;
	return 0;
}

static void test_saved_tree_comes_back_by_guid_without_the_switch_lost(void **state)
{
	struct fabric f, g;
	degraded(1, &f);
	bool **on = every_host_tree(&f);
	struct mtree_saved saved;
	assert_int_equal(mtree_save(&f, on, &saved), 0);
	assert_true(saved.n > 0);
	const struct node *leaf = fabric_find_desc(&f, "L0");
	const struct node *lost = leaf->ports[leaf_uplink(leaf)].remote;
	assert_int_equal(fabric_copy(&g, &f), 0);
	fabric_remove_node(&g, fabric_find_guid(&g, lost->guid));
	bool **back = mtree_new(&g);
	assert_non_null(back);
	mtree_load(&saved, &g, back);
	for (size_t i = 0; i < g.nnodes; i++) {
		const struct node *n = g.nodes[i], *was = fabric_find_guid(&f, n->guid);
		for (unsigned p = 1; n->type == NODE_SWITCH && p <= n->nports; p++)
			assert_int_equal(back[i][p], on[was->index][p]);
	}
	assert_null(fabric_find_guid(&g, lost->guid));

	/* the union of the tree and one from another root holds both, each pair once */
	struct mtree_member *m = calloc(f.nnodes + 1, sizeof(*m));
	size_t n = 0;
	for (size_t i = 0; i < f.nnodes; i++)
		if (f.nodes[i]->type != NODE_SWITCH)
			m[n++] = (struct mtree_member){ f.nodes[i], 1 };
	bool **other = mtree_new(&f), **both = mtree_new(&f);
	assert_true(other && both);
	assert_int_equal(mtree_build_at(&f, m, n, lost->guid, other), 0);
	struct mtree_saved s2, sum = { 0 };
	assert_int_equal(mtree_save(&f, other, &s2), 0);
	assert_int_equal(mtree_saved_union(&sum, &saved), 0);
	assert_int_equal(mtree_saved_union(&sum, &s2), 0);
	assert_int_equal(mtree_saved_union(&sum, &s2), 0);	/* again: nothing new */
	mtree_load(&sum, &f, both);
	size_t flags = 0;
	for (size_t i = 0; i < f.nnodes; i++)
		for (unsigned p = 1; f.nodes[i]->type == NODE_SWITCH && p <= f.nodes[i]->nports; p++) {
			assert_int_equal(both[i][p], on[i][p] || other[i][p]);
			flags += both[i][p];
		}
	assert_int_equal(sum.n, flags);
	mtree_saved_free(&sum);
	mtree_saved_free(&s2);
	mtree_saved_free(&saved);
	mtree_free(other, f.nnodes);
	mtree_free(both, f.nnodes);
	mtree_free(back, g.nnodes);
	mtree_free(on, f.nnodes);
	free(m);
	fabric_free(&g);
	fabric_free(&f);
}

struct tree_arg {
	const struct fabric *f;
	bool **on;
};

static int add_tree(void *arg, struct depgraph *g)
{
	const struct tree_arg *a = arg;
	return mtree_dependencies(a->f, a->on, g);
}

/* Layer 0 of the mixture of x and y on the SLs of a and b, with the tree: acyclic. */
static void assert_acyclic_with_tree(const struct fabric *f, const struct routing_tables *x,
				     const struct routing_tables *y, const struct routing_tables *a,
				     const struct routing_tables *b, bool **on)
{
	struct cdg_mix m = { .lft = { x, y }, .nlft = 2, .sl = { a, b }, .nsl = 2, .no_answers = true };
	struct tree_arg arg = { f, on };
	struct cdg_report r;
	assert_int_equal(cdg_check_layer_with(f, &m, 0, add_tree, &arg, &r), 0);
	assert_int_equal(r.cycle_len, 0);
}

static void test_plans_prove_every_step_with_the_tree_held(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct routing_result res;
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	size_t proven = 0, refused_with_tree = 0;
	degraded(8, &f);
	assert_int_equal(routing_compute(&f, &rq, &t, &res), 0);
	bool **before = every_host_tree(&f);
	struct mtree_saved saved;
	assert_int_equal(mtree_save(&f, before, &saved), 0);
	for (size_t i = 0; i < f.nnodes; i++) {
		const struct node *leaf = f.nodes[i];
		unsigned up = leaf->type == NODE_SWITCH && leaf->desc[0] == 'L' ? leaf_uplink(leaf) : 0;
		if (!up)
			continue;
		struct fabric g;
		struct routing_tables n, old;
		struct transition_plan p, bare;
		size_t apart;
		assert_int_equal(fabric_copy(&g, &f), 0);
		fabric_remove_node(&g, fabric_find_guid(&g, leaf->ports[up].remote->guid));
		struct routing_request mend = { .engine = ENGINE_FTREE, .max_layers = 8, .keep_fabric = &f, .keep = &t };
		assert_int_equal(routing_compute(&g, &mend, &n, &res), 0);
		assert_int_equal(transition_remap_view(&f, &t, &g, &n, &old), 0);
		bool **held = mtree_new(&g);
		assert_non_null(held);
		mtree_load(&saved, &g, held);
		uint32_t layer0 = 1;
		struct transition_trees trees = { 1, (bool **const *)&held, &layer0 };
		uint8_t *sl = malloc((size_t)n.max_lid + 1);	/* each plan may move SLs apart: both from the same */
		unsigned layers = n.layers;
		assert_non_null(sl);
		memcpy(sl, n.sl, (size_t)n.max_lid + 1);
		assert_int_equal(transition_plan_apart(&g, &old, &n, NULL, 0, &trees, 8, &p, &apart), 0);
		if (p.proven) {
			const struct routing_tables *from = &old;
			for (size_t k = 0; k < p.nstages; k++) {
				const struct routing_tables *stage = transition_stage(&p, k);
				assert_acyclic_with_tree(&g, from, stage, &old, &old, held);
				from = stage;
			}
			assert_acyclic_with_tree(&g, p.last, p.last, &old, p.last, held);	/* published */
			proven++;
		}
		memcpy(n.sl, sl, (size_t)n.max_lid + 1);
		n.layers = layers;
		free(sl);
		assert_int_equal(transition_plan_apart(&g, &old, &n, NULL, 0, NULL, 8, &bare, &apart), 0);
		refused_with_tree += bare.proven && !p.proven;
		transition_plan_free(&bare);
		transition_plan_free(&p);
		mtree_free(held, g.nnodes);
		routing_tables_free(&old);
		routing_tables_free(&n);
		fabric_free(&g);
	}
	assert_int_equal(proven, 31);	/* of the 32 leaves' */
	assert_int_equal(refused_with_tree, 1);	/* L14's */
	mtree_saved_free(&saved);
	mtree_free(before, f.nnodes);
	routing_tables_free(&t);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_tree_comes_back_by_guid_without_the_switch_lost),
		cmocka_unit_test(test_plans_prove_every_step_with_the_tree_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
