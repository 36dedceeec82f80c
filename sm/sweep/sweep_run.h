/*
 * sweep_run.h - what the heavy sweep's files share (sm/sweep/sweep.c and
 * the sweep_*.c beside it): the sweep under way, its phases begun and
 * ended (sm/sweep/sweep_run.c), and each phase's start.
 */
#ifndef SM_SWEEP_RUN_H
#define SM_SWEEP_RUN_H

#include "routing/transition.h"
#include "topology/fabric_diff.h"
#include "sm/sweep/configure.h"
#include "sm/sweep/discover.h"
#include "sm/sweep/lidmgr.h"
#include "sm/sweep/sweep.h"

struct sweep;

/* A phase: its name in the log, and what starts it (it ends with sweep_phase_done or sweep_end). */
struct sweep_phase {
	const char *name;
	void (*start)(struct sweep *s);
};

struct sweep {
	struct sm *sm;
	struct fabric f;
	struct disc_report disc;
	struct lid_result lids;
	struct routing_tables tables;
	unsigned vls;			/* data VLs every link runs, as the route phase found: the layers' bound */
	struct transition_plan plan;	/* the stages from the stored tables to these */
	bool mended;			/* the routing mended the held tables in place */
	bool no_mend;			/* their transition did not prove out: routed again afresh */
	struct route_run *route_run;	/* the route phase's computation, until its verdict */
	bool routed;			/* the computation is back */
	/*
	 * The published tables with the entries of the LIDs that went
	 * dropped, programmed while the routing runs (start_early_drops).
	 */
	struct routing_tables early;
	bool early_pending;		/* its Sets are not all answered */
	bool early_held;		/* every one landed: the switches hold early */
	bool touched;			/* Sets went out (early drops, stages): unpublished, the switches hold neither */
	bool stopped;			/* the transition stopped for lost LFT Sets (sm->lft_unsure names where) */
	unsigned resends;		/* times the stage programming now was sent again */
	struct lost_set resend_to;	/* the switches it was sent again to */
	unsigned early_blocks;		/* LFT blocks it sent */
	/* the tables stored ahead, on another thread while the switches are programmed (sweep_store_ahead) */
	bool ahead_running;		/* its thread has not come back */
	bool store_waiting;		/* the store phase began meanwhile: it goes on once it has */
	size_t stage;			/* the next stage to program */
	struct cfg_result programmed;	/* summed over the stages */
	bool recorded;			/* the database took it */
	bool published;			/* it is sm->pub now (s->f is empty) */
	size_t sl_changed;		/* LIDs whose SL differs from the switches' last tables */
	char result[DB_ERR_LEN + 64];	/* "ok", or how the programming or the store fell short */
	sweep_done_fn done;
	uint64_t change_ms;		/* when the change it answers was reported (sm->sched.change_seen_ms), 0: none */
	uint64_t *repair;		/* a repair: the switches that reported port changes (GUIDs) */
	size_t nrepair;			/* 0: a full sweep */
	struct qos_tables qos;
	struct partitions parts;	/* as configured when the pkeys phase began */
	struct db_partitions members;	/* the ports' memberships, as stored */
	struct db_sweep rec;
	uint64_t t0, phase_t0, mads0, phase_mads0, retries0;
	unsigned cfg_failed;
	struct lost_set lost;		/* the nodes a Set of this sweep failed to */
	const char *phase;
	const struct sweep_phase *phases;	/* the sweep's phases, in order (sm/sweep/sweep.c) */
	size_t nphases;
	size_t phase_index;		/* in phases */
	/* event texts, kept until the sweep is stored */
	struct fabric_change *changes;	/* since the stored sweep */
	char routing_change[64];
	char transition[640];
	char traps_dropped[48];
	char engine[16];		/* the engine that routed (ftree may fall back) */
};

/* sm/sweep/sweep_run.c: the sweep's run */
double sweep_unix_now(void);
uint64_t sweep_mads_sent(const struct sweep *s);
/*
 * Whether the switches hold what the published sweep says (its tables, VL
 * tables, partitions): only a clean one's Sets all landed. The phases
 * write only what differs from it then, and read back or rewrite all else.
 */
bool sweep_switches_hold_published(const struct sm *sm);
/*
 * The published sweep, when its nodes hold what it programmed but those
 * it lost a Set to (pub->lost): no sweep since sent any, and no other
 * master ran the subnet; else NULL. What it wrote need not be written or
 * read back again there.
 */
const struct sm_snapshot *sweep_published_held(const struct sm *sm);
/* Starts phase i of s->phases. */
void sweep_begin_phase(struct sweep *s, size_t i);
/* Where the phase that start starts is in s->phases. */
size_t sweep_phase_of(const struct sweep *s, void (*start)(struct sweep *s));
/* The Sets of a batch of s answered: the failed ones counted, the nodes they went to kept (s->lost). */
void sweep_sets_failed(struct sweep *s, const struct cfg_result *r);
/* Logs the end of the phase running (detail: for its log line, or NULL). */
void sweep_phase_end(struct sweep *s, const char *detail);
/* The phase running is done: logged, then the next one starts, or the sweep ends. */
void sweep_phase_done(struct sweep *s, const char *detail);
/* The phase running has nothing to do in this sweep: the next one starts, no line logged. */
void sweep_phase_skip(struct sweep *s);
/* Ends the phase running and the sweep with it (why: the result). */
void sweep_phase_failed(struct sweep *s, const char *detail, const char *why);
/* Makes the sweep the published snapshot (once); false when there is no memory for it. */
bool sweep_publish(struct sweep *s);
/* Ends the sweep (result: "ok" or what went wrong), published or not; the scheduler hears how. */
void sweep_end(struct sweep *s, const char *result, bool published);
/* Frees the sweep without a word to anyone (sweep_end does, and a standby SM's sweep). */
void sweep_free(struct sweep *s);

/* The phases' starts, in order. sm/sweep/sweep_find.c: */
void sweep_start_discover(struct sweep *s);
void sweep_start_survey(struct sweep *s);
void sweep_start_lids(struct sweep *s);
/* sm/sweep/sweep_route.c: */
void sweep_start_route(struct sweep *s);
void sweep_start_readback(struct sweep *s);
/* sm/sweep/sweep_program.c: */
void sweep_start_program(struct sweep *s);
void sweep_start_vls(struct sweep *s);
void sweep_start_pkeys(struct sweep *s);
void sweep_start_arm(struct sweep *s);
void sweep_start_activate(struct sweep *s);
/* sm/sweep/sweep_store.c (and the tables stored ahead while the switches take them): */
void sweep_store_ahead(struct sweep *s);
void sweep_start_store(struct sweep *s);
void sweep_start_reregister(struct sweep *s);

#endif
