/*
 * Fuzz target: counter sweeps, and the health verdicts and actions on
 * them, fed whatever the ports' performance management agents answer.
 * A heavy sweep over the simulator of tests/common/smp_sim.h (a 2-level
 * radix-4 fat tree, every SMP answered truly) publishes the fabric into a
 * real SQLite database in /tmp; then three counter sweeps read it. Every
 * PerfMgt MAD is answered by a fake agent (ClassPortInfo with extended
 * counters and PortXmitWait; PortCounters and PortCountersExtended
 * without errors, their traffic growing with each read; a Set answered
 * with what it wrote), rewritten or lost as the input's records say
 * (fuzz_records.h: 0xff as the third byte refuses the send, as a full MAD
 * queue does, any other of 0xf0 or more loses the answer). The input's
 * first byte sets the health action (report, isolate, disable: its
 * PortInfo Sets go to the simulator), the window and whether a clean port
 * is healthy at once; with isolate, a last heavy sweep routes around what
 * the verdicts hid, and one more counter sweep follows. Each sweep must
 * end, whatever the agents say.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define assert_true(x) do { if (!(x)) abort(); } while (0)	/* smp_sim.h's, without cmocka */

#include "sm/sm.h"
#include "sm/log.h"
#include "sm/sweep/sweep.h"
#include "topology/fattree_gen.h"
#include "smp_sim.h"
#include "sim_port.h"
#include "fuzz_records.h"
#include "fuzz_sm.h"

#define PMA_QUEUE 4096
#define ROUND_STEPS 100000	/* answers and loop turns a counter sweep may take before it counts as hung */

static bool timers_now;		/* once the fabric is up: every timer fires at the next turn of the loop */

/* The PerfMgt answers waiting, first in, first out, and the number of the next. */
static struct pma_answer {
	mad_done_fn done;
	void *ctx;
	int status;
	ib_perfmgt_mad_t reply;
} pma[PMA_QUEUE];
static size_t pma_head, pma_tail;
static unsigned pma_number;

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	if (queued == QUEUE)
		return -1;
	sim_queue(method, attr, mod, path, hops, data, len, done, ctx);
	return 0;
}

void __real_evl_timer_arm(struct evl_watch *w, uint64_t ms);

void __wrap_evl_timer_arm(struct evl_watch *w, uint64_t ms)
{
	__real_evl_timer_arm(w, timers_now ? 0 : ms);
}

/* What an agent says of a port in the k-th answer: no errors (the input makes them), traffic growing with k. */
static void counters_of(unsigned k, ib_perfmgt_mad_t *r)
{
	ib_port_counters_t pc;
	memcpy(&pc, r->data, sizeof(pc));
	pc.xmit_discards = cl_hton16((uint16_t)k);
	pc.xmit_data = cl_hton32(1000u * k);
	pc.rcv_data = cl_hton32(900u * k);
	pc.xmit_pkts = cl_hton32(10u * k);
	pc.rcv_pkts = cl_hton32(9u * k);
	pc.xmit_wait = cl_hton32(k);
	memcpy(r->data, &pc, sizeof(pc));
}

static void extended_of(unsigned k, ib_perfmgt_mad_t *r)
{
	ib_port_counters_ext_t ext;
	memcpy(&ext, r->data, sizeof(ext));
	ext.xmit_data = cl_hton64(4000000000ull * k);
	ext.rcv_data = cl_hton64(3900000000ull * k);
	ext.xmit_pkts = cl_hton64(100000ull * k);
	ext.rcv_pkts = cl_hton64(99000ull * k);
	memcpy(r->data, &ext, sizeof(ext));
}

int __wrap_mad_send_perf(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
			 const void *data, size_t len, mad_done_fn done, void *ctx)
{
	unsigned k = pma_number++;
	uint8_t control = fuzz_record_control(k);
	if (control == 0xff || pma_tail - pma_head == PMA_QUEUE)
		return -1;
	struct pma_answer *a = &pma[pma_tail++ % PMA_QUEUE];
	memset(a, 0, sizeof(*a));
	a->done = done;
	a->ctx = ctx;
	if (data)
		memcpy(a->reply.data, data, len < IB_PM_DATA_SIZE ? len : IB_PM_DATA_SIZE);
	if (attr == IB_MAD_ATTR_CLASS_PORT_INFO) {
		ib_class_port_info_t cpi = { .cap_mask = IB_PM_EXT_WIDTH_SUPPORTED | IB_PM_PC_XMIT_WAIT_SUP };
		memcpy(a->reply.data, &cpi, sizeof(cpi));
	} else if (attr == IB_MAD_ATTR_PORT_CNTRS && method == IB_MAD_METHOD_GET) {
		counters_of(k, &a->reply);
	} else if (attr == IB_MAD_ATTR_PORT_CNTRS_EXT) {
		extended_of(k, &a->reply);
	}	/* a Set: its own data back, the counters it names cleared */
	fuzz_record_write(k, a->reply.data, IB_PM_DATA_SIZE);
	a->status = control ? MAD_TIMEOUT : 0;
	return 0;
}

/* Runs one counter sweep to its end: its answers, the health action's SMPs, the loop when both wait. */
static void counter_sweep(void)
{
	unsigned done_before = perf_get_stats(sm.perf)->sweeps;
	size_t smp_next = 0;
	for (unsigned step = 0; perf_get_stats(sm.perf)->sweeps == done_before; step++) {
		if (step == ROUND_STEPS)
			abort();	/* hung */
		if (pma_head != pma_tail) {
			struct pma_answer a = pma[pma_head++ % PMA_QUEUE];
			a.done(a.ctx, a.status, a.status ? NULL : (const ib_smp_t *)(const void *)&a.reply);
		} else if (smp_next < queued) {
			struct answer a = queue[smp_next++];
			a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
		} else if (evl_run_once(sm.loop) < 0) {
			abort();
		}
	}
	while (smp_next < queued) {	/* a verdict's PortInfo Sets */
		struct answer a = queue[smp_next++];
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
	}
	queued = 0;
}

/* The SM of fuzz_sm.h with counter sweeps and health judged as knobs say. */
static void setup(uint8_t knobs)
{
	fuzz_sm_setup("perf");
	sm.cfg.perf_interval = 1;
	sm.cfg.perf_window = 1 + knobs % 8;
	sm.cfg.health_action = (knobs >> 3 & 3) % 3;
	sm.cfg.health_window_s = 1 + (unsigned)(knobs >> 5 & 3) * 30;
	sm.cfg.health_clean_s = knobs & 0x80 ? 0 : 60;
	sm.cfg.health_symbol_errors = 2;
	sm.cfg.health_link_error_recovery = 1;
	sm.cfg.health_rcv_errors = 3;
	sm.cfg.health_ber = 1e-12;
	if (!(sm.health = health_new(&sm)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	if (!size)
		return 0;
	log_set_level(LOG_ERROR);
	if (!truth.nnodes && fattree_generate(&(struct fattree_spec){ .levels = 2, .radix = 4 }, &truth, err) < 0)
		abort();
	fuzz_records_take(data + 1, size - 1);
	pma_head = pma_tail = 0;
	pma_number = 0;
	timers_now = false;
	setup(data[0]);
	sweep_to_end(NULL, 0);
	if (!sm_published(&sm))
		abort();	/* the nodes answered truly: the fabric must come up */
	timers_now = true;
	if (!(sm.perf = perf_new(&sm)))
		abort();
	for (int round = 0; round < 3; round++)
		counter_sweep();
	if (sm.cfg.health_action == HEALTH_ISOLATE) {
		sweep_to_end(NULL, 0);
		counter_sweep();
	}
	perf_free(sm.perf);
	health_free(sm.health);
	fuzz_sm_teardown();
	return 0;
}
