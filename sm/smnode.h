/*
 * smnode.h - what the SM keeps about a node beyond the fabric model: the
 * raw SwitchInfo and PortInfo attributes as the node last reported them.
 * Configuration starts from these, so fields fabricd does not manage are
 * written back as the node had them. Hangs off node->user.
 */
#ifndef SM_SMNODE_H
#define SM_SMNODE_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "sm/mad/mad.h"
#include "topology/fabric.h"

/* A directed route: path[1..hops] are output ports, as in an SMP. */
struct dr_path {
	uint8_t hops;
	uint8_t path[FABRIC_MAX_HOPS + 1];
};

struct sm_node {
	ib_switch_info_t switch_info;
	bool have_switch_info;
	bool *have_port_info;	/* [0..nports] */
	ib_port_info_t *port_info;	/* [0..nports] */
	/*
	 * CAs answer PortInfo only for the port an SMP comes in on, so each
	 * CA port keeps the route that reaches it. [0..nports], valid where
	 * port_reached is set.
	 */
	struct dr_path *port_path;
	bool *port_reached;
	uint16_t partition_cap;	/* P_Key table entries per port (NodeInfo) */
	/* A base switch port 0's SL-to-VL map (in 0, out 0), as read at discovery: fabricd sets none there. */
	ib_slvl_table_t port0_sl2vl;
	bool have_port0_sl2vl;
	/*
	 * The M_Key fabricd gives (and sends to) each port, 0 for none:
	 * [0] for a switch (its port 0 key covers the switch), [port] for a CA.
	 */
	uint64_t *mkey;
	/*
	 * The PortInfo fabricd last wrote to each port when configuring it,
	 * and whether the port answered that Set [0..nports]: a port that
	 * does not keep a field (ibsim keeps no SubnetTimeOut) is not written
	 * again and again (sm/sweep/configure.c).
	 */
	ib_port_info_t *pi_sent;
	bool *pi_taken;
	/*
	 * A switch's LFT as read back from it (sm/sweep/readback.c), LIDs
	 * 0..lft_held_top, until the sweep's first stage has written it; NULL
	 * if not read. lft_unknown: a read was wanted and failed.
	 */
	uint8_t *lft_held;
	uint16_t lft_held_top;
	bool lft_unknown;
};

static inline struct sm_node *sm_node(const struct node *n)
{
	return (struct sm_node *)n->user;
}

/* The M_Key SMPs about (n, port) carry. */
static inline uint64_t sm_node_mkey(const struct node *n, uint8_t port)
{
	return sm_node(n)->mkey[n->type == NODE_SWITCH ? 0 : port];
}

/* Allocates n->user; -1 on allocation failure. */
int sm_node_attach(struct node *n);
/* Frees n's sm_node, if it has one. */
void sm_node_detach(struct node *n);
/* Frees every node's sm_node. */
void sm_node_detach_all(struct fabric *f);
/* Gives dst (src's copy, nports alike) a copy of src's sm_node, less the LFT read back; -1 without memory. */
int sm_node_copy(struct node *dst, const struct node *src);
/* The route for SMPs about port: a CA port's own route, else the node's. */
struct dr_path sm_node_route(const struct node *n, uint8_t port);
/*
 * A Get of attribute attr (modifier mod) over the route to n's port (0 on
 * a switch; a CA's port answers for itself), with its M_Key (mad_send_dr's
 * result).
 */
int sm_node_get(struct mad_port *mp, const struct node *n, uint8_t port, ib_net16_t attr, uint32_t mod,
		mad_done_fn done, void *ctx);
/* Records that port of CA n was reached over route (hops, path). */
void sm_node_reached(struct node *n, uint8_t port, uint8_t hops, const uint8_t *path);
/* The LID addressing the SM in f: its CA port's, or its switch's port 0 (0 if none yet). */
uint16_t sm_node_own_lid(const struct fabric *f);
/* True if n was programmed by the last clean sweep prev and kept its LIDs (no reset). */
bool sm_node_kept(const struct node *n, const struct fabric *prev);
/* Copies a PortInfo into both the raw store and the model's port fields. */
void sm_node_set_port_info(struct node *n, uint8_t port, const ib_port_info_t *pi);

#endif
