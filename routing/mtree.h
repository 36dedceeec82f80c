/*
 * mtree.h - multicast forwarding for one group: the tree its members'
 * packets flood, as the ports each switch forwards them on.
 */
#ifndef ROUTING_MTREE_H
#define ROUTING_MTREE_H

#include <stdbool.h>
#include "topology/fabric.h"

/* A member: a CA port. */
struct mtree_member {
	const struct node *ca;
	uint8_t port;
};

/*
 * The group's tree: the switches on the up-going paths from every
 * member's switch to one root switch (the best-connected, then lowest
 * GUID, as up/down ranks from), over the breadth-first tree from that
 * root, so the tree only ever turns from going up to going down. Sets
 * on[node index][port] for every switch port the group's packets leave
 * by (tree links and member ports); on is nnodes arrays of nports + 1
 * flags, all false on entry. -1 on allocation failure.
 */
int mtree_build(const struct fabric *f, const struct mtree_member *m, size_t n, bool **on);
/*
 * The same from the switch with GUID root_guid (0: mtree_build's root); 1
 * when the fabric has no such switch (on untouched).
 */
int mtree_build_at(const struct fabric *f, const struct mtree_member *m, size_t n, uint64_t root_guid, bool **on);
/*
 * Up to max switch GUIDs into out, the roots to try after mtree_build's
 * own for the members' tree, among the next 64 switches in its order:
 * fewest switches with CAs inside the members' climbs to the root (where
 * a tree turns down and up again), then that order. Returns how many (0
 * on allocation failure).
 */
size_t mtree_roots(const struct fabric *f, const struct mtree_member *m, size_t n, uint64_t *out, size_t max);

struct depgraph;
/*
 * Adds the channel dependencies a tree (on, as mtree_build fills it)
 * creates: a packet that enters a switch over a tree link leaves on every
 * other tree port. -1 on allocation failure.
 */
int mtree_dependencies(const struct fabric *f, bool *const *on, struct depgraph *g);

#endif
