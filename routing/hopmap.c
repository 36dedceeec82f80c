/*
 * DOC: hop map
 *
 * Per switch port of a fabric, the switch at the other end (by node
 * index) and the port it enters there, in one array: a walk along the
 * tables reads its entry and one small record per step instead of
 * following node and port structures (a cache miss or two a step on a
 * large fabric).
 */
#include "routing/hopmap.h"

#include <stdlib.h>
#include <string.h>

int hop_map_build(struct hop_map *m, const struct fabric *f)
{
	size_t ports = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		ports += f->nodes[i]->type == NODE_SWITCH ? f->nodes[i]->nports + 1u : 0;
	m->at = malloc((f->nnodes + 1) * sizeof(*m->at));
	m->nports = calloc(f->nnodes + 1, 1);
	m->hop = malloc((ports + 1) * sizeof(*m->hop));
	if (!m->at || !m->nports || !m->hop) {
		hop_map_free(m);
		return -1;
	}
	size_t at = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *sw = f->nodes[i];
		m->at[i] = (uint32_t)at;
		if (sw->type != NODE_SWITCH)
			continue;
		m->nports[i] = sw->nports;
		for (unsigned p = 0; p <= sw->nports; p++) {
			const struct node *r = p ? sw->ports[p].remote : NULL;
			m->hop[at + p] = (struct hop){ !r ? HOP_NONE : r->type == NODE_SWITCH ? (uint32_t)r->index : HOP_CA,
						       sw->ports[p].remote_port };
		}
		at += sw->nports + 1u;
	}
	return 0;
}

void hop_map_free(struct hop_map *m)
{
	free(m->at);
	free(m->nports);
	free(m->hop);
	memset(m, 0, sizeof(*m));
}
