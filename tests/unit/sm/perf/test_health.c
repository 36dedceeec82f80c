/*
 * Unhealthy ports (sm/perf/health.c) on a ring of five switches with a
 * host each, the counter sweeps played by the test:
 * - errors under the threshold leave a port healthy; over it, the port is
 *   unhealthy (an event), and isolate asks for one heavy sweep;
 * - the count is a sliding window: errors a window old no longer count;
 * - health_hide takes a ring link out of the routing's view (and
 *   health_unhide puts it back), but keeps a host's only link, saying why;
 * - after clean_s without errors the port is healthy again, and the
 *   routing is asked to take the link back; health clear does it at once;
 * - traps 129-131 count against the port they name (by LID and port).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "sm/perf/health.h"
#include "sm/sm.h"

static unsigned sweeps_wanted;

static void want_sweep(struct sm *sm)
{
	(void)sm;
	sweeps_wanted++;
}

static void setup_sm(struct sm *sm, struct health **h)
{
	memset(sm, 0, sizeof(*sm));
	config_defaults(&sm->cfg);
	sm->cfg.health_action = HEALTH_ISOLATE;
	sm->cfg.health_window_s = 100;
	sm->cfg.health_clean_s = 50;
	sm->cfg.health_ber = 0;
	sm->cfg.health_symbol_errors = 10;
	sm->sched.want_sweep = want_sweep;
	sm->pub = calloc(1, sizeof(*sm->pub));
	assert_non_null(sm->pub);
	ring(&sm->pub->fabric);
	sm->pub->fabric.nodes[0]->hops = 0;	/* the SM sits on R0 */
	for (size_t i = 1; i < sm->pub->fabric.nnodes; i++)
		sm->pub->fabric.nodes[i]->hops = 1;
	*h = health_new(sm);
	assert_non_null(*h);
	sweeps_wanted = 0;
}

/* One counter sweep at time t: port (guid, port) saw `errors` symbol errors. */
static void sweep(struct health *h, uint64_t guid, uint8_t port, uint64_t errors, double t)
{
	struct perf_port pp = { .fresh = true, .gbps = 8, .have_raw = true };
	pp.c.node_guid = guid;
	pp.c.port = port;
	pp.c.last.v[PC_SYMBOL_ERRORS] = errors;
	health_update(h, &pp, 1, t);
}

static const struct db_port_health *row(struct health *h, uint64_t guid, uint8_t port)
{
	size_t n;
	const struct db_port_health *r = health_rows(h, &n);
	for (size_t i = 0; i < n; i++)
		if (r[i].node_guid == guid && r[i].port == port)
			return &r[i];
	return NULL;
}

static void done(struct sm *sm, struct health *h)
{
	health_free(h);
	fabric_free(&sm->pub->fabric);
	free(sm->pub);
}

static void window_and_threshold(void **state)
{
	struct sm sm;
	struct health *h;
	setup_sm(&sm, &h);
	sweep(h, 0x200001, 1, 6, 1000);
	sweep(h, 0x200001, 1, 3, 1010);
	assert_null(row(h, 0x200001, 1));	/* 9 < 10 */
	sweep(h, 0x200001, 1, 0, 1250);		/* two windows on: the 9 are forgotten */
	sweep(h, 0x200001, 1, 5, 1260);
	assert_null(row(h, 0x200001, 1));
	sweep(h, 0x200001, 1, 5, 1270);
	const struct db_port_health *r = row(h, 0x200001, 1);
	assert_non_null(r);
	assert_string_equal(r->state, "isolating");
	assert_non_null(strstr(r->why, "symbol_errors 10 in the last 100 s (threshold 10)"));
	assert_int_equal(sweeps_wanted, 1);
	assert_int_equal(sm.events.n, 1);
	assert_string_equal(sm.events.q[0].kind, "port_unhealthy");
	/* the 10 count until they slide out of the window: over at 1350 still (10 x 1.0 of the old bucket) */
	sweep(h, 0x200001, 1, 0, 1350);
	/* under at 1399 (10 x 0.51), but not yet clean for clean_s */
	sweep(h, 0x200001, 1, 0, 1399);
	assert_non_null(row(h, 0x200001, 1));
	/* clean for clean_s: healthy, and the routing takes the link back */
	sweep(h, 0x200001, 1, 0, 1401);
	assert_null(row(h, 0x200001, 1));
	assert_int_equal(sweeps_wanted, 2);
	done(&sm, h);
}

static void hide_keeps_only_links(void **state)
{
	struct sm sm;
	struct health *h;
	setup_sm(&sm, &h);
	struct fabric *f = &sm.pub->fabric;
	sweep(h, 0x200001, 1, 50, 1000);	/* R1[1]: a ring link */
	sweep(h, 0x100004, 1, 50, 1000);	/* H2: its host's only link */
	struct health_hidden hidden[4];
	assert_int_equal(health_isolated_count(h), 2);
	size_t n = health_hide(h, f, hidden, 4);
	assert_int_equal(n, 1);
	struct node *r1 = fabric_find_guid(f, 0x200001), *h2 = fabric_find_guid(f, 0x100004);
	assert_null(r1->ports[1].remote);
	assert_non_null(h2->ports[1].remote);
	assert_string_equal(row(h, 0x200001, 1)->state, "isolated");
	assert_string_equal(row(h, 0x100004, 1)->state, "kept");
	assert_non_null(strstr(row(h, 0x100004, 1)->why, "it is H2's only link"));
	health_unhide(hidden, n);
	assert_true(r1->ports[1].remote == fabric_find_guid(f, 0x200002));
	/* a second ring link as well would cut R2 (and its host) off, R1-R2 and R2-R3 gone: kept */
	sweep(h, 0x200002, 1, 50, 1001);
	n = health_hide(h, f, hidden, 4);
	assert_int_equal(n, 1);
	assert_string_equal(row(h, 0x200001, 1)->state, "isolated");
	assert_string_equal(row(h, 0x200002, 1)->state, "kept");
	assert_non_null(strstr(row(h, 0x200002, 1)->why, "without it 2 nodes lose their path to the SM"));
	health_unhide(hidden, n);
	assert_int_equal(health_clear(h, 0, 0), 3);
	assert_null(row(h, 0x200001, 1));
	done(&sm, h);
}

static void traps_count(void **state)
{
	struct sm sm;
	struct health *h;
	setup_sm(&sm, &h);
	sm.cfg.health_traps = 2;
	number_lids(&sm.pub->fabric);	/* R0..R4: LIDs 1..5 */
	uint16_t r3 = fabric_port_lid(fabric_find_guid(&sm.pub->fabric, 0x200003), 0);
	health_trap(h, r3, 2, 129);
	health_trap(h, 999, 2, 129);	/* no such LID: ignored */
	health_trap(h, r3, 200, 130);	/* no such port: ignored */
	sweep(h, 0x200001, 1, 0, 1e9);
	assert_null(row(h, 0x200003, 2));
	health_trap(h, r3, 2, 131);
	sweep(h, 0x200001, 1, 0, 1e9 + 1);
	const struct db_port_health *r = row(h, 0x200003, 2);
	assert_non_null(r);
	assert_non_null(strstr(r->why, "traps 129-131 2 in the last 100 s (threshold 2)"));
	done(&sm, h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_and_threshold),
		cmocka_unit_test(hide_keeps_only_links),
		cmocka_unit_test(traps_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
