/*
 * The last fresh routing kept (routing/memo.c) on a degraded radix-8
 * tree: a link lost is mended in place and leaves the memo alone; the
 * link back gives the fabric of the first routing, whose tables come from
 * the memo, entry for entry and SL for SL what routing afresh gives. A
 * LID changed, another VL count or a node order changed is not the same
 * routing: routed afresh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engine.h"
#include "routing/memo.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

static void tree(struct fabric *f)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 2 };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
}

static void assert_same_tables(const struct routing_tables *a, const struct routing_tables *b, size_t nnodes)
{
	assert_int_equal(a->max_lid, b->max_lid);
	assert_int_equal(a->layers, b->layers);
	assert_memory_equal(a->sl, b->sl, a->max_lid + 1u);
	for (size_t i = 0; i < nnodes; i++) {
		assert_true(!a->lft[i] == !b->lft[i]);
		if (a->lft[i])
			assert_memory_equal(a->lft[i], b->lft[i], a->max_lid + 1u);
	}
}

static void test_memo_gives_a_relink_the_routing_from_before(void **state)
{
	(void)state;
	struct fabric f, lost, back;
	struct routing_memo memo = { 0 };
	struct routing_tables first, mended, again, afresh;
	struct routing_result res;
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8, .memo = &memo };
	tree(&f);
	assert_int_equal(routing_compute(&f, &rq, &first, &res), 0);
	assert_false(res.memo_used);
	assert_true(memo.held);

	/* a link lost: mended in place, the memo kept as it is */
	assert_int_equal(fabric_copy(&lost, &f), 0);
	struct node *leaf = fabric_find_desc(&lost, "L2");
	uint8_t up = first_uplink(leaf);
	struct node *far = leaf->ports[up].remote;
	uint8_t far_port = leaf->ports[up].remote_port;
	fabric_unlink(leaf, up);
	struct routing_request after = rq;
	after.keep_fabric = &f;
	after.keep = &first;
	assert_int_equal(routing_compute(&lost, &after, &mended, &res), 0);
	assert_true(res.stable.mended);
	assert_false(res.memo_used);
	assert_false(routing_memo_fits(&memo, &lost, &rq));

	/* the link back: the fabric of the first routing, whose routing comes from the memo */
	assert_int_equal(fabric_copy(&back, &lost), 0);
	assert_int_equal(fabric_link(fabric_find_desc(&back, "L2"), up, fabric_find_guid(&back, far->guid), far_port),
			 0);
	after.keep_fabric = &lost;
	after.keep = &mended;
	assert_int_equal(routing_compute(&back, &after, &again, &res), 0);
	assert_true(res.stable.grew);
	assert_true(res.memo_used);
	assert_same_tables(&again, &first, f.nnodes);
	struct routing_request plain = { .engine = ENGINE_FTREE, .max_layers = 8 };	/* and what afresh gives */
	assert_int_equal(routing_compute(&back, &plain, &afresh, &res), 0);
	assert_same_tables(&again, &afresh, f.nnodes);

	routing_tables_free(&first);
	routing_tables_free(&mended);
	routing_tables_free(&again);
	routing_tables_free(&afresh);
	routing_memo_free(&memo);
	fabric_free(&f);
	fabric_free(&lost);
	fabric_free(&back);
}

static void test_memo_fits_only_the_same_fabric_and_request(void **state)
{
	(void)state;
	struct fabric f, g;
	struct routing_memo memo = { 0 };
	struct routing_tables t;
	struct routing_result res;
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8, .memo = &memo };
	tree(&f);
	assert_false(routing_memo_fits(&memo, &f, &rq));
	assert_int_equal(routing_compute(&f, &rq, &t, &res), 0);
	assert_true(routing_memo_fits(&memo, &f, &rq));

	struct routing_request fewer = rq;	/* another VL count: another layering */
	fewer.max_layers = 4;
	assert_false(routing_memo_fits(&memo, &f, &fewer));
	struct routing_request updown = rq;
	updown.engine = ENGINE_UPDOWN;
	assert_false(routing_memo_fits(&memo, &f, &updown));

	assert_int_equal(fabric_copy(&g, &f), 0);	/* a host's LID changed */
	struct node *h = fabric_find_desc(&g, "H0_0");
	h->ports[1].lid = (uint16_t)(h->ports[1].lid + 1000);
	assert_false(routing_memo_fits(&memo, &g, &rq));
	fabric_free(&g);

	assert_int_equal(fabric_copy(&g, &f), 0);	/* the same nodes in another order: tables index nodes */
	struct node *first = g.nodes[0];
	g.nodes[0] = g.nodes[1];
	g.nodes[1] = first;
	g.nodes[0]->index = 0;
	g.nodes[1]->index = 1;
	assert_false(routing_memo_fits(&memo, &g, &rq));
	fabric_free(&g);

	routing_tables_free(&t);
	routing_memo_free(&memo);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_gives_a_relink_the_routing_from_before),
		cmocka_unit_test(test_memo_fits_only_the_same_fabric_and_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
