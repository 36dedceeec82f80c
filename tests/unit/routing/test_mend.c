/*
 * Mending a loss in place (routing/patch.c through stable_patch and
 * routing_compute) on 3-level radix-8 fat trees: after a leaf up-link
 * fails, only the switches whose old route broke change an entry, every
 * LID is delivered from every switch, every leaf still reaches every host
 * up*-down*, the leaf spreads what the lost link carried evenly over its
 * other up-links, and the result proves out with the switches' answers
 * and a proven transition. When the fabric gained (a link back, a switch
 * back), the mend declines and the fresh routing is taken. On a small
 * hand-cabled tree, a switch with an up*-down* route and an escape as
 * short takes the legal one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engine.h"
#include "routing/patch.h"
#include "routing/rank.h"
#include "routing/stable.h"
#include "routing/swindex.h"
#include "routing/transition.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"
#include "routing_fixtures.h"

/* One loss: the old tables on old_f, the same fabric less something as f, and the mend. */
struct mend_case {
	struct fabric old_f, f;
	struct swindex x;
	struct rank rk;
	struct routing_tables old, held, mended;	/* held: old on f's nodes */
	struct stable_report sr;
};

/* Routes old_f; f is old_f with (after) the caller's change; ranks f. */
static void case_route(struct mend_case *c)
{
	struct routing_result res;
	assert_int_equal(routing_compute(&c->old_f, &rq_plain, &c->old, &res), 0);
	assert_int_equal(swindex_build(&c->x, &c->f), 0);
	assert_int_equal(rank_fat_tree(&c->rk, &c->x, NULL, 0), 0);
	assert_true(c->rk.fat_tree);
	assert_int_equal(transition_remap(&c->old_f, &c->old, &c->f, &c->old, &c->held), 0);
}

static int case_mend(struct mend_case *c)
{
	return stable_patch(&c->old_f, &c->old, &c->f, &c->x, &c->rk, 8, &c->mended, &c->sr);
}

/* Routes f keeping the old tables, as a repair does: it must succeed. */
static void route_keeping(const struct mend_case *c, struct routing_tables *t, struct routing_result *res)
{
	struct routing_request rq = rq_plain;
	rq.keep_fabric = &c->old_f;
	rq.keep = &c->old;
	assert_int_equal(routing_compute(&c->f, &rq, t, res), 0);
}

static void case_free(struct mend_case *c)
{
	routing_tables_free(&c->mended);
	routing_tables_free(&c->held);
	routing_tables_free(&c->old);
	rank_free(&c->rk);
	swindex_free(&c->x);
	fabric_free(&c->old_f);
	fabric_free(&c->f);
}

/* Whether the route from leaf to lid along t goes down and later up again. */
static bool turns_up_after_down(const struct mend_case *c, const struct routing_tables *t, const struct node *sw,
				uint16_t lid)
{
	bool went_down = false;
	for (;;) {
		const struct node *next = routing_next_switch(sw, routing_next_hop(t, sw, lid));
		if (!next)
			return false;
		bool up = rank_above(&c->rk, &c->x, c->x.of_node[next->index], c->x.of_node[sw->index]);
		if (up && went_down)
			return true;
		went_down |= !up;
		sw = next;
	}
}

/* Every switch with hosts reaches every host's LID up*-down*, as the fat-tree engine routes them. */
static void assert_leaves_route_up_down(const struct mend_case *c, const struct routing_tables *t)
{
	for (size_t s = 0; s < c->x.nsw; s++) {
		if (c->rk.level[s] != 0)
			continue;
		for (size_t i = 0; i < c->f.nnodes; i++)
			if (c->f.nodes[i]->type != NODE_SWITCH)
				assert_false(turns_up_after_down(c, t, c->x.sw[s], c->f.nodes[i]->ports[1].lid));
	}
}

/* The CA LIDs of other leaves that leaf sends out of port p. */
static unsigned ca_load(const struct fabric *f, const struct routing_tables *t, const struct node *leaf, uint8_t p)
{
	unsigned n = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *h = f->nodes[i];
		if (h->type != NODE_SWITCH && h->ports[1].remote != leaf)
			n += t->lft[leaf->index][h->ports[1].lid] == p;
	}
	return n;
}

static void test_mend_repoints_only_the_switches_whose_route_broke(void **state)
{
	struct mend_case c = { 0 };
	tree(&c.old_f, 0, 1);
	tree(&c.f, 0, 1);
	struct node *leaf = fabric_find_desc(&c.f, "L0");
	uint8_t lost = first_uplink(leaf);
	fabric_unlink(leaf, lost);
	case_route(&c);
	assert_int_equal(case_mend(&c), 0);
	assert_true(c.sr.mended);
	assert_int_equal(c.sr.lids, 128 + 80);
	assert_true(c.sr.kept > 0 && c.sr.patched > 0);
	size_t changed = 0;
	for (uint16_t lid = 1; lid <= c.mended.max_lid; lid++) {
		for (size_t i = 0; i < c.f.nnodes; i++)
			if (c.mended.lft[i] && c.mended.lft[i][lid] != c.held.lft[i][lid]) {
				/* only where the old route no longer arrives */
				assert_int_equal(routing_switch_hops(&c.held, c.f.nodes[i], lid), ROUTING_HOPS_NONE);
				changed++;
			}
		uint8_t port;
		const struct node *owner = fabric_find_lid(&c.f, lid, &port);
		assert_true(c.mended.sl[lid] == c.old.sl[lid] ||
			    (owner && owner->type == NODE_SWITCH && c.mended.sl[lid] == 1));
	}
	assert_true(changed > 0);
	assert_delivers(&c.f, &c.mended);
	assert_leaves_route_up_down(&c, &c.mended);
	/* what the lost link carried, spread over the leaf's three other up-links: within one LID of even */
	unsigned lo = UINT32_MAX, hi = 0;
	for (uint8_t p = 1; p <= leaf->nports; p++)
		if (leaf->ports[p].remote && leaf->ports[p].remote->type == NODE_SWITCH) {
			unsigned n = ca_load(&c.f, &c.mended, leaf, p);
			lo = n < lo ? n : lo;
			hi = n > hi ? n : hi;
		}
	assert_true(hi - lo <= 1);
	assert_true(lo > ca_load(&c.old_f, &c.old, fabric_find_desc(&c.old_f, "L0"), lost));

	/* routing_compute takes the mend: proven with the answers, the same tables, a proven transition */
	struct routing_result res;
	struct routing_tables t;
	struct transition_plan plan;
	route_keeping(&c, &t, &res);
	assert_true(res.stable.mended);
	assert_false(res.kept_refused);
	assert_true(res.layers.answers_proven || res.order_proven);
	assert_string_equal(res.info.engine, "ftree");
	for (size_t i = 0; i < c.f.nnodes; i++)
		if (t.lft[i])
			assert_memory_equal(t.lft[i], c.mended.lft[i], t.max_lid + 1u);
	assert_int_equal(transition_plan(&c.f, &c.held, &t, &plan), 0);
	assert_true(plan.proven);
	transition_plan_free(&plan);
	routing_tables_free(&t);
	case_free(&c);
}

/* Degraded trees (seeds 1-8), each losing a leaf up-link: a mend delivers everywhere and keeps leaves up*-down*. */
static void test_mend_on_degraded_trees(void **state)
{
	size_t mended = 0;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct mend_case c = { 0 };
		tree(&c.old_f, 6, seed);
		tree(&c.f, 6, seed);
		struct node *leaf = fabric_find_desc(&c.f, "L3");
		fabric_unlink(leaf, first_uplink(leaf));
		struct swindex x;
		struct rank rk;
		assert_int_equal(swindex_build(&x, &c.f), 0);
		assert_int_equal(rank_fat_tree(&rk, &x, NULL, 0), 0);
		bool fat = rk.fat_tree;
		rank_free(&rk);
		swindex_free(&x);
		if (!fat) {
			fabric_free(&c.old_f);
			fabric_free(&c.f);
			continue;
		}
		case_route(&c);
		int rc = case_mend(&c);
		assert_true(rc == 0 || rc == 1);
		if (rc == 0) {
			mended++;
			assert_delivers(&c.f, &c.mended);
			assert_leaves_route_up_down(&c, &c.mended);
		}
		struct routing_result res;
		struct routing_tables t;
		route_keeping(&c, &t, &res);
		assert_delivers(&c.f, &t);
		routing_tables_free(&t);
		case_free(&c);
	}
	assert_true(mended >= 4);
}

/* Capacity back: the link the old tables lacked, or a switch they do not know. The mend declines. */
static void test_mend_declines_when_the_fabric_gained(void **state)
{
	struct mend_case c = { 0 };
	tree(&c.old_f, 0, 1);
	tree(&c.f, 0, 1);
	struct node *old_leaf = fabric_find_desc(&c.old_f, "L0");
	fabric_unlink(old_leaf, first_uplink(old_leaf));
	case_route(&c);
	assert_int_equal(case_mend(&c), 1);
	assert_false(c.sr.mended);
	assert_null(c.mended.lft);

	struct routing_result res;
	struct routing_tables t;
	route_keeping(&c, &t, &res);
	assert_false(res.stable.mended);
	assert_true(res.stable.grew);
	routing_tables_free(&t);
	case_free(&c);

	struct mend_case d = { 0 };
	tree(&d.old_f, 0, 1);
	tree(&d.f, 0, 1);
	fabric_remove_node(&d.old_f, fabric_find_desc(&d.old_f, "C0"));
	case_route(&d);
	assert_int_equal(case_mend(&d), 1);
	case_free(&d);
}

/*
 * Leaves L0 (host H0), L1, L2 at level 0; A0, A1, A2 above them; C above
 * A0 and A2. L1 lost its route to H0 and can go on through A1 (port 1:
 * down to L2, then up: an escape) or A0 (port 2: up to C, then down),
 * three hops either way: it takes A0.
 */
static void test_mend_prefers_a_legal_route_to_an_escape_as_short(void **state)
{
	struct fabric f;
	fabric_init(&f);
	struct node *l0 = fabric_add_node(&f, NODE_SWITCH, 0x10, 8, "L0");
	struct node *l1 = fabric_add_node(&f, NODE_SWITCH, 0x11, 8, "L1");
	struct node *l2 = fabric_add_node(&f, NODE_SWITCH, 0x12, 8, "L2");
	struct node *a0 = fabric_add_node(&f, NODE_SWITCH, 0x20, 8, "A0");
	struct node *a1 = fabric_add_node(&f, NODE_SWITCH, 0x21, 8, "A1");
	struct node *a2 = fabric_add_node(&f, NODE_SWITCH, 0x22, 8, "A2");
	struct node *core = fabric_add_node(&f, NODE_SWITCH, 0x30, 8, "C");
	struct node *h[3];
	const char *names[3] = { "H0", "H1", "H2" };
	for (int i = 0; i < 3; i++)
		h[i] = fabric_add_node(&f, NODE_CA, 0x100 + (uint64_t)i, 1, names[i]);
	assert_int_equal(fabric_link(l0, 5, h[0], 1) | fabric_link(l1, 5, h[1], 1) | fabric_link(l2, 5, h[2], 1), 0);
	assert_int_equal(fabric_link(l1, 1, a1, 1) | fabric_link(l1, 2, a0, 1) | fabric_link(a1, 2, l2, 1) |
			 fabric_link(l2, 2, a2, 1) | fabric_link(a2, 2, l0, 1) | fabric_link(a2, 3, core, 1) |
			 fabric_link(core, 2, a0, 2), 0);
	number_lids(&f);
	uint16_t lid = h[0]->ports[1].lid;
	struct routing_tables t;
	assert_int_equal(routing_tables_alloc(&t, &f, routing_max_lid(&f)), 0);
	t.lft[l0->index][lid] = 5;
	t.lft[a2->index][lid] = 2;
	t.lft[core->index][lid] = 1;
	t.lft[a0->index][lid] = 2;
	t.lft[a1->index][lid] = 2;
	t.lft[l2->index][lid] = 2;
	t.lft[l1->index][lid] = 7;	/* an unlinked port: the loss */
	struct swindex x;
	struct rank rk;
	struct column_patch p;
	bool leaf_escapes;
	uint8_t verdict[16];
	struct lid_owner own[16] = { { NULL, 0 } };	/* LIDs 1-10, numbered by number_lids */
	for (size_t i = 0; i < f.nnodes; i++)
		FOR_END_PORTS(f.nodes[i], port)
			own[f.nodes[i]->ports[port].lid] = (struct lid_owner){ f.nodes[i], (uint8_t)port };
	assert_int_equal(swindex_build(&x, &f), 0);
	memset(verdict, COLUMN_DELIVERS, sizeof(verdict));
	verdict[x.of_node[l1->index]] = COLUMN_FAILS;
	assert_int_equal(rank_fat_tree(&rk, &x, NULL, 0), 0);
	assert_true(rk.fat_tree);
	assert_int_equal(column_patch_init(&p, own, &x, &rk, &t), 0);
	assert_int_equal(column_patch_mend(&p, lid, &own[lid], verdict, &leaf_escapes), 0);
	assert_int_equal(t.lft[l1->index][lid], 2);
	assert_false(leaf_escapes);
	assert_int_equal(t.lft[a1->index][lid], 2);	/* the others as they were */
	column_patch_free(&p);
	rank_free(&rk);
	swindex_free(&x);
	routing_tables_free(&t);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mend_repoints_only_the_switches_whose_route_broke),
		cmocka_unit_test(test_mend_on_degraded_trees),
		cmocka_unit_test(test_mend_declines_when_the_fabric_gained),
		cmocka_unit_test(test_mend_prefers_a_legal_route_to_an_escape_as_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
