/*
 * DOC: stored ServiceRecords
 *
 * The SA's ServiceRecords, so that hosts need not register again after
 * fabricd restarts. The whole store (at most sa's 1024 records) is
 * written in one transaction whenever it changes; a write never waits
 * for a database another process holds (the SA answers from memory, and
 * writes again at the next change). Records read back are checked for
 * their size: a row of another length is left out.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/internal.h"

int db_load_services(struct db *db, struct db_service **out, size_t *n)
{
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT record, owner, expires FROM services WHERE expires > ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_set_err(db, "reading ServiceRecords");
	sqlite3_bind_double(st, 1, (double)time(NULL));
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) != DB_SERVICE_RECORD_LEN)
			continue;
		struct db_service *more = realloc(*out, (*n + 1) * sizeof(*more));
		if (!more) {
			sqlite3_finalize(st);
			free(*out);
			*out = NULL;
			*n = 0;
			return db_set_err(db, "reading ServiceRecords (out of memory)");
		}
		*out = more;
		struct db_service *s = &more[(*n)++];
		memcpy(s->record, sqlite3_column_blob(st, 0), DB_SERVICE_RECORD_LEN);
		s->owner = (uint64_t)sqlite3_column_int64(st, 1);
		s->expires = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading ServiceRecords");
}

static int insert_services(struct db *db, const struct db_service *s, size_t n)
{
	sqlite3_stmt *st;
	if (db_exec(db, "DELETE FROM services") < 0)
		return -1;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO services VALUES (?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "storing ServiceRecords");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		sqlite3_bind_blob(st, 1, s[i].record, DB_SERVICE_RECORD_LEN, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)s[i].owner);
		sqlite3_bind_double(st, 3, s[i].expires);
		rc = db_step_done(db, st, "storing ServiceRecords");
	}
	sqlite3_finalize(st);
	return rc;
}

int db_save_services(struct db *db, const struct db_service *s, size_t n)
{
	sqlite3_busy_timeout(db->h, 0);
	int rc = db_begin_write(db);
	if (rc == 0 && (insert_services(db, s, n) < 0 || db_exec(db, "COMMIT") < 0)) {
		db_rollback(db);
		rc = -1;
	}
	sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
	return rc;
}
