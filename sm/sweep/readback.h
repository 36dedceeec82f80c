/*
 * readback.h - reading back the forwarding tables the switches hold, for
 * an SM that did not write them (a restart, or a standby taking over),
 * so that only what differs is written.
 */
#ifndef SM_READBACK_H
#define SM_READBACK_H

#include "sm/sweep/configure.h"
#include "sm/sweep/lostset.h"

/* Gets a read has out at once, the next asked as each answer comes (the MAD layer windows them further). */
#define READBACK_IN_FLIGHT 512

/*
 * Reads every LFT block up to each switch's LinearFDBTop into its sm_node
 * (lft_held, lft_held_top): of every switch, or with prev (the published
 * sweep's fabric and tables, held by its switches but those in lost),
 * only of those cfg_table_held cannot vouch for. A block that cannot be
 * read, or a switch whose SwitchInfo was not (how far its table goes is
 * not known), leaves the switch's table unknown (lft_unknown: it is then
 * written whole). LinearFDBTop 0 is a table known without a Get: every
 * LID drops. r->sent counts the Gets.
 */
int readback_lfts(struct mad_port *mp, struct fabric *f, const struct fabric *prev, const struct routing_tables *prev_t,
		  const struct lost_set *lost, cfg_done_fn done, void *arg);
/* The tables read back are spent (the sweep's first stage is written): freed, and nothing is unknown. */
void readback_done(struct fabric *f);

/*
 * The tables f's switches hold, as a transition's old tables: each
 * switch's as cfg_table_held knows it (read back, or prev_t's), sized like
 * `like` (entries past a switch's LinearFDBTop drop, as the switch drops
 * them), each LID on the SL `sls` gives it (the published tables, whose
 * SLs the SA answered with; like's past them). 1 when built, 0 when a
 * switch like has a row for holds a table not known (*unknown_at: the
 * first such; out untouched), -1 on allocation failure.
 */
int readback_tables(const struct fabric *f, const struct routing_tables *like, const struct fabric *prev,
		    const struct routing_tables *prev_t, const struct routing_tables *sls, struct routing_tables *out,
		    const struct node **unknown_at);

#endif
