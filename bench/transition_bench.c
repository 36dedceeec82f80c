/*
 * transition-bench - the transitions of single failures, without a
 * simulator: for seeds 1..N of the degraded radix-8 3-level tree
 * (fabric-gen --remove-links 6 --remove-switches 1 unless told), route
 * it, lose each leaf's first up-link in turn, route again keeping the
 * routes the loss left whole (as a repair does: a mend in place whose
 * transition is not proven is routed afresh, as the sweep does), and plan
 * the transition from the old tables to the new (as the sweep does: the
 * LIDs whose SL changes moved to layers apart when only the published
 * SLs' state fails): how many plans are proven at every step, their
 * stages, the unproven ones' cycles, the time the routing and the plans
 * took, and the link load after.
 *
 *   transition-bench [--seeds N] [--radix K] [--remove-links N]
 *                    [--remove-switches N] [--leaves N] [--switch-loss [--back]] [--held]
 *                    [--verbose]
 *
 * --leaves N: only the first N leaves of each tree (the big ones).
 * --switch-loss: the switch at the far end of that up-link goes instead
 * (every cable of it, and its LID), as a repair sees a switch die.
 * --back: then that switch comes back (every cable): routed with the
 * repair's tables kept where they deliver (as the sweep does), and the
 * transition planned from them (from their graphs, built untimed, with
 * --held): a line of its own for the returns.
 * --held: each plan starts from the graphs of the tables before the loss,
 * built beforehand and not timed, as the daemon builds them after a sweep
 * (routing/held_graphs.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "routing/engine.h"
#include "routing/quality.h"
#include "routing/transition.h"
#include "topology/fattree_gen.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct totals {
	size_t cases, proven, apart, stages, switches, refused, mended, afresh, broken;
	double route_ms, plan_ms, mean_max_load;
	uint32_t max_load;
	size_t back_cases, back_proven, back_stages;	/* --back: the switches' returns */
	double back_route_ms, back_plan_ms;
};

/*
 * The lost switch back: from n (the repair's tables on g) to f's routing
 * with n kept where it delivers, planned (from n's graphs with held).
 */
static int switch_back(const struct fabric *f, const struct fabric *g, const struct routing_tables *n, bool held,
		       struct totals *sum)
{
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8, .keep_fabric = g, .keep = n };
	struct held_graphs *hg = held ? held_graphs_start(g, n) : NULL;
	unsigned layers;
	bool acyclic;
	if (hg)
		held_graphs_for(hg, g, &layers, &acyclic);	/* built before any timing */
	struct routing_tables back, old;
	struct routing_result res;
	struct transition_plan p;
	size_t apart = 0;
	double t0 = now_ms();
	int rc = routing_compute(f, &rq, &back, &res);
	double t1 = now_ms();
	if (rc == 0 && transition_remap_view(g, n, f, &back, &old) < 0)
		rc = -1;
	if (rc == 0 && transition_plan_apart(f, &old, &back, hg, 0, rq.max_layers, &p, &apart) < 0)
		rc = -1;
	double t2 = now_ms();
	if (rc == 0) {
		sum->back_cases++;
		sum->back_proven += p.proven;
		sum->back_stages += p.nstages;
		sum->back_route_ms += t1 - t0;
		sum->back_plan_ms += t2 - t1;
		transition_plan_free(&p);
		routing_tables_free(&old);
		routing_tables_free(&back);
	}
	held_graphs_free(hg);
	return rc;
}

/* The first port of sw that leads to another switch, or 0. */
static unsigned first_uplink(const struct node *sw)
{
	for (unsigned p = 1; p <= sw->nports; p++)
		if (sw->ports[p].remote && sw->ports[p].remote->type == NODE_SWITCH)
			return p;
	return 0;
}

/*
 * Loses leaf's first up-link (switch_loss: the switch behind it) on a copy
 * of f (routed as t) and plans the repair's transition.
 */
static int one_case(const struct fabric *f, const struct routing_tables *t, struct held_graphs *held,
		    const struct node *leaf, bool switch_loss, bool back, uint64_t seed, bool verbose, struct totals *sum)
{
	struct fabric g;
	unsigned up = first_uplink(leaf);
	if (!up || fabric_copy(&g, f) < 0)
		return up ? -1 : 0;
	if (switch_loss)
		fabric_remove_node(&g, fabric_find_guid(&g, leaf->ports[up].remote->guid));
	else
		fabric_unlink(fabric_find_guid(&g, leaf->guid), (uint8_t)up);
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8, .keep_fabric = f, .keep = t };
	struct routing_tables n, old;
	struct routing_result res;
	struct transition_plan p;
	double t0 = now_ms();
	int rc = routing_compute(&g, &rq, &n, &res);
	double t1 = now_ms();
	if (rc == 0 && transition_remap_view(f, t, &g, &n, &old) < 0)
		rc = -1;
	size_t apart = 0;
	if (rc == 0 && transition_plan_apart(&g, &old, &n, held, 0, rq.max_layers, &p, &apart) < 0)
		rc = -1;
	if (rc == 0 && !p.proven && res.stable.mended) {	/* as the sweep does: routed afresh, planned again */
		transition_plan_free(&p);
		routing_tables_free(&old);
		routing_tables_free(&n);
		rq.no_mend = true;
		sum->afresh++;
		rc = routing_compute(&g, &rq, &n, &res);
		if (rc == 0 && transition_remap_view(f, t, &g, &n, &old) < 0)
			rc = -1;
		if (rc == 0 && transition_plan_apart(&g, &old, &n, held, 0, rq.max_layers, &p, &apart) < 0)
			rc = -1;
	}
	double t2 = now_ms();
	if (rc == 0) {
		sum->cases++;
		sum->proven += p.proven;
		sum->apart += apart > 0;
		sum->stages += p.nstages;
		sum->switches += p.switches;
		sum->refused += res.kept_refused;
		sum->mended += res.stable.mended;
		struct quality_report q = { 0 };
		if (quality_shifts(&g, &n, 16, &q) < 0)
			rc = -1;
		sum->broken += q.broken;
		sum->mean_max_load += q.mean_max_load;
		sum->max_load = q.max_load > sum->max_load ? q.max_load : sum->max_load;
		sum->route_ms += t1 - t0;
		sum->plan_ms += t2 - t1;
		if (back && switch_back(f, &g, &n, held != NULL, sum) < 0)
			rc = -1;
		if (verbose && apart)
			printf("seed %llu, %s[%u] lost: proven with the %zu LIDs whose SL changes on layers apart "
			       "(%u VLs)\n", (unsigned long long)seed, leaf->desc, up, apart, n.layers);
		if (verbose && !p.proven) {
			char cycle[512];
			cdg_cycle_text(&p.cycle, cycle, sizeof(cycle));
			printf("seed %llu, %s[%u] lost: %zu switches, %zu stages, %s%zu NOT proven, VL %u: %s\n",
			       (unsigned long long)seed, leaf->desc, up, p.switches, p.nstages,
			       p.failed_step > p.nstages ? "published SLs after step " : "step ",
			       p.failed_step > p.nstages ? p.nstages : p.failed_step, p.cycle.vl, cycle);
		}
		transition_plan_free(&p);
		routing_tables_free(&old);
		routing_tables_free(&n);
	}
	fabric_free(&g);
	return rc;
}

static unsigned number(const char *s, unsigned min)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (*s == '\0' || *end || v < min || v > 1000) {
		fprintf(stderr, "transition-bench: '%s' is not a number from %u to 1000\n", s, min);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	unsigned seeds = 20, radix = 8, remove_links = 6, remove_switches = 1, leaves = 1000;
	bool verbose = false, with_held = false, switch_loss = false, back = false;
	static const struct option opts[] = {
		{ "seeds", required_argument, NULL, 's' }, { "radix", required_argument, NULL, 'r' },
		{ "remove-links", required_argument, NULL, 'L' }, { "remove-switches", required_argument, NULL, 'S' },
		{ "leaves", required_argument, NULL, 'n' }, { "switch-loss", no_argument, NULL, 'w' },
		{ "back", no_argument, NULL, 'b' },
		{ "held", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seeds = number(optarg, 1); break;
		case 'r': radix = number(optarg, 1); break;
		case 'L': remove_links = number(optarg, 0); break;
		case 'S': remove_switches = number(optarg, 0); break;
		case 'n': leaves = number(optarg, 1); break;
		case 'w': switch_loss = true; break;
		case 'b': back = true; break;
		case 'h': with_held = true; break;
		case 'v': verbose = true; break;
		default: return 2;
		}
	}
	struct totals sum = { 0 };
	for (uint64_t seed = 1; seed <= seeds; seed++) {
		struct fattree_spec spec = { .levels = 3, .radix = radix, .remove_links = remove_links,
					     .remove_switches = remove_switches,
					     .seed = seed };
		struct fabric f;
		struct routing_tables t;
		struct routing_result res;
		char err[256];
		if (fattree_generate(&spec, &f, err) < 0) {
			fprintf(stderr, "transition-bench: %s\n", err);
			return 2;
		}
		uint16_t lid = 1;
		for (size_t i = 0; i < f.nnodes; i++)
			f.nodes[i]->ports[f.nodes[i]->type == NODE_SWITCH ? 0 : 1].lid = lid++;
		if (routing_compute(&f, &(struct routing_request){ .engine = ENGINE_FTREE, .max_layers = 8 }, &t, &res) < 0) {
			fprintf(stderr, "transition-bench: out of memory\n");
			return 1;
		}
		struct held_graphs *held = with_held ? held_graphs_start(&f, &t) : NULL;
		unsigned layers;
		bool acyclic;
		if (with_held && !held_graphs_for(held, &f, &layers, &acyclic)) {	/* built before any timing */
			fprintf(stderr, "transition-bench: the held graphs could not be built\n");
			return 1;
		}
		unsigned tried = 0;
		for (size_t i = 0; i < f.nnodes && tried < leaves; i++)
			if (f.nodes[i]->type == NODE_SWITCH && f.nodes[i]->desc[0] == 'L' && ++tried &&
			    one_case(&f, &t, held, f.nodes[i], switch_loss, back && switch_loss, seed, verbose, &sum) < 0) {
				fprintf(stderr, "transition-bench: out of memory\n");
				return 1;
			}
		held_graphs_free(held);
		routing_tables_free(&t);
		fabric_free(&f);
	}
	if (!sum.cases) {
		fprintf(stderr, "transition-bench: no leaf with an up-link\n");
		return 1;
	}
	printf("%zu lost %s (radix %u, seeds 1-%u): %zu transitions proven at every step (%zu with the LIDs whose "
	       "SL changes on layers apart), %.2f stages and "
	       "%.1f switches changed on average, %zu mended in place (%zu of them routed afresh: not proven), %zu "
	       "kept-route merges refused; routing %.1f ms, plan %.1f ms a case\n",
	       sum.cases, switch_loss ? "switches above a leaf" : "leaf up-links", radix, seeds, sum.proven, sum.apart,
	       (double)sum.stages / sum.cases, (double)sum.switches / sum.cases,
	       sum.mended + sum.afresh, sum.afresh, sum.refused, sum.route_ms / sum.cases, sum.plan_ms / sum.cases);
	printf("after the repairs, 16 shift permutations each: worst link load %u, mean worst %.2f, %zu flows broken\n",
	       sum.max_load, sum.mean_max_load / sum.cases, sum.broken);
	if (sum.back_cases)
		printf("%zu switches back: %zu transitions proven at every step, %.2f stages on average; routing %.1f ms, "
		       "plan %.1f ms a case\n", sum.back_cases, sum.back_proven, (double)sum.back_stages / sum.back_cases,
		       sum.back_route_ms / sum.back_cases, sum.back_plan_ms / sum.back_cases);
	return 0;
}
