/*
 * The graphs of the tables the switches hold (routing/held_graphs.c),
 * built aside on a degraded radix-8 tree: on the fabric after a leaf's
 * up-link fails they hold every dependency the held tables make there,
 * and a transition planned from them is proven at every step by the CDG
 * code on its own and ends at the new tables; the same when the switch at
 * the far end of that link goes too; and when that switch comes back (the
 * graphs of the tables routed around it). They do not fit a fabric with a
 * CA gained, a LID changed, or a link gained that the tables send
 * through; they do fit a relink the tables do not use yet, a node gone,
 * and a switch gained behind links the tables do not use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engine.h"
#include "routing/held_graphs.h"
#include "routing/transition.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

static void tree(struct fabric *f, struct routing_tables *t)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 2 };
	struct routing_result res;
	assert_int_equal(fattree_generate(&spec, &f[0], err), 0);
	number_lids(f);
	assert_int_equal(routing_compute(f, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 8 }, t, &res),
			 0);
}

/* Every turn of exact is in held (graphs of one VL on fabrics of the same layout). */
static void assert_holds(const struct depgraph *held, const struct depgraph *exact)
{
	for (size_t i = 0; i < exact->f->nnodes; i++) {
		size_t ports = (size_t)exact->f->nodes[i]->nports + 1, words = ports * ((ports + 63) / 64);
		for (size_t w = 0; exact->turns[i] && w < words; w++)
			assert_int_equal(exact->turns[i][w] & ~(held->turns[i] ? held->turns[i][w] : 0), 0);
	}
}

/*
 * h, the held graphs of t0 on f0, fit f (f0 after a failure): they hold
 * every dependency of t0 remapped onto f, and the plan from them to f's
 * new routing is proven step by step by the CDG code on its own and ends
 * at the new tables. Returns its stages; *plain_stages: the plan's without h.
 */
static size_t assert_plan_from_held(const struct fabric *f0, const struct routing_tables *t0, struct held_graphs *h,
				    const struct fabric *f, size_t *plain_stages)
{
	struct routing_tables t, old;
	struct routing_result res;
	struct transition_plan p, plain;
	unsigned layers;
	bool acyclic;
	assert_int_equal(routing_compute(f, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 8 }, &t,
					 &res), 0);
	assert_int_equal(transition_remap(f0, t0, f, &t, &old), 0);

	const struct depgraph *g = held_graphs_for(h, f, &layers, &acyclic);
	assert_non_null(g);
	assert_true(acyclic);
	assert_int_equal(layers, t0->layers);
	struct cdg_mix m = { .lft = { &old }, .nlft = 1, .sl = { &old }, .nsl = 1, .no_answers = true };
	for (unsigned l = 0; l < layers; l++) {
		struct depgraph exact, copy;
		assert_int_equal(depgraph_init(&exact, f), 0);
		assert_int_equal(cdg_add_layer(f, &m, l, NULL, &exact), 0);
		assert_int_equal(depgraph_copy_onto(&copy, &g[l], f), 0);
		assert_holds(&copy, &exact);
		depgraph_free(&copy);
		depgraph_free(&exact);
	}

	assert_int_equal(transition_plan_held(f, &old, &t, h, 0, NULL, &p), 0);
	assert_true(p.from_held);
	assert_int_equal(transition_plan(f, &old, &t, &plain), 0);
	assert_false(plain.from_held);
	assert_true(p.proven);
	*plain_stages = plain.nstages;
	struct cdg_report r;
	const struct routing_tables *from = &old;
	for (size_t i = 0; i < p.nstages; i++) {
		const struct routing_tables *stage = transition_stage(&p, i);
		assert_int_equal(transition_check_step(f, from, stage, &old, &old, &r), 0);
		assert_int_equal(r.cycle_len, 0);
		from = stage;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		if (t.lft[i])
			assert_memory_equal(from->lft[i], t.lft[i], t.max_lid + 1u);
	size_t stages = p.nstages;
	transition_plan_free(&plain);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&t);
	return stages;
}

static void test_held_graphs_after_a_link_or_a_switch_loss_plan_proven_stages(void **state)
{
	struct fabric f0, f;
	struct routing_tables t0;
	size_t plain;
	tree(&f0, &t0);
	struct held_graphs *h = held_graphs_start(&f0, &t0);
	assert_non_null(h);
	assert_int_equal(fabric_copy(&f, &f0), 0);
	struct node *leaf = fabric_find_desc(&f, "L0");
	uint8_t up = first_uplink(leaf);
	uint64_t far = leaf->ports[up].remote->guid;
	fabric_unlink(leaf, up);
	size_t stages = assert_plan_from_held(&f0, &t0, h, &f, &plain);
	assert_true(stages > 1);	/* the plain switch is cyclic: a real plan */
	assert_int_equal(stages, plain);
	fabric_remove_node(&f, fabric_find_guid(&f, far));	/* the switch at the far end goes too: indexes move */
	assert_plan_from_held(&f0, &t0, h, &f, &plain);
	held_graphs_free(h);

	/* that switch back, every cable of it: from the graphs of the tables routed around it */
	struct routing_tables t;
	struct routing_result res;
	assert_int_equal(routing_compute(&f, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 8 }, &t,
					 &res), 0);
	h = held_graphs_start(&f, &t);
	assert_plan_from_held(&f, &t, h, &f0, &plain);
	held_graphs_free(h);
	routing_tables_free(&t);
	routing_tables_free(&t0);
	fabric_free(&f);
	fabric_free(&f0);
}

static void test_held_graphs_fit_only_the_same_layout(void **state)
{
	struct fabric f0, f;
	struct routing_tables t0, t;
	struct routing_result res;
	unsigned layers;
	bool acyclic;
	tree(&f0, &t0);
	uint8_t up = first_uplink(fabric_find_desc(&f0, "L0"));

	/* held on f0: the fabric with that link lost fits, with it and another LID does not */
	struct held_graphs *h = held_graphs_start(&f0, &t0);
	assert_int_equal(fabric_copy(&f, &f0), 0);
	fabric_unlink(fabric_find_desc(&f, "L0"), up);
	assert_non_null(held_graphs_for(h, &f, &layers, &acyclic));
	fabric_free(&f);
	assert_int_equal(fabric_copy(&f, &f0), 0);
	fabric_find_desc(&f, "L1")->ports[0].lid++;
	assert_null(held_graphs_for(h, &f, &layers, &acyclic));
	fabric_free(&f);
	assert_int_equal(fabric_copy(&f, &f0), 0);	/* a CA gone fits (the nodes after it move), one gained does not */
	for (size_t i = 0; i < f.nnodes; i++)
		if (f.nodes[i]->type == NODE_CA) {
			fabric_remove_node(&f, f.nodes[i]);
			break;
		}
	assert_non_null(held_graphs_for(h, &f, &layers, &acyclic));
	assert_non_null(fabric_add_node(&f, NODE_SWITCH, 0x7777000000000002ull, 8, "new switch"));
	assert_non_null(held_graphs_for(h, &f, &layers, &acyclic));	/* cabled to nothing the tables use */
	assert_non_null(fabric_add_node(&f, NODE_CA, 0x7777000000000001ull, 1, "new"));
	assert_null(held_graphs_for(h, &f, &layers, &acyclic));
	fabric_free(&f);
	held_graphs_free(h);

	/* held on the fabric without the link: its relink fits tables routed around it, not t0 (which use it) */
	struct fabric down;
	assert_int_equal(fabric_copy(&down, &f0), 0);
	fabric_unlink(fabric_find_desc(&down, "L0"), up);
	assert_int_equal(routing_compute(&down, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 8 }, &t,
					 &res), 0);
	h = held_graphs_start(&down, &t);
	assert_non_null(held_graphs_for(h, &f0, &layers, &acyclic));
	held_graphs_free(h);
	h = held_graphs_start(&down, &t0);
	assert_null(held_graphs_for(h, &f0, &layers, &acyclic));
	held_graphs_free(h);
	fabric_free(&down);
	routing_tables_free(&t);
	routing_tables_free(&t0);
	fabric_free(&f0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_graphs_after_a_link_or_a_switch_loss_plan_proven_stages),
		cmocka_unit_test(test_held_graphs_fit_only_the_same_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
