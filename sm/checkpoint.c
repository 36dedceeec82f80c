/*
 * DOC: the database's log copied back when the daemon is idle
 *
 * The database commits into its write-ahead log and never copies the log
 * back into the file by itself (db/db.c): SQLite would do so inside the
 * commit that crosses its mark, and that commit may be a repair's, on the
 * way to SUBNET UP. fabricd does it here instead, CHECKPOINT_DELAY_MS
 * after a write, never while a sweep runs (then it waits for the sweep's
 * end). A checkpoint that fails is logged and tried again after the next
 * write: the log only grows meanwhile, nothing is lost.
 */
#include "sm/log.h"
#include "sm/sm.h"

#define CHECKPOINT_DELAY_MS 500	/* after the write: a trap's burst of sweeps is usually over */

static void on_checkpoint_timer(void *arg)
{
	struct sm *sm = arg;
	if (sm->sched.sweeping) {
		evl_timer_arm(sm->checkpoint.timer, CHECKPOINT_DELAY_MS);
		return;
	}
	sm->checkpoint.pending = false;
	int copied;
	if (db_checkpoint(sm->db, &copied) < 0)
		log_warn("database: %s", db_last_error(sm->db));
}

void sm_db_written(struct sm *sm)
{
	if (sm->checkpoint.pending || !sm->checkpoint.timer)
		return;
	sm->checkpoint.pending = true;
	evl_timer_arm(sm->checkpoint.timer, CHECKPOINT_DELAY_MS);
}

int checkpoint_init(struct sm *sm)
{
	sm->checkpoint.timer = evl_timer(sm->loop, on_checkpoint_timer, sm);
	return sm->checkpoint.timer ? 0 : -1;
}

void checkpoint_free(struct sm *sm)
{
	evl_watch_free(sm->checkpoint.timer);
	sm->checkpoint.timer = NULL;
	sm->checkpoint.pending = false;
}
