/*
 * DOC: stored port counters
 *
 * port_counters holds each port's running totals (one column per counter,
 * for SQL and fabricctl), its last raw reading and last interval (BLOBs of
 * PC_COUNT little-endian 64-bit values: state, not for queries).
 * perf_samples holds every perf sweep's deltas; samples older than
 * perf_hours are summed into perf_hourly, whose rows older than `days`
 * go. If the database then holds more than perf_max_mb, the oldest half of
 * the roll-ups, then of the samples, go until it does not (or nothing is left).
 * Totals are never trimmed.
 *
 * Column lists are built from pc_name(), the same names schema.c gives the
 * columns; the database's own error names any mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/internal.h"

static void put_values(uint8_t out[PC_COUNT * 8], const struct pc_values *v)
{
	for (int c = 0; c < PC_COUNT; c++)
		for (int b = 0; b < 8; b++)
			out[c * 8 + b] = (uint8_t)(v->v[c] >> (8 * b));
}

/* A BLOB of the wrong size (a damaged row) reads as zeros. */
static void get_values(sqlite3_stmt *st, int col, struct pc_values *v)
{
	const uint8_t *in = sqlite3_column_blob(st, col);
	memset(v, 0, sizeof(*v));
	if (!in || sqlite3_column_bytes(st, col) != PC_COUNT * 8)
		return;
	for (int c = 0; c < PC_COUNT; c++)
		for (int b = 0; b < 8; b++)
			v->v[c] |= (uint64_t)in[c * 8 + b] << (8 * b);
}

/* "a, b, c" (prefix before each name) or "?, ?, ?". */
static void column_list(char *out, size_t len, const char *prefix, bool placeholders)
{
	size_t at = 0;
	out[0] = 0;
	for (int c = 0; c < PC_COUNT && at < len; c++)
		at += (size_t)snprintf(out + at, len - at, "%s%s%s", c ? ", " : "", placeholders ? "" : prefix,
				       placeholders ? "?" : pc_name(c));
}

int db_load_port_counters(struct db *db, struct db_port_counters **out, size_t *n)
{
	char cols[1024], sql[1400];
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	column_list(cols, sizeof(cols), "", false);
	snprintf(sql, sizeof(sql), "SELECT node_guid, port, lid, time, seconds, saturated, raw, last, %s "
		 "FROM port_counters ORDER BY node_guid, port", cols);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading port counters");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_port_counters *more = realloc(*out, (*n + 1) * sizeof(*more)), *p;
		if (!more) {
			sqlite3_finalize(st);
			free(*out);
			*out = NULL;
			*n = 0;
			return db_set_err(db, "reading port counters (out of memory)");
		}
		*out = more;
		p = &more[(*n)++];
		memset(p, 0, sizeof(*p));
		p->node_guid = (uint64_t)sqlite3_column_int64(st, 0);
		p->port = (uint8_t)sqlite3_column_int(st, 1);
		p->lid = (uint16_t)sqlite3_column_int(st, 2);
		p->time = sqlite3_column_double(st, 3);
		p->seconds = sqlite3_column_double(st, 4);
		p->saturated = sqlite3_column_int(st, 5) != 0;
		get_values(st, 6, &p->raw);
		get_values(st, 7, &p->last);
		for (int c = 0; c < PC_COUNT; c++)
			p->total.v[c] = (uint64_t)sqlite3_column_int64(st, 8 + c);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	free(*out);
	*out = NULL;
	*n = 0;
	return db_set_err(db, "reading port counters");
}

static int save_ports(struct db *db, const struct db_port_counters *ports, size_t n)
{
	char cols[1024], marks[256], sql[1600];
	sqlite3_stmt *st;
	column_list(cols, sizeof(cols), "", false);
	column_list(marks, sizeof(marks), "", true);
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO port_counters (node_guid, port, lid, time, seconds, "
		 "saturated, raw, last, %s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, %s)", cols, marks);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "storing port counters");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct db_port_counters *p = &ports[i];
		uint8_t raw[PC_COUNT * 8], last[PC_COUNT * 8];
		put_values(raw, &p->raw);
		put_values(last, &p->last);
		sqlite3_bind_int64(st, 1, (int64_t)p->node_guid);
		sqlite3_bind_int(st, 2, p->port);
		sqlite3_bind_int(st, 3, p->lid);
		sqlite3_bind_double(st, 4, p->time);
		sqlite3_bind_double(st, 5, p->seconds);
		sqlite3_bind_int(st, 6, p->saturated);
		sqlite3_bind_blob(st, 7, raw, sizeof(raw), SQLITE_TRANSIENT);
		sqlite3_bind_blob(st, 8, last, sizeof(last), SQLITE_TRANSIENT);
		for (int c = 0; c < PC_COUNT; c++)
			sqlite3_bind_int64(st, 9 + c, (int64_t)p->total.v[c]);
		rc = db_step_done(db, st, "storing port counters");
	}
	sqlite3_finalize(st);
	return rc;
}

static int save_samples(struct db *db, double now, const struct db_perf_sample *s, size_t n)
{
	char cols[1024], marks[256], sql[1600];
	sqlite3_stmt *st;
	column_list(cols, sizeof(cols), "", false);
	column_list(marks, sizeof(marks), "", true);
	snprintf(sql, sizeof(sql), "INSERT INTO perf_samples (time, node_guid, port, seconds, %s) "
		 "VALUES (?, ?, ?, ?, %s)", cols, marks);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "storing counter samples");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		sqlite3_bind_double(st, 1, now);
		sqlite3_bind_int64(st, 2, (int64_t)s[i].node_guid);
		sqlite3_bind_int(st, 3, s[i].port);
		sqlite3_bind_double(st, 4, s[i].seconds);
		for (int c = 0; c < PC_COUNT; c++)
			sqlite3_bind_int64(st, 5 + c, (int64_t)s[i].delta.v[c]);
		rc = db_step_done(db, st, "storing counter samples");
	}
	sqlite3_finalize(st);
	return rc;
}

static int save_health(struct db *db, const struct db_port_health *h, size_t n)
{
	sqlite3_stmt *st;
	if (db_exec(db, "DELETE FROM port_health") < 0)
		return -1;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO port_health VALUES (?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "storing port health");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)h[i].node_guid);
		sqlite3_bind_int(st, 2, h[i].port);
		sqlite3_bind_text(st, 3, h[i].state, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 4, h[i].since);
		sqlite3_bind_text(st, 5, h[i].why, -1, SQLITE_STATIC);
		rc = db_step_done(db, st, "storing port health");
	}
	sqlite3_finalize(st);
	return rc;
}

int db_load_port_health(struct db *db, struct db_port_health **out, size_t *n)
{
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT node_guid, port, state, since, why FROM port_health "
			       "ORDER BY node_guid, port", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading port health");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_port_health *more = realloc(*out, (*n + 1) * sizeof(*more));
		if (!more) {
			sqlite3_finalize(st);
			free(*out);
			*out = NULL;
			*n = 0;
			return db_set_err(db, "reading port health (out of memory)");
		}
		*out = more;
		struct db_port_health *h = &more[(*n)++];
		memset(h, 0, sizeof(*h));
		h->node_guid = (uint64_t)sqlite3_column_int64(st, 0);
		h->port = (uint8_t)sqlite3_column_int(st, 1);
		const char *state = (const char *)sqlite3_column_text(st, 2), *why = (const char *)sqlite3_column_text(st, 4);
		snprintf(h->state, sizeof(h->state), "%s", state ? state : "");
		h->since = sqlite3_column_double(st, 3);
		snprintf(h->why, sizeof(h->why), "%s", why ? why : "");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading port health");
}

/* Sums the samples older than perf_hours into perf_hourly, drops them and roll-ups older than days. */
static int roll_up(struct db *db, double now)
{
	const struct db_retention *k = &db->keep;
	if (!k->perf_hours)
		return 0;
	char cols[1024], sums[1400], adds[2000], sql[5200];
	size_t at = 0, at2 = 0;
	column_list(cols, sizeof(cols), "", false);
	for (int c = 0; c < PC_COUNT; c++) {
		at += (size_t)snprintf(sums + at, sizeof(sums) - at, ", sum(%s)", pc_name(c));
		at2 += (size_t)snprintf(adds + at2, sizeof(adds) - at2, ", %s = %s + excluded.%s", pc_name(c),
					pc_name(c), pc_name(c));
	}
	double cut = now - k->perf_hours * 3600.0;
	snprintf(sql, sizeof(sql),
		 "INSERT INTO perf_hourly (hour, node_guid, port, seconds, %s) "
		 "SELECT CAST(time / 3600 AS INTEGER), node_guid, port, sum(seconds)%s FROM perf_samples "
		 "WHERE time < %.3f GROUP BY 1, 2, 3 "
		 "ON CONFLICT (hour, node_guid, port) DO UPDATE SET seconds = seconds + excluded.seconds%s;"
		 "DELETE FROM perf_samples WHERE time < %.3f;"
		 "DELETE FROM perf_hourly WHERE %u > 0 AND hour < %.0f;",
		 cols, sums, cut, adds, cut, k->days, (now - k->days * 86400.0) / 3600.0);
	return db_exec(db, sql);
}

/* Bytes the database's pages hold (free pages aside), or -1. */
static int64_t used_bytes(struct db *db)
{
	sqlite3_stmt *st;
	int64_t v[3] = { -1, -1, -1 };
	const char *q[3] = { "PRAGMA page_count", "PRAGMA freelist_count", "PRAGMA page_size" };
	for (int i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(db->h, q[i], -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			v[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return v[0] < 0 || v[1] < 0 || v[2] < 0 ? -1 : (v[0] - v[1]) * v[2];
}

static int trim_to_size(struct db *db)
{
	uint64_t limit = (uint64_t)db->keep.perf_max_mb << 20;
	static const char *halves[] = {
		"DELETE FROM perf_hourly WHERE hour < (SELECT (min(hour) + max(hour) + 1) / 2 FROM perf_hourly)",
		"DELETE FROM perf_hourly",
		"DELETE FROM perf_samples WHERE time < (SELECT (min(time) + max(time)) / 2 FROM perf_samples)",
		"DELETE FROM perf_samples",
	};
	for (size_t i = 0; limit && i < sizeof(halves) / sizeof(halves[0]); i++) {
		int64_t used = used_bytes(db);
		if (used < 0)
			return db_set_err(db, "reading the database size");
		if ((uint64_t)used <= limit)
			return 0;
		if (db_exec(db, halves[i]) < 0)
			return -1;
	}
	return 0;
}

int db_save_perf(struct db *db, double now, const struct db_port_counters *ports, size_t n,
		 const struct db_perf_sample *samples, size_t ns, const struct db_port_health *health, size_t nh)
{
	sqlite3_busy_timeout(db->h, 0);
	int rc = db_begin_write(db);
	if (rc == 0 && (save_ports(db, ports, n) < 0 || save_samples(db, now, samples, ns) < 0 ||
			save_health(db, health, nh) < 0 ||
			roll_up(db, now) < 0 || trim_to_size(db) < 0 || db_exec(db, "COMMIT") < 0)) {
		db_rollback(db);
		rc = -1;
	}
	sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
	return rc;
}

int db_perf_sums(struct db *db, double since,
		 void (*fn)(void *arg, uint64_t node_guid, uint8_t port, double seconds, const struct pc_values *sum),
		 void *arg)
{
	char sums[1400], sql[6000];
	size_t at = 0;
	for (int c = 0; c < PC_COUNT; c++)
		at += (size_t)snprintf(sums + at, sizeof(sums) - at, ", sum(%s)", pc_name(c));
	char cols[1024];
	column_list(cols, sizeof(cols), "", false);
	snprintf(sql, sizeof(sql),
		 "SELECT node_guid, port, sum(seconds)%s FROM ("
		 " SELECT node_guid, port, seconds, %s FROM perf_samples WHERE time >= %.3f"
		 " UNION ALL SELECT node_guid, port, seconds, %s FROM perf_hourly WHERE (hour + 1) * 3600 > %.3f"
		 ") GROUP BY node_guid, port ORDER BY node_guid, port", sums, cols, since, cols, since);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading counter samples");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pc_values sum;
		for (int c = 0; c < PC_COUNT; c++)
			sum.v[c] = (uint64_t)sqlite3_column_int64(st, 3 + c);
		fn(arg, (uint64_t)sqlite3_column_int64(st, 0), (uint8_t)sqlite3_column_int(st, 1),
		   sqlite3_column_double(st, 2), &sum);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading counter samples");
}
