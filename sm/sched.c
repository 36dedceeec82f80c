/*
 * DOC: when sweeps run
 *
 * One sweep at a time (sm->sched.sweeping): a sweep asked for while one
 * runs follows it (resweep_wanted). After each sweep, heavy or light, a
 * master arms the next light sweep sweep_interval seconds on (or a full
 * heavy sweep, when full_sweep_interval has passed since the last one).
 * After a light sweep that found nothing, the table audit reads a few of
 * the switches' LFT blocks and the nodes' port tables back (sm/sweep/
 * audit.c); one unlike the published sweep's asks for a full sweep.
 * fabricctl audit asks for one of every block and table: now, or once
 * the sweep running ends.
 * A heavy sweep is a repair when all it was asked for is switches that
 * reported a port change (Trap 128, or PortStateChange in a light sweep)
 * and the switches hold the published sweep; else it is full: on
 * request (SIGHUP, fabricctl, the election, health), after other traps,
 * without a clean sweep. A light sweep's silent switches are repaired
 * too: the repair falls back to a full discovery if it cannot reach them.
 * A trap that reports a change asks for a sweep once the traps have been
 * quiet for trap_quiet_ms, and at most trap_holddown_ms after the first
 * such trap, however many more come; the repair reads every switch that
 * reported one meanwhile. The quiet window is why a link's repair need
 * not wait the whole hold-down: both ends of a cable report its loss at
 * nearly the same moment (ibsim in the same millisecond). A switch that
 * reports a change while a repair still reads the fabric joins it (read
 * in a later wave); one reported later is repaired right after it. The
 * first report of a change (a trap, a light sweep's or the audit's
 * finding) is noted for the sweep that answers it, which times it until
 * the switches hold its tables (sm/reaction.h). A
 * STANDBY or NOTACTIVE SM does not sweep. A published sweep is followed
 * by the multicast trees on its fabric; every heavy sweep's end is told
 * to systemd (STATUS=). With --once nothing is rearmed: the first sweep's
 * end (once its MFT Sets are answered) ends the run, exit 0 for a clean
 * sweep or a standby, 1 otherwise; traps start no sweep.
 *
 * The sweeps report back through the callbacks given when they start, and
 * the election asks for a sweep through sm->sched.want_sweep: sched.c depends on
 * them, never the other way round.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "sm/ha/ha.h"
#include "sm/sa/mcast.h"
#include "sm/sweep/audit.h"
#include "sm/sweep/light.h"
#include "sm/log.h"
#include "sm/sm.h"
#include "sm/sweep/sweep.h"

static void kick(struct sm *sm);
static void on_audit_done(struct sm *sm, const struct audit_report *r);

/* The switches hold the published sweep, and this SM masters them: an audit can be made. */
static bool auditable(const struct sm *sm)
{
	return sm->state == SM_MASTER && sm_published(sm) && sm->last_sweep_ok;
}

static void next(struct sm *sm)
{
	if (sm->sched.resweep_wanted) {
		sm->sched.resweep_wanted = false;
		kick(sm);
	} else if (sm->audit.whole_wanted && auditable(sm) && !sm->once) {
		evl_timer_cancel(sm->sched.sweep_timer);	/* its light sweep comes after the audit */
		audit_tables(sm, on_audit_done);
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
	if (o->published || sm->mcast.deferred)	/* the groups' trees on the fabric as it is now */
		mcast_program(sm, NULL);
	next(sm);
}

/* A change was reported now: the next heavy sweep answers it (unless it answers an earlier one too). */
static void change_seen(struct sm *sm)
{
	if (!sm->sched.change_seen_ms)
		sm->sched.change_seen_ms = evl_now_ms();
}

/* Adds guid to the switches the next repair reads (once each); out of memory, the next sweep is full. */
static void add_repair(struct sm *sm, uint64_t guid)
{
	struct sm_sched *c = &sm->sched;
	for (size_t i = 0; i < c->nrepair; i++)
		if (c->repair[i] == guid)
			return;
	if (c->nrepair == c->repair_cap) {
		size_t cap = c->repair_cap ? c->repair_cap * 2 : 16;
		uint64_t *r = realloc(c->repair, cap * sizeof(*r));
		if (!r) {
			c->full_wanted = true;
			return;
		}
		c->repair = r;
		c->repair_cap = cap;
	}
	c->repair[c->nrepair++] = guid;
}

/* A switch holding a table unlike the published one: the full sweep that reads it back and rewrites it. */
static void on_audit_done(struct sm *sm, const struct audit_report *r)
{
	if (r->switches) {
		change_seen(sm);
		sm_sweep_request(sm);
	} else {
		next(sm);
	}
}

static void on_light_done(struct sm *sm, const struct light_report *r)
{
	if (r->silent && !r->nchanged)	/* silence it cannot name (no memory): only a full sweep tells */
		sm->sched.full_wanted = true;
	for (size_t i = 0; i < r->nchanged; i++)
		add_repair(sm, r->changed[i]);
	if (r->nchanged || r->silent) {
		change_seen(sm);
		kick(sm);
	} else if ((sm->cfg.lft_audit_blocks || sm->cfg.port_audit_tables || sm->audit.whole_wanted) && !sm->sched.resweep_wanted)
		audit_tables(sm, on_audit_done);
	else
		next(sm);
}

/* The safety net under the repairs: a full heavy sweep at least every full_sweep_interval seconds. */
static bool full_sweep_due(const struct sm *sm)
{
	uint64_t every = (uint64_t)sm->cfg.full_sweep_interval * 1000;
	return every && evl_now_ms() - sm->sched.last_full_ms >= every;
}

static void on_sweep_timer(void *arg)
{
	struct sm *sm = arg;
	if (!sm_published(sm) || !sm->last_sweep_ok || sm->sched.sweeping || full_sweep_due(sm))
		sm_sweep_request(sm);
	else
		light_sweep(sm, on_light_done);
}

static void on_change_timer(void *arg)
{
	struct sm *sm = arg;
	sm->sched.change_pending = false;
	log_info("sweep: after a trap (%llu ms after the first; quiet %u ms, hold-down %u ms)",
		 (unsigned long long)(evl_now_ms() - sm->sched.change_first_ms), sm->cfg.trap_quiet_ms,
		 sm->cfg.trap_holddown_ms);
	kick(sm);
}

/* Starts the sweep asked for: a repair of the switches that reported changes, or a full one. */
static void kick(struct sm *sm)
{
	struct sm_sched *c = &sm->sched;
	if (sm->state == SM_STANDBY || sm->state == SM_NOTACTIVE) {
		log_info("sweep: not swept: this SM is %s", ha_state_name(sm->state));
		c->nrepair = 0;
		c->full_wanted = false;
		c->change_seen_ms = 0;	/* the master answers it */
		return;
	}
	if (c->sweeping) {
		c->resweep_wanted = true;
		return;
	}
	evl_timer_cancel(c->sweep_timer);
	/* the switches must hold the published tables for a repair to start from them */
	bool full = c->full_wanted || !c->nrepair || !sm_published(sm) || !sm->last_sweep_ok;
	size_t n = full ? 0 : c->nrepair;
	c->nrepair = 0;
	c->full_wanted = false;
	if (full)
		c->last_full_ms = evl_now_ms();
	sweep_start(sm, c->repair, n, after_sweep);
}

void sm_sweep_request(struct sm *sm)
{
	sm->sched.full_wanted = true;
	kick(sm);
}

int sm_audit_request(struct sm *sm, size_t *blocks, size_t *tables, char *why, size_t len)
{
	if (!auditable(sm)) {
		snprintf(why, len, sm->state != SM_MASTER ? "this SM is %s: the master audits its tables"
			 : "no clean sweep: the next full sweep reads back what it cannot vouch for",
			 ha_state_name(sm->state));
		return -1;
	}
	*blocks = audit_blocks_published(sm_published(sm));
	*tables = audit_port_tables_published(sm_published(sm));
	sm->audit.whole_wanted = true;
	if (!sm->sched.sweeping)
		next(sm);	/* else once the sweep running ends */
	return 0;
}

/*
 * Each change trap (re)arms the sweep for trap_quiet_ms on, never past
 * trap_holddown_ms after the first. The callers ignore changes under
 * --once: its one sweep is the whole run.
 */
static void hold_down(struct sm *sm)
{
	struct sm_sched *c = &sm->sched;
	uint64_t now = evl_now_ms(), quiet = sm->cfg.trap_quiet_ms;
	change_seen(sm);
	if (!c->change_pending) {
		c->change_pending = true;
		c->change_first_ms = now;
	} else if (!quiet) {
		return;		/* the whole hold-down, armed at the first trap */
	}
	uint64_t end = c->change_first_ms + sm->cfg.trap_holddown_ms, left = end > now ? end - now : 0;
	evl_timer_arm(c->change_timer, quiet && quiet < left ? quiet : left);
}

void sm_sweep_soon(struct sm *sm)
{
	if (sm->once)
		return;
	sm->sched.full_wanted = true;
	hold_down(sm);
}

void sm_repair_soon(struct sm *sm, uint64_t guid)
{
	if (sm->once || sweep_repair_join(sm, guid))
		return;
	add_repair(sm, guid);
	hold_down(sm);
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
	free(sm->sched.repair);
	sm->sched.repair = NULL;
	sm->sched.nrepair = sm->sched.repair_cap = 0;
	evl_watch_free(sm->sched.sweep_timer);
	evl_watch_free(sm->sched.change_timer);
	sm->sched.sweep_timer = sm->sched.change_timer = NULL;
}
