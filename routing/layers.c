/*
 * DOC: VL layering
 *
 * A layer carries the traffic to its LIDs (from every CA) and from its
 * LIDs (to every CA: answers keep the request's SL). One LID's routes
 * cannot close a cycle unless a table loops, so a cycle is made by two or
 * more; moving every LID whose traffic makes one dependency of the cycle
 * breaks that cycle on the current layer, and the next check finds the
 * next one. Of the cycle's dependencies the one with the fewest users is
 * moved, so layers stay full. Moved LIDs are checked again on their new
 * layer. If every dependency is made by all the layer's LIDs, no layering
 * helps, and the cycle is reported.
 *
 * When the VLs are too few for the answers too, the layering starts over
 * with the CAs' traffic alone, which must fit, and the answers' cycle is
 * reported beside a routing that is still accepted.
 */
#include "routing/layers.h"

#include <stdlib.h>
#include <string.h>

/*
 * Moves to layer l + 1 the LIDs on layer l whose traffic makes one
 * dependency of the cycle: of the cycle's dependencies, the one used by
 * the fewest, as long as they are not all of the layer's LIDs. How many
 * moved (0: every dependency is made by all of them), -1 on allocation
 * failure.
 */
static int move_users(const struct fabric *f, struct routing_tables *t, unsigned l, bool answers,
		      const struct cdg_report *c)
{
	size_t n = (size_t)t->max_lid + 1;
	unsigned on_layer = 0, best = 0;
	bool *uses = malloc(n * sizeof(*uses)), *chosen = calloc(n, sizeof(*chosen));
	int rc = -1;
	if (!uses || !chosen)
		goto done;
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		on_layer += t->sl[lid] == l;
	for (size_t i = 0; i < c->cycle_len; i++) {
		unsigned users = 0;
		if (cdg_layer_users(f, t, l, answers, &c->cycle[i], &c->cycle[(i + 1) % c->cycle_len], uses) < 0)
			goto done;
		for (uint32_t lid = 1; lid <= t->max_lid; lid++)
			users += uses[lid];
		if (users && users < on_layer && (!best || users < best)) {
			best = users;
			memcpy(chosen, uses, n * sizeof(*uses));
		}
	}
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		if (chosen[lid])
			t->sl[lid] = (uint8_t)(l + 1);
	rc = (int)best;
done:
	free(uses);
	free(chosen);
	return rc;
}

/* The layering loop over t's SLs; answers: with what LIDs send on their own SL. 0, 1 (cyclic) or -1. */
static int assign(const struct fabric *f, struct routing_tables *t, unsigned max_layers, bool answers,
		  struct layers_report *r)
{
	struct cdg_report sum = { 0 };
	unsigned engine_layers = t->layers ? t->layers : 1;
	r->moved = 0;
	for (unsigned l = 0; l < max_layers; l++) {
		struct cdg_mix m = cdg_mix_of(t);
		m.no_answers = !answers;
		t->layers = l + 1 > engine_layers ? l + 1 : engine_layers;
		for (;;) {
			if (cdg_check_layer_with(f, &m, l, NULL, NULL, &r->cdg) < 0)
				return -1;
			if (!r->cdg.cycle_len)
				break;
			int moved = l + 1 < max_layers ? move_users(f, t, l, answers, &r->cdg) : 0;
			if (moved < 0)
				return -1;
			if (!moved) {
				r->layers = t->layers;
				return 1;
			}
			r->moved += (unsigned)moved;
		}
		sum.channels += r->cdg.channels;
		sum.dependencies += r->cdg.dependencies;
		bool more = false;
		for (uint32_t lid = 1; lid <= t->max_lid && !more; lid++)
			more = t->sl[lid] > l;
		if (!more)
			break;
	}
	r->layers = t->layers;
	r->cdg = sum;
	return 0;
}

int layers_assign(const struct fabric *f, struct routing_tables *t, unsigned max_layers,
		  struct layers_report *r)
{
	unsigned engine_layers = t->layers ? t->layers : 1;
	memset(r, 0, sizeof(*r));
	if (max_layers > ROUTING_MAX_LAYERS)
		max_layers = ROUTING_MAX_LAYERS;
	if (engine_layers > max_layers) {
		r->layers = engine_layers;
		return 1;
	}
	size_t n = (size_t)t->max_lid + 1;
	uint8_t *engine_sl = malloc(n);
	if (!engine_sl)
		return -1;
	memcpy(engine_sl, t->sl, n);
	int rc = assign(f, t, max_layers, true, r);
	r->answers_proven = rc == 0;
	if (rc == 1) {	/* the CAs' traffic alone, so that too few VLs for the answers leave the fabric routed */
		r->answers = r->cdg;
		memcpy(t->sl, engine_sl, n);
		t->layers = engine_layers;
		rc = assign(f, t, max_layers, false, r);
	}
	free(engine_sl);
	return rc;
}
