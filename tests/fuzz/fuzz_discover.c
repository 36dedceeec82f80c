/*
 * Fuzz target: discovery (sm/sweep/discover.c) and its repair fed
 * whatever the nodes answer. Behind a fake MAD port (mad_send_dr wrapped
 * at link time), the simulator of tests/common/smp_sim.h answers every
 * SMP as a 2-level radix-4 fat tree would; the input then rewrites or
 * loses answers it names by number (fuzz_answers.h). Once the discovery
 * ends, a repair from the leaf of the last CA goes the same way.
 * Any host answers the SMPs to its own port, and a switch may be buggy:
 * nothing it says may make fabricd read or write past what it holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define assert_true(x) do { if (!(x)) abort(); } while (0)	/* smp_sim.h's, without cmocka */

#include "sm/smnode.h"
#include "sm/sweep/discover.h"
#include "smp_sim.h"
#include "fuzz_answers.h"

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	return fuzz_queue(method, attr, mod, path, hops, data, len, done, ctx);
}

static bool ended;
static struct disc_report report;

static void on_done(void *arg, const struct disc_report *r)
{
	report = *r;
	ended = true;
}

/* Delivers the answers first in, first out until the discovery ends. */
static void deliver(void)
{
	size_t first = 0;
	while (!ended && first < queued) {
		struct answer a = queue[first++];
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
	}
	if (!ended)
		abort();	/* answered all, yet not done: it would hang */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_answers_start(data, size);
	struct mkey_config off = { 0 };
	struct mkeys keys;
	if (mkeys_init(&keys, &off, NULL, 0) < 0)
		abort();
	struct fabric f, g;
	fabric_init(&f);
	queued = 0;
	ended = false;
	if (disc_start(NULL, &keys, &f, on_done, NULL) < 0)
		abort();
	deliver();
	const struct node *ca = truth.nodes[truth.nnodes - 1];
	uint64_t leaf = ca->type == NODE_CA && ca->ports[1].remote ? ca->ports[1].remote->guid : 0;
	if (report.nodes && leaf && fabric_find_guid(&f, leaf)) {
		queued = 0;
		ended = false;
		if (disc_repair(NULL, &keys, &f, &leaf, 1, &g, on_done, NULL, NULL) < 0)
			abort();
		deliver();
		sm_node_detach_all(&g);
		fabric_free(&g);
	}
	sm_node_detach_all(&f);
	fabric_free(&f);
	mkeys_free(&keys);
	return 0;
}
