/*
 * The SA (sm/sa/) over a fake MAD port: mad_send_gsi is replaced at link
 * time (-Wl,--wrap) by one that keeps the answer, and the test calls the
 * dispatcher with the requests a host would send, on a master of a routed
 * 2-level radix-8 fat tree. Component masks select; statuses say why.
 *
 * - NodeRecord by LID: one record, the node with that LID; an unknown LID:
 *   NO_RECORDS.
 * - PathRecord by LIDs: the SL the routing gave the destination; to the
 *   port itself a loopback path; LID 0 or an unknown one: no record.
 * - ServiceRecord: registered for the requester's own GID only, deleted by
 *   its owner only; the lease is cut to sa.max_lease_s; the store, keys
 *   and all, read back from the database after a restart; a change made
 *   while a sweep's store holds the database is stored once it is done.
 * - MCMemberRecord: creating needs its components; MGID 0 gets an SA
 *   assigned MGID; an unrealizable rate, a non-multicast MGID, a leave of
 *   states not held: REQ_INVALID; a leave answers what is still held.
 *   A send-only full member creates a group as a full member does.
 * - PortInfoRecord: each component asked for matches (CapabilityMask
 *   exactly, or bitwise when AttributeModifier bit 31 says so);
 *   ClassPortInfo claims that, multicast and send-only full members.
 * - MultiPathRecord of two RMPP segments: each acknowledged, answered
 *   once whole; GID counts beyond the data carried: REQ_INVALID.
 * - Unknown attribute: UNSUP_METHOD_ATTR; a standby's SA: BUSY.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "master.h"

static ib_sa_mad_t answer;
static unsigned answers;

int __wrap_mad_send_gsi(struct mad_port *mp, const ib_sa_mad_t *mad, const struct mad_origin *to)
{
	answer = *mad;
	answers++;
	return 0;
}

uint64_t __wrap_mad_port_guid(const struct mad_port *mp)
{
	return 0x100000;
}

static struct sm sm;
static char db_path[64];

/* A master of the fat tree spec gives, with its database. */
static int setup_on(struct fattree_spec spec)
{
	char err[DB_ERR_LEN];
	assert_int_equal(test_master_init_on(&sm, spec), 0);
	snprintf(db_path, sizeof(db_path), "/tmp/fabricd-test-sa.%d.db", (int)getpid());
	unlink(db_path);
	assert_non_null(sm.db = db_open(db_path, DB_READ_WRITE, err));	/* where ServiceRecords are kept */
	sm.cfg.sa_max_lease_s = 60;
	budget_init(&sm.sa.log_budget, 10);
	return 0;
}

static int setup(void **state)
{
	return setup_on((struct fattree_spec){ .levels = 2, .radix = 8 });
}

static int teardown(void **state)
{
	budget_free(&sm.sa.log_budget);
	mcast_free(&sm.mcast);
	sa_services_free(&sm.sa.services);
	rmpp_free(sm.rmpp);
	rmpp_receiver_free(sm.rmpp_in);
	sm_snapshot_free(sm.pub);
	routing_memo_free(&sm.route_memo);
	evl_free(sm.loop);
	db_close(sm.db);
	unlink(db_path);
	return 0;
}

static ib_sa_mad_t request(uint8_t method, ib_net16_t attr, ib_net64_t comp_mask)
{
	ib_sa_mad_t m;
	memset(&m, 0, sizeof(m));
	m.base_ver = 1;
	m.mgmt_class = IB_MCLASS_SUBN_ADM;
	m.class_ver = 2;
	m.method = method;
	m.attr_id = attr;
	m.comp_mask = comp_mask;
	m.trans_id = cl_hton64(0x77);
	return m;
}

/* Sends req from the port with LID slid; the answer's status (network order). */
static ib_net16_t ask(const ib_sa_mad_t *req, uint16_t slid)
{
	struct mad_origin from = { .slid = slid, .qpn = 1 };
	answers = 0;
	sa_handle(&sm, req, &from);
	assert_int_equal(answers, 1);
	assert_true(answer.trans_id == req->trans_id);
	return answer.status;
}

/* The node with LID lid in the test fabric. */
static const struct node *by_lid(uint16_t lid)
{
	uint8_t port;
	const struct node *n = fabric_find_lid(&sm.pub->fabric, lid, &port);
	assert_non_null(n);
	return n;
}

/* The LIDs of the first two CA ports of the test fabric, in LID order. */
static void two_cas(uint16_t *first, uint16_t *second)
{
	*first = *second = 0;
	for (uint16_t lid = 1; lid <= sm.pub->tables.max_lid && !*second; lid++)
		if (by_lid(lid)->type == NODE_CA)
			*first ? (void)(*second = lid) : (void)(*first = lid);
}

static void node_record_by_lid(void **state)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, IB_NR_COMPMASK_LID);
	((ib_node_record_t *)q.data)->lid = cl_hton16(20);
	assert_true(ask(&q, 3) == 0);
	const ib_node_record_t *r = (const ib_node_record_t *)answer.data;
	assert_int_equal(cl_ntoh16(r->lid), 20);
	assert_true(cl_ntoh64(r->node_info.node_guid) == by_lid(20)->guid);
	((ib_node_record_t *)q.data)->lid = cl_hton16(999);
	assert_true(ask(&q, 3) == IB_SA_MAD_STATUS_NO_RECORDS);
}

/* A PathRecord Get by LIDs between the first two CAs, their LIDs in *src and *dst. */
static ib_sa_mad_t path_between_two_cas(uint16_t *src, uint16_t *dst)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_SLID);
	ib_path_rec_t *pr = (ib_path_rec_t *)q.data;
	two_cas(src, dst);
	pr->slid = cl_hton16(*src);
	pr->dlid = cl_hton16(*dst);
	return q;
}

static void path_record_by_lids(void **state)
{
	uint16_t src, dst;
	ib_sa_mad_t q = path_between_two_cas(&src, &dst);
	ib_path_rec_t *pr = (ib_path_rec_t *)q.data;
	assert_true(ask(&q, src) == 0);
	const ib_path_rec_t *r = (const ib_path_rec_t *)answer.data;
	assert_int_equal(cl_ntoh16(r->dlid), dst);
	assert_int_equal(ib_path_rec_sl(r), sm.pub->tables.sl[dst]);
	assert_int_equal(ib_path_rec_pkt_life(r), sm.cfg.subnet_timeout);
	assert_int_equal(r->num_path, 0x80);	/* reversible; NumbPath reserved */
	pr->dlid = cl_hton16(src);	/* loopback: PacketLifeTime 0 (IBA table 205) */
	assert_true(ask(&q, src) == 0);
	assert_int_equal(cl_ntoh16(r->dlid), src);
	assert_int_equal(ib_path_rec_pkt_life(r), 0);
	pr->dlid = cl_hton16(999);
	assert_true(ask(&q, src) != 0);
	pr->dlid = 0;
	assert_true(ask(&q, src) != 0);
}

/* The request's selectors reach the answer: a bound the path cannot meet or another SL gives no record. */
static void path_record_selectors(void **state)
{
	uint16_t src, dst;
	ib_sa_mad_t q = path_between_two_cas(&src, &dst);
	ib_path_rec_t *pr = (ib_path_rec_t *)q.data;
	assert_true(ask(&q, src) == 0);
	uint8_t mtu = ((const ib_path_rec_t *)answer.data)->mtu & 0x3f;
	q.comp_mask |= IB_PR_COMPMASK_MTU | IB_PR_COMPMASK_MTUSELEC | IB_PR_COMPMASK_TCLASS;
	pr->mtu = 2 << 6 | mtu;	/* exactly what the path has */
	pr->tclass = 0x28;
	assert_true(ask(&q, src) == 0);
	assert_int_equal(((const ib_path_rec_t *)answer.data)->tclass, 0x28);
	pr->mtu = 0 << 6 | mtu;	/* more than the path has */
	assert_true(ask(&q, src) == IB_SA_MAD_STATUS_NO_RECORDS);
	q.comp_mask = IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_SL;
	pr->qos_class_sl = cl_hton16((sm.pub->tables.sl[dst] + 1) & 0xf);
	assert_true(ask(&q, src) == IB_SA_MAD_STATUS_NO_RECORDS);
	pr->qos_class_sl = cl_hton16(sm.pub->tables.sl[dst]);
	assert_true(ask(&q, src) == 0);
}

/* A PathRecord to the IPoIB broadcast group: its MLID and parameters; an unknown group or P_Key: none. */
static void path_record_to_a_multicast_group(void **state)
{
	static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	ib_sa_mad_t q = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DGID);
	ib_path_rec_t *pr = (ib_path_rec_t *)q.data;
	uint16_t src, other;
	two_cas(&src, &other);
	pr->slid = cl_hton16(src);
	memcpy(pr->dgid.raw, bcast, sizeof(bcast));
	assert_true(ask(&q, src) == 0);
	const ib_path_rec_t *r = (const ib_path_rec_t *)answer.data;
	assert_int_equal(cl_ntoh16(r->dlid), 0xc000);
	assert_int_equal(cl_ntoh16(r->slid), src);
	assert_int_equal(cl_ntoh16(r->pkey), 0xffff);
	assert_int_equal(r->mtu & 0x3f, IB_MTU_LEN_2048);
	assert_int_equal(r->num_path & 0x80, 0);	/* multicast is not reversible */
	assert_memory_equal(r->dgid.raw, bcast, sizeof(bcast));
	q.comp_mask |= IB_PR_COMPMASK_PKEY;
	pr->pkey = cl_hton16(0x8001);
	assert_true(ask(&q, src) == IB_SA_MAD_STATUS_NO_RECORDS);
	q.comp_mask &= ~IB_PR_COMPMASK_PKEY;
	pr->dgid.raw[15] = 0xfe;	/* no such group */
	assert_true(ask(&q, src) == IB_SA_MAD_STATUS_NO_RECORDS);
	q.comp_mask = IB_PR_COMPMASK_DGID;	/* a Get from nobody in particular */
	assert_true(ask(&q, src) == IB_SA_MAD_STATUS_REQ_INVALID);
}

static ib_sa_mad_t service(uint8_t method, uint64_t id, uint64_t gid_guid, uint32_t lease)
{
	ib_sa_mad_t q = request(method, IB_MAD_ATTR_SERVICE_RECORD, IB_SR_COMPMASK_SID);
	ib_service_record_t *sr = (ib_service_record_t *)q.data;
	sr->service_id = cl_hton64(id);
	sr->service_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	sr->service_gid.unicast.interface_id = cl_hton64(gid_guid);
	sr->service_pkey = cl_hton16(0xffff);
	sr->service_lease = cl_hton32(lease);
	return q;
}

static void service_records_belong_to_their_port(void **state)
{
	uint16_t host, other;
	two_cas(&host, &other);
	uint64_t guid = by_lid(host)->ports[1].guid, other_guid = by_lid(other)->ports[1].guid;
	ib_sa_mad_t set = service(IB_MAD_METHOD_SET, 0x1000, guid, 0xffffffff);
	assert_true(ask(&set, host) == 0);
	assert_int_equal(cl_ntoh32(((const ib_service_record_t *)answer.data)->service_lease), 60);	/* cut */
	ib_sa_mad_t squat = service(IB_MAD_METHOD_SET, 0x1001, other_guid, 60);
	assert_true(ask(&squat, host) == IB_SA_MAD_STATUS_REQ_INVALID);	/* not its GID */
	ib_sa_mad_t del = service(IB_MAD_METHOD_DELETE, 0x1000, 0, 0);
	assert_true(ask(&del, other) == IB_SA_MAD_STATUS_NO_RECORDS);	/* not its service */
	ib_sa_mad_t get = service(IB_MAD_METHOD_GET, 0x1000, 0, 0);
	assert_true(ask(&get, other) == 0);	/* still there, and anyone may look */
	assert_true(ask(&del, host) == 0);
	assert_true(ask(&get, other) == IB_SA_MAD_STATUS_NO_RECORDS);
}

/* A restart (the store freed, then read back from the database) keeps the services and their keys; a Delete is stored too. */
static void service_records_outlive_a_restart(void **state)
{
	uint16_t host, other;
	two_cas(&host, &other);
	uint64_t guid = by_lid(host)->ports[1].guid;
	ib_sa_mad_t set = service(IB_MAD_METHOD_SET, 0x3000, guid, 30);
	memset(((ib_service_record_t *)set.data)->service_key, 0x77, 16);
	assert_true(ask(&set, host) == 0);
	ib_sa_mad_t set2 = service(IB_MAD_METHOD_SET, 0x3001, guid, 30);
	assert_true(ask(&set2, host) == 0);
	sa_services_free(&sm.sa.services);
	ib_sa_mad_t get = service(IB_MAD_METHOD_GET, 0x3000, 0, 0);
	assert_true(ask(&get, other) == IB_SA_MAD_STATUS_NO_RECORDS);	/* gone from memory */
	sa_services_load(&sm);
	assert_int_equal(sm.sa.services.n, 2);
	assert_int_equal(sm.sa.services.e[0].owner, guid);
	assert_true(ask(&get, other) == 0);
	assert_int_equal(cl_ntoh32(((const ib_service_record_t *)answer.data)->service_lease), 30);
	ib_sa_mad_t del = service(IB_MAD_METHOD_DELETE, 0x3000, 0, 0);
	del.comp_mask |= IB_SR_COMPMASK_SKEY;
	memset(((ib_service_record_t *)del.data)->service_key, 0x77, 16);
	assert_true(ask(&del, host) == 0);	/* the key came back from the database */
	sa_services_free(&sm.sa.services);
	sa_services_load(&sm);
	assert_int_equal(sm.sa.services.n, 1);
	assert_true(ask(&get, other) == IB_SA_MAD_STATUS_NO_RECORDS);
}

/*
 * A Set while a sweep's store holds the database (sm->db_busy) is
 * answered from memory, not written then; once the sweep lets the
 * database go, the pending change is stored and outlives a restart.
 */
static void service_records_wait_for_a_sweeps_store(void **state)
{
	uint16_t host, other;
	two_cas(&host, &other);
	uint64_t guid = by_lid(host)->ports[1].guid;
	sm.db_busy = true;
	ib_sa_mad_t set = service(IB_MAD_METHOD_SET, 0x4000, guid, 30);
	assert_true(ask(&set, host) == 0);
	assert_true(sm.sa.services.unsaved);
	struct db_service *stored;
	size_t n;
	assert_int_equal(db_load_services(sm.db, &stored, &n), 0);
	assert_int_equal(n, 0);
	free(stored);
	sm.db_busy = false;
	sa_services_store_pending(&sm);
	assert_false(sm.sa.services.unsaved);
	sa_services_free(&sm.sa.services);
	sa_services_load(&sm);
	assert_int_equal(sm.sa.services.n, 1);
}

/* The ServiceKey is never answered back; a Delete whose mask selects it must carry the right one. */
static void service_key_is_kept_secret(void **state)
{
	uint16_t host = 0;
	for (uint16_t lid = 1; lid <= sm.pub->tables.max_lid && !host; lid++)
		if (by_lid(lid)->type == NODE_CA)
			host = lid;
	uint64_t guid = by_lid(host)->ports[1].guid;
	static const uint8_t zero[16];
	ib_sa_mad_t set = service(IB_MAD_METHOD_SET, 0x2000, guid, 60);
	memset(((ib_service_record_t *)set.data)->service_key, 0x5a, 16);
	assert_true(ask(&set, host) == 0);
	assert_memory_equal(((const ib_service_record_t *)answer.data)->service_key, zero, 16);
	ib_sa_mad_t get = service(IB_MAD_METHOD_GET, 0x2000, 0, 0);
	assert_true(ask(&get, host) == 0);
	assert_memory_equal(((const ib_service_record_t *)answer.data)->service_key, zero, 16);
	ib_sa_mad_t del = service(IB_MAD_METHOD_DELETE, 0x2000, 0, 0);
	del.comp_mask |= IB_SR_COMPMASK_SKEY;
	memset(((ib_service_record_t *)del.data)->service_key, 0x11, 16);
	assert_true(ask(&del, host) == IB_SA_MAD_STATUS_NO_RECORDS);	/* the wrong key */
	memset(((ib_service_record_t *)del.data)->service_key, 0x5a, 16);
	assert_true(ask(&del, host) == 0);
	assert_memory_equal(((const ib_service_record_t *)answer.data)->service_key, zero, 16);
}

/* A join that would create a group must give Q_Key, P_Key, SL, FlowLabel and TClass (IBA o15-0.2.4). */
static void creating_a_group_needs_its_components(void **state)
{
	uint16_t host = 0;
	for (uint16_t lid = 1; lid <= sm.pub->tables.max_lid && !host; lid++)
		if (by_lid(lid)->type == NODE_CA)
			host = lid;
	ib_net64_t base = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE;
	ib_sa_mad_t q = request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD,
				base | IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY);
	ib_member_rec_t *mr = (ib_member_rec_t *)q.data;
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42 };
	memcpy(mr->mgid.raw, mgid, sizeof(mgid));
	mr->port_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	mr->port_gid.unicast.interface_id = cl_hton64(by_lid(host)->ports[1].guid);
	mr->scope_state = 1;
	mr->qkey = cl_hton32(0x1b);
	mr->pkey = cl_hton16(0xffff);
	assert_true(ask(&q, host) == IB_SA_MAD_STATUS_INSUF_COMPS);	/* no SL, FlowLabel, TClass */
	q.comp_mask |= IB_MCR_COMPMASK_SL | IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_TCLASS;
	assert_true(ask(&q, host) == 0);
	q.comp_mask = base;	/* the group exists now: a plain join is enough */
	assert_true(ask(&q, host) == 0);
}

/*
 * An MCMemberRecord Set that may create a group, from the port with GUID
 * guid: every component a creating join gives (IBA o15-0.2.4), Q_Key
 * qkey, P_Key 0xffff, the port GID on fe80::/64; MGID and JoinState the
 * caller's.
 */
static ib_sa_mad_t creating_join(uint64_t guid, uint32_t qkey)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD,
				IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE |
					IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_SL |
					IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_TCLASS);
	ib_member_rec_t *mr = (ib_member_rec_t *)q.data;
	mr->port_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	mr->port_gid.unicast.interface_id = cl_hton64(guid);
	mr->qkey = cl_hton32(qkey);
	mr->pkey = cl_hton16(0xffff);
	return q;
}

/*
 * IBA o15-0.1.x: MGID 0 gets an SA-assigned MGID; a rate no port has is
 * REQ_INVALID; a leave clears only states the member holds and answers
 * what it still holds.
 */
static void group_rules_as_osmtest_checks_them(void **state)
{
	uint16_t host, other;
	two_cas(&host, &other);
	ib_sa_mad_t q = creating_join(by_lid(host)->ports[1].guid, 0x1b);
	((ib_member_rec_t *)q.data)->scope_state = IB_MC_REC_STATE_FULL_MEMBER | IB_MC_REC_STATE_NON_MEMBER;
	ib_sa_mad_t fast = q;
	fast.comp_mask |= IB_MCR_COMPMASK_RATE_SEL | IB_MCR_COMPMASK_RATE;
	((ib_member_rec_t *)fast.data)->rate = IB_PATH_RECORD_RATE_300_GBS | IB_PATH_SELECTOR_GREATER_THAN << 6;
	assert_true(ask(&fast, host) == IB_SA_MAD_STATUS_REQ_INVALID);
	assert_true(ask(&q, host) == 0);
	const ib_member_rec_t *got = (const ib_member_rec_t *)answer.data;
	assert_int_equal(got->mgid.raw[0], 0xff);
	assert_int_equal(got->mgid.raw[1], 0x12);	/* link-local by default */
	assert_int_equal(got->mgid.raw[2], 0xa0);
	assert_int_equal(got->mgid.raw[3], 0x1b);	/* the SA's signature */
	ib_gid_t first = got->mgid;
	assert_true(ask(&q, host) == 0);
	assert_memory_not_equal(((const ib_member_rec_t *)answer.data)->mgid.raw, first.raw, 16);	/* a new one */
	ib_sa_mad_t leave = q;
	leave.method = IB_MAD_METHOD_DELETE;
	((ib_member_rec_t *)leave.data)->mgid = first;
	((ib_member_rec_t *)leave.data)->scope_state = IB_MC_REC_STATE_NON_MEMBER | IB_MC_REC_STATE_SEND_ONLY_NON_MEMBER;
	assert_true(ask(&leave, host) == IB_SA_MAD_STATUS_REQ_INVALID);	/* it is no send-only member */
	((ib_member_rec_t *)leave.data)->scope_state = IB_MC_REC_STATE_NON_MEMBER;
	assert_true(ask(&leave, host) == 0);
	assert_int_equal(((const ib_member_rec_t *)answer.data)->scope_state & 0x0f, IB_MC_REC_STATE_FULL_MEMBER);
	ib_sa_mad_t bad = q;
	((ib_member_rec_t *)bad.data)->mgid.raw[0] = 0xfa;	/* not multicast */
	assert_true(ask(&bad, host) == IB_SA_MAD_STATUS_REQ_INVALID);
}

/* IPoIB's send-only joins (IBA 1.3): a send-only full member creates; a non-member cannot. */
static void a_send_only_full_member_creates_a_group(void **state)
{
	uint16_t host, other;
	two_cas(&host, &other);
	ib_sa_mad_t q = creating_join(by_lid(host)->ports[1].guid, 0x1b);
	ib_member_rec_t *mr = (ib_member_rec_t *)q.data;
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x43 };
	memcpy(mr->mgid.raw, mgid, sizeof(mgid));
	mr->scope_state = IB_MC_REC_STATE_NON_MEMBER;
	assert_true(ask(&q, host) == IB_SA_MAD_STATUS_REQ_INVALID);
	mr->scope_state = IB_MC_REC_STATE_SEND_ONLY_FULL_MEMBER;
	assert_true(ask(&q, host) == 0);
	assert_int_equal(((const ib_member_rec_t *)answer.data)->scope_state & 0x0f,
			 IB_MC_REC_STATE_SEND_ONLY_FULL_MEMBER);
}

/*
 * Every host of a 2-level radix-24 tree (288) joins the IPoIB broadcast
 * group and each is answered as a member; the group holds them all, and
 * a leave of one takes it out. Until 2026-12-08 a group held 256 members
 * and the 257th host's IPoIB join was refused (NO_RESOURCES).
 */
static int setup_288_hosts(void **state)
{
	return setup_on((struct fattree_spec){ .levels = 2, .radix = 24 });
}

static void every_host_of_a_big_fabric_joins_the_broadcast_group(void **state)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD,
				IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE);
	ib_member_rec_t *mr = (ib_member_rec_t *)q.data;
	mr->mgid = sm.mcast.g[0].rec.mgid;
	mr->port_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	mr->scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	unsigned hosts = 0;
	uint16_t first = 0;
	for (uint16_t lid = 1; lid <= sm.pub->tables.max_lid; lid++) {
		const struct node *n = by_lid(lid);
		if (!n || n->type != NODE_CA)
			continue;
		mr->port_gid.unicast.interface_id = cl_hton64(n->ports[1].guid);
		assert_int_equal(ask(&q, lid), 0);
		assert_int_equal(((const ib_member_rec_t *)answer.data)->scope_state & 0x0f, IB_MC_REC_STATE_FULL_MEMBER);
		first = first ? first : lid;
		hosts++;
	}
	assert_int_equal(hosts, 288);
	assert_int_equal(sm.mcast.g[0].nm, 288);
	q.method = IB_MAD_METHOD_DELETE;
	mr->port_gid.unicast.interface_id = cl_hton64(by_lid(first)->ports[1].guid);
	assert_int_equal(ask(&q, first), 0);
	assert_int_equal(sm.mcast.g[0].nm, 287);
}

/*
 * Every host of the same tree creates its IPv6 solicited-node group
 * (ff12:601b:ffff::1:ffXX:XXXX, as IPoIB does for each address): 288
 * groups, all on one MLID other than the broadcast group's, so the MFTs
 * carry two trees; a host that leaves takes its group away, the MLID
 * stays the others'. Until 2026-12-08 the SA held 64 groups and refused
 * the 64th host's group.
 */
static void ipv6_solicited_node_groups_share_one_mlid(void **state)
{
	ib_sa_mad_t q = creating_join(0, 0x0b1b);	/* each host's port GID below */
	ib_member_rec_t *mr = (ib_member_rec_t *)q.data;
	static const uint8_t snm[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0x01, 0xff, 0, 0, 0 };
	mr->scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	unsigned hosts = 0;
	uint16_t mlid = 0, first = 0;
	for (uint16_t lid = 1; lid <= sm.pub->tables.max_lid; lid++) {
		const struct node *n = by_lid(lid);
		if (n->type != NODE_CA)
			continue;
		memcpy(mr->mgid.raw, snm, sizeof(snm));
		mr->mgid.raw[14] = (uint8_t)(lid >> 8);
		mr->mgid.raw[15] = (uint8_t)lid;
		mr->port_gid.unicast.interface_id = cl_hton64(n->ports[1].guid);
		assert_int_equal(ask(&q, lid), 0);
		uint16_t got = cl_ntoh16(((const ib_member_rec_t *)answer.data)->mlid);
		assert_true(got != MC_FIRST_MLID);
		assert_true(!mlid || got == mlid);
		mlid = got;
		first = first ? first : lid;
		hosts++;
	}
	assert_int_equal(hosts, 288);
	assert_int_equal(sm.mcast.n, 289);
	struct mc_trees t;
	assert_int_equal(mcast_trees(&sm.mcast, &sm.pub->fabric, &t), 0);
	assert_int_equal(t.n, 2);	/* the broadcast group's MLID, and the solicited-node groups' */
	assert_int_equal(t.mlid[1], mlid);
	mc_trees_free(&t);
	q.method = IB_MAD_METHOD_DELETE;
	mr->mgid.raw[14] = (uint8_t)(first >> 8);
	mr->mgid.raw[15] = (uint8_t)first;
	mr->port_gid.unicast.interface_id = cl_hton64(by_lid(first)->ports[1].guid);
	assert_int_equal(ask(&q, first), 0);
	assert_int_equal(sm.mcast.n, 288);
	for (unsigned i = 1; i < sm.mcast.n; i++)
		assert_int_equal(cl_ntoh16(sm.mcast.g[i].rec.mlid), mlid);
}

/* A PortInfoRecord Get of (lid, port 1) with the extra components in mask. */
static ib_sa_mad_t port_info_query(uint16_t lid, ib_net64_t mask)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORTINFO_RECORD,
				IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM | mask);
	ib_portinfo_record_t *r = (ib_portinfo_record_t *)q.data;
	r->lid = cl_hton16(lid);
	r->port_num = 1;
	return q;
}

static void port_info_record_matches_each_component(void **state)
{
	uint16_t host, other;
	two_cas(&host, &other);
	ib_port_info_t pi;
	memset(&pi, 0, sizeof(pi));
	pi.base_lid = cl_hton16(host);
	pi.capability_mask = IB_PORT_CAP_IS_SM | IB_PORT_CAP_HAS_TRAP;
	pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
	pi.state_info1 = 1 << 4 | IB_LINK_ACTIVE;	/* LinkSpeedSupported 2.5, PortState Active */
	pi.m_key = cl_hton64(0x1234);
	sm_node_set_port_info((struct node *)by_lid(host), 1, &pi);

	ib_sa_mad_t q = port_info_query(host, IB_PIR_COMPMASK_CAPMASK);
	((ib_portinfo_record_t *)q.data)->port_info.capability_mask = IB_PORT_CAP_IS_SM;
	assert_true(ask(&q, host) == IB_SA_MAD_STATUS_NO_RECORDS);	/* exactly: HasTrap is set too */
	q.attr_mod = cl_hton32(1u << 31);	/* bitwise, as saquery -s asks */
	assert_true(ask(&q, host) == 0);
	const ib_portinfo_record_t *got = (const ib_portinfo_record_t *)answer.data;
	assert_true(got->port_info.capability_mask == (IB_PORT_CAP_IS_SM | IB_PORT_CAP_HAS_TRAP));
	assert_true(got->port_info.m_key == 0);	/* never answered */

	q = port_info_query(host, IB_PIR_COMPMASK_LNKWIDTHACTIVE | IB_PIR_COMPMASK_PORTSTATE);
	ib_portinfo_record_t *w = (ib_portinfo_record_t *)q.data;
	w->port_info.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
	w->port_info.state_info1 = IB_LINK_ACTIVE;	/* the other nibble is not asked for */
	assert_true(ask(&q, host) == 0);
	w->port_info.state_info1 = IB_LINK_INIT;
	assert_true(ask(&q, host) == IB_SA_MAD_STATUS_NO_RECORDS);
	q = port_info_query(host, IB_PIR_COMPMASK_MKEY);
	((ib_portinfo_record_t *)q.data)->port_info.m_key = cl_hton64(0x1234);
	assert_true(ask(&q, host) == IB_SA_MAD_STATUS_NO_RECORDS);	/* no probing for M_Keys */
}

static void class_port_info_claims_what_the_sa_does(void **state)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_CLASS_PORT_INFO, 0);
	assert_true(ask(&q, 3) == 0);
	const ib_class_port_info_t *cpi = (const ib_class_port_info_t *)answer.data;
	uint16_t caps = cl_ntoh16(cpi->cap_mask);
	assert_true(caps & (1u << 9));	/* IsUDMulticastSupported */
	assert_true(caps & (1u << 13));	/* IsPortInfoCapMaskMatchSupported */
	assert_false(caps & (1u << 10));	/* no TraceRecord, so not MultiPath */
	assert_true(ib_class_cap_mask2(cpi) & (1u << 12));	/* send-only full members */
	assert_int_equal(cl_ntoh32(cpi->redir_qp) & 0xffffff, 1);
	assert_true(cpi->trap_qkey == IB_QP1_WELL_KNOWN_Q_KEY);
}

/* A GetMulti of a MultiPathRecord from n sources to n destinations (CA ports), as the segments of an RMPP request. */
static unsigned multipath_segments(unsigned n, ib_sa_mad_t seg[2])
{
	uint8_t data[2 * IB_SA_DATA_SIZE] = { 0 };
	ib_multipath_rec_t *q = (ib_multipath_rec_t *)data;
	ib_gid_t *gids = (ib_gid_t *)(data + offsetof(ib_multipath_rec_t, gids));
	q->sgid_count = q->dgid_count = (uint8_t)n;
	unsigned found = 0;
	for (uint16_t lid = 1; lid <= sm.pub->tables.max_lid && found < 2 * n; lid++)
		if (by_lid(lid)->type == NODE_CA) {
			gids[found].unicast.prefix = cl_hton64(0xfe80000000000000ULL);
			gids[found++].unicast.interface_id = cl_hton64(by_lid(lid)->ports[1].guid);
		}
	assert_int_equal(found, 2 * n);
	size_t len = offsetof(ib_multipath_rec_t, gids) + 2 * n * sizeof(ib_gid_t);
	unsigned nseg = (unsigned)((len + IB_SA_DATA_SIZE - 1) / IB_SA_DATA_SIZE);
	for (unsigned k = 0; k < nseg; k++) {
		seg[k] = request(IB_MAD_METHOD_GETMULTI, IB_MAD_ATTR_MULTIPATH_RECORD,
				 IB_MPR_COMPMASK_SGIDCOUNT | IB_MPR_COMPMASK_DGIDCOUNT);
		seg[k].rmpp_version = 1;
		seg[k].rmpp_type = IB_RMPP_TYPE_DATA;
		seg[k].rmpp_flags = IB_RMPP_FLAG_ACTIVE | (k == 0 ? IB_RMPP_FLAG_FIRST : 0) |
				    (k == nseg - 1 ? IB_RMPP_FLAG_LAST : 0);
		seg[k].seg_num = cl_hton32(k + 1);
		size_t here = len - k * IB_SA_DATA_SIZE < IB_SA_DATA_SIZE ? len - k * IB_SA_DATA_SIZE : IB_SA_DATA_SIZE;
		/* PayloadLength: the whole transfer's in the first, the last's own in the last (20: the SA header) */
		seg[k].paylen_newwin = cl_hton32((uint32_t)(k == 0 ? len + 20 * nseg : 20 + here));
		memcpy(seg[k].data, data + k * IB_SA_DATA_SIZE, IB_SA_DATA_SIZE);
	}
	return nseg;
}

/* Segment k of an RMPP request, from LID slid: how many MADs the SA sent back. */
static unsigned send_segment(const ib_sa_mad_t *seg, uint16_t slid)
{
	struct mad_origin from = { .slid = slid, .qpn = 1 };
	answers = 0;
	sa_handle(&sm, seg, &from);
	return answers;
}

/*
 * IBA 13.6: a request of two RMPP segments (7 + 7 GIDs) is acknowledged
 * segment by segment and answered once whole; a segment of no request is
 * dropped, one out of order not taken; GID counts beyond the data carried
 * are REQ_INVALID; a transfer longer than the SA takes is aborted.
 */
static void multipath_request_of_two_segments(void **state)
{
	ib_sa_mad_t seg[2];
	assert_int_equal(multipath_segments(7, seg), 2);
	assert_int_equal(send_segment(&seg[1], 3), 0);	/* no first segment yet: dropped */
	assert_int_equal(send_segment(&seg[0], 3), 1);
	assert_int_equal(answer.rmpp_type, IB_RMPP_TYPE_ACK);
	assert_int_equal(cl_ntoh32(answer.seg_num), 1);
	ib_sa_mad_t gap = seg[1];	/* segment 3 before 2: not taken, segment 1 acknowledged again */
	gap.seg_num = cl_hton32(3);
	gap.rmpp_flags &= (uint8_t)~IB_RMPP_FLAG_LAST;
	assert_int_equal(send_segment(&gap, 3), 1);
	assert_int_equal(answer.rmpp_type, IB_RMPP_TYPE_ACK);
	assert_int_equal(cl_ntoh32(answer.seg_num), 1);
	assert_int_equal(send_segment(&seg[1], 3), 2);	/* the ACK of the last, then the answer's first segment */
	assert_true(answer.attr_id == IB_MAD_ATTR_PATH_RECORD);
	assert_int_equal(answer.status, 0);
	assert_int_equal(answer.rmpp_type, IB_RMPP_TYPE_DATA);
	/* 49 PathRecords of 64 bytes: the whole transfer's PayloadLength, 220 bytes a segment less the padding */
	assert_int_equal(cl_ntoh32(answer.paylen_newwin), 16 * 220 - (16 * 200 - 49 * 64));

	ib_sa_mad_t one = seg[0];	/* one segment claiming 14 GIDs but carrying 10 */
	one.rmpp_flags |= IB_RMPP_FLAG_LAST;
	one.paylen_newwin = cl_hton32(220);
	one.trans_id = cl_hton64(0x78);	/* the answer to 0x77 is still going out */
	assert_int_equal(send_segment(&one, 3), 2);
	assert_true(answer.status == IB_SA_MAD_STATUS_REQ_INVALID);

	ib_sa_mad_t huge = seg[0];	/* announces 49 segments: more than the SA takes */
	huge.trans_id = cl_hton64(0x79);
	huge.paylen_newwin = cl_hton32(49 * 220);
	assert_int_equal(send_segment(&huge, 3), 1);
	assert_int_equal(answer.rmpp_type, IB_RMPP_TYPE_ABORT);
	assert_int_equal(answer.rmpp_status, IB_RMPP_STATUS_RESX);
}

static void unknown_attribute_and_standby(void **state)
{
	ib_sa_mad_t q = request(IB_MAD_METHOD_GET, cl_hton16(0x7777), 0);
	assert_true(ask(&q, 3) == IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	sm.state = SM_STANDBY;
	q = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, 0);
	assert_true(ask(&q, 3) == IB_MAD_STATUS_BUSY);
	sm.state = SM_MASTER;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(every_host_of_a_big_fabric_joins_the_broadcast_group, setup_288_hosts,
						teardown),
		cmocka_unit_test_setup_teardown(ipv6_solicited_node_groups_share_one_mlid, setup_288_hosts, teardown),
		cmocka_unit_test_setup_teardown(node_record_by_lid, setup, teardown),
		cmocka_unit_test_setup_teardown(path_record_by_lids, setup, teardown),
		cmocka_unit_test_setup_teardown(path_record_selectors, setup, teardown),
		cmocka_unit_test_setup_teardown(path_record_to_a_multicast_group, setup, teardown),
		cmocka_unit_test_setup_teardown(service_records_belong_to_their_port, setup, teardown),
		cmocka_unit_test_setup_teardown(service_records_outlive_a_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(service_records_wait_for_a_sweeps_store, setup, teardown),
		cmocka_unit_test_setup_teardown(group_rules_as_osmtest_checks_them, setup, teardown),
		cmocka_unit_test_setup_teardown(service_key_is_kept_secret, setup, teardown),
		cmocka_unit_test_setup_teardown(creating_a_group_needs_its_components, setup, teardown),
		cmocka_unit_test_setup_teardown(a_send_only_full_member_creates_a_group, setup, teardown),
		cmocka_unit_test_setup_teardown(port_info_record_matches_each_component, setup, teardown),
		cmocka_unit_test_setup_teardown(class_port_info_claims_what_the_sa_does, setup, teardown),
		cmocka_unit_test_setup_teardown(multipath_request_of_two_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_attribute_and_standby, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
