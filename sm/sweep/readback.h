/*
 * readback.h - reading back the forwarding tables the switches hold, for
 * an SM that did not write them (a restart, or a standby taking over),
 * so that only what differs is written.
 */
#ifndef SM_READBACK_H
#define SM_READBACK_H

#include "sm/sweep/configure.h"

/*
 * Reads every LFT block up to each switch's LinearFDBTop into its
 * sm_node (lft_held, lft_held_top). A block that cannot be read leaves
 * the switch's table unknown (it is then written whole). r->sent counts
 * the Gets.
 */
int readback_lfts(struct mad_port *mp, struct fabric *f, cfg_done_fn done, void *arg);

/*
 * The tables f's switches were read to hold, as a transition's old
 * tables: sized like `like` (entries past a switch's LinearFDBTop drop,
 * as the switch drops them), each LID on the SL `sls` gives it (the
 * published tables, whose SLs the SA answered with; like's past them).
 * 1 when built, 0 when a switch like has a row for was not read whole
 * (out untouched), -1 on allocation failure.
 */
int readback_tables(const struct fabric *f, const struct routing_tables *like, const struct routing_tables *sls,
		    struct routing_tables *out);

#endif
