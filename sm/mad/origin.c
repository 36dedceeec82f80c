/*
 * DOC: where an SMP came from
 *
 * Any host can put any GUID, LID or key in an SMP's payload, but not what
 * the fabric adds on the way: the source LID the receiving port reports
 * for a LID-routed SMP, and, for a directed-route SMP, the return path,
 * one input port per hop written by each switch it crossed (IBA 14.2.2,
 * C14-9). smp_origin() turns those into the sending port, so HA requests
 * and traps can be checked against the port they claim to be from.
 *
 * The return path read backwards is a route from us: out of our port
 * return_path[hop_count], then return_path[hop_count - 1], ... down to
 * return_path[1], which arrives at the sender.
 */
#include "sm/mad/origin.h"

static const struct node *by_return_path(const struct fabric *f, uint64_t own_guid, const ib_smp_t *req,
					 uint8_t *port)
{
	uint8_t own_port;
	const struct node *n = fabric_find_port_guid(f, own_guid, &own_port);
	unsigned hops = req->hop_count;
	if (!n || hops == 0 || hops >= IB_SUBNET_PATH_HOPS_MAX)
		return NULL;
	if (n->type != NODE_SWITCH && req->return_path[hops] != own_port)
		return NULL;	/* a CA receives only on its own port */
	uint8_t at = 0;
	for (unsigned h = hops; h >= 1; h--) {
		uint8_t out = req->return_path[h];
		if (out == 0 || out > n->nports || !n->ports[out].remote)
			return NULL;
		at = n->ports[out].remote_port;
		n = n->ports[out].remote;
	}
	*port = n->type == NODE_SWITCH ? 0 : at;
	return n;
}

const struct node *smp_origin(const struct fabric *f, uint64_t own_guid, const ib_smp_t *req,
			      const struct mad_origin *from, uint8_t *port)
{
	if (req->mgmt_class == IB_MCLASS_SUBN_DIR)	/* with a LID-routed part the walk would end short of the sender */
		return req->dr_slid == IB_LID_PERMISSIVE ? by_return_path(f, own_guid, req, port) : NULL;
	return fabric_find_lid(f, from->slid, port);	/* none for LID 0 or a multicast LID */
}
