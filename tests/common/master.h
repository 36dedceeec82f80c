/*
 * master.h - the SM the SA unit tests and the MAD fuzzer talk to: a master
 * of a routed fat tree, 2-level radix 8 unless a test asks for another
 * (LIDs 1.. in node order), with its end-port index, RMPP sender and
 * multicast groups, over a MAD port that is never dereferenced (the tests
 * wrap every mad_ call they reach).
 */
#ifndef TESTS_COMMON_MASTER_H
#define TESTS_COMMON_MASTER_H

#include <stdlib.h>
#include <string.h>

#include "routing/engine.h"
#include "sm/sm.h"
#include "sm/smnode.h"
#include "topology/fattree_gen.h"

/*
 * Fills sm (zeroed first, configuration at its defaults) as master of the
 * fat tree spec gives, SL s on VL s mod 8 as a sweep maps them; -1 if any
 * part cannot be built.
 */
static inline int test_master_init_on(struct sm *sm, struct fattree_spec spec)
{
	char err[256];
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	struct routing_result res;
	memset(sm, 0, sizeof(*sm));
	config_defaults(&sm->cfg);
	sm->loop = evl_new();
	sm->mp = (struct mad_port *)sm;
	sm->rmpp = sm->loop ? rmpp_new(sm->loop, sm->mp, 800, 3) : NULL;
	sm->rmpp_in = rmpp_receiver_new(sm->mp);
	struct sm_snapshot *pub = calloc(1, sizeof(*pub));
	if (!pub || !sm->rmpp || !sm->rmpp_in || fattree_generate(&spec, &pub->fabric, err) < 0)
		return -1;
	sm->pub = pub;
	uint16_t lid = 1;
	for (size_t i = 0; i < pub->fabric.nnodes; i++) {
		struct node *n = pub->fabric.nodes[i];
		if (sm_node_attach(n) < 0)
			return -1;
		n->ports[n->type == NODE_SWITCH ? 0 : 1].lid = lid++;
	}
	if (routing_compute(&pub->fabric, &rq, &pub->tables, &res) != 0 || fabric_index_end_ports(&pub->fabric) < 0)
		return -1;
	for (unsigned sl = 0; sl < 16; sl++)
		pub->tables.vl_by_sl[sl] = (uint8_t)(sl % 8);
	sm->state = SM_MASTER;
	if (mcast_init(&sm->mcast, sm->cfg.subnet_prefix) < 0)
		return -1;
	mcast_attach(sm);
	return 0;
}

/* A master of the routed 2-level radix-8 fat tree. */
static inline int test_master_init(struct sm *sm)
{
	return test_master_init_on(sm, (struct fattree_spec){ .levels = 2, .radix = 8 });
}

#endif
