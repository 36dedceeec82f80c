/*
 * depgraph.h - a graph of dependencies between channels (a node's output
 * port: the link from there onward, on one VL when the graph has
 * several) and the search for a cycle in it.
 * The IB deadlock checker (cdg.c) and the RoCE buffer-dependency check
 * (ecmp.c) both fill one. A dependency is a turn inside a node: traffic
 * that came in on one port and leaves on another.
 */
#ifndef ROUTING_DEPGRAPH_H
#define ROUTING_DEPGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include "topology/fabric.h"

#define CDG_MAX_CYCLE 64

/* A channel is a switch output port: the link from (node, port) onward (on VL vl). */
struct cdg_channel {
	const struct node *node;
	uint8_t port;
	uint8_t vl;		/* 0 in a graph of one VL */
};

struct cdg_report {
	unsigned vl;		/* the layer the figures and the cycle belong to */
	size_t channels;	/* switch output ports that routed traffic depends on */
	size_t dependencies;	/* distinct channel -> channel edges */
	bool per_vl;		/* channels are (port, VL) pairs: the cycle names their VLs */
	size_t cycle_len;	/* 0: no cycle */
	struct cdg_channel cycle[CDG_MAX_CYCLE];	/* the first cycle found, in order */
};

struct depgraph {
	const struct fabric *f;
	unsigned nvl;		/* VLs per port: 1 unless made by depgraph_init_vls */
	size_t *base;		/* channel id = (base[node index] + port) * nvl + vl */
	size_t nch;
	/*
	 * Per node, allocated on first use: one row per (in-port, VL) of
	 * enough words for a bit per (out-port, VL), set for "in waits for out".
	 */
	uint64_t **turns;
	size_t used;		/* distinct dependencies */
};

/* An empty graph over every port of f; -1 on allocation failure. */
int depgraph_init(struct depgraph *g, const struct fabric *f);
/* The same over every (port, VL) of f, for nvl VLs (1 to 16). */
int depgraph_init_vls(struct depgraph *g, const struct fabric *f, unsigned nvl);
void depgraph_free(struct depgraph *g);
/* dst = a copy of src's dependencies (not its last check's edges); -1 on allocation failure. */
int depgraph_copy(struct depgraph *dst, const struct depgraph *src);
/*
 * The same onto fabric f, each of whose nodes that src's fabric has (by
 * GUID) has the same port count there: a node's turns go with its GUID,
 * nodes only one fabric has start or end with none. -1 on allocation
 * failure.
 */
int depgraph_copy_onto(struct depgraph *dst, const struct depgraph *src, const struct fabric *f);
/* Adds every dependency of src (a graph of the same fabric and VLs) to dst; -1 on allocation failure. */
int depgraph_merge(struct depgraph *dst, const struct depgraph *src);
/*
 * Adds "channel (a, pa) waits for channel (b, pb)" once, where b is the
 * node that (a, pa) leads to; -1 on allocation failure.
 */
int depgraph_add(struct depgraph *g, const struct node *a, uint8_t pa, const struct node *b, uint8_t pb);
/* The same between (a, pa) on VL va and (b, pb) on VL vb. */
int depgraph_add_vl(struct depgraph *g, const struct node *a, uint8_t pa, uint8_t va, const struct node *b,
		    uint8_t pb, uint8_t vb);
/* Words in one row of a node's turn matrix in a graph of one VL. */
#define DEPGRAPH_WORDS(n) (((size_t)(n)->nports + 64) / 64)

/*
 * Adds "what enters b on in_port waits for each out-port set in out" (a
 * row of DEPGRAPH_WORDS(b) words): many turns at once, for multipath
 * tables, in a graph of one VL. -1 on allocation failure.
 */
int depgraph_add_turns(struct depgraph *g, const struct node *b, uint8_t in_port, const uint64_t *out);
/*
 * Counts the channels in use and the dependencies into r and puts the
 * first cycle found into r->cycle (r->cycle_len 0: acyclic). -1 on
 * allocation failure.
 */
int depgraph_check(struct depgraph *g, struct cdg_report *r);
/*
 * The first cycle reachable from the n channels of roots into r->cycle
 * (counts left 0): every cycle of a graph that was acyclic before some
 * dependencies were added passes through one of the added ones, so their
 * first channels as roots find it without searching the whole graph. -1
 * on allocation failure.
 */
int depgraph_check_from(struct depgraph *g, const struct cdg_channel *roots, size_t n, struct cdg_report *r);

/* Whether channel a waits for channel b in g. */
bool depgraph_has(const struct depgraph *g, const struct cdg_channel *a, const struct cdg_channel *b);
/* Removes "what enters b on in_port waits for out_port" (a graph of one VL), if there. */
void depgraph_remove_turn(struct depgraph *g, const struct node *b, uint8_t in_port, uint8_t out_port);

/*
 * Told a cycle (len channels, each waiting for the next, the last for the
 * first): returns 0 when it has removed dependencies from the graph so
 * that the cycle is gone, -1 to stop at this cycle, -2 on failure.
 */
typedef int depgraph_cut_fn(void *arg, const struct cdg_channel *cycle, size_t len);
/*
 * depgraph_check that hands every cycle it meets to cut, and goes on
 * searching the graph cut leaves (which may only lose dependencies): one
 * search breaks many cycles, and meets them in the order fresh searches
 * of each smaller graph would. r->cycle is the cycle cut stopped at
 * (cycle_len 0: none is left); the counts are g's before any removal. -1
 * on allocation failure or when cut fails.
 */
int depgraph_cut_cycles(struct depgraph *g, depgraph_cut_fn *cut, void *arg, struct cdg_report *r);

#endif
