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
 *                    [--mcast] [--verbose]
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
 * --mcast: a multicast group of every host on SL 0, its tree built
 * before the loss (mtree_build) and held by the switches while the
 * stages go in: each plan is made again with it (routing/transition.h's
 * trees), and after the repair the new tree (from the same root while
 * that switch is there, as the SA builds it) is judged with the new tables alone and as a mixture
 * with the old one (switches holding either entry while the MFTs are
 * rewritten), as the SA proves them, and alone with hosts still on the
 * old SLs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing/depgraph.h"
#include "routing/engine.h"
#include "routing/mtree.h"
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
	/* --mcast */
	size_t mc_proven;	/* plans proven with the old tree held throughout */
	size_t mc_new_cyclic;	/* the new tree closes a cycle with the new tables */
	size_t mc_mix_cyclic;	/* the new one does not, its mixture with the old one does */
	size_t mc_stale_cyclic;	/* the new tree closes a cycle with hosts still on the old SLs */
	double mc_plan_ms;
};

/* Every host of f as a group's members into m (room for f->nnodes). */
static size_t every_host(const struct fabric *f, struct mtree_member *m)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->type != NODE_SWITCH)
			m[n++] = (struct mtree_member){ f->nodes[i], 1 };
	return n;
}

/*
 * The group of every host's tree on f from the switch root (mtree_build's
 * when f lacks it) into a new tree; NULL on allocation failure.
 */
static bool **host_tree(const struct fabric *f, uint64_t root)
{
	struct mtree_member *m = malloc((f->nnodes + 1) * sizeof(*m));
	bool **on = m ? mtree_new(f) : NULL;
	size_t n = on ? every_host(f, m) : 0;
	int rc = on ? mtree_build_at(f, m, n, root, on) : 0;
	if (rc == 1)
		rc = mtree_build(f, m, n, on);
	if (rc < 0) {
		mtree_free(on, f->nnodes);
		on = NULL;
	}
	free(m);
	return on;
}

static int add_tree(void *arg, struct depgraph *g)
{
	void *const *a = arg;
	return mtree_dependencies(a[0], a[1], g);
}

/*
 * Whether tree on of g closes a cycle on layer 0 with the new tables n: as
 * the SA proves the trees (n's SLs, the switches' answers too), or with
 * stale (the CAs' requests on old's SLs and n's: hosts that have not asked
 * again). -1 on failure.
 */
static int tree_cyclic(const struct fabric *g, const struct routing_tables *old, const struct routing_tables *n,
		       bool **on, bool stale)
{
	struct cdg_mix m = stale ? (struct cdg_mix){ .lft = { n }, .nlft = 1, .sl = { old, n }, .nsl = 2, .no_answers = true }
				 : cdg_mix_of(n);
	struct cdg_report r;
	void *arg[2] = { (void *)g, on };
	return cdg_check_layer_with(g, &m, 0, add_tree, arg, &r) < 0 ? -1 : r.cycle_len > 0;
}

/*
 * --mcast for one case: the plan f -> g again with the tree held (held_f's
 * tree before the loss, on g), and the new tree judged alone and mixed
 * with it. -1 on allocation failure.
 */
static int mcast_case(const struct fabric *f, const struct fabric *g, const struct routing_tables *old,
		      struct routing_tables *n, struct held_graphs *held, unsigned max_layers, bool proven,
		      const char *what, struct totals *sum)
{
	/* the tree keeps its root while that switch is there, as the SA keeps it */
	uint64_t root = mtree_first_root(f);
	bool **before = host_tree(f, root), **held_on = mtree_new(g), **after = host_tree(g, root);
	struct mtree_saved saved = { 0 };
	int rc = before && held_on && after && mtree_save(f, before, &saved) == 0 ? 0 : -1;
	if (rc == 0) {
		mtree_load(&saved, g, held_on);
		uint32_t layer0 = 1;
		struct transition_trees trees = { 1, (bool **const *)&held_on, &layer0 };
		struct transition_plan p;
		size_t apart;
		uint8_t *sl = malloc((size_t)n->max_lid + 1);	/* this plan may move SLs apart too: put back */
		unsigned layers = n->layers;
		if (sl)
			memcpy(sl, n->sl, (size_t)n->max_lid + 1);
		double t0 = now_ms();
		rc = sl ? transition_plan_apart(g, old, n, held, 0, &trees, max_layers, &p, &apart) : -1;
		sum->mc_plan_ms += now_ms() - t0;
		if (rc == 0) {
			sum->mc_proven += p.proven;
			if (what && proven && !p.proven) {
				char cycle[512];
				cdg_cycle_text(&p.cycle, cycle, sizeof(cycle));
				printf("%s: proven, but not with the tree held: step %zu of %zu, VL %u: %s\n", what,
				       p.failed_step, p.nstages, p.cycle.vl, cycle);
			}
			transition_plan_free(&p);
			memcpy(n->sl, sl, (size_t)n->max_lid + 1);
			n->layers = layers;
		}
		free(sl);
	}
	int stale = rc == 0 ? tree_cyclic(g, old, n, after, true) : -1;
	sum->mc_stale_cyclic += stale == 1;
	int alone = stale >= 0 ? tree_cyclic(g, old, n, after, false) : -1;
	if (alone == 0) {	/* the union: every switch holding either entry */
		mtree_load(&saved, g, after);
		rc = tree_cyclic(g, old, n, after, false);
		sum->mc_mix_cyclic += rc == 1;
		if (what && rc == 1)
			printf("%s: the new tree proven, its mixture with the old one not\n", what);	/* two phases */
	}
	sum->mc_new_cyclic += alone == 1;
	rc = alone < 0 || rc < 0 ? -1 : 0;
	mtree_saved_free(&saved);
	mtree_free(before, f->nnodes);
	mtree_free(held_on, g->nnodes);
	mtree_free(after, g->nnodes);
	return rc;
}

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
	if (rc == 0 && transition_plan_apart(f, &old, &back, hg, 0, NULL, rq.max_layers, &p, &apart) < 0)
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
		    const struct node *leaf, bool switch_loss, bool back, bool mcast, uint64_t seed, bool verbose,
		    struct totals *sum)
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
	if (rc == 0 && transition_plan_apart(&g, &old, &n, held, 0, NULL, rq.max_layers, &p, &apart) < 0)
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
		if (rc == 0 && transition_plan_apart(&g, &old, &n, held, 0, NULL, rq.max_layers, &p, &apart) < 0)
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
		char what[96];
		snprintf(what, sizeof(what), "seed %llu, %s[%u] lost", (unsigned long long)seed, leaf->desc, up);
		if (mcast && mcast_case(f, &g, &old, &n, held, rq.max_layers, p.proven, verbose ? what : NULL, sum) < 0)
			rc = -1;
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
	bool verbose = false, with_held = false, switch_loss = false, back = false, mcast = false;
	static const struct option opts[] = {
		{ "seeds", required_argument, NULL, 's' }, { "radix", required_argument, NULL, 'r' },
		{ "remove-links", required_argument, NULL, 'L' }, { "remove-switches", required_argument, NULL, 'S' },
		{ "leaves", required_argument, NULL, 'n' }, { "switch-loss", no_argument, NULL, 'w' },
		{ "back", no_argument, NULL, 'b' },
		{ "held", no_argument, NULL, 'h' }, { "mcast", no_argument, NULL, 'm' },
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
		case 'm': mcast = true; break;
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
			    one_case(&f, &t, held, f.nodes[i], switch_loss, back && switch_loss, mcast, seed, verbose, &sum) < 0) {
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
	if (mcast)
		printf("a group of every host on SL 0: %zu transitions proven with its tree held throughout (plan %.1f ms "
		       "a case); after the repair its new tree (same root) closes a cycle with the new tables in %zu, "
		       "its mixture with the old tree in %zu more (as the SA proves them: published SLs, answers "
		       "included); with the CAs' requests on the old SLs too, the new tree in %zu\n", sum.mc_proven,
		       sum.mc_plan_ms / sum.cases, sum.mc_new_cyclic, sum.mc_mix_cyclic, sum.mc_stale_cyclic);
	if (sum.back_cases)
		printf("%zu switches back: %zu transitions proven at every step, %.2f stages on average; routing %.1f ms, "
		       "plan %.1f ms a case\n", sum.back_cases, sum.back_proven, (double)sum.back_stages / sum.back_cases,
		       sum.back_route_ms / sum.back_cases, sum.back_plan_ms / sum.back_cases);
	return 0;
}
