/*
 * DOC: the graphs of the tables the switches hold
 *
 * A repair's transition plan needs the channel dependency graph of the
 * tables the switches hold: the first state of its first stage is those
 * tables (routing/transition.c). Walking every LID for it took a third of
 * a radix-24 repair's plan, on the critical path between the trap and the
 * new tables. The tables the switches hold are known long before: they
 * are the last sweep's. So a thread builds their graphs (each layer's CA
 * traffic, as a transition proves it) once that sweep is published, and
 * the next plan takes copies of them.
 *
 * They fit the next sweep's fabric when it is the same one with nodes
 * or links lost, or links gained between switches where the held tables
 * send nothing (a relink after a repair routed around the link), or
 * switches gained behind such links (a switch back after its loss, whose
 * row the plan takes as dropping everything: no held entry leads into
 * it, and the CAs' traffic starts at no switch): every walk of the held
 * tables on it (remapped by GUID) takes the same ports and stops where a
 * link or a switch went, so it makes a subset of the dependencies built,
 * which go with their node's GUID.
 * A superset of a state's graph can refuse a step, never pass a cyclic
 * one; the plan builds exact graphs before it gives up on an entry. A
 * fabric with a CA gained (its traffic starts at a port no held walk
 * starts at), a link gained that the tables use, or a LID changed does
 * not fit, and the plan builds its own.
 */
#include "routing/held_graphs.h"
#include "routing/cdg.h"

#include <pthread.h>
#include <stdlib.h>

struct held_graphs {
	const struct fabric *f;
	const struct routing_tables *t;
	pthread_t thread;
	bool running;		/* the thread is to be joined */
	bool built;		/* every layer's graph is in g */
	bool acyclic;
	unsigned layers;
	struct depgraph *g;	/* [layers] */
};

static void *build(void *arg)
{
	struct held_graphs *h = arg;
	struct cdg_mix m = { .lft = { h->t }, .nlft = 1, .sl = { h->t }, .nsl = 1, .no_answers = true };
	unsigned l;
	h->acyclic = true;
	for (l = 0; l < h->layers; l++) {
		struct cdg_report r = { .cycle_len = 0 };
		if (depgraph_init(&h->g[l], h->f) < 0 || cdg_add_layer(h->f, &m, l, NULL, &h->g[l]) < 0 ||
		    depgraph_check(&h->g[l], &r) < 0)
			break;
		h->acyclic &= !r.cycle_len;
	}
	h->built = l == h->layers;
	for (unsigned k = 0; !h->built && k < h->layers; k++)	/* depgraph_free takes a partial or a zeroed graph */
		depgraph_free(&h->g[k]);
	return NULL;
}

struct held_graphs *held_graphs_start(const struct fabric *f, const struct routing_tables *t)
{
	struct held_graphs *h = calloc(1, sizeof(*h));
	if (!h || !t->lft)
		goto fail;
	h->f = f;
	h->t = t;
	h->layers = t->layers ? t->layers : 1;
	if (!(h->g = calloc(h->layers, sizeof(*h->g))))
		goto fail;
	h->running = pthread_create(&h->thread, NULL, build, h) == 0;
	if (h->running)
		return h;
fail:
	if (h)
		free(h->g);
	free(h);
	return NULL;
}

static void wait_built(struct held_graphs *h)
{
	if (h->running)
		pthread_join(h->thread, NULL);
	h->running = false;
}

void held_graphs_free(struct held_graphs *h)
{
	if (!h)
		return;
	wait_built(h);
	for (unsigned l = 0; h->built && l < h->layers; l++)
		depgraph_free(&h->g[l]);
	free(h->g);
	free(h);
}

/* Whether no entry of switch a's table in t leads out of port p. */
static bool unused_port(const struct routing_tables *t, const struct node *a, unsigned p)
{
	const uint8_t *row = t->lft[a->index];
	for (uint32_t lid = 1; row && lid <= t->max_lid; lid++)
		if (row[lid] == p)
			return false;
	return true;
}

/*
 * Port p of node a (the built-on fabric) and of b (the new one) alike:
 * the same LID, the same link (by GUID), or b's gone, or a link gained
 * between two switches that t sends nothing through (a relink the tables
 * do not use yet: the walks of t do not cross it).
 */
static bool port_fits(const struct routing_tables *t, const struct node *a, const struct node *b, unsigned p)
{
	const struct port *x = &a->ports[p], *y = &b->ports[p];
	if (x->exists != y->exists || x->lid != y->lid)
		return false;
	if (!y->remote || (x->remote && x->remote->guid == y->remote->guid && x->remote_port == y->remote_port))
		return true;
	return !x->remote && a->type == NODE_SWITCH && y->remote->type == NODE_SWITCH && unused_port(t, a, p);
}

/*
 * f: held's fabric with nodes and links lost, or links gained where t
 * does not use them, to held nodes or gained switches (every other node
 * of f in held, by GUID, with the same ports and LIDs).
 */
static bool fits(const struct fabric *held, const struct routing_tables *t, const struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *b = f->nodes[i], *a = fabric_find_guid(held, b->guid);
		if (!a && b->type == NODE_SWITCH)
			continue;	/* its held neighbours' ports to it are gained links: checked there */
		if (!a || a->type != b->type || a->nports != b->nports)
			return false;
		for (unsigned p = 0; p <= b->nports; p++)
			if (!port_fits(t, a, b, p))
				return false;
	}
	return true;
}

const struct depgraph *held_graphs_for(struct held_graphs *h, const struct fabric *f, unsigned *layers,
				       bool *acyclic)
{
	if (!h)
		return NULL;
	wait_built(h);
	if (!h->built || !fits(h->f, h->t, f))
		return NULL;
	*layers = h->layers;
	*acyclic = h->acyclic;
	return h->g;
}
