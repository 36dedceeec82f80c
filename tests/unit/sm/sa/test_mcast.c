/*
 * Multicast trees proven on their own VL (sm/sa/mcast.c), over a fake MAD
 * port that answers every MFT Set at once and keeps what it carried. The
 * master routes a degraded 3-level radix-8 tree in two layers; every CA
 * joins the IPoIB broadcast group (SL 0) and a group its creator put on
 * SL 1, whose tree closes a cycle with layer 1's routes (and none with
 * layer 0's):
 *
 * - the SL 1 group is left out of the MFTs: every Set clears its entry,
 *   and the SA's trees (what MulticastForwardingTableRecords report) give
 *   it none; the broadcast group is programmed on every switch of its tree;
 *   one mcast_unproven event, not one per programming;
 * - moved to SL 0, the same group is proven with the broadcast group and
 *   programmed too;
 * - after a repair (seed 9 of the family, the first leaf's first
 *   aggregation switch lost, the routes mended as a sweep mends them) the
 *   broadcast group's tree from its first root closes a cycle with layer
 *   0's routes: the tree from another root (mtree_roots' order) proves
 *   out and is programmed (no root but the first was ever tried before
 *   2026-12-07, and no MFT was then programmed).
 *
 * Before trees were proven VL by VL, the SL 1 group was proven with layer
 * 0's routes, where its tree is acyclic, and programmed.
 *
 * The trees the switches hold (seed 1, the broadcast group programmed;
 * the first programming after a start clears the group on every switch
 * before it writes the tree, as it does after standing by: what the MFTs
 * held was not written by this SM):
 * - a link lost under the tree's root: the tree keeps its root (the
 *   best-connected switch is another one now) and goes in one phase;
 * - the root itself lost: the new tree from another root is proven, but
 *   its union with the old one is not, so the first phase clears the
 *   group on every switch and the second writes the new tree; what the
 *   switches hold is then the new tree;
 * - during a heavy sweep nothing is programmed, afterwards it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "master.h"
#include "sm/sa/mcast_held.h"
#include "routing/cdg.h"
#include "routing/mtree.h"

#define SL1_GROUP 1	/* its index in sm.mcast, MLID 0xc001 */

static struct sm sm;
/* What the MFT Sets of block 0 carried: per group, the OR of its masks; sets seen. */
static unsigned mft_sets;
static uint16_t mask_or[2];
/* In order, whether each MFT Set of block 0 gave the broadcast group a port. */
#define MAX_SETS 4096
static bool bcast_set[MAX_SETS];

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	ib_smp_t reply;
	memset(&reply, 0, sizeof(reply));
	memcpy(reply.data, data, len < IB_SMP_DATA_SIZE ? len : IB_SMP_DATA_SIZE);
	if (attr == IB_MAD_ATTR_MCAST_FWD_TBL && (mod & 0x1ff) == 0) {
		const ib_net16_t *masks = data;
		if (mft_sets < MAX_SETS)
			bcast_set[mft_sets] = masks[0] != 0;
		mft_sets++;
		for (unsigned g = 0; g < 2; g++)
			mask_or[g] |= cl_ntoh16(masks[g]);
	}
	done(ctx, 0, &reply);
	return 0;
}

uint64_t __wrap_mad_port_guid(const struct mad_port *mp)
{
	return 0x100000;
}

/* Every CA a full member of group g. */
static void all_cas_join(struct mc_group *g)
{
	const struct fabric *f = &sm.pub->fabric;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		if (n->type == NODE_SWITCH)
			continue;
		ib_gid_t gid;
		gid.unicast.prefix = cl_hton64(sm.cfg.subnet_prefix);
		gid.unicast.interface_id = cl_hton64(n->ports[1].guid);
		struct mc_member *m = mcast_add_member(&sm.mcast, g, &gid);
		assert_non_null(m);
		m->join_state = IB_MC_REC_STATE_FULL_MEMBER;
	}
}

static int setup(void **state)
{
	/* seed 5 of the degraded radix-8 family (transition-bench's) */
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 5 };
	assert_int_equal(test_master_init_on(&sm, spec), 0);
	assert_int_equal(sm.pub->tables.layers, 2);
	struct mc_group *bcast = &sm.mcast.g[0], *g1 = &sm.mcast.g[SL1_GROUP];
	const struct fabric *f = &sm.pub->fabric;
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->type == NODE_SWITCH)
			f->nodes[i]->mft_cap = 1024;	/* as SwitchInfo says on ibsim */
	all_cas_join(bcast);
	*g1 = *bcast;
	g1->m = NULL;	/* members of its own */
	g1->nm = g1->cap = 0;
	all_cas_join(g1);
	g1->rec.mgid.raw[15] = 0x42;
	g1->rec.mlid = cl_hton16(MC_FIRST_MLID + SL1_GROUP);
	g1->rec.sl_flow_hop = ib_member_set_sl_flow_hop(1, 0, 0);
	sm.mcast.n = 2;
	return 0;
}

/* Every switch of the published fabric with an MFT, as SwitchInfo says on ibsim. */
static void mft_everywhere(void)
{
	for (size_t i = 0; i < sm.pub->fabric.nnodes; i++)
		if (sm.pub->fabric.nodes[i]->type == NODE_SWITCH)
			sm.pub->fabric.nodes[i]->mft_cap = 1024;
}

/*
 * The published fabric loses leaf's first up-link (switch_loss: the
 * aggregation switch at its far end), and the routes mended as a sweep
 * mends them are published.
 */
static void lose_and_publish(const char *leaf_name, bool switch_loss)
{
	struct sm_snapshot *pub = sm.pub;
	struct fabric g;
	assert_int_equal(fabric_copy(&g, &pub->fabric), 0);
	struct node *leaf = fabric_find_desc(&g, leaf_name);
	assert_non_null(leaf);
	unsigned up = 1;
	while (up <= leaf->nports && !(leaf->ports[up].remote && leaf->ports[up].remote->type == NODE_SWITCH))
		up++;
	assert_true(up <= leaf->nports);
	if (switch_loss)
		fabric_remove_node(&g, leaf->ports[up].remote);
	else
		fabric_unlink(leaf, (uint8_t)up);
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8, .keep_fabric = &pub->fabric,
				      .keep = &pub->tables };
	struct routing_tables mended;
	struct routing_result res;
	assert_int_equal(routing_compute(&g, &rq, &mended, &res), 0);
	routing_tables_free(&pub->tables);
	sm_node_detach_all(&pub->fabric);
	fabric_free(&pub->fabric);
	fabric_move(&pub->fabric, &g);
	pub->tables = mended;
	for (unsigned sl = 0; sl < 16; sl++)
		pub->tables.vl_by_sl[sl] = (uint8_t)(sl % 8);
	for (size_t i = 0; i < pub->fabric.nnodes; i++)
		assert_int_equal(sm_node_attach(pub->fabric.nodes[i]), 0);
	mft_everywhere();
	assert_int_equal(fabric_index_end_ports(&pub->fabric), 0);
}

/* Seed 9's tree routed, then L0's first aggregation switch lost and the routes mended, published. */
static int repaired_setup(void **state)
{
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 9 };
	assert_int_equal(test_master_init_on(&sm, spec), 0);
	lose_and_publish("L0", true);
	all_cas_join(&sm.mcast.g[0]);
	return 0;
}

static int teardown(void **state)
{
	mcast_free(&sm.mcast);
	rmpp_free(sm.rmpp);
	rmpp_receiver_free(sm.rmpp_in);
	sm_snapshot_free(sm.pub);
	routing_memo_free(&sm.route_memo);
	evl_free(sm.loop);
	return 0;
}

static int add_tree(void *arg, struct depgraph *g)
{
	void **a = arg;
	return mtree_dependencies(a[0], a[1], g);
}

/* Whether the tree of group g with the routes of layer closes a cycle (the fact the test stands on). */
static bool cyclic_with_layer(bool ***on, unsigned g, unsigned layer)
{
	struct cdg_mix m = cdg_mix_of(&sm.pub->tables);
	struct cdg_report r;
	void *a[2] = { &sm.pub->fabric, on[g] };
	assert_int_equal(cdg_check_layer_with(&sm.pub->fabric, &m, layer, add_tree, a, &r), 0);
	return r.cycle_len > 0;
}

static unsigned ports_in_tree(bool ***on, unsigned g)
{
	unsigned n = 0;
	for (size_t i = 0; i < sm.pub->fabric.nnodes; i++)
		for (unsigned p = 0; p <= sm.pub->fabric.nodes[i]->nports; p++)
			n += on[g][i][p];
	return n;
}

static void a_group_is_proven_on_its_own_vl(void **state)
{
	const struct fabric *f = &sm.pub->fabric;
	struct mc_trees t;
	assert_int_equal(mcast_trees(&sm.mcast, f, &t), 0);
	bool ***on = t.on;
	assert_true(cyclic_with_layer(on, SL1_GROUP, 1));
	assert_false(cyclic_with_layer(on, SL1_GROUP, 0));
	assert_false(cyclic_with_layer(on, 0, 0));
	mc_trees_free(&t);

	mft_sets = 0;
	memset(mask_or, 0, sizeof(mask_or));
	assert_true(mcast_program(&sm, NULL));
	assert_true(mft_sets > 0);
	assert_int_not_equal(mask_or[0], 0);	/* the broadcast group: programmed */
	assert_int_equal(mask_or[SL1_GROUP], 0);	/* the SL 1 group: cleared everywhere */
	assert_true(sm.mcast.g[SL1_GROUP].unproven);
	assert_false(sm.mcast.g[0].unproven);
	assert_int_equal(sm.events.n, 1);
	assert_string_equal(sm.events.q[0].kind, "mcast_unproven");
	assert_true(mcast_program(&sm, NULL));	/* again: still out, no second event */
	assert_true(sm.mcast.g[SL1_GROUP].unproven);
	assert_int_equal(sm.events.n, 1);
	assert_int_equal(mcast_trees(&sm.mcast, f, &t), 0);	/* what the SA reports */
	on = t.on;
	assert_int_equal(ports_in_tree(on, SL1_GROUP), 0);
	assert_true(ports_in_tree(on, 0) > 0);
	mc_trees_free(&t);
}

static void the_same_group_on_sl_0_is_programmed(void **state)
{
	sm.mcast.g[SL1_GROUP].rec.sl_flow_hop = ib_member_set_sl_flow_hop(0, 0, 0);
	mft_sets = 0;
	memset(mask_or, 0, sizeof(mask_or));
	assert_true(mcast_program(&sm, NULL));
	assert_int_not_equal(mask_or[0], 0);
	assert_int_not_equal(mask_or[SL1_GROUP], 0);
	assert_false(sm.mcast.g[SL1_GROUP].unproven);
}

static void another_root_proves_the_tree_a_repair_made_cyclic(void **state)
{
	const struct fabric *f = &sm.pub->fabric;
	struct mc_trees t;
	assert_int_equal(mcast_trees(&sm.mcast, f, &t), 0);	/* from the first root */
	bool ***on = t.on;
	assert_true(cyclic_with_layer(on, 0, 0));
	mc_trees_free(&t);
	mft_sets = 0;
	memset(mask_or, 0, sizeof(mask_or));
	assert_true(mcast_program(&sm, NULL));
	assert_false(sm.mcast.g[0].unproven);
	assert_true(sm.mcast.g[0].root_guid != mtree_first_root(f));	/* another root than the first */
	assert_int_not_equal(mask_or[0], 0);
	assert_int_equal(mcast_trees(&sm.mcast, f, &t), 0);	/* what the SA reports: the tree programmed */
	on = t.on;
	assert_false(cyclic_with_layer(on, 0, 0));
	assert_true(ports_in_tree(on, 0) > 0);
	mc_trees_free(&t);
}

static unsigned switches(void)
{
	unsigned n = 0;
	for (size_t i = 0; i < sm.pub->fabric.nnodes; i++)
		n += sm.pub->fabric.nodes[i]->type == NODE_SWITCH;
	return n;
}

/* The last programming went in two phases over n switches: the first gave the broadcast group no port, the second some. */
static void assert_first_phase_clears(unsigned n)
{
	assert_int_equal(mft_sets, 2 * n);	/* one block, one position a switch, twice */
	unsigned with_ports = 0;
	for (unsigned k = 0; k < 2 * n; k++) {
		assert_false(k < n && bcast_set[k]);
		with_ports += bcast_set[k];
	}
	assert_true(with_ports > 0);
}

/* Seed 1's tree, every CA in the broadcast group, its tree programmed: what the switches hold. */
static int programmed_setup(void **state)
{
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 1 };
	assert_int_equal(test_master_init_on(&sm, spec), 0);
	mft_everywhere();
	all_cas_join(&sm.mcast.g[0]);
	mft_sets = 0;
	assert_true(mcast_program(&sm, NULL));
	assert_first_phase_clears(switches());	/* what the MFTs held at start is not known */
	assert_int_equal(sm.mcast.nheld, 1);
	return 0;
}

/* What the switches hold (sm.mcast.held) is the tree the SA reports for group 0, port for port. */
static void assert_held_is_programmed(void)
{
	const struct fabric *f = &sm.pub->fabric;
	struct mc_trees held, t;
	assert_int_equal(mcast_held_trees(&sm.mcast, f, &held), 0);
	assert_int_equal(mcast_trees(&sm.mcast, f, &t), 0);
	assert_int_equal(held.n, 1);
	assert_int_equal(held.mlid[0], MC_FIRST_MLID);
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; f->nodes[i]->type == NODE_SWITCH && p <= f->nodes[i]->nports; p++)
			assert_int_equal(held.on[0][i][p], t.on[0][i][p]);
	mc_trees_free(&held);
	mc_trees_free(&t);
}

/*
 * L0's first up-link lost and the routes mended: the broadcast group's
 * tree keeps its root, changes only where the link was, and goes in one
 * phase (before 2026-12-08 every programming started again from the
 * best-connected switch, which this loss changes, and the whole tree
 * moved).
 */
static void a_tree_keeps_its_root_through_a_link_loss(void **state)
{
	uint64_t root = sm.mcast.g[0].root_guid;
	assert_int_equal(root, mtree_first_root(&sm.pub->fabric));
	lose_and_publish("L0", false);
	assert_int_not_equal(mtree_first_root(&sm.pub->fabric), root);
	mft_sets = 0;
	assert_true(mcast_program(&sm, NULL));
	assert_int_equal(sm.mcast.g[0].root_guid, root);
	assert_int_equal(mft_sets, switches());
	assert_held_is_programmed();
}

/*
 * The aggregation switch above L0, the broadcast group's root, lost and
 * the routes mended: the new tree, from another root, is proven, but a
 * switch holding its old entry beside one holding the new would close a
 * cycle with the new routes: the first phase clears the group on every
 * switch (each Set of it gives the group no port), the second writes the
 * new tree. Rewritten in place, as before 2026-12-08, the first Set
 * already gave it ports.
 */
static void a_tree_whose_rewrite_is_cyclic_is_cleared_first(void **state)
{
	uint64_t root = sm.mcast.g[0].root_guid;
	lose_and_publish("L0", true);
	assert_null(fabric_find_guid(&sm.pub->fabric, root));
	unsigned n = switches();
	mft_sets = 0;
	assert_true(mcast_program(&sm, NULL));
	assert_false(sm.mcast.g[0].unproven);
	assert_first_phase_clears(n);
	assert_held_is_programmed();

	/* programmed again on the same routes: the held tree is the new one, one phase */
	mft_sets = 0;
	assert_true(mcast_program(&sm, NULL));
	assert_int_equal(mft_sets, n);
	unsigned with_ports = 0;
	for (unsigned k = 0; k < n; k++)
		with_ports += bcast_set[k];
	assert_true(with_ports > 0);
	assert_held_is_programmed();
}

/* After standing by (another SM wrote the MFTs), the first programming clears before it writes. */
static void after_standing_by_the_trees_are_cleared_first(void **state)
{
	mft_sets = 0;
	assert_true(mcast_program(&sm, NULL));
	assert_int_equal(mft_sets, switches());	/* known: one phase */
	mcast_held_forget(&sm.mcast);	/* as stand_by does */
	mft_sets = 0;
	assert_true(mcast_program(&sm, NULL));
	assert_first_phase_clears(switches());
	assert_held_is_programmed();
}

/* A heavy sweep proves its stages with the trees held when it plans: no programming before it ends. */
static void no_programming_during_a_heavy_sweep(void **state)
{
	sm.sched.heavy = true;
	mft_sets = 0;
	assert_false(mcast_program(&sm, NULL));
	assert_int_equal(mft_sets, 0);
	assert_true(sm.mcast.deferred);
	sm.sched.heavy = false;
	assert_true(mcast_program(&sm, NULL));
	assert_false(sm.mcast.deferred);
	assert_int_equal(mft_sets, switches());
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_group_is_proven_on_its_own_vl, setup, teardown),
		cmocka_unit_test_setup_teardown(the_same_group_on_sl_0_is_programmed, setup, teardown),
		cmocka_unit_test_setup_teardown(another_root_proves_the_tree_a_repair_made_cyclic, repaired_setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_tree_keeps_its_root_through_a_link_loss, programmed_setup, teardown),
		cmocka_unit_test_setup_teardown(a_tree_whose_rewrite_is_cyclic_is_cleared_first, programmed_setup,
						teardown),
		cmocka_unit_test_setup_teardown(after_standing_by_the_trees_are_cleared_first, programmed_setup, teardown),
		cmocka_unit_test_setup_teardown(no_programming_during_a_heavy_sweep, programmed_setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
