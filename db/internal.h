/*
 * internal.h - what the database's source files share: the handle and
 * the statement helpers. Not for use outside db/.
 */
#ifndef DB_INTERNAL_H
#define DB_INTERNAL_H

#include <sqlite3.h>
#include <sys/types.h>

#include "db/db.h"

/* How long a write waits for another process's lock (fabricctl reading). */
#define DB_BUSY_TIMEOUT_MS 5000

struct db {
	sqlite3 *h;
	char err[DB_ERR_LEN];
	char path[4096];
	dev_t dev;		/* the file opened, to notice it replaced or removed */
	ino_t ino;
	struct db_retention keep;
};

/*
 * BEGIN IMMEDIATE, once the path still names the file that was opened: a
 * file replaced or deleted under fabricd is not written (its writes would
 * go to an unlinked inode and be lost). -1 with the error recorded.
 */
int db_begin_write(struct db *db);

/* Records "what: SQLite's message" as the last error; returns -1. */
int db_set_err(struct db *db, const char *what);
/* Runs SQL without results; -1 with the error recorded. */
int db_exec(struct db *db, const char *sql);
/* Steps a statement that returns no rows and resets it; -1 with "what" on failure. */
int db_step_done(struct db *db, sqlite3_stmt *st, const char *what);

/*
 * Stores the fabric and its tables (t NULL: none) inside the caller's
 * transaction: every row, or (held not NULL: what the database holds)
 * only the rows that differ from held's.
 */
int db_store_fabric(struct db *db, const struct fabric *f, const struct routing_tables *t,
		    const struct db_stored *held);

/* Replaces the stored partitions (inside the caller's transaction). */
int db_save_partitions(struct db *db, const struct db_partitions *parts);

#endif
