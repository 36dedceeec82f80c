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
 * group: the ports routing/mtree.c's tree gives, proven deadlock-free
 * first (sm/sa/mcast_program.c). Groups live in memory; hosts rejoin
 * after an SM restart.
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

#include "sm/log.h"
#include "sm/sa/mcast_held.h"
#include "sm/sa/pathsel.h"
#include "sm/sm.h"
#include "sm/smnode.h"

/* Room for one more group in mc: -1 when it holds MC_MAX_GROUPS or memory ran out. */
static int group_room(struct mcast *mc)
{
	if (mc->n < mc->cap)
		return 0;
	unsigned cap = mc->cap ? 2 * mc->cap : 16;
	cap = cap > MC_MAX_GROUPS ? MC_MAX_GROUPS : cap;
	struct mc_group *more = cap > mc->cap ? realloc(mc->g, cap * sizeof(*more)) : NULL;
	if (!more)
		return -1;
	mc->g = more;
	mc->cap = cap;
	return 0;
}

int mcast_init(struct mcast *mc, uint64_t subnet_prefix)
{
	(void)subnet_prefix;
	memset(mc, 0, sizeof(*mc));
	if (group_room(mc) < 0)
		return -1;
	memset(&mc->g[0], 0, sizeof(mc->g[0]));
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
	return 0;
}

void mcast_free(struct mcast *mc)
{
	for (unsigned i = 0; i < mc->n; i++)
		free(mc->g[i].m);
	free(mc->g);
	mc->g = NULL;
	mc->n = mc->cap = mc->memberships = 0;
	evl_watch_free(mc->timer);
	mc->timer = NULL;
	mc_held_free(mc->held, mc->nheld);
	mc->held = NULL;
	mc->nheld = 0;
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

/* The lowest MLID no group of mc has, 0 when MC_MAX_MLIDS are in use. */
static uint16_t free_mlid(const struct mcast *mc)
{
	bool taken[MC_MAX_MLIDS] = { false };	/* the lowest free one is among the first MC_MAX_MLIDS */
	unsigned used = 0;
	for (unsigned i = 0; i < mc->n; i++) {
		unsigned k = cl_ntoh16(mc->g[i].rec.mlid) - MC_FIRST_MLID;
		if (k < MC_MAX_MLIDS && !taken[k]) {
			taken[k] = true;
			used++;
		}
	}
	for (unsigned k = 0; k < MC_MAX_MLIDS && used < MC_MAX_MLIDS; k++)
		if (!taken[k])
			return (uint16_t)(MC_FIRST_MLID + k);
	return 0;
}

/*
 * IPoIB's IPv6 solicited-node groups, ff1S:601b:PPPP::1:ffXX:XXXX (one
 * per host address, as OpenSM's consolidate_ipv6_snm_req tells them).
 */
static bool ipv6_solicited_node(const ib_gid_t *mgid)
{
	static const uint8_t zero[5];
	const uint8_t *b = mgid->raw;
	return b[0] == 0xff && (b[1] & 0xf0) == 0x10 && b[2] == 0x60 && b[3] == 0x1b && !memcmp(b + 6, zero, 5) &&
	       b[11] == 0x01 && b[12] == 0xff;
}

/*
 * The MLID a new group with record q takes: the IPv6 solicited-node
 * groups of one P_Key and SL share one (a host gets the neighbour
 * solicitations of other addresses too, and drops them by MGID, as with
 * OpenSM's consolidate_ipv6_snm_req), so a cluster's thousands of them
 * take one tree; any other group the lowest free MLID. 0: none left.
 */
static uint16_t mlid_for(const struct mcast *mc, const ib_member_rec_t *q)
{
	uint8_t sl, hop, qsl;
	uint32_t flow;
	ib_member_get_sl_flow_hop(q->sl_flow_hop, &qsl, &flow, &hop);
	for (unsigned i = 0; ipv6_solicited_node(&q->mgid) && i < mc->n; i++) {
		const struct mc_group *g = &mc->g[i];
		ib_member_get_sl_flow_hop(g->rec.sl_flow_hop, &sl, &flow, &hop);
		if (ipv6_solicited_node(&g->rec.mgid) && g->rec.pkey == q->pkey && sl == qsl)
			return cl_ntoh16(g->rec.mlid);
	}
	return free_mlid(mc);
}

static struct mc_group *create(struct mcast *mc, const ib_member_rec_t *q, uint64_t creator)
{
	uint16_t mlid = mlid_for(mc, q);
	if (!mlid || group_room(mc) < 0)
		return NULL;
	struct mc_group *g = &mc->g[mc->n++];
	memset(g, 0, sizeof(*g));
	g->rec = *q;
	g->rec.mlid = cl_hton16(mlid);
	memset(&g->rec.port_gid, 0, sizeof(g->rec.port_gid));
	g->rec.scope_state &= 0xf0;	/* the scope; join states are per member */
	g->creator = creator;
	return g;
}

struct mc_member *mcast_add_member(struct mcast *mc, struct mc_group *g, const ib_gid_t *gid)
{
	if (mc->memberships >= MC_MAX_MEMBERSHIPS)
		return NULL;
	if (g->nm == g->cap) {
		unsigned cap = g->cap ? 2 * g->cap : 4;	/* most groups are one host's (IPv6 solicited-node) */
		cap = cap > MC_MAX_MEMBERS ? MC_MAX_MEMBERS : cap;
		struct mc_member *more = cap > g->cap ? realloc(g->m, cap * sizeof(*more)) : NULL;
		if (!more)
			return NULL;
		g->m = more;
		g->cap = cap;
	}
	struct mc_member *m = &g->m[g->nm++];
	*m = (struct mc_member){ .port_gid = *gid };
	mc->memberships++;
	return m;
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
		if (!(m = mcast_add_member(&sm->mcast, g, &q->port_gid))) {
			if (sa_may_log(sm, from))
				log_warn("sa: MCMemberRecord join of MLID 0x%04x by port 0x%016llx refused: the group holds "
					 "%u members (%u at most; %u in all groups, %u at most), or memory ran out",
					 cl_ntoh16(g->rec.mlid), (unsigned long long)cl_ntoh64(q->port_gid.unicast.interface_id),
					 g->nm, MC_MAX_MEMBERS, sm->mcast.memberships, MC_MAX_MEMBERSHIPS);
			sa_respond(sm, req, from, IB_SA_MAD_STATUS_NO_RESOURCES, NULL, 0, 0);
			return;
		}
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
	if (!m->join_state) {
		*m = g->m[--g->nm];
		sm->mcast.memberships--;
	}
	if (!g->nm && cl_ntoh16(g->rec.mlid) != MC_FIRST_MLID) {	/* the group goes, the last one takes its place */
		free(g->m);
		*g = sm->mcast.g[--sm->mcast.n];
	}
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

void mcast_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	if (req->method == IB_MAD_METHOD_SET)
		join(sm, req, from);
	else if (req->method == IB_MAD_METHOD_DELETE)
		leave(sm, req, from);
	else
		query(sm, req, from);
}
