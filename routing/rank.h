/*
 * rank.h - levels for up/down routing. Level 0 is the bottom (leaf
 * switches in a fat tree); a link is "up" when it leads to a higher
 * (level, GUID).
 */
#ifndef ROUTING_RANK_H
#define ROUTING_RANK_H

#include <stdbool.h>
#include <stdint.h>
#include "routing/swindex.h"

#define RANK_WHY_LEN 256
#define RANK_NONE UINT32_MAX

struct rank {
	uint32_t *level;	/* per switch index */
	uint32_t top;		/* highest level */
	bool fat_tree;		/* every switch link joins adjacent levels, hosts only at level 0 */
	char why[RANK_WHY_LEN];	/* when not a fat tree: the first reason found */
};

/*
 * Levels by hop distance from the switches that have hosts (leaves), or,
 * with roots (switch GUIDs), by distance from the roots counted down from
 * the top. Fills r->fat_tree and r->why. -1 on allocation failure.
 */
int rank_fat_tree(struct rank *r, const struct swindex *x, const uint64_t *roots, size_t nroots);
/*
 * Levels by distance from one root switch (the one with most switch links,
 * then lowest GUID): classic up/down, which reaches every pair of a
 * connected fabric. r->fat_tree is false.
 */
int rank_from_center(struct rank *r, const struct swindex *x);
void rank_free(struct rank *r);
/* Whether a CA is cabled to switch n: a leaf, level 0 of a fat tree ranked from its leaves. */
bool rank_has_hosts(const struct node *n);

/* True when switch a is above switch b in the up/down order. */
static inline bool rank_above(const struct rank *r, const struct swindex *x, size_t a, size_t b)
{
	if (r->level[a] != r->level[b])
		return r->level[a] > r->level[b];
	return x->sw[a]->guid > x->sw[b]->guid;
}

#endif
