/*
 * roce_planfile.h - a RoCE plan read back from its files: the per-switch
 * JSON files `fabricctl plan roce` writes (DIR/<switch>.json), as the RoCE
 * fabric model plus what each file says beyond it (routes, next-hop
 * groups, per-port PFC). routing/roce_recheck.h proves such a plan again.
 */
#ifndef TOPOLOGY_ROCE_PLANFILE_H
#define TOPOLOGY_ROCE_PLANFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "topology/roce.h"

#define PLAN_FORMAT "fabricd-roce-plan 1"
#define PLANFILE_ERR_LEN 8192	/* room for a path and names */

struct planfile_hop {
	char port[ROCE_NAME_LEN], neighbour[ROCE_NAME_LEN];
};

/* An ECMP group: the next hops routes share. */
struct planfile_group {
	unsigned long long id;
	struct planfile_hop *hops;
	size_t nhops;
};

struct planfile_route {
	char prefix[ROCE_ADDR_LEN];
	bool host, connected;
	long long group;	/* -1: none */
	unsigned line;
};

/* What a switch file says beyond the fabric model. */
struct planfile_switch {
	char file[4096];
	struct planfile_route *routes;
	size_t nroutes;
	struct planfile_group *groups;
	size_t ngroups;
	char (*peer)[ROCE_NAME_LEN], (*peer_port)[ROCE_NAME_LEN];	/* per port, "" for none */
	unsigned *pfc_mask, *headroom;	/* per port */
	unsigned lossless_mask;
};

struct roce_planfiles {
	struct roce_fabric rf;		/* switches in file name order, linked */
	struct planfile_switch *x;	/* per switch */
};

/*
 * Reads every DIR/NAME.json in name order into pf, and links the ports whose
 * peers name each other. 0, or -1 with "file:line: what" (or the link that
 * is not named back) in err; pf is freed then.
 */
int planfiles_load(const char *dir, struct roce_planfiles *pf, char err[PLANFILE_ERR_LEN]);
void planfiles_free(struct roce_planfiles *pf);

#endif
