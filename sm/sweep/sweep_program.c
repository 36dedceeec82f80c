/*
 * DOC: the heavy sweep's programming phases: program, vls, pkeys, arm, activate
 *
 * program: the transition from the tables the switches hold to the new
 * ones planned on a thread of its own (every mixture of old and new
 * proven, stage by stage, with the multicast trees the switches hold:
 * routing/transition.c), then PortInfo, SwitchInfo and the LFT blocks of
 * each stage, the next stage only once the one before is answered; a
 * mended routing whose transition does not prove out is routed afresh
 * instead, and one proven only without the trees clears them first. vls,
 * pkeys: the SL-to-VL and VL arbitration tables, the P_Key tables. arm,
 * activate: the ports' states.
 */
#include "sm/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/mad/offload.h"
#include "sm/sa/mcast_held.h"
#include "sm/smnode.h"
#include "sm/sweep/pkeys.h"
#include "sm/sweep/readback.h"

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
 * The plan of the transition from the tables the switches hold to the
 * new ones, on a thread of its own like the routing (it reads the sweep's
 * fabric and tables, the published ones and their held graphs, and may
 * move the new tables' changed SLs apart). The tables held are the
 * stored clean sweep's; after a sweep that left some Set unanswered,
 * those read back from the switches, with the SLs the SA has published.
 * Without either (a first sweep, a takeover from another SM, a switch
 * whose table could not be read) there is no traffic to protect that
 * fabricd knows of, and the tables go in one stage.
 */
struct plan_run {
	struct sweep *s;
	bool known;		/* the switches hold the published tables; after plan_work, or the tables read back */
	bool read_back;		/* the switches' tables were read back, and the SA answers with the published SLs */
	bool held;		/* the published tables are held but where its sweep lost Sets (not read back) */
	uint16_t own_lid;	/* this SM's LID: its SL goes out with the first stage */
	unsigned vls;		/* the data VLs the changed SLs may move apart onto */
	size_t apart;		/* LIDs so moved */
	const struct node *unknown;	/* read back, a switch whose table is not known: the first */
	/* the multicast trees the switches hold (sm/sa/mcast_held.c), on the sweep's fabric, for the plan */
	struct mc_trees trees;
	uint32_t *tree_layers;		/* [tree]: the unicast layers on its VL */
	struct transition_trees held_trees;
	bool clear_trees;		/* proven only without them: they are cleared before the first stage */
	char trees_cycle[256];		/* then: the cycle the plan with them met */
	int rc;
};

/*
 * The trees the switches hold as the plan sees them: on the sweep's
 * fabric, each with the unicast layers that share its VL under the maps
 * the switches hold (pub's: the new ones go out after the LFT stages).
 * -1 on allocation failure.
 */
static int plan_trees(struct plan_run *run, const struct sm *sm, const struct sm_snapshot *pub)
{
	const struct mcast *mc = &sm->mcast;
	if (!pub || !mc->nheld)
		return 0;
	struct mc_held *some = malloc(mc->nheld * sizeof(*some));
	if (!some)
		return -1;
	unsigned n = 0;
	for (unsigned k = 0; k < mc->nheld; k++)	/* those with a port (an entry cleared holds none) */
		if (mc->held[k].tree.n)
			some[n++] = mc->held[k];	/* a shallow copy: read only */
	int rc = n ? mc_held_trees(some, n, &run->s->f, &run->trees) : 0;
	free(some);
	if (!n || rc < 0)
		return rc;
	if (!(run->tree_layers = calloc(run->trees.n + 1, sizeof(*run->tree_layers))))
		return -1;
	for (unsigned k = 0; k < run->trees.n; k++)
		for (unsigned l = 0; l < 16; l++)
			if (pub->tables.vl_by_sl[l] == pub->tables.vl_by_sl[run->trees.sl[k]])
				run->tree_layers[k] |= 1u << l;
	run->held_trees = (struct transition_trees){ run->trees.n, run->trees.on, run->tree_layers };
	return 0;
}

static void plan_run_free(struct plan_run *run)
{
	mc_trees_free(&run->trees);
	free(run->tree_layers);
	free(run);
}

static void plan_work(void *arg)
{
	struct plan_run *run = arg;
	struct sweep *s = run->s;
	const struct sm_snapshot *pub = sm_published(s->sm);
	struct routing_tables old;
	if (run->known) {
		run->rc = transition_remap_view(&pub->fabric, &pub->tables, &s->f, &s->tables, &old);
	} else if (run->read_back) {
		run->rc = readback_tables(&s->f, &s->tables, run->held ? &pub->fabric : NULL,
					  run->held ? &pub->tables : NULL, &pub->tables, &old, &run->unknown);
		run->known = run->rc == 1;
		run->read_back = run->known;
		run->rc = run->rc < 0 ? -1 : 0;
	}
	struct held_graphs *graphs = run->known && !run->read_back ? pub->held : NULL;
	const struct transition_trees *trees = run->held_trees.n ? &run->held_trees : NULL;
	if (run->rc == 0)	/* the held graphs are the published tables': not those read back */
		run->rc = transition_plan_apart(&s->f, run->known ? &old : NULL, &s->tables, graphs, run->own_lid,
						trees, run->vls, &s->plan, &run->apart);
	if (run->rc == 0 && run->known && trees && !s->plan.proven) {	/* proven without the trees? */
		struct transition_plan bare;
		size_t apart;
		run->rc = transition_plan_apart(&s->f, &old, &s->tables, graphs, run->own_lid, NULL, run->vls, &bare,
						&apart);
		if (run->rc == 0 && bare.proven) {
			plan_failure_text(&s->plan, run->trees_cycle, sizeof(run->trees_cycle));
			transition_plan_free(&s->plan);
			s->plan = bare;
			run->apart = apart;
			run->clear_trees = true;
		} else if (run->rc == 0) {
			transition_plan_free(&bare);
		}
	}
	if (run->known && run->rc == 0)
		s->sl_changed = sl_changes(&s->f, &old, &s->tables);
	if (run->known)
		routing_tables_free(&old);
}

static void program_stage(struct sweep *s);

/* The multicast trees held are cleared (ok: every Set answered): the first stage goes. */
static void trees_cleared(void *arg, bool ok)
{
	struct sweep *s = arg;
	if (!ok)
		log_warn("transition: Sets clearing the multicast trees were lost: a switch may still hold a tree the "
			 "plan's proof left out");
	program_stage(s);
}

/* On the loop: the plan is back; says how it is proven, and programs its first stage. */
static void plan_back(void *arg)
{
	struct plan_run *run = arg;
	struct sweep *s = run->s;
	bool known = run->known, read_back = run->read_back;
	const struct node *unknown = run->unknown;
	size_t apart = run->apart;
	int rc = run->rc;
	bool clear_trees = run->clear_trees;
	char trees_cycle[sizeof(run->trees_cycle)];
	memcpy(trees_cycle, run->trees_cycle, sizeof(trees_cycle));
	plan_run_free(run);
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
		sweep_begin_phase(s, sweep_phase_of(s, sweep_start_route));
		return;
	}
	if (!known && unknown) {
		snprintf(s->transition, sizeof(s->transition), "the table %s holds is not known (not read, or not "
			 "readable): programmed in one stage", unknown->desc);
	} else if (!known) {
		snprintf(s->transition, sizeof(s->transition), "no tables known in the switches: programmed in one "
			 "stage");
	} else if (p->proven) {
		char drained[96] = "";
		if (p->drained)	/* break before make: no order of them was proven */
			snprintf(drained, sizeof(drained), ", the last %zu entries dropped for a stage before they "
				 "take their new ports", p->drained);
		snprintf(s->transition, sizeof(s->transition), "%zu switches change; every mixture of old and new "
			 "tables (on the old SLs, then the new tables on old and new SLs%s) proven deadlock-free in %zu "
			 "stage%s%s", p->switches, apart ? ", the changed SLs on VLs of their own" : "", p->nstages,
			 p->nstages == 1 ? "" : "s", drained);
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
	if (clear_trees) {
		size_t at = strlen(s->transition);
		snprintf(s->transition + at, sizeof(s->transition) - at, "; the multicast trees the switches hold "
			 "cleared first (with them held, %s)", trees_cycle);
	}
	log_msg(p->proven || !known ? LOG_INFO : LOG_WARN, "transition: %s%s%s", s->transition,
		p->from_held ? " (planned from the held tables' graphs, built after the last sweep)"
		: read_back ? " (from the tables read back from the switches)" : "", dropped);
	sweep_store_ahead(s);
	if (!clear_trees)
		program_stage(s);
	else if (!mcast_clear_held(s->sm, &s->f, trees_cleared, s))
		sweep_end(s, "out of memory", false);
}

static void on_programmed(void *arg, const struct cfg_result *r);

/*
 * What stage k is written against: the first against what the switches
 * hold (read back, or published; NULL: not known), each later one
 * against the stage before (*prev_t NULL: out of memory).
 */
static void stage_base(struct sweep *s, size_t k, const struct fabric **prev, const struct routing_tables **prev_t)
{
	const struct sm_snapshot *held = sweep_published_held(s->sm);
	*prev = held ? &held->fabric : NULL;
	*prev_t = held ? &held->tables : NULL;
	if (k == 0 && *prev && s->early_held) {	/* the gone LIDs' entries dropped while routing */
		*prev = &s->f;
		*prev_t = &s->early;
	}
	if (k > 0) {
		*prev = &s->f;
		*prev_t = transition_stage(&s->plan, k - 1);	/* before k's: the plan keeps the one made before */
	}
}

static void program_stage(struct sweep *s)
{
	struct sm *sm = s->sm;
	struct cfg_params p = cfg_params_of_sm(sm, &s->f, &s->tables);
	const struct fabric *prev;
	const struct routing_tables *prev_t;
	stage_base(s, s->stage, &prev, &prev_t);
	const struct routing_tables *t = transition_stage(&s->plan, s->stage++);
	s->touched = true;	/* should the sweep now end unpublished, the next one reads the tables back */
	if (!t || (prev && !prev_t) || cfg_program(sm->mp, &s->f, t, prev, prev_t, &p, s->stage > 1, on_programmed, s) < 0)
		sweep_end(s, "out of memory", false);
}

/*
 * Some LFT Sets of the stage just answered were lost: the switches hold a
 * mixture of it and the stage before, which its step's proof covers, but
 * the next stage's proof assumed this one in whole (going on once left a
 * forwarding loop on ibsim), and once published, hosts would take the new
 * SLs onto a state the last check did not prove. So the transition stops
 * there, the sweep ends unpublished (the SA keeps answering the old SLs,
 * which every step held), and a full sweep follows at once, which reads
 * back what the switches hold and plans from it. Not more than
 * MAX_TRANSITION_STOPS sweeps in a row: a switch that refuses every Set
 * (another SM's M_Key) would stop them all, and the fabric never get its
 * tables; the sweep then goes on, as it did before, and says so.
 */
#define MAX_TRANSITION_STOPS 3

/*
 * The switches whose new table differs from the published one (or that
 * have none there): a stopped transition may have left any of them
 * holding something between the two, so the next sweep reads them back
 * (sm->lft_unsure); the others, and every VL and P_Key table, are as the
 * published sweep left them.
 */
static void note_unsure(struct sweep *s)
{
	struct sm *sm = s->sm;
	const struct sm_snapshot *pub = sm_published(sm);
	for (size_t i = 0; i < s->f.nnodes; i++) {
		const struct node *n = s->f.nodes[i];
		const struct node *o = pub && pub->tables.lft ? fabric_find_guid(&pub->fabric, n->guid) : NULL;
		const uint8_t *was = o ? pub->tables.lft[o->index] : NULL;
		if (s->tables.lft[i] && (!was || pub->tables.max_lid != s->tables.max_lid ||
					 memcmp(was, s->tables.lft[i], (size_t)s->tables.max_lid + 1)))
			lost_set_add(&sm->lft_unsure, n->guid);
	}
	lost_set_seal(&sm->lft_unsure);
	s->stopped = true;
}

static void stop_transition(struct sweep *s, unsigned lost)
{
	char why[160];
	note_unsure(s);
	snprintf(why, sizeof(why), "%u LFT Sets of stage %zu of %zu lost: the transition stops there, in a state its "
		 "proof covers; a full sweep starts from what the switches hold", lost, s->stage, s->plan.nstages);
	log_warn("transition: %s", why);
	s->sm->sched.want_sweep(s->sm);
	sweep_end(s, why, false);
}

/*
 * A stage whose Sets to some switches were lost, all of them LFT blocks,
 * sends those switches' blocks of the stage again, STAGE_RESENDS times
 * at most, before the transition stops: the switches hold a mixture of
 * the stage and the one before, which the stage's proof covers, and each
 * block sent again only moves one further into the stage. Under MAD loss
 * that saves a full sweep. (Where other Sets failed too, as the first
 * stage's SwitchInfo and PortInfo Sets, it stops as before: which nodes
 * lost which is not told apart.)
 */
#define STAGE_RESENDS 2

static int resend_stage(struct sweep *s, const struct cfg_result *r)
{
	const struct fabric *prev;
	const struct routing_tables *prev_t;
	stage_base(s, s->stage - 1, &prev, &prev_t);
	const struct routing_tables *t = transition_stage(&s->plan, s->stage - 1);
	if (!t || (prev && !prev_t))
		return -1;
	lost_set_free(&s->resend_to);
	lost_set_merge(&s->resend_to, r->lost);	/* r->lost is the batch's: gone once this returns */
	lost_set_seal(&s->resend_to);
	s->resends++;
	log_info("transition: %u LFT Sets of stage %zu of %zu lost: the stage's blocks go again to the %zu switches "
		 "they went to", r->lft_failed, s->stage, s->plan.nstages, s->resend_to.n);
	return cfg_program_lfts_of(s->sm->mp, &s->f, t, prev, prev_t, &s->resend_to, on_programmed, s);
}

static void on_programmed(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	char detail[96];
	s->programmed.lft_blocks_sent += r->lft_blocks_sent;
	if (!s->resends)	/* a resend's unchanged blocks were counted the first time */
		s->programmed.lft_blocks_skipped += r->lft_blocks_skipped;
	if (r->lft_failed && r->failed == r->lft_failed && r->lost && s->resends < STAGE_RESENDS &&
	    resend_stage(s, r) == 0)
		return;	/* the failures of this try do not count: the next try's do */
	if (s->stage == 1)
		readback_done(&s->f);	/* the first stage is written: what was read back is spent */
	s->resends = 0;
	sweep_sets_failed(s, r);
	if (r->lft_failed && (s->stage < s->plan.nstages || s->sl_changed)) {
		if (s->sm->transition_stops++ < MAX_TRANSITION_STOPS) {
			stop_transition(s, r->lft_failed);
			return;
		}
		log_warn("transition: %u LFT Sets of stage %zu of %zu lost, %u sweeps in a row: going on (the "
			 "switches may hold states no step proved)", r->lft_failed, s->stage, s->plan.nstages,
			 s->sm->transition_stops);
	}
	if (s->stage < s->plan.nstages) {	/* the next stage only once this one is answered */
		program_stage(s);
		return;
	}
	if (s->change_ms && !s->cfg_failed) {	/* every Set so far landed: the tables are in place */
		uint64_t ms = evl_now_ms() - s->change_ms;
		reaction_record(&s->sm->reaction, ms);
		log_info("sweep: the switches hold the new tables %llu ms after the change was reported",
			 (unsigned long long)ms);
		s->change_ms = 0;
	}
	char early[64] = "";
	if (s->early_blocks)
		snprintf(early, sizeof(early), " (and %u while routing: the entries of LIDs gone)", s->early_blocks);
	snprintf(detail, sizeof(detail), "%u LFT blocks sent%s, %u unchanged and skipped, %zu stage%s",
		 s->programmed.lft_blocks_sent, early, s->programmed.lft_blocks_skipped, s->plan.nstages,
		 s->plan.nstages == 1 ? "" : "s");
	sweep_phase_done(s, detail);
}

void sweep_start_program(struct sweep *s)
{
	struct sm *sm = s->sm;
	struct plan_run *run = calloc(1, sizeof(*run));
	if (!run) {
		sweep_end(s, "out of memory", false);
		return;
	}
	const struct sm_snapshot *pub = sm_published(sm);
	bool clean = sweep_switches_hold_published(sm);
	*run = (struct plan_run){ .s = s, .known = clean && pub->tables.lft,
				  .read_back = !clean && pub && pub->tables.lft && sm->pub_answered,
				  .held = sweep_published_held(sm) != NULL,
				  .own_lid = sm_node_own_lid(&s->f), .vls = s->vls };
	if (plan_trees(run, sm, pub) < 0) {
		plan_run_free(run);
		sweep_end(s, "out of memory", false);
		return;
	}
	if (!(sm->computing = offload_start(sm->loop, plan_work, plan_back, run))) {
		plan_work(run);	/* no thread to be had: here */
		plan_back(run);
	}
}

/* vls, pkeys: their Sets answered, the failures counted, the next phase */

static void sets_answered(struct sweep *s, const struct cfg_result *r, const char *sets, const char *nodes)
{
	char detail[96];
	sweep_sets_failed(s, r);
	snprintf(detail, sizeof(detail), "%u %s Sets, %u %s unchanged and skipped", r->sent, sets, r->skipped_nodes,
		 nodes);
	sweep_phase_done(s, detail);
}

static void on_vls(void *arg, const struct cfg_result *r)
{
	sets_answered(arg, r, "SL2VL/VLArb", "nodes");
}

/* The nodes whose port tables pub (held) cannot vouch for: its sweep lost a Set to them, or the table audit found them unlike. */
static struct lost_set ports_unknown(const struct sm *sm, const struct sm_snapshot *pub)
{
	struct lost_set unknown = { 0 };
	if (pub) {
		lost_set_merge(&unknown, &pub->lost);
		lost_set_merge(&unknown, &sm->port_unsure);
		lost_set_seal(&unknown);
	}
	return unknown;
}

void sweep_start_vls(struct sweep *s)
{
	struct sm *sm = s->sm;
	const struct sm_snapshot *pub = sweep_published_held(sm);
	struct lost_set unknown = ports_unknown(sm, pub);
	int rc = qos_program(sm->mp, &s->f, &s->qos, pub ? &pub->fabric : NULL, pub ? &pub->qos : NULL, &unknown,
			     on_vls, s);
	lost_set_free(&unknown);
	if (rc < 0)
		sweep_end(s, "out of memory", false);
}

static void on_pkeys(void *arg, const struct cfg_result *r)
{
	sets_answered(arg, r, "PKeyTable/enforcement", "CAs");
}

void sweep_start_pkeys(struct sweep *s)
{
	struct sm *sm = s->sm;
	s->parts = sm->cfg.partitions;
	const struct sm_snapshot *pub = sweep_published_held(sm);
	struct lost_set unknown = ports_unknown(sm, pub);
	int rc = pkeys_program(sm->mp, &s->f, &s->parts, pub ? &pub->fabric : NULL, pub ? &pub->parts : NULL,
			       &unknown, on_pkeys, s);
	lost_set_free(&unknown);
	if (rc < 0)
		sweep_end(s, "out of memory", false);
}

/* arm, activate */

static void on_stepped(void *arg, const struct cfg_result *r)
{
	struct sweep *s = arg;
	sweep_sets_failed(s, r);
	sweep_phase_done(s, NULL);
}

void sweep_start_arm(struct sweep *s)
{
	if (cfg_step_state(s->sm->mp, &s->f, PORT_ARMED, on_stepped, s) < 0)
		sweep_end(s, "out of memory", false);
}

void sweep_start_activate(struct sweep *s)
{
	if (cfg_step_state(s->sm->mp, &s->f, PORT_ACTIVE, on_stepped, s) < 0)
		sweep_end(s, "out of memory", false);
}
