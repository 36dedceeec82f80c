/*
 * When sweeps run (sm/sched.c), with the sweeps themselves replaced at link
 * time (-Wl,--wrap=sweep_start,light_sweep,audit_tables,sweep_repair_join): the test sees each start and
 * ends it when it likes, on a real event loop run for a few milliseconds.
 *
 * - A storm of traps becomes one heavy sweep per hold-down.
 * - Traps that fall quiet start it before the hold-down ends (trap_quiet_ms;
 *   0 waits the whole hold-down); traps that keep coming delay it no further
 *   than the hold-down.
 * - A sweep asked for while one runs follows it, once.
 * - A STANDBY or NOTACTIVE SM does not sweep.
 * - The light sweep runs on its timer after a clean sweep; one that saw a
 *   change is followed by a heavy sweep; without a clean sweep the timer
 *   starts a heavy one.
 * - Trap 128s from switches become one repair of those switches, as do
 *   the switches a light sweep finds changed or silent; a switch that
 *   reports while a repair reads the fabric joins it (no repair of its
 *   own), one that reports later gets the next repair; a full sweep asked
 *   for meanwhile makes it a full one; full_sweep_interval brings a full
 *   sweep in place of a light one.
 * - A change is timed from its first report (a trap, a light sweep's or
 *   the audit's finding) to the sweep that answers it; a standby's are
 *   dropped.
 * - A light sweep that found nothing is followed by the table audit
 *   (unless lft_audit_blocks and port_audit_tables are both 0, or a sweep
 *   was asked for meanwhile); an audit that found a node unlike the
 *   published sweep brings a full sweep, one that found none the next
 *   light sweep. fabricctl audit
 *   starts one of every block at once, or once the sweep running ends;
 *   not on a standby or without a clean sweep.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "sm/sm.h"
#include "sm/sweep/audit.h"
#include "sm/sweep/light.h"
#include "sm/sweep/sweep.h"

static unsigned heavy, light, audits, whole_audits;
static sweep_done_fn heavy_done;
static light_done_fn light_done;
static audit_done_fn audit_done;
static uint64_t repaired[8];	/* the last heavy sweep's switches to repair; none: it was full */
static size_t nrepaired;
static bool reading;	/* the repair running reads the fabric: a switch may join it */
static uint64_t joined[8];	/* the switches that joined it */
static size_t njoined;

bool __wrap_sweep_repair_join(struct sm *sm, uint64_t guid)
{
	(void)sm;
	if (!reading)
		return false;
	assert_true(njoined < 8);
	joined[njoined++] = guid;
	return true;
}

void __wrap_sweep_start(struct sm *sm, const uint64_t *repair, size_t nrepair, sweep_done_fn done)
{
	sm->sched.sweeping = true;
	heavy++;
	heavy_done = done;
	assert_true(nrepair <= 8);
	if (nrepair)
		memcpy(repaired, repair, nrepair * sizeof(*repair));
	nrepaired = nrepair;
}

void __wrap_light_sweep(struct sm *sm, light_done_fn done)
{
	sm->sched.sweeping = true;
	light++;
	light_done = done;
}

void __wrap_audit_tables(struct sm *sm, audit_done_fn done)
{
	sm->sched.sweeping = true;
	audits++;
	whole_audits += sm->audit.whole_wanted;
	sm->audit.whole_wanted = false;
	audit_done = done;
}

/* Runs the loop for ms milliseconds. */
static void run_for(struct sm *sm, uint64_t ms)
{
	test_run_loop_for(sm->loop, ms);
}

/* A master with a published clean sweep, sweeping every interval_s, hold-down 20 ms. */
static void master(struct sm *sm, unsigned interval_s)
{
	memset(sm, 0, sizeof(*sm));
	config_defaults(&sm->cfg);
	sm->cfg.sweep_interval = interval_s;
	sm->cfg.trap_holddown_ms = 20;
	sm->loop = evl_new();
	assert_non_null(sm->loop);
	assert_int_equal(sched_init(sm), 0);
	sm->state = SM_MASTER;
	sm->pub = calloc(1, sizeof(*sm->pub));	/* an empty published sweep: the sweeps are the test's */
	assert_non_null(sm->pub);
	sm->last_sweep_ok = true;
	heavy = light = audits = whole_audits = 0;
}

static void done(struct sm *sm)
{
	sched_free(sm);
	evl_free(sm->loop);
	sm_snapshot_free(sm->pub);
	routing_memo_free(&sm->route_memo);
}

/* Ends the heavy sweep running. */
static void end_heavy(struct sm *sm)
{
	assert_true(sm->sched.sweeping);
	sm->sched.sweeping = false;
	heavy_done(sm, &(struct sweep_outcome){ .ok = true });
}

static void a_trap_storm_is_one_sweep_per_hold_down(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	for (int i = 0; i < 50; i++)
		sm_sweep_soon(&sm);
	assert_int_equal(heavy, 0);	/* not before the hold-down */
	run_for(&sm, 60);
	assert_int_equal(heavy, 1);
	end_heavy(&sm);
	for (int i = 0; i < 50; i++)	/* the next event: its own hold-down, its own sweep */
		sm_sweep_soon(&sm);
	run_for(&sm, 60);
	assert_int_equal(heavy, 2);
	end_heavy(&sm);
	done(&sm);
}

static void quiet_traps_start_the_repair_before_the_hold_down(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	sm.cfg.trap_holddown_ms = 10000;
	sm.cfg.trap_quiet_ms = 20;
	sm_repair_soon(&sm, 0x10);
	sm_repair_soon(&sm, 0x20);	/* the far end of the same cable */
	run_for(&sm, 100);
	assert_int_equal(heavy, 1);
	assert_int_equal(nrepaired, 2);
	end_heavy(&sm);
	sm.cfg.trap_quiet_ms = 0;	/* off: the whole hold-down */
	sm_repair_soon(&sm, 0x10);
	run_for(&sm, 100);
	assert_int_equal(heavy, 1);
	done(&sm);
}

static void traps_that_keep_coming_wait_at_most_the_hold_down(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	sm.cfg.trap_holddown_ms = 150;
	sm.cfg.trap_quiet_ms = 40;
	uint64_t first = evl_now_ms(), last = first, widest_gap = 0, swept_at = 0;
	for (int i = 0; i < 100 && !heavy; i++) {
		uint64_t now = evl_now_ms();
		if (now - last > widest_gap)
			widest_gap = now - last;
		last = now;
		sm_sweep_soon(&sm);
		run_for(&sm, 5);
		swept_at = evl_now_ms();
	}
	assert_int_equal(heavy, 1);	/* 100 traps 5 ms apart: the hold-down ended it */
	if (widest_gap < sm.cfg.trap_quiet_ms)	/* the machine never stalled as long as the quiet window */
		assert_true(swept_at - first >= sm.cfg.trap_holddown_ms);
	end_heavy(&sm);
	done(&sm);
}

static void a_request_during_a_sweep_follows_it_once(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	sm_sweep_request(&sm);
	assert_int_equal(heavy, 1);
	sm_sweep_request(&sm);
	sm_sweep_request(&sm);
	assert_int_equal(heavy, 1);
	end_heavy(&sm);
	assert_int_equal(heavy, 2);	/* the one asked for meanwhile, at once */
	end_heavy(&sm);
	assert_int_equal(heavy, 2);
	done(&sm);
}

static void standby_and_notactive_do_not_sweep(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	sm.state = SM_STANDBY;
	sm_sweep_request(&sm);
	sm.state = SM_NOTACTIVE;
	sm_sweep_request(&sm);
	assert_int_equal(heavy, 0);
	sm.state = SM_DISCOVERING;	/* a lost master: discover and elect */
	sm_sweep_request(&sm);
	assert_int_equal(heavy, 1);
	end_heavy(&sm);
	done(&sm);
}

static void the_light_sweep_runs_on_its_timer(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 1);
	sm_sweep_request(&sm);
	end_heavy(&sm);	/* arms the light sweep, 1 s on */
	run_for(&sm, 300);
	assert_int_equal(light, 0);
	run_for(&sm, 1500);
	assert_int_equal(light, 1);
	sm.sched.sweeping = false;
	uint64_t sw = 0x42;
	light_done(&sm, &(struct light_report){ .changed = &sw, .nchanged = 1 });	/* a change: repair it now */
	assert_int_equal(heavy, 2);
	assert_int_equal(nrepaired, 1);
	assert_int_equal(repaired[0], 0x42);
	end_heavy(&sm);
	sm.last_sweep_ok = false;	/* a degraded sweep: the timer brings a heavy one */
	run_for(&sm, 1500);
	assert_int_equal(light, 1);
	assert_int_equal(heavy, 3);
	assert_int_equal(nrepaired, 0);
	end_heavy(&sm);
	sm.last_sweep_ok = true;
	run_for(&sm, 1500);
	assert_int_equal(light, 2);
	sm.sched.sweeping = false;
	light_done(&sm, &(struct light_report){ .changed = &sw, .nchanged = 1, .silent = 1 });
	assert_int_equal(heavy, 4);	/* a switch that did not answer is repaired too */
	assert_int_equal(nrepaired, 1);
	end_heavy(&sm);
	run_for(&sm, 1500);
	assert_int_equal(light, 3);
	sm.sched.sweeping = false;
	light_done(&sm, &(struct light_report){ .silent = 1 });	/* silence without names: full */
	assert_int_equal(heavy, 5);
	assert_int_equal(nrepaired, 0);
	end_heavy(&sm);
	done(&sm);
}

/* Ends the light sweep running, with nothing found. */
static void quiet_light(struct sm *sm)
{
	assert_true(sm->sched.sweeping);
	sm->sched.sweeping = false;
	light_done(sm, &(struct light_report){ 0 });
}

static void a_quiet_light_sweep_is_followed_by_the_table_audit(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 1);
	sm_sweep_request(&sm);
	end_heavy(&sm);
	run_for(&sm, 1500);
	assert_int_equal(light, 1);
	quiet_light(&sm);
	assert_int_equal(audits, 1);
	assert_int_equal(heavy, 1);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ .read = 256 });	/* all as published: the next light sweep */
	assert_int_equal(heavy, 1);
	run_for(&sm, 1500);
	assert_int_equal(light, 2);
	quiet_light(&sm);
	assert_int_equal(audits, 2);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ .read = 256, .differed = 2, .switches = 1 });
	assert_int_equal(heavy, 2);	/* a switch unlike the published tables: a full sweep at once */
	assert_int_equal(nrepaired, 0);
	end_heavy(&sm);
	run_for(&sm, 1500);
	assert_int_equal(light, 3);
	sm_sweep_request(&sm);	/* asked for during the light sweep: it comes next, no audit first */
	quiet_light(&sm);
	assert_int_equal(audits, 2);
	assert_int_equal(heavy, 3);
	end_heavy(&sm);
	sm.cfg.lft_audit_blocks = 0;	/* the port tables alone */
	run_for(&sm, 1500);
	assert_int_equal(light, 4);
	quiet_light(&sm);
	assert_int_equal(audits, 3);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ .port_read = 256 });
	sm.cfg.port_audit_tables = 0;	/* no audit */
	run_for(&sm, 1500);
	assert_int_equal(light, 5);
	quiet_light(&sm);
	assert_int_equal(audits, 3);
	run_for(&sm, 1500);
	assert_int_equal(light, 6);
	done(&sm);
}

static void fabricctl_audit_reads_every_block_now_or_after_the_sweep(void **state)
{
	(void)state;
	struct sm sm;
	char why[160];
	size_t blocks, tables;
	master(&sm, 0);
	sm_sweep_request(&sm);
	end_heavy(&sm);
	assert_int_equal(sm_audit_request(&sm, &blocks, &tables, why, sizeof(why)), 0);	/* idle: at once */
	assert_int_equal(whole_audits, 1);
	assert_int_equal(sm_audit_request(&sm, &blocks, &tables, why, sizeof(why)), 0);	/* during that audit: after it */
	assert_int_equal(whole_audits, 1);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ 0 });
	assert_int_equal(whole_audits, 2);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ 0 });
	sm_sweep_request(&sm);
	assert_int_equal(sm_audit_request(&sm, &blocks, &tables, why, sizeof(why)), 0);	/* during a heavy sweep: after it */
	assert_int_equal(whole_audits, 2);
	end_heavy(&sm);
	assert_int_equal(whole_audits, 3);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ 0 });
	sm.last_sweep_ok = false;
	assert_int_equal(sm_audit_request(&sm, &blocks, &tables, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no clean sweep"));
	sm.last_sweep_ok = true;
	sm.state = SM_STANDBY;
	assert_int_equal(sm_audit_request(&sm, &blocks, &tables, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "STANDBY"));
	assert_int_equal(whole_audits, 3);
	done(&sm);
}

static void traps_from_switches_are_one_repair_unless_a_full_sweep_is_asked_for(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	sm_sweep_request(&sm);
	end_heavy(&sm);
	sm_repair_soon(&sm, 0x10);
	sm_repair_soon(&sm, 0x20);
	sm_repair_soon(&sm, 0x10);
	run_for(&sm, 60);
	assert_int_equal(heavy, 2);
	assert_int_equal(nrepaired, 2);
	assert_int_equal(repaired[0], 0x10);
	assert_int_equal(repaired[1], 0x20);
	sm_repair_soon(&sm, 0x30);	/* during the repair: the next one, after the hold-down */
	run_for(&sm, 60);
	assert_int_equal(heavy, 2);
	end_heavy(&sm);
	assert_int_equal(heavy, 3);
	assert_int_equal(nrepaired, 1);
	assert_int_equal(repaired[0], 0x30);
	end_heavy(&sm);
	sm_repair_soon(&sm, 0x40);
	sm_sweep_soon(&sm);	/* another trap (144): a full sweep, which covers the repair */
	run_for(&sm, 60);
	assert_int_equal(heavy, 4);
	assert_int_equal(nrepaired, 0);
	end_heavy(&sm);
	sm.last_sweep_ok = false;	/* the switches may not hold the published tables */
	sm_repair_soon(&sm, 0x50);
	run_for(&sm, 60);
	assert_int_equal(heavy, 5);
	assert_int_equal(nrepaired, 0);
	end_heavy(&sm);
	done(&sm);
}

static void a_switch_reporting_while_the_repair_reads_joins_it(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 0);
	njoined = 0;
	sm_repair_soon(&sm, 0x10);
	run_for(&sm, 60);
	assert_int_equal(heavy, 1);
	reading = true;
	sm_repair_soon(&sm, 0x20);	/* joins the repair that reads */
	reading = false;
	assert_int_equal(njoined, 1);
	assert_int_equal(joined[0], 0x20);
	run_for(&sm, 60);
	end_heavy(&sm);
	run_for(&sm, 60);
	assert_int_equal(heavy, 1);	/* no repair of its own */
	sm_repair_soon(&sm, 0x30);	/* no repair reads: one of its own */
	assert_int_equal(njoined, 1);
	run_for(&sm, 60);
	assert_int_equal(heavy, 2);
	assert_int_equal(nrepaired, 1);
	assert_int_equal(repaired[0], 0x30);
	sm_repair_soon(&sm, 0x40);	/* the repair has read the fabric: the next one */
	end_heavy(&sm);
	run_for(&sm, 60);
	assert_int_equal(heavy, 3);
	assert_int_equal(nrepaired, 1);
	assert_int_equal(repaired[0], 0x40);
	end_heavy(&sm);
	done(&sm);
}

/*
 * A change is timed from its first report (sm->sched.change_seen_ms, which
 * the sweep that answers it takes): a trap, a light sweep that found one,
 * the audit finding a table unlike the published one; not a quiet light
 * sweep or an operator's request. A standby answers none.
 */
static void changes_are_timed_from_their_first_report(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 1);
	sm_sweep_request(&sm);	/* an operator's: no change reported */
	assert_int_equal(sm.sched.change_seen_ms, 0);
	end_heavy(&sm);
	uint64_t before = evl_now_ms();
	sm_repair_soon(&sm, 0x10);
	uint64_t first = sm.sched.change_seen_ms;
	assert_true(first >= before && first <= evl_now_ms());
	run_for(&sm, 5);
	sm_repair_soon(&sm, 0x20);	/* the other end of the cable: the same change */
	assert_int_equal(sm.sched.change_seen_ms, first);
	run_for(&sm, 60);
	end_heavy(&sm);
	sm.sched.change_seen_ms = 0;	/* as the sweep took it */
	run_for(&sm, 1500);
	quiet_light(&sm);
	assert_int_equal(sm.sched.change_seen_ms, 0);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ .read = 256, .differed = 1, .switches = 1 });
	assert_int_not_equal(sm.sched.change_seen_ms, 0);
	end_heavy(&sm);
	sm.sched.change_seen_ms = 0;
	run_for(&sm, 1500);
	uint64_t sw = 0x42;
	sm.sched.sweeping = false;
	light_done(&sm, &(struct light_report){ .changed = &sw, .nchanged = 1 });
	assert_int_not_equal(sm.sched.change_seen_ms, 0);
	end_heavy(&sm);
	sm.state = SM_STANDBY;
	sm_repair_soon(&sm, 0x10);
	run_for(&sm, 60);
	assert_int_equal(sm.sched.change_seen_ms, 0);	/* the master answers it */
	done(&sm);
}

static void a_full_sweep_takes_a_light_sweeps_turn_once_due(void **state)
{
	(void)state;
	struct sm sm;
	master(&sm, 1);
	sm.cfg.full_sweep_interval = 2;
	sm_sweep_request(&sm);
	end_heavy(&sm);
	run_for(&sm, 1200);	/* 1 s on: a light sweep */
	assert_int_equal(light, 1);
	assert_int_equal(heavy, 1);
	quiet_light(&sm);
	sm.sched.sweeping = false;
	audit_done(&sm, &(struct audit_report){ 0 });
	run_for(&sm, 1200);	/* 2 s since the full one: full again */
	assert_int_equal(light, 1);
	assert_int_equal(heavy, 2);
	assert_int_equal(nrepaired, 0);
	end_heavy(&sm);
	done(&sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_trap_storm_is_one_sweep_per_hold_down),
		cmocka_unit_test(quiet_traps_start_the_repair_before_the_hold_down),
		cmocka_unit_test(traps_that_keep_coming_wait_at_most_the_hold_down),
		cmocka_unit_test(a_request_during_a_sweep_follows_it_once),
		cmocka_unit_test(standby_and_notactive_do_not_sweep),
		cmocka_unit_test(the_light_sweep_runs_on_its_timer),
		cmocka_unit_test(a_quiet_light_sweep_is_followed_by_the_table_audit),
		cmocka_unit_test(fabricctl_audit_reads_every_block_now_or_after_the_sweep),
		cmocka_unit_test(traps_from_switches_are_one_repair_unless_a_full_sweep_is_asked_for),
		cmocka_unit_test(a_switch_reporting_while_the_repair_reads_joins_it),
		cmocka_unit_test(changes_are_timed_from_their_first_report),
		cmocka_unit_test(a_full_sweep_takes_a_light_sweeps_turn_once_due),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
