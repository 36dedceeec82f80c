/*
 * DOC: fabric configuration
 *
 * Every Set starts from the attribute as the node last reported it (kept
 * in sm_node), changes only what fabricd manages, and is skipped when the
 * node already has those values, so a re-run on a configured fabric sends
 * little. Each answer (the attribute as now set) is stored back.
 *
 * The Sets go out as one batch (sm/sweep/batch.c) each, issued node by
 * node as the answers come back.
 */
#include "sm/sweep/configure.h"

#include <stdlib.h>
#include <string.h>

#include "sm/sweep/batch.h"
#include "sm/log.h"
#include "sm/smnode.h"
#include "sm/sm.h"

static uint8_t min3(uint8_t a, uint8_t b, uint8_t c)
{
	uint8_t m = a < b ? a : b;
	return m < c ? m : c;
}

/*
 * The M_Key fields of a switch's port 0 or a CA port. A port whose lease
 * ran out has dropped its protect bits: comparing with what it reports
 * makes the next sweep give them back.
 */
void cfg_mkey_port_info(ib_port_info_t *pi, const struct cfg_params *p, uint64_t key)
{
	if (!p->mkey)
		return;
	pi->m_key = cl_hton64(key);
	ib_port_info_set_mpb(pi, p->mkey_protect);
	pi->m_key_lease_period = cl_hton16(p->mkey_lease);
}

/* A PortInfo as settings alone: the state (moved by its own Sets) and a last Set's ClientReregister echo out. */
static ib_port_info_t settings_of(const ib_port_info_t *pi)
{
	ib_port_info_t s = *pi;
	ib_port_info_set_port_state(&s, IB_LINK_NO_CHANGE);
	s.state_info2 &= 0x0f;
	ib_port_info_set_client_rereg(&s, 0);
	return s;
}

bool cfg_wanted_port_info(const struct node *n, unsigned port, const struct cfg_params *p, ib_port_info_t *pi)
{
	const struct sm_node *s = sm_node(n);
	const ib_port_info_t *now = &s->port_info[port];
	const struct port *pt = &n->ports[port];
	*pi = *now;
	ib_port_info_set_port_state(pi, IB_LINK_NO_CHANGE);
	pi->state_info2 &= 0x0f;	/* PortPhysicalState 0: no change */
	ib_port_info_set_client_rereg(pi, 0);	/* only rereg_clients asks for it */
	pi->vl_high_limit = p->vl_high_limit;
	if (n->type != NODE_SWITCH || port == 0) {
		pi->base_lid = cl_hton16(pt->lid);
		pi->master_sm_base_lid = cl_hton16(p->sm_lid);
		/* requests to the SM (SA queries, traps) go on the SL proven for traffic to its LID */
		ib_port_info_set_master_smsl(pi, p->sm_sl);
		pi->subnet_prefix = cl_hton64(p->subnet_prefix);
		ib_port_info_set_lmc(pi, 0);
		ib_port_info_set_timeout(pi, p->subnet_timeout);
		cfg_mkey_port_info(pi, p, sm_node_mkey(n, (uint8_t)port));
	}
	/* the last resort against a credit loop: packets stuck this long are dropped */
	if (n->type == NODE_SWITCH && port > 0 && pt->remote) {
		bool leaf = pt->remote->type != NODE_SWITCH;
		ib_port_info_set_hoq_lifetime(pi, leaf ? p->leaf_hoq_life : p->hoq_life);
		ib_port_info_set_vl_stall_count(pi, leaf ? p->leaf_vl_stall : p->vl_stall);
	}
	/* MTU and VLs are link properties: set them while the link trains (INIT) */
	if (pt->remote && pt->state == PORT_INIT) {
		const struct sm_node *rs = sm_node(pt->remote);
		const struct port *rp = &pt->remote->ports[pt->remote_port];
		if (rs && rs->have_port_info[pt->remote_port]) {
			ib_port_info_set_neighbor_mtu(pi, min3(pt->mtu_cap, rp->mtu_cap, p->max_mtu));
			ib_port_info_set_op_vls(pi, min3(pt->vl_cap, rp->vl_cap, p->max_op_vls));
		}
	}
	ib_port_info_t cmp = settings_of(now);
	return memcmp(&cmp, pi, sizeof(cmp)) != 0;
}

/*
 * The last sweep the switches hold sent the port these very values, the
 * port answered, and it reads now as it answered then: it does not keep
 * some field (ibsim keeps no SubnetTimeOut), and writing again would
 * change nothing. The record is carried on to this sweep's node.
 */
static bool sent_before(struct node *n, unsigned port, const ib_port_info_t *pi, const struct fabric *prev)
{
	const struct node *o = prev ? fabric_find_guid(prev, n->guid) : NULL;
	if (!o || o->nports != n->nports)
		return false;
	const struct sm_node *was = sm_node(o);
	struct sm_node *s = sm_node(n);
	ib_port_info_t now = settings_of(&s->port_info[port]), then = settings_of(&was->port_info[port]);
	if (!was->pi_taken[port] || memcmp(&was->pi_sent[port], pi, sizeof(*pi)) || memcmp(&now, &then, sizeof(now)))
		return false;
	s->pi_sent[port] = *pi;
	s->pi_taken[port] = true;
	return true;
}

const uint8_t *cfg_table_held(const struct node *n, const struct fabric *prev, const struct routing_tables *prev_t,
			      uint16_t *prev_max)
{
	const struct sm_node *s = sm_node(n);
	const struct node *o = prev ? fabric_find_guid(prev, n->guid) : NULL;
	if (s->lft_unknown)
		return NULL;
	if (s->lft_held) {
		*prev_max = s->lft_held_top;
		return s->lft_held;
	}
	if (!o || !prev_t->lft[o->index] || !s->have_port_info[0])
		return NULL;
	/* without SwitchInfo (its Get lost) the LID on port 0 is the only sign of a reset there is */
	if (cl_ntoh16(s->port_info[0].base_lid) != o->ports[0].lid ||
	    (s->have_switch_info && cl_ntoh16(s->switch_info.lin_top) != prev_t->max_lid))
		return NULL;
	*prev_max = prev_t->max_lid;
	return prev_t->lft[o->index];
}

void cfg_lft_block(const uint8_t *lft, uint16_t max, unsigned block, uint8_t out[IB_SMP_DATA_SIZE])
{
	unsigned first = block * 64u, count = max + 1u - first;
	memset(out, LFT_NO_PATH, IB_SMP_DATA_SIZE);
	memcpy(out, lft + first, count < 64 ? count : 64);
}

/*
 * The LFT blocks of n's row in t that differ from what n holds (every
 * block where that is not known), each Set into b unless b is NULL; how
 * many, and *skipped those that need no Set.
 */
static unsigned lft_blocks(struct batch *b, const struct node *n, const struct routing_tables *t,
			   const struct fabric *prev, const struct routing_tables *prev_t, unsigned *skipped)
{
	const uint8_t *lft = t->lft[n->index];
	uint16_t old_max = 0;
	const uint8_t *old = cfg_table_held(n, prev, prev_t, &old_max);
	unsigned differ = 0;
	*skipped = 0;
	for (unsigned block = 0; block <= t->max_lid / 64u; block++) {
		uint8_t data[IB_SMP_DATA_SIZE], was[IB_SMP_DATA_SIZE];
		cfg_lft_block(lft, t->max_lid, block, data);
		if (old && block * 64u <= old_max) {
			cfg_lft_block(old, old_max, block, was);
			if (memcmp(was, data, sizeof(data)) == 0) {
				(*skipped)++;
				continue;
			}
		}
		if (b)
			batch_set(b, n, 0, IB_MAD_ATTR_LIN_FWD_TBL, block, data, sizeof(data));
		differ++;
	}
	return differ;
}

/*
 * A switch that cannot take its table is left out, a failure, and the
 * next sweep reads it back. When that may pass (its SwitchInfo answer was
 * lost), as many LFT blocks as it lacks count as lost, so a transition
 * stops at its stage as at one whose Sets were lost; a table too short
 * for the fabric stays so, and stopping would only repeat.
 */
static void leave_out(struct batch *b, const struct node *n, const struct routing_tables *t,
		      const struct fabric *prev, const struct routing_tables *prev_t, bool may_pass)
{
	unsigned skipped;
	batch_node_failed(b, n->guid, may_pass ? lft_blocks(NULL, n, t, prev, prev_t, &skipped) : 0);
}

static void program_switch(struct batch *b, struct node *n, const struct routing_tables *t,
			   const struct fabric *prev, const struct routing_tables *prev_t, uint8_t life_time, bool lfts_only)
{
	struct sm_node *s = sm_node(n);
	if (!s->have_switch_info) {
		log_warn("configure: %s has no SwitchInfo; not programmed", n->desc);
		leave_out(b, n, t, prev, prev_t, true);
		return;
	}
	if (t->max_lid >= n->lft_cap) {
		log_warn("configure: %s holds LIDs up to %u, fabric needs %u", n->desc, n->lft_cap,
			 t->max_lid);
		leave_out(b, n, t, prev, prev_t, false);
		return;
	}
	/*
	 * LinearFDBTop, LifeTimeValue (how long a packet may wait in the
	 * switch: a stuck one is dropped), and PortStateChange cleared (by
	 * writing 1), where any needs it
	 */
	ib_switch_info_t si = s->switch_info;
	si.lin_top = cl_hton16(t->max_lid);
	si.life_state = (uint8_t)((si.life_state & 0x07) | life_time << 3);
	if (!lfts_only && (si.lin_top != s->switch_info.lin_top || si.life_state != s->switch_info.life_state ||
			   ib_switch_info_get_state_change(&si))) {
		si.life_state |= IB_SWITCH_PSC;
		batch_set_stored(b, n, 0, IB_MAD_ATTR_SWITCH_INFO, 0, &si, sizeof(si));
	}
	unsigned skipped;
	b->r.lft_blocks_sent += lft_blocks(b, n, t, prev, prev_t, &skipped);
	b->r.lft_blocks_skipped += skipped;
}

/* What cfg_program's nodes read, for as long as its batch issues them. */
struct program_job {
	struct fabric *f;
	const struct routing_tables *t, *prev_t;
	const struct fabric *prev;
	struct cfg_params p;
	bool lfts_only;
	const struct lost_set *only;	/* the switches to program (LFT blocks alone); NULL: every node */
};

static void program_node(void *ctx, struct batch *b, size_t i)
{
	const struct program_job *j = ctx;
	struct node *n = j->f->nodes[i];
	struct sm_node *s = sm_node(n);
	if (j->only && !lost_set_has(j->only, n->guid))
		return;
	if (n->type == NODE_SWITCH && j->t->lft[i])
		program_switch(b, n, j->t, j->prev, j->prev_t, j->p.life_time, j->lfts_only);
	for (unsigned port = 0; port <= n->nports && !j->lfts_only; port++) {
		ib_port_info_t pi;
		if (!s->have_port_info[port] || !n->ports[port].exists)
			continue;
		if (!cfg_wanted_port_info(n, port, &j->p, &pi) || sent_before(n, port, &pi, j->prev))
			continue;
		s->pi_sent[port] = pi;
		s->pi_taken[port] = false;
		batch_set_port_info(b, n, (uint8_t)port, &pi, &s->pi_taken[port]);
	}
}

int cfg_program(struct mad_port *mp, struct fabric *f, const struct routing_tables *t,
		const struct fabric *prev, const struct routing_tables *prev_t, const struct cfg_params *p,
		bool lfts_only, cfg_done_fn done, void *arg)
{
	struct program_job j = { f, t, prev_t, prev, *p, lfts_only, NULL };
	return batch_over_nodes(mp, f->nnodes, program_node, &j, sizeof(j), done, arg);
}

int cfg_program_lfts_of(struct mad_port *mp, struct fabric *f, const struct routing_tables *t,
			const struct fabric *prev, const struct routing_tables *prev_t, const struct lost_set *only,
			cfg_done_fn done, void *arg)
{
	struct program_job j = { f, t, prev_t, prev, { 0 }, true, only };
	return batch_over_nodes(mp, f->nnodes, program_node, &j, sizeof(j), done, arg);
}

struct state_job {
	struct fabric *f;
	enum port_state to;
};

static void step_node(void *ctx, struct batch *b, size_t i)
{
	const struct state_job *j = ctx;
	struct node *n = j->f->nodes[i];
	struct sm_node *s = sm_node(n);
	for (unsigned port = 1; port <= n->nports; port++) {
		const struct port *pt = &n->ports[port];
		if (!s->have_port_info[port] || !pt->remote || pt->phys_state != PORT_PHYS_LINKUP ||
		    pt->state != j->to - 1)
			continue;
		ib_port_info_t pi = s->port_info[port];
		ib_port_info_set_port_state(&pi, (uint8_t)j->to);
		pi.state_info2 &= 0x0f;
		batch_set_stored(b, n, (uint8_t)port, IB_MAD_ATTR_PORT_INFO, port, &pi, sizeof(pi));
	}
}

int cfg_step_state(struct mad_port *mp, struct fabric *f, enum port_state to, cfg_done_fn done,
		   void *arg)
{
	struct state_job j = { f, to };
	return batch_over_nodes(mp, f->nnodes, step_node, &j, sizeof(j), done, arg);
}

struct cfg_params cfg_params_of_sm(const struct sm *sm, const struct fabric *f, const struct routing_tables *t)
{
	uint16_t sm_lid = sm_node_own_lid(f);
	return (struct cfg_params){
		.sm_lid = sm_lid,
		.sm_sl = t && t->sl && sm_lid <= t->max_lid ? t->sl[sm_lid] : 0,
		.subnet_prefix = sm->cfg.subnet_prefix,
		.max_mtu = config_mtu_code(sm->cfg.max_mtu),
		.max_op_vls = config_vls_code(sm->cfg.max_op_vls),
		.subnet_timeout = (uint8_t)sm->cfg.subnet_timeout,
		.life_time = (uint8_t)sm->cfg.packet_life_time,
		.vl_high_limit = (uint8_t)sm->cfg.vl_high_limit,
		.hoq_life = (uint8_t)sm->cfg.hoq_life,
		.leaf_hoq_life = (uint8_t)sm->cfg.leaf_hoq_life,
		.vl_stall = (uint8_t)sm->cfg.vl_stall_count,
		.leaf_vl_stall = (uint8_t)sm->cfg.leaf_vl_stall_count,
		.mkey = sm->mkeys.cfg.enabled,
		.mkey_protect = (uint8_t)sm->mkeys.cfg.protect,
		.mkey_lease = (uint16_t)sm->mkeys.cfg.lease_s,
	};
}
