/*
 * namemap.h - infiniband-diags' node-name-map: one "GUID "name"" per line,
 * the names operators give their nodes (the same file ibnetdiscover,
 * iblinkinfo and OpenSM read with --node-name-map).
 */
#ifndef TOPOLOGY_NAMEMAP_H
#define TOPOLOGY_NAMEMAP_H

#include <stdint.h>
#include "topology/fabric.h"

#define NAMEMAP_ERR_LEN 512

struct namemap {
	struct namemap_entry {
		uint64_t guid;
		char name[FABRIC_DESC_LEN + 1];
	} *e;			/* sorted by GUID */
	size_t n;
};

/*
 * Reads path: lines "0x0002c90300000001 "name"" (a decimal GUID too),
 * blank lines and '#' comments. 0, or -1 with "path:line: what" in err
 * (m is then empty). A name is cleaned as a NodeDescription is.
 */
int namemap_load(const char *path, struct namemap *m, char err[NAMEMAP_ERR_LEN]);
void namemap_free(struct namemap *m);
/* The name of node GUID guid, or NULL. */
const char *namemap_name(const struct namemap *m, uint64_t guid);
/* Gives every node of f the map has its name (in place of its NodeDescription); how many. */
size_t namemap_apply(const struct namemap *m, struct fabric *f);

#endif
