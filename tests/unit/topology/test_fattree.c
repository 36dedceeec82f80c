/*
 * Fat-tree generator sizes and removals, and min-hop routing on the
 * generated trees: every switch forwards every LID, every walk through
 * the tables reaches its destination on a shortest path, and leaves split
 * destinations evenly over their uplinks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "routing/routing.h"
#include "topology/fattree_gen.h"

static void generate(struct fattree_spec spec, struct fabric *f)
{
	char err[256];
	if (fattree_generate(&spec, f, err) < 0)
		fail_msg("%s", err);
}

/* LIDs as fabricd's LID manager hands them out on a fresh fabric: in node order. */
static void number_lids(struct fabric *f)
{
	uint16_t lid = 1;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		if (n->type == NODE_SWITCH)
			n->ports[0].lid = lid++;
		else
			n->ports[1].lid = lid++;
	}
}

static void test_fattree_two_levels_radix_36_has_648_hosts(void **state)
{
	struct fabric f;
	generate((struct fattree_spec){ .levels = 2, .radix = 36 }, &f);
	assert_int_equal(fabric_count(&f, NODE_CA), 648);
	assert_int_equal(fabric_count(&f, NODE_SWITCH), 54);
	assert_int_equal(fabric_link_count(&f), 648 + 36 * 18);
	assert_string_equal(f.nodes[0]->desc, "L0");
	fabric_free(&f);
}

static void test_fattree_three_levels_radix_16_has_1024_hosts(void **state)
{
	struct fabric f;
	generate((struct fattree_spec){ .levels = 3, .radix = 16 }, &f);
	assert_int_equal(fabric_count(&f, NODE_CA), 1024);
	assert_int_equal(fabric_count(&f, NODE_SWITCH), 128 + 128 + 64);
	assert_int_equal(fabric_link_count(&f), 1024 + 128 * 8 + 128 * 8);
	fabric_free(&f);
}

static void test_fattree_removals_are_seeded_and_keep_uplinks(void **state)
{
	struct fabric a, b;
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 2, .seed = 7 };
	generate(spec, &a);
	generate(spec, &b);
	assert_int_equal(fabric_count(&a, NODE_SWITCH), 80 - 2);
	/* 6 links dropped, plus the 8 links of each removed switch */
	assert_int_equal(fabric_link_count(&a), 128 + 32 * 4 + 32 * 4 - 6 - 2 * 8);
	for (size_t i = 0; i < a.nnodes; i++) {
		assert_string_equal(a.nodes[i]->desc, b.nodes[i]->desc);
		for (unsigned p = 1; p <= a.nodes[i]->nports; p++)
			assert_int_equal(a.nodes[i]->ports[p].remote_port, b.nodes[i]->ports[p].remote_port);
		if (a.nodes[i]->desc[0] == 'L') {
			unsigned up = 0;
			for (unsigned p = 5; p <= 8; p++)
				up += a.nodes[i]->ports[p].remote != NULL;
			assert_true(up >= 1);
		}
	}
	fabric_free(&a);
	fabric_free(&b);
}

static void test_fattree_rejects_odd_radix(void **state)
{
	struct fabric f;
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = 7 };
	assert_int_equal(fattree_generate(&spec, &f, err), -1);
	assert_string_equal(err, "radix must be even and 4..254, not 7");
}

/* Walks the tables from CA src to LID dst; returns hops, or -1 on a loop/drop. */
static int walk(const struct routing_tables *t, const struct node *src, uint16_t dst)
{
	const struct node *n = src->ports[1].remote;
	for (int hops = 1; hops < 64; hops++) {
		uint8_t out = t->lft[n->index][dst];
		if (out == LFT_NO_PATH)
			return -1;
		if (out == 0)
			return n->ports[0].lid == dst ? hops : -1;
		const struct port *p = &n->ports[out];
		if (!p->remote)
			return -1;
		if (p->remote->type != NODE_SWITCH)
			return p->remote->ports[p->remote_port].lid == dst ? hops : -1;
		n = p->remote;
	}
	return -1;
}

static void check_routes(struct fabric *f, int host_hops)
{
	struct routing_tables t;
	number_lids(f);
	assert_int_equal(minhop_route(f, &t), 0);
	assert_int_equal(t.max_lid, f->nnodes);
	for (size_t i = 0; i < f->nnodes; i++) {
		if (f->nodes[i]->type != NODE_SWITCH)
			continue;
		for (uint16_t lid = 1; lid <= t.max_lid; lid++)
			assert_int_not_equal(t.lft[i][lid], LFT_NO_PATH);
	}
	for (size_t s = 0; s < f->nnodes; s += 7) {
		const struct node *src = f->nodes[s];
		if (src->type != NODE_CA)
			continue;
		for (size_t d = 0; d < f->nnodes; d++) {
			const struct node *dst = f->nodes[d];
			if (dst->type != NODE_CA || dst == src)
				continue;
			int hops = walk(&t, src, dst->ports[1].lid);
			bool same_leaf = src->ports[1].remote == dst->ports[1].remote;
			if (same_leaf)
				assert_int_equal(hops, 1);
			else if (host_hops)
				assert_true(hops > 1 && hops <= host_hops);
			else
				assert_true(hops > 1);
		}
	}
	routing_tables_free(&t);
}

/* The end-port index answers every LID and port GUID as the scan does, and "none" alike. */
static void test_fabric_end_port_index_finds_what_the_scan_finds(void **state)
{
	struct fabric f;
	generate((struct fattree_spec){ .levels = 3, .radix = 8, .remove_links = 4, .remove_switches = 1, .seed = 3 },
		 &f);
	number_lids(&f);
	uint16_t max_lid = routing_max_lid(&f);
	const struct node *scan_lid[1024], *scan_guid[1024];
	uint8_t scan_lport[1024], scan_gport[1024], port;
	assert_true(max_lid + 2 < 1024);
	for (uint16_t lid = 1; lid <= max_lid + 1; lid++)
		scan_lid[lid] = fabric_find_lid(&f, lid, &scan_lport[lid]);
	for (size_t i = 0; i < f.nnodes; i++)
		scan_guid[i] = fabric_find_port_guid(&f, f.nodes[i]->ports[f.nodes[i]->type == NODE_SWITCH ? 0 : 1].guid,
						     &scan_gport[i]);
	assert_int_equal(fabric_index_end_ports(&f), 0);
	assert_non_null(f.ends);
	for (uint16_t lid = 1; lid <= max_lid + 1; lid++) {
		const struct node *n = fabric_find_lid(&f, lid, &port);
		assert_ptr_equal(n, scan_lid[lid]);
		if (n)
			assert_int_equal(port, scan_lport[lid]);
	}
	assert_null(scan_lid[max_lid + 1]);
	for (size_t i = 0; i < f.nnodes; i++) {
		const struct node *n = f.nodes[i];
		assert_ptr_equal(fabric_find_port_guid(&f, n->ports[n->type == NODE_SWITCH ? 0 : 1].guid, &port),
				 scan_guid[i]);
		assert_ptr_equal(scan_guid[i], n);
		assert_int_equal(port, scan_gport[i]);
	}
	assert_null(fabric_find_port_guid(&f, 0xdead, &port));
	fabric_free(&f);
}

static void test_minhop_routes_every_lid_on_shortest_paths(void **state)
{
	struct fabric f;
	generate((struct fattree_spec){ .levels = 2, .radix = 12 }, &f);
	check_routes(&f, 3);
	fabric_free(&f);
	generate((struct fattree_spec){ .levels = 3, .radix = 8 }, &f);
	check_routes(&f, 5);
	fabric_free(&f);
}

static void test_minhop_degraded_tree_stays_connected(void **state)
{
	struct fabric f;
	generate((struct fattree_spec){ .levels = 3, .radix = 8, .remove_links = 10, .remove_switches = 3,
					.seed = 3 }, &f);
	check_routes(&f, 0);
	fabric_free(&f);
}

static void test_minhop_leaf_uplinks_carry_equal_destinations(void **state)
{
	struct fabric f;
	struct routing_tables t;
	generate((struct fattree_spec){ .levels = 2, .radix = 8 }, &f);
	number_lids(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	/* 8 leaves x 4 hosts: each leaf routes 28 remote hosts over 4 uplinks */
	for (size_t i = 0; i < f.nnodes; i++) {
		const struct node *n = f.nodes[i];
		if (n->desc[0] != 'L')
			continue;
		unsigned per_port[9] = { 0 };
		for (size_t d = 0; d < f.nnodes; d++) {
			const struct node *dst = f.nodes[d];
			if (dst->type == NODE_CA && dst->ports[1].remote != n)
				per_port[t.lft[i][dst->ports[1].lid]]++;
		}
		for (unsigned p = 5; p <= 8; p++)
			assert_int_equal(per_port[p], 7);
	}
	routing_tables_free(&t);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree_two_levels_radix_36_has_648_hosts),
		cmocka_unit_test(test_fattree_three_levels_radix_16_has_1024_hosts),
		cmocka_unit_test(test_fattree_removals_are_seeded_and_keep_uplinks),
		cmocka_unit_test(test_fattree_rejects_odd_radix),
		cmocka_unit_test(test_fabric_end_port_index_finds_what_the_scan_finds),
		cmocka_unit_test(test_minhop_routes_every_lid_on_shortest_paths),
		cmocka_unit_test(test_minhop_degraded_tree_stays_connected),
		cmocka_unit_test(test_minhop_leaf_uplinks_carry_equal_destinations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
