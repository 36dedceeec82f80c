/*
 * roce_recheck.h - a RoCE plan proven again from its files alone (as
 * topology/roce_planfile.h reads them), so a plan edited by hand or by
 * another tool can be judged before it is deployed.
 */
#ifndef ROUTING_ROCE_RECHECK_H
#define ROUTING_ROCE_RECHECK_H

#include "routing/ecmp.h"
#include "topology/roce_planfile.h"

struct roce_recheck {
	bool safe;
	char problem[PLANFILE_ERR_LEN];	/* not safe: the first problem, "file:line: what" */
	size_t switches, links, prefixes;
	size_t channels, dependencies;	/* the CBD graph of the lossless traffic */
};

/* A plan's destinations: each prefix, the one switch it is connected at, and whether hosts are behind it. */
struct plan_prefixes {
	const char **name;
	size_t *owner;
	bool *host;
	size_t n;
};

/* Finds them; 0, or -1 with "file:line: what" in err (left empty when out of memory). */
int roce_plan_prefixes(const struct roce_planfiles *pf, struct plan_prefixes *pp, char err[PLANFILE_ERR_LEN]);
void roce_plan_prefixes_free(struct plan_prefixes *pp);
/*
 * The plan's routes as tables over t->f (roce_model of pf), destination d
 * being prefix d of pp; t from ecmp_alloc. 0, or -1 with the error in err
 * (left empty when out of memory).
 */
int roce_plan_tables(const struct roce_planfiles *pf, const struct plan_prefixes *pp, struct ecmp_tables *t,
		     char err[PLANFILE_ERR_LEN]);

/* Per switch: hosts send from it (host ports, or host prefixes connected); NULL when out of memory. */
bool *roce_plan_sources(const struct roce_planfiles *pf, const struct plan_prefixes *pp);
/* What er found wrong in words: its first problem, or the CBD cycle as "leaf1:swp49 -> ...". */
void roce_plan_problem(const struct roce_fabric *rf, const struct ecmp_report *er, char *buf, size_t len);

/*
 * Every prefix connected at exactly one switch; every next hop a link to
 * the neighbour it names; the routes, one destination per prefix, free of
 * loops, dead ends and cyclic buffer dependencies (routing/ecmp.c); PFC on
 * exactly the lossless priorities with enough headroom (routing/pfc.c).
 * 0 with the verdict in r, or -1 when out of memory.
 */
int roce_recheck(const struct roce_planfiles *pf, struct roce_recheck *r);

#endif
