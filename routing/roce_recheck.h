/*
 * roce_recheck.h - a RoCE plan proven again from its files alone (as
 * topology/roce_planfile.h reads them), so a plan edited by hand or by
 * another tool can be judged before it is deployed.
 */
#ifndef ROUTING_ROCE_RECHECK_H
#define ROUTING_ROCE_RECHECK_H

#include "topology/roce_planfile.h"

struct roce_recheck {
	bool safe;
	char problem[PLANFILE_ERR_LEN];	/* not safe: the first problem, "file:line: what" */
	size_t switches, links, prefixes;
	size_t channels, dependencies;	/* the CBD graph of the lossless traffic */
};

/*
 * Every prefix connected at exactly one switch; every next hop a link to
 * the neighbour it names; the routes, one destination per prefix, free of
 * loops, dead ends and cyclic buffer dependencies (routing/ecmp.c); PFC on
 * exactly the lossless priorities with enough headroom (routing/pfc.c).
 * 0 with the verdict in r, or -1 when out of memory.
 */
int roce_recheck(const struct roce_planfiles *pf, struct roce_recheck *r);

#endif
