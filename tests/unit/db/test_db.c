/*
 * The state database: a new file is created at the latest schema, a sweep
 * round-trips (fabric, LIDs, tables, partitions, M_Keys), a newer schema or a corrupt file is
 * refused with a one-line reason, a failed sweep leaves the previous
 * one intact, a sweep that writes only what changed leaves the same rows
 * as one written whole, only full sweeps move a port's last_seen, and the
 * write-ahead log goes into the file only when the writer asks; a sweep's
 * tables stored ahead of the rest leave the rows a whole store does, and
 * its partitions are written only when they changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "db/db.h"
#include "harness.h"
#include "topology/fattree_gen.h"

static char path[64];

static int setup(void **state)
{
	snprintf(path, sizeof(path), "/tmp/fabricd-test-db.XXXXXX");
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	test_remove_db(path);
	return 0;
}

static void tree_of(struct fabric *f, unsigned radix)
{
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = radix };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
	uint16_t lid = 1;
	for (size_t i = 0; i < f->nnodes; i++)
		f->nodes[i]->ports[f->nodes[i]->type == NODE_SWITCH ? 0 : 1].lid = lid++;
}

static void tree(struct fabric *f)
{
	tree_of(f, 4);
}

static struct db_sweep sweep_record(const char *result)
{
	struct db_sweep s = { .started = 1000, .finished = 1001, .mads = 42, .nodes = 14, .switches = 6,
			      .links = 16 };
	snprintf(s.kind, sizeof(s.kind), "heavy");
	snprintf(s.result, sizeof(s.result), "%s", result);
	return s;
}

static void test_db_sweep_round_trips(void **state)
{
	char err[DB_ERR_LEN];
	struct fabric f, g;
	struct routing_tables t, u;
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	tree(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	t.layers = 2;	/* the VL layer of each LID comes back too */
	t.sl[t.max_lid] = 1;
	struct db_lid lids[] = { { 0x200000, 1 }, { 0x100001, 7 } };
	struct db_sweep s = sweep_record("ok");
	struct db_partition parts[] = { { 0x0a01, "tenant-a" }, { 0x7fff, "default" } };
	struct db_pkey_member members[] = { { 0x0a01, 0x100001, 1, true }, { 0x7fff, 0x100001, 1, false } };
	struct db_partitions pt = { parts, 2, members, 2 };
	assert_int_equal(db_save_sweep(db, &s, &f, &t, &pt, lids, 2, NULL, 0, NULL), 0);
	struct db_mkey key = { 0x200000, 0xfedcba9876543210ULL };	/* the top bit survives SQLite's signed integers */
	assert_int_equal(db_save_mkeys(db, &key, 1), 0);
	db_close(db);

	db = db_open(path, DB_READ_ONLY, err);
	assert_non_null(db);
	struct db_partition *pb;
	struct db_pkey_member *mb;
	size_t np, nm;
	assert_int_equal(db_load_partitions(db, &pb, &np, &mb, &nm), 0);
	assert_int_equal(np, 2);
	assert_string_equal(pb[0].name, "tenant-a");
	assert_int_equal(nm, 2);
	assert_int_equal(mb[0].pkey, 0x0a01);
	assert_true(mb[0].full);
	assert_false(mb[1].full);
	free(pb);
	free(mb);
	struct db_mkey *keys;
	size_t nk;
	assert_int_equal(db_load_mkeys(db, &keys, &nk), 0);
	assert_int_equal(nk, 1);
	assert_true(keys[0].guid == 0x200000 && keys[0].mkey == 0xfedcba9876543210ULL);
	free(keys);
	struct db_sweep back;
	assert_int_equal(db_last_sweep(db, &back), 1);
	assert_string_equal(back.result, "ok");
	assert_int_equal(back.mads, 42);
	assert_int_equal(db_load_fabric(db, &g), 0);
	assert_int_equal(g.nnodes, f.nnodes);
	assert_int_equal(fabric_link_count(&g), fabric_link_count(&f));
	for (size_t i = 0; i < f.nnodes; i++) {
		struct node *a = f.nodes[i], *b = fabric_find_guid(&g, a->guid);
		assert_non_null(b);
		assert_string_equal(a->desc, b->desc);
		assert_int_equal(fabric_port_lid(a, 1), fabric_port_lid(b, 1));
	}
	assert_int_equal(db_load_tables(db, &g, &u), 0);
	assert_int_equal(u.max_lid, t.max_lid);
	assert_int_equal(u.layers, 2);
	assert_memory_equal(u.sl, t.sl, t.max_lid + 1);
	for (size_t i = 0; i < f.nnodes; i++) {
		if (!t.lft[i])
			continue;
		size_t j = fabric_find_guid(&g, f.nodes[i]->guid)->index;
		assert_memory_equal(t.lft[i], u.lft[j], t.max_lid + 1);
	}
	struct db_lid *stored;
	size_t n;
	assert_int_equal(db_load_lids(db, &stored, &n), 0);
	assert_int_equal(n, 2);
	free(stored);
	db_close(db);
	routing_tables_free(&t);
	routing_tables_free(&u);
	fabric_free(&f);
	fabric_free(&g);
}

/* ServiceRecords round-trip; expired ones and rows of the wrong size are not read back; a save replaces all. */
static void test_db_services(void **state)
{
	char err[DB_ERR_LEN];
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	struct db_service s[3] = { { .owner = 1, .expires = (double)time(NULL) + 60 },
				   { .owner = 2, .expires = (double)time(NULL) - 1 },
				   { .owner = 3, .expires = (double)time(NULL) + 60 } };
	memset(s[0].record, 0xab, sizeof(s[0].record));
	memset(s[2].record, 0xcd, sizeof(s[2].record));
	assert_int_equal(db_save_services(db, s, 3), 0);
	db_close(db);
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO services VALUES (x'00', 4, 1e12)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_non_null(db = db_open(path, DB_READ_WRITE, err));
	struct db_service *got;
	size_t n;
	assert_int_equal(db_load_services(db, &got, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(got[0].owner + got[1].owner, 4);
	assert_memory_equal(got[0].owner == 1 ? got[0].record : got[1].record, s[0].record, sizeof(s[0].record));
	free(got);
	assert_int_equal(db_save_services(db, s + 2, 1), 0);
	assert_int_equal(db_load_services(db, &got, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].owner, 3);
	free(got);
	db_close(db);
}

static void test_db_refuses_newer_schema(void **state)
{
	char err[DB_ERR_LEN];
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL);
	sqlite3_close(h);
	assert_null(db_open(path, DB_READ_WRITE, err));
	assert_non_null(strstr(err, "schema version 99 is newer than this fabricd knows (5)"));
}

static void test_db_refuses_corrupt_file(void **state)
{
	char err[DB_ERR_LEN];
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 200; i++)
		fputs("garbage garbage garbage ", f);
	fclose(f);
	assert_null(db_open(path, DB_READ_WRITE, err));
	assert_non_null(strstr(err, "database is corrupt or not a database"));
	assert_null(strchr(err, '\n'));
}

/* The last_seen of port GUID guid in the lids table (read with SQLite itself). */
static double last_seen_of(uint64_t guid)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	double seen = -1;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT last_seen FROM lids WHERE guid = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, (int64_t)guid);
	if (sqlite3_step(st) == SQLITE_ROW)
		seen = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return seen;
}

/* A full sweep moves every port's last_seen; a repair, which read only what changed, leaves it. */
static void test_db_repairs_leave_last_seen(void **state)
{
	char err[DB_ERR_LEN];
	struct fabric f;
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	tree(&f);
	struct db_lid lids[] = { { 0x100001, 7 } };
	struct db_sweep s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, lids, 1, NULL, 0, NULL), 0);
	double first = last_seen_of(0x100001);
	assert_true(first > 0);
	usleep(20000);
	s = sweep_record("ok");
	snprintf(s.kind, sizeof(s.kind), "repair");
	assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, NULL, 0, NULL, 0, NULL), 0);
	assert_true(last_seen_of(0x100001) == first);
	usleep(20000);
	s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, NULL, 0, NULL, 0, NULL), 0);
	assert_true(last_seen_of(0x100001) > first);
	db_close(db);
	fabric_free(&f);
}

/* Retention by count keeps the newest; by age it never drops the newest, whatever the clock says. */
static void test_db_history_is_pruned(void **state)
{
	char err[DB_ERR_LEN];
	struct fabric f;
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	tree(&f);
	db_set_retention(db, &(struct db_retention){ .sweeps = 2, .events = 3 });
	struct db_new_event ev[] = { { "trap", "one" }, { "trap", "two" } };
	struct db_sweep s;
	for (int i = 0; i < 5; i++) {
		s = sweep_record("ok");
		assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, NULL, 0, ev, 2, NULL), 0);
	}
	uint64_t bytes;
	unsigned sweeps, events;
	assert_int_equal(db_size(db, &bytes, &sweeps, &events), 0);
	assert_int_equal(sweeps, 2);
	assert_int_equal(events, 3);
	assert_true(bytes > 0);
	struct db_sweep last;
	assert_int_equal(db_last_sweep(db, &last), 1);
	assert_int_equal(last.id, s.id);
	/* 1 day, and sweeps that say they started in 1970: only the newest is left */
	db_set_retention(db, &(struct db_retention){ .days = 1 });
	s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, NULL, 0, NULL, 0, NULL), 0);
	assert_int_equal(db_size(db, &bytes, &sweeps, &events), 0);
	assert_int_equal(sweeps, 1);
	assert_int_equal(db_last_sweep(db, &last), 1);
	assert_int_equal(last.id, s.id);
	db_close(db);
	fabric_free(&f);
}

struct sums {
	unsigned ports;
	double seconds;
	uint64_t symbol_errors;
};

static void add_sums(void *arg, uint64_t guid, uint8_t port, double seconds, const struct pc_values *sum)
{
	struct sums *s = arg;
	(void)guid;
	(void)port;
	s->ports++;
	s->seconds += seconds;
	s->symbol_errors += sum->v[PC_SYMBOL_ERRORS];
}

/*
 * Port counters round-trip (64-bit totals, the raw and last BLOBs); samples
 * older than perf_hours become hourly roll-ups that still count in the sums;
 * roll-ups older than days go; the totals stay.
 */
static void test_db_perf_counters(void **state)
{
	char err[DB_ERR_LEN];
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	db_set_retention(db, &(struct db_retention){ .days = 2, .perf_hours = 1 });
	struct db_port_counters p = { .node_guid = 0x8000000000000051ULL, .port = 4, .lid = 2, .time = 1e9,
				      .seconds = 10, .saturated = true };
	p.total.v[PC_XMIT_DATA] = 0xfedcba9876543210ULL;
	p.total.v[PC_SYMBOL_ERRORS] = 12;
	p.raw.v[PC_XMIT_WAIT] = 77;
	p.last.v[PC_RCV_PKTS] = 5;
	struct db_perf_sample s = { p.node_guid, p.port, 10, { { 0 } } };
	s.delta.v[PC_SYMBOL_ERRORS] = 4;
	double now = 1.8e9;
	/* three sweeps: 5 h ago (rolled up), 3 days ago (rolled up, then too old), now */
	assert_int_equal(db_save_perf(db, now - 3 * 86400, &p, 1, &s, 1, NULL, 0), 0);
	assert_int_equal(db_save_perf(db, now - 5 * 3600, &p, 1, &s, 1, NULL, 0), 0);
	assert_int_equal(db_save_perf(db, now, &p, 1, &s, 1, NULL, 0), 0);
	struct db_port_counters *rows;
	size_t n;
	assert_int_equal(db_load_port_counters(db, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].node_guid, p.node_guid);
	assert_int_equal(rows[0].total.v[PC_XMIT_DATA], p.total.v[PC_XMIT_DATA]);
	assert_int_equal(rows[0].raw.v[PC_XMIT_WAIT], 77);
	assert_int_equal(rows[0].last.v[PC_RCV_PKTS], 5);
	assert_true(rows[0].saturated);
	free(rows);
	struct sums all = { 0 };
	assert_int_equal(db_perf_sums(db, 0, add_sums, &all), 0);
	assert_int_equal(all.ports, 1);
	assert_int_equal(all.symbol_errors, 8);	/* the 3-day-old sample is gone */
	assert_float_equal(all.seconds, 20, 1e-9);
	struct sums recent = { 0 };
	assert_int_equal(db_perf_sums(db, now - 60, add_sums, &recent), 0);
	assert_int_equal(recent.symbol_errors, 4);
	db_close(db);
}

static void test_db_failed_sweep_keeps_previous(void **state)
{
	char err[DB_ERR_LEN];
	struct fabric f, g;
	struct db *db = db_open(path, DB_READ_WRITE, err);
	tree(&f);
	struct db_sweep s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, NULL, 0, NULL, 0, NULL), 0);
	/* two GUIDs claiming one LID violate the UNIQUE constraint mid-transaction */
	struct db_lid clash[] = { { 0x1, 500 }, { 0x2, 500 } };
	struct db_sweep bad = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &bad, &f, NULL, NULL, clash, 2, NULL, 0, NULL), -1);
	assert_non_null(strstr(db_last_error(db), "UNIQUE"));
	struct db_sweep last;
	assert_int_equal(db_last_sweep(db, &last), 1);
	assert_int_equal(last.id, s.id);
	assert_int_equal(db_load_fabric(db, &g), 0);
	assert_int_equal(g.nnodes, f.nnodes);
	db_close(db);
	fabric_free(&f);
	fabric_free(&g);
}

/* Whether the first stored member (pkey order) is a full one. */
static bool first_member_full(struct db *db)
{
	struct db_partition *pb;
	struct db_pkey_member *mb;
	size_t np, nm;
	assert_int_equal(db_load_partitions(db, &pb, &np, &mb, &nm), 0);
	assert_true(nm > 0);
	bool full = mb[0].full;
	free(pb);
	free(mb);
	return full;
}

/*
 * The partitions a sweep stores are written only when they differ from
 * those the held sweep stored: told (wrongly) that the file holds the new
 * ones, a save leaves the old rows; told what it holds, it writes.
 */
static void test_db_partitions_written_when_changed(void **state)
{
	char err[DB_ERR_LEN];
	struct fabric f;
	struct routing_tables t;
	tree(&f);
	assert_int_equal(minhop_route(&f, &t), 0);
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	struct db_partition parts[] = { { 0x0a01, "tenant-a" }, { 0x7fff, "default" } };
	struct db_pkey_member was[] = { { 0x0a01, 0x100001, 1, true }, { 0x7fff, 0x100001, 1, false } };
	struct db_pkey_member now[] = { { 0x0a01, 0x100001, 1, false }, { 0x7fff, 0x100001, 1, false } };
	struct db_partitions old_parts = { parts, 2, was, 2 }, new_parts = { parts, 2, now, 2 };
	struct db_sweep s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, &t, &old_parts, NULL, 0, NULL, 0, NULL), 0);
	struct db_stored claims_new = { &f, &t, s.id, &new_parts };
	assert_int_equal(db_save_sweep(db, &s, &f, &t, &new_parts, NULL, 0, NULL, 0, &claims_new), 0);
	assert_true(first_member_full(db));	/* skipped: "the same as stored" */
	struct db_stored holds_old = { &f, &t, s.id, &old_parts };
	assert_int_equal(db_save_sweep(db, &s, &f, &t, &new_parts, NULL, 0, NULL, 0, &holds_old), 0);
	assert_false(first_member_full(db));
	db_close(db);
	routing_tables_free(&t);
	fabric_free(&f);
}

static off_t size_of(const char *file)
{
	struct stat st;
	return stat(file, &st) == 0 ? st.st_size : -1;
}

/*
 * Sweeps go into the write-ahead log however long it gets (past SQLite's
 * own mark of 1,000 pages, where it would copy the log back inside a
 * commit), and into the file only with db_checkpoint; readers see them
 * either way.
 */
static void test_db_checkpoint_only_when_asked(void **state)
{
	char err[DB_ERR_LEN], wal[80];
	struct fabric f;
	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	tree_of(&f, 12);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	off_t file = size_of(path);
	struct db_sweep s;
	int stores = 0;
	while (size_of(wal) < 2000 * 4096 && stores < 2000) {	/* whole sweeps, a new row each */
		s = sweep_record("ok");
		assert_int_equal(db_save_sweep(db, &s, &f, NULL, NULL, NULL, 0, NULL, 0, NULL), 0);
		stores++;
		assert_int_equal(size_of(path), file);
	}
	assert_true(size_of(wal) >= 2000 * 4096);
	struct db *reader = db_open(path, DB_READ_ONLY, err);
	struct db_sweep last;
	assert_int_equal(db_last_sweep(reader, &last), 1);
	assert_int_equal(last.id, s.id);
	db_close(reader);
	int copied = 0;
	assert_int_equal(db_checkpoint(db, &copied), 0);
	assert_true(copied >= 1500);	/* a frame is a page and its 24-byte header */
	assert_true(size_of(path) > file);
	db_close(db);
	fabric_free(&f);
}

/* Every row of the stored fabric and tables, in key order, as text: what two files hold, compared. */
static char *fabric_rows(const char *file)
{
	static const char *const queries[] = {
		"SELECT * FROM nodes ORDER BY guid",
		"SELECT * FROM ports ORDER BY node_guid, port",
		"SELECT * FROM links ORDER BY node_a, port_a",
		"SELECT switch_guid, max_lid, hex(ports) FROM lfts ORDER BY switch_guid",
		"SELECT layers, hex(sl), hex(vl_by_sl) FROM routing",
	};
	sqlite3 *h;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(sqlite3_open_v2(file, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_prepare_v2(h, queries[q], -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(st); c++)
				fprintf(out, "%s|", (const char *)sqlite3_column_text(st, c));
			fputc('\n', out);
		}
		sqlite3_finalize(st);
		fputs("--\n", out);
	}
	sqlite3_close(h);
	fclose(out);
	return text;
}

/* Saves f and t whole into a new file at file. */
static void save_whole(const char *file, const struct fabric *f, const struct routing_tables *t)
{
	char err[DB_ERR_LEN];
	struct db *db = db_open(file, DB_READ_WRITE, err);
	assert_non_null(db);
	struct db_sweep s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, f, t, NULL, NULL, 0, NULL, 0, NULL), 0);
	db_close(db);
}

/*
 * A save told what the database holds writes only what differs, and the
 * file then holds the same rows as the new sweep stored whole: a host
 * gone and another in its place, a cable moved, a port's state, a name,
 * the routes of the new fabric (of a table, only the blocks that changed,
 * in place). Told wrongly (a sweep stored since), it notices and writes
 * everything.
 */
static void test_db_stores_only_what_changed(void **state)
{
	char err[DB_ERR_LEN], whole[80];
	struct fabric f, g;
	struct routing_tables t, u;
	tree_of(&f, 12);	/* 90 LIDs: tables of two LFT blocks, the second short, rewritten in place */
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(fabric_copy(&g, &f), 0);
	struct node *gone = NULL, *sw = NULL;
	for (size_t i = 0; i < g.nnodes; i++) {
		struct node *n = g.nodes[i];
		if (n->type != NODE_SWITCH && !gone)
			gone = n;
		if (n->type == NODE_SWITCH && !sw && n->ports[1].remote && n->ports[2].remote)
			sw = n;
	}
	assert_true(gone && sw);
	uint16_t lid = gone->ports[1].lid;
	struct node *leaf = gone->ports[1].remote;
	uint8_t leaf_port = gone->ports[1].remote_port;
	fabric_remove_node(&g, gone);
	struct node *added = fabric_add_node(&g, NODE_CA, 0xabc000, 1, "new host");
	assert_non_null(added);
	added->ports[1].lid = lid;	/* the same LID range: tables compared switch by switch */
	added->ports[1].guid = 0xabc001;
	added->ports[1].state = 4;
	assert_int_equal(fabric_link(added, 1, leaf, leaf_port), 0);
	struct node *far = sw->ports[1].remote;
	uint8_t far_port = sw->ports[1].remote_port;
	fabric_unlink(sw, 1);
	fabric_unlink(sw, 2);
	assert_int_equal(fabric_link(sw, 2, far, far_port), 0);	/* the cable moved to port 2 */
	sw->ports[3].state = 1;
	snprintf(g.nodes[0]->desc, sizeof(g.nodes[0]->desc), "renamed");
	assert_int_equal(minhop_route(&g, &u), 0);
	assert_int_equal(u.max_lid, t.max_lid);

	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	struct db_sweep s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, &t, NULL, NULL, 0, NULL, 0, NULL), 0);
	struct db_stored held = { &f, &t, s.id, NULL };
	assert_int_equal(db_save_sweep(db, &s, &g, &u, NULL, NULL, 0, NULL, 0, &held), 0);
	db_close(db);
	snprintf(whole, sizeof(whole), "%s-whole", path);
	save_whole(whole, &g, &u);
	char *changed = fabric_rows(path), *expected = fabric_rows(whole);
	assert_string_equal(changed, expected);

	/* another sweep stored meanwhile: the held one is not what the file holds */
	struct db_stored stale = { &g, &u, s.id, NULL };
	db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	assert_int_equal(db_save_sweep(db, &s, &f, &t, NULL, NULL, 0, NULL, 0, NULL), 0);
	assert_int_equal(db_save_sweep(db, &s, &g, &u, NULL, NULL, 0, NULL, 0, &stale), 0);
	db_close(db);
	char *again = fabric_rows(path);
	assert_string_equal(again, expected);

	free(changed);
	free(expected);
	free(again);
	test_remove_db(whole);
	routing_tables_free(&t);
	routing_tables_free(&u);
	fabric_free(&f);
	fabric_free(&g);
}

/*
 * The tables stored ahead of the rest of the sweep (db_sweep_tables, in
 * a transaction left open), then the rest (db_save_sweep): the same rows
 * as the sweep stored whole, a new switch's table included (its row after
 * its node's). Meanwhile readers see the sweep before and other writes
 * are refused at once; abandoned, nothing of it stays and writes go on.
 * Without held tables, or with a sweep stored since, nothing goes ahead.
 */
static void test_db_tables_stored_ahead(void **state)
{
	char err[DB_ERR_LEN], whole[80], before[80];
	struct fabric f, g;
	struct routing_tables t, u;
	tree_of(&f, 12);
	assert_int_equal(minhop_route(&f, &t), 0);
	assert_int_equal(fabric_copy(&g, &f), 0);
	struct node *gone = NULL;
	for (size_t i = 0; i < g.nnodes && !gone; i++)
		if (g.nodes[i]->type != NODE_SWITCH)
			gone = g.nodes[i];
	uint16_t lid = gone->ports[1].lid;
	struct node *leaf = gone->ports[1].remote;
	uint8_t leaf_port = gone->ports[1].remote_port;
	fabric_remove_node(&g, gone);
	struct node *sw = fabric_add_node(&g, NODE_SWITCH, 0xabc000, 4, "new switch");	/* in the host's place */
	assert_non_null(sw);
	sw->ports[0].lid = lid;
	sw->ports[0].guid = 0xabc000;
	assert_int_equal(fabric_link(sw, 1, leaf, leaf_port), 0);
	assert_int_equal(minhop_route(&g, &u), 0);
	assert_int_equal(u.max_lid, t.max_lid);
	snprintf(whole, sizeof(whole), "%s-whole", path);
	snprintf(before, sizeof(before), "%s-before", path);
	save_whole(whole, &g, &u);
	save_whole(before, &f, &t);
	char *expected = fabric_rows(whole), *previous = fabric_rows(before);

	struct db *db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(db);
	struct db_sweep s = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &s, &f, &t, NULL, NULL, 0, NULL, 0, NULL), 0);
	struct db_stored held = { &f, &t, s.id, NULL };
	assert_int_equal(db_sweep_tables(db, &g, &u, &held), 1);
	char *meanwhile = fabric_rows(path);
	assert_string_equal(meanwhile, previous);
	struct db_service svc = { .owner = 1, .expires = 2e9 };
	assert_int_equal(db_save_services(db, &svc, 1), -1);
	assert_non_null(strstr(db_last_error(db), "busy"));
	struct db_sweep next = sweep_record("ok");
	assert_int_equal(db_save_sweep(db, &next, &g, &u, NULL, NULL, 0, NULL, 0, &held), 0);
	char *after = fabric_rows(path);
	assert_string_equal(after, expected);

	struct db_stored now = { &g, &u, next.id, NULL };
	assert_int_equal(db_sweep_tables(db, &f, &t, &now), 1);
	db_sweep_abandon(db);
	char *abandoned = fabric_rows(path);
	assert_string_equal(abandoned, expected);
	assert_int_equal(db_save_services(db, &svc, 1), 0);
	assert_int_equal(db_sweep_tables(db, &f, &t, &held), 0);	/* held is not the newest sweep */
	assert_int_equal(db_sweep_tables(db, &f, &t, NULL), 0);
	db_close(db);

	free(expected);
	free(previous);
	free(meanwhile);
	free(after);
	free(abandoned);
	test_remove_db(whole);
	test_remove_db(before);
	routing_tables_free(&t);
	routing_tables_free(&u);
	fabric_free(&f);
	fabric_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_db_sweep_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_refuses_newer_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_services, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_refuses_corrupt_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_failed_sweep_keeps_previous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_stores_only_what_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_history_is_pruned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_repairs_leave_last_seen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_perf_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_checkpoint_only_when_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_tables_stored_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_partitions_written_when_changed, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
