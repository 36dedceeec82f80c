/*
 * The fat-tree engine: on full 2- and 3-level trees every shift
 * permutation loads each link with exactly one flow; degraded trees keep
 * every pair connected on up/down paths; a fabric that is not a fat tree
 * falls back to up/down and says why; every result is acyclic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engine.h"
#include "routing/quality.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

static void generate_seeded(struct fabric *f, unsigned levels, unsigned radix, unsigned links, unsigned switches,
			    uint64_t seed)
{
	char err[256];
	struct fattree_spec spec = { .levels = levels, .radix = radix, .remove_links = links,
				     .remove_switches = switches, .seed = seed };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
}

static void generate(struct fabric *f, unsigned levels, unsigned radix, unsigned links, unsigned switches)
{
	generate_seeded(f, levels, radix, links, switches, 5);
}

/* Routes f with ftree on up to 8 VLs, checks every layer is acyclic and every flow delivered. */
static void route_checked(struct fabric *f, struct routing_tables *t, struct route_info *info,
			  struct quality_report *q)
{
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	struct routing_result res;
	struct cdg_report cdg;
	assert_int_equal(routing_compute(f, &rq, t, &res), 0);
	assert_true(res.layers.answers_proven);
	*info = res.info;
	assert_int_equal(cdg_check(f, t, &cdg), 0);
	assert_int_equal(cdg.cycle_len, 0);
	assert_int_equal(quality_shifts(f, t, 0, q), 0);
	assert_int_equal(q->broken, 0);
	assert_int_equal(q->permutations, q->hosts - 1);
}

static void full_tree_shift_load_is_one(unsigned levels, unsigned radix, size_t hosts)
{
	struct fabric f;
	struct routing_tables t;
	struct route_info info;
	struct quality_report q;
	generate(&f, levels, radix, 0, 0);
	route_checked(&f, &t, &info, &q);
	assert_string_equal(info.engine, "ftree");
	assert_int_equal(info.levels, levels);
	assert_int_equal(q.hosts, hosts);
	assert_int_equal(q.max_load, 1);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_ftree_shift_load_is_one_on_full_2_level_r8(void **state)
{
	full_tree_shift_load_is_one(2, 8, 32);
}

static void test_ftree_shift_load_is_one_on_full_2_level_r36(void **state)
{
	full_tree_shift_load_is_one(2, 36, 648);
}

static void test_ftree_shift_load_is_one_on_full_3_level_r8(void **state)
{
	full_tree_shift_load_is_one(3, 8, 128);
}

static void test_ftree_shift_load_is_one_on_full_3_level_r12(void **state)
{
	full_tree_shift_load_is_one(3, 12, 432);
}

/* Min-hop, the comparison: balanced by destination count, but not per shift. */
static void test_ftree_minhop_overloads_a_link_where_ftree_does_not(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct quality_report q;
	generate(&f, 3, 8, 0, 0);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(quality_shifts(&f, &t, 0, &q), 0);
	assert_true(q.max_load > 1);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_ftree_degraded_3_level_keeps_every_pair_on_up_down_paths(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct route_info info;
	struct quality_report q;
	generate(&f, 3, 8, 6, 2);
	route_checked(&f, &t, &info, &q);
	assert_string_equal(info.engine, "ftree");
	assert_int_equal(q.hosts, 128);
	/*
	 * switch LIDs of cut-off columns need escape routes on a layer above
	 * the hosts', the switches' answers to hosts more: 4 layers, as the
	 * escape layers start one per switch level (3 when they started as
	 * one; over 67 other degraded trees 15 need fewer, 10 one more, 8
	 * layers fewer in all)
	 */
	assert_int_equal(t.layers, 4);
	routing_tables_free(&t);
	/* at least as balanced as min-hop on what is left */
	struct quality_report mq;
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(quality_shifts(&f, &t, 0, &mq), 0);
	printf("degraded: ftree max %u mean-max %.2f, minhop max %u mean-max %.2f\n", q.max_load,
	       q.mean_max_load, mq.max_load, mq.mean_max_load);
	assert_true(q.max_load <= mq.max_load);
	assert_true(q.mean_max_load < mq.mean_max_load);
	routing_tables_free(&t);
	fabric_free(&f);
}

/* A generated switch's level from its name: leaves L, then spines S or aggregation A, then cores C. */
static int level_of(const struct node *n)
{
	return n->desc[0] == 'L' ? 0 : n->desc[0] == 'C' ? 2 : 1;
}

/*
 * The widest gap, over every switch, between the CA LIDs its up-ports
 * carry, or between those its down-ports carry: what check_lft_balance
 * judges, with up- and down-ports apart as its -e heuristic allows.
 */
static unsigned widest_port_gap(const struct fabric *f, const struct routing_tables *t)
{
	unsigned widest = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *sw = f->nodes[i];
		unsigned count[FABRIC_MAX_PORTS + 1] = { 0 }, lo[2] = { UINT_MAX, UINT_MAX }, hi[2] = { 0, 0 };
		if (sw->type != NODE_SWITCH)
			continue;
		for (size_t k = 0; k < f->nnodes; k++)
			if (f->nodes[k]->type == NODE_CA && f->nodes[k]->ports[1].lid)
				count[t->lft[i][f->nodes[k]->ports[1].lid]]++;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct node *peer = sw->ports[p].remote;
			if (!peer || peer->type != NODE_SWITCH)
				continue;
			int up = level_of(peer) > level_of(sw);
			lo[up] = count[p] < lo[up] ? count[p] : lo[up];
			hi[up] = count[p] > hi[up] ? count[p] : hi[up];
		}
		for (int up = 0; up < 2; up++)
			if (hi[up] >= lo[up] && hi[up] - lo[up] > widest)
				widest = hi[up] - lo[up];
	}
	return widest;
}

/*
 * Links and switches lost: the ports that lost legal paths would carry
 * fewer destinations, so destinations move between equally good ports
 * until every switch's ports are within one CA LID of each other, and
 * the worst shift permutation stays at most 6 flows on a link (OpenSM's
 * ftree leaves 9-10 on these trees: docs/benchmarks.md). It was 5 while
 * switches without a legal path took D-mod-K up-ports, which looped.
 */
static void degraded_ports_within_one(unsigned levels, unsigned radix, unsigned links, unsigned switches,
				      uint64_t seed)
{
	struct fabric f;
	struct routing_tables t;
	struct route_info info;
	struct quality_report q;
	generate_seeded(&f, levels, radix, links, switches, seed);
	route_checked(&f, &t, &info, &q);
	assert_string_equal(info.engine, "ftree");
	assert_int_equal(widest_port_gap(&f, &t), 1);
	assert_in_range(q.max_load, 2, 6);
	routing_tables_free(&t);
	fabric_free(&f);
}

static void test_ftree_degraded_2_level_r36_ports_within_one_ca_lid(void **state)
{
	degraded_ports_within_one(2, 36, 20, 1, 4);
}

static void test_ftree_degraded_3_level_r16_ports_within_one_ca_lid(void **state)
{
	degraded_ports_within_one(3, 16, 12, 2, 1);
	degraded_ports_within_one(3, 16, 12, 2, 2);
}

static void test_ftree_ring_is_not_a_fat_tree_and_falls_back_to_updown(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct route_info info;
	struct quality_report q;
	ring(&f);
	route_checked(&f, &t, &info, &q);
	assert_string_equal(info.engine, "updown");
	assert_non_null(strstr(info.note, "not a fat tree: link R"));
	assert_non_null(strstr(info.note, "joins levels 0 and 0"));
	routing_tables_free(&t);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftree_shift_load_is_one_on_full_2_level_r8),
		cmocka_unit_test(test_ftree_shift_load_is_one_on_full_2_level_r36),
		cmocka_unit_test(test_ftree_shift_load_is_one_on_full_3_level_r8),
		cmocka_unit_test(test_ftree_shift_load_is_one_on_full_3_level_r12),
		cmocka_unit_test(test_ftree_minhop_overloads_a_link_where_ftree_does_not),
		cmocka_unit_test(test_ftree_degraded_3_level_keeps_every_pair_on_up_down_paths),
		cmocka_unit_test(test_ftree_degraded_2_level_r36_ports_within_one_ca_lid),
		cmocka_unit_test(test_ftree_degraded_3_level_r16_ports_within_one_ca_lid),
		cmocka_unit_test(test_ftree_ring_is_not_a_fat_tree_and_falls_back_to_updown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
