/*
 * batch.h - a batch of SMP Sets whose completion is one callback.
 */
#ifndef SM_BATCH_H
#define SM_BATCH_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "sm/sweep/configure.h"
#include "sm/sweep/lostset.h"

struct batch;
/* Issues the Sets of node i (of the caller's fabric) into b; ctx is the batch's copy of the caller's context. */
typedef void (*batch_node_fn)(void *ctx, struct batch *b, size_t i);

struct batch {
	struct mad_port *mp;
	struct cfg_result r;
	unsigned in_flight;	/* Sets queued in the MAD layer or on the wire */
	cfg_done_fn done;
	void *arg;
	bool issuing;		/* still sending: do not finish on a zero count yet */
	struct lost_set lost;	/* the nodes a Set failed to (r.lost while done runs) */
	/* batch_over_nodes: the nodes still to issue */
	batch_node_fn each;
	void *ctx;
	size_t next, nnodes;
	bool feeding;
};

/* NULL on allocation failure. */
struct batch *batch_new(struct mad_port *mp, cfg_done_fn done, void *arg);
/*
 * A batch over nodes 0 .. nnodes - 1 that issues them as the answers come
 * back: each(ctx, b, i) runs while fewer than BATCH_QUEUED Sets wait or
 * fly, so the MADs held at once stay bounded however large the fabric
 * (a Set per switch port pair is millions on a 27,648-host tree). ctx
 * (ctx_len bytes) is copied; what it points to must stay valid until done
 * runs. -1 on allocation failure.
 */
#define BATCH_QUEUED 4096
int batch_over_nodes(struct mad_port *mp, size_t nnodes, batch_node_fn each, const void *ctx, size_t ctx_len,
		     cfg_done_fn done, void *arg);
/*
 * Sends a Set of attr/mod with data to n, over the route that reaches
 * n's port (CAs answer only on the port an SMP comes in on; 0 for a
 * switch). A PortInfo Set's state field is verified if refused.
 */
/* A Set to n (over port's route for a CA); the answer only counts. */
void batch_set(struct batch *b, const struct node *n, uint8_t port, ib_net16_t attr, uint32_t mod, const void *data,
	       size_t len);
/*
 * A PortInfo or SwitchInfo Set whose answer (the attribute as now set) is
 * stored back into n: only for a sweep's own fabric, never a published one.
 */
void batch_set_stored(struct batch *b, struct node *n, uint8_t port, ib_net16_t attr, uint32_t mod,
		      const void *data, size_t len);
/* A PortInfo Set, stored back as batch_set_stored does, that sets *taken once answered. */
void batch_set_port_info(struct batch *b, struct node *n, uint8_t port, const ib_port_info_t *pi, bool *taken);
/*
 * A failure of b's at the node with GUID guid (a Set lost, or the node
 * left out: its SwitchInfo was not read, its table is too short),
 * lft_blocks of them LFT blocks; the node is kept among those whose
 * tables are not known.
 */
void batch_node_failed(struct batch *b, uint64_t guid, unsigned lft_blocks);
/* Everything is sent: done runs (and b is freed) when the answers are in. */
void batch_issued(struct batch *b);

#endif
