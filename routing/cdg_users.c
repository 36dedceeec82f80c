/*
 * DOC: who makes a dependency
 *
 * The search for the LIDs on a layer that make one dependency a -> b,
 * for VL layering's cuts (routing/layers.c). A destination makes it when
 * both a's and b's entries for it send it on (read a row at a time). A
 * source on the layer makes it by its answers if its path to some CA
 * destination through a -> b passes switch a: a question asked of few
 * switches (the entry switches of the layer's CA LIDs, and the switches
 * whose LIDs are on it), each a short walk along its path, remembered
 * per destination. The questions are listed once per state of the
 * layer's SLs and asked of each dependency of a cycle.
 */
#include "routing/cdg.h"

#include <stdlib.h>
#include <string.h>

#include "routing/hopmap.h"

struct cdg_users {
	const struct fabric *f;
	const struct routing_tables *t;
	unsigned layer;
	bool answers;
	uint32_t a;		/* the node index of the dependency's first switch */
	const struct hop_map *hops;	/* the caller's, of f */
	uint8_t *state;		/* per node, for the current destination: UNKNOWN, YES, NO, ON_WALK */
	uint32_t *stamp;	/* per node: the destination count state[] belongs to */
	uint32_t gen;
	uint32_t *listed;	/* per node: the listing that took it as a CA entry switch */
	uint32_t listing;
	uint32_t *path;		/* node indices */
	struct users_source {
		uint16_t lid;
		const struct node *sw;	/* its entry switch: its CA's, or the switch itself (own) */
		bool own;
	} *source;		/* the layer's LIDs */
	size_t nsource;
	const struct node **ca_entry;	/* the distinct entry switches of the layer's CA LIDs */
	size_t nca_entry;
	size_t *first_ca, *next_ca;	/* per switch and per source, + 1: the CA sources entering there */
	bool *ca_above, *sw_above;	/* per switch: a CA behind it, or the switch itself, sends through a -> b */
	bool *ca_lid;		/* per LID: a CA's (answers go to it) */
	uint16_t *ca_using;	/* the CA LIDs whose traffic makes a -> b */
	bool *uses;		/* the answer being made */
	unsigned users;		/* how many it marks */
};

enum { UNKNOWN, YES, NO, ON_WALK };

/* The switch (node index) sw's entry for lid leads to; HOP_CA or HOP_NONE where the path ends. */
static uint32_t next_switch(const struct cdg_users *u, uint32_t sw, uint16_t lid)
{
	uint8_t out;
	const struct hop *h = hop_map_step(u->hops, u->t, sw, lid, &out);
	return h ? h->next : HOP_NONE;
}

/* Does the path from switch x (node index) to lid pass switch a? (for the current destination) */
static bool passes_a(struct cdg_users *u, uint32_t x, uint16_t lid)
{
	size_t len = 0;
	while (x < HOP_CA) {
		if (u->stamp[x] != u->gen) {
			u->stamp[x] = u->gen;
			u->state[x] = x == u->a ? YES : UNKNOWN;
		}
		if (u->state[x] != UNKNOWN)
			break;
		u->state[x] = ON_WALK;
		u->path[len++] = x;
		x = next_switch(u, x, lid);
	}
	uint8_t verdict = x < HOP_CA && u->state[x] == YES ? YES : NO;
	while (len)
		u->state[u->path[--len]] = verdict;
	return verdict == YES;
}

static void mark(struct cdg_users *u, uint16_t lid)
{
	if (!u->uses[lid]) {
		u->uses[lid] = true;
		u->users++;
	}
}

/*
 * Marks the sources above a for destination lid, and their LIDs; returns
 * how many questions are still open (a source not yet known to send
 * through a).
 */
static size_t mark_sources(struct cdg_users *u, uint16_t lid)
{
	size_t open = 0;
	u->gen++;
	for (size_t i = 0; i < u->nca_entry; i++) {
		const struct node *sw = u->ca_entry[i];
		if (!u->ca_above[sw->index] && (u->ca_above[sw->index] = passes_a(u, (uint32_t)sw->index, lid)))
			for (size_t k = u->first_ca[sw->index]; k; k = u->next_ca[k - 1])
				mark(u, u->source[k - 1].lid);
		open += !u->ca_above[sw->index];
	}
	for (size_t i = 0; i < u->nsource; i++) {
		const struct node *sw = u->source[i].sw;
		if (!u->source[i].own || u->sw_above[sw->index])
			continue;
		/* a switch's own first hop may be on VL 0: it sends on the layer from the next switch on */
		uint32_t from = cdg_own_hop_on_vl0(u->layer) ? next_switch(u, (uint32_t)sw->index, lid) : (uint32_t)sw->index;
		u->sw_above[sw->index] = from < HOP_CA && passes_a(u, from, lid);
		if (u->sw_above[sw->index])
			mark(u, u->source[i].lid);
		open += !u->sw_above[sw->index];
	}
	return open;
}

static void add_question(void *arg, uint16_t lid, const struct node *sw, bool own)
{
	struct cdg_users *u = arg;
	size_t k = u->nsource++;
	u->source[k] = (struct users_source){ lid, sw, own };
	if (own)
		return;
	if (u->listed[sw->index] != u->listing) {
		u->listed[sw->index] = u->listing;
		u->ca_entry[u->nca_entry++] = sw;
		u->first_ca[sw->index] = 0;
	}
	u->next_ca[k] = u->first_ca[sw->index];
	u->first_ca[sw->index] = k + 1;
}

void cdg_users_free(struct cdg_users *u)
{
	if (!u)
		return;
	free(u->state);
	free(u->stamp);
	free(u->listed);
	free(u->path);
	free(u->source);
	free(u->ca_entry);
	free(u->first_ca);
	free(u->next_ca);
	free(u->ca_above);
	free(u->sw_above);
	free(u->ca_lid);
	free(u->ca_using);
	free(u);
}

struct cdg_users *cdg_users_new(const struct fabric *f, const struct routing_tables *t, const struct hop_map *hops,
				unsigned layer, bool answers)
{
	size_t n = f->nnodes + 1;
	struct cdg_users *u = malloc(sizeof(*u));
	if (!u)
		return NULL;
	*u = (struct cdg_users){
		.f = f,
		.t = t,
		.layer = layer,
		.answers = answers,
		.hops = hops,
		.state = malloc(n),
		.stamp = calloc(n, sizeof(*u->stamp)),
		.listed = calloc(n, sizeof(*u->listed)),
		.path = malloc(n * sizeof(*u->path)),
		.source = malloc(((size_t)t->max_lid + 1) * sizeof(*u->source)),
		.ca_entry = malloc(n * sizeof(*u->ca_entry)),
		.first_ca = malloc(n * sizeof(*u->first_ca)),
		.next_ca = malloc(((size_t)t->max_lid + 1) * sizeof(*u->next_ca)),
		.ca_above = calloc(n, sizeof(*u->ca_above)),
		.sw_above = calloc(n, sizeof(*u->sw_above)),
		.ca_lid = calloc((size_t)t->max_lid + 1, sizeof(*u->ca_lid)),
		.ca_using = malloc(((size_t)t->max_lid + 1) * sizeof(*u->ca_using)),
	};
	if (!u->state || !u->stamp || !u->listed || !u->path || !u->source || !u->ca_entry || !u->first_ca ||
	    !u->next_ca || !u->ca_above || !u->ca_lid || !u->ca_using ||
	    !u->sw_above) {
		cdg_users_free(u);
		return NULL;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i]->nports && f->nodes[i]->type != NODE_SWITCH; p++)
			if (f->nodes[i]->ports[p].lid <= t->max_lid)
				u->ca_lid[f->nodes[i]->ports[p].lid] = true;
	u->ca_lid[0] = false;
	return u;
}

void cdg_users_list(struct cdg_users *u)
{
	struct cdg_mix m = cdg_mix_of(u->t);
	u->nsource = u->nca_entry = 0;
	u->listing++;
	if (u->answers)
		cdg_each_layer_lid(u->f, &m, u->layer, u->t->max_lid, add_question, u);
}

/*
 * The LFT rows of a's and b's switches, when a leads to b's switch: a LID
 * makes a depend on b when both rows send it on (cdg_lid_uses, a row at a
 * time). False when no LID can.
 */
static bool dependency_rows(const struct routing_tables *t, const struct cdg_channel *a, const struct cdg_channel *b,
			    const uint8_t **at_a, const uint8_t **at_b)
{
	*at_a = t->lft[a->node->index];
	*at_b = t->lft[b->node->index];
	return *at_a && *at_b && routing_next_switch(a->node, a->port) == b->node;
}

size_t cdg_users_reach(const struct cdg_users *u, const struct cdg_channel *a, const struct cdg_channel *b)
{
	const uint8_t *at_a, *at_b;
	size_t n = 0;
	if (!dependency_rows(u->t, a, b, &at_a, &at_b))
		return 0;
	for (uint32_t lid = 1; lid <= u->t->max_lid; lid++)
		n += at_a[lid] == a->port && at_b[lid] == b->port;
	return n;
}

unsigned cdg_users_of(struct cdg_users *u, const struct cdg_channel *a, const struct cdg_channel *b, bool *uses,
		      unsigned limit)
{
	const struct routing_tables *t = u->t;
	const uint8_t *at_a, *at_b;
	bool linked = dependency_rows(t, a, b, &at_a, &at_b);
	size_t nca = 0;
	u->a = (uint32_t)a->node->index;
	u->uses = uses;
	u->users = 0;
	for (size_t i = 0; i < u->nsource; i++)	/* no source known above a yet */
		u->ca_above[u->source[i].sw->index] = u->sw_above[u->source[i].sw->index] = false;
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		bool makes = linked && at_a[lid] == a->port && at_b[lid] == b->port;
		uses[lid] = makes && t->sl[lid] == u->layer;
		u->users += uses[lid];
		if (makes && u->ca_lid[lid])
			u->ca_using[nca++] = (uint16_t)lid;
	}
	bool open = true;	/* the answers to those CAs from sources above a */
	for (size_t i = 0; u->answers && open && u->users < limit && i < nca; i++)
		open = mark_sources(u, u->ca_using[i]) > 0;
	return u->users;
}
