/*
 * The deadlock proof over (channel, VL) pairs, with each hop's VL read
 * from SL-to-VL tables: on one VL it finds the ring's loop as the layer
 * proof does; a VL-by-hop scheme (first ring hop VL 0, later ones VL 1),
 * which layers cannot express, breaks it; VL 15 drops; a missing table is
 * named; and on degraded trees routed by fabricd, with the maps fabricd
 * programs, it agrees with the layer proof about the switches' answers,
 * and finds the loop they close once port 0 keeps the SL's VL. A
 * transition's mixture gets the same verdicts as the layer proof's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "routing/cdg.h"
#include "routing/cdg_vl.h"
#include "routing/engine.h"
#include "routing/transition.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

/* Every (in, out) pair of every switch: VL vl_of(in, out, sl). */
static void fill(struct sl2vl_tables *m, const struct fabric *f, uint8_t (*vl_of)(const struct node *, unsigned,
											 unsigned, unsigned))
{
	assert_int_equal(sl2vl_init(m, f), 0);
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned in = 0; n->type == NODE_SWITCH && in <= n->nports; in++)
			for (unsigned out = 0; out <= n->nports; out++) {
				uint8_t vl[SL2VL_SLS];
				for (unsigned sl = 0; sl < SL2VL_SLS; sl++)
					vl[sl] = vl_of(n, in, out, sl);
				assert_int_equal(sl2vl_set(m, n, in, out, vl), 0);
			}
	}
}

static uint8_t all_vl0(const struct node *n, unsigned in, unsigned out, unsigned sl)
{
	return 0;
}

/* The ring's ports 1 and 2 are ring links: a packet that came over one takes VL 1 onward. */
static uint8_t vl_by_hop(const struct node *n, unsigned in, unsigned out, unsigned sl)
{
	return in == 1 || in == 2 ? 1 : 0;
}

static uint8_t drop_all(const struct node *n, unsigned in, unsigned out, unsigned sl)
{
	return 15;
}

/* What fabricd programs (sm/sweep/qos.c): SL s on VL s of 8, and every SL from port 0 on VL 0. */
static uint8_t fabricd_map(const struct node *n, unsigned in, unsigned out, unsigned sl)
{
	return in == 0 ? 0 : sl % 8;
}

static uint8_t port0_keeps_sl(const struct node *n, unsigned in, unsigned out, unsigned sl)
{
	return sl % 8;
}

static void test_cdg_vl_ring_on_one_vl_has_the_ring_loop(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct sl2vl_tables m;
	struct cdg_report r, layer;
	struct cdg_vl_missing miss;
	ring(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	fill(&m, &f, all_vl0);
	struct cdg_vl_request q = { .t = &t, .vl = &m };
	assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), 0);
	assert_int_equal(cdg_check(&f, &t, &layer), 0);
	assert_int_equal(r.cycle_len, 5);
	assert_int_equal(layer.cycle_len, 5);
	assert_true(r.per_vl);
	assert_int_equal(r.dependencies, layer.dependencies);
	char text[256];
	cdg_cycle_text(&r, text, sizeof(text));
	assert_non_null(strstr(text, "]/VL0 -> "));
	sl2vl_free(&m);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_cdg_vl_ring_with_vl_by_hop_is_acyclic(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct sl2vl_tables m;
	struct cdg_report r;
	struct cdg_vl_missing miss;
	ring(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	fill(&m, &f, vl_by_hop);
	struct cdg_vl_request q = { .t = &t, .vl = &m };
	assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), 0);
	assert_int_equal(r.cycle_len, 0);
	/*
	 * Min-hop on five switches: a host reaches the switches either side in
	 * one ring hop and the two opposite in two. Each first hop, on VL 0,
	 * waits for the neighbour's CA channel or its next ring hop, both on
	 * VL 1 (5 switches x 2 directions x 2); each second hop, on VL 1, for
	 * the CA channel after it (5 x 2). Nothing waits on a VL 1 ring hop
	 * but a CA channel.
	 */
	assert_int_equal(r.dependencies, 30);
	sl2vl_free(&m);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_cdg_vl_vl15_drops_and_a_missing_table_is_named(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct sl2vl_tables m, none;
	struct cdg_report r;
	struct cdg_vl_missing miss = { 0 };
	ring(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	fill(&m, &f, drop_all);
	struct cdg_vl_request q = { .t = &t, .vl = &m };
	assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), 0);
	assert_int_equal(r.dependencies, 0);
	assert_int_equal(r.cycle_len, 0);
	assert_int_equal(sl2vl_init(&none, &f), 0);
	q.vl = &none;
	assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), -2);
	assert_non_null(miss.node);
	assert_int_equal(miss.node->type, NODE_SWITCH);
	assert_int_equal(miss.in, 3);	/* traffic enters from the CA on port 3 */
	assert_true(miss.out == 1 || miss.out == 2);
	sl2vl_free(&none);
	sl2vl_free(&m);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void route_degraded(struct fabric *f, struct routing_tables *t, struct routing_result *res, uint64_t seed)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = seed };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
	assert_int_equal(routing_compute(f, &rq, t, res), 0);
}

/*
 * Seeds 1-20 of the degraded radix-8 family: with fabricd's maps the
 * switches' answers close no cycle, as the layer proof says; counted
 * over the seeds, keeping the SL's VL from port 0 closes some.
 */
static void test_cdg_vl_agrees_with_the_layers_on_degraded_trees(void **state)
{
	unsigned cyclic_without_port0_rule = 0;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct fabric f;
		struct routing_tables t;
		struct routing_result res;
		struct sl2vl_tables m, keep;
		struct cdg_report r;
		struct cdg_vl_missing miss;
		route_degraded(&f, &t, &res, seed);
		assert_true(res.layers.answers_proven);
		fill(&m, &f, fabricd_map);
		fill(&keep, &f, port0_keeps_sl);
		struct cdg_vl_request q = { .t = &t, .vl = &m, .answers = true };
		assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), 0);
		assert_int_equal(r.cycle_len, 0);
		q.vl = &keep;
		assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), 0);
		cyclic_without_port0_rule += r.cycle_len > 0;
		q.answers = false;	/* the hosts' own traffic never enters at port 0 */
		assert_int_equal(cdg_vl_check(&f, &q, &r, &miss), 0);
		assert_int_equal(r.cycle_len, 0);
		sl2vl_free(&keep);
		sl2vl_free(&m);
		routing_tables_free(&t);
		fabric_free(&f);
	}
	print_message("seeds 1-20: %u cyclic once port 0 keeps the SL's VL\n", cyclic_without_port0_rule);
	assert_true(cyclic_without_port0_rule > 0);
}

/* Whether cdg_vl finds before -> after cyclic, with the CAs' traffic on the VLs m maps. */
static bool vl_mixture_cyclic(const struct fabric *f, const struct routing_tables *before,
			      const struct routing_tables *after, const struct sl2vl_tables *m)
{
	struct cdg_vl_request q = { .t = after, .before = before, .vl = m };
	struct cdg_vl_missing miss;
	struct cdg_report r;
	assert_int_equal(cdg_vl_check(f, &q, &r, &miss), 0);
	return r.cycle_len > 0;
}

/*
 * A transition judged over the switches' VLs: on the degraded tree (seed
 * 2) a leaf up-link fails; the plain old -> new mixture is cyclic for
 * the layer proof and over fabricd's maps alike, and each step of the
 * staged plan is acyclic for both.
 */
static void test_cdg_vl_transition_agrees_with_the_layer_proof(void **state)
{
	struct fabric f;
	struct routing_tables old, new;
	struct routing_result res;
	struct sl2vl_tables m;
	struct cdg_report r;
	struct transition_plan p;
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	route_degraded(&f, &old, &res, 2);
	struct node *leaf = fabric_find_desc(&f, "L0");
	unsigned up = 1;
	while (!leaf->ports[up].remote || leaf->ports[up].remote->type != NODE_SWITCH)
		up++;
	fabric_unlink(leaf, (uint8_t)up);
	assert_int_equal(routing_compute(&f, &rq, &new, &res), 0);
	fill(&m, &f, fabricd_map);
	assert_int_equal(transition_check_step(&f, &old, &new, &old, &new, &r), 0);
	assert_true(r.cycle_len > 0);
	assert_true(vl_mixture_cyclic(&f, &old, &new, &m));
	assert_int_equal(transition_plan(&f, &old, &new, &p), 0);
	assert_true(p.proven && p.nstages > 1);
	const struct routing_tables *from = &old;
	for (size_t i = 0; i < p.nstages; i++) {
		const struct routing_tables *to = transition_stage(&p, i);
		assert_false(vl_mixture_cyclic(&f, from, to, &m));
		from = to;
	}
	assert_false(vl_mixture_cyclic(&f, &new, &new, &m));
	transition_plan_free(&p);
	sl2vl_free(&m);
	routing_tables_free(&old);
	routing_tables_free(&new);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cdg_vl_ring_on_one_vl_has_the_ring_loop),
		cmocka_unit_test(test_cdg_vl_ring_with_vl_by_hop_is_acyclic),
		cmocka_unit_test(test_cdg_vl_vl15_drops_and_a_missing_table_is_named),
		cmocka_unit_test(test_cdg_vl_agrees_with_the_layers_on_degraded_trees),
		cmocka_unit_test(test_cdg_vl_transition_agrees_with_the_layer_proof),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
