/*
 * routing_fixtures.h - the fat tree and the checks of routing tables the
 * routing tests share. Include after <cmocka.h>.
 */
#ifndef TESTS_ROUTING_FIXTURES_H
#define TESTS_ROUTING_FIXTURES_H

#include "fixtures.h"
#include "routing/engine.h"
#include "routing/loops.h"
#include "routing/routing.h"
#include "topology/fattree_gen.h"

/* The fat-tree engine with 8 VLs to layer on. */
static const struct routing_request rq_plain = { .engine = ENGINE_FTREE, .max_layers = 8 };

/* The 3-level radix-8 fat tree (128 hosts, 80 switches), less remove_links links (seed), LIDs numbered. */
static inline void tree(struct fabric *f, unsigned remove_links, uint64_t seed)
{
	char err[256];
	struct fattree_spec spec = { .levels = 3, .radix = 8, .remove_links = remove_links, .seed = seed };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	number_lids(f);
}

/* Every end port's LID reached from every switch (routing_switch_hops), and no entry loops. */
static inline void assert_delivers(const struct fabric *f, const struct routing_tables *t)
{
	struct loops_report lr;
	assert_int_equal(loops_find(f, t, &lr), 0);
	assert_int_equal(lr.entries, 0);
	for (size_t i = 0; i < f->nnodes; i++)
		FOR_END_PORTS(f->nodes[i], p)
			for (size_t k = 0; k < f->nnodes; k++)
				if (f->nodes[k]->type == NODE_SWITCH)
					assert_int_not_equal(routing_switch_hops(t, f->nodes[k], f->nodes[i]->ports[p].lid),
							     ROUTING_HOPS_NONE);
}

#endif
