/*
 * Table transitions: up/down on a ring of five from two different roots
 * gives two acyclic routings whose mixture is cyclic (each forbids a
 * different turn); the staged plan reaches the new tables through states
 * that are each proven acyclic by the same CDG code, one step at a time.
 * Entries that now drop go in the first stage. Remapping by GUID keeps a
 * switch's entries when node order changes; the view a repair programs
 * before routing drops only the entries of LIDs gone. A change of SLs alone whose
 * old and new SLs together are cyclic is reported not proven. Repairs of
 * degraded trees, mended as the sweep mends them, pass stage by stage.
 * Entries no order moves drop for a stage before they take their new ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engine.h"
#include "routing/transition.h"
#include "topology/fattree_gen.h"
#include "fixtures.h"

/* The ring with R`root`'s GUID lowest, so up/down ranks from it. */
static void ring_rooted(struct fabric *f, unsigned root)
{
	ring(f);
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		unsigned k;
		if (n->type == NODE_SWITCH && sscanf(n->desc, "R%u", &k) == 1)
			n->guid = 0x200000 + (k + 5 - root) % 5;
	}
}

static void updown_from(unsigned root, struct fabric *f, struct routing_tables *t)
{
	struct fabric g;
	struct route_info info;
	ring_rooted(&g, root);
	assert_int_equal(updown_route(&g, t, &info), 0);	/* same node order as f: tables line up */
	fabric_free(&g);
	ring_rooted(f, 0);
}

/*
 * Each stage of p, from old, proven by the CDG code on its own: the step
 * and the state it reaches, on the old SLs hosts send on until the last
 * stage is in; then the new tables on the old and new SLs together.
 */
static void assert_stages_proven(const struct fabric *f, const struct routing_tables *old,
				 struct transition_plan *p)
{
	struct cdg_report r;
	const struct routing_tables *from = old;
	for (size_t i = 0; i < p->nstages; i++) {
		const struct routing_tables *stage = transition_stage(p, i);
		assert_int_equal(transition_check_step(f, from, stage, old, old, &r), 0);
		assert_int_equal(r.cycle_len, 0);
		from = stage;
	}
	assert_int_equal(transition_check_step(f, p->last, p->last, old, p->last, &r), 0);
	assert_int_equal(r.cycle_len, 0);
}

/* p's last stage holds new's every entry. */
static void assert_last_stage_is(const struct fabric *f, struct transition_plan *p, const struct routing_tables *new)
{
	const struct routing_tables *last = transition_stage(p, p->nstages - 1);
	for (size_t n = 0; n < f->nnodes; n++)
		if (new->lft[n])
			assert_memory_equal(last->lft[n], new->lft[n], new->max_lid + 1u);
}

/* The degraded 3-level radix-8 tree of seed, its LIDs numbered, routed by ftree on up to 8 layers into t. */
static void degraded_ftree(unsigned seed, struct fabric *f, struct routing_tables *t)
{
	char err[256];
	struct routing_result res;
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = seed };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
	assert_int_equal(routing_compute(f, &rq, t, &res), 0);
}

static void test_transition_two_roots_union_is_cyclic_and_stages_are_each_acyclic(void **state)
{
	struct fabric f;
	struct routing_tables old, new;
	struct cdg_report r;
	struct transition_plan p;
	updown_from(0, &f, &old);
	fabric_free(&f);
	updown_from(1, &f, &new);
	assert_int_equal(cdg_check(&f, &old, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	assert_int_equal(cdg_check(&f, &new, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	/* the plain switch: its mixture closes a cycle */
	assert_int_equal(transition_check_step(&f, &old, &new, &old, &new, &r), 0);
	assert_true(r.cycle_len > 0);

	assert_int_equal(transition_plan(&f, &old, &new, &p), 0);
	assert_true(p.proven);
	assert_true(p.nstages >= 2);
	assert_stages_proven(&f, &old, &p);
	for (size_t i = 0; i < p.nstages; i++) {
		assert_int_equal(cdg_check(&f, transition_stage(&p, i), &r), 0);
		assert_int_equal(r.cycle_len, 0);
	}
	assert_last_stage_is(&f, &p, &new);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&new);
	fabric_free(&f);
}

/*
 * The same change with one host's LID gone from the new tables (every
 * entry for it drops): those entries all go in the first stage, and each
 * stage, drops included, is still proven by the plain mixture check.
 */
static void test_transition_dropped_entries_go_first(void **state)
{
	struct fabric f;
	struct routing_tables old, new;
	struct transition_plan p;
	updown_from(0, &f, &old);
	fabric_free(&f);
	updown_from(1, &f, &new);
	uint16_t gone = fabric_find_desc(&f, "H3")->ports[1].lid;
	for (size_t n = 0; n < f.nnodes; n++)
		if (new.lft[n])
			new.lft[n][gone] = LFT_NO_PATH;
	assert_int_equal(transition_plan(&f, &old, &new, &p), 0);
	assert_true(p.proven);
	assert_true(p.nstages >= 2);
	assert_int_equal(p.dropped, 5);	/* one per switch of the ring */
	const struct routing_tables *first = transition_stage(&p, 0);
	for (size_t n = 0; n < f.nnodes; n++)
		if (new.lft[n])
			assert_int_equal(first->lft[n][gone], LFT_NO_PATH);
	assert_stages_proven(&f, &old, &p);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&new);
	fabric_free(&f);
}

static void test_transition_same_tables_is_one_proven_stage(void **state)
{
	struct fabric f;
	struct routing_tables t;
	struct transition_plan p;
	updown_from(0, &f, &t);
	assert_int_equal(transition_plan(&f, &t, &t, &p), 0);
	assert_true(p.proven);
	assert_int_equal(p.nstages, 1);
	assert_int_equal(p.switches, 0);
	transition_plan_free(&p);
	routing_tables_free(&t);
	fabric_free(&f);
}

/*
 * Degraded radix-8 tree (seed 2), a leaf's first up-link fails: the plain
 * switch is cyclic; moving each destination's nearest switches first (a
 * switch only after the one its new entry points at) gives proven stages.
 * In switch order, the step budget ran out with a cycle left.
 */
static void test_transition_leaf_uplink_failure_on_degraded_tree_is_proven(void **state)
{
	struct fabric f;
	struct routing_tables old, new;
	struct routing_result res;
	struct cdg_report r;
	struct transition_plan p;
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	degraded_ftree(2, &f, &old);
	struct node *leaf = fabric_find_desc(&f, "L0");
	assert_non_null(leaf);
	unsigned up = 1;
	while (!leaf->ports[up].remote || leaf->ports[up].remote->type != NODE_SWITCH)
		up++;
	fabric_unlink(leaf, (uint8_t)up);
	assert_int_equal(routing_compute(&f, &rq, &new, &res), 0);
	assert_int_equal(transition_check_step(&f, &old, &new, &old, &new, &r), 0);
	assert_true(r.cycle_len > 0);
	assert_int_equal(transition_plan(&f, &old, &new, &p), 0);
	assert_true(p.proven);
	assert_true(p.nstages > 1);
	assert_stages_proven(&f, &old, &p);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&new);
	fabric_free(&f);
}

/*
 * Degraded radix-8 tree (seed 12), routed by ftree on its layers, then by
 * updown on one VL (as the sweep falls back when the tree is cut up): no
 * order of proven steps moves the last entries (the step from the last
 * ordered stage straight to the new tables is cyclic), so they drop for a
 * stage and then take their new ports. Every stage, the drops included,
 * passes the plain mixture check on its own.
 */
static void test_transition_stuck_entries_drop_before_they_move(void **state)
{
	struct fabric f;
	struct routing_tables old, new;
	struct route_info info;
	struct cdg_report r;
	struct transition_plan p;
	degraded_ftree(12, &f, &old);
	assert_int_equal(updown_route(&f, &new, &info), 0);
	assert_int_equal(transition_plan(&f, &old, &new, &p), 0);
	assert_true(p.proven);
	assert_true(p.drained > 0);
	assert_true(p.nstages >= 3);
	assert_stages_proven(&f, &old, &p);
	/* the stage before the last drops what neither table drops; straight on from the one before is cyclic */
	const struct routing_tables *ordered = transition_stage(&p, p.nstages - 3);
	assert_int_equal(transition_check_step(&f, ordered, &new, &old, &old, &r), 0);
	assert_true(r.cycle_len > 0);
	const struct routing_tables *drops = transition_stage(&p, p.nstages - 2);
	size_t drained = 0;
	for (size_t n = 0; n < f.nnodes; n++)
		for (uint32_t lid = 1; new.lft[n] && lid <= new.max_lid; lid++)
			drained += drops->lft[n][lid] == LFT_NO_PATH && old.lft[n][lid] != LFT_NO_PATH &&
				   new.lft[n][lid] != LFT_NO_PATH;
	assert_int_equal(drained, p.drained);
	assert_last_stage_is(&f, &p, &new);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&new);
	fabric_free(&f);
}

/*
 * Degraded radix-8 tree (seed 10), the aggregation switch above L8 dies:
 * the mended tables move 20-odd LIDs to other layers, and every stage is
 * proven on the old SLs, but once the new SLs are published the hosts
 * still on the old ones meet those on the new: cyclic. With the moved
 * LIDs on layers of their own (no old SL, no unchanged LID there; those
 * of one new layer together), the plan proves out; the tables on their
 * new SLs are still acyclic (answers included), and each stage and the
 * end on both SLs pass the CDG code on their own. Without the VLs for
 * it, nothing moves.
 */
static void test_transition_changed_sls_apart_prove_the_published_state(void **state)
{
	char err[256];
	struct fabric f, g;
	struct routing_tables t, n, old;
	struct routing_result res;
	struct cdg_report r;
	struct transition_plan p;
	size_t apart;
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1, .seed = 10 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	number_lids(&f);
	assert_int_equal(routing_compute(&f, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 8 }, &t,
					 &res), 0);
	const struct node *leaf = fabric_find_desc(&f, "L8");
	assert_non_null(leaf);
	assert_int_equal(fabric_copy(&g, &f), 0);
	fabric_remove_node(&g, fabric_find_guid(&g, leaf->ports[first_uplink(leaf)].remote->guid));
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8, .keep_fabric = &f, .keep = &t };
	assert_int_equal(routing_compute(&g, &rq, &n, &res), 0);
	assert_int_equal(transition_remap(&f, &t, &g, &n, &old), 0);
	uint8_t sl[n.max_lid + 1];
	memcpy(sl, n.sl, sizeof(sl));
	unsigned layers = n.layers;

	assert_int_equal(transition_plan_held(&g, &old, &n, NULL, 0, NULL, &p), 0);
	assert_false(p.proven);
	assert_int_equal(p.failed_step, p.nstages + 1);
	transition_plan_free(&p);

	struct routing_tables spare;
	assert_int_equal(routing_tables_copy(&spare, &n), 0);
	assert_int_equal(transition_plan_apart(&g, &old, &n, NULL, 0, NULL, 8, &p, &apart), 0);
	assert_true(p.proven);
	assert_true(apart > 0);
	/* the moved LIDs alone on their layers, those of one new layer together; the others where they were */
	bool old_or_kept[16] = { false };
	int from_layer[16];
	memset(from_layer, -1, sizeof(from_layer));
	size_t moved = 0;
	for (uint32_t lid = 1; lid <= n.max_lid; lid++) {
		old_or_kept[old.sl[lid]] = true;
		if (old.sl[lid] == sl[lid]) {
			assert_int_equal(n.sl[lid], sl[lid]);
			old_or_kept[sl[lid]] = true;
			continue;
		}
		moved++;
		assert_true(from_layer[n.sl[lid]] == -1 || from_layer[n.sl[lid]] == sl[lid]);
		from_layer[n.sl[lid]] = sl[lid];
	}
	assert_int_equal(moved, apart);
	for (unsigned l = 0; l < 16; l++)
		assert_false(from_layer[l] >= 0 && old_or_kept[l]);
	/* one VL fewer than that took: no room, nothing moves */
	struct transition_plan q;
	size_t none;
	assert_int_equal(transition_plan_apart(&g, &old, &spare, NULL, 0, NULL, n.layers - 1, &q, &none), 0);
	assert_false(q.proven);
	assert_int_equal(none, 0);
	assert_memory_equal(spare.sl, sl, sizeof(sl));
	assert_int_equal(spare.layers, layers);
	transition_plan_free(&q);
	routing_tables_free(&spare);

	struct cdg_mix steady = cdg_mix_of(&n);
	assert_int_equal(cdg_check_mix(&g, &steady, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	assert_stages_proven(&g, &old, &p);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&n);
	routing_tables_free(&t);
	fabric_free(&g);
	fabric_free(&f);
}

/*
 * The old fabric lists its nodes in another order: entries follow the
 * GUID, absent switches drop; a view shares the rows it can.
 */
static void test_transition_remap_follows_guids(void **state)
{
	struct fabric f, g;
	struct routing_tables t, u, out;
	ring(&f);
	ring(&g);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(minhop_route(&g, &u), 0);
	fabric_sort_by_guid(&g);	/* CAs' GUIDs are lower: switches move */
	struct routing_tables moved;
	assert_int_equal(transition_remap(&f, &t, &g, &u, &moved), 0);
	assert_int_equal(transition_remap(&g, &moved, &f, &t, &out), 0);
	for (size_t n = 0; n < f.nnodes; n++)
		if (t.lft[n])
			assert_memory_equal(out.lft[n], t.lft[n], t.max_lid + 1u);
	routing_tables_free(&out);
	/* the view: the same entries, the rows from's own (not copies), freed without them */
	struct routing_tables view;
	assert_int_equal(transition_remap_view(&g, &moved, &f, &t, &view), 0);
	for (size_t n = 0; n < f.nnodes; n++)
		if (t.lft[n]) {
			assert_memory_equal(view.lft[n], t.lft[n], t.max_lid + 1u);
			assert_ptr_equal(view.lft[n], moved.lft[fabric_find_guid(&g, f.nodes[n]->guid)->index]);
		}
	routing_tables_free(&view);
	/* a longer table than from's: rows of its own, padded with drops */
	struct routing_tables longer = t;
	longer.max_lid = (uint16_t)(t.max_lid + 64);
	uint8_t *sl = calloc(longer.max_lid + 1u, 1);
	longer.sl = sl;
	assert_int_equal(transition_remap_view(&g, &moved, &f, &longer, &view), 0);
	for (size_t n = 0; n < f.nnodes; n++)
		if (t.lft[n]) {
			assert_memory_equal(view.lft[n], t.lft[n], t.max_lid + 1u);
			assert_ptr_not_equal(view.lft[n], moved.lft[fabric_find_guid(&g, f.nodes[n]->guid)->index]);
			assert_int_equal(view.lft[n][longer.max_lid], LFT_NO_PATH);
		}
	routing_tables_free(&view);
	free(sl);
	assert_int_equal(transition_remap(&g, NULL, &f, &t, &out), 0);
	assert_int_equal(out.lft[f.nodes[0]->index][1], LFT_NO_PATH);
	routing_tables_free(&out);
	routing_tables_free(&moved);
	routing_tables_free(&t);
	routing_tables_free(&u);
	fabric_free(&f);
	fabric_free(&g);
}

/*
 * A 2-level radix-4 tree loses a host and a spine: their LIDs' entries
 * drop in every switch's row that routed them, the rest as held. A leaf
 * whose entries for both were dropped already keeps held's own row (not
 * a copy); the others are rows of their own, held's left as they were.
 */
static void test_transition_drop_view_drops_only_the_lids_gone(void **state)
{
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	struct fabric f, g;
	struct routing_tables t, view;
	struct routing_result res;
	char err[256];
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	uint16_t lid = 1;
	for (size_t i = 0; i < f.nnodes; i++)
		f.nodes[i]->ports[f.nodes[i]->type == NODE_SWITCH ? 0 : 1].lid = lid++;
	assert_int_equal(routing_compute(&f, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 1 }, &t,
					 &res), 0);
	struct node *host = NULL, *spine = NULL, *leaf = NULL;
	for (size_t i = 0; i < f.nnodes; i++) {
		struct node *n = f.nodes[i];
		if (n->type == NODE_CA)
			host = host ? host : n;
		else if (n->ports[1].remote && n->ports[1].remote->type == NODE_CA)
			leaf = n;	/* the last leaf */
		else
			spine = n;
	}
	assert_non_null(host);
	assert_non_null(spine);
	assert_non_null(leaf);
	uint16_t gone[2] = { host->ports[1].lid, spine->ports[0].lid };
	t.lft[leaf->index][gone[0]] = t.lft[leaf->index][gone[1]] = LFT_NO_PATH;
	assert_int_equal(fabric_copy(&g, &f), 0);
	fabric_remove_node(&g, fabric_find_guid(&g, host->guid));
	fabric_remove_node(&g, fabric_find_guid(&g, spine->guid));
	size_t nswitches = 0, switches = 0;
	assert_int_equal(transition_drop_view(&f, &t, &g, &view, &nswitches), 0);
	assert_int_equal(view.max_lid, t.max_lid);
	assert_memory_equal(view.sl, t.sl, t.max_lid + 1u);
	for (size_t i = 0; i < g.nnodes; i++) {
		const struct node *n = g.nodes[i];
		if (n->type != NODE_SWITCH)
			continue;
		switches++;
		const uint8_t *held = t.lft[fabric_find_guid(&f, n->guid)->index];
		for (uint32_t l = 0; l <= t.max_lid; l++)
			assert_int_equal(view.lft[i][l], l == gone[0] || l == gone[1] ? LFT_NO_PATH : held[l]);
		if (n->guid == leaf->guid)
			assert_ptr_equal(view.lft[i], held);
		else
			assert_ptr_not_equal(view.lft[i], held);
	}
	assert_int_equal(nswitches, switches - 1);
	for (size_t i = 0; i < f.nnodes; i++)	/* held's rows untouched */
		if (t.lft[i] && f.nodes[i] != leaf)
			assert_int_not_equal(t.lft[i][gone[0]], LFT_NO_PATH);
	routing_tables_free(&view);
	routing_tables_free(&t);
	fabric_free(&g);
	fabric_free(&f);
}

/*
 * Min-hop on the ring, layered on two VLs; the new tables swap every
 * LID's layer. Both are acyclic, no entry changes, and while the stage
 * goes in every host sends on the old SLs (the SA publishes the new ones
 * after it): proven. But once they are published, hosts that have not
 * asked again still send on the old SLs beside those that have, which
 * puts every LID on both layers, each of which then holds the ring's
 * cycle: the plan must say so, one step past its last stage (it once
 * reported such a change proven, since no entry was left to stage).
 */
static void test_transition_sl_only_change_with_cyclic_mixture_is_not_proven(void **state)
{
	struct fabric f;
	struct routing_tables old, new;
	struct routing_result res;
	struct cdg_report r;
	struct transition_plan p;
	ring(&f);
	struct routing_request rq = { .engine = ENGINE_MINHOP, .max_layers = 8 };
	assert_int_equal(routing_compute(&f, &rq, &old, &res), 0);
	assert_int_equal(old.layers, 2);
	assert_int_equal(routing_tables_copy(&new, &old), 0);
	for (uint32_t lid = 1; lid <= new.max_lid; lid++)
		new.sl[lid] = (uint8_t)(1 - old.sl[lid]);
	assert_int_equal(cdg_check(&f, &new, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	assert_int_equal(transition_plan(&f, &old, &new, &p), 0);
	assert_false(p.proven);
	assert_int_equal(p.nstages, 1);
	assert_int_equal(p.switches, 0);
	assert_int_equal(p.failed_step, 2);
	assert_int_equal(p.cycle.cycle_len, 5);
	transition_plan_free(&p);
	/* the new tables on their own SLs, and on the old ones, are each acyclic: only the two together are not */
	assert_int_equal(transition_check_step(&f, &new, &new, &old, &old, &r), 0);
	assert_int_equal(r.cycle_len, 0);
	assert_int_equal(transition_check_step(&f, &new, &new, &old, &new, &r), 0);
	assert_int_equal(r.cycle_len, 5);
	/*
	 * The old layering made minimal: each LID left on layer 1 closes a
	 * cycle on layer 0. One of them goes back down: a LID hosts learn
	 * early (the SM's, by MasterSMSL) has its new SL in the stage's
	 * mixture already, and the plan fails at its first step; any other
	 * not in the stages.
	 */
	for (bool lowered = true; lowered;) {
		lowered = false;
		for (uint16_t lid = 1; lid <= old.max_lid; lid++)
			if (old.sl[lid] == 1) {
				old.sl[lid] = 0;
				assert_int_equal(transition_check_step(&f, &old, &old, &old, &old, &r), 0);
				if (r.cycle_len)
					old.sl[lid] = 1;
				lowered |= !r.cycle_len;
			}
	}
	uint16_t up = 0;
	for (uint16_t lid = 1; lid <= old.max_lid && !up; lid++)
		up = old.sl[lid] == 1 ? lid : 0;
	assert_true(up > 0);
	memcpy(new.sl, old.sl, (size_t)old.max_lid + 1);
	new.sl[up] = 0;
	assert_int_equal(transition_plan_held(&f, &old, &new, NULL, up, NULL, &p), 0);
	assert_false(p.proven);
	assert_int_equal(p.failed_step, 1);
	transition_plan_free(&p);
	assert_int_equal(transition_plan_held(&f, &old, &new, NULL, 0, NULL, &p), 0);
	/* new is not a proven routing: what it does on its own SLs is not the plan's to say */
	assert_true(p.proven || p.failed_step > p.nstages);
	transition_plan_free(&p);
	/* swapping nothing is proven */
	assert_int_equal(transition_plan(&f, &old, &old, &p), 0);
	assert_true(p.proven);
	transition_plan_free(&p);
	routing_tables_free(&old);
	routing_tables_free(&new);
	fabric_free(&f);
}

/*
 * Repairs as the sweep mends them, on degraded radix-8 trees (seeds 1-4):
 * every fourth leaf's first up-link lost, or the switch behind it. Every
 * plan said proven passes the CDG code on its own at each stage (the
 * plan's checks start from the graphs and reach of the stage before,
 * carried from stage to stage: a reach left stale would let a step pass
 * that is not); plans of three stages and more are most of them.
 */
static void test_transition_repairs_proven_stage_by_stage(void **state)
{
	size_t proven = 0, staged = 0;
	for (unsigned seed = 1; seed <= 4; seed++) {
		struct fabric f;
		struct routing_tables t;
		degraded_ftree(seed, &f, &t);
		for (unsigned k = 0; k < 32; k += 4)
			for (int switch_loss = 0; switch_loss <= 1; switch_loss++) {
				char name[8];
				snprintf(name, sizeof(name), "L%u", k);
				const struct node *leaf = fabric_find_desc(&f, name);
				unsigned up = 1;
				while (leaf && up <= leaf->nports &&
				       (!leaf->ports[up].remote || leaf->ports[up].remote->type != NODE_SWITCH))
					up++;
				if (!leaf || up > leaf->nports)
					continue;
				struct fabric g;
				struct routing_tables n, old;
				struct routing_result res;
				struct transition_plan p;
				assert_int_equal(fabric_copy(&g, &f), 0);
				if (switch_loss)
					fabric_remove_node(&g, fabric_find_guid(&g, leaf->ports[up].remote->guid));
				else
					fabric_unlink(fabric_find_guid(&g, leaf->guid), (uint8_t)up);
				struct routing_request mend = { .engine = ENGINE_FTREE, .max_layers = 8, .keep_fabric = &f,
								.keep = &t };
				assert_int_equal(routing_compute(&g, &mend, &n, &res), 0);
				assert_int_equal(transition_remap_view(&f, &t, &g, &n, &old), 0);
				assert_int_equal(transition_plan(&g, &old, &n, &p), 0);
				if (p.proven) {
					assert_stages_proven(&g, &old, &p);
					proven++;
					staged += p.nstages >= 3;
				}
				transition_plan_free(&p);
				routing_tables_free(&old);
				routing_tables_free(&n);
				fabric_free(&g);
			}
		routing_tables_free(&t);
		fabric_free(&f);
	}
	assert_true(proven >= 55);	/* 63 of 64 today */
	assert_true(staged >= 40);	/* 56 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transition_two_roots_union_is_cyclic_and_stages_are_each_acyclic),
		cmocka_unit_test(test_transition_dropped_entries_go_first),
		cmocka_unit_test(test_transition_same_tables_is_one_proven_stage),
		cmocka_unit_test(test_transition_leaf_uplink_failure_on_degraded_tree_is_proven),
		cmocka_unit_test(test_transition_stuck_entries_drop_before_they_move),
		cmocka_unit_test(test_transition_changed_sls_apart_prove_the_published_state),
		cmocka_unit_test(test_transition_remap_follows_guids),
		cmocka_unit_test(test_transition_drop_view_drops_only_the_lids_gone),
		cmocka_unit_test(test_transition_sl_only_change_with_cyclic_mixture_is_not_proven),
		cmocka_unit_test(test_transition_repairs_proven_stage_by_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
