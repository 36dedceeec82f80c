/*
 * slfile.h - "LID SL" files (fabricctl export sl, or the SLs the SA's
 * PathRecords give), the SLs fabricctl check judges tables with.
 */
#ifndef CLI_SLFILE_H
#define CLI_SLFILE_H

#include <stddef.h>

#include "routing/routing.h"

/* Reads path's "LID SL" lines into t->sl (raising t->layers to fit); -1 with the error in err. */
int slfile_read(const char *path, struct routing_tables *t, char *err, size_t len);

#endif
