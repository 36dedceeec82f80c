/*
 * DOC: routing tables
 *
 * Allocation helpers for the per-switch linear forwarding tables that every
 * routing engine fills.
 */
#include "routing/routing.h"

#include <stdlib.h>
#include <string.h>

unsigned routing_switch_hops(const struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	const struct node *at = sw;
	for (unsigned hops = 0; hops < FABRIC_MAX_HOPS; hops++) {
		uint8_t out = routing_next_hop(t, at, lid);
		const struct node *next = out ? at->ports[out].remote : NULL;
		if (routing_lft_entry(t, at, lid) == 0 || (next && next->type != NODE_SWITCH))
			return hops;	/* at is lid's switch, or hands it to the CA */
		if (!next)
			return ROUTING_HOPS_NONE;
		at = next;
	}
	return ROUTING_HOPS_NONE;	/* circles */
}

void routing_tables_free(struct routing_tables *t)
{
	if (t->lft)
		for (size_t i = 0; i < t->nnodes; i++)
			free(t->lft[i]);
	free(t->lft);
	free(t->sl);
	memset(t, 0, sizeof(*t));
}

int routing_tables_alloc(struct routing_tables *t, const struct fabric *f, uint16_t max_lid)
{
	memset(t, 0, sizeof(*t));
	t->max_lid = max_lid;
	t->nnodes = f->nnodes;
	t->layers = 1;
	t->lft = calloc(f->nnodes ? f->nnodes : 1, sizeof(*t->lft));
	t->sl = calloc((size_t)max_lid + 1, 1);
	if (!t->lft || !t->sl) {
		routing_tables_free(t);
		return -1;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		if (f->nodes[i]->type != NODE_SWITCH)
			continue;
		t->lft[i] = malloc((size_t)max_lid + 1);
		if (!t->lft[i]) {
			routing_tables_free(t);
			return -1;
		}
		memset(t->lft[i], LFT_NO_PATH, (size_t)max_lid + 1);
	}
	return 0;
}

uint16_t routing_max_lid(const struct fabric *f)
{
	uint16_t max = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++)
			if (n->ports[p].exists && n->ports[p].lid > max)
				max = n->ports[p].lid;
	}
	return max;
}
