/*
 * sweep.h - the heavy sweep: discover, elect, assign LIDs, route, program,
 * store (sm/sweep/sweep.c); sm/sched.c decides when.
 */
#ifndef SM_SWEEP_H
#define SM_SWEEP_H

#include "sm/sm.h"

/* How a heavy sweep ended: ok (clean, or this SM stood aside), published (it is sm->pub now). */
struct sweep_outcome {
	bool ok, published;
};
typedef void (*sweep_done_fn)(struct sm *sm, const struct sweep_outcome *o);

/* Starts a heavy sweep now (none may be running); done runs when it has ended, stored or not. */
void sweep_start(struct sm *sm, sweep_done_fn done);

#endif
