/*
 * DOC: host order
 *
 * D-mod-K routing spreads destination number j over up-ports by j's
 * digits, which balances shift permutations only if hosts under one leaf,
 * and leaves under one set of upper switches, have consecutive numbers.
 * A leaf's pod is named by the lowest GUID among its switch neighbours.
 */
#include "routing/hostorder.h"

#include <stdlib.h>

struct leaf {
	const struct node *sw;
	uint64_t pod;
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;
	if (x->pod != y->pod)
		return x->pod < y->pod ? -1 : 1;
	return x->sw->guid < y->sw->guid ? -1 : x->sw->guid > y->sw->guid;
}

static bool leaf_of(const struct node *n, uint64_t *pod)
{
	bool hosts = false;
	*pod = UINT64_MAX;
	for (unsigned p = 1; p <= n->nports; p++) {
		const struct node *r = n->ports[p].remote;
		if (!r)
			continue;
		if (r->type != NODE_SWITCH)
			hosts = true;
		else if (r->guid < *pod)
			*pod = r->guid;
	}
	return hosts;
}

int host_order(const struct fabric *f, struct host_ref **hosts, size_t *n)
{
	struct leaf *leaves = malloc((f->nnodes + 1) * sizeof(*leaves));
	size_t nleaves = 0, cap = 0;
	*hosts = NULL;
	*n = 0;
	if (!leaves)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *sw = f->nodes[i];
		uint64_t pod;
		if (sw->type == NODE_SWITCH && leaf_of(sw, &pod)) {
			leaves[nleaves++] = (struct leaf){ sw, pod };
			cap += sw->nports;
		}
	}
	qsort(leaves, nleaves, sizeof(*leaves), cmp_leaf);
	if (!(*hosts = malloc((cap + 1) * sizeof(**hosts)))) {
		free(leaves);
		return -1;
	}
	for (size_t l = 0; l < nleaves; l++) {
		const struct node *sw = leaves[l].sw;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct node *r = sw->ports[p].remote;
			uint16_t lid = r && r->type != NODE_SWITCH ? r->ports[sw->ports[p].remote_port].lid : 0;
			if (lid)
				(*hosts)[(*n)++] = (struct host_ref){ lid, sw, (uint8_t)p };
		}
	}
	free(leaves);
	return 0;
}
