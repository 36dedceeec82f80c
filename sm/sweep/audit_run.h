/*
 * audit_run.h - one table audit under way, shared by its two parts: the
 * LFT blocks (sm/sweep/audit.c) and the port tables (sm/sweep/audit_ports.c).
 */
#ifndef SM_AUDIT_RUN_H
#define SM_AUDIT_RUN_H

#include "sm/sweep/audit.h"
#include "sm/sweep/paced.h"
#include "sm/sweep/qos.h"

/*
 * Gets an audit has out at once; the others are asked for as answers
 * come. (Asked all at once, a whole audit of the 27,648-host tree, some
 * 8.5 million LFT blocks and port tables, would hold gigabytes of MADs
 * queued.)
 */
#define AUDIT_IN_FLIGHT 512

struct audit {
	struct sm *sm;
	const struct sm_snapshot *pub;	/* stays: no sweep publishes while this holds sm->sched.sweeping */
	audit_done_fn done;
	struct audit_report r;
	bool whole;		/* every block and table (fabricctl audit) */
	struct paced pace;	/* AUDIT_IN_FLIGHT Gets out at most: the next block or table asked as each answer comes */
	size_t lft_left;	/* LFT blocks still to ask for */
	size_t port_left;	/* port tables still to ask for in the rotation (not whole) */
	/* a whole audit's port tables: those of node `node` - 1, tables[next..ntables) still to ask for */
	size_t node, ntables, next;
	struct port_table *tables;
	bool *unlike;		/* per node of pub: found holding a table unlike pub's */
	uint64_t t0;
};

/* One Get's answer is in (or will never come): the audit ends with the last (paced_answered). */
void audit_answered(struct audit *a);
/* Counts node n as holding a table unlike pub's (once), detail naming it: log, event, the next sweep. */
void audit_note_unlike(struct audit *a, const struct node *n, const char *detail);

/* Sets out the port tables' part: the rotation's next budget tables, or (a->whole) every one. */
void audit_ports_start(struct audit *a, size_t budget);
/* Asks for the port tables' part's next table; false when none is left. */
bool audit_ports_ask_next(struct audit *a);

#endif
