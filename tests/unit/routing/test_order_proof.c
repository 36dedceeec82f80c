/*
 * The proof by channel order (routing/order_proof.c) on a 3-level radix-4
 * fat tree routed by ftree:
 * - the healthy tree's routes all rise in the up*-down* order: proven,
 *   and the dependency graph agrees (acyclic);
 * - an aggregation switch sending a remote CA's LID down to a leaf that
 *   sends it up again (a down-up turn): not proven by order;
 * - two switches pointing at each other for a core switch's LID (a
 *   forwarding loop, even off the leaves' paths): not proven.
 * It may say "not proven" where the graph is acyclic; it must never say
 * "proven" where it is not: 2,000 random single-entry changes of the
 * routed tree, and degraded radix-8 trees (seeds 1-20), are checked
 * against the graph (layers_assign with the answers) and routing/loops.c.
 * On a radix-16 tree (320 switches: checked in shares, one per CPU) a
 * ping-pong at the first and at the last switch is found alike.
 *
 * One layer proven along its walks (order_proof_layer): the down-up turn
 * above on a walk of layer 0 is seen; a ping-pong for a LID on another
 * layer, which no walk of layer 0 takes, is not; on degraded trees whose
 * escape entries fail the whole proof, layer 0 is proven where its graph
 * is acyclic, never where it is not (with random changes too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/cdg.h"
#include "routing/layers.h"
#include "routing/loops.h"
#include "routing/order_proof.h"
#include "routing/routing.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

struct routed {
	struct fabric f;
	struct routing_tables t;
};

static int setup(void **state)
{
	static struct routed r;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 4 };
	struct route_info info;
	if (fattree_generate(&spec, &r.f, err) < 0)
		return -1;
	number_lids(&r.f);
	if (ftree_route(&r.f, NULL, 0, 1, &r.t, &info) < 0)
		return -1;
	*state = &r;
	return 0;
}

static int teardown(void **state)
{
	struct routed *r = *state;
	routing_tables_free(&r->t);
	fabric_free(&r->f);
	return 0;
}

/* The port of a that leads to b; 0 if none. */
static uint8_t port_to(const struct node *a, const struct node *b)
{
	for (unsigned p = 1; p <= a->nports; p++)
		if (a->ports[p].remote == b)
			return (uint8_t)p;
	return 0;
}

static void healthy_tree_is_proven(void **state)
{
	struct routed *r = *state;
	assert_int_equal(order_proof(&r->f, &r->t), 1);
	struct cdg_report c;
	assert_int_equal(cdg_check(&r->f, &r->t, &c), 0);
	assert_int_equal(c.cycle_len, 0);
}

static void down_up_turn_is_not_proven(void **state)
{
	struct routed *r = *state;
	const struct node *h = fabric_find_desc(&r->f, "H0_0");
	const struct node *l0 = h->ports[1].remote;
	/* a CA under another pod's leaf: L0 sends it up to an aggregation switch */
	const struct node *far = NULL;
	for (size_t i = 0; i < r->f.nnodes && !far; i++) {
		const struct node *n = r->f.nodes[i];
		if (n->type == NODE_CA && n->ports[1].remote != l0 &&
		    routing_switch_hops(&r->t, l0, n->ports[1].lid) == 4)
			far = n;
	}
	assert_non_null(far);
	uint16_t lid = far->ports[1].lid;
	const struct node *agg = l0->ports[routing_next_hop(&r->t, l0, lid)].remote;
	/* the aggregation switch sends it down to its other leaf, which sends it up as before */
	const struct node *other = NULL;
	for (unsigned p = 1; p <= agg->nports && !other; p++) {
		const struct node *n = agg->ports[p].remote;
		if (n && n->type == NODE_SWITCH && n != l0 && n->desc[0] == 'L')
			other = n;
	}
	assert_non_null(other);
	uint8_t was = r->t.lft[agg->index][lid];
	r->t.lft[agg->index][lid] = port_to(agg, other);
	assert_int_equal(order_proof(&r->f, &r->t), 0);
	r->t.lft[agg->index][lid] = was;
	assert_int_equal(order_proof(&r->f, &r->t), 1);
}

static void forwarding_loop_is_not_proven(void **state)
{
	struct routed *r = *state;
	const struct node *core = fabric_find_desc(&r->f, "C0");
	uint16_t lid = core->ports[0].lid;
	/* an aggregation switch and another core switch above it point at each other for C0's LID */
	const struct node *agg = NULL, *other = NULL;
	for (size_t i = 0; i < r->f.nnodes && !other; i++) {
		const struct node *a = r->f.nodes[i];
		if (a->type != NODE_SWITCH || a->desc[0] != 'A')
			continue;
		for (unsigned p = 1; p <= a->nports && !other; p++) {
			const struct node *c = a->ports[p].remote;
			if (c && c->type == NODE_SWITCH && c->desc[0] == 'C' && c != core) {
				agg = a;
				other = c;
			}
		}
	}
	assert_non_null(other);
	uint8_t was_agg = r->t.lft[agg->index][lid], was_other = r->t.lft[other->index][lid];
	r->t.lft[agg->index][lid] = port_to(agg, other);
	r->t.lft[other->index][lid] = port_to(other, agg);
	assert_int_equal(order_proof(&r->f, &r->t), 0);
	r->t.lft[agg->index][lid] = was_agg;
	r->t.lft[other->index][lid] = was_other;
}

/* Whenever the order proof says proven, the graph says acyclic with the answers and nothing loops. */
static void agrees_with_the_graph(const struct fabric *f, const struct routing_tables *t, unsigned *proven)
{
	int ordered = order_proof(f, t);
	assert_true(ordered >= 0);
	if (!ordered)
		return;
	(*proven)++;
	struct routing_tables copy = *t;
	size_t n = (size_t)t->max_lid + 1;
	copy.sl = malloc(n);
	assert_non_null(copy.sl);
	memcpy(copy.sl, t->sl, n);
	struct layers_report lr;
	assert_int_equal(layers_assign(f, &copy, 1, NULL, &lr), 0);
	assert_true(lr.answers_proven);
	free(copy.sl);
	struct loops_report loops;
	assert_int_equal(loops_find(f, t, &loops), 0);
	assert_int_equal(loops.entries, 0);
}

static void random_changes_never_prove_a_cycle(void **state)
{
	struct routed *r = *state;
	unsigned proven = 0, tried = 0;
	srand(7);
	for (unsigned i = 0; i < 2000; i++) {
		const struct node *sw = r->f.nodes[(size_t)rand() % r->f.nnodes];
		if (sw->type != NODE_SWITCH)
			continue;
		uint16_t lid = (uint16_t)(1 + rand() % r->t.max_lid);
		uint8_t was = r->t.lft[sw->index][lid];
		r->t.lft[sw->index][lid] = (uint8_t)(1 + rand() % sw->nports);
		agrees_with_the_graph(&r->f, &r->t, &proven);
		r->t.lft[sw->index][lid] = was;
		tried++;
	}
	/* some changes keep every turn rising (another up-port), most do not */
	print_message("order-proven after one random change: %u of %u\n", proven, tried);
	assert_true(proven > 0 && proven < tried);
}

/* Seed `seed` of the degraded radix-8 family, routed by ftree on 8 VLs. */
static void route_degraded_r8(uint64_t seed, struct fabric *f, struct routing_tables *t)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = seed };
	struct route_info info;
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
	assert_true(ftree_route(f, NULL, 0, 8, t, &info) >= 0);
}

static void degraded_trees_never_prove_a_cycle(void **state)
{
	(void)state;
	unsigned proven = 0;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct fabric f;
		struct routing_tables t;
		route_degraded_r8(seed, &f, &t);
		agrees_with_the_graph(&f, &t, &proven);
		routing_tables_free(&t);
		fabric_free(&f);
	}
	print_message("order-proven degraded trees: %u of 20\n", proven);
}

/* Switch sw and its first neighbour switch send lid to each other: a down-up turn at the lower one. */
static void ping_pong_is_found(const struct fabric *f, struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	const struct node *next = NULL;
	for (unsigned p = 1; p <= sw->nports && !next; p++)
		if (sw->ports[p].remote && sw->ports[p].remote->type == NODE_SWITCH)
			next = sw->ports[p].remote;
	assert_non_null(next);
	uint8_t was_sw = t->lft[sw->index][lid], was_next = t->lft[next->index][lid];
	t->lft[sw->index][lid] = port_to(sw, next);
	t->lft[next->index][lid] = port_to(next, sw);
	assert_int_equal(order_proof(f, t), 0);
	t->lft[sw->index][lid] = was_sw;
	t->lft[next->index][lid] = was_next;
}

static void every_share_is_checked(void **state)
{
	(void)state;
	struct fabric f;
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 16 };
	struct routing_tables t;
	struct route_info info;
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(ftree_route(&f, NULL, 0, 1, &t, &info), 0);
	assert_int_equal(order_proof(&f, &t), 1);
	const struct node *first = NULL, *last = NULL;
	for (size_t i = 0; i < f.nnodes; i++)
		if (f.nodes[i]->type == NODE_SWITCH) {
			first = first ? first : f.nodes[i];
			last = f.nodes[i];
		}
	uint16_t lid = fabric_find_desc(&f, "H0_0")->ports[1].lid;
	ping_pong_is_found(&f, &t, first, lid);
	ping_pong_is_found(&f, &t, last, lid);
	assert_int_equal(order_proof(&f, &t), 1);
	routing_tables_free(&t);
	fabric_free(&f);
}

static int layer_proof(const struct fabric *f, const struct routing_tables *t, unsigned layer, bool answers)
{
	struct cdg_mix m = cdg_mix_of(t);
	m.no_answers = !answers;
	return order_proof_layer(f, &m, layer);
}

static void layer_proof_sees_a_down_up_turn_on_a_walk(void **state)
{
	struct routed *r = *state;
	const struct node *l0 = fabric_find_desc(&r->f, "H0_0")->ports[1].remote;
	const struct node *far = NULL;
	for (size_t i = 0; i < r->f.nnodes && !far; i++) {
		const struct node *n = r->f.nodes[i];
		if (n->type == NODE_CA && routing_switch_hops(&r->t, l0, n->ports[1].lid) == 4)
			far = n;
	}
	assert_non_null(far);
	uint16_t lid = far->ports[1].lid;
	const struct node *agg = l0->ports[routing_next_hop(&r->t, l0, lid)].remote, *other = NULL;
	for (unsigned p = 1; p <= agg->nports && !other; p++) {
		const struct node *n = agg->ports[p].remote;
		if (n && n->type == NODE_SWITCH && n != l0 && n->desc[0] == 'L')
			other = n;
	}
	assert_non_null(other);
	assert_int_equal(layer_proof(&r->f, &r->t, 0, true), 1);
	uint8_t was = r->t.lft[agg->index][lid];
	r->t.lft[agg->index][lid] = port_to(agg, other);	/* down to a leaf that sends it up again */
	assert_int_equal(layer_proof(&r->f, &r->t, 0, true), 0);
	assert_int_equal(layer_proof(&r->f, &r->t, 0, false), 0);	/* L0's own hosts walk it */
	r->t.lft[agg->index][lid] = was;
	assert_int_equal(layer_proof(&r->f, &r->t, 0, true), 1);
}

static void layer_proof_leaves_other_layers_alone(void **state)
{
	struct routed *r = *state;
	const struct node *core = fabric_find_desc(&r->f, "C0"), *agg = NULL;
	uint16_t lid = core->ports[0].lid;
	for (unsigned p = 1; p <= core->nports && !agg; p++)
		if (core->ports[p].remote && core->ports[p].remote->type == NODE_SWITCH)
			agg = core->ports[p].remote;
	assert_non_null(agg);
	uint8_t was_core = r->t.lft[core->index][lid], was_agg = r->t.lft[agg->index][lid];
	/* C0's LID on layer 1, and a down-up ping-pong for it: C0 down to agg, agg up to C0 */
	r->t.sl[lid] = 1;
	r->t.layers = 2;
	r->t.lft[core->index][lid] = port_to(core, agg);
	r->t.lft[agg->index][lid] = port_to(agg, core);
	assert_int_equal(order_proof(&r->f, &r->t), 0);
	assert_int_equal(layer_proof(&r->f, &r->t, 0, true), 1);
	r->t.lft[core->index][lid] = was_core;
	r->t.lft[agg->index][lid] = was_agg;
	r->t.sl[lid] = 0;
	r->t.layers = 1;
}

/* Whenever layer l is proven by order, its graph (answers as asked) is acyclic. */
static void layer_agrees_with_the_graph(const struct fabric *f, const struct routing_tables *t, unsigned l,
					bool answers, unsigned *proven)
{
	struct cdg_mix m = cdg_mix_of(t);
	struct cdg_report c;
	m.no_answers = !answers;
	int ordered = order_proof_layer(f, &m, l);
	assert_true(ordered >= 0);
	if (!ordered)
		return;
	(*proven)++;
	assert_int_equal(cdg_check_layer_with(f, &m, l, NULL, NULL, &c), 0);
	assert_int_equal(c.cycle_len, 0);
}

static void degraded_trees_prove_layer_0_along_its_walks(void **state)
{
	(void)state;
	unsigned proven = 0, checks = 0;
	srand(11);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct fabric f;
		struct routing_tables t;
		route_degraded_r8(seed, &f, &t);
		if (seed == 1) {	/* escape entries: not the whole fabric, but layer 0 */
			assert_true(t.layers > 1);
			assert_int_equal(order_proof(&f, &t), 0);
			assert_int_equal(layer_proof(&f, &t, 0, true), 1);
		}
		for (unsigned round = 0; round < 4; round++) {
			for (unsigned l = 0; l < t.layers; l++, checks += 2) {
				layer_agrees_with_the_graph(&f, &t, l, true, &proven);
				layer_agrees_with_the_graph(&f, &t, l, false, &proven);
			}
			for (unsigned k = 0; k < 4; k++) {	/* then some entries changed at random */
				const struct node *sw = f.nodes[(size_t)rand() % f.nnodes];
				if (sw->type == NODE_SWITCH)
					t.lft[sw->index][1 + rand() % t.max_lid] = (uint8_t)(1 + rand() % sw->nports);
			}
		}
		routing_tables_free(&t);
		fabric_free(&f);
	}
	print_message("layers proven by order along their walks: %u of %u\n", proven, checks);
	assert_true(proven > 0 && proven < checks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_tree_is_proven),
		cmocka_unit_test(down_up_turn_is_not_proven),
		cmocka_unit_test(forwarding_loop_is_not_proven),
		cmocka_unit_test(random_changes_never_prove_a_cycle),
		cmocka_unit_test(degraded_trees_never_prove_a_cycle),
		cmocka_unit_test(every_share_is_checked),
		cmocka_unit_test(layer_proof_sees_a_down_up_turn_on_a_walk),
		cmocka_unit_test(layer_proof_leaves_other_layers_alone),
		cmocka_unit_test(degraded_trees_prove_layer_0_along_its_walks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
