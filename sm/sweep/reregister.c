/*
 * DOC: client reregistration
 *
 * A PortInfo Set with ClientReregister makes the port raise a client
 * reregister event: its SA clients (the kernel's multicast and SA
 * modules, IPoIB, ibacm, rdma_cm users) join their multicast groups,
 * register their services and subscriptions again, and drop the
 * PathRecords they cached. fabricd asks for it when the hosts' view may
 * be stale: on its first sweep as master (it may have taken over from an
 * SM whose groups it does not know), and when a destination's SL changed
 * (a host sending on the old SL keeps a VL layer the new tables no longer
 * prove for that destination). The Set is the PortInfo fabricd wants on
 * the port anyway, with the bit added; ports without the capability are
 * left alone. The fabric is the published one: the answers are counted,
 * not stored.
 */
#include "sm/sweep/reregister.h"

#include "sm/sweep/batch.h"
#include "sm/smnode.h"

struct rereg_job {
	const struct fabric *f;
	struct cfg_params p;
};

/* Whether port of node n is a CA's, active as last read. */
static bool active_host_port(const struct node *n, unsigned port)
{
	return n->type != NODE_SWITCH && sm_node(n)->have_port_info[port] && n->ports[port].state == PORT_ACTIVE;
}

/* Whether that port's CapabilityMask offers ClientReregister. */
static bool offers_rereg(const struct node *n, unsigned port)
{
	return (sm_node(n)->port_info[port].capability_mask & IB_PORT_CAP_HAS_CLIENT_REREG) != 0;
}

unsigned rereg_unable(const struct fabric *f)
{
	unsigned n = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned port = 1; port <= f->nodes[i]->nports; port++)
			n += active_host_port(f->nodes[i], port) && !offers_rereg(f->nodes[i], port);
	return n;
}

static void rereg_node(void *ctx, struct batch *b, size_t i)
{
	const struct rereg_job *j = ctx;
	const struct node *n = j->f->nodes[i];
	for (unsigned port = 1; n->type != NODE_SWITCH && port <= n->nports; port++) {
		ib_port_info_t pi;
		if (!active_host_port(n, port) || !offers_rereg(n, port))
			continue;
		cfg_wanted_port_info(n, port, &j->p, &pi);
		ib_port_info_set_client_rereg(&pi, 1);
		batch_set(b, n, (uint8_t)port, IB_MAD_ATTR_PORT_INFO, port, &pi, sizeof(pi));
	}
}

int rereg_clients(struct mad_port *mp, const struct fabric *f, const struct cfg_params *p, cfg_done_fn done,
		  void *arg)
{
	struct rereg_job j = { f, *p };
	return batch_over_nodes(mp, f->nnodes, rereg_node, &j, sizeof(j), done, arg);
}
