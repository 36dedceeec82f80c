/*
 * db.h - fabricd's state database (SQLite). The only code that writes SQL.
 *
 * Holds the LID of every port GUID ever seen (kept forever, so LIDs are
 * stable), the fabric as the last good sweep found it (nodes, ports,
 * links, forwarding tables), the sweep history and an event log. A sweep's
 * results go in with one transaction: a crash keeps the previous sweep.
 */
#ifndef DB_H
#define DB_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/routing.h"
#include "topology/fabric.h"
#include "topology/portcounters.h"

#define DB_ERR_LEN 512

struct db;

struct db_lid {
	uint64_t guid;
	uint16_t lid;
};

struct db_sweep {
	int64_t id;
	char kind[16];		/* "heavy", "light" */
	double started, finished;	/* Unix time */
	uint64_t mads;
	char result[64];	/* "ok" or what failed */
	unsigned nodes, switches, links;
	char vlarb[256];	/* the VL arbitration programmed on every port */
	char routing[512];	/* engine, levels, VLs, and why ftree fell back, if it did */
};

enum db_mode { DB_READ_ONLY, DB_READ_WRITE };

/*
 * How much history is kept: the newest sweeps and events, none older than
 * days (0: no limit); counter samples at full resolution for perf_hours,
 * then as hourly roll-ups for days; and the counters' history trimmed,
 * oldest first, while the database holds more than perf_max_mb (0: no limit).
 */
struct db_retention {
	unsigned sweeps, events, days;
	unsigned perf_hours, perf_max_mb;
};

/*
 * Opens (READ_WRITE: creating and migrating) the database at path. Checks
 * integrity; a corrupt, locked or too-new database is refused with a
 * one-line reason in err.
 */
struct db *db_open(const char *path, enum db_mode mode, char err[DB_ERR_LEN]);
void db_close(struct db *db);
/*
 * Copies the committed write-ahead log into the database file, as far as
 * no reader still needs the older pages (a passive checkpoint: it waits
 * for nobody); *copied says how many pages. A READ_WRITE handle never does
 * so by itself: its owner calls this when idle, or the log grows.
 */
int db_checkpoint(struct db *db, int *copied);
const char *db_last_error(struct db *db);
/* SQLite's version, for fabricd --version. */
const char *db_library_version(void);

/* Every stored GUID -> LID; *out is malloc'ed. */
int db_load_lids(struct db *db, struct db_lid **out, size_t *n);

/* A partition as programmed, and one port's membership. */
struct db_partition {
	uint16_t pkey;		/* without the membership bit */
	char name[32];
};
struct db_pkey_member {
	uint16_t pkey;
	uint64_t guid;		/* node GUID */
	uint8_t port;
	bool full;
};
struct db_partitions {
	const struct db_partition *p;
	size_t np;
	const struct db_pkey_member *m;
	size_t nm;
};

/* A port's M_Key (by port GUID; a switch's node GUID), when drawn at random (derived keys are not stored). */
struct db_mkey {
	uint64_t guid;
	uint64_t mkey;
};

/* A ServiceRecord registered with the SA: the attribute's bytes, who registered it, until when (Unix time). */
#define DB_SERVICE_RECORD_LEN 176
struct db_service {
	uint8_t record[DB_SERVICE_RECORD_LEN];
	uint64_t owner;
	double expires;
};

struct db_new_event {
	const char *kind;
	const char *detail;
};

/*
 * What db_save_sweep keeps from now on. Until it is set, everything is
 * kept; fabricd sets its configuration's history (sm/config.c has the
 * defaults).
 */
void db_set_retention(struct db *db, const struct db_retention *keep);
/* The database's size in bytes (its pages; the WAL aside) and how many sweeps and events it holds. */
int db_size(struct db *db, uint64_t *bytes, unsigned *sweeps, unsigned *events);
/*
 * What a sweep stored: its fabric, its tables (NULL: none) and the id
 * db_save_sweep gave its record. Handed to the next save, it lets that
 * one write only the rows that differ.
 */
struct db_stored {
	const struct fabric *f;
	const struct routing_tables *t;
	int64_t sweep;
	const struct db_partitions *parts;	/* the partitions stored with it (NULL: not known) */
};

/*
 * Stores a finished sweep in one transaction: the sweep record (sw->id
 * set), the new LIDs, the fabric and its tables (t may be NULL), the
 * partitions as programmed (parts may be NULL: left as stored), the
 * events it found, and a "sweep" event summing it up; then prunes the
 * history beyond the retention. held (or NULL) is what an earlier save
 * stored, unchanged since: the fabric's rows are then written only where
 * they differ from it, if that save's record is still the newest (else
 * whole).
 */
int db_save_sweep(struct db *db, struct db_sweep *sw, const struct fabric *f,
		  const struct routing_tables *t, const struct db_partitions *parts,
		  const struct db_lid *new_lids, size_t n_new, const struct db_new_event *events,
		  size_t n_events, const struct db_stored *held);
/*
 * The first part of the next db_save_sweep, ahead of it (a sweep stores
 * its forwarding tables while the switches are programmed): in a
 * transaction left open, the tables of the switches held's fabric has,
 * where they differ from held's, and the VL layers. 1 when done: the
 * db_save_sweep that follows, given the same f, t and held, writes the
 * rest and commits, and until then the handle belongs to that sweep
 * (every other write is refused: "busy"); 0 when the tables cannot be
 * stored apart (no held tables, another LID range, or another sweep
 * stored since): nothing done, db_save_sweep writes them all; -1 on
 * failure, rolled back.
 */
int db_sweep_tables(struct db *db, const struct fabric *f, const struct routing_tables *t,
		    const struct db_stored *held);
/* Rolls back what db_sweep_tables wrote, if it is still open (a sweep that ends unstored). */
void db_sweep_abandon(struct db *db);
/* Every stored M_Key; *out is malloc'ed. */
int db_load_mkeys(struct db *db, struct db_mkey **out, size_t *n);
/* Stores M_Keys in their own transaction (before any port is given one). */
int db_save_mkeys(struct db *db, const struct db_mkey *keys, size_t n);
/* The stored ServiceRecords that have not expired by now; *out is malloc'ed. */
int db_load_services(struct db *db, struct db_service **out, size_t *n);
/*
 * Replaces the stored ServiceRecords with s[0..n), in one transaction,
 * without waiting: -1 at once if another process holds the database.
 */
int db_save_services(struct db *db, const struct db_service *s, size_t n);
/* The stored partitions and memberships, pkey order; free *p and *m. */
int db_load_partitions(struct db *db, struct db_partition **p, size_t *np, struct db_pkey_member **m,
		       size_t *nm);

/*
 * Adds events to the log on their own (for what happens between sweeps),
 * without waiting: -1 at once if another process holds the database.
 */
int db_add_events_now(struct db *db, const struct db_new_event *events, size_t n);
/* Rebuilds the last stored fabric (nodes, ports with LIDs and states, links). */
int db_load_fabric(struct db *db, struct fabric *f);
/* Loads the stored forwarding tables, indexed like f's nodes. */
int db_load_tables(struct db *db, const struct fabric *f, struct routing_tables *t);
/* The newest sweep; returns 1 if found, 0 if none, -1 on error. */
int db_last_sweep(struct db *db, struct db_sweep *sw);

/* One port's counters as fabricd keeps them (sm/perf/). */
struct db_port_counters {
	uint64_t node_guid;
	uint8_t port;
	uint16_t lid;
	double time;		/* of the last reading, Unix time */
	double seconds;		/* the interval `last` covers */
	bool saturated;		/* a counter read at its maximum: the totals may be short */
	struct pc_values raw;	/* the last reading, as the port's agent holds it */
	struct pc_values last;	/* the last interval's deltas */
	struct pc_values total;	/* since fabricd first read the port */
};
/* What a port's counters moved over `seconds` up to a perf sweep. */
struct db_perf_sample {
	uint64_t node_guid;
	uint8_t port;
	double seconds;
	struct pc_values delta;
};

/* A port judged unhealthy (sm/perf/health.c), and what was done. */
struct db_port_health {
	uint64_t node_guid;
	uint8_t port;
	char state[16];		/* "unhealthy" (reported), "isolated", "disabled", "kept" (could not be isolated) */
	double since;
	char why[192];
};

/* Every port's stored counters; *out is malloc'ed. */
int db_load_port_counters(struct db *db, struct db_port_counters **out, size_t *n);
/*
 * Stores a perf sweep in one transaction: the ports' counters, the
 * samples, the unhealthy ports (replacing the last sweep's), the roll-up of samples older than the retention's perf_hours,
 * and the trimming. Does not wait: -1 at once if another process holds the
 * database.
 */
int db_save_perf(struct db *db, double now, const struct db_port_counters *ports, size_t n,
		 const struct db_perf_sample *samples, size_t ns, const struct db_port_health *health, size_t nh);
/* The ports judged unhealthy at the last perf sweep; *out is malloc'ed. */
int db_load_port_health(struct db *db, struct db_port_health **out, size_t *n);
/*
 * Calls fn with each port's summed deltas since `since` (Unix time), from
 * the samples and the hourly roll-ups (an hour counts whole if it ends
 * after since); -1 on error.
 */
int db_perf_sums(struct db *db, double since,
		 void (*fn)(void *arg, uint64_t node_guid, uint8_t port, double seconds, const struct pc_values *sum),
		 void *arg);

struct db_event {
	int64_t id;
	double time;
	const char *kind, *detail;	/* valid during the callback only */
};

/* Calls fn for the newest `limit` sweeps, oldest first; -1 on error. */
int db_each_sweep(struct db *db, unsigned limit, void (*fn)(void *arg, const struct db_sweep *sw),
		  void *arg);
/* Calls fn for each event at or after `since` (Unix time), oldest first. */
int db_each_event(struct db *db, double since, void (*fn)(void *arg, const struct db_event *ev),
		  void *arg);

#endif
