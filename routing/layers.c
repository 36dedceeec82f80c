/*
 * DOC: VL layering
 *
 * A destination's routes form a tree, so a cycle always involves two or
 * more destinations; moving every destination that uses one edge of the
 * cycle breaks that cycle on the current layer, and the next check finds
 * the next one. Moved destinations are checked again on their new layer.
 * If a layer's cycle is made by one destination alone, its table loops:
 * no layering helps, and the cycle is reported.
 */
#include "routing/layers.h"

#include <string.h>

/* Moves the destinations on layer l that use the cycle's first dependency; how many. */
static unsigned move_users(const struct fabric *f, struct routing_tables *t, unsigned l,
			   const struct cdg_report *c)
{
	unsigned moved = 0, on_layer = 0;
	const struct cdg_channel *a = &c->cycle[0], *b = &c->cycle[1 % c->cycle_len];
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		if (t->sl[lid] != l)
			continue;
		on_layer++;
		if (cdg_lid_uses(t, (uint16_t)lid, a, b)) {
			t->sl[lid] = (uint8_t)(l + 1);
			moved++;
		}
	}
	if (moved == on_layer) {	/* all of them: one destination is the cycle, undo */
		for (uint32_t lid = 1; lid <= t->max_lid; lid++)
			if (t->sl[lid] == l + 1 && cdg_lid_uses(t, (uint16_t)lid, a, b))
				t->sl[lid] = (uint8_t)l;
		return 0;
	}
	return moved;
}

int layers_assign(const struct fabric *f, struct routing_tables *t, unsigned max_layers,
		  struct layers_report *r)
{
	struct cdg_report sum = { 0 };
	unsigned engine_layers = t->layers ? t->layers : 1;
	memset(r, 0, sizeof(*r));
	if (max_layers > ROUTING_MAX_LAYERS)
		max_layers = ROUTING_MAX_LAYERS;
	if (engine_layers > max_layers) {
		r->layers = engine_layers;
		return 1;
	}
	for (unsigned l = 0; l < max_layers; l++) {
		t->layers = l + 1 > engine_layers ? l + 1 : engine_layers;
		for (;;) {
			if (cdg_check_layer(f, t, l, &r->cdg) < 0)
				return -1;
			if (!r->cdg.cycle_len)
				break;
			unsigned moved = l + 1 < max_layers ? move_users(f, t, l, &r->cdg) : 0;
			if (!moved) {
				r->layers = t->layers;
				return 1;
			}
			r->moved += moved;
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
