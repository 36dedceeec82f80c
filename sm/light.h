/*
 * light.h - the periodic light sweep: is anything different from the
 * last heavy sweep, asked as cheaply as possible?
 */
#ifndef SM_LIGHT_H
#define SM_LIGHT_H

#include "sm/sm.h"

/*
 * Reads SwitchInfo of every switch of sm->fabric; when one reports
 * PortStateChange or does not answer, starts a heavy sweep, else arms the
 * next light sweep. Without a clean previous sweep it is a heavy sweep.
 */
void light_sweep(struct sm *sm);

#endif
