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

/*
 * Where each of a node's per-port arrays starts in its block (one
 * allocation with the record: a repair copies every node's, 30,528 of
 * them at 27,648 hosts), the widest first so that each is aligned.
 */
struct block_layout {
	size_t mkey, port_path, port_info, pi_sent, have_port_info, port_reached, pi_taken, size;
};

static size_t align_up(size_t at, size_t a)
{
	return (at + a - 1) / a * a;
}

static struct block_layout layout_of(size_t nports)
{
	size_t np = nports + 1, at = sizeof(struct sm_node);
	struct block_layout l;
	l.mkey = at = align_up(at, _Alignof(uint64_t));
	at += np * sizeof(uint64_t);
	l.port_path = at = align_up(at, _Alignof(struct dr_path));
	at += np * sizeof(struct dr_path);
	l.port_info = at = align_up(at, _Alignof(ib_port_info_t));
	at += np * sizeof(ib_port_info_t);
	l.pi_sent = at = align_up(at, _Alignof(ib_port_info_t));
	at += np * sizeof(ib_port_info_t);
	l.have_port_info = at;
	l.port_reached = at += np;
	l.pi_taken = at += np;
	l.size = at + np;
	return l;
}

int sm_node_attach(struct node *n)
{
	struct block_layout l = layout_of(n->nports);
	char *b = calloc(1, l.size);
	if (!b)
		return -1;
	struct sm_node *s = (struct sm_node *)b;
	s->mkey = (uint64_t *)(b + l.mkey);
	s->port_path = (struct dr_path *)(b + l.port_path);
	s->port_info = (ib_port_info_t *)(b + l.port_info);
	s->pi_sent = (ib_port_info_t *)(b + l.pi_sent);
	s->have_port_info = (bool *)(b + l.have_port_info);
	s->port_reached = (bool *)(b + l.port_reached);
	s->pi_taken = (bool *)(b + l.pi_taken);
	n->user = s;
	return 0;
}

void sm_node_detach(struct node *n)
{
	struct sm_node *s = sm_node(n);
	if (!s)
		return;
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
	if (dst->nports != src->nports || sm_node_attach(dst) < 0)
		return -1;
	const struct sm_node *o = sm_node(src);
	struct sm_node *s = sm_node(dst);
	struct block_layout l = layout_of(src->nports);
	s->switch_info = o->switch_info;
	s->have_switch_info = o->have_switch_info;
	s->partition_cap = o->partition_cap;
	s->port0_sl2vl = o->port0_sl2vl;
	s->have_port0_sl2vl = o->have_port0_sl2vl;
	/* every per-port array at once: they follow the record in the same layout */
	memcpy((char *)s + l.mkey, (const char *)o + l.mkey, l.size - l.mkey);
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

int sm_node_get(struct mad_port *mp, const struct node *n, uint8_t port, ib_net16_t attr, uint32_t mod,
		mad_done_fn done, void *ctx)
{
	struct dr_path r = sm_node_route(n, port);
	return mad_send_dr(mp, IB_MAD_METHOD_GET, attr, mod, r.path, r.hops, sm_node_mkey(n, port), NULL, 0, done,
			   ctx);
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

/*
 * True if n was programmed by the last clean sweep and kept its LIDs (no
 * reset). A node whose type or port count changed (a switch split into
 * more ports, or an answer no longer the same) is not: its ports are not
 * the ones that sweep programmed.
 */
bool sm_node_kept(const struct node *n, const struct fabric *prev)
{
	const struct node *o = prev ? fabric_find_guid(prev, n->guid) : NULL;
	const struct sm_node *s = sm_node(n);
	if (!o || o->type != n->type || o->nports != n->nports)
		return false;
	/* a switch's LID is on port 0; a CA has one on each port */
	unsigned first = n->type == NODE_SWITCH ? 0 : 1, last = n->type == NODE_SWITCH ? 0 : n->nports;
	for (unsigned p = first; p <= last; p++)
		if (!s->have_port_info[p] || cl_ntoh16(s->port_info[p].base_lid) != o->ports[p].lid)
			return false;
	return true;
}

