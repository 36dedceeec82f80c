/*
 * layer_graph.h - one layer's channel dependency graph kept exact while
 * VL layering moves LIDs off the layer, without building it again.
 */
#ifndef ROUTING_LAYER_GRAPH_H
#define ROUTING_LAYER_GRAPH_H

#include "routing/cdg.h"
#include "routing/deporder.h"
#include "routing/hopmap.h"
#include "routing/shares.h"

enum { LID_NONE, LID_CA, LID_OWN };

/* A turn (sw, out) -> (next, next_out) whose count left or reached 0 during a change. */
struct layer_crossing {
	const struct node *sw, *next;
	uint8_t out, next_out;
};

/* One share's crossings. */
struct layer_crossings {
	struct layer_crossing *v;
	size_t n, cap;
	bool failed;		/* one could not be kept */
};

struct layer_graph {
	const struct fabric *f;
	const struct routing_tables *t;
	unsigned layer;
	bool answers;		/* the layer carries what its LIDs send on their own SL */
	struct depgraph *g;	/* the caller's graph of the layer */
	uint32_t **count;	/* per switch: per (in-port, out-port), the paths making that turn */
	uint32_t *cas_on_layer;	/* per switch: the layer's CA LIDs entering the fabric there */
	const struct node **lid_node;	/* per LID: its switch, or its CA's entry switch (NULL: none) */
	uint8_t *lid_kind;	/* per LID: LID_NONE, LID_CA or LID_OWN (a switch's) */
	const struct node **entry;	/* switches with CAs */
	size_t nentry;
	uint16_t *ca_lids;	/* every CA LID: where answers go */
	size_t nca;
	uint16_t *dest;		/* scratch: the LIDs whose paths are being added or taken out */
	size_t ndest;
	uint32_t *from;		/* scratch: switches (node indices) whose answers are being added or taken out */
	bool *own;		/* per from[]: a switch's own answers (else its CAs') */
	size_t nfrom;
	struct layer_crossings crossings[SHARES_MAX];
	struct layer_starts {	/* per share, scratch: the distinct places answers to one CA start from */
		uint32_t *stamp, *paths;	/* per node index */
		uint32_t *at;	/* node indices */
		uint32_t gen;
	} starts[SHARES_MAX];
	struct dep_edge *added;	/* the dependencies layer_graph_add_lids last gave g */
	size_t nadded, cap_added;
	bool listing;		/* a change adding paths lists what it gives g */
	const struct hop_map *hops;	/* the caller's, of f */
};

/*
 * Counts the paths behind g, the graph cdg_add_layer built for the layer
 * of t (cdg_mix_of(t), no_answers = !answers), as t->sl stands now; into
 * an empty g, builds that graph (the same turns). hops: f's hop map, kept
 * by the caller while lg lives. -1 on allocation failure (lg then holds
 * nothing to free).
 */
int layer_graph_init(struct layer_graph *lg, const struct fabric *f, const struct routing_tables *t,
		     const struct hop_map *hops, unsigned layer, bool answers, struct depgraph *g);
/*
 * Takes the paths of the LIDs with lids[lid] set out of the graph (call it
 * while their t->sl is still the layer, then change their SLs): g then
 * holds exactly what cdg_add_layer would build without them on the layer.
 * -1 on allocation failure (the graph is then not to be trusted).
 */
int layer_graph_remove_lids(struct layer_graph *lg, const bool *lids);
/*
 * Puts the paths of the LIDs with lids[lid] set back (call it once their
 * t->sl is the layer again); lg->added lists the dependencies g gained
 * (for deporder_admit). -1 on allocation failure.
 */
int layer_graph_add_lids(struct layer_graph *lg, const bool *lids);
void layer_graph_free(struct layer_graph *lg);

#endif
