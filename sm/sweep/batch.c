/*
 * DOC: Set batches
 *
 * A batch counts its MADs in flight and calls done when the last answer
 * is in and the caller said it issued everything. Failures are counted
 * and logged; the batch goes on. The answers to batch_set_stored's
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

#include "sm/log.h"
#include "sm/smnode.h"

struct set_ctx {
	struct batch *b;
	struct node *store;	/* PortInfo and SwitchInfo Sets: where the answer goes; else NULL */
	struct dr_path route;
	uint64_t mkey;
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
	b->done(b->arg, &b->r);
	free(b);
}

static void on_set(void *ctx, int status, const ib_smp_t *reply);

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
		b->r.failed++;
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
	finish_if_idle(b);
}

static void send_set(struct batch *b, const struct node *n, struct node *store, bool *taken, uint8_t port,
		     ib_net16_t attr, uint32_t mod, const void *data, size_t len)
{
	struct set_ctx *c = malloc(sizeof(*c));
	if (!c) {
		b->r.failed++;
		return;
	}
	*c = (struct set_ctx){ .b = b, .store = store, .route = sm_node_route(n, port),
			       .mkey = sm_node_mkey(n, port), .attr = attr, .mod = mod, .taken = taken };
	snprintf(c->desc, sizeof(c->desc), "%s", n->desc);
	if (attr == IB_MAD_ATTR_PORT_INFO)
		c->want_state = ib_port_info_get_port_state((const ib_port_info_t *)data);
	if (mad_send_dr(b->mp, IB_MAD_METHOD_SET, attr, mod, c->route.path, c->route.hops, c->mkey, data, len, on_set,
			c) < 0) {
		free(c);
		b->r.failed++;
		return;
	}
	b->r.sent++;
	b->in_flight++;
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

void batch_issued(struct batch *b)
{
	b->issuing = false;
	finish_if_idle(b);
}

