/*
 * sl2vldump.h - reading the SL-to-VL tables smpquery prints, so the
 * deadlock proof can use the VLs the switches really hold.
 */
#ifndef CLI_SL2VLDUMP_H
#define CLI_SL2VLDUMP_H

#include <stddef.h>
#include "topology/sl2vl.h"

/*
 * Reads the output of any number of "smpquery sl2vl LID [PORT]" runs
 * into m (initialised here for f). Tables of CA ports are read and left
 * out (a CA's output channel cannot close a cycle). Returns 0, or -1 with
 * "file:line: what" in err (m freed).
 */
int sl2vldump_read(const char *path, const struct fabric *f, struct sl2vl_tables *m, char *err, size_t len);

#endif
