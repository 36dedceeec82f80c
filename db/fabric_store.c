/*
 * DOC: the fabric as stored
 *
 * The nodes, ports, links and forwarding tables of the last sweep, and
 * each LID's VL layer, written inside the caller's transaction. Without
 * word of what the database holds they are written whole: every row
 * deleted and inserted again. Given the fabric and tables of the sweep
 * stored last (db_stored), only the rows that differ are written: a
 * repair that lost one link and changed 300 switches' tables rewrites
 * those, not the 40,000 rows of a 3,456-host tree, and of a table only
 * the blocks of 64 LIDs that changed, in place. Rows are compared as
 * they would be written (GUIDs, not positions in the fabric), so the
 * result is the same rows a whole write gives. db.c trusts the database
 * to hold that sweep only while its newest sweep record is the one stored
 * with it.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "db/internal.h"

/* The statements of one save, prepared once. */
struct writer {
	struct db *db;
	sqlite3_stmt *ins_node, *upd_node, *del_node, *put_port, *del_port, *put_link, *del_link, *del_links_of,
		*put_lft, *del_lft;
	sqlite3_blob *lft;	/* a stored table, rewritten in place where its blocks changed; NULL until needed */
};

static const struct {
	size_t offset;
	const char *sql;
} statements[] = {
	{ offsetof(struct writer, ins_node), "INSERT INTO nodes VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)" },
	{ offsetof(struct writer, upd_node), "UPDATE nodes SET type = ?2, description = ?3, nports = ?4, sys_guid = ?5, "
					     "vendor_id = ?6, device_id = ?7, hops = ?8, path = ?9 WHERE guid = ?1" },
	{ offsetof(struct writer, del_node), "DELETE FROM nodes WHERE guid = ?" },
	{ offsetof(struct writer, put_port), "INSERT OR REPLACE INTO ports VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
	{ offsetof(struct writer, del_port), "DELETE FROM ports WHERE node_guid = ? AND port = ?" },
	{ offsetof(struct writer, put_link), "INSERT OR REPLACE INTO links VALUES (?,?,?,?)" },
	{ offsetof(struct writer, del_link), "DELETE FROM links WHERE node_a = ? AND port_a = ?" },
	{ offsetof(struct writer, del_links_of), "DELETE FROM links WHERE node_a = ?" },
	{ offsetof(struct writer, put_lft), "INSERT OR REPLACE INTO lfts VALUES (?,?,?)" },
	{ offsetof(struct writer, del_lft), "DELETE FROM lfts WHERE switch_guid = ?" },
};

#define NSTATEMENTS (sizeof(statements) / sizeof(statements[0]))

static sqlite3_stmt **slot(struct writer *w, size_t k)
{
	return (sqlite3_stmt **)((char *)w + statements[k].offset);
}

static int writer_open(struct writer *w, struct db *db)
{
	memset(w, 0, sizeof(*w));
	w->db = db;
	for (size_t k = 0; k < NSTATEMENTS; k++)
		if (sqlite3_prepare_v2(db->h, statements[k].sql, -1, slot(w, k), NULL) != SQLITE_OK)
			return db_set_err(db, "storing the fabric");
	return 0;
}

static void writer_close(struct writer *w)
{
	for (size_t k = 0; k < NSTATEMENTS; k++)
		sqlite3_finalize(*slot(w, k));
	sqlite3_blob_close(w->lft);
}

static void path_text(const struct node *n, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "0");
	for (unsigned h = 1; h <= n->hops && off < len; h++)
		off += (size_t)snprintf(buf + off, len - off, ",%u", n->path[h]);
}

/* Inserts n's row (st: ins_node) or rewrites it (upd_node). */
static int put_node(struct writer *w, sqlite3_stmt *st, const struct node *n)
{
	char path[4 * FABRIC_MAX_HOPS + 8];
	path_text(n, path, sizeof(path));
	sqlite3_bind_int64(st, 1, (int64_t)n->guid);
	sqlite3_bind_int(st, 2, n->type);
	sqlite3_bind_text(st, 3, n->desc, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, n->nports);
	sqlite3_bind_int64(st, 5, (int64_t)n->sys_guid);
	sqlite3_bind_int64(st, 6, n->vendor_id);
	sqlite3_bind_int(st, 7, n->device_id);
	sqlite3_bind_int(st, 8, n->hops);
	sqlite3_bind_text(st, 9, path, -1, SQLITE_TRANSIENT);
	return db_step_done(w->db, st, "storing nodes");
}

static int put_port(struct writer *w, const struct node *n, unsigned p)
{
	const struct port *pt = &n->ports[p];
	sqlite3_stmt *st = w->put_port;
	sqlite3_bind_int64(st, 1, (int64_t)n->guid);
	sqlite3_bind_int(st, 2, (int)p);
	sqlite3_bind_int64(st, 3, (int64_t)pt->guid);
	sqlite3_bind_int(st, 4, pt->lid);
	sqlite3_bind_int(st, 5, pt->lmc);
	sqlite3_bind_int(st, 6, pt->state);
	sqlite3_bind_int(st, 7, pt->phys_state);
	sqlite3_bind_int(st, 8, pt->width_active);
	sqlite3_bind_int(st, 9, pt->speed_active);
	sqlite3_bind_int(st, 10, pt->speed_ext_active);
	sqlite3_bind_int(st, 11, pt->width_supported);
	sqlite3_bind_int(st, 12, pt->speed_supported);
	sqlite3_bind_int(st, 13, pt->speed_ext_supported);
	sqlite3_bind_int(st, 14, pt->ext_speeds);
	return db_step_done(w->db, st, "storing ports");
}

static int put_link(struct writer *w, const struct node *n, unsigned p)
{
	const struct port *pt = &n->ports[p];
	sqlite3_stmt *st = w->put_link;
	sqlite3_bind_int64(st, 1, (int64_t)n->guid);
	sqlite3_bind_int(st, 2, (int)p);
	sqlite3_bind_int64(st, 3, (int64_t)pt->remote->guid);
	sqlite3_bind_int(st, 4, pt->remote_port);
	return db_step_done(w->db, st, "storing links");
}

/* Deletes the row of n's port p (st: del_port or del_link). */
static int del_port_row(struct writer *w, sqlite3_stmt *st, const struct node *n, unsigned p)
{
	sqlite3_bind_int64(st, 1, (int64_t)n->guid);
	sqlite3_bind_int(st, 2, (int)p);
	return db_step_done(w->db, st, "removing ports");
}

static int del_by_guid(struct writer *w, sqlite3_stmt *st, uint64_t guid)
{
	sqlite3_bind_int64(st, 1, (int64_t)guid);
	return db_step_done(w->db, st, "removing nodes");
}

static bool same_node_row(const struct node *a, const struct node *b)
{
	return a->type == b->type && strcmp(a->desc, b->desc) == 0 && a->nports == b->nports &&
	       a->sys_guid == b->sys_guid && a->vendor_id == b->vendor_id && a->device_id == b->device_id &&
	       a->hops == b->hops && memcmp(a->path + 1, b->path + 1, a->hops) == 0;
}

static bool same_port_row(const struct port *a, const struct port *b)
{
	return a->guid == b->guid && a->lid == b->lid && a->lmc == b->lmc && a->state == b->state &&
	       a->phys_state == b->phys_state && a->width_active == b->width_active &&
	       a->speed_active == b->speed_active && a->speed_ext_active == b->speed_ext_active &&
	       a->width_supported == b->width_supported && a->speed_supported == b->speed_supported &&
	       a->speed_ext_supported == b->speed_ext_supported && a->ext_speeds == b->ext_speeds;
}

static bool same_link(const struct port *a, const struct port *b)
{
	if (!a->remote || !b->remote)
		return !a->remote && !b->remote;
	return a->remote->guid == b->remote->guid && a->remote_port == b->remote_port;
}

/* The rows of n's port p: written where they differ from was's (NULL: nothing stored). */
static int put_port_rows(struct writer *w, const struct node *n, const struct node *was, unsigned p)
{
	const struct port *pt = p <= n->nports && n->ports[p].exists ? &n->ports[p] : NULL;
	const struct port *old = was && p <= was->nports && was->ports[p].exists ? &was->ports[p] : NULL;
	static const struct port none;
	int rc = 0;
	if (!pt)
		rc = old ? del_port_row(w, w->del_port, n, p) : 0;
	else if (!old || !same_port_row(pt, old))
		rc = put_port(w, n, p);
	if (rc == 0 && !same_link(pt ? pt : &none, old ? old : &none))
		rc = pt && pt->remote ? put_link(w, n, p) : del_port_row(w, w->del_link, n, p);
	return rc;
}

/* n's node, port and link rows, where they differ from was's (NULL: nothing stored). */
static int put_node_rows(struct writer *w, const struct node *n, const struct node *was)
{
	int rc = 0;
	if (!was)
		rc = put_node(w, w->ins_node, n);
	else if (!same_node_row(n, was))
		rc = put_node(w, w->upd_node, n);
	unsigned nports = was && was->nports > n->nports ? was->nports : n->nports;
	for (unsigned p = 0; p <= nports && rc == 0; p++)
		rc = put_port_rows(w, n, was, p);
	return rc;
}

static int put_lft(struct writer *w, const struct node *n, const struct routing_tables *t)
{
	sqlite3_stmt *st = w->put_lft;
	sqlite3_bind_int64(st, 1, (int64_t)n->guid);
	sqlite3_bind_int(st, 2, t->max_lid);
	sqlite3_bind_blob(st, 3, t->lft[n->index], t->max_lid + 1, SQLITE_STATIC);
	return db_step_done(w->db, st, "storing forwarding tables");
}

/* LIDs an LFT block SMP carries: the unit a stored table is rewritten in. */
#define LFT_BLOCK 64

/*
 * n's stored table made now where it differs from old (the same size,
 * what the file holds): the blocks that changed are written into the row
 * in place (incremental BLOB I/O), so a table of 30,000 LIDs with one
 * block changed rewrites one page, not the row's eight. 1 when the row
 * is not as expected (then it is written whole), 0, -1 on error.
 */
static int patch_lft(struct writer *w, const struct node *n, const struct routing_tables *t, const uint8_t *old)
{
	const uint8_t *now = t->lft[n->index];
	int len = t->max_lid + 1, rc;
	rc = w->lft ? sqlite3_blob_reopen(w->lft, (sqlite3_int64)n->guid)
		    : sqlite3_blob_open(w->db->h, "main", "lfts", "ports", (sqlite3_int64)n->guid, 1, &w->lft);
	if (rc != SQLITE_OK || sqlite3_blob_bytes(w->lft) != len)
		return 1;
	for (int at = 0; at < len; at += LFT_BLOCK) {
		int bytes = len - at < LFT_BLOCK ? len - at : LFT_BLOCK;
		if (memcmp(old + at, now + at, (size_t)bytes) != 0 &&
		    sqlite3_blob_write(w->lft, now + at, bytes, at) != SQLITE_OK)
			return db_set_err(w->db, "storing forwarding tables");
	}
	return 0;
}

/* The tables held for was (a node of held), or NULL. */
static const uint8_t *held_lft(const struct db_stored *held, const struct node *was)
{
	return was && held->t && was->index < held->t->nnodes ? held->t->lft[was->index] : NULL;
}

/* Which switches' tables put_tables writes: by whether held's fabric has them (their rows stored). */
enum which_tables { EVERY_TABLE, HELD_SWITCHES, NEW_SWITCHES };

/* Every switch's table where it differs from the held one (held NULL: every table), of those `which` says. */
static int put_tables(struct writer *w, const struct fabric *f, const struct routing_tables *t,
		      const struct db_stored *held, enum which_tables which)
{
	int rc = 0;
	for (size_t i = 0; i < f->nnodes && rc == 0; i++) {
		const struct node *n = f->nodes[i], *was = held ? fabric_find_guid(held->f, n->guid) : NULL;
		if ((which == HELD_SWITCHES && !was) || (which == NEW_SWITCHES && was))
			continue;
		const uint8_t *old = held ? held_lft(held, was) : NULL;
		const uint8_t *now = i < t->nnodes ? t->lft[i] : NULL;
		if (!now)
			rc = old ? del_by_guid(w, w->del_lft, n->guid) : 0;
		else if (!old || (memcmp(old, now, t->max_lid + 1) != 0 && (rc = patch_lft(w, n, t, old)) == 1))
			rc = put_lft(w, n, t);
	}
	return rc;
}

static int put_layers(struct db *db, const struct routing_tables *t)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO routing VALUES (1,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "storing VL layers");
	sqlite3_bind_int(st, 1, (int)t->layers);
	sqlite3_bind_blob(st, 2, t->sl, t->max_lid + 1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, t->vl_by_sl, sizeof(t->vl_by_sl), SQLITE_STATIC);
	int rc = db_step_done(db, st, "storing VL layers");
	sqlite3_finalize(st);
	return rc;
}

bool db_tables_apart(const struct routing_tables *t, const struct db_stored *held)
{
	return held && held->t && t && held->t->max_lid == t->max_lid;
}

int db_store_held_tables(struct db *db, const struct fabric *f, const struct routing_tables *t,
			 const struct db_stored *held)
{
	struct writer w;
	if (db_exec(db, "DELETE FROM routing;") < 0)
		return -1;
	int rc = writer_open(&w, db);
	if (rc == 0)
		rc = put_tables(&w, f, t, held, HELD_SWITCHES);
	writer_close(&w);
	return rc == 0 ? put_layers(db, t) : rc;
}

int db_store_fabric(struct db *db, const struct fabric *f, const struct routing_tables *t,
		    const struct db_stored *held, bool held_tables_in)
{
	struct writer w;
	/* tables of another LID range share no bytes with the held ones: all of them are written */
	bool same_lids = db_tables_apart(t, held);
	if (!held && db_exec(db, "DELETE FROM links; DELETE FROM lfts; DELETE FROM ports; DELETE FROM nodes;") < 0)
		return -1;
	if ((held && !same_lids && db_exec(db, "DELETE FROM lfts;") < 0) ||
	    (!held_tables_in && db_exec(db, "DELETE FROM routing;") < 0))
		return -1;
	int rc = writer_open(&w, db);
	for (size_t i = 0; i < f->nnodes && rc == 0; i++) {
		const struct node *n = f->nodes[i];
		rc = put_node_rows(&w, n, held ? fabric_find_guid(held->f, n->guid) : NULL);
	}
	for (size_t i = 0; held && i < held->f->nnodes && rc == 0; i++) {
		uint64_t guid = held->f->nodes[i]->guid;
		if (!fabric_find_guid(f, guid))	/* gone: its ports and table go with it (ON DELETE CASCADE) */
			rc = del_by_guid(&w, w.del_node, guid) < 0 ? -1 : del_by_guid(&w, w.del_links_of, guid);
	}
	if (rc == 0 && t)	/* the new switches' after their node rows, which theirs refer to */
		rc = put_tables(&w, f, t, same_lids ? held : NULL, held_tables_in ? NEW_SWITCHES : EVERY_TABLE);
	writer_close(&w);
	return rc == 0 && t && !held_tables_in ? put_layers(db, t) : rc;
}
