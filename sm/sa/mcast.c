/*
 * DOC: multicast groups
 *
 * Groups are created at start (the IPoIB broadcast group,
 * ff12:401b:ffff::ffff:ffff, MLID 0xc000, Q_Key 0x0b1b) or by a join
 * that names a new MGID with a Q_Key and P_Key. A join adds the port (by
 * PortGID) with its JoinState bits; a leave clears them and drops the
 * member when none are left, and the group when it has no members (the
 * broadcast group stays). A few milliseconds after a change (so a burst of
 * joins costs one update), and after each stored sweep, every switch on
 * the stored fabric gets the MFT blocks of every
 * group: the ports routing/mtree.c's tree gives, a 16-port mask per
 * position. Groups live in memory; hosts rejoin after an SM restart.
 *
 * A group's packets travel on the VL its SL maps to, and the SL is the
 * creator's choice (IBA: the join that creates a group names it), so the
 * trees are proven VL by VL, each with the unicast layers on that VL.
 * Where the trees from the first root close a cycle, other roots are tried
 * (up to MCAST_ROOT_TRIES in all, those whose trees cross fewest leaves
 * first: mtree_roots); a VL that none proves keeps
 * its groups out of the MFTs (their entries cleared: their packets are
 * dropped, not deadlocked) until the next programming proves them, with
 * an event when that starts ("mcast_unproven") and when it ends
 * ("mcast_proven"); the other VLs' groups are programmed.
 *
 * A join that creates a group with MGID 0 gets one the SA assigns,
 * ff1S:a01b:PPPP::NNNN:NNNN (S the scope asked for, link-local by default;
 * P the P_Key; N a counter), as OpenSM does. An MGID a host names must be
 * multicast (0xff), with flags 0 or 1 (transient), and may not take the
 * signature of the SA's own with link-local scope (IBA o15-0.1.6).
 */
#include "sm/sa/mcast.h"

#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "routing/mtree.h"
#include "sm/sweep/batch.h"
#include "sm/log.h"
#include "sm/sa/pathsel.h"
#include "sm/sm.h"
#include "sm/smnode.h"

void mcast_init(struct mcast *mc, uint64_t subnet_prefix)
{
	(void)subnet_prefix;
	memset(mc, 0, sizeof(*mc));
	ib_member_rec_t *r = &mc->g[mc->n++].rec;
	static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	memcpy(r->mgid.raw, bcast, sizeof(bcast));
	r->mlid = cl_hton16(MC_FIRST_MLID);
	r->qkey = cl_hton32(0x0b1b);
	r->pkey = cl_hton16(0xffff);
	r->mtu = 2 << 6 | IB_MTU_LEN_2048;
	r->rate = 2 << 6 | IB_PATH_RECORD_RATE_10_GBS;
	r->pkt_life = 2 << 6 | MC_PACKET_LIFE;
	r->scope_state = 2 << 4;	/* link-local */
}

const struct mc_group *mcast_group(const struct mcast *mc, const ib_gid_t *mgid)
{
	for (unsigned i = 0; i < mc->n; i++)
		if (memcmp(&mc->g[i].rec.mgid, mgid, sizeof(*mgid)) == 0)
			return &mc->g[i];
	return NULL;
}

/* mcast_group, for changing the group: mc is the caller's own. */
static struct mc_group *group_by_mgid(struct mcast *mc, const ib_gid_t *mgid)
{
	const struct mc_group *g = mcast_group(mc, mgid);
	return g ? &mc->g[g - mc->g] : NULL;
}

static struct mc_group *create(struct mcast *mc, const ib_member_rec_t *q, uint64_t creator)
{
	if (mc->n == MC_MAX_GROUPS)
		return NULL;
	uint16_t mlid = MC_FIRST_MLID;	/* the lowest MLID no group has */
	for (bool taken = true; taken; mlid++) {
		taken = false;
		for (unsigned i = 0; i < mc->n; i++)
			taken |= cl_ntoh16(mc->g[i].rec.mlid) == mlid;
		if (!taken)
			break;
	}
	struct mc_group *g = &mc->g[mc->n++];
	memset(g, 0, sizeof(*g));
	g->rec = *q;
	g->rec.mlid = cl_hton16(mlid);
	memset(&g->rec.port_gid, 0, sizeof(g->rec.port_gid));
	g->rec.scope_state &= 0xf0;	/* the scope; join states are per member */
	g->creator = creator;
	return g;
}

/* The record answering for member m of g. */
static ib_member_rec_t member_record(const struct mc_group *g, const struct mc_member *m)
{
	ib_member_rec_t r = g->rec;
	r.port_gid = m->port_gid;
	r.scope_state = (uint8_t)((g->rec.scope_state & 0xf0) | (m->join_state & 0x0f));
	return r;
}

static struct mc_member *member(struct mc_group *g, const ib_gid_t *gid)
{
	for (unsigned i = 0; i < g->nm; i++)
		if (memcmp(&g->m[i].port_gid, gid, sizeof(*gid)) == 0)
			return &g->m[i];
	return NULL;
}

/*
 * A port joins and leaves for itself (its own PortGID) unless the request
 * carries the SM_Key, or it shares a partition with the port it acts for
 * and proxy says that may be (IBA o15-0.1.2's ProxyJoin, as OpenSM
 * allows it: any join, a leave of a member joined that way); false
 * (refused, answered) otherwise.
 */
static bool for_itself(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from, bool proxy,
		       const char *what)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	uint64_t requester = sa_requester(sm, from), port = cl_ntoh64(q->port_gid.unicast.interface_id);
	if (sa_trusted(sm, req) || (requester && port == requester) ||
	    (proxy && requester && sa_share_partition(sm, requester, port)))
		return true;
	if (sa_may_log(sm, from))
		log_warn("sa: MCMemberRecord %s for port 0x%016llx from port 0x%016llx (LID %u) refused: a port joins "
			 "and leaves for itself only", what, (unsigned long long)cl_ntoh64(q->port_gid.unicast.interface_id),
			 (unsigned long long)requester, from->slid);
	sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
	return false;
}

/* Groups that port created and that still exist. */
static unsigned created_by(const struct mcast *mc, uint64_t port)
{
	unsigned n = 0;
	for (unsigned i = 0; i < mc->n; i++)
		n += mc->g[i].creator == port;
	return n;
}

/*
 * IBA o15-0.1.8: the MTU, rate and packet lifetime a join asks for (with
 * their selectors) must be what the group has, or, for a group the join
 * creates, what the joining port can give; *fit gets the group's values.
 */
static bool realizable(const struct sm *sm, const ib_sa_mad_t *req, const struct mc_group *g, ib_path_rec_t *fit)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	struct path_want w;
	sa_path_want_of_mcmr(q, req->comp_mask, &w);
	memset(fit, 0, sizeof(*fit));
	if (g) {
		fit->mtu = g->rec.mtu & 0x3f;
		fit->rate = g->rec.rate & 0x3f;
		fit->pkt_life = g->rec.pkt_life & 0x3f;
		ib_path_rec_t asked = *fit;	/* a group's values are what they are: none may be lowered */
		return sa_path_fit(&w, fit) && (fit->mtu & 0x3f) == asked.mtu && (fit->rate & 0x3f) == asked.rate &&
		       (fit->pkt_life & 0x3f) == asked.pkt_life;
	}
	uint8_t port = 0;
	const struct sm_snapshot *pub = sm_published(sm);
	const struct node *n = pub ? fabric_find_port_guid(&pub->fabric, cl_ntoh64(q->port_gid.unicast.interface_id),
							   &port) : NULL;
	fit->mtu = n ? sa_port_mtu(n, port) : IB_MTU_LEN_2048;
	fit->rate = n ? sa_port_rate(n, port) : IB_PATH_RECORD_RATE_10_GBS;
	fit->pkt_life = MC_PACKET_LIFE;
	return sa_path_fit(&w, fit);
}

static bool zero_gid(const ib_gid_t *g)
{
	static const ib_gid_t zero;
	return memcmp(g, &zero, sizeof(zero)) == 0;
}

/* An MGID a host may name for a new group (IBA o15-0.1.6, as OpenSM reads it). */
static bool valid_mgid(const ib_gid_t *mgid)
{
	uint8_t flags = mgid->raw[1] >> 4, scope = mgid->raw[1] & 0x0f;
	bool sa_signature = mgid->raw[2] == 0xa0 && mgid->raw[3] == 0x1b;
	return mgid->raw[0] == 0xff && flags <= 1 && !(sa_signature && scope == IB_MC_SCOPE_LINK_LOCAL);
}

/* A fresh MGID for a group created with MGID 0: ff1S:a01b:PPPP::NNNN:NNNN, no group holding it. */
static ib_gid_t assign_mgid(struct mcast *mc, const ib_sa_mad_t *req)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	uint8_t scope = req->comp_mask & IB_MCR_COMPMASK_SCOPE ? q->scope_state >> 4 : IB_MC_SCOPE_LINK_LOCAL;
	ib_gid_t g;
	do {
		uint32_t n = ++mc->next_mgid;
		memset(&g, 0, sizeof(g));
		g.raw[0] = 0xff;
		g.raw[1] = (uint8_t)(0x10 | scope);
		g.raw[2] = 0xa0;
		g.raw[3] = 0x1b;
		memcpy(&g.raw[4], &q->pkey, sizeof(q->pkey));
		g.raw[12] = (uint8_t)(n >> 24);
		g.raw[13] = (uint8_t)(n >> 16);
		g.raw[14] = (uint8_t)(n >> 8);
		g.raw[15] = (uint8_t)n;
	} while (mcast_group(mc, &g));
	return g;
}

static void join(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	if (!for_itself(sm, req, from, true, "join"))
		return;
	ib_member_rec_t asked = *q;	/* with the MGID the SA assigns, for MGID 0 */
	if (zero_gid(&q->mgid))
		asked.mgid = assign_mgid(&sm->mcast, req);
	else if (!mcast_group(&sm->mcast, &q->mgid) && !valid_mgid(&q->mgid)) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	q = &asked;
	struct mc_group *g = group_by_mgid(&sm->mcast, &q->mgid);
	ib_path_rec_t fit;
	if (!realizable(sm, req, g, &fit)) {
		if (sa_may_log(sm, from))
			log_info("sa: MCMemberRecord join from LID %u refused: MTU, rate or packet lifetime not realizable",
				 from->slid);
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	/* IBA o15-0.2.4: a join that creates a group gives all it must have, or INSUFFICIENT_COMPONENTS */
	const ib_net64_t create_needs = IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_SL |
					IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_TCLASS;
	bool can_create = (req->comp_mask & create_needs) == create_needs;
	/* IBA o15-0.1.9: only a full member creates; a send-only full member is one (IBA 1.3, IPoIB's sends) */
	if (!g && can_create &&
	    !(q->scope_state & (IB_MC_REC_STATE_FULL_MEMBER | IB_MC_REC_STATE_SEND_ONLY_FULL_MEMBER))) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	uint64_t requester = sa_requester(sm, from);
	if (!g && can_create && !sa_trusted(sm, req) && created_by(&sm->mcast, requester) >= sm->cfg.sa_groups_per_port) {
		if (sa_may_log(sm, from))
			log_warn("sa: new multicast group from port 0x%016llx (LID %u) refused: it created its quota "
				 "(sa.groups_per_port)", (unsigned long long)requester, from->slid);
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_NO_RESOURCES, NULL, 0, 0);
		return;
	}
	if (!g && (!can_create || !(g = create(&sm->mcast, q, requester)))) {
		sa_respond(sm, req, from, can_create ? IB_SA_MAD_STATUS_NO_RESOURCES : IB_SA_MAD_STATUS_INSUF_COMPS,
			       NULL, 0, 0);
		return;
	}
	if (!g->nm) {	/* created now: what the joining port gives, within what it asked */
		g->rec.mtu = fit.mtu;
		g->rec.rate = fit.rate;
		g->rec.pkt_life = fit.pkt_life;
	}
	struct mc_member *m = member(g, &q->port_gid);
	if (!m) {
		if (g->nm == MC_MAX_MEMBERS) {
			sa_respond(sm, req, from, IB_SA_MAD_STATUS_NO_RESOURCES, NULL, 0, 0);
			return;
		}
		m = &g->m[g->nm++];
		m->port_gid = q->port_gid;
		m->join_state = 0;
		m->proxy = cl_ntoh64(q->port_gid.unicast.interface_id) != requester;
	}
	m->join_state |= q->scope_state & 0x0f;
	ib_member_rec_t r = member_record(g, m);
	log_info("sa: MCMemberRecord join of MLID 0x%04x by port 0x%016llx (join state 0x%x)", cl_ntoh16(g->rec.mlid),
		 (unsigned long long)cl_ntoh64(q->port_gid.unicast.interface_id), m->join_state);
	sa_respond(sm, req, from, 0, &r, sizeof(r), 1);
	mcast_program_soon(sm);
}

static void leave(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	struct mc_group *g = group_by_mgid(&sm->mcast, &q->mgid);
	struct mc_member *m = g ? member(g, &q->port_gid) : NULL;
	if (!for_itself(sm, req, from, m && m->proxy, "leave"))
		return;
	if (!m || (q->scope_state & 0x0f & ~m->join_state)) {	/* IBA o15-0.1.14: only states it holds */
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	ib_member_rec_t r = member_record(g, m);
	log_info("sa: MCMemberRecord leave of MLID 0x%04x by port 0x%016llx (join state 0x%x)", cl_ntoh16(g->rec.mlid),
		 (unsigned long long)cl_ntoh64(q->port_gid.unicast.interface_id), q->scope_state & 0x0f);
	m->join_state &= (uint8_t)~(q->scope_state & 0x0f);
	r.scope_state = (uint8_t)((r.scope_state & 0xf0) | m->join_state);	/* the answer: what it still holds */
	if (!m->join_state)
		*m = g->m[--g->nm];
	if (!g->nm && cl_ntoh16(g->rec.mlid) != MC_FIRST_MLID)
		*g = sm->mcast.g[--sm->mcast.n];
	sa_respond(sm, req, from, 0, &r, sizeof(r), 1);
	mcast_program_soon(sm);
}

/*
 * Get and GetTable, as OpenSM answers them: by PortGID, that member's
 * record; with the SM_Key, every member's; else one record per group
 * (no PortGID): a host learns the groups, not who is in them.
 */
static void query(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	bool by_port = req->comp_mask & IB_MCR_COMPMASK_PORT_GID, members = by_port || sa_trusted(sm, req);
	struct sa_answer a;
	sa_answer_init(&a, sizeof(ib_member_rec_t));
	for (unsigned i = 0; i < sm->mcast.n; i++) {
		const struct mc_group *g = &sm->mcast.g[i];
		if (((req->comp_mask & IB_MCR_COMPMASK_MGID) && memcmp(&g->rec.mgid, &q->mgid, sizeof(q->mgid))) ||
		    ((req->comp_mask & IB_MCR_COMPMASK_MLID) && g->rec.mlid != q->mlid))
			continue;
		ib_member_rec_t *group = members ? NULL : sa_answer_add(&a);
		if (group)
			*group = g->rec;
		for (unsigned k = 0; members && k < g->nm; k++) {
			if (by_port && memcmp(&g->m[k].port_gid, &q->port_gid, sizeof(q->port_gid)))
				continue;
			ib_member_rec_t *r = sa_answer_add(&a);
			if (r)
				*r = member_record(g, &g->m[k]);
		}
	}
	sa_answer_send(sm, req, from, &a);
}

/*
 * Hosts join in bursts (every IPoIB port at boot): one tree computation,
 * proof and MFT update serves every join and leave of the next few
 * milliseconds.
 */
#define MCAST_COALESCE_MS 10

static void on_mcast_timer(void *arg)
{
	struct sm *sm = arg;
	sm->mcast.pending = false;
	mcast_program(sm, NULL);
}

void mcast_attach(struct sm *sm)
{
	sm->mcast.timer = evl_timer(sm->loop, on_mcast_timer, sm);
}

void mcast_program_soon(struct sm *sm)
{
	if (!sm->mcast.pending) {
		sm->mcast.pending = true;
		evl_timer_arm(sm->mcast.timer, MCAST_COALESCE_MS);
	}
}

void mcast_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	if (req->method == IB_MAD_METHOD_SET)
		join(sm, req, from);
	else if (req->method == IB_MAD_METHOD_DELETE)
		leave(sm, req, from);
	else
		query(sm, req, from);
}

/* The CA ports of g's members in f. */
static size_t members_of(const struct fabric *f, const struct mc_group *g, struct mtree_member *out)
{
	size_t n = 0;
	for (unsigned k = 0; k < g->nm; k++) {
		uint8_t port;
		const struct node *ca = fabric_find_port_guid(f, cl_ntoh64(g->m[k].port_gid.unicast.interface_id), &port);
		if (ca && ca->type != NODE_SWITCH)
			out[n++] = (struct mtree_member){ ca, port };
	}
	return n;
}

/* g's tree in f from its root_guid into on_g (cleared first; none when unproven). -1 on allocation failure. */
static int build_tree(const struct fabric *f, const struct mc_group *g, struct mtree_member *mem, bool **on_g)
{
	for (size_t i = 0; i < f->nnodes; i++)
		memset(on_g[i], 0, (size_t)f->nodes[i]->nports + 1);
	if (g->unproven)
		return 0;
	return mtree_build_at(f, mem, members_of(f, g, mem), g->root_guid, on_g) < 0 ? -1 : 0;
}

struct trees {
	const struct fabric *f;
	struct mcast *mc;		/* try_root gives its groups roots */
	const struct routing_tables *t;
	bool ***on;		/* per group, per node, per port */
	unsigned vl;		/* the groups of this VL only */
};

/* The VL g's packets take: its SL's, as every port maps it. */
static unsigned group_vl(const struct routing_tables *t, const struct mc_group *g)
{
	uint8_t sl, hop;
	uint32_t flow;
	ib_member_get_sl_flow_hop(g->rec.sl_flow_hop, &sl, &flow, &hop);
	return t->vl_by_sl[sl & 15];
}

static int add_trees(void *arg, struct depgraph *g)
{
	const struct trees *t = arg;
	for (unsigned i = 0; i < t->mc->n; i++)
		if (t->on[i] && group_vl(t->t, &t->mc->g[i]) == t->vl && mtree_dependencies(t->f, t->on[i], g) < 0)
			return -1;
	return 0;
}

/* At most this many roots (the first, then mtree_roots' order) are tried for a VL's trees... */
#define MCAST_ROOT_TRIES 8
/* ... and no new one once this long went into the tries (the event loop waits on them). */
#define MCAST_RETRY_MS 250

/* The check of VL t->vl's trees (as on holds them) with its unicast layers: 0, or -1 out of memory. */
static int check_vl(const struct sm_snapshot *pub, const struct cdg_mix *m, struct trees *t, struct cdg_report *r)
{
	uint32_t layers = 0;
	for (unsigned l = 0; l < pub->tables.layers && l < 16; l++)
		layers |= (uint32_t)(pub->tables.vl_by_sl[l] == t->vl) << l;
	return cdg_check_layers_with(&pub->fabric, m, layers, add_trees, t, r);
}

/*
 * VL t->vl's groups' trees from the switch root: 1 when they prove out, 0
 * when not, -1 out of memory.
 */
static int try_root(const struct sm_snapshot *pub, const struct cdg_mix *m, struct trees *t, uint64_t root,
		    struct mtree_member *mem)
{
	struct mcast *mc = t->mc;
	for (unsigned i = 0; i < mc->n; i++) {
		if (group_vl(t->t, &mc->g[i]) != t->vl)
			continue;
		mc->g[i].root_guid = root;
		if (build_tree(&pub->fabric, &mc->g[i], mem, t->on[i]) < 0)
			return -1;
	}
	struct cdg_report r;
	return check_vl(pub, m, t, &r) < 0 ? -1 : r.cycle_len == 0;
}

/*
 * The roots to try for VL t->vl's trees after the first (mtree_roots,
 * which leaves the first out), for the members of all its groups. How
 * many into out.
 */
static size_t other_roots(const struct sm_snapshot *pub, const struct trees *t, struct mtree_member *mem,
			  uint64_t *out, size_t max)
{
	size_t n = 0;
	for (unsigned i = 0; i < t->mc->n; i++)
		if (group_vl(t->t, &t->mc->g[i]) == t->vl)	/* mem has room for every group's members */
			n += members_of(&pub->fabric, &t->mc->g[i], mem + n);
	return mtree_roots(&pub->fabric, mem, n, out, max);
}

/* VL vl's groups proven: an event if the last programming left them out. */
static void vl_proven_again(struct sm *sm, unsigned vl)
{
	if (!sm->mcast.vl_unproven[vl])
		return;
	sm->mcast.vl_unproven[vl] = false;
	char detail[96];
	snprintf(detail, sizeof(detail), "the trees of the groups on VL %u proven again: programmed", vl);
	log_info("mcast: %s", detail);
	sm_event(sm, "mcast_proven", detail);
}

/*
 * The groups' trees on each VL together with the unicast layers on it
 * must keep its channel dependency graph acyclic. When the trees from the
 * first root close a cycle, other roots are tried (the same for every
 * group of the VL); the groups of a VL that none proves are marked
 * unproven and their trees emptied. False when memory ran out (nothing
 * is programmed then).
 */
static bool prove_trees(struct sm *sm, bool ***on)
{
	const struct sm_snapshot *pub = sm_published(sm);
	struct mcast *mc = &sm->mcast;
	struct trees t = { &pub->fabric, mc, &pub->tables, on, 0 };
	struct cdg_mix m = cdg_mix_of(&pub->tables);
	/* room for the members of every group: other_roots takes a VL's groups together */
	struct mtree_member *mem = malloc((size_t)MC_MAX_GROUPS * MC_MAX_MEMBERS * sizeof(*mem));
	bool ok = mem != NULL;
	for (t.vl = 0; ok && t.vl < 16; t.vl++) {
		unsigned groups = 0;
		for (unsigned i = 0; i < mc->n; i++)
			groups += group_vl(t.t, &mc->g[i]) == t.vl;
		struct cdg_report r;
		if (!groups) {
			mc->vl_unproven[t.vl] = false;
			continue;
		}
		if (check_vl(pub, &m, &t, &r) < 0) {
			ok = false;
			break;
		}
		const char *plural = groups == 1 ? "" : "s";
		if (!r.cycle_len) {
			log_debug("mcast: the trees of %u group%s and the routes on VL %u acyclic (%zu channels, %zu "
				  "dependencies)", groups, plural, t.vl, r.channels, r.dependencies);
			vl_proven_again(sm, t.vl);
			continue;
		}
		char cycle[512];
		cdg_cycle_text(&r, cycle, sizeof(cycle));
		uint64_t roots[MCAST_ROOT_TRIES - 1];
		size_t nroots = other_roots(pub, &t, mem, roots, MCAST_ROOT_TRIES - 1), tried = 1;
		int proven = 0;
		uint64_t t0 = evl_now_ms();	/* on a big fabric each try is a graph of a whole layer: bounded */
		while (proven == 0 && tried <= nroots && evl_now_ms() - t0 < MCAST_RETRY_MS)
			proven = try_root(pub, &m, &t, roots[tried++ - 1], mem);
		if (proven < 0) {
			ok = false;
			break;
		}
		if (proven == 1) {
			log_info("mcast: the trees of %u group%s on VL %u close a cycle with the unicast routes there from "
				 "their first root (%s); proven from switch 0x%016llx instead (root %zu tried)", groups,
				 plural, t.vl, cycle, (unsigned long long)roots[tried - 2], tried);
			vl_proven_again(sm, t.vl);
			continue;
		}
		char detail[700];
		snprintf(detail, sizeof(detail), "the trees of the %u group%s on VL %u and the unicast routes there close "
			 "a cycle from each of %zu roots (from the first: %s); left out of the MFTs", groups, plural, t.vl,
			 tried, cycle);
		log_error("mcast: %s", detail);
		if (!mc->vl_unproven[t.vl])
			sm_event(sm, "mcast_unproven", detail);
		mc->vl_unproven[t.vl] = true;
		for (unsigned i = 0; i < mc->n; i++)
			if (group_vl(t.t, &mc->g[i]) == t.vl) {
				mc->g[i].unproven = true;
				mc->g[i].root_guid = 0;
				build_tree(&pub->fabric, &mc->g[i], mem, on[i]);	/* unproven: emptied */
			}
	}
	if (!ok)
		log_error("mcast: out of memory proving the trees");
	free(mem);
	return ok;
}

struct programming {
	struct sm *sm;
	void (*done)(struct sm *sm);
};

static void on_programmed(void *arg, const struct cfg_result *r)
{
	struct programming *p = arg;
	if (r->failed)
		log_warn("mcast: %u MFT Sets failed", r->failed);
	else
		log_debug("mcast: %u MFT blocks sent", r->sent);
	if (p->done)
		p->done(p->sm);
	free(p);
}

void mcast_trees_free(bool ***on, unsigned ngroups, const struct fabric *f)
{
	for (unsigned g = 0; on && g < ngroups; g++) {
		for (size_t i = 0; on[g] && i < f->nnodes; i++)
			free(on[g][i]);
		free(on[g]);
	}
	free(on);
}

bool ***mcast_trees(const struct mcast *mc, const struct fabric *f)
{
	bool ***on = calloc(mc->n + 1, sizeof(*on));
	struct mtree_member *mem = malloc(MC_MAX_MEMBERS * sizeof(*mem));
	bool ok = on && mem;
	for (unsigned g = 0; ok && g < mc->n; g++) {
		ok = (on[g] = calloc(f->nnodes + 1, sizeof(**on))) != NULL;
		for (size_t i = 0; ok && i < f->nnodes; i++)
			ok = (on[g][i] = calloc((size_t)f->nodes[i]->nports + 1, sizeof(bool))) != NULL;
		ok = ok && build_tree(f, &mc->g[g], mem, on[g]) == 0;
	}
	free(mem);
	if (!ok) {
		mcast_trees_free(on, mc->n, f);
		return NULL;
	}
	return on;
}

bool mcast_block_masks(const struct mcast *mc, bool ***on, const struct node *n, unsigned block, unsigned pos,
		       ib_net16_t masks[IB_MCAST_BLOCK_SIZE])
{
	bool used = false;
	memset(masks, 0, IB_MCAST_BLOCK_SIZE * sizeof(*masks));
	for (unsigned g = 0; g < mc->n; g++) {
		unsigned e = cl_ntoh16(mc->g[g].rec.mlid) - MC_FIRST_MLID;
		if (e / IB_MCAST_BLOCK_SIZE != block)
			continue;
		used = true;
		uint16_t bits = 0;
		for (unsigned p = pos * 16u; p < pos * 16u + 16 && p <= n->nports; p++)
			bits |= on[g][n->index][p] ? (uint16_t)(1u << (p - pos * 16u)) : 0;
		masks[e % IB_MCAST_BLOCK_SIZE] = cl_hton16(bits);
	}
	return used;
}

bool mcast_program(struct sm *sm, void (*done)(struct sm *sm))
{
	const struct sm_snapshot *pub = sm_published(sm);
	if (!pub || sm->state != SM_MASTER)
		return false;
	const struct fabric *f = &pub->fabric;
	for (unsigned g = 0; g < sm->mcast.n; g++) {	/* proven afresh below, on the routes of now */
		sm->mcast.g[g].unproven = false;
		sm->mcast.g[g].root_guid = 0;
	}
	/* per group, per switch: the ports the tree uses */
	bool ***on = mcast_trees(&sm->mcast, f);
	struct programming *ctx = on ? malloc(sizeof(*ctx)) : NULL;
	struct batch *b = ctx ? batch_new(sm->mp, on_programmed, ctx) : NULL;
	if (ctx)
		*ctx = (struct programming){ sm, done };
	if (!b)
		free(ctx);
	bool proven = b && prove_trees(sm, on);
	/* every MLID block that holds a group, on every switch, one Set per 16-port position */
	for (size_t i = 0; proven && i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		if (n->type != NODE_SWITCH || !n->mft_cap)
			continue;
		for (unsigned block = 0; block * 32u < n->mft_cap; block++) {
			ib_net16_t masks[IB_MCAST_BLOCK_SIZE];
			for (unsigned pos = 0; pos * 16u <= n->nports && mcast_block_masks(&sm->mcast, on, n, block, pos, masks);
			     pos++)
				batch_set(b, n, 0, IB_MAD_ATTR_MCAST_FWD_TBL, pos << 28 | block, masks, sizeof(masks));
		}
	}
	bool issued = b != NULL;
	if (b)
		batch_issued(b);	/* empty when the trees were refused: done runs at once */
	else
		log_error("mcast: out of memory; MFTs not programmed");
	mcast_trees_free(on, sm->mcast.n, f);
	return issued;
}
