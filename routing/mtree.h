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

/* An empty tree of f (all flags false): nnodes arrays of nports + 1. NULL on allocation failure. */
bool **mtree_new(const struct fabric *f);
/* Frees a tree of a fabric of nnodes nodes (NULL: nothing). */
void mtree_free(bool **on, size_t nnodes);
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
/* The GUID of the switch mtree_build takes as root on f (0: f has no switch, or memory ran out). */
uint64_t mtree_first_root(const struct fabric *f);
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
 * creates: a packet that enters a switch over a link whose far end sends
 * it there leaves on every other port of the switch's entry. On the union
 * of two trees (switches holding either one's entry, as while MFTs are
 * rewritten) that is every dependency any mixture of them has. -1 on
 * allocation failure.
 */
int mtree_dependencies(const struct fabric *f, bool *const *on, struct depgraph *g);

/*
 * A tree as the switches hold it, by switch GUID and port, so that it
 * outlives the fabric it was built on (routing/mtree_saved.c): what the
 * MFTs hold when the fabric changes.
 */
struct mtree_port {
	uint64_t guid;		/* a switch */
	uint8_t port;		/* a port of it the group's packets leave by */
};
struct mtree_saved {
	size_t n;
	struct mtree_port *v;	/* sorted by GUID, then port, each once */
};
/* on (a tree of f) into out. -1 on allocation failure (out empty). */
int mtree_save(const struct fabric *f, bool *const *on, struct mtree_saved *out);
/*
 * Adds s to on (a tree of f, as mtree_build fills it): each switch by
 * GUID, each port f's switch has; switches f lacks are left out, as the
 * packets they would have forwarded are.
 */
void mtree_load(const struct mtree_saved *s, const struct fabric *f, bool **on);
/* into := into with add's pairs added (each once; into zeroed: a copy). -1 on allocation failure (into unchanged). */
int mtree_saved_union(struct mtree_saved *into, const struct mtree_saved *add);
/* Whether every pair of a is in b. */
bool mtree_saved_within(const struct mtree_saved *a, const struct mtree_saved *b);
void mtree_saved_free(struct mtree_saved *s);
#endif
