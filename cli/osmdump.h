/*
 * osmdump.h - the fabric and its tables in the files OpenSM dumps (with
 * -D 0x41) and ibdmchk (package ibutils) verifies: opensm-subnet.lst,
 * opensm.fdbs, and ibdmchk's path-SL file. With them an outside
 * credit-loop checker judges fabricd's tables exactly as it judges
 * OpenSM's.
 */
#ifndef CLI_OSMDUMP_H
#define CLI_OSMDUMP_H

#include <stdio.h>
#include "routing/routing.h"

/*
 * f's end ports must be indexed (fabric_index_end_ports): the writers look
 * up the port of every LID.
 */

/* One line per cabled port, both ends described; 0, or -1 on a write error. */
int osmdump_subnet(FILE *out, const struct fabric *f);
/*
 * Each switch's LFT as "LID : Port : Hops : Optimal" rows; hops are walked
 * through the tables (255 and "no" when the walk does not arrive). 0, -1 on
 * a write error or out of memory.
 */
int osmdump_fdbs(FILE *out, const struct fabric *f, const struct routing_tables *t);
/* "0xSRC_NODE_GUID DLID SL" for every cabled CA port and every other LID in use; 0, or -1 on a write error. */
int osmdump_path_sl(FILE *out, const struct fabric *f, const struct routing_tables *t);

#endif
