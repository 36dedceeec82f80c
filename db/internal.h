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
	bool tables_in;		/* db_sweep_tables wrote the next sweep's tables: its transaction is open */
};

/*
 * BEGIN IMMEDIATE, once the path still names the file that was opened: a
 * file replaced or deleted under fabricd is not written (its writes would
 * go to an unlinked inode and be lost). -1 with the error recorded.
 */
int db_begin_write(struct db *db);
/* Rolls back the open transaction; the error that made the caller give up stays the last one. */
void db_rollback(struct db *db);

/* Records "what: SQLite's message" as the last error; returns -1. */
int db_set_err(struct db *db, const char *what);
/* Runs SQL without results; -1 with the error recorded. */
int db_exec(struct db *db, const char *sql);
/* Steps a statement that returns no rows and resets it; -1 with "what" on failure. */
int db_step_done(struct db *db, sqlite3_stmt *st, const char *what);

/*
 * Stores the fabric and its tables (t NULL: none) inside the caller's
 * transaction: every row, or (held not NULL: what the database holds)
 * only the rows that differ from held's. held_tables_in: the tables of
 * the switches held has, and the VL layers, are in already
 * (db_store_held_tables).
 */
int db_store_fabric(struct db *db, const struct fabric *f, const struct routing_tables *t,
		    const struct db_stored *held, bool held_tables_in);
/* Whether t's tables can be stored apart, before the rest, as changes to held's (the same LID range). */
bool db_tables_apart(const struct routing_tables *t, const struct db_stored *held);
/*
 * The part of db_store_fabric that needs no node row written first: the
 * tables of the switches held's fabric has, where they differ, and the VL
 * layers (db_tables_apart must hold). Inside the caller's transaction.
 */
int db_store_held_tables(struct db *db, const struct fabric *f, const struct routing_tables *t,
			 const struct db_stored *held);

/* Replaces the stored partitions (inside the caller's transaction) unless they are held's (NULL: unknown). */
int db_save_partitions(struct db *db, const struct db_partitions *parts, const struct db_partitions *held);

#endif
