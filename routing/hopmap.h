/*
 * hopmap.h - where every switch port leads, packed for the walks along
 * the tables that take billions of steps on the largest fabrics (the
 * layer graph's counted paths, the users search): a step reads the
 * table's entry and this map, not the fabric's nodes.
 */
#ifndef ROUTING_HOPMAP_H
#define ROUTING_HOPMAP_H

#include "routing/routing.h"

#define HOP_CA 0xfffffffeu	/* next: a CA */
#define HOP_NONE 0xffffffffu	/* next: nothing cabled (or port 0) */

/* A switch port: the switch it leads to (its node index, or HOP_CA, HOP_NONE) and the port it enters by. */
struct hop {
	uint32_t next;
	uint8_t in;
};

struct hop_map {
	uint32_t *at;		/* per node index: where a switch's ports start in hop[] */
	uint8_t *nports;	/* per node index: a switch's port count (0: not a switch) */
	struct hop *hop;
};

/* The map of f's switch ports. -1 on allocation failure (m then holds nothing to free). */
int hop_map_build(struct hop_map *m, const struct fabric *f);
void hop_map_free(struct hop_map *m);

/*
 * Switch sw's (node index) hop towards lid in t, its port in *out: what
 * routing_next_hop gives, read from the map (NULL where that gives 0).
 */
static inline const struct hop *hop_map_step(const struct hop_map *m, const struct routing_tables *t, uint32_t sw,
					     uint16_t lid, uint8_t *out)
{
	const uint8_t *row = t->lft[sw];
	uint8_t port = row && lid <= t->max_lid ? row[lid] : LFT_NO_PATH;
	if (port == LFT_NO_PATH || !port || port > m->nports[sw])
		return NULL;
	const struct hop *h = &m->hop[m->at[sw] + port];
	*out = port;
	return h->next == HOP_NONE ? NULL : h;
}

#endif
