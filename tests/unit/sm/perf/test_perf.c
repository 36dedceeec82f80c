/*
 * Counter sweeps (sm/perf/perf.c) over a fake PMA: mad_send_perf is
 * replaced at link time by agents that keep counters per (LID, port) and
 * answer from the event loop, as a port would.
 *
 * - Nothing is sent while a heavy sweep runs; the sweep starts after it.
 * - Every node's ClassPortInfo comes before any PortCounters; every active
 *   cabled port is read once; never more than perf.window MADs in flight.
 * - Error counters read non-zero are cleared by a Set naming exactly them;
 *   the totals add what the next reading shows on top (7 + 3).
 * - The totals and a sample reach the database.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixtures.h"
#include "harness.h"
#include "sm/perf/pma.h"
#include "sm/sm.h"

#define MAX_PENDING 64

/* The fake fabric's agents: symbol errors per (LID, port), and what was asked. */
static struct fake {
	struct evl_watch *answer_timer;
	struct pending {
		mad_done_fn done;
		void *ctx;
		ib_perfmgt_mad_t reply;
	} pending[MAX_PENDING];
	unsigned npending, max_inflight;
	unsigned cpi, gets, sets, sets_wrong_select;
	bool counters_before_all_cpi;
	uint16_t symbol_errors[16][8];	/* [lid][port] */
	unsigned nodes;
} fake;

static void answer_all(void *arg)
{
	(void)arg;
	while (fake.npending) {
		struct pending p = fake.pending[0];
		memmove(fake.pending, fake.pending + 1, --fake.npending * sizeof(fake.pending[0]));
		p.done(p.ctx, 0, (const ib_smp_t *)(const void *)&p.reply);
	}
}

int __wrap_mad_send_perf(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
			 const void *data, size_t len, mad_done_fn done, void *ctx)
{
	(void)mp;
	(void)mod;
	(void)len;
	assert_true(fake.npending < MAX_PENDING);
	struct pending *p = &fake.pending[fake.npending++];
	if (fake.npending > fake.max_inflight)
		fake.max_inflight = fake.npending;
	memset(&p->reply, 0, sizeof(p->reply));
	p->done = done;
	p->ctx = ctx;
	if (attr == IB_MAD_ATTR_CLASS_PORT_INFO) {
		ib_class_port_info_t cpi = { .cap_mask = IB_PM_PC_XMIT_WAIT_SUP };
		memcpy(p->reply.data, &cpi, sizeof(cpi));
		fake.cpi++;
	} else {
		ib_port_counters_t pc;
		memcpy(&pc, data, sizeof(pc));
		assert_int_equal(attr, IB_MAD_ATTR_PORT_CNTRS);
		assert_true(dlid < 16 && pc.port_select < 8);
		if (fake.cpi < fake.nodes)
			fake.counters_before_all_cpi = true;
		uint16_t *se = &fake.symbol_errors[dlid][pc.port_select];
		if (method == IB_MAD_METHOD_SET) {
			fake.sets++;
			if (cl_ntoh16(pc.counter_select) != 1 || pc.counter_select2)
				fake.sets_wrong_select++;	/* only symbol errors moved */
			*se = 0;
		} else {
			fake.gets++;
		}
		pc.symbol_err_cnt = cl_hton16(*se);
		pc.xmit_data = cl_hton32(1000);
		memcpy(p->reply.data, &pc, sizeof(pc));
	}
	evl_timer_arm(fake.answer_timer, 0);
	return 0;
}

static void run_for(struct sm *sm, uint64_t ms)
{
	test_run_loop_for(sm->loop, ms);
}

static char path[64];

static void master(struct sm *sm)
{
	char err[DB_ERR_LEN];
	memset(sm, 0, sizeof(*sm));
	memset(&fake, 0, sizeof(fake));
	config_defaults(&sm->cfg);
	sm->cfg.perf_interval = 1;
	sm->cfg.perf_window = 3;
	sm->loop = evl_new();
	assert_non_null(sm->loop);
	fake.answer_timer = evl_timer(sm->loop, answer_all, NULL);
	snprintf(path, sizeof(path), "/tmp/fabricd-test-perf.XXXXXX");
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	sm->db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(sm->db);
	sm->state = SM_MASTER;
	sm->pub = calloc(1, sizeof(*sm->pub));
	assert_non_null(sm->pub);
	ring(&sm->pub->fabric);	/* 5 switches, 5 CAs, 10 links */
	for (size_t i = 0; i < sm->pub->fabric.nnodes; i++)
		for (unsigned p = 0; p <= sm->pub->fabric.nodes[i]->nports; p++)
			if (sm->pub->fabric.nodes[i]->ports[p].remote)
				sm->pub->fabric.nodes[i]->ports[p].state = PORT_ACTIVE;
	fake.nodes = 10;
	sm->perf = perf_new(sm);
	assert_non_null(sm->perf);
}

static void done(struct sm *sm)
{
	perf_free(sm->perf);
	evl_watch_free(fake.answer_timer);
	evl_free(sm->loop);
	sm_snapshot_free(sm->pub);
	routing_memo_free(&sm->route_memo);
	db_close(sm->db);
	test_remove_db(path);
}

static const struct perf_port *find(const struct sm *sm, uint64_t guid, uint8_t port)
{
	size_t n;
	const struct perf_port *p = perf_ports(sm->perf, &n);
	for (size_t i = 0; i < n; i++)
		if (p[i].c.node_guid == guid && p[i].c.port == port)
			return &p[i];
	return NULL;
}

static void yields_to_heavy_sweep(void **state)
{
	struct sm sm;
	master(&sm);
	sm.sched.sweeping = true;
	run_for(&sm, 1300);
	assert_int_equal(fake.cpi + fake.gets, 0);
	sm.sched.sweeping = false;
	run_for(&sm, 400);
	assert_int_equal(fake.cpi, 10);
	assert_int_equal(fake.gets, 20);	/* 10 links, both ends */
	assert_int_equal(perf_get_stats(sm.perf)->sweeps, 1);
	done(&sm);
}

static void reads_clears_and_totals(void **state)
{
	struct sm sm;
	master(&sm);
	uint16_t r0 = fabric_port_lid(fabric_find_guid(&sm.pub->fabric, 0x200000), 0);
	fake.symbol_errors[r0][1] = 7;
	run_for(&sm, 1300);
	assert_int_equal(perf_get_stats(sm.perf)->sweeps, 1);
	assert_false(fake.counters_before_all_cpi);
	assert_true(fake.max_inflight <= 3);
	assert_int_equal(fake.sets, 1);
	assert_int_equal(fake.sets_wrong_select, 0);
	assert_int_equal(fake.symbol_errors[r0][1], 0);
	assert_int_equal(find(&sm, 0x200000, 1)->c.total.v[PC_SYMBOL_ERRORS], 7);
	fake.symbol_errors[r0][1] = 3;
	run_for(&sm, 1100);
	assert_int_equal(perf_get_stats(sm.perf)->sweeps, 2);
	assert_int_equal(fake.sets, 2);
	const struct perf_port *p = find(&sm, 0x200000, 1);
	assert_int_equal(p->c.total.v[PC_SYMBOL_ERRORS], 10);
	assert_int_equal(p->c.last.v[PC_SYMBOL_ERRORS], 3);
	assert_int_equal(find(&sm, 0x200000, 2)->c.total.v[PC_SYMBOL_ERRORS], 0);
	struct db_port_counters *rows;
	size_t n;
	assert_int_equal(db_load_port_counters(sm.db, &rows, &n), 0);
	assert_int_equal(n, 20);
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (rows[i].node_guid == 0x200000 && rows[i].port == 1)
			found = rows[i].total.v[PC_SYMBOL_ERRORS] == 10;
	assert_true(found);
	free(rows);
	done(&sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(yields_to_heavy_sweep),
		cmocka_unit_test(reads_clears_and_totals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
