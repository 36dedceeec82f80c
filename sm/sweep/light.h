/*
 * light.h - the periodic light sweep: is anything different from the
 * last heavy sweep, asked as cheaply as possible?
 */
#ifndef SM_LIGHT_H
#define SM_LIGHT_H

#include "sm/sm.h"

/* What a light sweep found: the switches that reported PortStateChange or did not answer (GUIDs), how many did not. */
struct light_report {
	const uint64_t *changed;
	size_t nchanged;
	unsigned silent;
};
typedef void (*light_done_fn)(struct sm *sm, const struct light_report *r);

/*
 * Reads SwitchInfo of every switch of the published sweep (a clean heavy
 * sweep stored), all in flight, then calls done. Nothing else may sweep
 * meanwhile (it holds sm->sched.sweeping).
 */
void light_sweep(struct sm *sm, light_done_fn done);

#endif
