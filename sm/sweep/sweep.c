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
 *
 * The phases live beside this file: sm/sweep/sweep_run.c begins and ends
 * them and the sweep, sweep_find.c (discover, sms, lids), sweep_route.c
 * (route, readback), sweep_program.c (program, vls, pkeys, arm,
 * activate), sweep_store.c (store, reregister).
 */
#include "sm/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"

/*
 * The heavy sweep: each phase starts when the one before calls
 * sweep_phase_done(); a phase that fails ends the sweep (sweep_end)
 * instead, and the election's loser ends it after "sms" (stand_aside).
 * The log lines, the DOC block and docs/design.md name the phases from
 * this list.
 */
static const struct sweep_phase phases[] = {
	{ "discover", sweep_start_discover },	/* NodeInfo, PortInfo, NodeDescription, SwitchInfo from hop 0 out */
	{ "sms", sweep_start_survey },	/* new M_Keys stored; the other SMs' SMInfo; the election */
	{ "lids", sweep_start_lids },		/* stored LIDs, the ports' own, then new ones */
	{ "route", sweep_start_route },	/* the engine, its loop and deadlock proofs, the VL tables */
	{ "readback", sweep_start_readback },	/* without a clean sweep of our own: the LFTs the switches hold */
	{ "program", sweep_start_program },	/* PortInfo, SwitchInfo, LFTs, in the stages of a proven transition */
	{ "vls", sweep_start_vls },		/* SL-to-VL and VL arbitration */
	{ "pkeys", sweep_start_pkeys },	/* P_Key tables and switch enforcement */
	{ "arm", sweep_start_arm },		/* every port INIT -> ARMED */
	{ "activate", sweep_start_activate },	/* every port ARMED -> ACTIVE */
	{ "store", sweep_start_store },	/* the database, in one transaction */
	{ "reregister", sweep_start_reregister },	/* published; hosts asked to reregister when due */
};

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
	s->change_ms = sm->sched.change_seen_ms;	/* it answers that change */
	sm->sched.change_seen_ms = 0;
	s->mads0 = sweep_mads_sent(s);
	s->retries0 = mad_get_stats(sm->mp)->retries;
	s->rec.started = sweep_unix_now();
	sm->sched.sweeping = true;
	sm->sched.heavy = true;
	sm->act_count++;
	if (s->nrepair)
		log_info("sweep: repair of %zu switch%s that reported port changes, from %s port %d", s->nrepair,
			 s->nrepair == 1 ? "" : "es", mad_port_ca(sm->mp), mad_port_num(sm->mp));
	else
		log_info("sweep: heavy sweep from %s port %d (GUID 0x%016llx)", mad_port_ca(sm->mp),
			 mad_port_num(sm->mp), (unsigned long long)mad_port_guid(sm->mp));
	s->phases = phases;
	s->nphases = sizeof(phases) / sizeof(phases[0]);
	sweep_begin_phase(s, 0);
}
