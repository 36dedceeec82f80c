/*
 * DOC: discovery
 *
 * Breadth-first over directed routes, but asynchronous: NodeInfo on the
 * path to an unknown port either finds a new node (then NodeDescription,
 * SwitchInfo and PortInfo of every port are requested) or a known GUID
 * (then only the link is recorded). Each switch port whose PortInfo shows
 * the physical link up, and that is not yet linked, gets a NodeInfo one hop
 * further. The discovery counts its own requests and finishes at zero.
 *
 * Problems are reported, not fatal: a neighbour that never answers is
 * "unreachable", a GUID that turns up as a different node or at a second
 * place is a "duplicate" and that second place is left out of the model.
 */
#include "sm/sweep/discover.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"
#include "topology/text.h"

struct discovery {
	struct mad_port *mp;
	struct mkeys *mkeys;
	struct fabric *f;
	disc_done_fn done;
	void *arg;
	unsigned in_flight;
	struct disc_report report;
};

/* One request's context: which node (and port) it was about. */
struct probe {
	struct discovery *d;
	struct node *node;	/* NodeInfo: the parent (NULL for the SM's own node) */
	uint8_t port;		/* NodeInfo: parent's output port; others: the port read */
	uint8_t path[FABRIC_MAX_HOPS + 1];
	uint8_t hops;
};

static void maybe_done(struct discovery *d)
{
	if (d->in_flight)
		return;
	struct disc_report *r = &d->report;
	fabric_sort_by_guid(d->f);
	r->nodes = (unsigned)d->f->nnodes;
	r->switches = (unsigned)fabric_count(d->f, NODE_SWITCH);
	r->cas = r->nodes - r->switches;
	r->links = (unsigned)fabric_link_count(d->f);
	d->done(d->arg, r);
	free(d);
}

static int send_probe(struct discovery *d, ib_net16_t attr, uint32_t mod, struct probe *tmpl,
		      mad_done_fn fn)
{
	struct probe *p = malloc(sizeof(*p));
	if (!p)
		return -1;
	*p = *tmpl;
	p->d = d;
	/*
	 * A NodeInfo probe's node is the parent: the target's key is not known
	 * yet. Other probes travel a CA port's route (p->port, or the port the
	 * CA was found by).
	 */
	uint64_t mkey = attr == IB_MAD_ATTR_NODE_INFO || !p->node ? 0
			: sm_node_mkey(p->node, p->port ? p->port : p->node->local_port);
	if (mad_send_dr(d->mp, IB_MAD_METHOD_GET, attr, mod, p->path, p->hops, mkey, NULL, 0, fn, p) < 0) {
		free(p);
		return -1;
	}
	d->in_flight++;
	return 0;
}

static void on_node_info(void *ctx, int status, const ib_smp_t *reply);

/* Probes the node behind n's port; n must be a switch or the SM's own CA. */
static void probe_neighbour(struct discovery *d, struct node *n, uint8_t port)
{
	if (n->hops >= FABRIC_MAX_HOPS) {
		log_warn("discovery: %s port %u is more than %d hops away, not followed", n->desc, port,
			 FABRIC_MAX_HOPS);
		return;
	}
	struct probe p = { .node = n, .port = port, .hops = (uint8_t)(n->hops + 1) };
	memcpy(p.path, n->path, n->hops + 1u);
	p.path[p.hops] = port;
	send_probe(d, IB_MAD_ATTR_NODE_INFO, 0, &p, on_node_info);
}

static void complete(struct discovery *d, struct probe *p)
{
	free(p);
	d->in_flight--;
	maybe_done(d);
}

static void on_port_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	struct discovery *d = p->d;
	struct node *n = p->node;
	if (status != 0) {
		log_warn("discovery: PortInfo of %s port %u failed (%s)", n->desc, p->port,
			 status == MAD_TIMEOUT ? "timeout" : "error status");
		d->report.failed_attrs++;
		complete(d, p);
		return;
	}
	sm_node_set_port_info(n, p->port, (const ib_port_info_t *)reply->data);
	const struct port *pt = &n->ports[p->port];
	bool forwards = n->type == NODE_SWITCH ? p->port > 0 : n->hops == 0;
	if (forwards && pt->phys_state == PORT_PHYS_LINKUP && !pt->remote)
		probe_neighbour(d, n, p->port);
	complete(d, p);
}

static void on_node_desc(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	if (status == 0) {
		text_clean(p->node->desc, (const char *)reply->data, FABRIC_DESC_LEN);	/* a host chooses it */
	} else {
		log_warn("discovery: NodeDescription of 0x%016llx failed",
			 (unsigned long long)p->node->guid);
		p->d->report.failed_attrs++;
	}
	complete(p->d, p);
}

static void on_switch_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	if (status == 0) {
		struct sm_node *s = sm_node(p->node);
		memcpy(&s->switch_info, reply->data, sizeof(s->switch_info));
		s->have_switch_info = true;
		p->node->lft_cap = cl_ntoh16(s->switch_info.lin_cap);
		p->node->mft_cap = cl_ntoh16(s->switch_info.mcast_cap);
	} else {
		log_warn("discovery: SwitchInfo of %s failed", p->node->desc);
		p->d->report.failed_attrs++;
	}
	complete(p->d, p);
}

static void read_port_info(struct discovery *d, struct node *n, uint8_t port)
{
	struct dr_path r = sm_node_route(n, port);
	struct probe p = { .node = n, .port = port, .hops = r.hops };
	memcpy(p.path, r.path, r.hops + 1u);
	send_probe(d, IB_MAD_ATTR_PORT_INFO, port, &p, on_port_info);
}

/* The M_Key of (n, port), keyed by the port's GUID (a switch's node GUID). */
static void give_mkey(struct discovery *d, struct node *n, uint8_t port, uint64_t guid)
{
	bool failed = false;
	sm_node(n)->mkey[port] = mkeys_key(d->mkeys, guid, &failed);
	if (failed)
		log_warn("discovery: no M_Key drawn for %s port %u (out of memory or entropy): left unkeyed", n->desc,
			 port);
}

static struct node *add_node(struct discovery *d, const ib_node_info_t *ni, const struct probe *p)
{
	uint64_t guid = cl_ntoh64(ni->node_guid);
	struct node *n = fabric_add_node(d->f, (enum node_type)ni->node_type, guid, ni->num_ports, NULL);
	if (!n || sm_node_attach(n) < 0) {
		log_error("discovery: out of memory");
		return NULL;
	}
	snprintf(n->desc, sizeof(n->desc), "0x%016llx", (unsigned long long)guid);
	n->sys_guid = cl_ntoh64(ni->sys_guid);
	n->device_id = cl_ntoh16(ni->device_id);
	n->revision = cl_ntoh32(ni->revision);
	n->vendor_id = cl_ntoh32(ni->port_num_vendor_id) & 0x00ffffff;
	n->hops = p->hops;
	memcpy(n->path, p->path, p->hops + 1u);
	n->local_port = ib_node_info_get_local_port_num(ni);
	sm_node(n)->partition_cap = cl_ntoh16(ni->partition_cap);
	if (n->type == NODE_SWITCH)
		give_mkey(d, n, 0, guid);

	struct probe q = { .node = n, .hops = n->hops };
	memcpy(q.path, n->path, n->hops + 1u);
	send_probe(d, IB_MAD_ATTR_NODE_DESC, 0, &q, on_node_desc);
	if (n->type == NODE_SWITCH) {
		send_probe(d, IB_MAD_ATTR_SWITCH_INFO, 0, &q, on_switch_info);
	}
	return n;
}

static void report_duplicate(struct discovery *d, const struct probe *p, uint64_t guid)
{
	d->report.duplicates++;
	if (p->node)
		log_warn("discovery: duplicate GUID 0x%016llx seen behind %s port %u; that port is left out",
			 (unsigned long long)guid, p->node->desc, p->port);
	else
		log_warn("discovery: duplicate GUID 0x%016llx", (unsigned long long)guid);
}

static void on_node_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	struct discovery *d = p->d;
	if (status != 0) {
		d->report.unreachable++;
		if (p->node)
			log_warn("discovery: nothing answers behind %s port %u (%s)", p->node->desc, p->port,
				 status == MAD_TIMEOUT ? "timeout" : "error status");
		else
			log_error("discovery: the local port does not answer NodeInfo");
		complete(d, p);
		return;
	}
	const ib_node_info_t *ni = (const ib_node_info_t *)reply->data;
	uint64_t guid = cl_ntoh64(ni->node_guid);
	uint8_t local = ib_node_info_get_local_port_num(ni);
	struct node *n = fabric_find_guid(d->f, guid);
	bool is_new = !n;

	/*
	 * Both ends of a link probed at once (a retry after a loss, while the
	 * other end's probe already found this one): the link is known, and
	 * from the same two ports. Not a duplicate GUID.
	 */
	if (n && p->node && local <= n->nports && n->ports[local].remote == p->node &&
	    n->ports[local].remote_port == p->port) {
		complete(d, p);
		return;
	}
	if (n && (n->type != ni->node_type || n->nports != ni->num_ports || local > n->nports ||
		  (n->type == NODE_SWITCH && n->ports[local].remote))) {
		report_duplicate(d, p, guid);
		complete(d, p);
		return;
	}
	if (!n && !(n = add_node(d, ni, p))) {
		complete(d, p);
		return;
	}
	if (n->type != NODE_SWITCH) {
		n->ports[local].guid = cl_ntoh64(ni->port_guid);
		give_mkey(d, n, local, n->ports[local].guid);
		sm_node_reached(n, local, p->hops, p->path);
	}
	if (p->node && fabric_link(p->node, p->port, n, local) < 0) {
		report_duplicate(d, p, guid);
		complete(d, p);
		return;
	}
	if (n->type == NODE_SWITCH) {
		if (is_new)
			for (unsigned port = 0; port <= n->nports; port++)
				read_port_info(d, n, (uint8_t)port);
	} else if (!sm_node(n)->have_port_info[local]) {
		read_port_info(d, n, local);	/* each CA port is met through its own link */
	}
	complete(d, p);
}

int disc_start(struct mad_port *mp, struct mkeys *mkeys, struct fabric *f, disc_done_fn done, void *arg)
{
	struct discovery *d = calloc(1, sizeof(*d));
	if (!d)
		return -1;
	d->mp = mp;
	d->mkeys = mkeys;
	d->f = f;
	d->done = done;
	d->arg = arg;
	struct probe root = { 0 };
	if (send_probe(d, IB_MAD_ATTR_NODE_INFO, 0, &root, on_node_info) < 0) {
		free(d);
		return -1;
	}
	return 0;
}
