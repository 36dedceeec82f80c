/*
 * DOC: heavy sweep
 *
 * One sweep walks the phases of the table phases[] below, each started by
 * the previous one's completion, and logs each with its duration and MAD
 * count:
 *
 *   discover -> sms (election) -> lids -> route -> readback (only without a
 *   clean sweep of our own) -> program (LFTs, in the stages of a proven
 *   transition) -> vls -> pkeys -> arm -> activate -> store -> reregister
 *   (published first; ClientReregister on the hosts' ports, when due)
 *
 * An SM the election puts in standby stops after "sms": nothing is
 * programmed or stored. When the routing mended the held tables in place
 * after a loss and "program" finds their transition not proven at every
 * step, the sweep goes back to "route" once, to route afresh (and merge):
 * that transition may prove out where the mend's did not.
 *
 * The routing (with its proofs: milliseconds to seconds), the plan of the
 * transition, and the store of the new tables (while the switches take
 * them) run on a thread of their own, one after the other, so the loop
 * goes on answering the SA and taking traps; when
 * the switches hold the published tables, the entries of the LIDs that
 * went are dropped meanwhile (start_early_drops), and the first stage of
 * the transition is then compared with those tables.
 *
 * Storing compares the new fabric with the stored one and logs each node
 * and link that came or went, and the switches whose tables changed.
 *
 * The sweep builds a fresh fabric model; the previous one stays published
 * (sm->pub) until the new sweep replaces it whole at its end, so a sweep that
 * fails before programming changes nothing, in the database or in memory.
 * One that programmed the switches is published even if the database
 * cannot take it (locked, corrupt, replaced, disk full): the switches hold
 * its tables, so the SA and the next transition must start from them. Its
 * result names the failure and its events wait for the next store. A
 * database whose LIDs cannot be read does not stop the sweep either: the
 * ports keep the LIDs they hold, and routing goes on.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "routing/engine.h"
#include "routing/transition.h"
#include "topology/fabric_diff.h"
#include "sm/sweep/configure.h"
#include "sm/mad/offload.h"
#include "sm/sweep/discover.h"
#include "sm/sweep/lidmgr.h"
#include "sm/log.h"
#include "sm/sweep/pkeys.h"
#include "sm/sweep/readback.h"
#include "sm/sweep/reregister.h"
#include "sm/smnode.h"
#include "sm/sweep/sweep.h"

struct sweep {
	struct sm *sm;
	struct fabric f;
	struct disc_report disc;
	struct lid_result lids;
	struct routing_tables tables;
	unsigned vls;			/* data VLs every link runs, as the route phase found: the layers' bound */
	struct transition_plan plan;	/* the stages from the stored tables to these */
	bool mended;			/* the routing mended the held tables in place */
	bool no_mend;			/* their transition did not prove out: routed again afresh */
	struct route_run *route_run;	/* the route phase's computation, until its verdict */
	bool routed;			/* the computation is back */
	/*
	 * The published tables with the entries of the LIDs that went
	 * dropped, programmed while the routing runs (start_early_drops).
	 */
	struct routing_tables early;
	bool early_pending;		/* its Sets are not all answered */
	bool early_held;		/* every one landed: the switches hold early */
	bool early_touched;		/* some went out: the switches may hold neither early nor the published */
	unsigned early_blocks;		/* LFT blocks it sent */
	/* the tables stored ahead, on another thread while the switches are programmed (store_ahead) */
	bool ahead_running;		/* its thread has not come back */
	bool store_waiting;		/* the store phase began meanwhile: it goes on once it has */
	size_t stage;			/* the next stage to program */
	struct cfg_result programmed;	/* summed over the stages */
	bool recorded;			/* the database took it */
	bool published;			/* it is sm->pub now (s->f is empty) */
	size_t sl_changed;		/* LIDs whose SL differs from the switches' last tables */
	char result[DB_ERR_LEN + 64];	/* "ok", or how the programming or the store fell short */
	sweep_done_fn done;
	uint64_t *repair;		/* a repair: the switches that reported port changes (GUIDs) */
	size_t nrepair;			/* 0: a full sweep */
	struct qos_tables qos;
	struct partitions parts;	/* as configured when the pkeys phase began */
	struct db_partitions members;	/* the ports' memberships, as stored */
	struct db_sweep rec;
	uint64_t t0, phase_t0, mads0, phase_mads0, retries0;
	unsigned cfg_failed;
	const char *phase;
	size_t phase_index;		/* in phases[] */
	/* event texts, kept until the sweep is stored */
	struct fabric_change *changes;	/* since the stored sweep */
	char routing_change[64];
	char transition[400];
	char traps_dropped[48];
	char engine[16];		/* the engine that routed (ftree may fall back) */
};

static double unix_now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static uint64_t mads_sent(const struct sweep *s)
{
	return mad_get_stats(s->sm->mp)->sent;
}

static void phase_begin(struct sweep *s, const char *name)
{
	s->phase = name;
	s->phase_t0 = evl_now_ms();
	s->phase_mads0 = mads_sent(s);
}

static void phase_end(struct sweep *s, const char *detail)
{
	log_info("sweep: %-9s %6llu ms %7llu MADs%s%s", s->phase,
		 (unsigned long long)(evl_now_ms() - s->phase_t0),
		 (unsigned long long)(mads_sent(s) - s->phase_mads0), detail ? "  " : "",
		 detail ? detail : "");
}

static void sweep_free(struct sweep *s)
{
	sm_node_detach_all(&s->f);
	fabric_free(&s->f);
	lid_result_free(&s->lids);
	routing_tables_free(&s->tables);
	routing_tables_free(&s->early);
	pkeys_membership_free(&s->members);
	transition_plan_free(&s->plan);
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
	free(snap);
}

/*
 * The sweep (one that programmed the switches) replaces the published
 * snapshot, what the SA answers from. False when there is no memory for
 * it: the old one stays, and the switches are known not to hold it.
 */
static bool publish(struct sweep *s)
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
	if (sm->last_sweep_ok && !sm->once)	/* the next repair's plan starts from the tables' graphs */
		snap->held = held_graphs_start(&snap->fabric, &snap->tables);
	return true;
}

/*
 * Ends the sweep; result is "ok" or what went wrong. A published sweep
 * (one that programmed the switches) becomes sm->pub. The scheduler
 * hears how it ended.
 */
static void sweep_end(struct sweep *s, const char *result, bool published)
{
	struct sm *sm = s->sm;
	bool ok = strcmp(result, "ok") == 0;
	uint64_t ms = evl_now_ms() - s->t0;
	if (published && !s->published) {
		snprintf(s->result, sizeof(s->result), "%s", result);
		published = publish(s);
	}
	if (!published && s->early_touched)	/* the next sweep reads the tables back */
		sm->last_sweep_ok = false;
	if (s->ahead_running) {	/* it reads s: waited for (a sweep that failed while it stored) */
		offload_abandon(sm->computing);
		sm->computing = NULL;
	}
	db_sweep_abandon(sm->db);	/* what went ahead, unless the store committed it */
	sm->db_busy = false;
	sa_services_store_pending(sm);	/* registered while the sweep held the database */
	if (published)	/* max LID from the snapshot: s->tables moved there */
		log_msg(ok ? LOG_INFO : LOG_WARN, "SUBNET UP%s%s: %u nodes (%u switches, %u CAs), %u links, "
			"max LID %u, %llu ms, %llu MADs (%llu retried)", ok ? "" : " but ", ok ? "" : result,
			s->disc.nodes, s->disc.switches, s->disc.cas, s->disc.links, sm->pub->tables.max_lid,
			(unsigned long long)ms, (unsigned long long)(mads_sent(s) - s->mads0),
			(unsigned long long)(mad_get_stats(sm->mp)->retries - s->retries0));
	else
		log_error("sweep failed: %s (%llu ms)", result, (unsigned long long)ms);
	sm->sched.heavy_sweeps++;
	sm->sched.failed_sweeps += !published;
	sm->sched.last_sweep_seconds = (double)ms / 1000.0;
	sm->sched.last_sweep_mads = mads_sent(s) - s->mads0;
	sm->sched.sweeping = false;
	sweep_done_fn done = s->done;
	sweep_free(s);
	done(sm, &(struct sweep_outcome){ .ok = ok, .published = published });
}

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

/* --- the phases, top to bottom --- */

static void start_discover(struct sweep *s);
static void start_survey(struct sweep *s);
static void start_lids(struct sweep *s);
static void start_route(struct sweep *s);
static void start_readback(struct sweep *s);
static void start_program(struct sweep *s);
static void start_vls(struct sweep *s);
static void start_pkeys(struct sweep *s);
static void start_arm(struct sweep *s);
static void start_activate(struct sweep *s);
static void start_store(struct sweep *s);
static void start_reregister(struct sweep *s);

/*
 * The heavy sweep: each phase starts when the one before calls
 * phase_done(); a phase that fails ends the sweep (sweep_end) instead, and
 * the election's loser ends it after "sms" (stand_aside). The log lines,
 * the DOC block and docs/design.md name the phases from this list.
 */
static const struct phase {
	const char *name;
	void (*start)(struct sweep *s);
} phases[] = {
	{ "discover", start_discover },	/* NodeInfo, PortInfo, NodeDescription, SwitchInfo from hop 0 out */
	{ "sms", start_survey },	/* new M_Keys stored; the other SMs' SMInfo; the election */
	{ "lids", start_lids },		/* stored LIDs, the ports' own, then new ones */
	{ "route", start_route },	/* the engine, its loop and deadlock proofs, the VL tables */
	{ "readback", start_readback },	/* without a clean sweep of our own: the LFTs the switches hold */
	{ "program", start_program },	/* PortInfo, SwitchInfo, LFTs, in the stages of a proven transition */
	{ "vls", start_vls },		/* SL-to-VL and VL arbitration */
	{ "pkeys", start_pkeys },	/* P_Key tables and switch enforcement */
	{ "arm", start_arm },		/* every port INIT -> ARMED */
	{ "activate", start_activate },	/* every port ARMED -> ACTIVE */
	{ "store", start_store },	/* the database, in one transaction */
	{ "reregister", start_reregister },	/* published; hosts asked to reregister when due */
};

#define NPHASES (sizeof(phases) / sizeof(phases[0]))

/*
 * Whether the switches hold what the published sweep says (its tables, VL
 * tables, partitions): only a clean one's Sets all landed. The phases
 * write only what differs from it then, and read back or rewrite all else.
 */
static bool switches_hold_published(const struct sm *sm)
{
	return sm->pub && sm->last_sweep_ok;
}

/* Where phase start is in phases[]. */
static size_t phase_of(void (*start)(struct sweep *s))
{
	size_t i = 0;
	while (phases[i].start != start)
		i++;
	return i;
}

static void begin(struct sweep *s, size_t i)
{
	s->phase_index = i;
	phase_begin(s, phases[i].name);
	phases[i].start(s);
}

/* The phase running is done (detail: for its log line, or NULL): the next one starts, or the sweep ends. */
static void phase_done(struct sweep *s, const char *detail)
{
	phase_end(s, detail);
	if (s->phase_index + 1 < NPHASES)
		begin(s, s->phase_index + 1);
	else
		sweep_end(s, s->result, true);
}

/* The phase running has nothing to do in this sweep: the next one starts, no line logged. */
static void phase_skip(struct sweep *s)
{
	if (s->phase_index + 1 < NPHASES)
		begin(s, s->phase_index + 1);
	else
		sweep_end(s, s->result, true);
}

/* Ends the phase running and the sweep with it (why: the result). */
static void phase_failed(struct sweep *s, const char *detail, const char *why)
{
	phase_end(s, detail);
	sweep_end(s, why, false);
}

/* discover */

static void on_discovered(void *arg, const struct disc_report *r)
{
	struct sweep *s = arg;
	char detail[200];
	if (r->repair_failed[0]) {	/* the safety net: discover it all */
		log_warn("sweep: repair: %s: discovering the whole fabric", r->repair_failed);
		sm_node_detach_all(&s->f);
		fabric_free(&s->f);
		s->nrepair = 0;
		snprintf(s->rec.kind, sizeof(s->rec.kind), "heavy");
		start_discover(s);
		return;
	}
	s->disc = *r;
	namemap_apply(&s->sm->names, &s->f);	/* the operator's names, in the log and the database */
	snprintf(detail, sizeof(detail), "%u switches, %u CAs, %u links, %u unreachable, %u duplicate GUIDs%s",
		 r->switches, r->cas, r->links, r->unreachable, r->duplicates, s->nrepair ? "; repaired" : "");
	if (s->nrepair)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), " from %zu switch%s read again, "
			 "%u nodes gone", s->nrepair, s->nrepair == 1 ? "" : "es", r->pruned);
	if (r->nodes == 0)
		phase_failed(s, detail, "the local port does not answer");
	else
		phase_done(s, detail);
}

static void start_discover(struct sweep *s)
{
	struct sm *sm = s->sm;
	int rc = s->nrepair ? disc_repair(sm->mp, &sm->mkeys, &sm->pub->fabric, s->repair, s->nrepair, &s->f,
					  on_discovered, s)
			    : disc_start(sm->mp, &sm->mkeys, &s->f, on_discovered, s);
	if (rc < 0)
		sweep_end(s, "out of memory", false);
}

/* sms */

/* The election put this SM in standby: the sweep ends without touching the fabric or the database. */
static void stand_aside(struct sweep *s)
{
	struct sm *sm = s->sm;
	log_info("sweep: standing by: SM 0x%016llx is master; nothing programmed (%llu ms)",
		 (unsigned long long)sm->ha.master.guid, (unsigned long long)(evl_now_ms() - s->t0));
	sm_node_detach_all(&s->f);
	ha_keep_seen(sm, &s->f);
	sm->sched.sweeping = false;
	sm->sched.resweep_wanted = false;
	sweep_done_fn done = s->done;
	sweep_free(s);
	done(sm, &(struct sweep_outcome){ .ok = true, .published = false });
}

static void on_surveyed(void *arg)
{
	struct sweep *s = arg;
	struct sm *sm = s->sm;
	char detail[96];
	unsigned masters = 0;
	for (unsigned i = 0; i < sm->ha.npeers; i++)
		masters += sm->ha.peers[i].state == SM_MASTER;
	snprintf(detail, sizeof(detail), "%u other SMs, %u of them master", sm->ha.npeers, masters);
	bool master = ha_elect(sm);
	char err[MAD_ERR_LEN];
	if (mad_claim_sm(sm->mp, err) < 0) {
		phase_failed(s, detail, err);
	} else if (master) {
		phase_done(s, detail);
	} else {
		phase_end(s, detail);
		stand_aside(s);
	}
}

/* Random M_Keys drawn for new nodes reach the database before any port holds them. */
static bool store_fresh_mkeys(struct sweep *s)
{
	struct sm *sm = s->sm;
	struct db_mkey *fresh;
	size_t nfresh, drawn = sm->mkeys.fresh;
	if (mkeys_take_fresh(&sm->mkeys, &fresh, &nfresh) < 0) {
		sweep_end(s, "out of memory", false);
		return false;
	}
	int rc = nfresh ? db_save_mkeys(sm->db, fresh, nfresh) : 0;
	free(fresh);
	if (rc < 0) {
		char why[DB_ERR_LEN + 32];
		snprintf(why, sizeof(why), "cannot store new M_Keys: %s", db_last_error(sm->db));
		sm->mkeys.fresh = drawn;	/* try again next sweep */
		sweep_end(s, why, false);
		return false;
	}
	const struct mkey_config *mk = &sm->mkeys.cfg;
	if (mk->enabled)
		log_info("sweep: M_Keys    %s keys, protect %u, lease %u s; %zu drawn and stored",
			 mk->random ? "random" : "derived", mk->protect, mk->lease_s, drawn);
	return true;
}

static void start_survey(struct sweep *s)
{
	if (store_fresh_mkeys(s) && ha_survey(s->sm, &s->f, on_surveyed, s) < 0)
		sweep_end(s, "out of memory", false);
}

/* lids */

static void import_guid2lid(const char *path, struct fabric *f)
{
	struct db_lid *lids;
	size_t n;
	char err[600];
	if (lid_read_guid2lid(path, &lids, &n, err, sizeof(err)) < 0) {
		log_error("LID: OpenSM's LIDs not imported: %s", err);
		return;
	}
	log_info("LID: %zu ports take their LID from OpenSM's %s (%zu entries)", lid_preset(f, lids, n), path, n);
	free(lids);
}

static void start_lids(struct sweep *s)
{
	struct sm *sm = s->sm;
	char detail[96];
	struct db_lid *stored = NULL;
	size_t n_stored = 0;
	if (db_load_lids(sm->db, &stored, &n_stored) < 0) {
		log_error("sweep: cannot read the stored LIDs (%s): the ports keep the LIDs they hold; new ports get "
			  "LIDs no port holds", db_last_error(sm->db));
		free(stored);
		stored = NULL;
		n_stored = 0;
	}
	if (n_stored == 0 && sm->cfg.opensm_guid2lid[0])	/* moving from OpenSM: its LIDs, once */
		import_guid2lid(sm->cfg.opensm_guid2lid, &s->f);
	int rc = lid_assign(&s->f, stored, n_stored, &s->lids);
	free(stored);
	if (rc < 0) {
		sweep_end(s, "LID assignment failed", false);
		return;
	}
	snprintf(detail, sizeof(detail), "%u kept, %u taken over from the ports, %u new", s->lids.kept,
		 s->lids.reused, s->lids.fresh);
	phase_done(s, detail);
}

/* route */

/* Data VLs every link can run: the routing may layer over this many. */
static unsigned data_vls(const struct fabric *f, unsigned configured)
{
	static const unsigned by_code[] = { 1, 1, 2, 4, 8, 15 };
	unsigned vls = configured;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			uint8_t cap = n->ports[p].vl_cap;
			if (n->ports[p].remote && cap >= 1 && cap <= 5 && by_code[cap] < vls)
				vls = by_code[cap];
		}
	}
	return vls;
}

/* What the routing did with the routes the switches held, for the route line ("" without them). */
static void kept_routes_text(const struct routing_result *res, char *buf, size_t len)
{
	if (res->stable.kept + res->stable.patched)
		snprintf(buf, len, ", routes to %zu of %zu LIDs kept, %zu patched%s", res->stable.kept, res->stable.lids,
			 res->stable.patched, res->stable.mended ? " in place" : "");
	else if (res->stable.grew)
		snprintf(buf, len, ", all re-balanced (links came into use)%s",
			 res->memo_used ? ": the routing of this fabric from before, kept" : "");
	else if (res->kept_refused)
		snprintf(buf, len, ", all re-balanced (the kept routes did not prove out)");
}

/*
 * The route phase's computation, on a thread of its own (sm/mad/offload.c)
 * while the loop goes on answering: everything it reads is copied here or
 * left alone by the loop until it is back (the sweep's fabric, the
 * published snapshot, the routing memo).
 */
struct route_run {
	struct sweep *s;
	struct routing_request rq;
	uint64_t roots[CONFIG_MAX_ROOTS];
	struct health_hidden *hidden;	/* isolated links taken out of the fabric's sight meanwhile */
	size_t nhidden;
	struct routing_result res;
	int rc;
};

static void route_work(void *arg)
{
	struct route_run *run = arg;
	run->rc = routing_compute(&run->s->f, &run->rq, &run->s->tables, &run->res);
}

static void route_finish(struct sweep *s);

/* On the loop: the routing is back. */
static void route_back(void *arg)
{
	struct route_run *run = arg;
	struct sweep *s = run->s;
	s->sm->computing = NULL;
	health_unhide(run->hidden, run->nhidden);
	s->routed = true;
	route_finish(s);
}

static void on_early_dropped(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	s->early_pending = false;
	s->early_held = r->failed == 0;	/* else the first stage compares with the published tables */
	s->early_blocks = r->lft_blocks_sent;
	route_finish(s);
}

/*
 * While the routing runs, the switches can already drop the entries of
 * the LIDs that went (a switch's, or a host's, lost): every routing drops
 * them, and an entry that drops adds no dependency to any mixture, as the
 * transition's first stage takes them unchecked. A switch failure's repair
 * at 3,456 hosts sends a quarter of its LFT blocks so, before its routing
 * is done. Only from tables the switches are known to hold, once a sweep.
 */
static void start_early_drops(struct sweep *s)
{
	struct sm *sm = s->sm;
	const struct sm_snapshot *pub = sm_published(sm);
	size_t nswitches = 0;
	if (s->early.lft || !switches_hold_published(sm) || !pub->tables.lft)
		return;
	if (transition_drop_view(&pub->fabric, &pub->tables, &s->f, &s->early, &nswitches) < 0 || !nswitches) {
		routing_tables_free(&s->early);	/* out of memory: the first stage sends them */
		return;
	}
	struct cfg_params p = cfg_params_of_sm(sm, &s->f, &s->early);
	s->early_touched = true;	/* from here, should the sweep fail, the switches hold neither table */
	s->early_pending = true;	/* before: a batch with nothing to send answers at once */
	if (cfg_program(sm->mp, &s->f, &s->early, &pub->fabric, &pub->tables, &p, true, on_early_dropped, s) < 0) {
		s->early_pending = false;
		routing_tables_free(&s->early);
	}
}

/*
 * Computes and proves the routing (on another thread; meanwhile the
 * entries of the LIDs that went are dropped: start_early_drops). A result
 * with a forwarding loop or a credit loop left on some VL is refused: the
 * sweep ends there and the fabric keeps the tables it has.
 */
static void start_route(struct sweep *s)
{
	struct sm *sm = s->sm;
	struct route_run *run = calloc(1, sizeof(*run));
	if (!run) {
		sweep_end(s, "routing failed (out of memory)", false);
		return;
	}
	run->s = s;
	memcpy(run->roots, sm->cfg.root_guids, sizeof(run->roots));	/* a reload may change the configuration */
	s->vls = data_vls(&s->f, sm->cfg.max_op_vls);	/* the plan's proofs take the same bound */
	run->rq = (struct routing_request){ .roots = run->roots, .nroots = sm->cfg.nroots,
					    .max_layers = s->vls, .no_mend = s->no_mend,
					    .memo = &sm->route_memo };
	routing_engine_parse(sm->cfg.routing_engine, &run->rq.engine);	/* validated with the config */
	const struct sm_snapshot *pub = sm_published(sm);
	bool rebalance = sm->sched.rebalance_wanted;
	sm->sched.rebalance_wanted = false;
	if (sm->cfg.keep_routes && !rebalance && switches_hold_published(sm) && pub->tables.lft) {
		run->rq.keep_fabric = &pub->fabric;
		run->rq.keep = &pub->tables;
	}
	/* isolated links (sm/perf/health.c) are out of the routing's sight: no table points into them */
	size_t max_hidden = sm->health ? health_isolated_count(sm->health) : 0;
	run->hidden = max_hidden ? calloc(max_hidden, sizeof(*run->hidden)) : NULL;
	if (run->hidden)
		run->nhidden = health_hide(sm->health, &s->f, run->hidden, max_hidden);
	s->route_run = run;
	s->routed = false;
	if ((sm->computing = offload_start(sm->loop, route_work, route_back, run))) {
		start_early_drops(s);
		return;
	}
	route_work(run);	/* no thread to be had: here, and nothing meanwhile */
	route_back(run);
}

/* The routing is back and the early drops answered: the phase's verdict. */
static void route_finish(struct sweep *s)
{
	struct sm *sm = s->sm;
	if (!s->routed || s->early_pending)
		return;
	struct route_run *run = s->route_run;
	const struct routing_request rq = run->rq;
	struct routing_result res = run->res;
	int rc = run->rc;
	size_t nhidden = run->nhidden;
	free(run->hidden);
	free(run);
	s->route_run = NULL;
	char detail[288];
	s->mended = rc == 0 && res.stable.mended;
	if (rc < 0) {
		sweep_end(s, "routing failed (out of memory)", false);
		return;
	}
	char proof[96];
	if (res.order_proven)
		snprintf(proof, sizeof(proof), "every turn rising in up*-down* order");
	else if (res.layers.ordered)
		snprintf(proof, sizeof(proof), "%u by up*-down* order, %zu channels, %zu dependencies in the others",
			 res.layers.ordered, res.cdg.channels, res.cdg.dependencies);
	else
		snprintf(proof, sizeof(proof), "%zu channels, %zu dependencies", res.cdg.channels, res.cdg.dependencies);
	snprintf(detail, sizeof(detail), "engine %s (%u levels), max LID %u, %u of %u VLs, %s, %s%s", res.info.engine,
		 res.info.levels, s->tables.max_lid, s->tables.layers, rq.max_layers, proof,
		 res.loops.entries ? "LOOPING" : rc ? "CYCLIC" : res.layers.answers_proven ?
		 "acyclic with the switches' answers, no loop from any switch" : "acyclic, no loop from any switch",
		 nhidden ? ", isolated links left out" : "");
	kept_routes_text(&res, detail + strlen(detail), sizeof(detail) - strlen(detail));
	if (res.info.note[0])
		log_warn("route: %s", res.info.note);
	if (rc == 0 && !res.layers.answers_proven) {
		char cycle[512];
		cdg_cycle_text(&res.layers.answers, cycle, sizeof(cycle));
		log_warn("route: the switches' answers to hosts (PMA and other GMPs) are not proven deadlock-free "
			 "within %u VLs: %s", rq.max_layers, cycle);
	}
	snprintf(s->engine, sizeof(s->engine), "%s", res.info.engine);
	snprintf(s->rec.routing, sizeof(s->rec.routing), "%s (%u levels) on %u VL%s%s%s", res.info.engine,
		 res.info.levels, s->tables.layers, s->tables.layers > 1 ? "s" : "", res.info.note[0] ? "; " : "",
		 res.info.note);
	if (rc == 1) {
		char cycle[512], why[600];
		if (res.loops.entries) {
			loops_text(&res.loops, cycle, sizeof(cycle));
			snprintf(why, sizeof(why), "routing refused: %zu switch entries for %zu LIDs loop, %s",
				 res.loops.entries, res.loops.lids, cycle);
		} else {
			cdg_cycle_text(&res.cdg, cycle, sizeof(cycle));
			snprintf(why, sizeof(why), "routing refused: credit loop on VL %u even with %u VLs: %s",
				 res.cdg.vl, rq.max_layers, cycle);
		}
		phase_failed(s, detail, why);
		return;
	}
	char err[160];
	if (qos_tables_build(&s->qos, rq.max_layers, sm->cfg.vlarb_high, sm->cfg.vlarb_low, sm->cfg.vl_high_limit,
			     err, sizeof(err)) < 0) {
		phase_failed(s, detail, err);
		return;
	}
	for (uint8_t sl = 0; sl < 16; sl++)
		s->tables.vl_by_sl[sl] = ib_slvl_table_get(&s->qos.sl2vl, sl);
	qos_describe(&s->qos, s->rec.vlarb, sizeof(s->rec.vlarb));
	phase_done(s, detail);
}

/* readback */

static void on_read_back(void *arg, const struct cfg_result *r)
{
	char detail[96];
	snprintf(detail, sizeof(detail), "%u LFT blocks read, %u unreadable", r->sent, r->failed);
	phase_done(arg, detail);
}

static void start_readback(struct sweep *s)
{
	struct sm *sm = s->sm;
	if (switches_hold_published(sm))
		phase_skip(s);
	else if (readback_lfts(sm->mp, &s->f, on_read_back, s) < 0)
		sweep_end(s, "out of memory", false);
}

/* program */

/* The LIDs of f's addressed ports whose SL differs between old and new (both sized for f). */
static size_t sl_changes(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		FOR_END_PORTS(f->nodes[i], p) {
			uint16_t lid = f->nodes[i]->ports[p].lid;
			if (lid && lid <= new->max_lid)
				n += old->sl[lid] != new->sl[lid];
		}
	return n;
}

/* Which step of unproven p fails, and its cycle: "step 3 NOT proven: cycle on VL 1: ...". */
static void plan_failure_text(const struct transition_plan *p, char *buf, size_t len)
{
	char cycle[256];
	cdg_cycle_text(&p->cycle, cycle, sizeof(cycle));
	if (p->failed_step > p->nstages)	/* once published, hosts on the old and the new SLs */
		snprintf(buf, len, "the new tables on old and new SLs NOT proven: cycle on VL %u: %s", p->cycle.vl,
			 cycle);
	else
		snprintf(buf, len, "step %zu NOT proven: cycle on VL %u: %s", p->failed_step, p->cycle.vl, cycle);
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
		start_store(s);
}

static void store_ahead(struct sweep *s)
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

/*
 * The plan of the transition from the tables the switches hold (the
 * stored clean sweep's) to the new ones, on a thread of its own like the
 * routing (it reads the sweep's fabric and tables, the published ones and
 * their held graphs, and may move the new tables' changed SLs apart);
 * without such tables (a first sweep, a takeover) there is no traffic to
 * protect yet that fabricd knows of, and the tables go in one stage.
 */
struct plan_run {
	struct sweep *s;
	bool known;		/* the switches hold the published tables */
	uint16_t own_lid;	/* this SM's LID: its SL goes out with the first stage */
	unsigned vls;		/* the data VLs the changed SLs may move apart onto */
	size_t apart;		/* LIDs so moved */
	int rc;
};

static void plan_work(void *arg)
{
	struct plan_run *run = arg;
	struct sweep *s = run->s;
	const struct sm_snapshot *pub = sm_published(s->sm);
	struct routing_tables old;
	run->rc = run->known ? transition_remap_view(&pub->fabric, &pub->tables, &s->f, &s->tables, &old) : 0;
	if (run->rc == 0)
		run->rc = transition_plan_apart(&s->f, run->known ? &old : NULL, &s->tables,
						run->known ? pub->held : NULL, run->own_lid, run->vls, &s->plan,
						&run->apart);
	if (run->known && run->rc == 0)
		s->sl_changed = sl_changes(&s->f, &old, &s->tables);
	if (run->known)
		routing_tables_free(&old);
}

static void program_stage(struct sweep *s);

/* On the loop: the plan is back; says how it is proven, and programs its first stage. */
static void plan_back(void *arg)
{
	struct plan_run *run = arg;
	struct sweep *s = run->s;
	bool known = run->known;
	size_t apart = run->apart;
	int rc = run->rc;
	free(run);
	s->sm->computing = NULL;
	if (apart) {	/* the route line's VLs grew: say so where the sweep's record keeps them */
		size_t at = strlen(s->rec.routing);
		snprintf(s->rec.routing + at, sizeof(s->rec.routing) - at,
			 "; %zu LIDs whose SL changed on VLs of their own, %u in use", apart, s->tables.layers);
	}
	if (rc < 0) {
		sweep_end(s, "out of memory", false);
		return;
	}
	const struct transition_plan *p = &s->plan;
	if (known && !p->proven && s->mended) {	/* the fresh routing's merge may prove out where the mend did not */
		char failure[320];
		plan_failure_text(p, failure, sizeof(failure));
		log_warn("transition: the routes mended in place change in %zu stages; %s: routing afresh", p->nstages,
			 failure);
		s->no_mend = true;
		transition_plan_free(&s->plan);
		routing_tables_free(&s->tables);
		begin(s, phase_of(start_route));
		return;
	}
	if (!known) {
		snprintf(s->transition, sizeof(s->transition), "no tables known in the switches: programmed in one "
			 "stage");
	} else if (p->proven) {
		snprintf(s->transition, sizeof(s->transition), "%zu switches change; every mixture of old and new "
			 "tables (on the old SLs, then the new tables on old and new SLs%s) proven deadlock-free in %zu "
			 "stage%s", p->switches, apart ? ", the changed SLs on VLs of their own" : "", p->nstages,
			 p->nstages == 1 ? "" : "s");
	} else {
		char failure[320];
		plan_failure_text(p, failure, sizeof(failure));
		snprintf(s->transition, sizeof(s->transition), "%zu switches change in %zu stages; %s", p->switches,
			 p->nstages, failure);
	}
	char dropped[112] = "";
	if (known && p->dropped)
		snprintf(dropped, sizeof(dropped), " (%zu entries that now drop go first, unchecked: no mixture gains "
			 "from them)", p->dropped);
	log_msg(p->proven || !known ? LOG_INFO : LOG_WARN, "transition: %s%s%s", s->transition,
		p->from_held ? " (planned from the held tables' graphs, built after the last sweep)" : "", dropped);
	store_ahead(s);
	program_stage(s);
}

static void on_programmed(void *arg, const struct cfg_result *r);

static void program_stage(struct sweep *s)
{
	struct sm *sm = s->sm;
	struct cfg_params p = cfg_params_of_sm(sm, &s->f, &s->tables);
	/* the first stage against what the switches hold, each later one against the stage before */
	const struct fabric *prev = switches_hold_published(sm) ? &sm->pub->fabric : NULL;
	const struct routing_tables *prev_t = prev ? &sm->pub->tables : NULL;
	if (s->stage == 0 && prev && s->early_held) {	/* the gone LIDs' entries dropped while routing */
		prev = &s->f;
		prev_t = &s->early;
	}
	if (s->stage > 0) {
		prev = &s->f;
		prev_t = transition_stage(&s->plan, s->stage - 1);
	}
	const struct routing_tables *t = transition_stage(&s->plan, s->stage++);
	if (!t || (prev && !prev_t) || cfg_program(sm->mp, &s->f, t, prev, prev_t, &p, s->stage > 1, on_programmed, s) < 0)
		sweep_end(s, "out of memory", false);
}

static void on_programmed(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	char detail[96];
	s->cfg_failed += r->failed;
	s->programmed.lft_blocks_sent += r->lft_blocks_sent;
	s->programmed.lft_blocks_skipped += r->lft_blocks_skipped;
	if (s->stage < s->plan.nstages) {	/* the next stage only once this one is answered */
		program_stage(s);
		return;
	}
	char early[64] = "";
	if (s->early_blocks)
		snprintf(early, sizeof(early), " (and %u while routing: the entries of LIDs gone)", s->early_blocks);
	snprintf(detail, sizeof(detail), "%u LFT blocks sent%s, %u unchanged and skipped, %zu stage%s",
		 s->programmed.lft_blocks_sent, early, s->programmed.lft_blocks_skipped, s->plan.nstages,
		 s->plan.nstages == 1 ? "" : "s");
	phase_done(s, detail);
}

static void start_program(struct sweep *s)
{
	struct sm *sm = s->sm;
	struct plan_run *run = calloc(1, sizeof(*run));
	if (!run) {
		sweep_end(s, "out of memory", false);
		return;
	}
	const struct sm_snapshot *pub = sm_published(sm);
	*run = (struct plan_run){ .s = s, .known = switches_hold_published(sm) && pub->tables.lft,
				  .own_lid = sm_node_own_lid(&s->f), .vls = s->vls };
	if (!(sm->computing = offload_start(sm->loop, plan_work, plan_back, run))) {
		plan_work(run);	/* no thread to be had: here */
		plan_back(run);
	}
}

/* vls, pkeys: their Sets answered, the failures counted, the next phase */

static void sets_answered(struct sweep *s, const struct cfg_result *r, const char *sets, const char *nodes)
{
	char detail[96];
	s->cfg_failed += r->failed;
	snprintf(detail, sizeof(detail), "%u %s Sets, %u %s unchanged and skipped", r->sent, sets, r->skipped_nodes,
		 nodes);
	phase_done(s, detail);
}

static void on_vls(void *arg, const struct cfg_result *r)
{
	sets_answered(arg, r, "SL2VL/VLArb", "nodes");
}

static void start_vls(struct sweep *s)
{
	struct sm *sm = s->sm;
	bool clean = switches_hold_published(sm);
	const struct sm_snapshot *pub = clean ? sm_published(sm) : NULL;
	if (qos_program(sm->mp, &s->f, &s->qos, pub ? &pub->fabric : NULL, pub ? &pub->qos : NULL, on_vls, s) < 0)
		sweep_end(s, "out of memory", false);
}

static void on_pkeys(void *arg, const struct cfg_result *r)
{
	sets_answered(arg, r, "PKeyTable/enforcement", "CAs");
}

static void start_pkeys(struct sweep *s)
{
	struct sm *sm = s->sm;
	s->parts = sm->cfg.partitions;
	bool clean = switches_hold_published(sm);
	const struct sm_snapshot *pub = clean ? sm_published(sm) : NULL;
	if (pkeys_program(sm->mp, &s->f, &s->parts, pub ? &pub->fabric : NULL, pub ? &pub->parts : NULL, on_pkeys,
			  s) < 0)
		sweep_end(s, "out of memory", false);
}

/* arm, activate */

static void on_stepped(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	s->cfg_failed += r->failed;
	phase_done(s, NULL);
}

static void start_arm(struct sweep *s)
{
	if (cfg_step_state(s->sm->mp, &s->f, PORT_ARMED, on_stepped, s) < 0)
		sweep_end(s, "out of memory", false);
}

static void start_activate(struct sweep *s)
{
	if (cfg_step_state(s->sm->mp, &s->f, PORT_ACTIVE, on_stepped, s) < 0)
		sweep_end(s, "out of memory", false);
}

/* store */

static void start_store(struct sweep *s)
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
	r->finished = unix_now();
	r->mads = mads_sent(s) - s->mads0;
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
		phase_done(s, s->result);
		return;
	}
	s->recorded = true;
	sm_db_written(sm);
	phase_done(s, NULL);
}

/* reregister */

static void on_reregistered(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	char detail[96];
	s->sm->clients_registered = true;
	snprintf(detail, sizeof(detail), "%u host ports asked, %u refused or lost", r->sent, r->failed);
	phase_done(s, detail);
}

/*
 * Published first, so that the hosts' new queries meet the new tables.
 * Due on the first sweep since this SM became master, and when a LID's
 * SL changed (its hosts must learn the new one).
 */
static void start_reregister(struct sweep *s)
{
	struct sm *sm = s->sm;
	if (!publish(s)) {
		sweep_end(s, "out of memory", false);
		return;
	}
	if (sm->clients_registered && !s->sl_changed) {
		phase_skip(s);
		return;
	}
	log_info("sweep: asking the hosts to reregister: %s", !sm->clients_registered ? "first sweep as master"
		 : "destinations changed SL");
	const struct sm_snapshot *pub = sm_published(sm);
	struct cfg_params p = cfg_params_of_sm(sm, &pub->fabric, &pub->tables);
	if (rereg_clients(sm->mp, &pub->fabric, &p, on_reregistered, s) < 0)
		sweep_end(s, "out of memory", true);
}

void sweep_start(struct sm *sm, const uint64_t *repair, size_t nrepair, sweep_done_fn done)
{
	struct sweep *s = calloc(1, sizeof(*s));
	if (s && nrepair && (s->repair = malloc(nrepair * sizeof(*repair))))
		memcpy(s->repair, repair, nrepair * sizeof(*repair));
	if (!s) {
		log_error("sweep: out of memory");
		return;
	}
	s->nrepair = s->repair ? nrepair : 0;	/* without memory for the list, a full sweep */
	snprintf(s->rec.kind, sizeof(s->rec.kind), "%s", s->nrepair ? "repair" : "heavy");
	s->sm = sm;
	s->done = done;
	fabric_init(&s->f);
	s->t0 = evl_now_ms();
	s->mads0 = mads_sent(s);
	s->retries0 = mad_get_stats(sm->mp)->retries;
	s->rec.started = unix_now();
	sm->sched.sweeping = true;
	sm->act_count++;
	if (s->nrepair)
		log_info("sweep: repair of %zu switch%s that reported port changes, from %s port %d", s->nrepair,
			 s->nrepair == 1 ? "" : "es", mad_port_ca(sm->mp), mad_port_num(sm->mp));
	else
		log_info("sweep: heavy sweep from %s port %d (GUID 0x%016llx)", mad_port_ca(sm->mp),
			 mad_port_num(sm->mp), (unsigned long long)mad_port_guid(sm->mp));
	begin(s, 0);
}
