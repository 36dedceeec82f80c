/*
 * Forwarding loops from every switch: the fat-tree engine leaves none on
 * the degraded 3-level trees where switches without a legal path once
 * took D-mod-K up-ports back into their own column; a planted loop is
 * found and named. The switches' own traffic (answers to hosts, on their
 * LID's SL) is in the deadlock proof on the same trees with 8 VLs; with
 * too few VLs for it, the hosts' traffic is still routed and proven.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "routing/cdg.h"
#include "routing/engine.h"
#include "routing/loops.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

static void route_degraded(struct fabric *f, struct routing_tables *t, struct routing_result *res,
			   unsigned radix, unsigned links, unsigned switches, uint64_t seed)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = radix, .remove_links = links, .remove_switches = switches,
				     .seed = seed };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
	assert_int_equal(routing_compute(f, &rq, t, res), 0);
}

static void test_loops_and_answers_none_on_degraded_r8_trees_seeds_1_to_20(void **state)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct fabric f;
		struct routing_tables t;
		struct routing_result res;
		struct loops_report r;
		route_degraded(&f, &t, &res, 8, 6, 1, seed);
		assert_int_equal(loops_find(&f, &t, &r), 0);
		assert_int_equal(r.entries, 0);
		assert_int_equal(res.loops.entries, 0);
		assert_true(res.layers.answers_proven);
		routing_tables_free(&t);
		fabric_free(&f);
	}
}

static void test_loops_and_answers_none_on_degraded_r16_seed_7(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct routing_result res;
	route_degraded(&f, &t, &res, 16, 24, 4, 7);
	assert_string_equal(res.info.engine, "ftree");
	assert_int_equal(res.loops.entries, 0);
	assert_true(res.layers.answers_proven);
	routing_tables_free(&t);
	fabric_free(&f);
}

/*
 * The same tree on 3 VLs: the answers need more (4), so the hosts' traffic
 * alone is layered, and proven.
 */
static void test_answers_left_out_when_the_vls_are_too_few(void **state)
{
	char err[256];
	struct fabric f;
	struct routing_tables t;
	struct routing_result res;
	struct cdg_report cdg;
	struct fattree_spec spec = { .levels = 3, .radix = 16, .remove_links = 24, .remove_switches = 4, .seed = 7 };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 3 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(routing_compute(&f, &rq, &t, &res), 0);
	assert_false(res.layers.answers_proven);
	assert_true(res.layers.answers.cycle_len > 0);
	struct cdg_mix hosts = cdg_mix_of(&t);
	hosts.no_answers = true;
	assert_int_equal(cdg_check_mix(&f, &hosts, &cdg), 0);
	assert_int_equal(cdg.cycle_len, 0);
	assert_int_equal(cdg_check(&f, &t, &cdg), 0);
	assert_true(cdg.cycle_len > 0);
	routing_tables_free(&t);
	fabric_free(&f);
}

/* R0 and R1 sending LID 5 (H4's, on R4) at each other: both entries loop, the rest arrive. */
static void test_loops_planted_loop_is_found_and_named(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct loops_report r;
	char text[128];
	ring(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(loops_find(&f, &t, &r), 0);
	assert_int_equal(r.entries, 0);
	const struct node *r0 = fabric_find_desc(&f, "R0"), *r1 = fabric_find_desc(&f, "R1");
	uint16_t lid = fabric_find_desc(&f, "H3")->ports[1].lid;
	t.lft[r0->index][lid] = 1;	/* clockwise, to R1 */
	t.lft[r1->index][lid] = 2;	/* counter-clockwise, back to R0 */
	assert_int_equal(loops_find(&f, &t, &r), 0);
	assert_int_equal(r.lids, 1);
	assert_true(r.entries >= 2);
	assert_int_equal(r.first_lid, lid);
	loops_text(&r, text, sizeof(text));
	assert_true(strstr(text, "R0 -> R1 -> R0") || strstr(text, "R1 -> R0 -> R1"));
	routing_tables_free(&t);
	fabric_free(&f);
}

/* A ping-pong between sw and its first neighbour switch for lid. */
static void plant_ping_pong(struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	for (unsigned p = 1; p <= sw->nports; p++) {
		const struct node *next = sw->ports[p].remote;
		if (next && next->type == NODE_SWITCH) {
			t->lft[sw->index][lid] = (uint8_t)p;
			t->lft[next->index][lid] = sw->ports[p].remote_port;
			return;
		}
	}
	fail();
}

/*
 * On a radix-16 tree (2,368 nodes: its LIDs shared out among the CPUs) a
 * loop planted at the last LID and one at the first are both counted, and
 * the first is the one named, as one walk over all the LIDs gives.
 */
static void test_loops_found_in_every_share(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct routing_result res;
	struct loops_report r;
	route_degraded(&f, &t, &res, 16, 0, 0, 0);
	assert_int_equal(loops_find(&f, &t, &r), 0);
	assert_int_equal(r.entries, 0);
	const struct node *sw = fabric_find_desc(&f, "L0");
	plant_ping_pong(&t, sw, t.max_lid);
	assert_int_equal(loops_find(&f, &t, &r), 0);
	assert_int_equal(r.lids, 1);
	assert_int_equal(r.first_lid, t.max_lid);
	size_t last_entries = r.entries;
	plant_ping_pong(&t, sw, 1);
	assert_int_equal(loops_find(&f, &t, &r), 0);
	assert_int_equal(r.lids, 2);
	assert_int_equal(r.first_lid, 1);
	assert_true(r.entries > last_entries);
	routing_tables_free(&t);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loops_and_answers_none_on_degraded_r8_trees_seeds_1_to_20),
		cmocka_unit_test(test_loops_and_answers_none_on_degraded_r16_seed_7),
		cmocka_unit_test(test_answers_left_out_when_the_vls_are_too_few),
		cmocka_unit_test(test_loops_planted_loop_is_found_and_named),
		cmocka_unit_test(test_loops_found_in_every_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
