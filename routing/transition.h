/*
 * transition.h - going from the tables the switches hold to new ones
 * without a moment of deadlock. While LFT blocks are rewritten one SMP at
 * a time, any switch may hold its old or its new entry, and hosts send on
 * the old SL: the SA publishes the new SLs only once every stage is in
 * (hosts that never ask again keep the old SL after that too). A
 * transition is proven when the channel dependency graph of that whole
 * mixture (cdg_mix: both tables' entries at every switch, the old SL of
 * every LID, and the new one of a LID hosts learn early) is acyclic on
 * every VL. When it is not, the change is split into stages, each
 * programmed and acknowledged before the next starts, so that every
 * step's mixture is acyclic. The new SLs run on the new tables alone,
 * whose own proof covers them.
 */
#ifndef ROUTING_TRANSITION_H
#define ROUTING_TRANSITION_H

#include "routing/cdg.h"
#include "routing/held_graphs.h"

struct transition_change;
/*
 * The multicast trees the switches hold while a plan's stages go in (on
 * the plan's fabric, as mtree_build fills them; routing/mtree.h): every
 * step's graph of a layer holds the dependencies of the trees whose
 * packets take that layer's VL, and so does the state the SA publishes
 * at the end. The trees themselves change only after it, and that change
 * is proven where it is made.
 */
struct transition_trees {
	size_t n;
	bool **const *on;	/* [tree][node index][port] */
	const uint32_t *layers;	/* [tree]: bit l, its packets share layer l's VL */
};

struct transition_plan {
	size_t nstages;			/* tables to program, in order: transition_stage() */
	const struct routing_tables *last;	/* the new tables (the caller's, not copied) */
	size_t switches;		/* switches whose tables change */
	size_t dropped;			/* of their entries, those that now drop: in the first stage, unchecked */
	size_t drained;			/* those no order moved with a proven step: dropped for a stage first */
	bool proven;			/* every step's mixture is acyclic */
	bool from_held;			/* started from the held graphs (transition_plan_held) */
	struct cdg_report cycle;	/* not proven: the cycle of the step that is not */
	size_t failed_step;		/* not proven: which step (1 = into stage 0); nstages + 1: the new
					 * tables on the old and the new SLs, once the SA publishes them */
	/*
	 * The stages as the entries they change, in stage order: stage i is
	 * old with change[0 .. upto[i]) made, in order (an entry drained
	 * changes twice: to a drop, then to last's). transition_stage makes the tables of a stage, two at a time,
	 * in state[] (applied: how many changes each holds), not a copy of
	 * the whole tables per stage.
	 */
	struct transition_change *change;
	size_t nchange;
	size_t *upto;			/* [stage] */
	struct routing_tables state[2];
	size_t applied[2];
	size_t made;			/* which of state[] was made last */
};

/*
 * The tables `from` (of fabric from_f, matched to f by GUID; NULL or
 * empty: nothing held) as they would be on f, sized like `like`: the
 * entries of switches absent from from_f, and LIDs past its max, drop;
 * their SL is like's. -1 on allocation failure.
 */
int transition_remap(const struct fabric *from_f, const struct routing_tables *from, const struct fabric *f,
		     const struct routing_tables *like, struct routing_tables *out);
/*
 * The same, to be read only: a switch's row that from holds as it is
 * (from's table at least as long as like's) is from's own row, not a
 * copy, so from must outlive out and nothing may write out's rows (a
 * plan's old tables: 88 MB at 27,648 hosts).
 */
int transition_remap_view(const struct fabric *from_f, const struct routing_tables *from, const struct fabric *f,
			  const struct routing_tables *like, struct routing_tables *out);
/*
 * The tables `held` (of held_f) on f with every entry for a LID that a
 * port of held_f held and no port of f holds dropped: what a repair may
 * program before it has routed anything, since an entry that drops adds
 * no dependency to any mixture (transition_plan_held sends such entries
 * first, unchecked), and every routing drops these. Sized like held; a
 * switch held_f lacks has no row. Only the rows of the switches that
 * drop something are out's own (*nswitches of them); the others are
 * held's, to be read only (as transition_remap_view). -1 on allocation
 * failure.
 */
int transition_drop_view(const struct fabric *held_f, const struct routing_tables *held, const struct fabric *f,
			 struct routing_tables *out, size_t *nswitches);
/*
 * Plans old -> new on f (both sized alike, old remapped; new proven, as
 * routing_compute leaves it: every layer acyclic for the CAs' traffic on
 * new's own SLs, which the plan does not check again): one stage when
 * the mixture of both is acyclic, else entries changed in batches (the
 * largest that keep each step acyclic, halving from all that remain).
 * When no entry left can change acyclically, the rest is one last stage
 * and p->proven is false. old NULL: the switches hold nothing known, new
 * goes in one stage with nothing to prove. p refers to new, which must
 * outlive it. -1 on allocation failure.
 */
int transition_plan(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new,
		    struct transition_plan *p);
/*
 * The same, starting from held: the graphs of the tables old was remapped
 * from (held_graphs_start on their fabric), when they fit f; else, or
 * when held is NULL, as transition_plan. The plan is the same either way
 * but where a superset graph refuses a batch an exact one would take.
 * early_lid (0: none): a LID whose new SL hosts learn at the first stage
 * (the SM's, from MasterSMSL), so traffic to it may use either SL.
 * trees (NULL: none): the multicast trees held meanwhile.
 */
int transition_plan_held(const struct fabric *f, const struct routing_tables *old, const struct routing_tables *new,
			 struct held_graphs *held, uint16_t early_lid, const struct transition_trees *trees,
			 struct transition_plan *p);
/*
 * transition_plan_held, and when that plan fails only where the new SLs
 * are published (the new tables with hosts on old and new SLs), moves the
 * LIDs whose SL changes onto layers of their own, which no old SL and no
 * unchanged LID uses (those of one of new's layers together), if
 * max_layers has room, and plans again; keeps the move (new->sl,
 * new->layers) only if that plan proves out. Each such layer holds some
 * of the LIDs of one of new's layers, so new's proof holds for it, and
 * hosts still on an old SL stay on the others. *apart: the LIDs moved (0:
 * none). -1 on allocation failure.
 */
int transition_plan_apart(const struct fabric *f, const struct routing_tables *old, struct routing_tables *new,
			  struct held_graphs *held, uint16_t early_lid, const struct transition_trees *trees,
			  unsigned max_layers, struct transition_plan *p, size_t *apart);
/*
 * Stage i (0 .. nstages - 1) of p; NULL on allocation failure. The tables
 * of the stage asked for before stay as they are (a step's from and to),
 * those of earlier ones may be remade.
 */
const struct routing_tables *transition_stage(struct transition_plan *p, size_t i);
void transition_plan_free(struct transition_plan *p);
/*
 * Proves one step: from -> to, traffic to each LID on the SLs of sl_a and
 * of sl_b (the same tables twice: one SL). 0, or -1 on allocation failure.
 */
int transition_check_step(const struct fabric *f, const struct routing_tables *from, const struct routing_tables *to,
			  const struct routing_tables *sl_a, const struct routing_tables *sl_b, struct cdg_report *r);

#endif
