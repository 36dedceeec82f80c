/*
 * Multicast trees: on a 2-level tree the group's tree is exactly the
 * members' leaves, their ports to the members and their links to one
 * root spine (one member alone: no tree; two on one leaf: that leaf
 * alone); its dependencies with the
 * fat-tree routes stay acyclic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/cdg.h"
#include "routing/mtree.h"
#include "routing/routing.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

static unsigned ports_on(const struct node *n, bool *const *on)
{
	unsigned c = 0;
	for (unsigned p = 0; p <= n->nports; p++)
		c += on[n->index][p];
	return c;
}

static int add_tree(void *arg, struct depgraph *g)
{
	void **a = arg;
	return mtree_dependencies(a[0], a[1], g);
}

static void test_mtree_joins_the_members_leaves_through_one_spine(void **state)
{
	(void)state;
	struct fabric f;
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	const struct node *h0 = fabric_find_desc(&f, "H0_0"), *h3 = fabric_find_desc(&f, "H3_1");
	struct mtree_member m[] = { { h0, 1 }, { h3, 1 } };
	bool **on = calloc(f.nnodes, sizeof(*on));
	for (size_t i = 0; i < f.nnodes; i++)
		on[i] = calloc((size_t)f.nodes[i]->nports + 1, sizeof(bool));
	assert_int_equal(mtree_build(&f, m, 1, on), 0);	/* one member alone: no tree */
	for (size_t i = 0; i < f.nnodes; i++)
		assert_int_equal(ports_on(f.nodes[i], on), 0);
	const struct node *h0_1 = fabric_find_desc(&f, "H0_1");
	struct mtree_member same_leaf[] = { { h0, 1 }, { h0_1, 1 } };
	assert_int_equal(mtree_build(&f, same_leaf, 2, on), 0);	/* one leaf: its two member ports, nothing above */
	for (size_t i = 0; i < f.nnodes; i++)
		assert_int_equal(ports_on(f.nodes[i], on), f.nodes[i] == h0->ports[1].remote ? 2 : 0);
	for (size_t i = 0; i < f.nnodes; i++)
		memset(on[i], 0, ((size_t)f.nodes[i]->nports + 1) * sizeof(bool));
	assert_int_equal(mtree_build(&f, m, 2, on), 0);
	const struct node *l0 = fabric_find_desc(&f, "L0"), *l3 = fabric_find_desc(&f, "L3");
	/* each member's leaf: its member port and one up-link */
	assert_int_equal(ports_on(l0, on), 2);
	assert_int_equal(ports_on(l3, on), 2);
	assert_true(on[l0->index][h0->ports[1].remote_port]);
	/* exactly one spine carries the group, to both leaves */
	unsigned spines = 0;
	for (size_t i = 0; i < f.nnodes; i++)
		if (f.nodes[i]->desc[0] == 'S' && ports_on(f.nodes[i], on)) {
			spines++;
			assert_int_equal(ports_on(f.nodes[i], on), 2);
		}
	assert_int_equal(spines, 1);
	/* with the fat-tree routes on VL 0: still acyclic */
	struct routing_tables t;
	struct route_info info;
	assert_int_equal(ftree_route(&f, NULL, 0, 1, &t, &info), 0);
	struct cdg_report r;
	void *arg[] = { &f, on };
	struct cdg_mix mix = cdg_mix_of(&t);
	assert_int_equal(cdg_check_layer_with(&f, &mix, 0, add_tree, arg, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	routing_tables_free(&t);
	for (size_t i = 0; i < f.nnodes; i++)
		free(on[i]);
	free(on);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtree_joins_the_members_leaves_through_one_spine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
