/*
 * DOC: Subnet Administration
 *
 * The SA answers from what the last published sweep found and programmed
 * (sm_published: fabric, tables, partitions; read-only), and only while
 * fabricd is master:
 * a standby's view is not the subnet's.
 *
 * PathRecord: the request names the ends by LID or GID (port GUID); the
 * path is walked through the programmed LFTs from the source port's
 * switch to the destination, so the record describes the route packets
 * will take: its SL is the destination's VL layer (routing_tables.sl, the
 * one the deadlock proof holds for), MTU and rate the smallest of the
 * links on it, the packet lifetime the configured one. Ports that share
 * no partition get no path. The request's selectors (sm/sa/pathsel.c)
 * then fit the path or rule it out, in Get, GetTable and GetMulti alike.
 * Get answers one record; GetTable the same record in a single-segment
 * RMPP answer.
 *
 * Every GetTable answer goes out by RMPP (sm/mad/rmpp.c), however many MADs
 * it takes; the receiver's ACKs, STOPs and ABORTs come back here as
 * requests and go to the sender.
 *
 * The tables hosts write (ServiceRecords, InformInfo, multicast members)
 * know who asks: the requester is the port with the source LID the fabric
 * reported (sa_requester). It acts for itself only, within the per-port
 * quotas of the sa: configuration, unless the request carries the SM_Key
 * (a trusted client, IBA 15.2.1.1; never with no sm_key configured).
 * A request with an SM_Key that is neither 0 nor the configured one is
 * dropped unanswered (C15-0.1.5): the asker learns nothing, not even that
 * its key was wrong.
 */
#include "sm/sa/sa.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/mad/rmpp_recv.h"
#include "sm/sa/pathsel.h"
#include "sm/sm.h"

#define SELECTOR_EXACTLY 2

/* the SA's ClassPortInfo CapabilityMask and CapabilityMask2 bits (IBA 1.3 table 188) */
#define SA_CAP_UD_MCAST (1u << 9)
#define SA_CAP_PORT_INFO_CAPMASK_MATCH (1u << 13)
#define SA_CAP2_EXTENDED_SPEEDS (1u << 7)
#define SA_CAP2_PORT_INFO_CAPMASK2_MATCH (1u << 10)
#define SA_CAP2_SEND_ONLY_FULL_MEMBER (1u << 12)
#define SA_CAP2_LINK_WIDTH_2X (1u << 13)
#define SA_CAP2_LINK_SPEED_HDR (1u << 15)

int sa_path_record(const struct fabric *f, const struct routing_tables *t, const struct partitions *ps,
		   uint64_t subnet_prefix, uint8_t packet_life, uint16_t slid, uint16_t dlid, uint16_t pkey,
		   ib_path_rec_t *out)
{
	uint8_t sp, dp;
	const struct node *src = fabric_find_lid(f, slid, &sp), *dst = fabric_find_lid(f, dlid, &dp);
	if (!src || !dst || dlid > t->max_lid)
		return -1;
	uint16_t key = sa_shared_pkey(ps, src, sp, dst, dp, pkey);
	if (!key)
		return 1;
	/* walk: from the source port onto its switch, then the LFTs; no larger than either end's MTUCap */
	uint8_t mtu = IB_MTU_LEN_4096, rate = 0xff;
	if (src->ports[sp].mtu_cap && src->ports[sp].mtu_cap < mtu)
		mtu = src->ports[sp].mtu_cap;
	if (dst->ports[dp].mtu_cap && dst->ports[dp].mtu_cap < mtu)
		mtu = dst->ports[dp].mtu_cap;
	const struct node *n = src;
	uint8_t out_port = sp;
	unsigned hops = 0;
	/* arrived: at the destination switch, or at the destination CA (from its other port: through the fabric) */
	while (n != dst || (n->type != NODE_SWITCH && hops == 0 && sp != dp)) {
		if (n->type != NODE_SWITCH) {
			if (n != src || !n->ports[out_port].remote)
				return 1;
		} else {
			out_port = routing_next_hop(t, n, dlid);
			if (!out_port)
				return n == dst ? 0 : 1;
		}
		if (sa_port_mtu(n, out_port) < mtu)
			mtu = sa_port_mtu(n, out_port);
		rate = sa_rate_slower(rate, sa_port_rate(n, out_port));
		n = n->ports[out_port].remote;
		if (++hops > FABRIC_MAX_HOPS)
			return 1;	/* a loop: no path */
	}
	if (src == dst && sp == dp) {	/* a port to itself (loopback): its own rate, PacketLifeTime 0 (IBA table 205) */
		rate = sa_port_rate(src, sp);
		packet_life = 0;
	}
	ib_gid_t sgid, dgid;
	sgid.unicast.prefix = dgid.unicast.prefix = cl_hton64(subnet_prefix);
	sgid.unicast.interface_id = cl_hton64(fabric_port_guid(src, sp));
	dgid.unicast.interface_id = cl_hton64(fabric_port_guid(dst, dp));
	memset(out, 0, sizeof(*out));
	ib_path_rec_init_local(out, &dgid, &sgid, cl_hton16(dlid), cl_hton16(slid), 1, cl_hton16(key), t->sl[dlid], 0,
			       SELECTOR_EXACTLY, mtu, SELECTOR_EXACTLY, rate, SELECTOR_EXACTLY, packet_life, 0);
	out->num_path = 0x80;	/* reversible; NumbPath is reserved in answers (IBA 15.2.5.16) */
	return 0;
}

/* The end a PathRecord request names: by LID, or by GID's port GUID. */
static uint16_t request_lid(const struct fabric *f, const ib_path_rec_t *pr, bool source, ib_net64_t mask)
{
	ib_net64_t lid_bit = source ? IB_PR_COMPMASK_SLID : IB_PR_COMPMASK_DLID;
	ib_net64_t gid_bit = source ? IB_PR_COMPMASK_SGID : IB_PR_COMPMASK_DGID;
	if (mask & lid_bit)
		return cl_ntoh16(source ? pr->slid : pr->dlid);
	if (mask & gid_bit) {
		uint8_t port;
		const struct node *n = fabric_find_port_guid(f, cl_ntoh64((source ? pr->sgid : pr->dgid).unicast.interface_id), &port);
		return n ? fabric_port_lid(n, port) : 0;
	}
	return 0;
}

/* True if the request names that end (by LID or GID). */
static bool names_end(ib_net64_t mask, bool source)
{
	return mask & (source ? IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_SGID : IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_DGID);
}

/* Every addressed LID of the published fabric, 0 where none: for the tables below. */
static bool lid_in_use(const struct sm_snapshot *pub, uint32_t lid)
{
	uint8_t port;
	return fabric_find_lid(&pub->fabric, (uint16_t)lid, &port) != NULL;
}

/* More records than this in one answer: NO_RESOURCES (all pairs of a large fabric are millions). */
#define PATH_TABLE_MAX 65536

/*
 * A GetTable naming one end or none: the paths from (or to) that port to
 * every addressed port, or between all pairs (what saquery -p asks before
 * it picks the pair it prints; osmtest's half-world query names one end),
 * in LID order, answered by RMPP. fixed_s/fixed_d: 0 for "every port".
 */
static void answer_path_table(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from,
			      uint16_t fixed_s, uint16_t fixed_d, uint16_t pkey, const struct path_want *want)
{
	const struct sm_snapshot *pub = sm_published(sm);
	uint32_t max = pub->tables.max_lid;
	struct sa_answer a;
	sa_answer_init(&a, sizeof(ib_path_rec_t));
	for (uint32_t s = fixed_s ? fixed_s : 1; s <= (fixed_s ? fixed_s : max) && !a.failed; s++) {
		if (!lid_in_use(pub, s))
			continue;
		for (uint32_t d = fixed_d ? fixed_d : 1; d <= (fixed_d ? fixed_d : max) && !a.failed; d++) {
			ib_path_rec_t rec;
			if (!lid_in_use(pub, d) ||
			    sa_path_record(&pub->fabric, &pub->tables, &pub->parts, sm->cfg.subnet_prefix,
					   (uint8_t)sm->cfg.subnet_timeout, (uint16_t)s, (uint16_t)d, pkey, &rec) != 0 ||
			    !sa_path_fit(want, &rec))
				continue;
			if (a.n == PATH_TABLE_MAX) {
				free(a.buf);
				sa_respond(sm, req, from, IB_SA_MAD_STATUS_NO_RESOURCES, NULL, 0, 0);
				return;
			}
			ib_path_rec_t *r = sa_answer_add(&a);
			if (r)
				*r = rec;
		}
	}
	log_debug("sa: PathRecord table from LID %u to LID %u (0: every port): %zu paths", fixed_s, fixed_d, a.n);
	sa_answer_send(sm, req, from, &a);
}

/*
 * The PathRecord from (src, sp) to multicast group g: the group's MLID,
 * P_Key, SL, MTU, rate, lifetime, TClass, FlowLabel and HopLimit, as
 * IPoIB asks before it sends to the broadcast group; not reversible.
 */
static void mc_path_record(const struct mc_group *g, uint64_t subnet_prefix, const struct node *src, uint8_t sp,
			   ib_path_rec_t *out)
{
	const ib_member_rec_t *r = &g->rec;
	uint8_t sl, hop;
	uint32_t flow;
	ib_member_get_sl_flow_hop(r->sl_flow_hop, &sl, &flow, &hop);
	ib_gid_t sgid, mgid = r->mgid;
	sgid.unicast.prefix = cl_hton64(subnet_prefix);
	sgid.unicast.interface_id = cl_hton64(fabric_port_guid(src, sp));
	memset(out, 0, sizeof(*out));
	ib_path_rec_init_local(out, &mgid, &sgid, r->mlid, cl_hton16(fabric_port_lid(src, sp)), 1, r->pkey, sl, 0,
			       SELECTOR_EXACTLY, r->mtu & 0x3f, SELECTOR_EXACTLY, r->rate & 0x3f, SELECTOR_EXACTLY,
			       r->pkt_life & 0x3f, 0);
	out->hop_flow_raw = cl_hton32(flow << 8 | hop);
	out->tclass = r->tclass;
}

/*
 * A PathRecord request whose DGID is a multicast GID: one record from the
 * named source, or (GetTable without a source) one from every end port.
 * An unknown group, or a P_Key other than the group's, gives no record.
 */
static void answer_mc_path(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from,
			   const struct path_want *want)
{
	const ib_path_rec_t *pr = (const ib_path_rec_t *)req->data;
	const struct sm_snapshot *pub = sm_published(sm);
	const struct mc_group *g = mcast_group(&sm->mcast, &pr->dgid);
	bool has_s = names_end(req->comp_mask, true);
	uint16_t slid = has_s ? request_lid(&pub->fabric, pr, true, req->comp_mask) : 0;
	if ((has_s && !slid) || (!has_s && req->method == IB_MAD_METHOD_GET)) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	bool pkey_ok = g && (!(req->comp_mask & IB_PR_COMPMASK_PKEY) ||
			     (cl_ntoh16(pr->pkey) & 0x7fff) == (cl_ntoh16(g->rec.pkey) & 0x7fff));
	struct sa_answer a;
	sa_answer_init(&a, sizeof(ib_path_rec_t));
	for (uint32_t s = has_s ? slid : 1; pkey_ok && s <= (has_s ? slid : pub->tables.max_lid) && !a.failed; s++) {
		uint8_t sp;
		const struct node *src = fabric_find_lid(&pub->fabric, (uint16_t)s, &sp);
		ib_path_rec_t rec;
		if (!src)
			continue;
		mc_path_record(g, sm->cfg.subnet_prefix, src, sp, &rec);
		ib_path_rec_t *r = sa_path_fit(want, &rec) ? sa_answer_add(&a) : NULL;
		if (r)
			*r = rec;
	}
	log_debug("sa: PathRecord from LID %u (0: every port) to a multicast group%s: %zu paths", slid,
		  g ? "" : " that does not exist", a.n);
	sa_answer_send(sm, req, from, &a);
}

static void answer_path(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	const ib_path_rec_t *pr = (const ib_path_rec_t *)req->data;
	const struct sm_snapshot *pub = sm_published(sm);
	uint16_t slid = request_lid(&pub->fabric, pr, true, req->comp_mask);
	uint16_t dlid = request_lid(&pub->fabric, pr, false, req->comp_mask);
	uint16_t pkey = req->comp_mask & IB_PR_COMPMASK_PKEY ? cl_ntoh16(pr->pkey) : 0;
	bool has_s = names_end(req->comp_mask, true), has_d = names_end(req->comp_mask, false);
	struct path_want want;
	sa_path_want_of_pr(pr, req->comp_mask, &want);
	if ((req->comp_mask & IB_PR_COMPMASK_DGID) && ib_gid_is_multicast(&pr->dgid)) {
		answer_mc_path(sm, req, from, &want);
		return;
	}
	if (req->method == IB_MAD_METHOD_GETTABLE && !(has_s && has_d)) {
		if ((has_s && !slid) || (has_d && !dlid))	/* a GID of no port here: no paths */
			sa_respond(sm, req, from, 0, NULL, sizeof(ib_path_rec_t), 0);
		else
			answer_path_table(sm, req, from, has_s ? slid : 0, has_d ? dlid : 0, pkey, &want);
		return;
	}
	ib_path_rec_t rec;
	int rc = slid && dlid ? sa_path_record(&pub->fabric, &pub->tables, &pub->parts, sm->cfg.subnet_prefix,
					       (uint8_t)sm->cfg.subnet_timeout, slid, dlid, pkey, &rec)
			      : -1;
	if (rc < 0) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	if (rc == 0 && !sa_path_fit(&want, &rec))
		rc = 1;
	log_debug("sa: PathRecord %u -> %u: %s", slid, dlid, rc ? "no path" : "answered");
	if (rc)
		sa_respond(sm, req, from, req->method == IB_MAD_METHOD_GET ? IB_SA_MAD_STATUS_NO_RECORDS : 0, NULL,
			       sizeof(rec), 0);
	else
		sa_respond(sm, req, from, 0, &rec, sizeof(rec), 1);
}

/* The LID of the end port a MultiPathRecord GID names: 0 if none, -1 if the GID is not of this subnet. */
static int gid_lid(const struct sm *sm, const ib_gid_t *gid)
{
	uint64_t prefix = cl_ntoh64(gid->unicast.prefix);
	if (prefix != sm->cfg.subnet_prefix && prefix != 0xfe80000000000000ULL)
		return -1;
	uint8_t port;
	const struct node *n = fabric_find_port_guid(&sm_published(sm)->fabric, cl_ntoh64(gid->unicast.interface_id),
						     &port);
	return n ? fabric_port_lid(n, port) : 0;
}

/*
 * MultiPathRecord (GetMulti, an RMPP request of as many segments as its
 * GIDs take): the PathRecord
 * of every (source GID, destination GID) pair in order, up to NumbPath
 * records, only those of the P_Key asked for that fit its selectors, answered as
 * PathRecords by RMPP. One path per pair: every port has one LID (LMC 0).
 */
static void answer_multipath(struct sm *sm, const ib_sa_mad_t *req, size_t data_len, const struct mad_origin *from)
{
	const ib_multipath_rec_t *q = (const ib_multipath_rec_t *)req->data;
	const struct sm_snapshot *pub = sm_published(sm);
	ib_net64_t need = IB_MPR_COMPMASK_SGIDCOUNT | IB_MPR_COMPMASK_DGIDCOUNT;
	if (!(req->rmpp_flags & IB_RMPP_FLAG_ACTIVE)) {	/* GetMulti is an RMPP request by definition */
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	unsigned ns = q->sgid_count, nd = q->dgid_count;
	if ((req->comp_mask & need) != need || !ns || !nd) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_INSUF_COMPS, NULL, 0, 0);
		return;
	}
	if (offsetof(ib_multipath_rec_t, gids) + (ns + nd) * sizeof(ib_gid_t) > data_len) {	/* GIDs it does not carry */
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	/* the GIDs run on past the record's 11 into the further segments' data */
	const ib_gid_t *gids = (const ib_gid_t *)(req->data + offsetof(ib_multipath_rec_t, gids));
	int lid[2 * UINT8_MAX];
	for (unsigned i = 0; i < ns + nd; i++)
		if ((lid[i] = gid_lid(sm, &gids[i])) <= 0) {
			sa_respond(sm, req, from, IB_SA_MAD_STATUS_INVALID_GID, NULL, 0, 0);
			return;
		}
	unsigned max = req->comp_mask & IB_MPR_COMPMASK_NUMBPATH ? q->num_path & 0x7f : 127u;
	uint16_t pkey = req->comp_mask & IB_MPR_COMPMASK_PKEY ? cl_ntoh16(q->pkey) : 0;
	struct path_want want;
	sa_path_want_of_mpr(q, req->comp_mask, &want);
	struct sa_answer a;
	sa_answer_init(&a, sizeof(ib_path_rec_t));
	for (unsigned s = 0; s < ns; s++)
		for (unsigned d = ns; d < ns + nd && a.n < max; d++) {
			ib_path_rec_t rec;
			if (sa_path_record(&pub->fabric, &pub->tables, &pub->parts, sm->cfg.subnet_prefix,
					   (uint8_t)sm->cfg.subnet_timeout, (uint16_t)lid[s], (uint16_t)lid[d], pkey, &rec) ||
			    !sa_path_fit(&want, &rec))
				continue;
			ib_path_rec_t *r = sa_answer_add(&a);
			if (r)
				*r = rec;
		}
	log_debug("sa: MultiPathRecord from LID %u: %u sources, %u destinations, %zu paths", from->slid, ns, nd, a.n);
	ib_sa_mad_t hdr = *req;
	hdr.attr_id = IB_MAD_ATTR_PATH_RECORD;	/* IBA o15-0.2.7: the answer is PathRecords */
	sa_answer_send(sm, &hdr, from, &a);
}

/*
 * ClassPortInfo: versions, response time and what this SA supports. No
 * redirection: RedirectQP 1 and the well-known Q_Key mean "ask me at QP1",
 * as OpenSM answers (clients that follow a redirection read them).
 * Claimed: multicast; PortInfoRecord's bitwise CapabilityMask(2) matching;
 * send-only full members; the extended, 2x and HDR rates PathRecords carry.
 * Not claimed: traps and Get/Set(Notice) at the SA, every optional record
 * (no RandomForwardingTableRecord, ServiceAssociationRecord), TraceRecord
 * (so not MultiPath either), alias GUIDs, QoS classes, MulticastFDBTop.
 */
static void answer_class_port_info(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	ib_class_port_info_t cpi;
	memset(&cpi, 0, sizeof(cpi));
	cpi.base_ver = 1;
	cpi.class_ver = 2;
	/* answered within one MAD transaction: the least 4.096 us x 2^n, n 8..19, that covers mad.timeout_ms (OpenSM's rule) */
	uint8_t rtv = 8;
	while (rtv < 19 && (4096ull << rtv) < sm->cfg.mad_timeout_ms * 1000000ull)
		rtv++;
	ib_class_set_resp_time_val(&cpi, rtv);
	cpi.cap_mask = cl_hton16(SA_CAP_UD_MCAST | SA_CAP_PORT_INFO_CAPMASK_MATCH);
	ib_class_set_cap_mask2(&cpi, SA_CAP2_EXTENDED_SPEEDS | SA_CAP2_PORT_INFO_CAPMASK2_MATCH |
					     SA_CAP2_SEND_ONLY_FULL_MEMBER | SA_CAP2_LINK_WIDTH_2X | SA_CAP2_LINK_SPEED_HDR);
	cpi.redir_qp = cl_hton32(1);
	cpi.redir_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	cpi.trap_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	sa_respond(sm, req, from, 0, &cpi, sizeof(cpi), 1);
}

/* A request, whole: data_len bytes of data after the SA header (more than one MAD holds when it came by RMPP). */
static void answer_request(struct sm *sm, const ib_sa_mad_t *req, size_t data_len, const struct mad_origin *from)
{
	bool query = req->method == IB_MAD_METHOD_GET || req->method == IB_MAD_METHOD_GETTABLE;
	bool query_or_change = query || req->method == IB_MAD_METHOD_SET || req->method == IB_MAD_METHOD_DELETE;
	/* P_Key tables tell who shares a partition with whom: trusted requesters only, as OpenSM answers */
	if (query && req->attr_id == IB_MAD_ATTR_PKEY_TBL_RECORD && !sa_trusted(sm, req)) {
		if (sa_may_log(sm, from))
			log_info("sa: P_KeyTableRecord query from LID %u without the SM_Key: refused", from->slid);
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	if (req->method == IB_MAD_METHOD_GET && req->attr_id == IB_MAD_ATTR_CLASS_PORT_INFO) {
		answer_class_port_info(sm, req, from);
		return;
	}
	if (req->attr_id == IB_MAD_ATTR_MCMEMBER_RECORD && query_or_change) {
		mcast_request(sm, req, from);
		return;
	}
	if (req->attr_id == IB_MAD_ATTR_INFORM_INFO) {
		sa_inform_request(sm, req, from);
		return;
	}
	if (req->attr_id == IB_MAD_ATTR_SERVICE_RECORD && query_or_change) {
		sa_service_request(sm, req, from);
		return;
	}
	if (query && req->attr_id == IB_MAD_ATTR_PATH_RECORD) {
		answer_path(sm, req, from);
		return;
	}
	if (req->method == IB_MAD_METHOD_GETMULTI && req->attr_id == IB_MAD_ATTR_MULTIPATH_RECORD) {
		answer_multipath(sm, req, data_len, from);
		return;
	}
	struct sa_answer a;
	if (query && sa_records(sm, req, &a) == 0) {
		sa_answer_send(sm, req, from, &a);
		return;
	}
	log_debug("sa: unsupported query (method 0x%02x attribute 0x%04x) from LID %u", req->method,
		  cl_ntoh16(req->attr_id), from->slid);
	sa_respond(sm, req, from, IB_MAD_STATUS_UNSUP_METHOD_ATTR, NULL, 0, 0);
}

void sa_handle(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	if (rmpp_is_control(req)) {	/* a receiver pacing one of our RMPP answers */
		rmpp_receive(sm->rmpp, req, from);
		return;
	}
	/* C15-0.1.5: an SM_Key that is neither 0 nor ours discards the MAD, unanswered */
	if (req->sm_key && cl_ntoh64(req->sm_key) != sm->cfg.sm_key) {
		if (sa_may_log(sm, from))
			log_info("sa: request (method 0x%02x attribute 0x%04x) from LID %u with a wrong SM_Key: dropped",
				 req->method, cl_ntoh16(req->attr_id), from->slid);
		return;
	}
	if (sm->state != SM_MASTER || !sm_published(sm)) {
		sa_respond(sm, req, from, IB_MAD_STATUS_BUSY, NULL, 0, 0);
		return;
	}
	if (!(req->rmpp_flags & IB_RMPP_FLAG_ACTIVE) || (req->method & IB_MAD_METHOD_RESP_MASK)) {
		answer_request(sm, req, IB_SA_DATA_SIZE, from);
		return;
	}
	/*
	 * A request sent as RMPP (GetMulti always; any other when the host's
	 * kernel sends it so): its segments acknowledged as the sender waits
	 * for, answered once it is whole.
	 */
	size_t len;
	ib_sa_mad_t *whole = rmpp_receive_request(sm->rmpp_in, req, from, &len);
	if (whole)
		answer_request(sm, whole, len, from);
	free(whole);
}
