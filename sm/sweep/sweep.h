/*
 * sweep.h - the heavy sweep (a full one or a repair): discover, elect, assign LIDs, route, program,
 * store (sm/sweep/sweep.c and the sweep_*.c beside it); sm/sched.c decides when.
 */
#ifndef SM_SWEEP_H
#define SM_SWEEP_H

#include "sm/sm.h"

/* How a heavy sweep ended: ok (clean, or this SM stood aside), published (it is sm->pub now). */
struct sweep_outcome {
	bool ok, published;
};
typedef void (*sweep_done_fn)(struct sm *sm, const struct sweep_outcome *o);

/*
 * Starts a heavy sweep now (none may be running); done runs when it has
 * ended, stored or not. With nrepair switch GUIDs it is a repair: the
 * published fabric with those switches read again (sm/sweep/discover.c,
 * disc_repair), falling back to a full discovery when the repair cannot
 * vouch for its model. It answers the change reported at
 * sm->sched.change_seen_ms (taken; given back if it ends without the
 * switches holding its tables).
 */
void sweep_start(struct sm *sm, const uint64_t *repair, size_t nrepair, sweep_done_fn done);

/*
 * A switch reported a port change while a repair reads the fabric: it
 * joins that repair (read in a later wave, so the answers show the
 * change) instead of waiting for a repair of its own. False when no
 * repair is reading, or its model has no such switch.
 */
bool sweep_repair_join(struct sm *sm, uint64_t guid);

#endif
