/*
 * sm.h - the subnet manager's state: one per fabricd process.
 */
#ifndef SM_SM_H
#define SM_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"
#include "sm/mad/budget.h"
#include "routing/memo.h"
#include "routing/routing.h"
#include "sm/config.h"
#include "sm/mad/evloop.h"
#include "sm/ha/ha.h"
#include "sm/mad/mad.h"
#include "sm/mad/rmpp_recv.h"
#include "sm/notify.h"
#include "sm/reaction.h"
#include "sm/perf/health.h"
#include "sm/perf/perf.h"
#include "sm/sa/mcast.h"
#include "sm/sweep/lostset.h"
#include "sm/sweep/mkey.h"
#include "sm/sweep/qos.h"
#include "sm/sa/sa.h"
#include "topology/namemap.h"
#include "topology/fabric.h"

enum sm_state { SM_NOTACTIVE = 0, SM_DISCOVERING = 1, SM_STANDBY = 2, SM_MASTER = 3 };

/*
 * What the last published sweep found and programmed: what the SA, the
 * trap handler, the light sweep and the control socket answer from. A
 * sweep builds the next one aside and publishes it whole at its end
 * (sm/sweep/sweep_run.c); from then on nobody changes it, and every reader
 * gets it const (sm_published). (Each node's sm_node, what the SM knows
 * beyond the model, goes with it.)
 */
struct discovery;

struct sm_snapshot {
	struct fabric fabric;		/* with its end-port index, for the SA */
	struct routing_tables tables;	/* the LFTs and each LID's SL */
	struct qos_tables qos;		/* the VL tables */
	struct partitions parts;	/* the partitions */
	struct db_partitions members;	/* the memberships stored with it (sm/sweep/pkeys.c), if stored */
	char engine[16];		/* the routing engine that made the tables (ftree may fall back) */
	int64_t stored;			/* the id of its record in the database, 0 if it was not stored */
	struct held_graphs *held;	/* the tables' dependency graphs, built aside for the next plan; or NULL */
	struct lost_set lost;		/* the nodes its sweep lost a Set to: what they hold is unknown */
};

struct sm {
	struct fabricd_config cfg;
	struct evloop *loop;
	struct mad_port *mp;
	struct rmpp_sender *rmpp;	/* the SA's answers longer than one MAD */
	struct rmpp_receiver *rmpp_in;	/* requests longer than one MAD */
	struct db *db;
	struct notifier *notify;	/* systemd's, or NULL (sm/notify.c) */
	enum sm_state state;
	uint32_t act_count;	/* SMInfo ActCount: bumped by each sweep */
	bool once;		/* exit after the first sweep */
	int exit_code;
	struct sm_snapshot *pub;	/* the published sweep; NULL before the first */
	struct offload *computing;	/* the running sweep's work on another thread (joined at exit) */
	bool db_busy;			/* the running sweep's store holds the database: other writes wait */
	struct routing_memo route_memo;	/* the last fresh routing and its fabric: a relink takes it again */
	struct mkeys mkeys;		/* every node's M_Key */
	struct namemap names;		/* cfg.node_name_map: the names sweeps give nodes */
	struct ha ha;			/* the other SMs, and the master when standing by */
	struct reaction reaction;	/* reported changes answered: how long until their tables were in place */
	/* what hosts asked the SA to keep (sm/sa/) */
	struct sm_sa {
		struct sa_services services;	/* ServiceRecords hosts registered */
		struct sa_subscriptions subscriptions;	/* InformInfo: who wants which traps */
		struct budget log_budget;	/* refusals logged per source LID a minute */
	} sa;
	struct mcast mcast;		/* multicast groups, their members, their timer */
	struct perf *perf;		/* counter sweeps (sm/perf/); NULL with --once */
	struct health *health;		/* unhealthy ports (sm/perf/health.c) */
	bool last_sweep_ok;	/* every Set of the published sweep landed: the switches hold it */
	bool pub_answered;	/* the SA has answered from pub since: hosts' PathRecords carry its SLs */
	bool pub_held;		/* no Set went out since pub but its own: its nodes (but pub->lost) hold it */
	unsigned transition_stops;	/* sweeps in a row whose transition stopped for lost LFT Sets */
	struct lost_set lft_unsure;	/* switches such a stop (or the table audit) may have left with tables other than pub's */
	struct lost_set port_unsure;	/* nodes the table audit found holding port tables other than pub's */
	/*
	 * The table audit's rotations over the published switches' LFT blocks
	 * and over every node's port tables, and its figures (sm/sweep/audit.c)
	 */
	struct sm_audit {
		size_t node;		/* the published fabric's node whose block is read next */
		unsigned block;
		uint64_t read, differed, unanswered, rotations;
		bool whole_wanted;	/* fabricctl audit: the next audit reads every block and table */
		unsigned wholes;	/* audits that read every block, and the last one's figures */
		unsigned last_read, last_differed, last_unanswered;
		/* port tables: the k-th table of every node in turn, then the k+1-th (sm/sweep/audit_ports.c) */
		size_t port_node, port_index;
		bool port_index_met;	/* some node has a table at port_index */
		uint64_t port_read, port_differed, port_unanswered, port_rotations;
		unsigned last_port_read, last_port_differed, last_port_unanswered;
	} audit;
	bool clients_registered;	/* the hosts were asked to reregister since this SM became master */
	struct budget trap_budget;	/* traps each source LID may send a minute */
	/* when sweeps run (sm/sched.c) */
	struct sm_sched {
		bool sweeping, resweep_wanted;	/* one at a time; a heavy one asked for meanwhile follows */
		bool heavy;		/* the sweep on is a heavy one (or a repair): no MFT programming meanwhile */
		struct evl_watch *sweep_timer;	/* the next light sweep */
		struct evl_watch *change_timer;	/* hold-down after a trap reported a change */
		bool change_pending;
		uint64_t change_first_ms;	/* when the first trap of the pending change came */
		/*
		 * When the first change the next heavy sweep answers was
		 * reported (a trap, a light sweep's finding, the audit's), 0:
		 * none; that sweep takes it, and gives it back if it ends
		 * without the tables in place (sm->reaction).
		 */
		uint64_t change_seen_ms;
		/*
		 * What the next sweep is: a full heavy sweep when asked for
		 * (full_wanted), else a repair of the switches that reported a
		 * port change (repair[], by GUID) when there are some.
		 */
		bool full_wanted;
		/*
		 * The running repair's discovery while it reads the fabric
		 * (disc_repair): a switch that reports a change meanwhile
		 * joins it (sweep_repair_join). NULL otherwise.
		 */
		struct discovery *reading;
		bool rebalance_wanted;	/* the next routing re-balances every route (fabricctl resweep --rebalance) */
		uint64_t *repair;
		size_t nrepair, repair_cap;
		uint64_t last_full_ms;	/* when the last full heavy sweep began: full_sweep_interval counts from it */
		/*
		 * Asks for a heavy sweep (sm_sweep_request): for the modules a
		 * sweep itself calls (the election), which must not call sched.c back.
		 */
		void (*want_sweep)(struct sm *sm);
		/* figures of the heavy sweeps (sm/sweep/sweep.c), for /metrics */
		unsigned heavy_sweeps, failed_sweeps;
		double last_sweep_seconds;
		uint64_t last_sweep_mads;
	} sched;
	/* the write-ahead log copied into the database file when idle (sm/checkpoint.c) */
	struct sm_checkpoint {
		struct evl_watch *timer;
		bool pending;	/* armed since the last write */
	} checkpoint;
	/*
	 * Events (traps, elections) not yet in the database (sm/events.c):
	 * they go in with the next sweep, in its transaction, or, on an SM
	 * that does not sweep, whenever the database is free; a locked
	 * database never stalls the event loop.
	 */
	struct sm_events {
#define SM_MAX_EVENTS 64
		struct sm_event {
			char kind[24];
			char detail[256];
		} q[SM_MAX_EVENTS];
		size_t n;
		unsigned unlogged;	/* beyond SM_MAX_EVENTS */
	} events;
};

/* The published sweep, read-only; NULL before the first. */
static inline const struct sm_snapshot *sm_published(const struct sm *sm)
{
	return sm->pub;
}
/* sm/sweep/sweep_run.c: frees the published sweep (at exit). */
void sm_snapshot_free(struct sm_snapshot *snap);

/* sm/sched.c: the sweep timers and sm->want_sweep; -1 if a timer cannot be made. */
int sched_init(struct sm *sm);
void sched_free(struct sm *sm);
/* Starts a full heavy sweep now, or right after the one running; nothing on a STANDBY or NOTACTIVE SM. */
void sm_sweep_request(struct sm *sm);
/*
 * fabricctl audit: a table audit of every LFT block and port table, now, or
 * right after the sweep running: 0 with how many blocks and tables it
 * reads, -1 with the reason in why when there is nothing to audit (not
 * master, no clean sweep).
 */
int sm_audit_request(struct sm *sm, size_t *blocks, size_t *tables, char *why, size_t len);
/*
 * A node reported a change: sweep in full once no other report came for
 * cfg.trap_quiet_ms, or cfg.trap_holddown_ms after the first such report,
 * whichever is sooner, however many more arrive meanwhile.
 */
void sm_sweep_soon(struct sm *sm);
/*
 * Switch guid reported a port change (Trap 128, PortStateChange): after
 * the same hold-down, a repair sweep reads it again, with every other
 * switch that reported one meanwhile (a full sweep when one is asked
 * for, or when the switches may not hold the published tables). While a
 * repair still reads the fabric, the switch joins it instead.
 */
void sm_repair_soon(struct sm *sm, uint64_t guid);
/* sm/checkpoint.c: the timer; -1 if it cannot be made. */
int checkpoint_init(struct sm *sm);
void checkpoint_free(struct sm *sm);
/* The daemon wrote to the database: its log is copied into the file once idle. */
void sm_db_written(struct sm *sm);
/* sm/events.c: queues an event for the database (see sm->events). */
void sm_event(struct sm *sm, const char *kind, const char *detail);
/* Stores the queued events now if the database is free (for an SM that does not sweep). */
void sm_events_flush(struct sm *sm);
/* sm/dispatch.c: takes every unsolicited MAD of sm->mp to its handler. */
void dispatch_attach(struct sm *sm);

#endif
