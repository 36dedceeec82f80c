/*
 * DOC: the event queue
 *
 * Events (traps, elections, takeovers) wait in sm->events until the
 * database takes them: with the next stored sweep, in its transaction, or,
 * on an SM that does not sweep, whenever the database is free. A locked
 * database never stalls the event loop; beyond SM_MAX_EVENTS they are
 * counted, not kept.
 */
#include <stdio.h>

#include "sm/sm.h"

void sm_event(struct sm *sm, const char *kind, const char *detail)
{
	if (sm->events.n == SM_MAX_EVENTS) {
		sm->events.unlogged++;
		return;
	}
	struct sm_event *e = &sm->events.q[sm->events.n++];
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->detail, sizeof(e->detail), "%s", detail);
}

void sm_events_flush(struct sm *sm)
{
	struct db_new_event ev[SM_MAX_EVENTS];
	for (size_t i = 0; i < sm->events.n; i++)
		ev[i] = (struct db_new_event){ sm->events.q[i].kind, sm->events.q[i].detail };
	if (sm->events.n && !sm->sched.sweeping && db_add_events_now(sm->db, ev, sm->events.n) == 0) {
		sm->events.n = 0;
		sm_db_written(sm);
	}
}
