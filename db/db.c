/*
 * DOC: state database
 *
 * SQLite in WAL mode with a busy timeout, so fabricctl can read while the
 * daemon writes. Every write of a sweep is one IMMEDIATE transaction;
 * readers see either the previous sweep or the new one, never a mix.
 * GUIDs are stored as signed 64-bit integers (SQLite's only integer type)
 * and converted back on read.
 *
 * The history is bounded: each stored sweep prunes sweeps and events
 * beyond the retention (counts and age) in its own transaction, so the
 * file stops growing however long fabricd runs or however many traps
 * come. Writes first check that the path still names the file opened.
 * Errors say what is wrong with the file: corrupt, locked, read-only,
 * replaced, or the disk full (SQLite's own message). A commit does not
 * copy the write-ahead log back into the file (SQLite's automatic
 * checkpoint would, every thousand pages, inside whichever commit crosses
 * the mark: 10 ms of a repair's store at 3,456 hosts); the writer does,
 * with db_checkpoint, when it has nothing better to do. A sweep may store
 * its tables ahead of the rest (db_sweep_tables), in the transaction its
 * db_save_sweep then finishes: one transaction still, and meanwhile every
 * other write is refused rather than joined to it.
 */
#include "db/db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sqlite3.h>

#include "db/internal.h"
#include "db/schema.h"

static double now_unix(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}



/* quick_check reads every page: a corrupt file is refused before use. */
static int check_integrity(struct db *db, const char *path, char err[DB_ERR_LEN])
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db->h, "PRAGMA quick_check", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0) {
		sqlite3_finalize(st);
		return 0;
	}
	int code = sqlite3_errcode(db->h);
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		snprintf(err, DB_ERR_LEN, "%s: database is locked by another process", path);
	else if (rc == SQLITE_ROW)
		snprintf(err, DB_ERR_LEN, "%s: database is corrupt (%s)", path,
			 (const char *)sqlite3_column_text(st, 0));
	else if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		snprintf(err, DB_ERR_LEN, "%s: database is corrupt or not a database (%s)", path,
			 sqlite3_errmsg(db->h));
	else	/* not the file's fault: say what SQLite could not do, so nobody deletes a good file */
		snprintf(err, DB_ERR_LEN, "%s: cannot read the database: %s", path, sqlite3_errmsg(db->h));
	sqlite3_finalize(st);
	return -1;
}

/* True if the file, or (not there yet) its directory, is on a read-only filesystem. */
static bool on_read_only_fs(const char *path)
{
	struct statvfs vfs;
	if (statvfs(path, &vfs) == 0)
		return vfs.f_flag & ST_RDONLY;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';	/* "/x.db" -> "/" */
	return statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}


struct db *db_open(const char *path, enum db_mode mode, char err[DB_ERR_LEN])
{
	struct db *db = calloc(1, sizeof(*db));
	if (!db) {
		snprintf(err, DB_ERR_LEN, "out of memory");
		return NULL;
	}
	struct stat stbuf;
	if (mode == DB_READ_ONLY && stat(path, &stbuf) < 0) {
		snprintf(err, DB_ERR_LEN, "%s: %s (has fabricd run yet?)", path, strerror(errno));
		free(db);
		return NULL;
	}
	if (mode == DB_READ_WRITE && on_read_only_fs(path)) {
		snprintf(err, DB_ERR_LEN, "%s: the filesystem is read-only (fabricd writes its state there: give it a "
			 "writable path with -d or database:)", path);
		free(db);
		return NULL;
	}
	int flags = mode == DB_READ_ONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		snprintf(err, DB_ERR_LEN, "%s: cannot open database: %s", path,
			 db->h ? sqlite3_errmsg(db->h) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
	if (check_integrity(db, path, err) < 0)
		goto fail;
	snprintf(db->path, sizeof(db->path), "%s", path);
	struct stat opened;
	if (stat(path, &opened) == 0) {
		db->dev = opened.st_dev;
		db->ino = opened.st_ino;
	}
	if (mode == DB_READ_WRITE) {
		char *msg = NULL;
		/* no checkpoint inside a commit: the writer calls db_checkpoint when it is idle */
		if (sqlite3_exec(db->h, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
				 "PRAGMA foreign_keys=ON; PRAGMA wal_autocheckpoint=0;", NULL, NULL, &msg) != SQLITE_OK) {
			snprintf(err, DB_ERR_LEN, "%s: %s", path, msg ? msg : sqlite3_errmsg(db->h));
			sqlite3_free(msg);
			goto fail;
		}
		char why[DB_ERR_LEN - 64];
		if (schema_migrate(db->h, why, sizeof(why)) < 0) {
			snprintf(err, DB_ERR_LEN, "%s: %s", path, why);
			goto fail;
		}
	} else {
		sqlite3_stmt *st;
		int version = -1;
		if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			version = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (version != schema_latest()) {
			snprintf(err, DB_ERR_LEN, "%s: schema version %d, this fabricctl reads %d", path,
				 version, schema_latest());
			goto fail;
		}
	}
	return db;
fail:
	sqlite3_close(db->h);
	free(db);
	return NULL;
}

int db_checkpoint(struct db *db, int *copied)
{
	int frames = 0, done = 0;
	if (sqlite3_wal_checkpoint_v2(db->h, NULL, SQLITE_CHECKPOINT_PASSIVE, &frames, &done) != SQLITE_OK)
		return db_set_err(db, "copying the write-ahead log into the database");
	*copied = done;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db);
}

int db_load_lids(struct db *db, struct db_lid **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 256;
	*n = 0;
	*out = malloc(cap * sizeof(**out));
	if (!*out)
		return -1;
	if (sqlite3_prepare_v2(db->h, "SELECT guid, lid FROM lids", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading LIDs");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			struct db_lid *g = realloc(*out, cap * 2 * sizeof(**out));
			if (!g)
				break;
			*out = g;
			cap *= 2;
		}
		(*out)[*n].guid = (uint64_t)sqlite3_column_int64(st, 0);
		(*out)[(*n)++].lid = (uint16_t)sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_set_err(db, "reading LIDs");
	return 0;
}



/* The VL layer of each LID into t (allocated); a database without them has one layer. */
static int load_layers(struct db *db, struct routing_tables *t)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT layers, sl, vl_by_sl FROM routing", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading VL layers");
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int len = sqlite3_column_bytes(st, 1);
		t->layers = (unsigned)sqlite3_column_int(st, 0);
		memcpy(t->sl, sqlite3_column_blob(st, 1), (size_t)(len < t->max_lid + 1 ? len : t->max_lid + 1));
		if (sqlite3_column_bytes(st, 2) == (int)sizeof(t->vl_by_sl))
			memcpy(t->vl_by_sl, sqlite3_column_blob(st, 2), sizeof(t->vl_by_sl));
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading VL layers");
}

static int save_lids(struct db *db, const struct db_lid *lids, size_t n, double now)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO lids VALUES (?,?,?,?) ON CONFLICT(guid) DO UPDATE "
			       "SET lid = excluded.lid, last_seen = excluded.last_seen", -1, &st,
			       NULL) != SQLITE_OK)
		return db_set_err(db, "storing LIDs");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)lids[i].guid);
		sqlite3_bind_int(st, 2, lids[i].lid);
		sqlite3_bind_double(st, 3, now);
		sqlite3_bind_double(st, 4, now);
		rc = db_step_done(db, st, "storing LIDs");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Marks every port GUID of f as seen now. */
static int touch_lids(struct db *db, const struct fabric *f, double now)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "UPDATE lids SET last_seen = ? WHERE guid = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_set_err(db, "updating LIDs");
	int rc = 0;
	for (size_t i = 0; i < f->nnodes && rc == 0; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports && rc == 0; p++) {
			if (!n->ports[p].exists || !n->ports[p].lid || (n->type == NODE_SWITCH && p))
				continue;
			sqlite3_bind_double(st, 1, now);
			sqlite3_bind_int64(st, 2, (int64_t)n->ports[p].guid);
			rc = db_step_done(db, st, "updating LIDs");
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_event(struct db *db, double when, const char *kind, const char *detail)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO events (time, kind, detail) VALUES (?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_set_err(db, "logging an event");
	sqlite3_bind_double(st, 1, when);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, detail, -1, SQLITE_STATIC);
	int rc = db_step_done(db, st, "logging an event");
	sqlite3_finalize(st);
	return rc;
}

static int insert_sweep(struct db *db, struct db_sweep *sw)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO sweeps (kind, started, finished, mads, result, nodes, "
			       "switches, links, vlarb, routing) VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "storing the sweep");
	sqlite3_bind_text(st, 1, sw->kind, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, sw->started);
	sqlite3_bind_double(st, 3, sw->finished);
	sqlite3_bind_int64(st, 4, (int64_t)sw->mads);
	sqlite3_bind_text(st, 5, sw->result, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, (int)sw->nodes);
	sqlite3_bind_int(st, 7, (int)sw->switches);
	sqlite3_bind_int(st, 8, (int)sw->links);
	sqlite3_bind_text(st, 9, sw->vlarb, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, sw->routing, -1, SQLITE_STATIC);
	int rc = db_step_done(db, st, "storing the sweep");
	sqlite3_finalize(st);
	sw->id = sqlite3_last_insert_rowid(db->h);
	return rc;
}

static int insert_events(struct db *db, double when, const struct db_new_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (insert_event(db, when, ev[i].kind, ev[i].detail) < 0)
			return -1;
	return 0;
}

int db_add_events_now(struct db *db, const struct db_new_event *events, size_t n)
{
	sqlite3_busy_timeout(db->h, 0);
	int rc = db_begin_write(db);
	if (rc == 0 && (insert_events(db, now_unix(), events, n) < 0 || db_exec(db, "COMMIT") < 0)) {
		db_rollback(db);
		rc = -1;
	}
	sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
	return rc;
}

/*
 * Drops the sweeps and events beyond db->keep (inside the caller's
 * transaction). The newest of each always stays, whatever its time says
 * (a clock set wrong must not empty the history).
 */
static int prune(struct db *db, double now)
{
	const struct db_retention *k = &db->keep;
	char sql[640];
	snprintf(sql, sizeof(sql),
		 "DELETE FROM sweeps WHERE %u > 0 AND id <= (SELECT max(id) FROM sweeps) - %u;"
		 "DELETE FROM events WHERE %u > 0 AND id <= (SELECT max(id) FROM events) - %u;"
		 "DELETE FROM sweeps WHERE %u > 0 AND started < %.0f AND id < (SELECT max(id) FROM sweeps);"
		 "DELETE FROM events WHERE %u > 0 AND time < %.0f AND id < (SELECT max(id) FROM events);",
		 k->sweeps, k->sweeps, k->events, k->events, k->days, now - k->days * 86400.0, k->days,
		 now - k->days * 86400.0);
	return db_exec(db, sql);
}

void db_set_retention(struct db *db, const struct db_retention *keep)
{
	db->keep = *keep;
}

/* The one integer sql answers, or -1. */
static int64_t one_integer(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_size(struct db *db, uint64_t *bytes, unsigned *sweeps, unsigned *events)
{
	int64_t pages = one_integer(db, "PRAGMA page_count"), size = one_integer(db, "PRAGMA page_size");
	int64_t ns = one_integer(db, "SELECT count(*) FROM sweeps"), ne = one_integer(db, "SELECT count(*) FROM events");
	if (pages < 0 || size < 0 || ns < 0 || ne < 0)
		return db_set_err(db, "reading the database size");
	*bytes = (uint64_t)(pages * size);
	*sweeps = (unsigned)ns;
	*events = (unsigned)ne;
	return 0;
}

/* Whether what held says is what the database holds: no sweep was stored since (by another writer, say). */
static bool held_is_newest(struct db *db, const struct db_stored *held)
{
	return held->sweep > 0 && one_integer(db, "SELECT max(id) FROM sweeps") == held->sweep;
}

int db_sweep_tables(struct db *db, const struct fabric *f, const struct routing_tables *t,
		    const struct db_stored *held)
{
	if (db->tables_in || !db_tables_apart(t, held))
		return 0;
	if (db_begin_write(db) < 0)
		return -1;
	if (!held_is_newest(db, held)) {
		db_rollback(db);
		return 0;
	}
	if (db_store_held_tables(db, f, t, held) < 0) {
		db_rollback(db);
		return -1;
	}
	db->tables_in = true;
	return 1;
}

void db_sweep_abandon(struct db *db)
{
	if (!db->tables_in)
		return;
	db_rollback(db);
	db->tables_in = false;
}

int db_save_sweep(struct db *db, struct db_sweep *sw, const struct fabric *f,
		  const struct routing_tables *t, const struct db_partitions *parts,
		  const struct db_lid *new_lids, size_t n_new, const struct db_new_event *events,
		  size_t n_events, const struct db_stored *held)
{
	double now = now_unix();
	bool tables_in = db->tables_in;	/* in this transaction already, held checked */
	db->tables_in = false;
	if (!tables_in && db_begin_write(db) < 0)
		return -1;
	/* the database holds what held says only if no sweep was stored since (by another writer, say) */
	if (!tables_in && held && !held_is_newest(db, held))
		held = NULL;
	char detail[128];
	snprintf(detail, sizeof(detail), "%s sweep: %s, %u nodes, %u links, %llu MADs", sw->kind,
		 sw->result, sw->nodes, sw->links, (unsigned long long)sw->mads);
	/* a repair read only what changed: last_seen moves with the full sweeps (one UPDATE per port) */
	bool full = strcmp(sw->kind, "repair") != 0;
	if (insert_sweep(db, sw) < 0 || save_lids(db, new_lids, n_new, now) < 0 ||
	    (full && touch_lids(db, f, now) < 0) || db_store_fabric(db, f, t, held, tables_in) < 0 ||
	    (parts && db_save_partitions(db, parts, held ? held->parts : NULL) < 0) ||
	    insert_events(db, now, events, n_events) < 0 || insert_event(db, now, "sweep", detail) < 0 ||
	    prune(db, now) < 0 || db_exec(db, "COMMIT") < 0) {
		db_rollback(db);
		return -1;
	}
	return 0;
}

static void read_sweep(sqlite3_stmt *st, struct db_sweep *sw)
{
	memset(sw, 0, sizeof(*sw));
	sw->id = sqlite3_column_int64(st, 0);
	snprintf(sw->kind, sizeof(sw->kind), "%s", (const char *)sqlite3_column_text(st, 1));
	sw->started = sqlite3_column_double(st, 2);
	sw->finished = sqlite3_column_double(st, 3);
	sw->mads = (uint64_t)sqlite3_column_int64(st, 4);
	snprintf(sw->result, sizeof(sw->result), "%s", (const char *)sqlite3_column_text(st, 5));
	sw->nodes = (unsigned)sqlite3_column_int(st, 6);
	sw->switches = (unsigned)sqlite3_column_int(st, 7);
	sw->links = (unsigned)sqlite3_column_int(st, 8);
	snprintf(sw->vlarb, sizeof(sw->vlarb), "%s", (const char *)sqlite3_column_text(st, 9));
	snprintf(sw->routing, sizeof(sw->routing), "%s", (const char *)sqlite3_column_text(st, 10));
}

int db_each_sweep(struct db *db, unsigned limit, void (*fn)(void *arg, const struct db_sweep *sw),
		  void *arg)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT * FROM (SELECT id, kind, started, finished, mads, result, "
			       "nodes, switches, links, vlarb, routing FROM sweeps ORDER BY id DESC LIMIT ?) ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		return db_set_err(db, "reading sweeps");
	sqlite3_bind_int64(st, 1, limit);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_sweep sw;
		read_sweep(st, &sw);
		fn(arg, &sw);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading sweeps");
}

struct last_sweep {
	struct db_sweep *sw;
	bool found;
};

static void keep_sweep(void *arg, const struct db_sweep *sw)
{
	struct last_sweep *l = arg;
	*l->sw = *sw;
	l->found = true;
}

int db_last_sweep(struct db *db, struct db_sweep *sw)
{
	struct last_sweep l = { .sw = sw };
	if (db_each_sweep(db, 1, keep_sweep, &l) < 0)
		return -1;
	return l.found;
}

int db_each_event(struct db *db, double since, void (*fn)(void *arg, const struct db_event *ev),
		  void *arg)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT id, time, kind, detail FROM events WHERE time >= ? ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading events");
	sqlite3_bind_double(st, 1, since);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_event ev = {
			.id = sqlite3_column_int64(st, 0),
			.time = sqlite3_column_double(st, 1),
			.kind = (const char *)sqlite3_column_text(st, 2),
			.detail = (const char *)sqlite3_column_text(st, 3),
		};
		fn(arg, &ev);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading events");
}

static void parse_path(struct node *n, const char *text)
{
	n->hops = 0;
	n->path[0] = 0;
	const char *s = strchr(text, ',');
	while (s && n->hops < FABRIC_MAX_HOPS) {
		n->path[++n->hops] = (uint8_t)atoi(s + 1);
		s = strchr(s + 1, ',');
	}
}

static int load_nodes(struct db *db, struct fabric *f)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT guid, type, description, nports, sys_guid, vendor_id, "
			       "device_id, path FROM nodes ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading nodes");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct node *n = fabric_add_node(f, (enum node_type)sqlite3_column_int(st, 1),
						 (uint64_t)sqlite3_column_int64(st, 0),
						 (uint8_t)sqlite3_column_int(st, 3),
						 (const char *)sqlite3_column_text(st, 2));
		if (!n)
			break;
		n->sys_guid = (uint64_t)sqlite3_column_int64(st, 4);
		n->vendor_id = (uint32_t)sqlite3_column_int64(st, 5);
		n->device_id = (uint16_t)sqlite3_column_int(st, 6);
		parse_path(n, (const char *)sqlite3_column_text(st, 7));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading nodes");
}

static int load_ports(struct db *db, struct fabric *f)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT node_guid, port, guid, lid, lmc, state, phys_state, width, "
			       "speed, speed_ext, width_supported, speed_supported, speed_ext_supported, ext_speeds "
			       "FROM ports", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading ports");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct node *n = fabric_find_guid(f, (uint64_t)sqlite3_column_int64(st, 0));
		int p = sqlite3_column_int(st, 1);
		if (!n || p > n->nports)
			continue;
		struct port *pt = &n->ports[p];
		pt->guid = (uint64_t)sqlite3_column_int64(st, 2);
		pt->lid = (uint16_t)sqlite3_column_int(st, 3);
		pt->lmc = (uint8_t)sqlite3_column_int(st, 4);
		pt->state = (uint8_t)sqlite3_column_int(st, 5);
		pt->phys_state = (uint8_t)sqlite3_column_int(st, 6);
		pt->width_active = (uint8_t)sqlite3_column_int(st, 7);
		pt->speed_active = (uint8_t)sqlite3_column_int(st, 8);
		pt->speed_ext_active = (uint8_t)sqlite3_column_int(st, 9);
		pt->width_supported = (uint8_t)sqlite3_column_int(st, 10);
		pt->speed_supported = (uint8_t)sqlite3_column_int(st, 11);
		pt->speed_ext_supported = (uint8_t)sqlite3_column_int(st, 12);
		pt->ext_speeds = sqlite3_column_int(st, 13) != 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading ports");
}

static int load_links(struct db *db, struct fabric *f)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT node_a, port_a, node_b, port_b FROM links", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_set_err(db, "reading links");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct node *a = fabric_find_guid(f, (uint64_t)sqlite3_column_int64(st, 0));
		struct node *b = fabric_find_guid(f, (uint64_t)sqlite3_column_int64(st, 2));
		if (a && b)
			fabric_link(a, (uint8_t)sqlite3_column_int(st, 1), b,
				    (uint8_t)sqlite3_column_int(st, 3));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading links");
}

int db_load_fabric(struct db *db, struct fabric *f)
{
	fabric_init(f);
	/* one read transaction: all three tables from the same sweep */
	if (db_exec(db, "BEGIN") < 0)
		return -1;
	int rc = load_nodes(db, f) < 0 || load_ports(db, f) < 0 || load_links(db, f) < 0 ? -1 : 0;
	db_exec(db, "COMMIT");
	if (rc < 0)
		fabric_free(f);
	return rc;
}

int db_load_tables(struct db *db, const struct fabric *f, struct routing_tables *t)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT switch_guid, max_lid, ports FROM lfts", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_set_err(db, "reading forwarding tables");
	int rc = sqlite3_step(st);
	uint16_t max_lid = rc == SQLITE_ROW ? (uint16_t)sqlite3_column_int(st, 1) : 0;
	if (routing_tables_alloc(t, f, max_lid) < 0) {
		sqlite3_finalize(st);
		snprintf(db->err, sizeof(db->err), "out of memory");
		return -1;
	}
	for (; rc == SQLITE_ROW; rc = sqlite3_step(st)) {
		const struct node *n = fabric_find_guid(f, (uint64_t)sqlite3_column_int64(st, 0));
		int len = sqlite3_column_bytes(st, 2);
		if (!n || !t->lft[n->index])
			continue;
		memcpy(t->lft[n->index], sqlite3_column_blob(st, 2),
		       (size_t)(len < max_lid + 1 ? len : max_lid + 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || load_layers(db, t) < 0) {
		if (rc != SQLITE_DONE)
			db_set_err(db, "reading forwarding tables");
		routing_tables_free(t);
		return -1;
	}
	return 0;
}

const char *db_library_version(void)
{
	return sqlite3_libversion();
}
