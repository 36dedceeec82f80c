/*
 * The election and the SMInfo Sets of other SMs (sm/ha/ha.c) over a fake
 * MAD port: mad_send_dr, mad_respond and mad_port_guid are replaced at link
 * time (-Wl,--wrap), and so is the event queue's database flush.
 *
 * Election (IBA 14.4): alone, an SM is master; it stands by for a MASTER
 * unless it is master already and the better one; it waits for a better
 * DISCOVERING SM; a master hands over (SMInfo Set HANDOVER) to a better
 * STANDBY. SMInfo Sets: obeyed with the SM_Key from the port of a surveyed
 * SM whose GUID they name; refused without an sm_key configured, with a
 * wrong key, naming an unsurveyed GUID, or from another port.
 *
 * sm_peers: a port that says IsSM and is not listed is not asked, and its
 * claim to be a better MASTER moves nobody (an event says so, once); a
 * listed port answering with an unlisted GUID is left out too; listed,
 * it is surveyed and the election follows it. Unset, every IsSM port is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sm/sm.h"
#include "sm/smnode.h"
#include "fixtures.h"

#define OWN_GUID 0xa1
#define KEY 0x5eedULL

static unsigned sets, handovers, acks, answers, sweeps_wanted, gets;
static ib_sm_info_t peer_answer;	/* what B's SM answers an SMInfo Get, at once */

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_SM_INFO) {
		sets++;
		handovers += mod == HA_HANDOVER;
		acks += mod == HA_ACKNOWLEDGE;
		/* a Set carries our SM_Key; a Get never does */
		assert_true(cl_ntoh64(((const ib_sm_info_t *)data)->sm_key) == KEY);
	}
	if (method == IB_MAD_METHOD_GET && attr == IB_MAD_ATTR_SM_INFO) {
		ib_smp_t reply;
		memset(&reply, 0, sizeof(reply));
		memcpy(reply.data, &peer_answer, sizeof(peer_answer));
		gets++;
		done(ctx, 0, &reply);
	}
	return 0;
}

int __wrap_mad_respond(struct mad_port *mp, const ib_smp_t *req, const struct mad_origin *to, uint16_t status,
		       const void *data)
{
	answers++;
	return 0;
}

uint64_t __wrap_mad_port_guid(const struct mad_port *mp)
{
	return OWN_GUID;
}

void __wrap_sm_events_flush(struct sm *sm)
{
	sm->events.n = 0;
}

static void want_sweep(struct sm *sm)
{
	sweeps_wanted++;
}

/* The four-node line of fixtures.h, with the SM's per-node state. */
static void line(struct fabric *f)
{
	ca_switch_switch_ca(f);
	for (size_t i = 0; i < f->nnodes; i++)
		assert_int_equal(sm_node_attach(f->nodes[i]), 0);
}

static struct sm *new_sm(unsigned priority, enum sm_state state)
{
	static struct sm sm;
	memset(&sm, 0, sizeof(sm));
	config_defaults(&sm.cfg);
	sm.cfg.sm_priority = priority;
	sm.cfg.sm_key = KEY;
	sm.loop = evl_new();
	assert_non_null(sm.loop);
	assert_int_equal(ha_init(&sm), 0);
	sm.sched.sweep_timer = evl_timer(sm.loop, NULL, NULL);
	sm.sched.want_sweep = want_sweep;
	sm.state = state;
	sm.pub = calloc(1, sizeof(*sm.pub));
	assert_non_null(sm.pub);
	line(&sm.pub->fabric);
	sets = handovers = acks = answers = sweeps_wanted = 0;
	return &sm;
}

static void free_sm(struct sm *sm)
{
	ha_free(sm);
	evl_watch_free(sm->sched.sweep_timer);
	sm_snapshot_free(sm->pub);
	routing_memo_free(&sm->route_memo);
	evl_free(sm->loop);
}

static void peer(struct sm *sm, uint64_t guid, unsigned priority, enum sm_state state)
{
	struct sm_peer *p = &sm->ha.peers[sm->ha.npeers++];
	memset(p, 0, sizeof(*p));
	p->guid = guid;
	p->priority = (uint8_t)priority;
	p->state = (uint8_t)state;
	p->lid = 4;
	snprintf(p->desc, sizeof(p->desc), "B");
}

static void alone_it_is_master(void **state)
{
	struct sm *sm = new_sm(0, SM_DISCOVERING);
	assert_true(ha_elect(sm));
	assert_int_equal(sm->state, SM_MASTER);
	free_sm(sm);
}

static void it_stands_by_for_a_master(void **state)
{
	struct sm *sm = new_sm(15, SM_DISCOVERING);	/* even a better SM does not take a master's subnet */
	peer(sm, 0xb1, 3, SM_MASTER);
	assert_false(ha_elect(sm));
	assert_int_equal(sm->state, SM_STANDBY);
	assert_true(sm->ha.master.guid == 0xb1);
	free_sm(sm);
}

static void a_better_master_keeps_the_subnet(void **state)
{
	struct sm *sm = new_sm(5, SM_MASTER);
	peer(sm, 0xb1, 3, SM_MASTER);	/* two masters after a merge: the worse one yields */
	assert_true(ha_elect(sm));
	assert_int_equal(sm->state, SM_MASTER);
	sm->ha.npeers = 0;
	peer(sm, 0xb1, 5, SM_MASTER);	/* same priority, and its GUID is higher: we are better */
	assert_true(ha_elect(sm));
	free_sm(sm);
}

static void it_waits_for_a_better_discovering_sm(void **state)
{
	struct sm *sm = new_sm(3, SM_DISCOVERING);
	peer(sm, 0xb1, 5, SM_DISCOVERING);
	assert_false(ha_elect(sm));
	assert_int_equal(sm->state, SM_STANDBY);
	free_sm(sm);
	sm = new_sm(5, SM_DISCOVERING);
	peer(sm, 0xb1, 3, SM_DISCOVERING);
	assert_true(ha_elect(sm));
	free_sm(sm);
}

static void a_master_hands_over_to_a_better_standby(void **state)
{
	struct sm *sm = new_sm(3, SM_MASTER);
	peer(sm, 0xb1, 5, SM_STANDBY);
	assert_true(ha_elect(sm));	/* master until the standby takes it */
	assert_int_equal(handovers, 1);
	assert_true(sm->ha.handover_sent);
	assert_true(ha_elect(sm));	/* one HANDOVER, not one per sweep */
	assert_int_equal(handovers, 1);
	free_sm(sm);
}

/* SMInfo Set what, naming guid with key, LID-routed from slid. */
static void set_from(struct sm *sm, uint32_t what, uint64_t guid, uint64_t key, uint16_t slid)
{
	ib_smp_t req;
	memset(&req, 0, sizeof(req));
	req.mgmt_class = IB_MCLASS_SUBN_LID;
	req.method = IB_MAD_METHOD_SET;
	req.attr_id = IB_MAD_ATTR_SM_INFO;
	req.attr_mod = cl_hton32(what);
	ib_sm_info_t *si = (ib_sm_info_t *)req.data;
	si->guid = cl_hton64(guid);
	si->sm_key = cl_hton64(key);
	struct mad_origin from = { .slid = slid };
	ha_on_request(sm, &req, &from);
}

static void sets_are_obeyed_only_from_the_sm_they_name(void **state)
{
	struct sm *sm = new_sm(3, SM_STANDBY);
	peer(sm, 0xb1, 5, SM_MASTER);
	sm->ha.master = sm->ha.peers[0];
	set_from(sm, HA_DISABLE, 0xb1, 0, 4);	/* wrong key */
	set_from(sm, HA_DISABLE, 0xc1, KEY, 4);	/* a GUID no survey found */
	set_from(sm, HA_DISABLE, 0xb1, KEY, 3);	/* B's GUID from S2's LID */
	set_from(sm, HA_DISABLE, 0xb1, KEY, 9);	/* from a LID nobody has */
	assert_int_equal(sm->state, SM_STANDBY);
	assert_int_equal(answers, 4);	/* each answered with our SMInfo, unchanged */
	set_from(sm, HA_HANDOVER, 0xb1, KEY, 4);	/* the master hands over, from its own port */
	assert_int_equal(sm->state, SM_MASTER);
	assert_int_equal(sweeps_wanted, 1);
	assert_int_equal(acks, 1);
	free_sm(sm);
}

static void without_an_sm_key_no_set_is_obeyed(void **state)
{
	struct sm *sm = new_sm(3, SM_MASTER);
	sm->cfg.sm_key = 0;
	peer(sm, 0xb1, 5, SM_STANDBY);
	set_from(sm, HA_DISABLE, 0xb1, 0, 4);
	set_from(sm, HA_STANDBY, 0xb1, 0, 4);
	assert_int_equal(sm->state, SM_MASTER);
	assert_int_equal(sweeps_wanted, 0);
	free_sm(sm);
}

static void surveyed(void *arg)
{
	*(bool *)arg = true;
}

/* B's port says IsSM and its SM answers MASTER, priority 15, with guid; a survey of the line. */
static void survey_b_claiming(struct sm *sm, uint64_t guid)
{
	struct sm_node *b = sm_node(sm->pub->fabric.nodes[3]);
	b->have_port_info[1] = true;
	b->port_info[1].capability_mask = IB_PORT_CAP_IS_SM;
	memset(&peer_answer, 0, sizeof(peer_answer));
	peer_answer.guid = cl_hton64(guid);
	peer_answer.pri_state = 15 << 4 | SM_MASTER;
	bool done = false;
	gets = 0;
	assert_int_equal(ha_survey(sm, &sm->pub->fabric, surveyed, &done), 0);
	assert_true(done);
}

static void only_the_sms_in_sm_peers_take_part(void **state)
{
	struct sm *sm = new_sm(3, SM_MASTER);
	sm->cfg.sm_peers[0] = 0xc1;
	sm->cfg.nsm_peers = 1;
	survey_b_claiming(sm, 0xb1);
	assert_int_equal(gets, 0);	/* B's port is not listed: not asked */
	assert_int_equal(sm->ha.npeers, 0);
	assert_true(ha_elect(sm));
	assert_int_equal(sm->state, SM_MASTER);
	assert_int_equal(sm->events.n, 1);
	assert_string_equal(sm->events.q[0].kind, "sm_left_out");
	survey_b_claiming(sm, 0xb1);
	assert_int_equal(sm->events.n, 1);	/* told once */

	sm->cfg.sm_peers[0] = 0xb1;
	survey_b_claiming(sm, 0xdead);	/* a listed port answering for an unlisted SM */
	assert_int_equal(gets, 1);
	assert_int_equal(sm->ha.npeers, 0);
	assert_true(ha_elect(sm));

	survey_b_claiming(sm, 0xb1);
	assert_int_equal(sm->ha.npeers, 1);
	assert_false(ha_elect(sm));	/* a listed better master: stand by */
	assert_int_equal(sm->state, SM_STANDBY);
	free_sm(sm);

	sm = new_sm(3, SM_MASTER);	/* no sm_peers: every port that says IsSM counts (IBA, OpenSM) */
	survey_b_claiming(sm, 0xb1);
	assert_int_equal(sm->ha.npeers, 1);
	assert_false(ha_elect(sm));
	free_sm(sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alone_it_is_master),
		cmocka_unit_test(it_stands_by_for_a_master),
		cmocka_unit_test(a_better_master_keeps_the_subnet),
		cmocka_unit_test(it_waits_for_a_better_discovering_sm),
		cmocka_unit_test(a_master_hands_over_to_a_better_standby),
		cmocka_unit_test(sets_are_obeyed_only_from_the_sm_they_name),
		cmocka_unit_test(without_an_sm_key_no_set_is_obeyed),
		cmocka_unit_test(only_the_sms_in_sm_peers_take_part),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
