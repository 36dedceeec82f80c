/*
 * DOC: directed routes after a repair
 *
 * A full discovery gives each node the route its first answer came by. A
 * repair changes links in a model it copied, so routes that crossed a
 * link now gone would lead nowhere: they are computed again, breadth
 * first from the SM's node over the model's links, as discovery would
 * have found them. Only switches forward; the SM's own CA forwards out of
 * the port it sends from. What is no longer reached is pruned.
 */
#include "sm/sweep/drpaths.h"

#include <stdlib.h>
#include <string.h>

#include "sm/smnode.h"

static struct node *sm_own_node(const struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->hops == 0)
			return f->nodes[i];
	return NULL;
}

/* Reaches m through port out of n (n's route extended by one hop). */
static void reach(struct node *n, uint8_t out, struct node *m, uint8_t in)
{
	m->hops = (uint8_t)(n->hops + 1);
	memcpy(m->path, n->path, n->hops + 1u);
	m->path[m->hops] = out;
	m->local_port = in;
}

int drpaths_compute(struct fabric *f, bool *reached)
{
	struct node *root = sm_own_node(f);
	struct node **queue = root ? malloc(f->nnodes * sizeof(*queue)) : NULL;
	if (!queue)
		return -1;
	memset(reached, 0, f->nnodes * sizeof(*reached));
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		if (n->type != NODE_SWITCH && n != root)
			memset(sm_node(n)->port_reached, 0, ((size_t)n->nports + 1) * sizeof(bool));
	}
	size_t head = 0, tail = 0;
	queue[tail++] = root;
	reached[root->index] = true;
	while (head < tail) {
		struct node *n = queue[head++];
		if (n->hops >= FABRIC_MAX_HOPS)
			continue;
		unsigned first = n->type == NODE_SWITCH ? 1 : n->local_port;
		unsigned last = n->type == NODE_SWITCH ? n->nports : n->local_port;
		for (unsigned p = first; p <= last; p++) {
			struct node *m = n->ports[p].remote;
			if (!m)
				continue;
			uint8_t in = n->ports[p].remote_port;
			if (m->type != NODE_SWITCH && m != root) {
				struct dr_path r = { .hops = (uint8_t)(n->hops + 1) };
				memcpy(r.path, n->path, n->hops + 1u);
				r.path[r.hops] = (uint8_t)p;
				if (!sm_node(m)->port_reached[in])
					sm_node_reached(m, in, r.hops, r.path);
			}
			if (reached[m->index])
				continue;
			reached[m->index] = true;
			reach(n, (uint8_t)p, m, in);
			if (m->type == NODE_SWITCH)
				queue[tail++] = m;
		}
	}
	free(queue);
	return 0;
}

size_t drpaths_prune(struct fabric *f, const bool *reached)
{
	size_t gone = 0;
	/* from the end: fabric_remove_node moves the nodes after the one removed */
	for (size_t i = f->nnodes; i-- > 0;) {
		if (reached[i])
			continue;
		sm_node_detach(f->nodes[i]);
		fabric_remove_node(f, f->nodes[i]);
		gone++;
	}
	return gone;
}
