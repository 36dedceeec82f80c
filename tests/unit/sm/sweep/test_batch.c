/*
 * Set batches (sm/sweep/batch.c) over a fake MAD port: mad_send_dr is replaced
 * at link time (-Wl,--wrap) by one that records each SMP, so the test
 * answers them when and how it likes.
 *
 * - A batch outlives the fabric its nodes came from (the multicast MFTs of
 *   the published fabric, which a sweep frees while their Sets retry): the
 *   Set's answer, its failure line and its retry use no node. Under the
 *   sanitizer build a read of the freed node fails this test.
 * - A Set carries exactly its attribute's bytes (a SwitchInfo Set copied 64
 *   bytes from a 20-byte struct).
 * - A refused PortInfo state Set is read back over the same route before it
 *   counts as failed; answered by a port already there, it succeeds.
 * - Client reregistration (sm/sweep/reregister.c) sets the bit only on
 *   active CA ports that offer it, in the PortInfo fabricd wants there; it
 *   goes to the published fabric, so the answers are not stored; and a
 *   stored PortInfo that echoes the bit asks for no later Set.
 * - A batch over nodes issues them in order as the answers come, with a
 *   bounded number of Sets out.
 * - A batch names the nodes its failed Sets went to (r.lost), each once,
 *   and no other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sm/sweep/batch.h"
#include "sm/sweep/reregister.h"
#include "sm/smnode.h"

struct sent {
	uint8_t method;
	ib_net16_t attr;
	uint32_t mod;
	uint8_t hops, path[IB_SUBNET_PATH_HOPS_MAX];
	uint8_t data[IB_SMP_DATA_SIZE];
	size_t len;
	mad_done_fn done;
	void *ctx;
};

#define MANY 16384	/* Sets a node batch may send in one test */
static struct sent sent[16];	/* the first Sets in full */
static struct { mad_done_fn done; void *ctx; } answer_to[MANY];	/* every Set's completion */
static unsigned nsent;

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	(void)mp;
	(void)mkey;
	assert_true(nsent < MANY);
	answer_to[nsent].done = done;
	answer_to[nsent].ctx = ctx;
	if (nsent < 16) {
		struct sent *s = &sent[nsent];
		*s = (struct sent){ .method = method, .attr = attr, .mod = mod, .hops = hops, .len = len, .done = done,
				    .ctx = ctx };
		memcpy(s->path, path, (size_t)hops + 1);
		if (data)
			memcpy(s->data, data, len);
	}
	nsent++;
	return 0;
}

static struct cfg_result result;
static unsigned finished;

static void on_done(void *arg, const struct cfg_result *r)
{
	(void)arg;
	result = *r;
	finished++;
}

/* One switch reached over path 1,3 from the SM, its node attached. */
static struct node *one_switch(struct fabric *f)
{
	fabric_init(f);
	struct node *sw = fabric_add_node(f, NODE_SWITCH, 0x200000, 8, "leaf-7");
	assert_non_null(sw);
	assert_int_equal(sm_node_attach(sw), 0);
	sw->hops = 2;
	sw->path[1] = 1;
	sw->path[2] = 3;
	return sw;
}

static void reset(void)
{
	nsent = 0;
	finished = 0;
	memset(&result, 0, sizeof(result));
}

static void a_batch_outlives_its_fabric(void **state)
{
	(void)state;
	reset();
	struct fabric f;
	struct node *sw = one_switch(&f);
	struct batch *b = batch_new(NULL, on_done, NULL);
	ib_net16_t masks[32] = { cl_hton16(0x0006) };
	batch_set(b, sw, 0, IB_MAD_ATTR_MCAST_FWD_TBL, 0, masks, sizeof(masks));
	batch_issued(b);
	assert_int_equal(nsent, 1);
	sm_node_detach_all(&f);
	fabric_free(&f);	/* a sweep published a new fabric meanwhile */
	sent[0].done(sent[0].ctx, MAD_TIMEOUT, NULL);	/* logs the failure, naming the switch */
	assert_int_equal(finished, 1);
	assert_int_equal(result.sent, 1);
	assert_int_equal(result.failed, 1);
}

static void a_set_carries_its_attribute_only(void **state)
{
	(void)state;
	reset();
	struct fabric f;
	struct node *sw = one_switch(&f);
	struct batch *b = batch_new(NULL, on_done, NULL);
	ib_switch_info_t si;
	memset(&si, 0xab, sizeof(si));
	batch_set_stored(b, sw, 0, IB_MAD_ATTR_SWITCH_INFO, 0, &si, sizeof(si));
	batch_issued(b);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].len, sizeof(si));
	assert_int_equal(sent[0].hops, 2);
	assert_int_equal(sent[0].path[1], 1);
	assert_int_equal(sent[0].path[2], 3);
	ib_smp_t reply;
	memset(&reply, 0, sizeof(reply));
	memcpy(reply.data, &si, sizeof(si));
	sent[0].done(sent[0].ctx, 0, &reply);	/* the switch as now set goes back into its node */
	assert_int_equal(result.failed, 0);
	assert_memory_equal(&sm_node(sw)->switch_info, &si, sizeof(si));
	sm_node_detach_all(&f);
	fabric_free(&f);
}

static void a_refused_state_set_is_read_back(void **state)
{
	(void)state;
	reset();
	struct fabric f;
	struct node *sw = one_switch(&f);
	struct batch *b = batch_new(NULL, on_done, NULL);
	ib_port_info_t pi;
	memset(&pi, 0, sizeof(pi));
	ib_port_info_set_port_state(&pi, IB_LINK_ARMED);
	batch_set(b, sw, 0, IB_MAD_ATTR_PORT_INFO, 5, &pi, sizeof(pi));
	batch_issued(b);
	sent[0].done(sent[0].ctx, 0x1c, NULL);	/* refused: the port moved on a lost first try */
	assert_int_equal(nsent, 2);
	assert_int_equal(sent[1].method, IB_MAD_METHOD_GET);
	assert_true(sent[1].attr == IB_MAD_ATTR_PORT_INFO);
	assert_int_equal(sent[1].mod, 5);
	assert_int_equal(sent[1].hops, 2);
	assert_int_equal(sent[1].path[2], 3);
	assert_int_equal(finished, 0);
	ib_smp_t reply;
	memset(&reply, 0, sizeof(reply));
	memcpy(reply.data, &pi, sizeof(pi));	/* ARMED already */
	sent[1].done(sent[1].ctx, 0, &reply);
	assert_int_equal(finished, 1);
	assert_int_equal(result.failed, 0);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

/* A CA with LID base_lid on port 1 (and 2), its PortInfo as reported: active, with caps. */
static struct node *host(struct fabric *f, uint64_t guid, uint16_t lid, ib_net32_t caps, enum port_state state)
{
	struct node *ca = fabric_add_node(f, NODE_CA, guid, 2, "host");
	assert_non_null(ca);
	assert_int_equal(sm_node_attach(ca), 0);
	ca->hops = 1;
	ca->path[1] = 2;
	for (uint8_t p = 1; p <= 2; p++) {
		ib_port_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.base_lid = cl_hton16((uint16_t)(lid + p - 1));
		pi.capability_mask = caps;
		ib_port_info_set_port_state(&pi, (uint8_t)state);
		ca->ports[p].exists = true;
		ca->ports[p].lid = (uint16_t)(lid + p - 1);
		sm_node_set_port_info(ca, p, &pi);
	}
	return ca;
}

static void reregistration_asks_capable_active_host_ports_only(void **state)
{
	(void)state;
	reset();
	struct fabric f;
	struct node *sw = one_switch(&f);
	struct node *able = host(&f, 0x100, 10, IB_PORT_CAP_HAS_CLIENT_REREG, PORT_ACTIVE);
	host(&f, 0x200, 20, 0, PORT_ACTIVE);	/* does not offer it */
	host(&f, 0x300, 30, IB_PORT_CAP_HAS_CLIENT_REREG, PORT_INIT);	/* not active yet */
	(void)sw;
	struct cfg_params p = { .sm_lid = 1, .sm_sl = 3, .subnet_timeout = 18 };
	const ib_port_info_t before = sm_node(able)->port_info[1];
	assert_int_equal(rereg_clients(NULL, &f, &p, on_done, NULL), 0);
	assert_int_equal(nsent, 2);	/* ports 1 and 2 of the able host */
	for (unsigned i = 0; i < 2; i++) {
		ib_port_info_t sent_pi;	/* copied: the recorded bytes need not be aligned */
		const ib_port_info_t *pi = &sent_pi;
		memcpy(&sent_pi, sent[i].data, sizeof(sent_pi));
		assert_int_equal(sent[i].method, IB_MAD_METHOD_SET);
		assert_true(sent[i].attr == IB_MAD_ATTR_PORT_INFO);
		assert_int_equal(sent[i].mod, i + 1);
		assert_int_equal(ib_port_info_get_client_rereg(pi), 1);
		assert_int_equal(cl_ntoh16(pi->master_sm_base_lid), 1);
		assert_int_equal(ib_port_info_get_master_smsl(pi), 3);
		assert_int_equal(ib_port_info_get_timeout(pi), 18);
		ib_smp_t reply;
		memset(&reply, 0, sizeof(reply));
		memcpy(reply.data, pi, sizeof(*pi));	/* the port echoes the bit */
		sent[i].done(sent[i].ctx, 0, &reply);
	}
	assert_int_equal(finished, 1);
	assert_int_equal(result.sent, 2);
	assert_int_equal(result.failed, 0);
	assert_memory_equal(&sm_node(able)->port_info[1], &before, sizeof(before));	/* not stored */
	ib_port_info_t want, echoed;
	memcpy(&echoed, sent[0].data, sizeof(echoed));
	sm_node_set_port_info(able, 1, &echoed);	/* a later sweep reads the bit back */
	assert_false(cfg_wanted_port_info(able, 1, &p, &want));	/* nothing left to set */
	assert_int_equal(ib_port_info_get_client_rereg(&want), 0);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

struct three_sets {
	const struct node *sw;
	size_t *issued;		/* nodes issued so far, checked to come in order */
};

static void three_sets(void *ctx, struct batch *b, size_t i)
{
	const struct three_sets *j = ctx;
	uint8_t block[IB_SMP_DATA_SIZE] = { 0 };
	assert_int_equal(*j->issued, i);
	++*j->issued;
	for (uint32_t k = 0; k < 3; k++)
		batch_set(b, j->sw, 0, IB_MAD_ATTR_LIN_FWD_TBL, (uint32_t)i * 3 + k, block, sizeof(block));
}

/*
 * A batch over 3,000 nodes of three Sets each: the nodes go in order, as
 * answers come back, never more than BATCH_QUEUED Sets (plus one node's)
 * out at once; done runs once, after the 9,000th answer.
 */
static void a_node_batch_keeps_its_sets_bounded(void **state)
{
	(void)state;
	reset();
	struct fabric f;
	size_t issued = 0;
	struct three_sets j = { one_switch(&f), &issued };
	assert_int_equal(batch_over_nodes(NULL, 3000, three_sets, &j, sizeof(j), on_done, NULL), 0);
	unsigned answered = 0;
	while (answered < nsent) {
		assert_true(nsent - answered <= BATCH_QUEUED + 2);
		assert_int_equal(finished, 0);
		answer_to[answered].done(answer_to[answered].ctx, 0, NULL);
		answered++;
	}
	assert_int_equal(issued, 3000);
	assert_int_equal(nsent, 9000);
	assert_int_equal(finished, 1);
	assert_int_equal(result.sent, 9000);
	assert_int_equal(result.failed, 0);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

static uint64_t lost_guids[4];
static size_t nlost_guids;

static void on_done_lost(void *arg, const struct cfg_result *r)
{
	on_done(arg, r);
	nlost_guids = r->lost->n;
	for (size_t i = 0; i < r->lost->n && i < 4; i++)
		lost_guids[i] = r->lost->guid[i];
}

static void a_batch_names_the_nodes_its_sets_failed_to(void **state)
{
	(void)state;
	reset();
	struct fabric f;
	struct node *a = one_switch(&f);
	struct node *b_sw = fabric_add_node(&f, NODE_SWITCH, 0x100000, 8, "leaf-3");
	assert_non_null(b_sw);
	assert_int_equal(sm_node_attach(b_sw), 0);
	b_sw->hops = 1;
	b_sw->path[1] = 1;
	struct batch *b = batch_new(NULL, on_done_lost, NULL);
	ib_net16_t masks[32] = { 0 };
	batch_set(b, a, 0, IB_MAD_ATTR_MCAST_FWD_TBL, 0, masks, sizeof(masks));
	batch_set(b, a, 0, IB_MAD_ATTR_MCAST_FWD_TBL, 1, masks, sizeof(masks));
	batch_set(b, b_sw, 0, IB_MAD_ATTR_MCAST_FWD_TBL, 0, masks, sizeof(masks));
	batch_set(b, b_sw, 0, IB_MAD_ATTR_MCAST_FWD_TBL, 1, masks, sizeof(masks));
	batch_issued(b);
	assert_int_equal(nsent, 4);
	ib_smp_t reply = { 0 };
	sent[0].done(sent[0].ctx, MAD_TIMEOUT, NULL);	/* a's two fail */
	sent[1].done(sent[1].ctx, MAD_TIMEOUT, NULL);
	sent[2].done(sent[2].ctx, 0, &reply);
	sent[3].done(sent[3].ctx, 0, &reply);
	assert_int_equal(finished, 1);
	assert_int_equal(result.failed, 2);
	assert_int_equal(nlost_guids, 1);
	assert_true(lost_guids[0] == a->guid);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_batch_outlives_its_fabric),
		cmocka_unit_test(a_set_carries_its_attribute_only),
		cmocka_unit_test(a_refused_state_set_is_read_back),
		cmocka_unit_test(reregistration_asks_capable_active_host_ports_only),
		cmocka_unit_test(a_node_batch_keeps_its_sets_bounded),
		cmocka_unit_test(a_batch_names_the_nodes_its_sets_failed_to),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
