/*
 * DOC: SM election and failover
 *
 * Every heavy sweep, after discovery, reads SMInfo from each other port
 * that says IsSM (ha_survey). The election (ha_elect) follows IBA 14.4:
 * an SM that finds a MASTER stays out of its way (STANDBY) unless it is
 * the master already and the better one; with no master, the best SM
 * (higher priority, then lower GUID) takes the subnet, and the others
 * wait for it. A master that meets a better STANDBY hands the subnet over
 * (SMInfo Set HANDOVER) and steps down on its ACKNOWLEDGE.
 *
 * A standby polls the master's SMInfo every sm_poll_interval_ms; after
 * sm_poll_retries polls in a row go unanswered (or the master says it is
 * no longer master) it sweeps as DISCOVERING and, elected, takes over:
 * the LIDs the ports hold are kept (sm/sweep/lidmgr.c takes them over) and only
 * what differs from what the switches hold is written.
 *
 * SMInfo Sets (HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER) are
 * obeyed only when all of these hold (else logged and answered with our
 * SMInfo, unchanged): an sm_key is configured and the Set carries it; the
 * GUID it names is an SM the last survey found (a port with IsSM); and the
 * Set came from that very port (sm/mad/origin.c, over the fabric this SM last
 * swept or, standing by, last discovered). Without an sm_key nobody can
 * hand over to, disable or redirect this SM: elections still work, since
 * they need only SMInfo Gets. The SM_Key itself is in an answer to a Get
 * only when the Get carries our port's M_Key or comes from the master we
 * stand by for (ha_may_read_key), and in no Get of ours.
 *
 * With sm_peers set, only the ports it names take part: another port that
 * says IsSM (any host's root can set the bit, and with priority 15 and a
 * MASTER state make a master stand by) is not asked, and is logged every
 * survey and an event the first time ("sm_left_out"). Its SMInfo Sets are
 * then refused too, as from any unsurveyed SM.
 *
 * Elections, takeovers and handovers go to the log and the event log.
 */
#include "sm/ha/ha.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/mad/origin.h"
#include "sm/sa/mcast_held.h"
#include "sm/sm.h"

const char *ha_state_name(unsigned state)
{
	static const char *names[] = { "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" };
	return state < 4 ? names[state] : "?";
}

/* True if SM a (priority, GUID) wins over SM b. */
static bool better(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb)
{
	return pa != pb ? pa > pb : ga < gb;
}

static uint64_t own_guid(const struct sm *sm)
{
	return mad_port_guid(sm->mp);
}

void ha_own_info(const struct sm *sm, ib_sm_info_t *si, bool with_key)
{
	memset(si, 0, sizeof(*si));
	si->guid = cl_hton64(own_guid(sm));
	si->sm_key = with_key ? cl_hton64(sm->cfg.sm_key) : 0;
	si->act_count = cl_hton32(sm->act_count);
	si->pri_state = (uint8_t)((sm->cfg.sm_priority << 4) | sm->state);
}

static void note(struct sm *sm, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct sm *sm, const char *kind, const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	log_info("sm: %s", detail);
	sm_event(sm, kind, detail);
	if (sm->state != SM_MASTER)
		sm_events_flush(sm);	/* a master stores them with its sweep */
}

static void on_poll_timer(void *arg);

int ha_init(struct sm *sm)
{
	memset(&sm->ha, 0, sizeof(sm->ha));
	sm->ha.poll_timer = evl_timer(sm->loop, on_poll_timer, sm);
	return sm->ha.poll_timer ? 0 : -1;
}

void ha_free(struct sm *sm)
{
	evl_watch_free(sm->ha.poll_timer);
	sm->ha.poll_timer = NULL;
	if (sm->ha.have_seen)
		fabric_free(&sm->ha.seen);
	sm->ha.have_seen = false;
}

void ha_keep_seen(struct sm *sm, struct fabric *f)
{
	if (sm->ha.have_seen)
		fabric_free(&sm->ha.seen);
	fabric_move(&sm->ha.seen, f);
	if (fabric_index_end_ports(&sm->ha.seen) < 0)
		log_debug("sm: out of memory indexing the discovered fabric; lookups scan it");
	sm->ha.have_seen = true;
}

/* Whether the SM on the port with that GUID may take part in elections: sm_peers names it, or names nobody. */
static bool listed_peer(const struct sm *sm, uint64_t guid)
{
	for (unsigned i = 0; i < sm->cfg.nsm_peers; i++)
		if (sm->cfg.sm_peers[i] == guid)
			return true;
	return sm->cfg.nsm_peers == 0;
}

/* A port says IsSM, or answers SMInfo, outside sm_peers: a warning every survey, an event the first time. */
static void leave_out(struct sm *sm, const char *desc, uint64_t guid)
{
	char detail[200];
	snprintf(detail, sizeof(detail), "SM 0x%016llx (at %s) is not in sm_peers: left out of the election",
		 (unsigned long long)guid, desc);
	log_warn("sm: %s", detail);
	for (unsigned i = 0; i < sm->ha.nleft_out; i++)
		if (sm->ha.left_out[i] == guid)
			return;
	if (sm->ha.nleft_out < HA_MAX_PEERS)
		sm->ha.left_out[sm->ha.nleft_out++] = guid;
	sm_event(sm, "sm_left_out", detail);
}

/* --- survey --- */

struct survey {
	struct sm *sm;
	ha_done_fn done;
	void *arg;
	unsigned in_flight;
};

struct survey_req {
	struct survey *sv;
	struct sm_peer peer;	/* route, key and name filled; the rest from the answer */
};

static void survey_finish(struct survey *sv)
{
	if (--sv->in_flight)
		return;
	ha_done_fn done = sv->done;
	void *arg = sv->arg;
	free(sv);
	done(arg);
}

static void on_peer_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct survey_req *rq = ctx;
	struct sm *sm = rq->sv->sm;
	const ib_sm_info_t *si = status == 0 ? (const ib_sm_info_t *)reply->data : NULL;	/* no reply on a timeout */
	if (si && !listed_peer(sm, cl_ntoh64(si->guid))) {
		leave_out(sm, rq->peer.desc, cl_ntoh64(si->guid));	/* a listed port answering for another */
	} else if (si && sm->ha.npeers < HA_MAX_PEERS && cl_ntoh64(si->guid) != own_guid(sm)) {
		struct sm_peer *p = &sm->ha.peers[sm->ha.npeers++];
		*p = rq->peer;
		p->guid = cl_ntoh64(si->guid);
		p->priority = ib_sminfo_get_priority(si);
		p->state = ib_sminfo_get_state(si);
		p->act_count = cl_ntoh32(si->act_count);
	} else if (status != 0) {
		log_debug("sm: %s says IsSM but does not answer SMInfo", rq->peer.desc);
	}
	struct survey *sv = rq->sv;
	free(rq);
	survey_finish(sv);
}

/* True for the port fabricd itself runs on. */
static bool own_port(const struct node *n, unsigned port)
{
	return n->hops == 0 && (n->type == NODE_SWITCH ? port == 0 : port == n->local_port);
}

/*
 * SMInfo Get (what 0) or Set (what: an ha_request) to peer to, carrying
 * our own SMInfo; a Set carries the SM_Key (the peer checks it), a Get
 * does not (any port can claim IsSM and be asked).
 */
static int send_sminfo(struct sm *sm, const struct sm_peer *to, uint8_t method, uint32_t what, mad_done_fn done,
		       void *ctx)
{
	uint8_t data[IB_SMP_DATA_SIZE] = { 0 };
	ha_own_info(sm, (ib_sm_info_t *)data, method == IB_MAD_METHOD_SET);
	return mad_send_dr(sm->mp, method, IB_MAD_ATTR_SM_INFO, what, to->route.path, to->route.hops, to->mkey, data,
			   sizeof(data), done, ctx);
}

static int ask(struct sm *sm, const struct sm_peer *to, mad_done_fn done, void *ctx)
{
	return send_sminfo(sm, to, IB_MAD_METHOD_GET, 0, done, ctx);
}

int ha_survey(struct sm *sm, const struct fabric *f, ha_done_fn done, void *arg)
{
	struct survey *sv = calloc(1, sizeof(*sv));
	if (!sv)
		return -1;
	*sv = (struct survey){ sm, done, arg, 1 };	/* 1: ours until every request is out */
	sm->ha.npeers = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		const struct sm_node *s = sm_node(n);
		FOR_END_PORTS(n, p) {
			if (!s->have_port_info[p] || !(s->port_info[p].capability_mask & IB_PORT_CAP_IS_SM) || own_port(n, p))
				continue;
			if (!listed_peer(sm, fabric_port_guid(n, (uint8_t)p))) {
				leave_out(sm, n->desc, fabric_port_guid(n, (uint8_t)p));
				continue;
			}
			struct survey_req *rq = calloc(1, sizeof(*rq));
			if (!rq)
				continue;
			rq->sv = sv;
			rq->peer.route = sm_node_route(n, (uint8_t)p);
			rq->peer.mkey = sm_node_mkey(n, (uint8_t)p);
			rq->peer.lid = fabric_port_lid(n, (uint8_t)p);
			snprintf(rq->peer.desc, sizeof(rq->peer.desc), "%s", n->desc);
			sv->in_flight++;
			if (ask(sm, &rq->peer, on_peer_info, rq) < 0) {
				sv->in_flight--;
				free(rq);
			}
		}
	}
	survey_finish(sv);
	return 0;
}

/* --- states --- */

static void stand_by(struct sm *sm, struct sm_peer *master)
{
	bool was = sm->state == SM_STANDBY && sm->ha.master.guid == master->guid;
	master->state = SM_MASTER;	/* what it is now, whatever the survey saw */
	sm->state = SM_STANDBY;
	sm->last_sweep_ok = false;	/* the master programs now: our tables are no longer what switches hold */
	sm->pub_answered = false;	/* nor our SLs what hosts were told */
	sm->pub_held = false;
	mcast_held_forget(&sm->mcast);	/* nor our trees what their MFTs hold */
	sm->ha.master = *master;
	sm->ha.poll_failures = 0;
	sm->ha.handover_sent = false;
	sm->ha.last_answer_ms = evl_now_ms();
	evl_timer_cancel(sm->sched.sweep_timer);
	evl_timer_arm(sm->ha.poll_timer, sm->cfg.sm_poll_interval_ms);
	if (!was)
		note(sm, "sm_standby", "STANDBY: SM 0x%016llx (%s, priority %u) is master", (unsigned long long)master->guid,
		     master->desc, master->priority);
}

static void become_master(struct sm *sm, const char *why)
{
	if (sm->state == SM_MASTER)
		return;
	evl_timer_cancel(sm->ha.poll_timer);
	sm->state = SM_MASTER;
	sm->clients_registered = false;	/* the hosts may hold another SM's groups and paths */
	if (sm->ha.master_lost_ms)
		note(sm, "sm_takeover", "MASTER: took over from SM 0x%016llx, %llu ms after its last answer (%s)",
		     (unsigned long long)sm->ha.master.guid,
		     (unsigned long long)(evl_now_ms() - sm->ha.last_answer_ms), why);
	else
		note(sm, "sm_master", "MASTER (priority %u): %s", sm->cfg.sm_priority, why);
	sm->ha.master_lost_ms = 0;
}

static struct sm_peer *peer_by_guid(struct sm *sm, uint64_t guid)
{
	for (unsigned i = 0; i < sm->ha.npeers; i++)
		if (sm->ha.peers[i].guid == guid)
			return &sm->ha.peers[i];
	return NULL;
}

/*
 * The new master answers HANDOVER with its SMInfo: once it says MASTER we
 * stand by (as OpenSM does; its ACKNOWLEDGE, if it sends one, changes
 * nothing more).
 */
static void on_handover_answer(void *ctx, int status, const ib_smp_t *reply)
{
	struct sm *sm = ctx;
	struct sm_peer *p = peer_by_guid(sm, sm->ha.handover_to);
	if (!sm->ha.handover_sent || sm->state != SM_MASTER)
		return;
	if (status != 0 || !p || ib_sminfo_get_state((const ib_sm_info_t *)reply->data) != SM_MASTER) {
		log_warn("sm: HANDOVER not taken (status 0x%x); staying master", status);
		sm->ha.handover_sent = false;
		return;
	}
	note(sm, "sm_handover", "SM 0x%016llx took the subnet over", (unsigned long long)p->guid);
	stand_by(sm, p);
}

static void hand_over(struct sm *sm, const struct sm_peer *to)
{
	if (send_sminfo(sm, to, IB_MAD_METHOD_SET, HA_HANDOVER, on_handover_answer, sm) < 0)
		return;
	sm->ha.handover_sent = true;
	sm->ha.handover_to = to->guid;
	note(sm, "sm_handover", "HANDOVER to SM 0x%016llx (%s, priority %u > %u or same and lower GUID)",
	     (unsigned long long)to->guid, to->desc, to->priority, sm->cfg.sm_priority);
}

bool ha_elect(struct sm *sm)
{
	uint8_t own = (uint8_t)sm->cfg.sm_priority;
	uint64_t guid = own_guid(sm);
	struct sm_peer *master = NULL, *waiting = NULL, *standby = NULL;
	for (unsigned i = 0; i < sm->ha.npeers; i++) {
		struct sm_peer *p = &sm->ha.peers[i];
		struct sm_peer **best = p->state == SM_MASTER ? &master : p->state == SM_DISCOVERING ? &waiting
					      : p->state == SM_STANDBY ? &standby : NULL;
		if (best && (!*best || better(p->priority, p->guid, (*best)->priority, (*best)->guid)))
			*best = p;
	}
	if (master && !(sm->state == SM_MASTER && better(own, guid, master->priority, master->guid))) {
		stand_by(sm, master);
		return false;
	}
	if (!master && waiting && sm->state != SM_MASTER && better(waiting->priority, waiting->guid, own, guid)) {
		stand_by(sm, waiting);	/* it wins this election: wait for it */
		return false;
	}
	become_master(sm, master ? "the other master is worse and will yield" : "no other master on the subnet");
	if (standby && !sm->ha.handover_sent && better(standby->priority, standby->guid, own, guid))
		hand_over(sm, standby);
	return true;
}

/* --- polling the master --- */

static void on_master_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct sm *sm = ctx;
	if (sm->state != SM_STANDBY)
		return;
	bool alive = status == 0 && ib_sminfo_get_state((const ib_sm_info_t *)reply->data) == SM_MASTER;
	if (alive) {
		sm->ha.poll_failures = 0;
		sm->ha.last_answer_ms = evl_now_ms();
		evl_timer_arm(sm->ha.poll_timer, sm->cfg.sm_poll_interval_ms);
		return;
	}
	if (status == 0 || ++sm->ha.poll_failures > sm->cfg.sm_poll_retries) {
		sm->ha.master_lost_ms = evl_now_ms();
		note(sm, "sm_master_lost", "master SM 0x%016llx (%s) %s: discovering", (unsigned long long)sm->ha.master.guid,
		     sm->ha.master.desc, status == 0 ? "is no longer master" : "stopped answering");
		sm->state = SM_DISCOVERING;
		sm->sched.want_sweep(sm);
		return;
	}
	evl_timer_arm(sm->ha.poll_timer, sm->cfg.sm_poll_interval_ms);
}

static void on_poll_timer(void *arg)
{
	struct sm *sm = arg;
	sm_events_flush(sm);
	if (sm->state == SM_STANDBY && ask(sm, &sm->ha.master, on_master_info, sm) < 0)
		evl_timer_arm(sm->ha.poll_timer, sm->cfg.sm_poll_interval_ms);
}

/* --- requests from other SMs --- */

static void on_ack_answer(void *ctx, int status, const ib_smp_t *reply)
{
	(void)ctx;
	(void)reply;
	if (status != 0)	/* OpenSM steps down on its HANDOVER's answer and then refuses this */
		log_debug("sm: the old master did not take our ACKNOWLEDGE (status 0x%x)", status);
}

/* ACKNOWLEDGE to the SM that handed over: over our route to it, or back to the LID its request came from. */
static void send_ack(struct sm *sm, const struct sm_peer *to, const struct mad_origin *from)
{
	uint8_t data[IB_SMP_DATA_SIZE] = { 0 };
	ha_own_info(sm, (ib_sm_info_t *)data, true);
	int rc = to ? send_sminfo(sm, to, IB_MAD_METHOD_SET, HA_ACKNOWLEDGE, on_ack_answer, sm)
		 : from->slid && from->slid < 0xc000 ? mad_send_lid(sm->mp, IB_MAD_METHOD_SET, IB_MAD_ATTR_SM_INFO,
							      HA_ACKNOWLEDGE, from->slid, 0, data, sizeof(data), on_ack_answer, sm)
		 : -1;
	if (rc < 0)
		log_warn("sm: could not send ACKNOWLEDGE (no route to the old master)");
}

/* Carries out request what from SM guid; returns true if the sender wants an ACKNOWLEDGE. */
static bool obey(struct sm *sm, uint32_t what, uint64_t guid)
{
	struct sm_peer *p = peer_by_guid(sm, guid);
	switch (what) {
	case HA_HANDOVER:
		if (sm->state == SM_NOTACTIVE)
			return false;
		become_master(sm, "handed over by the master");
		sm->sched.want_sweep(sm);
		return true;
	case HA_ACKNOWLEDGE:
		if (sm->ha.handover_sent && p && sm->state == SM_MASTER) {
			note(sm, "sm_handover", "SM 0x%016llx acknowledged the handover", (unsigned long long)guid);
			stand_by(sm, p);
		}
		return false;
	case HA_DISABLE:
		evl_timer_cancel(sm->ha.poll_timer);
		evl_timer_cancel(sm->sched.sweep_timer);
		sm->state = SM_NOTACTIVE;
		note(sm, "sm_disabled", "NOTACTIVE: disabled by SM 0x%016llx", (unsigned long long)guid);
		return false;
	case HA_STANDBY:
		stand_by(sm, p);
		return false;
	case HA_DISCOVER:
		note(sm, "sm_discover", "DISCOVERING at the request of SM 0x%016llx", (unsigned long long)guid);
		sm->state = SM_DISCOVERING;
		sm->sched.want_sweep(sm);
		return false;
	default:
		log_warn("sm: unknown SMInfo Set %u from SM 0x%016llx", what, (unsigned long long)guid);
		return false;
	}
}

/* The port of the fabric this SM knows that req came from; 0 if none. */
static uint64_t sender_guid(const struct sm *sm, const ib_smp_t *req, const struct mad_origin *from)
{
	const struct sm_snapshot *pub = sm_published(sm);
	const struct fabric *f = pub ? &pub->fabric : sm->ha.have_seen ? &sm->ha.seen : NULL;
	uint8_t port = 0;
	const struct node *n = f ? smp_origin(f, own_guid(sm), req, from, &port) : NULL;
	return n ? fabric_port_guid(n, port) : 0;
}

bool ha_may_read_key(const struct sm *sm, const ib_smp_t *req, const struct mad_origin *from)
{
	uint64_t mkey = mkeys_peek(&sm->mkeys, own_guid(sm));
	if (mkey && cl_ntoh64(req->m_key) == mkey)
		return true;
	return sm->state == SM_STANDBY && sm->ha.master.guid && sender_guid(sm, req, from) == sm->ha.master.guid;
}

/* Why a Set claiming to come from SM guid is not obeyed (see the DOC block), or NULL if it is. */
static const char *refusal(struct sm *sm, const ib_smp_t *req, const struct mad_origin *from, uint64_t guid)
{
	const ib_sm_info_t *them = (const ib_sm_info_t *)req->data;
	if (!sm->cfg.sm_key)
		return "no sm_key is configured here (set the same one on every SM to allow handover)";
	if (cl_ntoh64(them->sm_key) != sm->cfg.sm_key)
		return "wrong SM_Key";
	if (!peer_by_guid(sm, guid))
		return "that GUID is not an SM port the last survey found";
	uint64_t sender = sender_guid(sm, req, from);
	if (!sender)
		return "it came from no port of the fabric this SM knows";
	if (sender != guid)
		return "it came from another port than the one with that GUID";
	return NULL;
}

void ha_on_request(struct sm *sm, const ib_smp_t *req, const struct mad_origin *from)
{
	const ib_sm_info_t *them = (const ib_sm_info_t *)req->data;
	uint32_t what = cl_ntoh32(req->attr_mod);
	uint64_t guid = cl_ntoh64(them->guid);
	const char *why = refusal(sm, req, from, guid);
	bool ack = false;
	if (!why)
		ack = obey(sm, what, guid);
	else
		log_warn("sm: SMInfo Set %u naming SM 0x%016llx (from LID %u) ignored: %s", what,
			 (unsigned long long)guid, from->slid, why);
	uint8_t data[IB_SMP_DATA_SIZE] = { 0 };
	ha_own_info(sm, (ib_sm_info_t *)data, !why);
	mad_respond(sm->mp, req, from, 0, data);
	if (ack)
		send_ack(sm, peer_by_guid(sm, guid), from);
}
