/*
 * smp_sim.h - a small simulator behind a fake MAD port, for unit tests of
 * sm/ code that sends SMPs: mad_send_dr (wrapped at link time) follows each
 * directed route through a "true" fabric (the SM on its first CA) and
 * queues the answer the node there would give (NodeInfo, NodeDescription,
 * SwitchInfo, PortInfo, and SMInfo from the one other SM a test may put
 * in (sim_other_sm); a Set is answered with its own data, as a node that
 * took it does). A switch's PortStateChange is state_change[], set by
 * the test, cleared by a SwitchInfo Set that writes it. The test delivers
 * the queue in the order it likes, or loses answers. Each test program
 * includes it once.
 */
#ifndef TESTS_COMMON_SMP_SIM_H
#define TESTS_COMMON_SMP_SIM_H

#include <stdlib.h>
#include <string.h>

#include "sm/mad/mad.h"
#include "topology/fabric.h"

#define QUEUE 32768

#define SIM_MAX_NODES 1024

static struct fabric truth;
static const struct node *lost;	/* the node whose NodeInfo answers never come */
static bool state_change[SIM_MAX_NODES];	/* per truth node index: SwitchInfo's PortStateChange set */
static bool no_client_rereg[SIM_MAX_NODES];	/* per truth node index: its ports do not offer ClientReregister */
/* The truth node (by index, 0: none; a CA) whose port says IsSM and answers SMInfo as a STANDBY of priority 0. */
static size_t sim_other_sm;
/* When set, called on every answer before it is queued: a test's node that answers what it likes. */
static void (*sim_tamper)(const struct node *n, ib_net16_t attr, uint32_t mod, ib_smp_t *r);
static struct answer {
	mad_done_fn done;
	void *ctx;
	int status;
	ib_smp_t reply;
} queue[QUEUE];
static size_t queued;

/* The SM's node: the truth's first that is not a switch. */
static const struct node *sim_sm_node(void)
{
	const struct node *n = truth.nodes[0];
	for (size_t i = 0; i < truth.nnodes && n->type == NODE_SWITCH; i++)
		n = truth.nodes[i];
	return n;
}

/* The node at the end of path (and in *in the port the SMP entered it by), or NULL. */
static const struct node *follow(const uint8_t *path, uint8_t hops, uint8_t *in)
{
	const struct node *n = sim_sm_node();
	*in = 1;
	for (unsigned h = 1; h <= hops; h++) {
		uint8_t out = path[h];
		if (out == 0 || out > n->nports || !n->ports[out].remote || (h > 1 && n->type != NODE_SWITCH) ||
		    (h == 1 && out != *in))
			return NULL;
		*in = n->ports[out].remote_port;
		n = n->ports[out].remote;
	}
	return n;
}

static void answer_for(const struct node *n, uint8_t in, ib_net16_t attr, uint32_t mod, ib_smp_t *r)
{
	memset(r, 0, sizeof(*r));
	r->attr_id = attr;
	if (attr == IB_MAD_ATTR_NODE_INFO) {
		ib_node_info_t *ni = (ib_node_info_t *)r->data;
		ni->node_type = n->type == NODE_SWITCH ? IB_NODE_TYPE_SWITCH : IB_NODE_TYPE_CA;
		ni->num_ports = n->nports;
		ni->sys_guid = ni->node_guid = cl_hton64(n->guid);
		ni->port_guid = cl_hton64(fabric_port_guid(n, in));
		ni->partition_cap = cl_hton16(64);
		ni->port_num_vendor_id = cl_hton32((uint32_t)in << 24 | 0x02c9);
	} else if (attr == IB_MAD_ATTR_NODE_DESC) {
		memcpy(r->data, n->desc, strnlen(n->desc, IB_SMP_DATA_SIZE));
	} else if (attr == IB_MAD_ATTR_SWITCH_INFO) {
		ib_switch_info_t *si = (ib_switch_info_t *)r->data;
		si->lin_cap = cl_hton16(0xc000);
		si->mcast_cap = cl_hton16(1024);
		if (n->index < SIM_MAX_NODES && state_change[n->index])
			si->life_state |= IB_SWITCH_PSC;
	} else if (attr == IB_MAD_ATTR_PORT_INFO) {
		ib_port_info_t *pi = (ib_port_info_t *)r->data;
		const struct port *p = &n->ports[mod <= n->nports ? mod : 0];
		bool up = p->remote || (n->type == NODE_SWITCH && mod == 0);
		ib_port_info_set_port_state(pi, !up ? IB_LINK_DOWN : p->state ? p->state : IB_LINK_INIT);
		pi->vl_cap = 4 << 4 | 5;	/* VL0-7, MTU 4096 */
		pi->mtu_cap = 5;
		bool rereg = n->type != NODE_SWITCH && !(n->index < SIM_MAX_NODES && no_client_rereg[n->index]);
		pi->capability_mask = rereg ? IB_PORT_CAP_HAS_CLIENT_REREG : 0;
		if (sim_other_sm && n->index == sim_other_sm)
			pi->capability_mask |= IB_PORT_CAP_IS_SM;
		pi->state_info2 = (uint8_t)((up ? 5 : 3) << IB_PORT_PHYS_STATE_SHIFT);	/* LinkUp, Disabled */
		pi->link_width_active = 2;
		pi->base_lid = cl_hton16(p->lid);
	} else if (attr == IB_MAD_ATTR_SM_INFO && sim_other_sm && n->index == sim_other_sm) {
		ib_sm_info_t *si = (ib_sm_info_t *)r->data;
		si->guid = cl_hton64(fabric_port_guid(n, 1));
		si->pri_state = 2;	/* STANDBY, priority 0 */
	}
}

/*
 * A PortInfo Set moves the port (and its peer's link) to the state asked
 * for and gives an end port its LID; the answer is the port as it is
 * then, as a real node gives it.
 */
static void take_state(struct node *n, uint8_t port, const void *data)
{
	ib_port_info_t pi;
	memcpy(&pi, data, sizeof(pi));
	uint8_t to = ib_port_info_get_port_state(&pi);
	if (to != IB_LINK_NO_CHANGE)
		n->ports[port].state = to;
	if (port == 0 || n->type != NODE_SWITCH)
		n->ports[port].lid = cl_ntoh16(pi.base_lid);
}

/* Queues the answer to one SMP (a timeout for a lost node's NodeInfo or a route into nothing). */
static void sim_queue(uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path, uint8_t hops,
		      const void *data, size_t len, mad_done_fn done, void *ctx)
{
	assert_true(queued < QUEUE);
	struct answer *a = &queue[queued++];
	uint8_t in;
	const struct node *n = follow(path, hops, &in);
	*a = (struct answer){ .done = done, .ctx = ctx, .status = MAD_TIMEOUT };
	if (n && !(n == lost && attr == IB_MAD_ATTR_NODE_INFO)) {
		a->status = 0;
		if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_PORT_INFO && mod <= n->nports)
			take_state((struct node *)n, (uint8_t)mod, data);
		if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_SWITCH_INFO && n->index < SIM_MAX_NODES &&
		    ((const ib_switch_info_t *)data)->life_state & IB_SWITCH_PSC)
			state_change[n->index] = false;	/* cleared by writing 1 */
		answer_for(n, in, attr, mod, &a->reply);
		if (method == IB_MAD_METHOD_SET && attr != IB_MAD_ATTR_PORT_INFO && data)
			memcpy(a->reply.data, data, len < IB_SMP_DATA_SIZE ? len : IB_SMP_DATA_SIZE);
		if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_SWITCH_INFO)	/* written 1, reads 0 */
			((ib_switch_info_t *)a->reply.data)->life_state &= (uint8_t)~IB_SWITCH_PSC;
		if (sim_tamper)
			sim_tamper(n, attr, mod, &a->reply);
	}
}

#endif
