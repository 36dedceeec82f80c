/*
 * DOC: stored M_Keys
 *
 * Random M_Keys, one per port GUID (a switch's node GUID), in their own table. New keys are
 * written in a transaction of their own before fabricd gives any port
 * one: a key a port holds is always a key the database holds.
 */
#include <stdlib.h>

#include "db/internal.h"

int db_load_mkeys(struct db *db, struct db_mkey **out, size_t *n)
{
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT guid, mkey FROM mkeys", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading M_Keys");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_mkey *more = realloc(*out, (*n + 1) * sizeof(*more));
		if (!more) {
			sqlite3_finalize(st);
			free(*out);
			*out = NULL;
			return db_set_err(db, "reading M_Keys (out of memory)");
		}
		*out = more;
		more[(*n)++] = (struct db_mkey){ (uint64_t)sqlite3_column_int64(st, 0), (uint64_t)sqlite3_column_int64(st, 1) };
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, "reading M_Keys");
}

int db_save_mkeys(struct db *db, const struct db_mkey *keys, size_t n)
{
	sqlite3_stmt *st = NULL;
	if (db_begin_write(db) < 0)
		return -1;
	int rc = sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO mkeys VALUES (?,?)", -1, &st, NULL) == SQLITE_OK
			 ? 0 : db_set_err(db, "storing M_Keys");
	for (size_t i = 0; i < n && rc == 0; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)keys[i].guid);
		sqlite3_bind_int64(st, 2, (int64_t)keys[i].mkey);
		rc = db_step_done(db, st, "storing M_Keys");
	}
	sqlite3_finalize(st);
	if (rc == 0 && db_exec(db, "COMMIT") == 0)
		return 0;
	db_rollback(db);
	return -1;
}
