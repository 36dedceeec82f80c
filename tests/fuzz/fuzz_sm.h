/*
 * fuzz_sm.h - the SM that the sweep fuzz targets drive over the simulator
 * of tests/common/smp_sim.h: a master-to-be with its defaults, a real
 * SQLite database in /tmp (named for the target and the process), and
 * heavy sweeps run to their end with the answers first in, first out.
 * Include after smp_sim.h, once.
 */
#ifndef TESTS_FUZZ_SM_H
#define TESTS_FUZZ_SM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm/sm.h"
#include "sm/sweep/sweep.h"

static struct sm sm;
static char db_path[64];
static bool ended;	/* the sweep (or light sweep, audit) running has ended */

static void on_swept(struct sm *s, const struct sweep_outcome *o)
{
	ended = true;
}

static void want_sweep(struct sm *s)
{
}

/* A fresh SM and database for one input; target names the database. */
static void fuzz_sm_setup(const char *target)
{
	char err[DB_ERR_LEN];
	memset(&sm, 0, sizeof(sm));
	memset(state_change, 0, sizeof(state_change));
	config_defaults(&sm.cfg);
	snprintf(db_path, sizeof(db_path), "/tmp/fabricd-fuzz-%s.%d.db", target, (int)getpid());
	unlink(db_path);
	if (!(sm.db = db_open(db_path, DB_READ_WRITE, err)) || !(sm.loop = evl_new()))
		abort();
	sm.mp = (struct mad_port *)&sm;	/* never dereferenced: every mad_ call is wrapped */
	if (mkeys_init(&sm.mkeys, &sm.cfg.mkey, NULL, 0) < 0 || ha_init(&sm) < 0)
		abort();
	if (mcast_init(&sm.mcast, sm.cfg.subnet_prefix) < 0)
		abort();
	sm.sched.want_sweep = want_sweep;
}

static void fuzz_sm_teardown(void)
{
	ha_free(&sm);
	mcast_free(&sm.mcast);
	sm_snapshot_free(sm.pub);
	lost_set_free(&sm.lft_unsure);
	lost_set_free(&sm.port_unsure);
	routing_memo_free(&sm.route_memo);
	mkeys_free(&sm.mkeys);
	db_close(sm.db);
	evl_free(sm.loop);
	static const char *sides[] = { "", "-wal", "-shm" };
	for (size_t i = 0; i < 3; i++) {
		char path[80];
		snprintf(path, sizeof(path), "%s%s", db_path, sides[i]);
		unlink(path);
	}
}

/* Runs a sweep (a repair of the switches named, or full) to its end, the answers first in, first out. */
static void sweep_to_end(const uint64_t *repair, size_t n)
{
	queued = 0;
	ended = false;
	sweep_start(&sm, repair, n, on_swept);
	for (size_t next = 0; !ended;) {
		if (next == queued) {	/* nothing left to answer: a thread of the sweep's is to be back */
			if (evl_run_once(sm.loop) < 0)
				abort();
			continue;
		}
		struct answer a = queue[next++];
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
	}
	queued = 0;
}

#endif
