/*
 * DOC: switch index
 *
 * Routing engines keep per-switch arrays; this maps node indexes to a dense
 * switch numbering and back.
 */
#include "routing/swindex.h"

#include <stdlib.h>
#include <string.h>

int swindex_build(struct swindex *x, const struct fabric *f)
{
	memset(x, 0, sizeof(*x));
	size_t n = f->nnodes ? f->nnodes : 1;
	x->of_node = malloc(n * sizeof(*x->of_node));
	x->sw = malloc(n * sizeof(*x->sw));
	if (!x->of_node || !x->sw) {
		swindex_free(x);
		return -1;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		x->of_node[i] = SW_NONE;
		if (f->nodes[i]->type == NODE_SWITCH) {
			x->of_node[i] = x->nsw;
			x->sw[x->nsw++] = f->nodes[i];
		}
	}
	return 0;
}

void swindex_free(struct swindex *x)
{
	free(x->of_node);
	free(x->sw);
	memset(x, 0, sizeof(*x));
}
