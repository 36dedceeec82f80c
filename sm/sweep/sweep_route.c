/*
 * DOC: the heavy sweep's route and readback phases
 *
 * route: the routing and its proofs computed on a thread of their own
 * (the loop goes on answering the SA and taking traps), within the data
 * VLs every link runs, keeping the routes the switches hold where the
 * configuration asks; meanwhile the switches drop the entries of the
 * LIDs that went. A routing with a forwarding loop or a credit loop is
 * refused. readback: without a clean sweep of our own, the LFTs the
 * switches hold, which the transition starts from.
 */
#include "sm/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>

#include "routing/engine.h"
#include "sm/log.h"
#include "sm/mad/offload.h"
#include "sm/sweep/readback.h"

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
	if (r->lost)
		lost_set_merge(&s->lost, r->lost);
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
	if (s->early.lft || !sweep_switches_hold_published(sm) || !pub->tables.lft)
		return;
	if (transition_drop_view(&pub->fabric, &pub->tables, &s->f, &s->early, &nswitches) < 0 || !nswitches) {
		routing_tables_free(&s->early);	/* out of memory: the first stage sends them */
		return;
	}
	struct cfg_params p = cfg_params_of_sm(sm, &s->f, &s->early);
	s->touched = true;	/* from here, should the sweep fail, the switches hold neither table */
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
void sweep_start_route(struct sweep *s)
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
	if (sm->cfg.keep_routes && !rebalance && sweep_switches_hold_published(sm) && pub->tables.lft) {
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
		sweep_phase_failed(s, detail, why);
		return;
	}
	char err[160];
	if (qos_tables_build(&s->qos, rq.max_layers, sm->cfg.vlarb_high, sm->cfg.vlarb_low, sm->cfg.vl_high_limit,
			     err, sizeof(err)) < 0) {
		sweep_phase_failed(s, detail, err);
		return;
	}
	for (uint8_t sl = 0; sl < 16; sl++)
		s->tables.vl_by_sl[sl] = ib_slvl_table_get(&s->qos.sl2vl, sl);
	qos_describe(&s->qos, s->rec.vlarb, sizeof(s->rec.vlarb));
	sweep_phase_done(s, detail);
}

/* readback */

static void on_read_back(void *arg, const struct cfg_result *r)
{
	char detail[96];
	snprintf(detail, sizeof(detail), "%u LFT blocks read, %u unreadable", r->sent, r->failed);
	sweep_phase_done(arg, detail);
}

void sweep_start_readback(struct sweep *s)
{
	struct sm *sm = s->sm;
	const struct sm_snapshot *held = sweep_published_held(sm);
	struct lost_set read = { 0 };	/* the switches held cannot vouch for: lost a Set, or a stop left unsure */
	if (sweep_switches_hold_published(sm)) {
		sweep_phase_skip(s);
		return;
	}
	if (held) {
		lost_set_merge(&read, &held->lost);
		lost_set_merge(&read, &sm->lft_unsure);
		lost_set_seal(&read);
	}
	int rc = readback_lfts(sm->mp, &s->f, held ? &held->fabric : NULL, held ? &held->tables : NULL, &read,
			       on_read_back, s);
	lost_set_free(&read);
	if (rc < 0)
		sweep_end(s, "out of memory", false);
}
