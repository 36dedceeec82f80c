/*
 * DOC: RoCE ASN plan
 *
 * Assignment (the YAML gives no ASN): the top tier shares ASN_BASE; a
 * middle tier t is split into pods, the switches of tier t joined by a
 * common neighbour below them (union-find), pod g getting
 * ASN_BASE + 1000 t + g + 1; leaf i gets ASN_BASE + 1000000 + i.
 *
 * The check, given or assigned: eBGP rejects a route whose AS path holds
 * the receiver's own ASN, and nothing else stops a route. So
 *   - two switches above a common neighbour with different ASNs let a
 *     route come down to it from one and go up to the other: a valley;
 *   - two leaves with one ASN reject each other's prefixes (allowas-in is
 *     nowhere), as do two switches of different tiers with one ASN;
 *   - a link between two switches of one tier with different ASNs carries
 *     routes sideways, which the up/down tables (and their CBD proof) never
 *     use.
 * Any of them makes the plan unsafe, named.
 */
#include "routing/roce_asn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t find(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

static unsigned top_tier(const struct roce_fabric *rf)
{
	unsigned top = 0;
	for (size_t i = 0; i < rf->nsw; i++)
		if (rf->sw[i].tier > top)
			top = rf->sw[i].tier;
	return top;
}

/* The switch at the other end of sw's port p, or ROCE_NONE. */
static size_t peer(const struct roce_fabric *rf, size_t sw, size_t p)
{
	const struct roce_port *pt = &rf->sw[sw].ports[p];
	return pt->host ? ROCE_NONE : pt->peer_sw;
}

static int assign(const struct roce_fabric *rf, uint32_t *asn)
{
	size_t *parent = malloc((rf->nsw ? rf->nsw : 1) * sizeof(*parent));
	size_t *pod = malloc((rf->nsw ? rf->nsw : 1) * sizeof(*pod));
	if (!parent || !pod) {
		free(parent);
		free(pod);
		return -1;
	}
	unsigned top = top_tier(rf);
	for (size_t i = 0; i < rf->nsw; i++)
		parent[i] = i;
	/* the switches above one neighbour, in one tier, are one pod */
	for (size_t y = 0; y < rf->nsw; y++) {
		size_t first = ROCE_NONE;
		for (size_t p = 0; p < rf->sw[y].nports; p++) {
			size_t x = peer(rf, y, p);
			if (x == ROCE_NONE || rf->sw[x].tier != rf->sw[y].tier + 1)
				continue;
			if (first == ROCE_NONE)
				first = x;
			else
				parent[find(parent, x)] = find(parent, first);
		}
	}
	/* pod[root]: the pod's number within its tier, in the order of their first switch */
	size_t leaves = 0, *next = calloc((size_t)top + 1, sizeof(*next));
	if (!next) {
		free(parent);
		free(pod);
		return -1;
	}
	for (size_t i = 0; i < rf->nsw; i++)
		pod[i] = ROCE_NONE;
	for (size_t i = 0; i < rf->nsw; i++) {
		unsigned t = rf->sw[i].tier;
		size_t root = find(parent, i);
		if (t == 0) {
			asn[i] = ROCE_ASN_BASE + 1000000u + (uint32_t)leaves++;
		} else if (t == top) {
			asn[i] = ROCE_ASN_BASE;
		} else {
			if (pod[root] == ROCE_NONE)
				pod[root] = next[t]++;
			asn[i] = ROCE_ASN_BASE + 1000u * t + (uint32_t)pod[root] + 1;
		}
	}
	free(next);
	free(parent);
	free(pod);
	return 0;
}

/* The first rule the ASNs break, in a->problem; a->safe if none. */
static void check(const struct roce_fabric *rf, struct roce_asn_plan *a)
{
	const uint32_t *asn = a->asn;
	a->safe = false;
	for (size_t y = 0; y < rf->nsw; y++)
		for (size_t p = 0; p < rf->sw[y].nports; p++) {
			size_t x = peer(rf, y, p);
			if (x == ROCE_NONE)
				continue;
			if (rf->sw[x].tier == rf->sw[y].tier && asn[x] != asn[y]) {
				snprintf(a->problem, sizeof(a->problem),
					 "%s (AS %u) and %s (AS %u) are linked in one tier: BGP would route sideways "
					 "over %s:%s, which the up/down tables never use",
					 rf->sw[y].name, asn[y], rf->sw[x].name, asn[x], rf->sw[y].name,
					 rf->sw[y].ports[p].name);
				return;
			}
			if (rf->sw[x].tier <= rf->sw[y].tier)
				continue;
			for (size_t q = p + 1; q < rf->sw[y].nports; q++) {
				size_t z = peer(rf, y, q);
				if (z != ROCE_NONE && rf->sw[z].tier > rf->sw[y].tier && asn[z] != asn[x]) {
					snprintf(a->problem, sizeof(a->problem),
						 "valley: %s (AS %u) and %s (AS %u) are both above %s, so a route can come "
						 "down to %s and go up again; give them one ASN (RFC 7938)",
						 rf->sw[x].name, asn[x], rf->sw[z].name, asn[z], rf->sw[y].name,
						 rf->sw[y].name);
					return;
				}
			}
		}
	for (size_t i = 0; i < rf->nsw; i++)
		for (size_t j = i + 1; j < rf->nsw; j++) {
			if (asn[i] != asn[j])
				continue;
			bool leaves = rf->sw[i].tier == 0 && rf->sw[j].tier == 0;
			if (leaves || rf->sw[i].tier != rf->sw[j].tier) {
				snprintf(a->problem, sizeof(a->problem), "%s and %s share AS %u: each rejects the other's %s",
					 rf->sw[i].name, rf->sw[j].name, asn[i], leaves ? "prefixes" : "routes");
				return;
			}
		}
	a->safe = true;
}

int roce_asn_plan(const struct roce_fabric *rf, struct roce_asn_plan *out)
{
	memset(out, 0, sizeof(*out));
	out->asn = calloc(rf->nsw ? rf->nsw : 1, sizeof(*out->asn));
	if (!out->asn)
		return -1;
	size_t given = 0;
	for (size_t i = 0; i < rf->nsw; i++)
		given += rf->sw[i].asn != 0;
	if (given && given < rf->nsw) {
		for (size_t i = 0; i < rf->nsw; i++)
			if (!rf->sw[i].asn) {
				snprintf(out->problem, sizeof(out->problem),
					 "%zu switches have an asn and %s has none: give every switch one, or none "
					 "(fabricd then assigns them)", given, rf->sw[i].name);
				return 0;
			}
	}
	if (given) {
		for (size_t i = 0; i < rf->nsw; i++)
			out->asn[i] = rf->sw[i].asn;
	} else {
		if (assign(rf, out->asn) < 0) {
			roce_asn_free(out);
			return -1;
		}
		out->assigned = true;
	}
	check(rf, out);
	return 0;
}

void roce_asn_free(struct roce_asn_plan *a)
{
	free(a->asn);
	a->asn = NULL;
}
