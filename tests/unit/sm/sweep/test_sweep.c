/*
 * A whole heavy sweep (sm/sweep/sweep.c) over a fake MAD port: the
 * simulator of tests/common/smp_sim.h plays a 2-level radix-4 fat tree
 * (hosts offering ClientReregister), a real SQLite database takes the
 * sweep. Every SMP is recorded with the sweep's state when it was sent.
 *
 * - The phases run in the order of phases[]: discovery's Gets before any
 *   Set; then LFT blocks, SL-to-VL tables, P_Key tables, ports to ARMED,
 *   ports to ACTIVE; the sweep is stored; and only then, with the sweep
 *   published (the SA answers from it), the hosts' ports are asked to
 *   reregister (a first sweep as master).
 * - The scheduler hears one outcome: ok and published.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sm/sm.h"
#include "sm/smnode.h"
#include "sm/sweep/sweep.h"
#include "topology/fattree_gen.h"
#include "smp_sim.h"

static struct sm sm;
static char db_path[64];

/* What went out, in order, and what the SM had done by then. */
static struct sent {
	uint8_t method;
	ib_net16_t attr;
	uint8_t state;		/* PortInfo Sets: the port state asked for */
	bool rereg;		/* PortInfo Sets: ClientReregister */
	bool published;		/* a sweep was published when it went out */
	unsigned stored;	/* sweeps in the database when it went out */
} sent[QUEUE];
static size_t nsent;

static unsigned stored_sweeps(void)
{
	uint64_t bytes;
	unsigned sweeps = 0, events;
	assert_int_equal(db_size(sm.db, &bytes, &sweeps, &events), 0);
	return sweeps;
}

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	struct sent *s = &sent[nsent++];
	*s = (struct sent){ .method = method, .attr = attr, .published = sm_published(&sm) != NULL,
			    .stored = stored_sweeps() };
	if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_PORT_INFO) {
		ib_port_info_t pi;
		memcpy(&pi, data, sizeof(pi));
		s->state = ib_port_info_get_port_state(&pi);
		s->rereg = ib_port_info_get_client_rereg(&pi);
	}
	sim_queue(method, attr, mod, path, hops, data, len, done, ctx);
	return 0;
}

int __wrap_mad_send_lid(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
			uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	return -1;	/* no other SM to ask */
}

uint64_t __wrap_mad_port_guid(const struct mad_port *mp)
{
	for (size_t i = 0; i < truth.nnodes; i++)
		if (truth.nodes[i]->type == NODE_CA)
			return fabric_port_guid(truth.nodes[i], 1);
	return 0;
}

int __wrap_mad_port_num(const struct mad_port *mp)
{
	return 1;
}

const char *__wrap_mad_port_ca(const struct mad_port *mp)
{
	return "fake0";
}

const struct mad_stats *__wrap_mad_get_stats(const struct mad_port *mp)
{
	static const struct mad_stats none;
	return &none;
}

int __wrap_mad_claim_sm(struct mad_port *mp, char err[MAD_ERR_LEN])
{
	return 0;
}

static struct sweep_outcome outcome;
static unsigned outcomes;

static void on_swept(struct sm *s, const struct sweep_outcome *o)
{
	outcome = *o;
	outcomes++;
}

static int setup(void **state)
{
	char err[DB_ERR_LEN];
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, &truth, err), 0);
	memset(&sm, 0, sizeof(sm));
	config_defaults(&sm.cfg);
	snprintf(db_path, sizeof(db_path), "/tmp/fabricd-test-sweep.%d.db", (int)getpid());
	unlink(db_path);
	sm.db = db_open(db_path, DB_READ_WRITE, err);
	assert_non_null(sm.db);
	sm.loop = evl_new();
	assert_non_null(sm.loop);
	sm.mp = (struct mad_port *)&sm;	/* never dereferenced: every mad_ call the sweep makes is wrapped */
	assert_int_equal(mkeys_init(&sm.mkeys, &sm.cfg.mkey, NULL, 0), 0);
	assert_int_equal(ha_init(&sm), 0);
	mcast_init(&sm.mcast, sm.cfg.subnet_prefix);
	return 0;
}

static int teardown(void **state)
{
	ha_free(&sm);
	sm_snapshot_free(sm.pub);
	mkeys_free(&sm.mkeys);
	db_close(sm.db);
	evl_free(sm.loop);
	unlink(db_path);
	fabric_free(&truth);
	return 0;
}

/* The first SMP sent with attribute attr (and, for PortInfo Sets, state and rereg), or nsent. */
static size_t first(uint8_t method, ib_net16_t attr, uint8_t state, bool rereg)
{
	for (size_t i = 0; i < nsent; i++)
		if (sent[i].method == method && sent[i].attr == attr &&
		    (attr != IB_MAD_ATTR_PORT_INFO || method != IB_MAD_METHOD_SET ||
		     (sent[i].state == state && sent[i].rereg == rereg)))
			return i;
	return nsent;
}

static void phases_go_in_order_and_hosts_reregister_after_the_sweep_is_published(void **state)
{
	sweep_start(&sm, on_swept);
	for (size_t next = 0; outcomes == 0; next++) {	/* every answer, in the order asked */
		assert_true(next < queued);
		struct answer a = queue[next];
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
	}
	assert_int_equal(outcomes, 1);
	assert_true(outcome.ok);
	assert_true(outcome.published);
	assert_non_null(sm_published(&sm));
	assert_int_equal(sm_published(&sm)->fabric.nnodes, truth.nnodes);

	size_t first_set = nsent;
	for (size_t i = 0; i < nsent && first_set == nsent; i++)
		if (sent[i].method == IB_MAD_METHOD_SET)
			first_set = i;
	for (size_t i = first_set; i < nsent; i++)	/* discovery is over before anything is set */
		assert_false(sent[i].method == IB_MAD_METHOD_GET && sent[i].attr == IB_MAD_ATTR_NODE_INFO);
	size_t lft = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 0, false);
	size_t sl2vl = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, 0, false);
	size_t pkeys = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_P_KEY_TABLE, 0, false);
	size_t armed = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, IB_LINK_ARMED, false);
	size_t active = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, IB_LINK_ACTIVE, false);
	size_t rereg = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, IB_LINK_NO_CHANGE, true);
	assert_true(first_set <= lft);
	assert_true(lft < sl2vl);
	assert_true(sl2vl < pkeys);
	assert_true(pkeys < armed);
	assert_true(armed < active);
	assert_true(active < rereg);
	assert_true(rereg < nsent);
	assert_false(sent[active].published);	/* published only after the store */
	assert_int_equal(sent[active].stored, 0);
	assert_true(sent[rereg].published);
	assert_int_equal(sent[rereg].stored, 1);
	for (size_t i = rereg; i < nsent; i++)	/* the last phase: nothing but reregistration after it starts */
		assert_true(sent[i].rereg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(phases_go_in_order_and_hosts_reregister_after_the_sweep_is_published,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
