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
 *
 * A repair (disc_repair) runs the same machinery on a copy of the last
 * model: it starts from the switches that reported a change rather than
 * from the SM's port, drops the links it finds gone, and reads known
 * nodes in waves over routes computed anew (docs/design.md, "Repair").
 * What a full discovery would call a duplicate, a repair cannot tell from
 * a moved cable: it gives up and the sweep discovers in full.
 */
#include "sm/sweep/discover.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/sweep/drpaths.h"
#include "sm/smnode.h"
#include "topology/text.h"

/* A known node a repair reads again: one port, or (port -1) every port and its SwitchInfo. */
struct reread {
	struct node *node;
	int port;
	bool retried;	/* its first read went unanswered */
	bool after_peers;	/* not before the reads of the switch ports facing it (it may be dead) */
};

struct discovery {
	struct mad_port *mp;
	struct mkeys *mkeys;
	struct fabric *f;
	disc_done_fn done;
	void *arg;
	unsigned in_flight;
	struct disc_report report;
	/* a repair (disc_repair): the known nodes still to read, in waves, nearest first */
	bool repair;
	struct reread *rereads;
	size_t nrereads, cap;
	struct discovery **reading;	/* the caller's handle on a repair, cleared at its end */
};

/* One request's context: which node (and port) it was about. */
struct probe {
	struct discovery *d;
	struct node *node;	/* NodeInfo: the parent (NULL for the SM's own node) */
	uint8_t port;		/* NodeInfo: parent's output port; others: the port read */
	uint8_t path[FABRIC_MAX_HOPS + 1];
	uint8_t hops;
	bool reread, retried;	/* a repair's read of a known node; whether a read is the second */
};

/* The repair cannot stand in for a full discovery: why (the first reason is kept). */
static void give_up(struct discovery *d, const char *fmt, ...)
{
	char *why = d->report.repair_failed;
	if (why[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(d->report.repair_failed), fmt, ap);
	va_end(ap);
}

/* Routes computed anew on the model as it now is; which nodes they reach (malloc'ed), or NULL (given up). */
static bool *routes_anew(struct discovery *d)
{
	bool *reached = calloc(d->f->nnodes + 1, sizeof(*reached));
	if (reached && drpaths_compute(d->f, reached) == 0)
		return reached;
	free(reached);
	give_up(d, "out of memory");
	return NULL;
}

static void finish(struct discovery *d)
{
	struct disc_report *r = &d->report;
	bool *reached = d->repair && !r->repair_failed[0] ? routes_anew(d) : NULL;
	if (reached)	/* what the changes cut off goes */
		r->pruned = (unsigned)drpaths_prune(d->f, reached);
	free(reached);
	if (d->reading)
		*d->reading = NULL;
	fabric_sort_by_guid(d->f);
	r->nodes = (unsigned)d->f->nnodes;
	r->switches = (unsigned)fabric_count(d->f, NODE_SWITCH);
	r->cas = r->nodes - r->switches;
	r->links = (unsigned)fabric_link_count(d->f);
	free(d->rereads);
	d->done(d->arg, r);
	free(d);
}

static bool next_wave(struct discovery *d);

static void maybe_done(struct discovery *d)
{
	if (d->in_flight)
		return;
	if (d->repair && !d->report.repair_failed[0] && next_wave(d))
		return;
	finish(d);
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
static void probe_neighbour(struct discovery *d, struct node *n, uint8_t port, bool retried)
{
	if (n->hops >= FABRIC_MAX_HOPS) {
		log_warn("discovery: %s port %u is more than %d hops away, not followed", n->desc, port,
			 FABRIC_MAX_HOPS);
		return;
	}
	struct probe p = { .node = n, .port = port, .hops = (uint8_t)(n->hops + 1), .retried = retried };
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

/*
 * Marks (n, port) for a read in a later wave (port -1: its SwitchInfo);
 * once per wave. after_peers: not before the other reads queued (a read
 * queued both ways need not wait).
 */
static void queue_read(struct discovery *d, struct node *n, int port, bool retried, bool after_peers)
{
	for (size_t i = 0; i < d->nrereads; i++)
		if (d->rereads[i].node == n && d->rereads[i].port == port) {
			d->rereads[i].after_peers &= after_peers;
			return;
		}
	if (d->nrereads == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct reread *q = realloc(d->rereads, cap * sizeof(*q));
		if (!q) {
			give_up(d, "out of memory");
			return;
		}
		d->rereads = q;
		d->cap = cap;
	}
	d->rereads[d->nrereads++] = (struct reread){ n, port, retried, after_peers };
}

static void queue_reread(struct discovery *d, struct node *n, int port, bool retried)
{
	queue_read(d, n, port, retried, false);
}

/* Queues the reads of the ports x's switch neighbours have facing it. */
static void queue_facing(struct discovery *d, const struct node *x)
{
	for (unsigned q = 1; q <= x->nports; q++) {
		struct node *m = x->ports[q].remote;
		if (m && m->type == NODE_SWITCH)
			queue_reread(d, m, x->ports[q].remote_port, false);
	}
}

static bool waits_for_peers(const struct discovery *d, const struct node *x)
{
	for (size_t i = 0; i < d->nrereads; i++)
		if (d->rereads[i].node == x && d->rereads[i].after_peers)
			return true;
	return false;
}

/* A CA port is read only over its own link: once that is gone, the model knows nothing of it. */
static void forget_port(struct node *n, uint8_t port)
{
	struct sm_node *s = sm_node(n);
	struct port *pt = &n->ports[port];
	s->have_port_info[port] = false;
	s->port_reached[port] = false;
	memset(&s->port_info[port], 0, sizeof(s->port_info[port]));
	*pt = (struct port){ .num = pt->num, .exists = pt->exists, .guid = pt->guid };
}

/*
 * A repair found (n, port)'s link gone, or retrained: the link leaves the
 * model, its far end is read again (with its SwitchInfo, whose
 * PortStateChange the programming then clears, as that switch's own trap
 * would have had it), and so is n's SwitchInfo unless read already with
 * the flag set. A far switch is read only after the ports its other
 * neighbours have facing it: it may be dead (a switch down is lost links
 * all round), and a read of a dead switch waits out every try's timeout
 * (on hardware, 1 + mad.retries tries of mad.timeout_ms), while its
 * neighbours answer at once; if they all show their link down, it is cut
 * off and never asked.
 */
static void drop_link(struct discovery *d, struct node *n, uint8_t port)
{
	struct node *peer = n->ports[port].remote;
	uint8_t pp = n->ports[port].remote_port;
	fabric_unlink(n, port);
	/* n's own PortStateChange, for the programming to clear (else the next light sweep repairs again) */
	if (n->type == NODE_SWITCH && !ib_switch_info_get_state_change(&sm_node(n)->switch_info))
		queue_reread(d, n, -1, false);
	if (peer->type == NODE_SWITCH) {
		bool facing_queued = waits_for_peers(d, peer);	/* by an earlier drop of one of its links */
		queue_read(d, peer, pp, false, true);
		queue_read(d, peer, -1, false, true);
		if (!facing_queued)
			queue_facing(d, peer);
	} else {
		forget_port(peer, pp);
	}
}

/*
 * An unanswered read. In a repair it is tried again in a later wave; the
 * node may be gone, or its route cross a link gone whose ends did not
 * report it, so the switch ports facing it are read first: what they show
 * down leaves the model before the retry's wave computes its routes (a
 * node cut off is then not asked again). Unanswered twice, the repair
 * gives up.
 */
static void read_failed(struct discovery *d, struct probe *p, int port, const char *what)
{
	struct node *n = p->node;
	if (d->repair && p->reread && !p->retried) {
		queue_read(d, n, port, true, true);
		queue_facing(d, n);
	} else if (d->repair && p->reread) {
		give_up(d, "%s: %s, asked twice", p->node->desc, what);
	} else {
		log_warn("discovery: %s: %s", p->node->desc, what);
		d->report.failed_attrs++;
	}
}

static void on_port_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	struct discovery *d = p->d;
	struct node *n = p->node;
	if (status != 0) {
		char what[64];
		snprintf(what, sizeof(what), "PortInfo of port %u failed (%s)", p->port,
			 status == MAD_TIMEOUT ? "timeout" : "error status");
		read_failed(d, p, p->port, what);
		complete(d, p);
		return;
	}
	uint8_t was = n->ports[p->port].state;
	sm_node_set_port_info(n, p->port, (const ib_port_info_t *)reply->data);
	const struct port *pt = &n->ports[p->port];
	bool up = pt->phys_state == PORT_PHYS_LINKUP;
	/* a link that went back to INIT retrained: what is behind it now is asked again */
	bool retrained = was >= PORT_ARMED && pt->state == PORT_INIT;
	if (d->repair && p->port > 0 && pt->remote && (!up || retrained))
		drop_link(d, n, p->port);
	bool forwards = n->type == NODE_SWITCH ? p->port > 0 : n->hops == 0;
	if (forwards && up && !pt->remote)
		probe_neighbour(d, n, p->port, p->retried);
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

/* A switch's SL-to-VL map from port 0 to port 0: see on_switch_info. */
static void on_port0_sl2vl(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	struct sm_node *s = sm_node(p->node);
	s->have_port0_sl2vl = status == 0;
	if (status == 0)
		memcpy(&s->port0_sl2vl, reply->data, sizeof(s->port0_sl2vl));
	complete(p->d, p);	/* a switch that has no such table is no failed read */
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
		/*
		 * A base port 0 takes no SL-to-VL Set (sm/sweep/qos.c programs
		 * output ports 1..N), yet the SA is asked for its (0, 0) map, as
		 * osmtest does: read it once (not again when a repair re-reads
		 * SwitchInfo), so the answer is what the switch holds.
		 */
		if (!ib_switch_info_is_enhanced_port0(&s->switch_info) && !s->have_port0_sl2vl)
			send_probe(p->d, IB_MAD_ATTR_SLVL_TABLE, 0, p, on_port0_sl2vl);
	} else if (!p->d->repair && !p->retried) {
		/* without it the switch is left out of programming, and a transition stops there: asked once more */
		struct probe again = *p;
		again.retried = true;
		if (send_probe(p->d, IB_MAD_ATTR_SWITCH_INFO, 0, &again, on_switch_info) < 0)
			read_failed(p->d, p, -1, "SwitchInfo failed");
	} else {
		read_failed(p->d, p, -1, "SwitchInfo failed");
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

/*
 * Whether a NodeInfo answer cannot describe the node behind p, with why:
 * a host answers the SMPs to its own port, and the model sizes and
 * indexes the node's ports by these fields.
 */
static bool node_info_malformed(const ib_node_info_t *ni, const struct probe *p, char *why, size_t len)
{
	uint8_t local = ib_node_info_get_local_port_num(ni);
	if (ni->node_type < IB_NODE_TYPE_CA || ni->node_type > IB_NODE_TYPE_ROUTER)
		snprintf(why, len, "node type %u", ni->node_type);
	else if (ni->num_ports == 0 || ni->num_ports > FABRIC_MAX_PORTS)
		snprintf(why, len, "%u ports", ni->num_ports);
	else if (local > ni->num_ports)
		snprintf(why, len, "entered by port %u of %u", local, ni->num_ports);
	else if (local == 0 && (ni->node_type != IB_NODE_TYPE_SWITCH || p->node))
		snprintf(why, len, "entered by port 0%s", p->node ? " over a link" : "");
	else
		return false;
	return true;
}

static void on_node_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	struct discovery *d = p->d;
	if (status != 0 && d->repair && p->node && !p->retried) {
		queue_reread(d, p->node, p->port, true);	/* its route may have crossed a link gone since */
		complete(d, p);
		return;
	}
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
	char why[80];
	if (node_info_malformed(ni, p, why, sizeof(why))) {
		d->report.malformed++;
		if (p->node)
			log_warn("discovery: the node behind %s port %u answers a malformed NodeInfo (%s): left out",
				 p->node->desc, p->port, why);
		else
			log_error("discovery: the local port answers a malformed NodeInfo (%s)", why);
		complete(d, p);
		return;
	}
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
		if (d->repair)	/* a cable moved, or a GUID twice: only a full discovery tells */
			give_up(d, "GUID 0x%016llx answers behind %s port %u, not where the model has it",
				(unsigned long long)guid, p->node ? p->node->desc : "the SM", p->port);
		else
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
		if (d->repair)
			give_up(d, "GUID 0x%016llx behind %s port %u is linked elsewhere in the model",
				(unsigned long long)guid, p->node->desc, p->port);
		else
			report_duplicate(d, p, guid);
		complete(d, p);
		return;
	}
	if (n->type == NODE_SWITCH) {
		if (is_new) {
			for (unsigned port = 0; port <= n->nports; port++)
				read_port_info(d, n, (uint8_t)port);
		} else if (d->repair) {	/* a known switch's port came up: it and its SwitchInfo, over the route just found */
			struct probe q = { .node = n, .port = local, .hops = p->hops };
			memcpy(q.path, p->path, p->hops + 1u);
			send_probe(d, IB_MAD_ATTR_PORT_INFO, local, &q, on_port_info);
			q.port = 0;
			send_probe(d, IB_MAD_ATTR_SWITCH_INFO, 0, &q, on_switch_info);
		}
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

/* Reads (q->node, q->port) again over the node's route as now computed. */
static void send_reread(struct discovery *d, const struct reread *q)
{
	struct dr_path r = sm_node_route(q->node, q->port > 0 ? (uint8_t)q->port : 0);
	struct probe p = { .node = q->node, .port = q->port > 0 ? (uint8_t)q->port : 0, .hops = r.hops,
			   .reread = true, .retried = q->retried };
	memcpy(p.path, r.path, r.hops + 1u);
	int rc = q->port < 0 ? send_probe(d, IB_MAD_ATTR_SWITCH_INFO, 0, &p, on_switch_info)
			     : send_probe(d, IB_MAD_ATTR_PORT_INFO, (uint32_t)q->port, &p, on_port_info);
	if (rc < 0)
		give_up(d, "out of memory");
}

/*
 * Sends the reads of the nearest known nodes still to be read, over routes
 * computed on the model as it now is: what a nearer node's answer showed
 * gone is not crossed on the way to a farther one. What the changes cut
 * off is not read (it goes at the end). False when nothing went out.
 */
static bool next_wave(struct discovery *d)
{
	if (!d->nrereads)
		return false;
	struct reread *wave = malloc(d->nrereads * sizeof(*wave));
	bool *reached = wave ? routes_anew(d) : NULL;
	if (!reached) {
		free(wave);
		give_up(d, "out of memory");
		return false;
	}
	bool others = false;	/* reads that need not wait: while some are left, the waiting ones wait */
	for (size_t i = 0; i < d->nrereads; i++)
		others |= reached[d->rereads[i].node->index] && !d->rereads[i].after_peers;
	unsigned nearest = FABRIC_MAX_HOPS + 1;
	for (size_t i = 0; i < d->nrereads; i++) {
		d->rereads[i].after_peers &= others;
		if (reached[d->rereads[i].node->index] && !d->rereads[i].after_peers &&
		    d->rereads[i].node->hops < nearest)
			nearest = d->rereads[i].node->hops;
	}
	size_t nwave = 0, keep = 0;
	for (size_t i = 0; i < d->nrereads; i++) {
		const struct reread *q = &d->rereads[i];
		if (q->after_peers) {
			d->rereads[keep++] = *q;
			continue;
		}
		if (!reached[q->node->index])
			continue;
		if (q->node->hops == nearest)
			wave[nwave++] = *q;
		else
			d->rereads[keep++] = *q;
	}
	d->nrereads = keep;
	d->in_flight++;	/* held while the wave goes out: no answer ends it meanwhile */
	for (size_t i = 0; i < nwave; i++)
		send_reread(d, &wave[i]);
	free(reached);
	free(wave);
	d->in_flight--;
	if (d->in_flight)
		return true;
	return d->nrereads && !d->report.repair_failed[0] && next_wave(d);
}

/* Queues every PortInfo of switch n and its SwitchInfo, as a switch that reported a change is read. */
static void queue_reported(struct discovery *d, struct node *n)
{
	queue_reread(d, n, -1, false);
	for (unsigned port = 0; port <= n->nports; port++)
		queue_reread(d, n, (int)port, false);
}

int disc_repair(struct mad_port *mp, struct mkeys *mkeys, const struct fabric *prev, const uint64_t *guids,
		size_t nguids, struct fabric *f, disc_done_fn done, void *arg, struct discovery **reading)
{
	struct discovery *d = calloc(1, sizeof(*d));
	if (!d || fabric_copy(f, prev) < 0) {
		free(d);
		return -1;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		if (sm_node_copy(f->nodes[i], prev->nodes[i]) < 0) {
			sm_node_detach_all(f);
			fabric_free(f);
			free(d);
			return -1;
		}
	*d = (struct discovery){ .mp = mp, .mkeys = mkeys, .f = f, .done = done, .arg = arg, .repair = true,
				 .reading = reading };
	if (reading)
		*reading = d;
	for (size_t i = 0; i < nguids; i++) {
		struct node *n = fabric_find_guid(f, guids[i]);
		if (!n || n->type != NODE_SWITCH) {
			give_up(d, "switch 0x%016llx is not in the model", (unsigned long long)guids[i]);
			continue;
		}
		queue_reported(d, n);
	}
	maybe_done(d);
	return 0;
}

int disc_repair_join(struct discovery *d, uint64_t guid)
{
	struct node *n = fabric_find_guid(d->f, guid);
	if (!n || n->type != NODE_SWITCH)
		return -1;
	/*
	 * Asked in a later wave, so after the trap came: the answers show its
	 * change. This read's wave cannot have gone out yet (every wave is
	 * sent at once), so a read queued already is as good.
	 */
	queue_reported(d, n);
	d->report.joined++;
	return 0;
}
