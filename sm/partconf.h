/*
 * partconf.h - OpenSM's partitions.conf, read into fabricd's partitions,
 * so a site moving from OpenSM keeps its partition file.
 */
#ifndef SM_PARTCONF_H
#define SM_PARTCONF_H

#include "sm/partition.h"

#define PARTCONF_ERR_LEN 600

/* Reads path into ps; 0, or -1 with "path:line: what" in err. */
int partconf_load(const char *path, struct partitions *ps, char err[PARTCONF_ERR_LEN]);

#endif
