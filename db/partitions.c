/*
 * DOC: stored partitions
 *
 * The partitions a sweep programmed replace the stored ones in that
 * sweep's transaction: one row per partition, one per (partition, port)
 * membership, so fabricctl lists what the ports hold, not what the
 * configuration file says now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

/* Whether a and b list the same partitions and members, in the same order. */
static bool same_partitions(const struct db_partitions *a, const struct db_partitions *b)
{
	if (a->np != b->np || a->nm != b->nm)
		return false;
	for (size_t i = 0; i < a->np; i++)
		if (a->p[i].pkey != b->p[i].pkey || strcmp(a->p[i].name, b->p[i].name) != 0)
			return false;
	for (size_t i = 0; i < a->nm; i++) {
		const struct db_pkey_member *x = &a->m[i], *y = &b->m[i];
		if (x->pkey != y->pkey || x->guid != y->guid || x->port != y->port || x->full != y->full)
			return false;
	}
	return true;
}

int db_save_partitions(struct db *db, const struct db_partitions *parts, const struct db_partitions *held)
{
	sqlite3_stmt *ins_p = NULL, *ins_m = NULL;
	int rc = -1;
	if (held && same_partitions(parts, held))	/* every sweep stores them: mostly as they were */
		return 0;
	if (db_exec(db, "DELETE FROM pkey_members; DELETE FROM partitions;") < 0)
		return -1;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO partitions VALUES (?,?)", -1, &ins_p, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO pkey_members VALUES (?,?,?,?)", -1, &ins_m, NULL) !=
		    SQLITE_OK) {
		db_set_err(db, "storing partitions");
		goto done;
	}
	for (size_t i = 0; i < parts->np; i++) {
		sqlite3_bind_int(ins_p, 1, parts->p[i].pkey);
		sqlite3_bind_text(ins_p, 2, parts->p[i].name, -1, SQLITE_STATIC);
		if (db_step_done(db, ins_p, "storing partitions") < 0)
			goto done;
	}
	for (size_t i = 0; i < parts->nm; i++) {
		const struct db_pkey_member *m = &parts->m[i];
		sqlite3_bind_int(ins_m, 1, m->pkey);
		sqlite3_bind_int64(ins_m, 2, (int64_t)m->guid);
		sqlite3_bind_int(ins_m, 3, m->port);
		sqlite3_bind_int(ins_m, 4, m->full);
		if (db_step_done(db, ins_m, "storing partition members") < 0)
			goto done;
	}
	rc = 0;
done:
	sqlite3_finalize(ins_p);
	sqlite3_finalize(ins_m);
	return rc;
}

int db_load_partitions(struct db *db, struct db_partition **p, size_t *np, struct db_pkey_member **m,
		       size_t *nm)
{
	sqlite3_stmt *st = NULL;
	*p = NULL;
	*m = NULL;
	*np = *nm = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT pkey, name FROM partitions ORDER BY pkey", -1, &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading partitions");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_partition *more = realloc(*p, (*np + 1) * sizeof(*more));
		if (!more)
			goto fail;
		*p = more;
		more[*np].pkey = (uint16_t)sqlite3_column_int(st, 0);
		snprintf(more[*np].name, sizeof(more[*np].name), "%s", (const char *)sqlite3_column_text(st, 1));
		++*np;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db->h, "SELECT pkey, guid, port, full FROM pkey_members ORDER BY pkey, guid, port", -1,
			       &st, NULL) != SQLITE_OK)
		return db_set_err(db, "reading partition members");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_pkey_member *more = realloc(*m, (*nm + 1) * sizeof(*more));
		if (!more)
			goto fail;
		*m = more;
		more[*nm] = (struct db_pkey_member){ (uint16_t)sqlite3_column_int(st, 0),
						     (uint64_t)sqlite3_column_int64(st, 1),
						     (uint8_t)sqlite3_column_int(st, 2), sqlite3_column_int(st, 3) != 0 };
		++*nm;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	free(*p);
	free(*m);
	*p = NULL;
	*m = NULL;
	snprintf(db->err, sizeof(db->err), "reading partitions: out of memory");
	return -1;
}
