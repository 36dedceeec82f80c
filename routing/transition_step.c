/*
 * DOC: the proofs of a transition's steps
 *
 * A step from tables A to tables B is proven when the channel dependency
 * graph of every mixture of them (both entries at every switch, every
 * LID on the SLs hosts may use meanwhile) is acyclic per VL. The LIDs
 * that do not change add the same dependencies to every step of a plan
 * (struct step_base, built once); a stage starts from the graphs of its
 * state (struct state_graphs: from the held tables' graphs, built, or
 * advanced from the step before), and a step's check adds only what its
 * changed entries add (routing/cdg_delta.c).
 */
#include "routing/transition_step.h"

#include <stdlib.h>
#include <string.h>

#include "routing/mtree.h"

int transition_check_step(const struct fabric *f, const struct routing_tables *from, const struct routing_tables *to,
			  const struct routing_tables *sl_a, const struct routing_tables *sl_b, struct cdg_report *r)
{
	/* the CAs' traffic; answers on their own SL are proven in the steady states only (docs/routing.md) */
	struct cdg_mix m = { .lft = { from, to }, .nlft = 2, .sl = { sl_a, sl_b }, .nsl = 2, .no_answers = true };
	return cdg_check_mix(f, &m, r);
}


/* The mixture of entries of a and b (b NULL: a's alone) with the SLs traffic may use during b's plan. */
static struct cdg_mix step_mix(const struct step_base *b, const struct routing_tables *x,
			       const struct routing_tables *y)
{
	return (struct cdg_mix){ .lft = { x, y }, .nlft = y ? 2 : 1, .sl = { b->old, &b->early }, .nsl = 2,
				 .no_answers = true };
}

static void step_base_drop_graphs(struct step_base *b)
{
	for (unsigned l = 0; b->g && l < b->layers; l++)
		depgraph_free(&b->g[l]);
	free(b->g);
	b->g = NULL;
}

void step_base_free(struct step_base *b)
{
	step_base_drop_graphs(b);
	free(b->moving);
	free(b->sl_moving);
	free(b->early_sl);
	memset(b, 0, sizeof(*b));
}

/*
 * b for the plan old -> new whose changed entries are item[0..n), without
 * its graphs yet; early_lid (0: none) the LID whose new SL hosts may use
 * from the first stage on.
 */
int step_base_init(struct step_base *b, const struct routing_tables *old, const struct routing_tables *new,
		   uint16_t early_lid, const struct transition_trees *trees, const struct plan_entry *item, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->old = old;
	b->trees = trees;
	b->layers = old->layers > new->layers ? old->layers : new->layers;
	b->moving = calloc((size_t)new->max_lid + 1, sizeof(*b->moving));
	b->sl_moving = calloc((size_t)new->max_lid + 1, sizeof(*b->sl_moving));
	b->early_sl = malloc((size_t)old->max_lid + 1);
	if (!b->moving || !b->sl_moving || !b->early_sl) {
		step_base_free(b);
		return -1;
	}
	memcpy(b->early_sl, old->sl, (size_t)old->max_lid + 1);
	if (early_lid && early_lid <= old->max_lid && early_lid <= new->max_lid)
		b->early_sl[early_lid] = new->sl[early_lid];
	b->early = *old;
	b->early.sl = b->early_sl;
	b->early.layers = b->layers;
	for (size_t k = 0; k < n; k++)
		b->moving[item[k].lid] = true;
	for (uint32_t lid = 1; lid <= old->max_lid && lid <= new->max_lid; lid++) {
		b->sl_moving[lid] = old->sl[lid] != b->early_sl[lid];
		b->moving[lid] |= b->sl_moving[lid];
	}
	return 0;
}

bool trees_on_layer(const struct transition_trees *trees, unsigned l)
{
	for (size_t k = 0; trees && l < 32 && k < trees->n; k++)
		if (trees->layers[k] >> l & 1)
			return true;
	return false;
}

int trees_add_layer(const struct fabric *f, const struct transition_trees *trees, unsigned l, struct depgraph *g)
{
	for (size_t k = 0; trees && l < 32 && k < trees->n; k++)
		if (trees->layers[k] >> l & 1 && mtree_dependencies(f, trees->on[k], g) < 0)
			return -1;
	return 0;
}

/* b's graphs, built on first use (a plan that starts from the held graphs may never need them). */
int step_base_graphs(struct step_base *b, const struct fabric *f)
{
	const struct routing_tables *old = b->old;
	if (b->g)
		return 0;
	bool *still = calloc((size_t)old->max_lid + 1, sizeof(*still));
	int rc = -1;
	if (!still || !(b->g = calloc(b->layers, sizeof(*b->g))))
		goto done;
	for (uint32_t lid = 1; lid <= old->max_lid; lid++)
		still[lid] = !b->moving[lid];
	struct cdg_mix m = step_mix(b, old, NULL);
	for (unsigned l = 0; l < b->layers; l++)
		if (depgraph_init(&b->g[l], f) < 0 || cdg_add_layer(f, &m, l, still, &b->g[l]) < 0 ||
		    trees_add_layer(f, b->trees, l, &b->g[l]) < 0)
			goto done;
	rc = 0;
done:
	free(still);
	if (rc < 0)
		step_base_drop_graphs(b);
	return rc;
}

/*
 * A step from -> to of b's plan (with the SLs traffic may use during it),
 * from graphs (one per layer: the dependencies of every LID but
 * those in lids, the same in from and to) with the mixture of the LIDs
 * in lids added.
 */
int check_step_from(const struct fabric *f, const struct step_base *b, const struct depgraph *graphs,
		    const bool *lids, const struct routing_tables *from, const struct routing_tables *to,
		    struct cdg_report *r)
{
	struct cdg_mix m = step_mix(b, from, to);
	struct cdg_report sum = { 0 };
	for (unsigned l = 0; l < b->layers; l++) {
		struct depgraph g;
		int rc = depgraph_copy(&g, &graphs[l]);
		if (rc == 0)
			rc = cdg_add_layer(f, &m, l, lids, &g);
		if (rc == 0)
			rc = depgraph_check(&g, r);
		depgraph_free(&g);
		if (rc < 0)
			return -1;
		r->vl = l;
		if (r->cycle_len)
			return 0;
		sum.channels += r->channels;
		sum.dependencies += r->dependencies;
	}
	*r = sum;
	return 0;
}


void state_graphs_drop(struct state_graphs *sg, const struct step_base *b)
{
	for (unsigned l = 0; sg->built && l < b->layers; l++)
		depgraph_free(&sg->g[l]);
	cdg_reach_free(sg->reach);
	sg->reach = NULL;
	sg->built = false;
}

/* The reach under cur of the LIDs of item[0..n); NULL on allocation failure. */
static struct cdg_reach *reach_left(const struct fabric *f, const struct routing_tables *cur,
				    const struct plan_entry *item, size_t n)
{
	bool *left = calloc((size_t)cur->max_lid + 1, sizeof(*left));
	struct cdg_reach *r = NULL;
	if (left) {
		for (size_t k = 0; k < n; k++)
			left[item[k].lid] = true;
		r = cdg_reach_new(f, cur, left);
	}
	free(left);
	return r;
}

/* sg's building ended after `built` layers: all of them (0), or the graphs made and the reach freed (-1). */
static int state_graphs_end(struct state_graphs *sg, const struct step_base *b, unsigned built, bool exact)
{
	if (built == b->layers) {
		sg->built = true;
		sg->exact = exact;
		return 0;
	}
	while (built--)
		depgraph_free(&sg->g[built]);
	cdg_reach_free(sg->reach);
	sg->reach = NULL;
	return -1;
}

/*
 * sg for cur, whose entries item[0..n) are still to change. proven: cur
 * is the end of a proven step, whose graph holds all of cur's, so cur's
 * graphs are acyclic; else they are searched once.
 */
int state_graphs_build(struct state_graphs *sg, const struct fabric *f, struct step_base *b,
		       const struct routing_tables *cur, const struct plan_entry *item, size_t n, bool proven)
{
	struct cdg_mix m = step_mix(b, cur, NULL);
	unsigned l;
	if (step_base_graphs(b, f) < 0 || !(sg->reach = reach_left(f, cur, item, n)))
		return -1;
	sg->acyclic = true;
	for (l = 0; l < b->layers; l++) {
		struct cdg_report r = { .cycle_len = 0 };
		if (depgraph_copy(&sg->g[l], &b->g[l]) < 0)
			break;
		if (cdg_add_layer(f, &m, l, b->moving, &sg->g[l]) < 0 ||
		    (!proven && depgraph_check(&sg->g[l], &r) < 0)) {
			depgraph_free(&sg->g[l]);
			break;
		}
		sg->acyclic &= !r.cycle_len;
	}
	return state_graphs_end(sg, b, l, true);
}


/*
 * sg for old, the plan's first state, whose entries item[0..n) are to
 * change, from held (graphs of old's CA traffic on its own SLs, on a
 * fabric f fits): copies, with the early LID added on its new layer too
 * when its SL changes, and the multicast trees held. A superset of old's
 * graphs (links lost since drop dependencies held has), so not exact;
 * acyclic when held was and neither an SL nor a tree was added, else
 * searched.
 */
int state_graphs_from_held(struct state_graphs *sg, const struct fabric *f, const struct step_base *b,
			   const struct routing_tables *old, const struct plan_entry *item, size_t n,
			   const struct held_start *held)
{
	struct cdg_mix m = step_mix(b, old, NULL);
	bool sl_changes = false;
	unsigned l;
	for (uint32_t lid = 1; lid <= old->max_lid && !sl_changes; lid++)
		sl_changes = b->sl_moving[lid];
	if (!(sg->reach = reach_left(f, old, item, n)))
		return -1;
	sg->acyclic = held->acyclic;
	for (l = 0; l < b->layers; l++) {
		struct cdg_report r = { .cycle_len = 0 };
		bool trees = trees_on_layer(b->trees, l);
		int rc = l < held->layers ? depgraph_copy_onto(&sg->g[l], &held->g[l], f) : depgraph_init(&sg->g[l], f);
		if (rc == 0 && sl_changes)
			rc = cdg_add_layer(f, &m, l, b->sl_moving, &sg->g[l]);
		if (rc == 0 && trees)
			rc = trees_add_layer(f, b->trees, l, &sg->g[l]);
		if (rc == 0 && (sl_changes || trees))
			rc = depgraph_check(&sg->g[l], &r);
		if (rc < 0) {
			depgraph_free(&sg->g[l]);
			break;
		}
		sg->acyclic &= !r.cycle_len;
	}
	return state_graphs_end(sg, b, l, false);
}

/* item[0..n) as cdg_add_changes takes them (sorted once for every layer); NULL on allocation failure. */
static struct cdg_change *changes_of(const struct plan_entry *item, size_t n)
{
	struct cdg_change *ch = malloc((n + 1) * sizeof(*ch));
	for (size_t k = 0; ch && k < n; k++)
		ch[k] = (struct cdg_change){ item[k].node, item[k].lid };
	if (ch)
		cdg_changes_sort(ch, n);
	return ch;
}

/*
 * The step cur -> next of b's plan, next being cur with the entries
 * item[0..n) changed: sg's graphs with what those changes add. When sg's
 * graphs are acyclic the search starts from the channels the changes gave
 * dependencies, unless whole (the cycle to report is the one a search of
 * the whole graph meets first); r's counts are then left 0.
 */
int check_step_delta(const struct fabric *f, const struct step_base *b, const struct state_graphs *sg,
		     const struct routing_tables *cur, const struct routing_tables *next,
		     const struct plan_entry *item, size_t n, bool whole, struct cdg_report *r)
{
	struct cdg_mix m = step_mix(b, cur, next);
	struct cdg_report sum = { 0 };
	struct cdg_change *ch = changes_of(item, n);
	struct cdg_roots roots = { 0 };
	int rc = ch ? 0 : -1;
	for (unsigned l = 0; rc == 0 && l < b->layers; l++) {
		struct depgraph g;
		roots.n = 0;
		rc = depgraph_copy(&g, &sg->g[l]);
		if (rc == 0)
			rc = cdg_add_changes(f, &m, l, sg->reach, ch, n, &g, &roots);
		if (rc == 0)
			rc = sg->acyclic && !whole ? depgraph_check_from(&g, roots.v, roots.n, r) : depgraph_check(&g, r);
		depgraph_free(&g);
		r->vl = l;
		if (rc == 0 && r->cycle_len)
			break;
		sum.channels += r->channels;
		sum.dependencies += r->dependencies;
	}
	if (rc == 0 && !r->cycle_len)
		*r = sum;
	free(ch);
	free(roots.v);
	return rc;
}

/*
 * sg, cur's graphs, made those of next: cur with the entries item[0..k)
 * changed, a step proven acyclic, whose entries rest[0..nrest) are left
 * to change. The step's graph (cur's with what the changes add) holds
 * every dependency of next and is acyclic, so it serves as next's without
 * walking the moving LIDs again; a superset (the changed entries' old
 * dependencies stay), which can refuse a later step for a dependency next
 * no longer has, never pass one wrongly: stage_by_entries builds exact
 * graphs before it gives up on an entry. Of the reach, only the rows of
 * LIDs left to change that the step changed are walked again: the others'
 * entries are cur's.
 */
int state_graphs_advance(struct state_graphs *sg, const struct fabric *f, const struct step_base *b,
			 const struct routing_tables *cur, const struct routing_tables *next,
			 const struct plan_entry *item, size_t k, const struct plan_entry *rest, size_t nrest)
{
	struct cdg_mix m = step_mix(b, cur, next);
	struct cdg_change *ch = changes_of(item, k);
	struct cdg_roots roots = { 0 };
	bool *left = calloc((size_t)next->max_lid + 1, sizeof(*left));
	bool *walk = calloc((size_t)next->max_lid + 1, sizeof(*walk));
	int rc = ch && left && walk ? 0 : -1;
	for (unsigned l = 0; rc == 0 && l < b->layers; l++)
		rc = cdg_add_changes(f, &m, l, sg->reach, ch, k, &sg->g[l], &roots);
	if (rc == 0) {
		for (size_t i = 0; i < nrest; i++)
			left[rest[i].lid] = true;
		for (size_t i = 0; i < k; i++)
			walk[item[i].lid] = left[item[i].lid];
		rc = cdg_reach_refresh(sg->reach, f, next, walk);
	}
	free(ch);
	free(roots.v);
	free(left);
	free(walk);
	if (rc < 0)
		return -1;
	sg->acyclic = true;
	sg->exact = false;
	return 0;
}
