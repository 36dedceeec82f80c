/*
 * DOC: Set batches
 *
 * A batch counts its MADs in flight and calls done when the last answer
 * is in and the caller said it issued everything. A batch over nodes
 * issues them itself, a node at a time, whenever fewer than half of
 * BATCH_QUEUED Sets are left in flight, so the transactions held at once
 * stay bounded (before, a 27,648-host bring-up queued 9 million Sets up
 * front: 3 GB). Failures are counted
 * and logged, the nodes they went to kept (r.lost: the next sweep cannot
 * vouch for what those hold); the batch goes on. The answers to batch_set_stored's
 * PortInfo and SwitchInfo Sets (the attribute as now set) are stored back
 * into sm_node.
 *
 * A Set keeps its own copy of what its retries and its log line need
 * (route, M_Key, name): a batch may outlive the fabric its nodes came
 * from (the multicast MFTs of the published fabric, replaced by a sweep
 * while their Sets still retry). Only PortInfo and SwitchInfo answers
 * touch the node again, and only the sweep sends those, on the fabric
 * it owns until its batches are done (batch_set_stored); published
 * fabrics get plain batch_set, which never writes to a node.
 */
#include "sm/sweep/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"

struct set_ctx {
	struct batch *b;
	struct node *store;	/* PortInfo and SwitchInfo Sets: where the answer goes; else NULL */
	struct dr_path route;
	uint64_t mkey;
	uint64_t guid;		/* the node's, for the batch's lost set */
	char desc[FABRIC_DESC_LEN + 1];
	ib_net16_t attr;
	uint32_t mod;
	uint8_t want_state;	/* PortInfo state Sets: the state asked for */
	bool *taken;		/* set when the Set is answered, if not NULL */
};

static void finish_if_idle(struct batch *b)
{
	if (b->issuing || b->in_flight)
		return;
	lost_set_seal(&b->lost);
	b->r.lost = &b->lost;
	b->done(b->arg, &b->r);
	lost_set_free(&b->lost);
	free(b->ctx);
	free(b);
}

/*
 * Issues nodes until BATCH_QUEUED Sets are out or none is left. A Set
 * whose retries fail at once is answered inside mad_send_dr, which calls
 * back here: feeding keeps that from issuing nodes out of order.
 */
static void feed(struct batch *b)
{
	if (b->feeding)
		return;
	b->feeding = true;
	while (b->next < b->nnodes && b->in_flight < BATCH_QUEUED)
		b->each(b->ctx, b, b->next++);
	b->feeding = false;
	if (b->next == b->nnodes)
		b->issuing = false;
}

static void on_set(void *ctx, int status, const ib_smp_t *reply);

/* A Set of attr to the node guid failed, or could not go out: counted, the node kept as lost. */
static void set_failed(struct batch *b, ib_net16_t attr, uint64_t guid)
{
	batch_node_failed(b, guid, attr == IB_MAD_ATTR_LIN_FWD_TBL);
}

void batch_node_failed(struct batch *b, uint64_t guid, unsigned lft_blocks)
{
	b->r.failed++;
	b->r.lft_failed += lft_blocks;
	lost_set_add(&b->lost, guid);
}

/* The answer to a lost state Set's re-read: done if the port got there. */
static void on_verify(void *ctx, int status, const ib_smp_t *reply)
{
	struct set_ctx *c = ctx;
	if (status == 0 && ib_port_info_get_port_state((const ib_port_info_t *)reply->data) == c->want_state) {
		c->want_state = 0;	/* nothing left to verify */
		on_set(c, 0, reply);
		return;
	}
	c->want_state = 0;
	on_set(c, status ? status : 1, reply);
}

/*
 * A port state Set is not idempotent: when its answer was lost, the resend
 * finds the port already moved and is refused. So a refused state Set is
 * checked with a Get before it counts as failed.
 */
static bool verify_refused_state(struct set_ctx *c, int status)
{
	if (!c->want_state || status == 0 || status == MAD_TIMEOUT)
		return false;
	return mad_send_dr(c->b->mp, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, c->mod, c->route.path, c->route.hops,
			   c->mkey, NULL, 0, on_verify, c) == 0;
}

static void on_set(void *ctx, int status, const ib_smp_t *reply)
{
	struct set_ctx *c = ctx;
	struct batch *b = c->b;
	if (verify_refused_state(c, status))
		return;
	if (status != 0) {
		set_failed(b, c->attr, c->guid);
		log_warn("configure: Set attribute 0x%04x mod 0x%x on %s failed (%s)", cl_ntoh16(c->attr), c->mod,
			 c->desc, status == MAD_TIMEOUT ? "timeout" : "refused");
	} else if (c->store && c->attr == IB_MAD_ATTR_PORT_INFO) {
		sm_node_set_port_info(c->store, (uint8_t)c->mod, (const ib_port_info_t *)reply->data);
		if (c->taken)
			*c->taken = true;
	} else if (c->store && c->attr == IB_MAD_ATTR_SWITCH_INFO) {
		sm_node(c->store)->switch_info = *(const ib_switch_info_t *)reply->data;	/* as now set */
	}
	free(c);
	b->in_flight--;
	if (b->each && b->issuing && b->in_flight < BATCH_QUEUED / 2)
		feed(b);
	finish_if_idle(b);
}

static void send_set(struct batch *b, const struct node *n, struct node *store, bool *taken, uint8_t port,
		     ib_net16_t attr, uint32_t mod, const void *data, size_t len)
{
	struct set_ctx *c = malloc(sizeof(*c));
	if (!c) {
		set_failed(b, attr, n->guid);
		return;
	}
	*c = (struct set_ctx){ .b = b, .store = store, .route = sm_node_route(n, port),
			       .mkey = sm_node_mkey(n, port), .guid = n->guid, .attr = attr, .mod = mod,
			       .taken = taken };
	snprintf(c->desc, sizeof(c->desc), "%s", n->desc);
	if (attr == IB_MAD_ATTR_PORT_INFO)
		c->want_state = ib_port_info_get_port_state((const ib_port_info_t *)data);
	b->in_flight++;	/* before sending: the answer may come inside mad_send_dr */
	if (mad_send_dr(b->mp, IB_MAD_METHOD_SET, attr, mod, c->route.path, c->route.hops, c->mkey, data, len, on_set,
			c) < 0) {
		free(c);
		b->in_flight--;
		set_failed(b, attr, n->guid);
		return;
	}
	b->r.sent++;
}

void batch_set(struct batch *b, const struct node *n, uint8_t port, ib_net16_t attr, uint32_t mod, const void *data,
	       size_t len)
{
	send_set(b, n, NULL, NULL, port, attr, mod, data, len);
}

void batch_set_stored(struct batch *b, struct node *n, uint8_t port, ib_net16_t attr, uint32_t mod,
		      const void *data, size_t len)
{
	send_set(b, n, n, NULL, port, attr, mod, data, len);
}

void batch_set_port_info(struct batch *b, struct node *n, uint8_t port, const ib_port_info_t *pi, bool *taken)
{
	send_set(b, n, n, taken, port, IB_MAD_ATTR_PORT_INFO, port, pi, sizeof(*pi));
}

struct batch *batch_new(struct mad_port *mp, cfg_done_fn done, void *arg)
{
	struct batch *b = calloc(1, sizeof(*b));
	if (b) {
		b->mp = mp;
		b->done = done;
		b->arg = arg;
		b->issuing = true;
	}
	return b;
}

int batch_over_nodes(struct mad_port *mp, size_t nnodes, batch_node_fn each, const void *ctx, size_t ctx_len,
		     cfg_done_fn done, void *arg)
{
	struct batch *b = batch_new(mp, done, arg);
	void *copy = b ? malloc(ctx_len) : NULL;
	if (!copy) {
		free(b);
		return -1;
	}
	memcpy(copy, ctx, ctx_len);
	b->each = each;
	b->ctx = copy;
	b->nnodes = nnodes;
	feed(b);
	finish_if_idle(b);
	return 0;
}

void batch_issued(struct batch *b)
{
	b->issuing = false;
	finish_if_idle(b);
}

