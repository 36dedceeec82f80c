/*
 * schema.h - the versioned schema (internal to db/).
 */
#ifndef DB_SCHEMA_H
#define DB_SCHEMA_H

#include <stddef.h>
#include <sqlite3.h>

int schema_latest(void);
/* Brings h to the latest version; -1 with a reason in err. */
int schema_migrate(sqlite3 *h, char *err, size_t errlen);

#endif
