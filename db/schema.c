/*
 * DOC: schema and migrations
 *
 * The schema version lives in PRAGMA user_version. migrations[i] takes a
 * database from version i to i + 1; opening runs the missing ones inside a
 * transaction, so a database is always at one whole version.
 */
#include "db/schema.h"

#include <stdio.h>

static const char *migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE lids ("
	"  guid INTEGER PRIMARY KEY,"	/* port GUID, as a signed 64-bit integer */
	"  lid INTEGER NOT NULL UNIQUE,"
	"  first_seen REAL NOT NULL,"
	"  last_seen REAL NOT NULL);"
	"CREATE TABLE sweeps ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  started REAL NOT NULL,"
	"  finished REAL NOT NULL,"
	"  mads INTEGER NOT NULL,"
	"  result TEXT NOT NULL,"
	"  nodes INTEGER NOT NULL,"
	"  switches INTEGER NOT NULL,"
	"  links INTEGER NOT NULL);"
	"CREATE TABLE nodes ("
	"  guid INTEGER PRIMARY KEY,"
	"  type INTEGER NOT NULL,"
	"  description TEXT NOT NULL,"
	"  nports INTEGER NOT NULL,"
	"  sys_guid INTEGER NOT NULL,"
	"  vendor_id INTEGER NOT NULL,"
	"  device_id INTEGER NOT NULL,"
	"  hops INTEGER NOT NULL,"
	"  path TEXT NOT NULL);"
	"CREATE TABLE ports ("
	"  node_guid INTEGER NOT NULL REFERENCES nodes(guid) ON DELETE CASCADE,"
	"  port INTEGER NOT NULL,"
	"  guid INTEGER NOT NULL,"
	"  lid INTEGER NOT NULL,"
	"  lmc INTEGER NOT NULL,"
	"  state INTEGER NOT NULL,"
	"  phys_state INTEGER NOT NULL,"
	"  width INTEGER NOT NULL,"
	"  speed INTEGER NOT NULL,"
	"  speed_ext INTEGER NOT NULL,"
	"  PRIMARY KEY (node_guid, port)) WITHOUT ROWID;"
	"CREATE TABLE links ("
	"  node_a INTEGER NOT NULL,"
	"  port_a INTEGER NOT NULL,"
	"  node_b INTEGER NOT NULL,"
	"  port_b INTEGER NOT NULL,"
	"  PRIMARY KEY (node_a, port_a)) WITHOUT ROWID;"
	"CREATE TABLE lfts ("
	"  switch_guid INTEGER PRIMARY KEY REFERENCES nodes(guid) ON DELETE CASCADE,"
	"  max_lid INTEGER NOT NULL,"
	"  ports BLOB NOT NULL);"	/* byte i: output port for LID i */
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  time REAL NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  detail TEXT NOT NULL);"
	"CREATE INDEX events_time ON events(time);",
	/* 1 -> 2: VL layers, the SL-to-VL map and the VL arbitration programmed */
	"CREATE TABLE routing ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  layers INTEGER NOT NULL,"
	"  sl BLOB NOT NULL,"		/* byte i: SL of traffic to LID i */
	"  vl_by_sl BLOB NOT NULL);"	/* byte s: VL of SL s, on every port */
	"ALTER TABLE sweeps ADD COLUMN vlarb TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE sweeps ADD COLUMN routing TEXT NOT NULL DEFAULT '';",
	/* 2 -> 3: partitions as programmed, and the M_Key of each port */
	"CREATE TABLE partitions ("
	"  pkey INTEGER PRIMARY KEY,"	/* 0x0001..0x7fff */
	"  name TEXT NOT NULL);"
	"CREATE TABLE pkey_members ("
	"  pkey INTEGER NOT NULL,"
	"  guid INTEGER NOT NULL,"	/* node GUID */
	"  port INTEGER NOT NULL,"
	"  full INTEGER NOT NULL,"
	"  PRIMARY KEY (pkey, guid, port));"
	"CREATE TABLE mkeys ("
	"  guid INTEGER PRIMARY KEY,"	/* port GUID (a switch's node GUID) */
	"  mkey INTEGER NOT NULL);",
	/* 3 -> 4: what ports can do; port counters (sm/perf/): running totals per port, samples, hourly roll-ups */
	"ALTER TABLE ports ADD COLUMN width_supported INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE ports ADD COLUMN speed_supported INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE ports ADD COLUMN speed_ext_supported INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE ports ADD COLUMN ext_speeds INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE port_counters ("
	"  node_guid INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  lid INTEGER NOT NULL,"
	"  time REAL NOT NULL,"		/* of the last reading */
	"  seconds REAL NOT NULL,"	/* the interval `last` covers */
	"  saturated INTEGER NOT NULL,"
	"  raw BLOB NOT NULL,"		/* the last reading, as the PMA holds it */
	"  last BLOB NOT NULL,"		/* the last interval's deltas */
	"  symbol_errors INTEGER NOT NULL,"
	"  link_error_recovery INTEGER NOT NULL,"
	"  link_downed INTEGER NOT NULL,"
	"  rcv_errors INTEGER NOT NULL,"
	"  rcv_remote_phys_errors INTEGER NOT NULL,"
	"  rcv_switch_relay_errors INTEGER NOT NULL,"
	"  xmit_discards INTEGER NOT NULL,"
	"  xmit_constraint_errors INTEGER NOT NULL,"
	"  rcv_constraint_errors INTEGER NOT NULL,"
	"  local_link_integrity_errors INTEGER NOT NULL,"
	"  excessive_buffer_overrun INTEGER NOT NULL,"
	"  vl15_dropped INTEGER NOT NULL,"
	"  xmit_data INTEGER NOT NULL,"
	"  rcv_data INTEGER NOT NULL,"
	"  xmit_pkts INTEGER NOT NULL,"
	"  rcv_pkts INTEGER NOT NULL,"
	"  xmit_wait INTEGER NOT NULL,"
	"  PRIMARY KEY (node_guid, port)) WITHOUT ROWID;"
	"CREATE TABLE perf_samples ("
	"  time REAL NOT NULL,"
	"  node_guid INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  seconds REAL NOT NULL,"
	"  symbol_errors INTEGER NOT NULL,"
	"  link_error_recovery INTEGER NOT NULL,"
	"  link_downed INTEGER NOT NULL,"
	"  rcv_errors INTEGER NOT NULL,"
	"  rcv_remote_phys_errors INTEGER NOT NULL,"
	"  rcv_switch_relay_errors INTEGER NOT NULL,"
	"  xmit_discards INTEGER NOT NULL,"
	"  xmit_constraint_errors INTEGER NOT NULL,"
	"  rcv_constraint_errors INTEGER NOT NULL,"
	"  local_link_integrity_errors INTEGER NOT NULL,"
	"  excessive_buffer_overrun INTEGER NOT NULL,"
	"  vl15_dropped INTEGER NOT NULL,"
	"  xmit_data INTEGER NOT NULL,"
	"  rcv_data INTEGER NOT NULL,"
	"  xmit_pkts INTEGER NOT NULL,"
	"  rcv_pkts INTEGER NOT NULL,"
	"  xmit_wait INTEGER NOT NULL);"
	"CREATE INDEX perf_samples_time ON perf_samples(time);"
	"CREATE TABLE perf_hourly ("
	"  hour INTEGER NOT NULL,"	/* Unix time / 3600 */
	"  node_guid INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  seconds REAL NOT NULL,"
	"  symbol_errors INTEGER NOT NULL,"
	"  link_error_recovery INTEGER NOT NULL,"
	"  link_downed INTEGER NOT NULL,"
	"  rcv_errors INTEGER NOT NULL,"
	"  rcv_remote_phys_errors INTEGER NOT NULL,"
	"  rcv_switch_relay_errors INTEGER NOT NULL,"
	"  xmit_discards INTEGER NOT NULL,"
	"  xmit_constraint_errors INTEGER NOT NULL,"
	"  rcv_constraint_errors INTEGER NOT NULL,"
	"  local_link_integrity_errors INTEGER NOT NULL,"
	"  excessive_buffer_overrun INTEGER NOT NULL,"
	"  vl15_dropped INTEGER NOT NULL,"
	"  xmit_data INTEGER NOT NULL,"
	"  rcv_data INTEGER NOT NULL,"
	"  xmit_pkts INTEGER NOT NULL,"
	"  rcv_pkts INTEGER NOT NULL,"
	"  xmit_wait INTEGER NOT NULL,"
	"  PRIMARY KEY (hour, node_guid, port)) WITHOUT ROWID;"
	"CREATE TABLE port_health ("	/* what sm/perf/health.c judged at the last perf sweep */
	"  node_guid INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  state TEXT NOT NULL,"	/* unhealthy, isolated, disabled, kept */
	"  since REAL NOT NULL,"
	"  why TEXT NOT NULL,"
	"  PRIMARY KEY (node_guid, port)) WITHOUT ROWID;",
	/* 4 -> 5: the ServiceRecords hosts registered with the SA, kept across restarts */
	"CREATE TABLE services ("
	"  record BLOB NOT NULL,"	/* the ServiceRecord as the SA holds it (its ServiceKey too) */
	"  owner INTEGER NOT NULL,"	/* the port GUID that registered it */
	"  expires REAL NOT NULL);",	/* Unix time */
};

int schema_latest(void)
{
	return (int)(sizeof(migrations) / sizeof(migrations[0]));
}

int schema_migrate(sqlite3 *h, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int version = -1;
	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version < 0) {
		snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(h));
		return -1;
	}
	if (version > schema_latest()) {
		snprintf(err, errlen, "schema version %d is newer than this fabricd knows (%d)", version,
			 schema_latest());
		return -1;
	}
	if (version == schema_latest())
		return 0;
	char *msg = NULL;
	if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	for (int v = version; v < schema_latest(); v++)
		if (sqlite3_exec(h, migrations[v], NULL, NULL, &msg) != SQLITE_OK)
			goto rollback;
	char pragma[64];
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", schema_latest());
	if (sqlite3_exec(h, pragma, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(h, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
fail:
	snprintf(err, errlen, "schema migration from version %d failed: %s", version,
		 msg ? msg : sqlite3_errmsg(h));
	sqlite3_free(msg);
	return -1;
}
