/*
 * Fuzz target: a whole heavy sweep, then a repair, fed whatever the
 * nodes answer. Behind a fake MAD port (every mad_ call the sweep makes
 * wrapped at link time), the simulator of tests/common/smp_sim.h answers
 * every SMP as a 2-level radix-4 fat tree would, Gets and Sets alike; the
 * input then rewrites or loses answers it names by number
 * (fuzz_answers.h). A real SQLite database in /tmp takes each
 * sweep. Between the two, a light sweep and a whole table audit (every
 * LFT block, SL-to-VL, VL arbitration and P_Key table read back).
 * Discovery, LIDs, routing, programming (LFTs, SL-to-VL, P_Keys, port
 * states), the store, the light sweep's and the audit's findings and the
 * repair's read-back all meet what the answers say; so does the election,
 * against the other SM the simulator puts on a CA (sim_other_sm: a
 * STANDBY of priority 0 unless the input says otherwise, when fabricd may
 * stand by or hand the subnet over, and the master's steps after are
 * skipped). Each must end, whatever they say (a hang is the timeout's
 * finding).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define assert_true(x) do { if (!(x)) abort(); } while (0)	/* smp_sim.h's, without cmocka */

#include "sm/sm.h"
#include "sm/log.h"
#include "sm/sweep/audit.h"
#include "sm/sweep/light.h"
#include "sm/sweep/sweep.h"
#include "smp_sim.h"
#include "sim_port.h"
#include "fuzz_answers.h"
#include "fuzz_sm.h"

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	return fuzz_queue(method, attr, mod, path, hops, data, len, done, ctx);
}

static void on_lit(struct sm *s, const struct light_report *r)
{
	ended = true;
}

static void on_audited(struct sm *s, const struct audit_report *r)
{
	ended = true;
}

/* Answers what a light sweep or an audit (started with ended false) asked, in order, until it ends. */
static void answer_to_end(void)
{
	for (size_t next = 0; !ended; next++) {
		if (next == queued)
			abort();	/* nothing left to answer, yet not ended: it would wait for ever */
		queue[next].done(queue[next].ctx, queue[next].status, queue[next].status ? NULL : &queue[next].reply);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_level(LOG_ERROR);	/* the sweeps' lines, a thousand a second, say nothing here */
	fuzz_answers_start(data, size);
	const struct node *other = truth.nodes[truth.nnodes - 2];
	sim_other_sm = other->type == NODE_CA && other != sim_sm_node() ? other->index : 0;
	fuzz_sm_setup("sweep");
	sweep_to_end(NULL, 0);
	const struct node *ca = truth.nodes[truth.nnodes - 1];
	uint64_t leaf = ca->type == NODE_CA && ca->ports[1].remote ? ca->ports[1].remote->guid : 0;
	bool master = sm_published(&sm) && sm.state == SM_MASTER;	/* the election may have made it stand by */
	if (master) {
		queued = 0;
		ended = false;
		light_sweep(&sm, on_lit);
		answer_to_end();
		queued = 0;
		ended = false;
		sm.audit.whole_wanted = true;
		audit_tables(&sm, on_audited);
		answer_to_end();
	}
	if (master && sm.state == SM_MASTER && leaf)
		sweep_to_end(&leaf, 1);
	fuzz_sm_teardown();
	return 0;
}
