/*
 * DOC: a heavy sweep's run
 *
 * The phases of a sweep (sm/sweep/sweep.c lists them) begin and end
 * here: each logs its duration and MAD count, and the next one starts
 * when the one before is done. A sweep ends here too: published (its
 * fabric and tables become the snapshot the SA answers from) or not, the
 * scheduler told how it went.
 */
#include "sm/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "sm/log.h"
#include "sm/mad/offload.h"
#include "sm/smnode.h"
#include "sm/sweep/pkeys.h"

double sweep_unix_now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

uint64_t sweep_mads_sent(const struct sweep *s)
{
	return mad_get_stats(s->sm->mp)->sent;
}

static void phase_begin(struct sweep *s, const char *name)
{
	s->phase = name;
	s->phase_t0 = evl_now_ms();
	s->phase_mads0 = sweep_mads_sent(s);
}

void sweep_phase_end(struct sweep *s, const char *detail)
{
	log_info("sweep: %-9s %6llu ms %7llu MADs%s%s", s->phase,
		 (unsigned long long)(evl_now_ms() - s->phase_t0),
		 (unsigned long long)(sweep_mads_sent(s) - s->phase_mads0), detail ? "  " : "",
		 detail ? detail : "");
}

void sweep_sets_failed(struct sweep *s, const struct cfg_result *r)
{
	s->cfg_failed += r->failed;
	if (r->lost)
		lost_set_merge(&s->lost, r->lost);
}

void sweep_free(struct sweep *s)
{
	sm_node_detach_all(&s->f);
	fabric_free(&s->f);
	lid_result_free(&s->lids);
	routing_tables_free(&s->tables);
	routing_tables_free(&s->early);
	pkeys_membership_free(&s->members);
	transition_plan_free(&s->plan);
	lost_set_free(&s->lost);
	lost_set_free(&s->resend_to);
	free(s->changes);
	free(s->repair);
	free(s);
}

void sm_snapshot_free(struct sm_snapshot *snap)
{
	if (!snap)
		return;
	held_graphs_free(snap->held);	/* its thread reads the fabric and tables */
	sm_node_detach_all(&snap->fabric);
	fabric_free(&snap->fabric);
	routing_tables_free(&snap->tables);
	pkeys_membership_free(&snap->members);
	lost_set_free(&snap->lost);
	free(snap);
}

/*
 * The nodes whose SwitchInfo, or PortInfo of a linked port (a switch's
 * port 0 too), discovery could not read: the programming left out what it
 * needed them for (a VLArbitration table, a whole switch), so the
 * published sweep cannot vouch for what they hold, and the next sweep
 * writes them as if a Set to them had been lost.
 */
static void note_unread(struct sweep *s)
{
	for (size_t i = 0; i < s->f.nnodes; i++) {
		const struct node *n = s->f.nodes[i];
		const struct sm_node *sn = sm_node(n);
		bool unread = n->type == NODE_SWITCH && (!sn->have_switch_info || !sn->have_port_info[0]);
		for (unsigned p = 1; p <= n->nports && !unread; p++)
			unread = n->ports[p].remote && !sn->have_port_info[p];
		if (unread)
			lost_set_add(&s->lost, n->guid);
	}
}

/*
 * The sweep (one that programmed the switches) replaces the published
 * snapshot, what the SA answers from. False when there is no memory for
 * it: the old one stays, and the switches are known not to hold it.
 */
bool sweep_publish(struct sweep *s)
{
	struct sm *sm = s->sm;
	if (s->published)
		return true;
	struct sm_snapshot *snap = calloc(1, sizeof(*snap));
	if (!snap) {
		log_error("sweep: out of memory publishing the sweep; the SA answers from the previous one");
		sm->last_sweep_ok = false;
		return false;
	}
	s->published = true;
	snap->tables = s->tables;
	memset(&s->tables, 0, sizeof(s->tables));
	snap->qos = s->qos;
	snap->parts = s->parts;
	snap->members = s->members;
	memset(&s->members, 0, sizeof(s->members));
	note_unread(s);
	lost_set_seal(&s->lost);
	snap->lost = s->lost;
	s->lost = (struct lost_set){ 0 };
	memcpy(snap->engine, s->engine, sizeof(snap->engine));
	snap->stored = s->recorded ? s->rec.id : 0;
	fabric_move(&snap->fabric, &s->f);
	if (fabric_index_end_ports(&snap->fabric) < 0)	/* for the SA, which looks up ends per query */
		log_warn("out of memory indexing the fabric's ports: the SA scans instead");
	if (s->recorded) {	/* the queued events went in with it */
		sm->events.n = 0;
		sm->events.unlogged = 0;
	}
	sm_snapshot_free(sm->pub);
	sm->pub = snap;
	sm->last_sweep_ok = strcmp(s->result, "ok") == 0;
	sm->pub_answered = true;
	sm->pub_held = true;
	sm->transition_stops = 0;
	lost_set_free(&sm->lft_unsure);
	lost_set_free(&sm->port_unsure);	/* written again, or in snap->lost */
	if (sm->last_sweep_ok && !sm->once)	/* the next repair's plan starts from the tables' graphs */
		snap->held = held_graphs_start(&snap->fabric, &snap->tables);
	return true;
}

/*
 * Ends the sweep; result is "ok" or what went wrong. A published sweep
 * (one that programmed the switches) becomes sm->pub. The scheduler
 * hears how it ended.
 */
void sweep_end(struct sweep *s, const char *result, bool published)
{
	struct sm *sm = s->sm;
	bool ok = strcmp(result, "ok") == 0;
	uint64_t ms = evl_now_ms() - s->t0;
	if (published && !s->published) {
		snprintf(s->result, sizeof(s->result), "%s", result);
		published = sweep_publish(s);
	}
	if (!published && s->touched) {	/* the next sweep reads the tables back, and writes every node */
		sm->last_sweep_ok = false;
		sm->pub_held = s->stopped && sm->pub_held;	/* a stop names the switches it may have changed */
	}
	if (s->ahead_running) {	/* it reads s: waited for (a sweep that failed while it stored) */
		offload_abandon(sm->computing);
		sm->computing = NULL;
	}
	/* the change's tables are not (all) in place: the next sweep answers it, from its report on */
	if (s->change_ms && (!sm->sched.change_seen_ms || s->change_ms < sm->sched.change_seen_ms))
		sm->sched.change_seen_ms = s->change_ms;
	db_sweep_abandon(sm->db);	/* what went ahead, unless the store committed it */
	sm->db_busy = false;
	sa_services_store_pending(sm);	/* registered while the sweep held the database */
	if (published)	/* max LID from the snapshot: s->tables moved there */
		log_msg(ok ? LOG_INFO : LOG_WARN, "SUBNET UP%s%s: %u nodes (%u switches, %u CAs), %u links, "
			"max LID %u, %llu ms, %llu MADs (%llu retried)", ok ? "" : " but ", ok ? "" : result,
			s->disc.nodes, s->disc.switches, s->disc.cas, s->disc.links, sm->pub->tables.max_lid,
			(unsigned long long)ms, (unsigned long long)(sweep_mads_sent(s) - s->mads0),
			(unsigned long long)(mad_get_stats(sm->mp)->retries - s->retries0));
	else
		log_error("sweep failed: %s (%llu ms)", result, (unsigned long long)ms);
	sm->sched.heavy_sweeps++;
	sm->sched.failed_sweeps += !published;
	sm->sched.last_sweep_seconds = (double)ms / 1000.0;
	sm->sched.last_sweep_mads = sweep_mads_sent(s) - s->mads0;
	sm->sched.sweeping = false;
	sm->sched.heavy = false;
	sweep_done_fn done = s->done;
	sweep_free(s);
	done(sm, &(struct sweep_outcome){ .ok = ok, .published = published });
}

bool sweep_switches_hold_published(const struct sm *sm)
{
	return sm->pub && sm->last_sweep_ok;
}

const struct sm_snapshot *sweep_published_held(const struct sm *sm)
{
	return sm->pub_held && sm->pub && sm->pub->tables.lft ? sm->pub : NULL;
}

size_t sweep_phase_of(const struct sweep *s, void (*start)(struct sweep *s))
{
	size_t i = 0;
	while (s->phases[i].start != start)
		i++;
	return i;
}

void sweep_begin_phase(struct sweep *s, size_t i)
{
	s->phase_index = i;
	phase_begin(s, s->phases[i].name);
	s->phases[i].start(s);
}

void sweep_phase_done(struct sweep *s, const char *detail)
{
	sweep_phase_end(s, detail);
	sweep_phase_skip(s);
}

void sweep_phase_skip(struct sweep *s)
{
	if (s->phase_index + 1 < s->nphases)
		sweep_begin_phase(s, s->phase_index + 1);
	else
		sweep_end(s, s->result, true);
}

void sweep_phase_failed(struct sweep *s, const char *detail, const char *why)
{
	sweep_phase_end(s, detail);
	sweep_end(s, why, false);
}
