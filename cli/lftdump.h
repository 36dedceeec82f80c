/*
 * lftdump.h - reading the forwarding tables that dump_lfts prints, so any
 * SM's routing can be judged next to fabricd's.
 */
#ifndef CLI_LFTDUMP_H
#define CLI_LFTDUMP_H

#include <stddef.h>
#include "routing/routing.h"

/*
 * Reads dump_lfts output into t, for the switches of f (found by GUID).
 * LIDs a dump leaves out stay LFT_NO_PATH. Returns 0, or -1 with
 * "file:line: what" in err.
 */
int lftdump_read(const char *path, const struct fabric *f, struct routing_tables *t, char *err, size_t len);
/*
 * The same for a dump taken before a change to f: switches no longer in f
 * and LIDs past like's top are left out (nothing reaches those tables, no
 * host has those LIDs now); t is sized like like. 0, or -1 with err.
 */
int lftdump_read_earlier(const char *path, const struct fabric *f, const struct routing_tables *like,
			 struct routing_tables *t, char *err, size_t len);

#endif
