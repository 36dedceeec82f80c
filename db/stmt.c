/*
 * DOC: statement helpers
 *
 * What every file of db/ uses to run SQL and report errors: the last
 * error's text, a statement run without results, a write transaction
 * begun on the file that was opened, and rolled back. Kept apart from
 * db.c so that the files db.c calls (partitions, M_Keys) need nothing
 * back from it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "db/internal.h"

int db_set_err(struct db *db, const char *what)
{
	snprintf(db->err, sizeof(db->err), "%s: %s", what, sqlite3_errmsg(db->h));
	return -1;
}

const char *db_last_error(struct db *db)
{
	return db->err;
}

int db_exec(struct db *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(db->err, sizeof(db->err), "%s", msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_step_done(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_set_err(db, what);
}

void db_rollback(struct db *db)
{
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);	/* no message asked for: db->err stays */
}

int db_begin_write(struct db *db)
{
	if (db->tables_in) {	/* a sweep's store is under way in this handle's open transaction */
		snprintf(db->err, sizeof(db->err), "busy: a sweep's store is under way");
		return -1;
	}
	struct stat now;
	bool gone = stat(db->path, &now) < 0;
	if (gone || now.st_dev != db->dev || now.st_ino != db->ino) {
		snprintf(db->err, sizeof(db->err), "%.300s was %s since it was opened: not written (restart fabricd "
			 "to use the file now there)", db->path, gone ? "deleted" : "replaced");
		return -1;
	}
	return db_exec(db, "BEGIN IMMEDIATE");
}
