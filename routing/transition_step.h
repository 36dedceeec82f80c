/*
 * transition_step.h - the proofs of a transition's steps, which the
 * planner (routing/transition.c) asks of routing/transition_step.c: what
 * every step of one plan shares, the graphs of the state a stage starts
 * from, and a step's check against them.
 */
#ifndef ROUTING_TRANSITION_STEP_H
#define ROUTING_TRANSITION_STEP_H

#include "routing/cdg_delta.h"
#include "routing/transition.h"

/* One entry to change: switch node index, LID, and the switch's hops to the LID under the new tables. */
struct plan_entry {
	uint32_t node;
	uint16_t lid;
	uint16_t hops;
};

/*
 * What every step of one plan shares: the SLs traffic may use while the
 * stages go in (old's, and the early LID's new one), the LIDs that change
 * (their column, or the SL hosts may use) and, per layer, the
 * dependencies of all the others, which are the same in every state of
 * the plan. A step's check copies those and adds the changing LIDs'
 * mixture only: the same graph transition_check_step builds whole.
 */
struct step_base {
	const struct routing_tables *old;
	struct routing_tables early;	/* old's fields (shared, not owned) with early_sl: only its SLs are read */
	uint8_t *early_sl;	/* old's SLs, the early LID's new one */
	bool *moving;		/* [lid]: its column or the SL hosts may use changes */
	bool *sl_moving;	/* [lid]: hosts may use another SL (the early LID's) */
	unsigned layers;
	const struct transition_trees *trees;	/* the multicast trees held throughout, or NULL */
	struct depgraph *g;	/* [layer]: the dependencies of the LIDs that do not move, and of the trees; NULL
				 * until needed */
};

/*
 * b for the plan old -> new whose changed entries are item[0..n), without
 * its graphs yet; early_lid (0: none) the LID whose new SL hosts may use
 * from the first stage on. -1 on allocation failure.
 */
int step_base_init(struct step_base *b, const struct routing_tables *old, const struct routing_tables *new,
		   uint16_t early_lid, const struct transition_trees *trees, const struct plan_entry *item, size_t n);
/* Whether some tree of trees (NULL: none) takes layer l's VL. */
bool trees_on_layer(const struct transition_trees *trees, unsigned l);
/* Adds to g the dependencies of the trees of trees (NULL: none) on layer l. -1 on allocation failure. */
int trees_add_layer(const struct fabric *f, const struct transition_trees *trees, unsigned l, struct depgraph *g);
void step_base_free(struct step_base *b);
/* b's graphs, built on first use (a plan that starts from the held graphs may never need them). */
int step_base_graphs(struct step_base *b, const struct fabric *f);
/*
 * A step from -> to of b's plan, from graphs (one per layer: the
 * dependencies of every LID but those in lids) with the mixture of the
 * LIDs in lids added.
 */
int check_step_from(const struct fabric *f, const struct step_base *b, const struct depgraph *graphs,
		    const bool *lids, const struct routing_tables *from, const struct routing_tables *to,
		    struct cdg_report *r);

/*
 * The graphs of the state a stage starts from, cur: b's, plus every
 * moving LID on cur's entries alone (on every SL b allows), and where
 * those LIDs' traffic goes under cur. A step from cur changes the entries
 * of a few LIDs; every other LID has cur's entries in both states, so the
 * step's graph is this one with what the changed entries add
 * (routing/cdg_delta.c): the checks of one stage share it.
 */
struct state_graphs {
	bool built;
	bool acyclic;		/* every layer's graph: then a step's cycle passes through what it adds */
	bool exact;		/* cur's dependencies alone, not those of the step that led to it too */
	struct depgraph *g;	/* [layer] */
	struct cdg_reach *reach;	/* of the LIDs with entries left to change, under cur */
};

/* What a plan may start from: the graphs of the tables the switches hold (routing/held_graphs.h), or none. */
struct held_start {
	const struct depgraph *g;
	unsigned layers;
	bool acyclic;
};

/* sg for cur, whose entries item[0..n) are still to change (proven: cur ends a proven step). */
int state_graphs_build(struct state_graphs *sg, const struct fabric *f, struct step_base *b,
		       const struct routing_tables *cur, const struct plan_entry *item, size_t n, bool proven);
/* sg for old, the plan's first state, from the graphs of the tables the switches hold. */
int state_graphs_from_held(struct state_graphs *sg, const struct fabric *f, const struct step_base *b,
			   const struct routing_tables *old, const struct plan_entry *item, size_t n,
			   const struct held_start *held);
void state_graphs_drop(struct state_graphs *sg, const struct step_base *b);
/* The step cur -> next (cur with item[0..n) changed): sg's graphs with what the changes add. */
int check_step_delta(const struct fabric *f, const struct step_base *b, const struct state_graphs *sg,
		     const struct routing_tables *cur, const struct routing_tables *next,
		     const struct plan_entry *item, size_t n, bool whole, struct cdg_report *r);
/* sg made the graphs of next, the end of the proven step cur -> next; rest[0..nrest) left to change. */
int state_graphs_advance(struct state_graphs *sg, const struct fabric *f, const struct step_base *b,
			 const struct routing_tables *cur, const struct routing_tables *next,
			 const struct plan_entry *item, size_t k, const struct plan_entry *rest, size_t nrest);

#endif
