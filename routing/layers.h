/*
 * layers.h - virtual-lane layering: splitting destinations over SLs/VLs
 * until every layer's channel dependency graph is acyclic.
 */
#ifndef ROUTING_LAYERS_H
#define ROUTING_LAYERS_H

#include "routing/cdg.h"

struct layers_report {
	unsigned layers;	/* layers in use after the split */
	unsigned moved;		/* destinations moved off layer 0 */
	unsigned ordered;	/* layers proven by channel order (order_proof_layer), not by their graph */
	struct cdg_report cdg;	/* success: channels and dependencies summed over the layers;
				 * failure: the cycle left on the last layer */
	bool answers_proven;	/* the layers hold what LIDs send on their own SL (switches' answers) too */
	struct cdg_report answers;	/* not: the cycle they left with every VL in use */
};

/*
 * Every layer carries the CAs' traffic to its LIDs and the answers its
 * LIDs send (routing/cdg.c). When no layering within max_layers holds
 * the answers, the CAs' traffic alone is layered and r->answers_proven
 * is false.
 *
 * Starts from the layers the engine chose (t->sl, t->layers); while a
 * layer has a cycle, moves the destinations that create one dependency of
 * the cycle to the next layer (as DFSSSP does with paths). offer (NULL:
 * none) marks the LIDs whose layer above 1 is the engine's first guess,
 * not a proof's: once a layer l >= 1 is acyclic, those the engine put on
 * l + 1 are offered to it one by one, as those it shed are, and stay
 * where they fit (an emptied top layer is dropped). Updates t->sl and t->layers. Returns 0
 * when every layer is acyclic within max_layers,
 * 1 when it is not (r->cdg names the cycle; an engine needing more layers
 * than max_layers has r->cdg empty), -1 on allocation failure.
 */
int layers_assign(const struct fabric *f, struct routing_tables *t, unsigned max_layers, const bool *offer,
		  struct layers_report *r);

#endif
