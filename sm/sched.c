/*
 * DOC: when sweeps run
 *
 * One sweep at a time (sm->sched.sweeping): a heavy sweep asked for while one
 * runs follows it (resweep_wanted). After each sweep, heavy or light, a
 * master arms the next light sweep sweep_interval seconds on; a light
 * sweep that sees a change, or that cannot run (no clean heavy sweep
 * yet), is a heavy one. A trap that reports a change asks for a heavy
 * sweep trap_holddown_ms after the first such trap, however many more
 * come. A STANDBY or NOTACTIVE SM does not sweep. A published sweep is
 * followed by the multicast trees on its fabric; every heavy sweep's end
 * is told to systemd (STATUS=). With --once nothing is
 * rearmed: the first sweep's end (once its MFT Sets are answered) ends
 * the run, exit 0 for a clean sweep or a standby, 1 otherwise; traps
 * start no sweep.
 *
 * The sweeps report back through the callbacks given when they start, and
 * the election asks for a sweep through sm->sched.want_sweep: sched.c depends on
 * them, never the other way round.
 */
#include <stdbool.h>

#include "sm/ha/ha.h"
#include "sm/sa/mcast.h"
#include "sm/sweep/light.h"
#include "sm/log.h"
#include "sm/sm.h"
#include "sm/sweep/sweep.h"

static void next(struct sm *sm)
{
	if (sm->sched.resweep_wanted) {
		sm->sched.resweep_wanted = false;
		sm_sweep_request(sm);
	} else if (sm->cfg.sweep_interval && sm->state == SM_MASTER && !sm->once) {
		evl_timer_arm(sm->sched.sweep_timer, (uint64_t)sm->cfg.sweep_interval * 1000);
	}
}

static void stop_run(struct sm *sm)
{
	evl_stop(sm->loop);
}

/* systemd's STATUS= line (systemctl status shows it) after each heavy sweep. */
static void tell_systemd(struct sm *sm, const struct sweep_outcome *o)
{
	const struct sm_snapshot *pub = sm_published(sm);
	if (sm->state != SM_MASTER || !pub)
		notify_send(sm->notify, "STATUS=%s, not programming the subnet", ha_state_name(sm->state));
	else
		notify_send(sm->notify, "STATUS=MASTER, subnet up: %zu nodes, max LID %u; sweep %u %s", pub->fabric.nnodes,
			    pub->tables.max_lid, sm->act_count, o->ok ? "clean" : o->published ? "degraded" : "failed");
}

static void after_sweep(struct sm *sm, const struct sweep_outcome *o)
{
	tell_systemd(sm, o);
	if (sm->once) {
		sm->exit_code = o->ok ? 0 : 1;
		if (!(o->published && mcast_program(sm, stop_run)))
			stop_run(sm);
		return;
	}
	if (o->published)	/* the groups' trees on the fabric as it is now */
		mcast_program(sm, NULL);
	next(sm);
}

static void on_light_done(struct sm *sm, bool changed)
{
	if (changed)
		sm_sweep_request(sm);
	else
		next(sm);
}

static void on_sweep_timer(void *arg)
{
	struct sm *sm = arg;
	if (!sm_published(sm) || !sm->last_sweep_ok || sm->sched.sweeping)
		sm_sweep_request(sm);
	else
		light_sweep(sm, on_light_done);
}

static void on_change_timer(void *arg)
{
	struct sm *sm = arg;
	sm->sched.change_pending = false;
	log_info("sweep: after a trap (hold-down %u ms)", sm->cfg.trap_holddown_ms);
	sm_sweep_request(sm);
}

void sm_sweep_request(struct sm *sm)
{
	if (sm->state == SM_STANDBY || sm->state == SM_NOTACTIVE) {
		log_info("sweep: not swept: this SM is %s", ha_state_name(sm->state));
		return;
	}
	if (sm->sched.sweeping) {
		sm->sched.resweep_wanted = true;
		return;
	}
	evl_timer_cancel(sm->sched.sweep_timer);
	sweep_start(sm, after_sweep);
}

void sm_sweep_soon(struct sm *sm)
{
	if (sm->sched.change_pending || sm->once)
		return;
	sm->sched.change_pending = true;
	evl_timer_arm(sm->sched.change_timer, sm->cfg.trap_holddown_ms);
}

int sched_init(struct sm *sm)
{
	sm->sched.sweep_timer = evl_timer(sm->loop, on_sweep_timer, sm);
	sm->sched.change_timer = evl_timer(sm->loop, on_change_timer, sm);
	sm->sched.want_sweep = sm_sweep_request;
	return sm->sched.sweep_timer && sm->sched.change_timer ? 0 : -1;
}

void sched_free(struct sm *sm)
{
	evl_watch_free(sm->sched.sweep_timer);
	evl_watch_free(sm->sched.change_timer);
	sm->sched.sweep_timer = sm->sched.change_timer = NULL;
}
