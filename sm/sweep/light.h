/*
 * light.h - the periodic light sweep: is anything different from the
 * last heavy sweep, asked as cheaply as possible?
 */
#ifndef SM_LIGHT_H
#define SM_LIGHT_H

#include "sm/sm.h"

/* changed: a switch reported PortStateChange or did not answer (a heavy sweep is due). */
typedef void (*light_done_fn)(struct sm *sm, bool changed);

/*
 * Reads SwitchInfo of every switch of the published sweep (a clean heavy
 * sweep stored), all in flight, then calls done. Nothing else may sweep
 * meanwhile (it holds sm->sched.sweeping).
 */
void light_sweep(struct sm *sm, light_done_fn done);

#endif
