/*
 * audit_run.h - one table audit under way, shared by its two parts: the
 * LFT blocks (sm/sweep/audit.c) and the VL tables (sm/sweep/audit_vl.c).
 */
#ifndef SM_AUDIT_RUN_H
#define SM_AUDIT_RUN_H

#include "sm/sweep/audit.h"

struct audit {
	struct sm *sm;
	const struct sm_snapshot *pub;	/* stays: no sweep publishes while this holds sm->sched.sweeping */
	audit_done_fn done;
	struct audit_report r;
	bool whole;		/* every block and table (fabricctl audit) */
	unsigned in_flight;
	bool *unlike;		/* per node of pub: found holding a table unlike pub's */
	uint64_t t0;
};

/* One Get's answer is in (or will never come): the audit ends with the last. */
void audit_finish(struct audit *a);
/* Counts node n as holding a table unlike pub's (once), detail naming it: log, event, the next sweep. */
void audit_note_unlike(struct audit *a, const struct node *n, const char *detail);

/* VL tables: the next budget in the rotation, or (a->whole) every one; how many were asked for. */
void audit_vl_tables(struct audit *a, size_t budget);

#endif
