/*
 * audit.h - the table audit: do the switches still hold the forwarding
 * tables, and the nodes the port tables (SL-to-VL, VL arbitration,
 * P_Key), the published sweep gave them? A few LFT blocks and port
 * tables at a time, read back after each quiet light sweep.
 */
#ifndef SM_AUDIT_H
#define SM_AUDIT_H

#include "sm/sm.h"

/*
 * One audit's figures: LFT blocks read, those unlike the published
 * tables, Gets unanswered; the same of port tables (SL-to-VL maps, VL
 * arbitration and P_Key blocks); nodes found holding something unlike
 * them.
 */
struct audit_report {
	unsigned read, differed, unanswered;
	unsigned port_read, port_differed, port_unanswered;
	unsigned switches;
};
typedef void (*audit_done_fn)(struct sm *sm, const struct audit_report *r);

/* The LFT blocks of the published sweep's switches: what a whole audit reads. */
size_t audit_blocks_published(const struct sm_snapshot *pub);
/* The port tables the published sweep wrote on its nodes: what a whole audit reads of them. */
size_t audit_port_tables_published(const struct sm_snapshot *pub);

/*
 * Reads the next sm->cfg.lft_audit_blocks LFT blocks of the published
 * sweep's switches and the next sm->cfg.port_audit_tables port tables of
 * its nodes (every one of both, when sm->audit.whole_wanted: fabricctl
 * audit; sm->audit says where the rotations stand; nothing twice in one
 * audit), AUDIT_IN_FLIGHT Gets out at a time, and compares each with
 * what the published sweep gave. A switch holding a block unlike it
 * joins sm->lft_unsure, a node holding a port table unlike it
 * sm->port_unsure, and the switches no
 * longer count as holding the published sweep (sm->last_sweep_ok): the
 * caller asks for the full sweep that rewrites them. Then calls done.
 * Nothing else may sweep meanwhile (it holds sm->sched.sweeping). Only
 * after a clean sweep.
 */
void audit_tables(struct sm *sm, audit_done_fn done);

#endif
