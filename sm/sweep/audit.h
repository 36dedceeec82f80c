/*
 * audit.h - the table audit: do the switches still hold the forwarding
 * tables the published sweep gave them? A few LFT blocks at a time,
 * read back after each quiet light sweep.
 */
#ifndef SM_AUDIT_H
#define SM_AUDIT_H

#include "sm/sm.h"

/* One audit's figures: LFT blocks read, those unlike the published tables, Gets unanswered; switches found unlike. */
struct audit_report {
	unsigned read, differed, unanswered;
	unsigned switches;
};
typedef void (*audit_done_fn)(struct sm *sm, const struct audit_report *r);

/* The LFT blocks of the published sweep's switches: what a whole audit reads. */
size_t audit_blocks_published(const struct sm_snapshot *pub);

/*
 * Reads the next sm->cfg.lft_audit_blocks LFT blocks (every block, when
 * sm->audit.whole_wanted: fabricctl audit) of the published sweep's switches (sm->audit says where the rotation stands; no block
 * twice in one audit), all in flight, and compares each with the
 * published tables. A switch holding a block unlike them joins
 * sm->lft_unsure and the switches no longer count as holding the
 * published sweep (sm->last_sweep_ok): the caller asks for the full sweep
 * that reads it back and rewrites it. Then calls done. Nothing else may
 * sweep meanwhile (it holds sm->sched.sweeping). Only after a clean sweep.
 */
void audit_lfts(struct sm *sm, audit_done_fn done);

#endif
