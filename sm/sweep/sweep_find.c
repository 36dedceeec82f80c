/*
 * DOC: the heavy sweep's first phases: discover, sms, lids
 *
 * discover: the fabric from hop 0 out (or, for a repair, the published
 * fabric with the switches that reported changes read again; the whole
 * fabric when the repair cannot vouch for its model). sms: new M_Keys
 * stored before any port holds them, the other SMs surveyed, the
 * election (its loser stands aside: nothing programmed, nothing stored).
 * lids: the stored LIDs, the ports' own, then new ones.
 */
#include "sm/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"

/* discover */

static void on_discovered(void *arg, const struct disc_report *r)
{
	struct sweep *s = arg;
	char detail[256];
	if (r->repair_failed[0]) {	/* the safety net: discover it all */
		log_warn("sweep: repair: %s: discovering the whole fabric", r->repair_failed);
		sm_node_detach_all(&s->f);
		fabric_free(&s->f);
		s->nrepair = 0;
		snprintf(s->rec.kind, sizeof(s->rec.kind), "heavy");
		sweep_start_discover(s);
		return;
	}
	s->disc = *r;
	namemap_apply(&s->sm->names, &s->f);	/* the operator's names, in the log and the database */
	snprintf(detail, sizeof(detail), "%u switches, %u CAs, %u links, %u unreachable, %u duplicate GUIDs", r->switches,
		 r->cas, r->links, r->unreachable, r->duplicates);
	if (r->malformed)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), ", %u malformed NodeInfo answers (left out)",
			 r->malformed);
	if (s->nrepair)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), "; repaired from %zu switch%s read again%s, "
			 "%u nodes gone", s->nrepair + r->joined, s->nrepair + r->joined == 1 ? "" : "es",
			 r->joined ? " (some joined while it read)" : "", r->pruned);
	if (r->nodes == 0)
		sweep_phase_failed(s, detail, "the local port does not answer");
	else
		sweep_phase_done(s, detail);
}

void sweep_start_discover(struct sweep *s)
{
	struct sm *sm = s->sm;
	int rc = s->nrepair ? disc_repair(sm->mp, &sm->mkeys, &sm->pub->fabric, s->repair, s->nrepair, &s->f,
					  on_discovered, s, &sm->sched.reading)
			    : disc_start(sm->mp, &sm->mkeys, &s->f, on_discovered, s);
	if (rc < 0)
		sweep_end(s, "out of memory", false);
}

bool sweep_repair_join(struct sm *sm, uint64_t guid)
{
	if (!sm->sched.reading || disc_repair_join(sm->sched.reading, guid) < 0)
		return false;
	log_info("sweep: switch 0x%016llx reported a change while the repair reads the fabric: read too",
		 (unsigned long long)guid);
	return true;
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
	sm->sched.heavy = false;
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
		sweep_phase_failed(s, detail, err);
	} else if (master) {
		sweep_phase_done(s, detail);
	} else {
		sweep_phase_end(s, detail);
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

void sweep_start_survey(struct sweep *s)
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

void sweep_start_lids(struct sweep *s)
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
	sweep_phase_done(s, detail);
}
