/*
 * Stable routing on a 3-level radix-8 fat tree: after a leaf up-link
 * fails, the merged tables keep every route that did not cross it, take
 * the fresh entry only where one did, and deliver every LID from every
 * switch; a fresh routing changes over five times as many entries (a
 * repair merges so when the mend in place, test_mend.c, declines). When
 * capacity comes (the link back, a switch back, a link the old tables
 * were kept off) the tables are the fresh routing's, so that traffic
 * moves onto it; a host re-cabled to another leaf gets fresh routes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engine.h"
#include "routing/stable.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"
#include "routing_fixtures.h"

/* L0's first port that leads to a switch. */
static uint8_t leaf_uplink(struct fabric *f)
{
	struct node *leaf = fabric_find_desc(f, "L0");
	uint8_t up = 1;
	while (!leaf->ports[up].remote || leaf->ports[up].remote->type != NODE_SWITCH)
		up++;
	return up;
}

/* Whether LID lid's column is the same in a (on fa) and b (on fb), switch by switch GUID. */
static bool same_column(const struct fabric *fa, const struct routing_tables *a, const struct fabric *fb,
			const struct routing_tables *b, uint16_t lid)
{
	for (size_t i = 0; i < fb->nnodes; i++) {
		const struct node *n = fb->nodes[i];
		const struct node *o = fabric_find_guid(fa, n->guid);
		if (n->type == NODE_SWITCH && o && a->lft[o->index][lid] != b->lft[n->index][lid])
			return false;
	}
	return true;
}

/* (switch, LID) entries that differ between a (on fa) and b (on fb). */
static size_t changed_entries(const struct fabric *fa, const struct routing_tables *a, const struct fabric *fb,
			      const struct routing_tables *b)
{
	size_t n = 0;
	for (size_t i = 0; i < fb->nnodes; i++) {
		const struct node *o = fabric_find_guid(fa, fb->nodes[i]->guid);
		for (uint16_t lid = 1; o && b->lft[i] && lid <= b->max_lid; lid++)
			n += a->lft[o->index][lid] != b->lft[i][lid];
	}
	return n;
}

/* One merge: the old tables routed on old_f (as published), a fresh routing of f, and their merge. */
struct merge_case {
	struct fabric old_f, f;
	struct routing_tables old, fresh, kept;
	struct stable_report sr;
	bool *from_fresh;	/* [lid]: the merge took fresh's column whole */
};

/* Both fabrics the full tree; the test then changes them. */
static void case_trees(struct merge_case *c)
{
	tree(&c->old_f, 0, 1);
	tree(&c->f, 0, 1);
}

/* Routes old (on routed: old_f, or a fabric with the same node order), then f afresh, and merges. */
static void case_merge(struct merge_case *c, const struct fabric *routed)
{
	struct routing_result res;
	assert_int_equal(routing_compute(routed, &rq_plain, &c->old, &res), 0);
	assert_int_equal(routing_compute(&c->f, &rq_plain, &c->fresh, &res), 0);
	c->from_fresh = calloc(c->fresh.max_lid + 1u, sizeof(*c->from_fresh));
	assert_non_null(c->from_fresh);
	assert_int_equal(stable_merge(&c->old_f, &c->old, &c->f, &c->fresh, &c->kept, &c->sr, c->from_fresh), 0);
}

/* How many LIDs the merge took from fresh whole. */
static size_t from_fresh_count(const struct merge_case *c)
{
	size_t n = 0;
	for (uint32_t lid = 1; lid <= c->fresh.max_lid; lid++)
		n += c->from_fresh[lid];
	return n;
}

static void case_free(struct merge_case *c)
{
	free(c->from_fresh);
	routing_tables_free(&c->kept);
	routing_tables_free(&c->fresh);
	routing_tables_free(&c->old);
	fabric_free(&c->old_f);
	fabric_free(&c->f);
}

/* The merge is the fresh routing whole, SLs too. */
static void assert_fresh_whole(const struct merge_case *c)
{
	assert_true(c->sr.grew);
	assert_int_equal(c->sr.kept + c->sr.patched, 0);
	assert_int_equal(changed_entries(&c->f, &c->fresh, &c->f, &c->kept), 0);
	assert_memory_equal(c->kept.sl, c->fresh.sl, c->kept.max_lid + 1u);
	assert_int_equal(from_fresh_count(c), c->fresh.max_lid);
}

static void test_stable_link_failure_moves_only_what_crossed_it(void **state)
{
	struct merge_case c;
	case_trees(&c);
	struct node *leaf = fabric_find_desc(&c.f, "L0");
	fabric_unlink(leaf, leaf_uplink(&c.f));
	case_merge(&c, &c.old_f);
	assert_int_equal(c.sr.lids, 128 + 80);
	assert_true(c.sr.kept > 0 && c.sr.patched > 0);
	/* each entry is the old one or, where the old route broke, the fresh one (same node order) */
	size_t moved = 0;
	for (uint16_t lid = 1; lid <= c.kept.max_lid; lid++) {
		for (size_t i = 0; i < c.f.nnodes; i++)
			if (c.kept.lft[i])
				assert_true(c.kept.lft[i][lid] == c.old.lft[i][lid] ||
					    c.kept.lft[i][lid] == c.fresh.lft[i][lid]);
		assert_true(c.kept.sl[lid] == c.old.sl[lid] || c.kept.sl[lid] == c.fresh.sl[lid]);
		moved += !same_column(&c.old_f, &c.old, &c.f, &c.kept, lid);
	}
	assert_int_equal(moved, c.sr.lids - c.sr.kept);
	assert_int_equal(from_fresh_count(&c), c.kept.max_lid - c.sr.kept - c.sr.patched);	/* every owned LID walked */
	/* L0's hosts, which the aggregation switch reached over the link, are among the patched */
	for (unsigned p = 1; p <= 4; p++)
		assert_false(same_column(&c.old_f, &c.old, &c.f, &c.kept, leaf->ports[p].remote->ports[1].lid));
	/* far fewer entries change than with a fresh routing (248 against 1,427 when written) */
	assert_true(5 * changed_entries(&c.old_f, &c.old, &c.f, &c.kept) <
		    changed_entries(&c.old_f, &c.old, &c.f, &c.fresh));
	assert_delivers(&c.f, &c.kept);
	case_free(&c);
}

static void test_stable_relink_puts_traffic_back_on_the_link(void **state)
{
	struct merge_case c;
	case_trees(&c);
	uint8_t up = leaf_uplink(&c.old_f);
	fabric_unlink(fabric_find_desc(&c.old_f, "L0"), up);
	case_merge(&c, &c.old_f);
	assert_fresh_whole(&c);
	const struct node *leaf = fabric_find_desc(&c.f, "L0"), *agg = leaf->ports[up].remote;
	size_t over_link = 0;
	for (uint16_t lid = 1; lid <= c.kept.max_lid; lid++)
		over_link += c.kept.lft[leaf->index][lid] == up ||
			     c.kept.lft[agg->index][lid] == leaf->ports[up].remote_port;
	assert_true(over_link > 0);
	case_free(&c);
}

/*
 * The link was cabled all along but the old tables were computed without
 * it (an isolated link, sm/perf/health.c): once it may carry traffic, the
 * fresh routing, which uses it, is taken.
 */
static void test_stable_link_the_old_tables_avoided_gets_traffic(void **state)
{
	struct merge_case c;
	struct fabric hidden;
	case_trees(&c);
	tree(&hidden, 0, 1);
	fabric_unlink(fabric_find_desc(&hidden, "L0"), leaf_uplink(&hidden));
	case_merge(&c, &hidden);	/* same node order as old_f */
	assert_fresh_whole(&c);
	fabric_free(&hidden);
	case_free(&c);
}

/* A core switch back (the old tables do not know it): the fabric grew, the tables are the fresh ones. */
static void test_stable_switch_back_is_routed_afresh(void **state)
{
	struct merge_case c;
	case_trees(&c);
	fabric_remove_node(&c.old_f, fabric_find_desc(&c.old_f, "C0"));
	case_merge(&c, &c.old_f);
	assert_fresh_whole(&c);
	case_free(&c);
}

/* H0_0 re-cabled from L0 to the port of a host that left another leaf, keeping its LID. */
static void test_stable_moved_host_gets_fresh_routes(void **state)
{
	struct merge_case c;
	case_trees(&c);
	struct node *host = fabric_find_desc(&c.f, "H0_0"), *other = fabric_find_desc(&c.f, "H9_0");
	struct node *leaf9 = other->ports[1].remote;
	uint8_t p9 = other->ports[1].remote_port;
	fabric_unlink(host, 1);
	fabric_remove_node(&c.f, other);
	assert_int_equal(fabric_link(host, 1, leaf9, p9), 0);
	case_merge(&c, &c.old_f);
	uint16_t lid = host->ports[1].lid;
	assert_false(same_column(&c.old_f, &c.old, &c.f, &c.kept, lid));
	assert_true(same_column(&c.f, &c.fresh, &c.f, &c.kept, lid));
	assert_delivers(&c.f, &c.kept);
	case_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable_link_failure_moves_only_what_crossed_it),
		cmocka_unit_test(test_stable_relink_puts_traffic_back_on_the_link),
		cmocka_unit_test(test_stable_link_the_old_tables_avoided_gets_traffic),
		cmocka_unit_test(test_stable_switch_back_is_routed_afresh),
		cmocka_unit_test(test_stable_moved_host_gets_fresh_routes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
