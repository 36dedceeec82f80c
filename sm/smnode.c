/*
 * DOC: SM node data
 *
 * Attaches raw SwitchInfo/PortInfo storage to fabric nodes and mirrors the
 * fields the rest of fabricd reads (state, LID, width, speed, MTU, VLs)
 * into the fabric model's ports.
 */
#include "sm/smnode.h"

#include <stdlib.h>
#include <string.h>

int sm_node_attach(struct node *n)
{
	struct sm_node *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->port_info = calloc((size_t)n->nports + 1, sizeof(*s->port_info));
	s->have_port_info = calloc((size_t)n->nports + 1, sizeof(*s->have_port_info));
	s->port_path = calloc((size_t)n->nports + 1, sizeof(*s->port_path));
	s->port_reached = calloc((size_t)n->nports + 1, sizeof(*s->port_reached));
	s->mkey = calloc((size_t)n->nports + 1, sizeof(*s->mkey));
	s->pi_sent = calloc((size_t)n->nports + 1, sizeof(*s->pi_sent));
	s->pi_taken = calloc((size_t)n->nports + 1, sizeof(*s->pi_taken));
	n->user = s;
	if (!s->port_info || !s->have_port_info || !s->port_path || !s->port_reached || !s->mkey || !s->pi_sent ||
	    !s->pi_taken) {
		sm_node_detach(n);
		return -1;
	}
	return 0;
}

void sm_node_detach(struct node *n)
{
	struct sm_node *s = sm_node(n);
	if (!s)
		return;
	free(s->port_info);
	free(s->have_port_info);
	free(s->port_path);
	free(s->port_reached);
	free(s->mkey);
	free(s->pi_sent);
	free(s->pi_taken);
	free(s->lft_held);
	free(s);
	n->user = NULL;
}

void sm_node_detach_all(struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++)
		sm_node_detach(f->nodes[i]);
}

int sm_node_copy(struct node *dst, const struct node *src)
{
	if (sm_node_attach(dst) < 0)
		return -1;
	const struct sm_node *o = sm_node(src);
	struct sm_node *s = sm_node(dst);
	size_t n = (size_t)src->nports + 1;
	s->switch_info = o->switch_info;
	s->have_switch_info = o->have_switch_info;
	s->partition_cap = o->partition_cap;
	s->port0_sl2vl = o->port0_sl2vl;
	s->have_port0_sl2vl = o->have_port0_sl2vl;
	memcpy(s->port_info, o->port_info, n * sizeof(*s->port_info));
	memcpy(s->have_port_info, o->have_port_info, n * sizeof(*s->have_port_info));
	memcpy(s->port_path, o->port_path, n * sizeof(*s->port_path));
	memcpy(s->port_reached, o->port_reached, n * sizeof(*s->port_reached));
	memcpy(s->mkey, o->mkey, n * sizeof(*s->mkey));
	memcpy(s->pi_sent, o->pi_sent, n * sizeof(*s->pi_sent));
	memcpy(s->pi_taken, o->pi_taken, n * sizeof(*s->pi_taken));
	return 0;
}

struct dr_path sm_node_route(const struct node *n, uint8_t port)
{
	const struct sm_node *s = sm_node(n);
	if (n->type != NODE_SWITCH && port <= n->nports && s->port_reached[port])
		return s->port_path[port];
	struct dr_path r = { .hops = n->hops };
	memcpy(r.path, n->path, n->hops + 1u);
	return r;
}

void sm_node_reached(struct node *n, uint8_t port, uint8_t hops, const uint8_t *path)
{
	struct sm_node *s = sm_node(n);
	s->port_path[port].hops = hops;
	memcpy(s->port_path[port].path, path, hops + 1u);
	s->port_reached[port] = true;
}

void sm_node_set_port_info(struct node *n, uint8_t port, const ib_port_info_t *pi)
{
	struct sm_node *s = sm_node(n);
	struct port *p = &n->ports[port];
	s->port_info[port] = *pi;
	s->have_port_info[port] = true;
	p->state = ib_port_info_get_port_state(pi);
	p->phys_state = ib_port_info_get_port_phys_state(pi);
	p->width_active = pi->link_width_active;
	p->speed_active = ib_port_info_get_link_speed_active(pi);
	p->speed_ext_active = pi->link_speed_ext >> 4;	/* LinkSpeedExtActive */
	p->width_supported = pi->link_width_supported;
	p->speed_supported = ib_port_info_get_link_speed_sup(pi);
	p->speed_ext_supported = pi->link_speed_ext & 0x0f;	/* LinkSpeedExtSupported */
	/* a switch says it on port 0 only (as iblinkinfo reads it), whenever that comes */
	bool ext = (pi->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) != 0;
	if (n->type != NODE_SWITCH)
		p->ext_speeds = ext;
	else if (port == 0)
		for (unsigned q = 0; q <= n->nports; q++)
			n->ports[q].ext_speeds = ext;
	else
		p->ext_speeds = n->ports[0].ext_speeds;
	p->mtu_cap = ib_port_info_get_mtu_cap(pi);
	p->vl_cap = ib_port_info_get_vl_cap(pi);
	if (n->type != NODE_SWITCH || port == 0) {
		p->lid = cl_ntoh16(pi->base_lid);
		p->lmc = ib_port_info_get_lmc(pi);
	}
}

uint16_t sm_node_own_lid(const struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->hops == 0)	/* where discovery started: the SM's node */
			return fabric_port_lid(f->nodes[i], f->nodes[i]->local_port);
	return 0;
}

/* True if n was programmed by the last clean sweep and kept its LIDs (no reset). */
bool sm_node_kept(const struct node *n, const struct fabric *prev)
{
	const struct node *o = prev ? fabric_find_guid(prev, n->guid) : NULL;
	const struct sm_node *s = sm_node(n);
	if (!o)
		return false;
	/* a switch's LID is on port 0; a CA has one on each port */
	unsigned first = n->type == NODE_SWITCH ? 0 : 1, last = n->type == NODE_SWITCH ? 0 : n->nports;
	for (unsigned p = first; p <= last; p++)
		if (!s->have_port_info[p] || cl_ntoh16(s->port_info[p].base_lid) != o->ports[p].lid)
			return false;
	return true;
}

