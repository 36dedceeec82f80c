/*
 * DOC: staged table transitions
 *
 * A step from tables A to tables B is safe when no mixture of them can
 * deadlock: the channel dependency graph with both entries at every
 * switch (a packet may meet an updated switch, then one not yet updated,
 * in any order) is acyclic per VL, with every LID on its old SL: the SA
 * publishes the new SLs only once the last stage is in, so no host sends
 * on one before (but the SM's LID, whose new SL MasterSMSL gives hosts
 * with the first stage: it is on both). That graph holds every
 * dependency of every mixture, so its being acyclic proves them all,
 * whatever order the SMPs land in. After the last stage, hosts that have
 * asked again send on the new SLs beside those that still use the old
 * ones: the new tables with both SLs are proven last.
 *
 * Planning: try the whole change as one step. If its mixture has a
 * cycle, change entries (switch, LID) in batches: from the entries still
 * to change, nearest their destination first (under the new tables, so a
 * switch changes after the switch its new entry points at, the ordered
 * FIB rule that keeps the mixture free of forwarding loops), the largest
 * leading batch whose step from the current tables to "current with that
 * batch changed" is acyclic; program that batch as a stage, and go on
 * from there. An entry whose
 * change alone closes a cycle waits at the back until others have moved.
 * Every step is checked by the same CDG code as the steady state: the
 * LIDs that do not change add the same dependencies to every step (built
 * once per plan), each stage adds its changing LIDs on its own entries,
 * and each step what its changed entries add to that
 * (routing/cdg_delta.c). A stage after a proven step starts from that
 * step's graph, which holds its state's and is acyclic, instead of
 * walking the changing LIDs again; only when it refuses an entry
 * outright are the state's exact graphs built. When no entry left can
 * move, the rest drops for a stage and then takes its new entries, both
 * steps checked (break before make); when that is not proven either, the
 * rest goes as one stage and the plan says it is not proven (and which
 * cycle).
 */
#include "routing/transition.h"
#include "routing/transition_step.h"

#include <stdlib.h>
#include <string.h>

/* An entry a stage changes: what it was, what it becomes (an entry dropped for a stage changes twice). */
struct transition_change {
	uint32_t node;
	uint16_t lid;
	uint8_t old, to;
};

/* Adds the entries item[0..k) (from: what they were, to: what they become) to the stage p->nstages - 1. */
static int add_changes(struct transition_plan *p, const struct routing_tables *from, const struct routing_tables *to,
		       const struct plan_entry *item, size_t k)
{
	struct transition_change *more = realloc(p->change, (p->nchange + k + 1) * sizeof(*more));
	if (!more)
		return -1;
	p->change = more;
	for (size_t i = 0; i < k; i++) {
		uint32_t n = item[i].node;
		uint16_t lid = item[i].lid;
		p->change[p->nchange++] = (struct transition_change){ n, lid, from->lft[n][lid], to->lft[n][lid] };
	}
	return 0;
}

/*
 * Ends stage p->nstages - 1 with the entries item[0..k) too (from, to:
 * as add_changes), and opens the next unless it is the last (new itself,
 * whose changes are kept too: a stage is made from a copy of new).
 */
static int add_stage(struct transition_plan *p, const struct routing_tables *from, const struct routing_tables *to,
		     const struct plan_entry *item, size_t k, bool last)
{
	size_t *upto = realloc(p->upto, p->nstages * sizeof(*upto));
	if (!upto)
		return -1;
	p->upto = upto;
	if (add_changes(p, from, to, item, k) < 0)
		return -1;
	p->upto[p->nstages - 1] = p->nchange;
	p->nstages += !last;
	return 0;
}

const struct routing_tables *transition_stage(struct transition_plan *p, size_t i)
{
	if (i + 1 >= p->nstages)
		return p->last;
	size_t want = p->upto[i], b = p->made;
	if (!p->state[b].lft || p->applied[b] != want) {
		b = !p->made;	/* the one made before stays as it is: the caller's step from it */
		if (!p->state[b].lft) {
			if (routing_tables_copy(&p->state[b], p->last) < 0)
				return NULL;
			p->applied[b] = p->nchange;
		}
		struct routing_tables *t = &p->state[b];
		for (size_t c = p->applied[b]; c-- > want;)	/* back to what they were, the last change first */
			t->lft[p->change[c].node][p->change[c].lid] = p->change[c].old;
		for (size_t c = p->applied[b]; c < want; c++)
			t->lft[p->change[c].node][p->change[c].lid] = p->change[c].to;
		p->applied[b] = want;
	}
	p->made = b;
	return &p->state[b];
}

/* Nearest the destination first: a switch moves after the switch its new entry points at. */
static int by_hops(const void *a, const void *b)
{
	const struct plan_entry *x = a, *y = b;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	return x->node != y->node ? (x->node < y->node ? -1 : 1) : (x->lid > y->lid) - (x->lid < y->lid);
}

/*
 * Orders item[0..n) nearest the destination first (under new), then by
 * node and LID. They come in (node, LID) order (collect_changes), so a
 * stable count by hops gives that order without comparing tens of
 * thousands of entries (a switch's loss at 3,456 hosts); qsort without
 * memory for it.
 */
static void order_by_hops(const struct fabric *f, const struct routing_tables *new, struct plan_entry *item, size_t n)
{
	uint16_t most = 0;
	for (size_t i = 0; i < n; i++) {
		item[i].hops = (uint16_t)routing_switch_hops(new, f->nodes[item[i].node], item[i].lid);
		most = item[i].hops > most ? item[i].hops : most;
	}
	size_t *start = calloc((size_t)most + 2, sizeof(*start));
	struct plan_entry *sorted = n ? malloc(n * sizeof(*sorted)) : NULL;
	if (!start || !sorted) {
		free(start);
		free(sorted);
		qsort(item, n, sizeof(*item), by_hops);
		return;
	}
	for (size_t i = 0; i < n; i++)
		start[item[i].hops + 1]++;
	for (size_t h = 1; h <= most; h++)
		start[h] += start[h - 1];
	for (size_t i = 0; i < n; i++)
		sorted[start[item[i].hops]++] = item[i];
	memcpy(item, sorted, n * sizeof(*item));
	free(start);
	free(sorted);
}

/* The entries item[0..n) of t set to from's: new's to take a batch, cur's to take it back. */
static void set_entries(struct routing_tables *t, const struct routing_tables *from, const struct plan_entry *item,
			size_t n)
{
	for (size_t k = 0; k < n; k++)
		t->lft[item[k].node][item[k].lid] = from->lft[item[k].node][item[k].lid];
}

/* Checks the step from cur that changes item[0..k); leaves next as cur. 1 proven, 0 not (r: the cycle), -1. */
static int step_proven(const struct fabric *f, const struct step_base *b, const struct state_graphs *sg,
		       const struct routing_tables *cur, const struct routing_tables *new,
		       const struct plan_entry *item, size_t k, struct routing_tables *next, struct cdg_report *r,
		       size_t *checks)
{
	set_entries(next, new, item, k);
	++*checks;
	int rc = check_step_delta(f, b, sg, cur, next, item, k, false, r);
	set_entries(next, cur, item, k);
	return rc < 0 ? -1 : !r->cycle_len;
}

/*
 * After the step that changes item[0..k) closed the cycle in r: the
 * longest leading batch that leaves out one of the cycle's dependencies.
 * A dependency cur's graphs have needs no change; one they lack comes with
 * the first entry (in item's order) that turns a LID into its second
 * channel at that switch, or sends one through its first channel into the
 * switch. The cycle needs every such dependency, so the batch that stops
 * before the latest of those first entries has not all of them. A guess
 * (a LID's path to the switch is not followed), which the next check
 * confirms: 0 when some dependency has no such entry.
 */
static size_t prefix_without_cycle(const struct state_graphs *sg, const struct routing_tables *cur,
				   const struct routing_tables *new, const struct plan_entry *item, size_t k,
				   const struct cdg_report *r)
{
	size_t cut = 0;
	for (size_t j = 0; j < r->cycle_len; j++) {
		const struct cdg_channel *a = &r->cycle[j], *c = &r->cycle[(j + 1) % r->cycle_len];
		if (depgraph_has(&sg->g[r->vl], a, c))
			continue;
		uint32_t from = a->node->index, at = c->node->index;
		size_t first = k;
		for (size_t i = 0; i < first; i++) {
			uint16_t lid = item[i].lid;
			uint8_t to = new->lft[item[i].node][lid];
			/* the entry's LID must take the dependency's other half in some state */
			if ((item[i].node == at && to == c->port &&
			     (cur->lft[from][lid] == a->port || new->lft[from][lid] == a->port)) ||
			    (item[i].node == from && to == a->port &&
			     (cur->lft[at][lid] == c->port || new->lft[at][lid] == c->port)))
				first = i;
		}
		if (first == k)
			return 0;
		cut = first > cut ? first : cut;
	}
	return cut;
}

/*
 * The largest leading batch of item[0..n) whose step from cur is
 * acyclic; 0 when not even the first entry's is (r then holds that
 * cycle). A batch's step graph holds every smaller one's (each entry of
 * the smaller batch changes in the larger too), so the largest is found
 * by halving from all until one is proven, then searching between it
 * and the last refused. A refused batch's cycle names the entries that
 * close it (prefix_without_cycle): the search tries the batch without
 * them first, and the one entry more after it, which mostly ends the
 * search in three checks instead of a bisection's dozen. Once
 * GUESSES_REFUSED such guesses are refused too (one cycle after another,
 * each a little lower: a switch's return on r24 had 24 refused in a row),
 * a guess is taken only where it is no higher than the bisection's next
 * batch. Either way the batch found is the same: the largest that proves
 * out (a larger batch's step holds a smaller one's). next holds
 * cur's entries and new's SLs; it is left with the batch found set.
 * Every check starts from cur's graphs (sg, built once per state). -1 on
 * allocation failure.
 */
#define GUESSES_REFUSED 2

static long proven_batch(const struct fabric *f, struct step_base *b, struct state_graphs *sg,
			 const struct routing_tables *cur, const struct routing_tables *new,
			 const struct plan_entry *item, size_t n, bool proven, struct routing_tables *next,
			 struct cdg_report *r, size_t *checks)
{
	size_t ok = 0, refused = n + 1;
	if (!sg->built && state_graphs_build(sg, f, b, cur, item, n, proven) < 0)
		return -1;
	size_t guided = 0;	/* the last batch the cycle's entries gave */
	unsigned misled = 0;	/* such batches refused: from GUESSES_REFUSED on, a guess goes no higher than a bisection */
	for (size_t k = n; k > ok;) {	/* halve until one proves out, then bisect up to the refused */
		int rc = step_proven(f, b, sg, cur, new, item, k, next, r, checks);
		if (rc < 0)
			return -1;
		if (rc)
			ok = k;
		else
			refused = k;
		misled += !rc && k == guided;
		size_t cut = rc ? 0 : prefix_without_cycle(sg, cur, new, item, k, r);
		size_t half = ok ? ok + (refused - ok) / 2 : k / 2;
		if (rc && k == guided && ok + 1 < refused)
			k = ok + 1;	/* the largest unless the cycle's entries misled: one more check says */
		else if (cut > ok && cut < refused && (misled < GUESSES_REFUSED || cut <= half))
			k = guided = cut;
		else
			k = half;
	}
	set_entries(next, new, item, ok);
	return (long)ok;
}

/*
 * Break before make, for the entries item[0..n) that no order of proven
 * steps moves from cur: they drop for a stage, then take their new
 * values. A mixture of cur and the drops holds only cur's paths, some
 * cut short, and one of the drops and new only new's; both steps are
 * checked all the same, by the same code, on the exact graphs of the
 * state each starts from. Between the two stages packets to those
 * entries' LIDs that meet a dropped entry are lost (the transport sends
 * them again), where a mixture of old and new entries could close a
 * cycle. cur_sg: the caller's graphs of cur, made exact here if they are
 * not (the caller's last check of the rest uses them too). 1 when both
 * steps are proven (their two stages added to p, the second the last), 0
 * when not (p untouched), -1 on allocation failure.
 */
static int drain(const struct fabric *f, struct step_base *b, const struct routing_tables *cur,
		 struct state_graphs *cur_sg, const struct routing_tables *new, const struct plan_entry *item, size_t n,
		 const bool *changes, bool proven, struct transition_plan *p)
{
	struct routing_tables dropped = { 0 }, made = { 0 };
	struct state_graphs sg = { .g = calloc(b->layers, sizeof(*sg.g)) };
	struct cdg_report r;
	int rc = -1;
	if (!sg.g || routing_tables_share(&dropped, cur, changes) < 0 || routing_tables_share(&made, cur, changes) < 0)
		goto done;
	if (cur_sg->built && !cur_sg->exact)
		state_graphs_drop(cur_sg, b);
	for (size_t k = 0; k < n; k++) {
		dropped.lft[item[k].node][item[k].lid] = LFT_NO_PATH;
		made.lft[item[k].node][item[k].lid] = new->lft[item[k].node][item[k].lid];
	}
	memcpy(dropped.sl, new->sl, (size_t)new->max_lid + 1);	/* as every state a step leads to */
	memcpy(made.sl, new->sl, (size_t)new->max_lid + 1);
	if ((!cur_sg->built && state_graphs_build(cur_sg, f, b, cur, item, n, proven) < 0) ||
	    check_step_delta(f, b, cur_sg, cur, &dropped, item, n, true, &r) < 0)
		goto done;
	rc = 0;
	if (r.cycle_len)
		goto done;
	rc = -1;
	if (state_graphs_build(&sg, f, b, &dropped, item, n, true) < 0 ||
	    check_step_delta(f, b, &sg, &dropped, &made, item, n, true, &r) < 0)
		goto done;
	rc = 0;
	if (r.cycle_len)
		goto done;
	rc = add_stage(p, cur, &dropped, item, n, false) < 0 || add_stage(p, &dropped, new, item, n, true) < 0 ? -1 : 1;
	p->drained = n;
done:
	state_graphs_drop(&sg, b);
	free(sg.g);
	routing_tables_free(&dropped);
	routing_tables_free(&made);
	return rc;
}

/*
 * Batches of entries, each step proven, from old towards new, in the
 * order order_by_hops gave them. An
 * entry that cannot change yet waits at the back of the queue; when a
 * whole round of the queue makes no progress (or after `STAGE_CHECKS`
 * checks), what is left drops for a stage before it takes its new
 * entries (drain), or, when that is not proven either, goes as one
 * unproven stage.
 */
#define STAGE_CHECKS 400

static int stage_by_entries(const struct fabric *f, struct step_base *b, const struct routing_tables *old,
			    const struct routing_tables *new, struct plan_entry *item, size_t n,
			    const struct held_start *held, struct transition_plan *p)
{
	struct routing_tables cur, next;
	struct cdg_report r;
	struct state_graphs sg = { .g = calloc(b->layers, sizeof(*sg.g)) };
	size_t checks = 0, stuck = 0;
	bool proven = false;	/* cur is the end of a proven step */
	bool *changes = calloc(f->nnodes + 1, sizeof(*changes));	/* the switches whose rows the states differ in */
	int rc = -1;
	for (size_t k = 0; changes && k < n; k++)
		changes[item[k].node] = true;
	/* the states own only those rows; the others stay old's, which nothing here writes */
	if (!sg.g || !changes || routing_tables_share(&cur, old, changes) < 0)
		goto no_tables;
	if (routing_tables_share(&next, old, changes) < 0)
		goto done;
	memcpy(next.sl, new->sl, (size_t)new->max_lid + 1);	/* each state a step leads to has new's SLs */
	next.layers = new->layers > old->layers ? new->layers : old->layers;
	if (held->g && state_graphs_from_held(&sg, f, b, old, item, n, held) < 0)
		goto done;
	while (n) {
		long k = stuck < n && checks < STAGE_CHECKS
				 ? proven_batch(f, b, &sg, &cur, new, item, n, proven, &next, &r, &checks)
				 : 0;
		if (k < 0)
			goto done;
		if (k == 0 && sg.built && !sg.exact) {
			state_graphs_drop(&sg, b);	/* refused by a superset: once more on exact graphs */
			continue;
		}
		if (k == 0 && stuck < n && checks < STAGE_CHECKS) {	/* this entry waits: try the next first */
			struct plan_entry e = item[0];
			memmove(item, item + 1, (n - 1) * sizeof(*item));
			item[n - 1] = e;
			stuck++;
			continue;
		}
		int drained = k == 0 ? drain(f, b, &cur, &sg, new, item, n, changes, proven, p) : 0;
		if (drained < 0)
			goto done;
		if (drained)
			break;	/* the rest went in two stages: dropped, then new */
		if (k == 0) {	/* nothing can move alone: the rest in one unproven stage, its cycle named */
			k = (long)n;
			set_entries(&next, new, item, n);
			if ((!sg.built && state_graphs_build(&sg, f, b, &cur, item, n, proven) < 0) ||
			    check_step_delta(f, b, &sg, &cur, &next, item, n, true, &r) < 0)
				goto done;
			p->proven = false;
			p->cycle = r;
			p->failed_step = p->nstages;
		}
		if (add_stage(p, old, new, item, (size_t)k, n == (size_t)k) < 0 ||
		    ((size_t)k < n && state_graphs_advance(&sg, f, b, &cur, &next, item, (size_t)k, item + k,
							   n - (size_t)k) < 0))
			goto done;
		struct routing_tables swap = cur;
		cur = next;
		next = swap;
		set_entries(&next, new, item, (size_t)k);	/* the old state's buffer brought up to the new one */
		memcpy(next.sl, new->sl, (size_t)new->max_lid + 1);
		next.layers = cur.layers;
		proven = true;	/* if not, this was the last stage */
		memmove(item, item + k, (n - (size_t)k) * sizeof(*item));
		n -= (size_t)k;
		stuck = 0;
	}
	rc = 0;
done:
	routing_tables_free(&cur);
	routing_tables_free(&next);
no_tables:
	state_graphs_drop(&sg, b);
	free(sg.g);
	free(changes);
	return rc;
}

int transition_plan(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new,
		    struct transition_plan *p)
{
	return transition_plan_held(f, old, new, NULL, 0, NULL, p);
}

/* A growing list of entries. */
struct entries {
	struct plan_entry *v;
	size_t n, cap;
};

static int push_entry(struct entries *l, struct plan_entry e)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		struct plan_entry *more = realloc(l->v, cap * sizeof(*more));
		if (!more)
			return -1;
		l->v = more;
		l->cap = cap;
	}
	l->v[l->n++] = e;
	return 0;
}

/* The multicast trees of one layer, for cdg_check_layer_with. */
struct layer_trees {
	const struct fabric *f;
	const struct transition_trees *trees;
	unsigned layer;
};

static int add_layer_trees(void *arg, struct depgraph *g)
{
	const struct layer_trees *lt = arg;
	return trees_add_layer(lt->f, lt->trees, lt->layer, g);
}

/*
 * Once the last stage is in, the SA publishes the new SLs: some hosts ask
 * and use them while others still send on the old ones, all through the
 * new tables, with the multicast trees held. That state is proven here;
 * if it is cyclic, p is not proven, with failed_step one past the last
 * stage. A layer that no LID comes to holds only the new tables on the
 * old SLs, which the last step's mixture held and proved (trees
 * included); one that no LID leaves holds the new tables on their own
 * SLs, which the routing proved, but not with the trees: only the layers
 * some LIDs come to and that others leave or trees take are checked. -1
 * on allocation failure.
 */
static int check_both_sls(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new,
			  const struct transition_trees *trees, struct transition_plan *p)
{
	bool comes[ROUTING_MAX_LAYERS + 1] = { false }, leaves[ROUTING_MAX_LAYERS + 1] = { false };
	for (uint32_t lid = 1; lid <= old->max_lid && lid <= new->max_lid; lid++)
		if (old->sl[lid] != new->sl[lid] && new->sl[lid] <= ROUTING_MAX_LAYERS &&
		    old->sl[lid] <= ROUTING_MAX_LAYERS) {
			comes[new->sl[lid]] = true;
			leaves[old->sl[lid]] = true;
		}
	struct cdg_mix m = { .lft = { new }, .nlft = 1, .sl = { old, new }, .nsl = 2, .no_answers = true };
	for (unsigned l = 0; l <= ROUTING_MAX_LAYERS; l++) {
		struct cdg_report r;
		struct layer_trees lt = { f, trees, l };
		if (!comes[l] || (!leaves[l] && !trees_on_layer(trees, l)))
			continue;
		if (cdg_check_layer_with(f, &m, l, add_layer_trees, &lt, &r) < 0)
			return -1;
		if (r.cycle_len) {
			p->proven = false;
			p->cycle = r;
			p->failed_step = p->nstages + 1;
			return 0;
		}
	}
	return 0;
}

/* LIDs compared at once: an LFT block, which mostly did not change. */
#define COMPARE_BLOCK 64

/*
 * The entries (switch, LID) old and new differ in: into drop those new
 * drops, into item the others; *switches counts the switches with any.
 * -1 on allocation failure.
 */
static int collect_changes(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new,
			   struct entries *item, struct entries *drop, size_t *switches)
{
	size_t len = (size_t)new->max_lid + 1;
	for (size_t i = 0; i < f->nnodes; i++) {
		const uint8_t *a = old->lft[i], *b = new->lft[i];
		size_t before = item->n + drop->n;
		for (size_t at = 0; a && b && at < len; at += COMPARE_BLOCK) {
			size_t end = at + COMPARE_BLOCK < len ? at + COMPARE_BLOCK : len;
			if (memcmp(a + at, b + at, end - at) == 0)
				continue;
			for (size_t lid = at ? at : 1; lid < end; lid++)
				if (a[lid] != b[lid] &&
				    push_entry(b[lid] == LFT_NO_PATH ? drop : item,
					       (struct plan_entry){ (uint32_t)i, (uint16_t)lid, 0 }) < 0)
					return -1;
		}
		*switches += item->n + drop->n > before;
	}
	return 0;
}

int transition_plan_held(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new,
			 struct held_graphs *held, uint16_t early_lid, const struct transition_trees *trees,
			 struct transition_plan *p)
{
	struct held_start start = { NULL, 0, false };
	struct cdg_report r;
	struct entries item = { 0 }, drop = { 0 };
	struct step_base base = { 0 };
	int rc = -1;
	memset(p, 0, sizeof(*p));
	p->proven = true;
	p->last = new;
	p->nstages = 1;
	if (!old)
		return 0;
	if (collect_changes(f, old, new, &item, &drop, &p->switches) < 0)
		goto done;
	/*
	 * An entry that now drops adds no dependency to any mixture (a packet
	 * that meets it goes no further): such entries go in the first stage,
	 * unchecked, and the checks keep their old entries, a superset.
	 */
	p->dropped = drop.n;
	if (add_changes(p, old, new, drop.v, drop.n) < 0 || step_base_init(&base, old, new, early_lid, trees, item.v, item.n) < 0)
		goto done;
	if (item.n) {	/* the first stage's first check is the whole change */
		order_by_hops(f, new, item.v, item.n);
		start.g = held_graphs_for(held, f, &start.layers, &start.acyclic);
		p->from_held = start.g != NULL;
		rc = stage_by_entries(f, &base, old, new, item.v, item.n, &start, p);
		if (rc == 0 && p->proven)
			rc = check_both_sls(f, old, new, trees, p);
		goto done;
	}
	/* SLs alone change: one step (if hosts learn one early), which no staging can help */
	if (step_base_graphs(&base, f) < 0 || check_step_from(f, &base, base.g, base.moving, old, new, &r) < 0)
		goto done;
	rc = 0;
	if (r.cycle_len) {
		p->proven = false;
		p->cycle = r;
		p->failed_step = 1;
	}
	rc = p->proven ? check_both_sls(f, old, new, trees, p) : 0;
done:
	step_base_free(&base);
	free(item.v);
	free(drop.v);
	if (rc < 0)
		transition_plan_free(p);
	return rc;
}

/*
 * Moves the LIDs whose SL differs between old and new onto layers that
 * neither an old SL nor an unchanged LID uses, those of one new layer
 * together (their own layer when it is free, else the lowest free one),
 * when max_layers has enough: how many moved, 0 when none could.
 */
static size_t move_changed_sls_apart(const struct routing_tables *old, struct routing_tables *new,
				     unsigned max_layers)
{
	bool used[ROUTING_MAX_LAYERS + 1] = { false }, has[ROUTING_MAX_LAYERS + 1] = { false };
	uint8_t to[ROUTING_MAX_LAYERS + 1];
	size_t moved = 0;
	for (uint32_t lid = 1; lid <= new->max_lid; lid++) {
		bool changed = lid <= old->max_lid && old->sl[lid] != new->sl[lid];
		uint8_t o = lid <= old->max_lid ? old->sl[lid] : new->sl[lid];
		if (o > ROUTING_MAX_LAYERS || new->sl[lid] > ROUTING_MAX_LAYERS)
			return 0;
		used[o] = true;	/* hosts still on an old SL send there */
		if (changed)
			has[new->sl[lid]] = true;
		else
			used[new->sl[lid]] = true;
		moved += changed;
	}
	if (!moved)
		return 0;
	if (max_layers > ROUTING_MAX_LAYERS)
		max_layers = ROUTING_MAX_LAYERS;
	unsigned layers = new->layers;
	for (unsigned j = 0; j <= ROUTING_MAX_LAYERS; j++) {
		if (!has[j])
			continue;
		unsigned l = used[j] ? 0 : j;
		while (l < max_layers && used[l])
			l++;
		if (l >= max_layers)
			return 0;
		used[l] = true;
		to[j] = (uint8_t)l;
		layers = l + 1 > layers ? l + 1 : layers;
	}
	for (uint32_t lid = 1; lid <= new->max_lid && lid <= old->max_lid; lid++)
		if (old->sl[lid] != new->sl[lid])
			new->sl[lid] = to[new->sl[lid]];
	new->layers = layers;
	return moved;
}

int transition_plan_apart(const struct fabric *f, const struct routing_tables *old, struct routing_tables *new,
			  struct held_graphs *held, uint16_t early_lid, const struct transition_trees *trees,
			  unsigned max_layers, struct transition_plan *p, size_t *apart)
{
	*apart = 0;
	if (transition_plan_held(f, old, new, held, early_lid, trees, p) < 0)
		return -1;
	if (!old || p->proven || p->failed_step <= p->nstages)
		return 0;
	uint8_t *was = malloc((size_t)new->max_lid + 1);
	unsigned layers = new->layers;
	if (!was) {
		transition_plan_free(p);
		return -1;
	}
	memcpy(was, new->sl, (size_t)new->max_lid + 1);
	size_t moved = move_changed_sls_apart(old, new, max_layers);
	/*
	 * The stages see new's SLs only through the early LID: when its SL
	 * stays, they are as proven as before and only the published state is
	 * judged again; else the whole plan is made again.
	 */
	bool early_moved = early_lid && early_lid <= new->max_lid && new->sl[early_lid] != was[early_lid];
	struct transition_plan q = *p;
	int rc = 0;
	if (moved && early_moved) {
		rc = transition_plan_held(f, old, new, held, early_lid, trees, &q);
	} else if (moved) {
		q.proven = true;
		q.failed_step = 0;
		memset(&q.cycle, 0, sizeof(q.cycle));
		rc = check_both_sls(f, old, new, trees, &q);
	}
	if (moved && rc == 0 && q.proven) {
		if (early_moved)
			transition_plan_free(p);
		*p = q;
		*apart = moved;
	} else if (moved) {
		if (rc == 0 && early_moved)
			transition_plan_free(&q);
		memcpy(new->sl, was, (size_t)new->max_lid + 1);
		new->layers = layers;
	}
	free(was);
	if (rc < 0)
		transition_plan_free(p);
	return rc;
}

void transition_plan_free(struct transition_plan *p)
{
	routing_tables_free(&p->state[0]);
	routing_tables_free(&p->state[1]);
	free(p->change);
	free(p->upto);
	memset(p, 0, sizeof(*p));
}

