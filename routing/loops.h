/*
 * loops.h - forwarding loops in a set of tables: a switch entry that,
 * followed hop by hop, comes back to a switch it passed. The deadlock
 * proof (cdg.h) sees loops only in routes CA traffic takes; this looks at
 * every switch's entry for every LID, so a switch's own packets (replies,
 * traps) never circle either.
 */
#ifndef ROUTING_LOOPS_H
#define ROUTING_LOOPS_H

#include "routing/routing.h"

#define LOOPS_MAX_SHOWN 16

struct loops_report {
	size_t entries;		/* switch entries whose path loops */
	size_t lids;		/* LIDs with at least one such entry */
	uint16_t first_lid;	/* the first looping LID, 0 when none */
	const struct node *cycle[LOOPS_MAX_SHOWN];	/* the switches of its loop, in order */
	size_t cycle_len;
};

/* Looks at every switch entry of t for every LID; -1 on allocation failure. */
int loops_find(const struct fabric *f, const struct routing_tables *t, struct loops_report *r);
/* The same for the LIDs with lids[lid] set only (max_lid + 1 entries). */
int loops_find_lids(const struct fabric *f, const struct routing_tables *t, const bool *lids, struct loops_report *r);
/*
 * The same check, worked on by up to nworkers threads that take its LID
 * blocks in turn: each calls loops_work_take as worker k (0 ..
 * nworkers - 1), which returns once no block is left; once every take
 * has returned, loops_work_end gives the report (the same whoever took
 * which block) and frees w. NULL, or -1, on allocation failure.
 */
#define LOOPS_WORKERS_MAX 8
struct loops_work;
struct loops_work *loops_work_new(const struct fabric *f, const struct routing_tables *t, const bool *lids,
				  unsigned nworkers);
void loops_work_take(struct loops_work *w, unsigned k);
int loops_work_end(struct loops_work *w, struct loops_report *r);
/* "LID 2: A2 -> C8 -> A2" into buf. */
void loops_text(const struct loops_report *r, char *buf, size_t len);

#endif
