/*
 * trap.h - what fabricd does with the traps nodes send it.
 */
#ifndef SM_TRAP_H
#define SM_TRAP_H

#include "sm/sm.h"

/* Represses, records and (for fabric changes) schedules a sweep for one trap. */
void trap_handle(struct sm *sm, const ib_smp_t *req, const struct mad_origin *from);

#endif
