/*
 * Directed routes recomputed on a changed model (sm/sweep/drpaths.c), over
 * a 3-level radix-4 fat tree whose first CA is the SM's.
 *
 * - Every node is reached; each route, followed port by port through the
 *   model, ends at its node (a CA port's own route at that port), and is
 *   as short as a breadth-first search makes it.
 * - With a core switch's cables pulled, that switch alone is not reached,
 *   no route crosses it, and pruning takes it (and only it) out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sm/smnode.h"
#include "sm/sweep/drpaths.h"
#include "topology/fattree_gen.h"

/* The node a route from sm's port ends at (and in *in the port it enters by), or NULL. */
static const struct node *follow(const struct node *sm, const uint8_t *path, uint8_t hops, uint8_t *in)
{
	const struct node *n = sm;
	*in = sm->local_port;
	for (unsigned h = 1; h <= hops; h++) {
		uint8_t out = path[h];
		if (out == 0 || out > n->nports || !n->ports[out].remote || (n != sm && n->type != NODE_SWITCH))
			return NULL;
		*in = n->ports[out].remote_port;
		n = n->ports[out].remote;
	}
	return n;
}

static struct node *setup_tree(struct fabric *f)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	struct node *sm = NULL;
	for (size_t i = 0; i < f->nnodes; i++) {
		assert_int_equal(sm_node_attach(f->nodes[i]), 0);
		f->nodes[i]->hops = 1;	/* stale: anything but the SM's 0 */
		if (!sm && f->nodes[i]->type == NODE_CA)
			sm = f->nodes[i];
	}
	sm->hops = 0;
	sm->local_port = 1;
	return sm;
}

/* Every reached node's route (and each CA port's) leads to it, in as few hops as any. */
static void routes_lead_home(const struct fabric *f, const struct node *sm, const bool *reached)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		if (!reached[i])
			continue;
		uint8_t in;
		assert_ptr_equal(follow(sm, n->path, n->hops, &in), n);
		assert_int_equal(in, n == sm ? sm->local_port : n->local_port);
		for (unsigned p = 1; n->type == NODE_CA && n != sm && p <= n->nports; p++) {
			if (!n->ports[p].remote)
				continue;
			struct dr_path r = sm_node_route(n, (uint8_t)p);
			assert_ptr_equal(follow(sm, r.path, r.hops, &in), n);
			assert_int_equal(in, p);
		}
		/* shortest: a neighbour switch is at most one hop nearer */
		for (unsigned p = 1; n->type == NODE_SWITCH && p <= n->nports; p++) {
			const struct node *m = n->ports[p].remote;
			if (m && m->type == NODE_SWITCH && reached[m->index])
				assert_true(n->hops <= m->hops + 1u);
		}
	}
}

static void every_node_gets_a_route_that_leads_to_it(void **state)
{
	(void)state;
	struct fabric f;
	struct node *sm = setup_tree(&f);
	bool *reached = calloc(f.nnodes, sizeof(*reached));
	assert_int_equal(drpaths_compute(&f, reached), 0);
	for (size_t i = 0; i < f.nnodes; i++)
		assert_true(reached[i]);
	routes_lead_home(&f, sm, reached);
	free(reached);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

static void a_switch_cut_off_is_not_crossed_and_is_pruned(void **state)
{
	(void)state;
	struct fabric f;
	struct node *sm = setup_tree(&f);
	struct node *core = NULL;
	for (size_t i = 0; i < f.nnodes && !core; i++)
		if (f.nodes[i]->desc[0] == 'C')
			core = f.nodes[i];
	assert_non_null(core);
	uint64_t core_guid = core->guid;
	size_t before = f.nnodes;
	for (unsigned p = 1; p <= core->nports; p++)
		fabric_unlink(core, (uint8_t)p);
	bool *reached = calloc(f.nnodes, sizeof(*reached));
	assert_int_equal(drpaths_compute(&f, reached), 0);
	for (size_t i = 0; i < f.nnodes; i++)
		assert_int_equal(reached[i], f.nodes[i] != core);
	routes_lead_home(&f, sm, reached);
	assert_int_equal(drpaths_prune(&f, reached), 1);
	assert_int_equal(f.nnodes, before - 1);
	assert_null(fabric_find_guid(&f, core_guid));
	for (size_t i = 0; i < f.nnodes; i++)
		assert_int_equal(f.nodes[i]->index, i);
	free(reached);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_node_gets_a_route_that_leads_to_it),
		cmocka_unit_test(a_switch_cut_off_is_not_crossed_and_is_pruned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
