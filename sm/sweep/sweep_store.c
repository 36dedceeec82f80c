/*
 * DOC: the heavy sweep's store and reregister phases
 *
 * The new tables go into the database on a thread of their own while
 * the switches take them (stored ahead); the store phase then compares
 * the new fabric with the stored one (each node and link that came or
 * went, the switches whose tables changed: events) and commits the
 * sweep in one transaction. reregister publishes the sweep, then asks the
 * hosts to reregister when due.
 */
#include "sm/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/mad/offload.h"
#include "sm/sweep/pkeys.h"
#include "sm/sweep/reregister.h"

/* Switches whose forwarding table differs from the stored one (same GUID). */
static unsigned changed_tables(const struct fabric *prev, const struct routing_tables *pt,
			       const struct fabric *f, const struct routing_tables *t)
{
	unsigned changed = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *o = fabric_find_guid(prev, f->nodes[i]->guid);
		if (!t->lft[i] || !o || !pt->lft[o->index])
			continue;
		if (pt->max_lid != t->max_lid || memcmp(pt->lft[o->index], t->lft[i], t->max_lid + 1u))
			changed++;
	}
	return changed;
}

/*
 * Events for what changed since the stored sweep: nodes and links that
 * came or went, and how many switches got new tables (the first sweep
 * of a database has nothing to compare with). The stored sweep is this process's last
 * one, or, for the first sweep after a start, the database's.
 */
static int collect_events(struct sweep *s, struct db_new_event **out, size_t *n)
{
	struct sm *sm = s->sm;
	struct fabric loaded;
	struct routing_tables loaded_tables = { 0 };
	const struct sm_snapshot *pub = sm_published(sm);
	const struct fabric *prev = pub ? &pub->fabric : NULL;
	const struct routing_tables *prev_tables = pub ? &pub->tables : NULL;
	size_t nch = 0;
	int rc = -1;
	*out = NULL;
	*n = 0;
	fabric_init(&loaded);
	if (!pub) {
		if (db_load_fabric(sm->db, &loaded) < 0 ||
		    (loaded.nnodes && db_load_tables(sm->db, &loaded, &loaded_tables) < 0))
			goto done;
		prev = &loaded;
		prev_tables = &loaded_tables;
	}
	unsigned tables = 0;
	if (prev->nnodes) {
		if (fabric_diff(prev, &s->f, &s->changes, &nch) < 0)
			goto done;
		tables = changed_tables(prev, prev_tables, &s->f, &s->tables);
	}
	if (!(*out = calloc(nch + 3 + sm->events.n, sizeof(**out))))
		goto done;
	/* the events since the last stored sweep come first: they came first */
	for (size_t i = 0; i < sm->events.n; i++)
		(*out)[(*n)++] = (struct db_new_event){ sm->events.q[i].kind, sm->events.q[i].detail };
	if (sm->events.unlogged) {
		snprintf(s->traps_dropped, sizeof(s->traps_dropped), "%u more events not logged", sm->events.unlogged);
		(*out)[(*n)++] = (struct db_new_event){ "trap", s->traps_dropped };
	}
	for (size_t i = 0; i < nch; i++) {
		const struct fabric_change *ch = &s->changes[i];
		(*out)[(*n)++] = (struct db_new_event){ fabric_change_name(ch->kind), ch->text };
		log_info("change: %s %s", fabric_change_name(ch->kind), ch->text);
	}
	if (s->transition[0])
		(*out)[(*n)++] = (struct db_new_event){ "transition", s->transition };
	if (tables) {
		snprintf(s->routing_change, sizeof(s->routing_change), "forwarding tables changed on %u switches",
			 tables);
		(*out)[(*n)++] = (struct db_new_event){ "routing", s->routing_change };
		log_info("change: %s", s->routing_change);
	}
	rc = 0;
done:
	routing_tables_free(&loaded_tables);
	fabric_free(&loaded);
	return rc;
}

/*
 * The tables stored ahead: db_sweep_tables writes the tables of the
 * switches the stored sweep has (the bulk of a store: 3 MB of rows at
 * 3,456 hosts, 88 MB at 27,648) into a transaction the store phase then
 * finishes, on a thread of its own while the switches are programmed;
 * the database is the sweep's until then (sm->db_busy: other writes
 * wait). The tables and the fabric's nodes and LIDs it reads do not
 * change after the plan. On failure it rolled back, and the store phase
 * writes everything itself.
 */
static void store_ahead_work(void *arg)
{
	struct sweep *s = arg;
	const struct sm_snapshot *pub = sm_published(s->sm);
	struct db_stored held = { &pub->fabric, &pub->tables, pub->stored, &pub->members };
	db_sweep_tables(s->sm->db, &s->f, &s->tables, &held);
}

static void store_ahead_back(void *arg)
{
	struct sweep *s = arg;
	s->sm->computing = NULL;
	s->ahead_running = false;
	if (s->store_waiting)
		sweep_start_store(s);
}

void sweep_store_ahead(struct sweep *s)
{
	struct sm *sm = s->sm;
	const struct sm_snapshot *pub = sm_published(sm);
	if (!pub || !pub->stored || !pub->tables.lft)
		return;
	sm->db_busy = true;
	s->ahead_running = true;
	if (!(sm->computing = offload_start(sm->loop, store_ahead_work, store_ahead_back, s))) {
		s->ahead_running = false;	/* no thread: the store phase writes it all */
		sm->db_busy = false;
	}
}

/* store */

void sweep_start_store(struct sweep *s)
{
	struct sm *sm = s->sm;
	if (s->ahead_running) {	/* the tables are still going in: this goes on once they are */
		s->store_waiting = true;
		return;
	}
	snprintf(s->result, sizeof(s->result), "ok");
	if (s->cfg_failed || s->disc.unreachable || s->disc.failed_attrs)
		snprintf(s->result, sizeof(s->result), "degraded: %u Sets failed, %u ports unreachable",
			 s->cfg_failed, s->disc.unreachable + s->disc.failed_attrs);
	struct db_sweep *r = &s->rec;
	snprintf(r->result, sizeof(r->result), "%.63s", s->result);
	r->finished = sweep_unix_now();
	r->mads = sweep_mads_sent(s) - s->mads0;
	r->nodes = s->disc.nodes;
	r->switches = s->disc.switches;
	r->links = s->disc.links;
	struct db_new_event *events = NULL;
	size_t nevents;
	pkeys_membership_free(&s->members);
	if (collect_events(s, &events, &nevents) < 0 || pkeys_membership(&s->f, &s->parts, &s->members) < 0) {
		free(events);
		sweep_end(s, "out of memory", false);
		return;
	}
	const struct sm_snapshot *pub = sm_published(sm);	/* what the database holds, if stored */
	struct db_stored held = { pub ? &pub->fabric : NULL, pub ? &pub->tables : NULL, pub ? pub->stored : 0,
				  pub ? &pub->members : NULL };
	int rc = db_save_sweep(sm->db, r, &s->f, &s->tables, &s->members, s->lids.assigned, s->lids.n_assigned,
			       events, nevents, held.sweep ? &held : NULL);
	free(events);
	sm->db_busy = false;	/* committed or rolled back */
	if (rc < 0) {	/* programmed: published all the same */
		snprintf(s->result, sizeof(s->result), "cannot store the sweep: %s", db_last_error(sm->db));
		sweep_phase_done(s, s->result);
		return;
	}
	s->recorded = true;
	sm_db_written(sm);
	sweep_phase_done(s, NULL);
}

/* reregister */

static void on_reregistered(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	char detail[96];
	s->sm->clients_registered = true;
	snprintf(detail, sizeof(detail), "%u host ports asked, %u refused or lost", r->sent, r->failed);
	sweep_phase_done(s, detail);
}

/*
 * Published first, so that the hosts' new queries meet the new tables.
 * Due on the first sweep since this SM became master, and when a LID's
 * SL changed (its hosts must learn the new one).
 */
void sweep_start_reregister(struct sweep *s)
{
	struct sm *sm = s->sm;
	if (!sweep_publish(s)) {
		sweep_end(s, "out of memory", false);
		return;
	}
	if (sm->clients_registered && !s->sl_changed) {
		sweep_phase_skip(s);
		return;
	}
	const struct sm_snapshot *pub = sm_published(sm);
	unsigned unable = rereg_unable(&pub->fabric);
	char without[160] = "";
	if (unable)	/* they keep their PathRecords (and SLs) until they ask again of themselves */
		snprintf(without, sizeof(without), "; %u active host port%s not offer ClientReregister and keep%s "
			 "cached PathRecords", unable, unable == 1 ? " does" : "s do", unable == 1 ? "s its" : " their");
	log_msg(unable && s->sl_changed ? LOG_WARN : LOG_INFO, "sweep: asking the hosts to reregister: %s%s",
		!sm->clients_registered ? "first sweep as master" : "destinations changed SL", without);
	struct cfg_params p = cfg_params_of_sm(sm, &pub->fabric, &pub->tables);
	if (rereg_clients(sm->mp, &pub->fabric, &p, on_reregistered, s) < 0)
		sweep_end(s, "out of memory", true);
}
