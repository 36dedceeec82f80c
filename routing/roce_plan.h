/*
 * roce_plan.h - the RoCE planner: up/down ECMP tables for an Ethernet
 * fabric, proven loop-free and free of cyclic buffer dependencies as
 * designed and after each single link failure.
 */
#ifndef ROUTING_ROCE_PLAN_H
#define ROUTING_ROCE_PLAN_H

#include "routing/ecmp.h"
#include "routing/roce_asn.h"
#include "topology/roce.h"

struct roce_plan_options {
	size_t max_failures;	/* single link (and switch) failures to analyse; 0: every link (and switch) */
	bool loopbacks;		/* route to every switch's loopback too, not only to host prefixes */
	bool bgp;		/* the switches run eBGP (routing/roce_asn.c must find the ASNs safe) */
};

/* One state of the fabric: as designed, with one link down, or with one switch down. */
struct roce_scenario {
	size_t failed_link;	/* index into the fabric's links; ROCE_NONE as designed */
	size_t failed_switch;	/* index of the switch whose every link is down; ROCE_NONE otherwise */
	bool center;		/* ranked from the centre: by tiers some leaf had no up/down path */
	struct ecmp_report check;	/* the planned tables */
	struct ecmp_report shortest;	/* plain shortest-path ECMP on the same links */
	size_t cut_pairs;	/* (source, destination switch) pairs no path joins any more */
	/* with eBGP: what the path-vector simulation converges to, checked like the plan */
	struct ecmp_report bgp;
	size_t bgp_unsettled;	/* destinations whose simulation did not settle */
	size_t bgp_differs;	/* switches whose BGP next hops differ from the planned tables */
	size_t changed;		/* switches whose tables differ from the design's */
};

struct roce_plan {
	const struct roce_fabric *rf;
	struct fabric f;	/* node i is switch i; port p + 1 is the switch's port p */
	bool loopbacks;		/* the tables route to loopbacks too */
	bool bgp;		/* the plan is for eBGP: the ASN plan must be safe */
	struct roce_asn_plan asn;	/* the switches' ASNs, assigned or checked */
	bool *source;		/* per switch: hosts send from it (host ports or prefixes) */
	bool *routed;		/* per switch: a destination (prefixes, or a loopback when routed) */
	bool *lossless;		/* per destination of the tables: has host prefixes */
	struct ecmp_tables tables;	/* the design's tables */
	struct roce_scenario design;
	struct roce_scenario *failures;	/* single link failures */
	size_t nfailures;
	struct roce_scenario *switch_failures;	/* single switch failures (every link of one switch down) */
	size_t nswitch_failures;
};

/* The fabric model of rf: node i is switch i, port p + 1 its port p; -1 on allocation failure. */
int roce_model(const struct roce_fabric *rf, struct fabric *f);
/* Plans rf into p; 0, or -1 on allocation failure. The result may be unsafe: see roce_scenario_safe. */
int roce_plan(const struct roce_fabric *rf, const struct roce_plan_options *o, struct roce_plan *p);
void roce_plan_free(struct roce_plan *p);
/* True when eBGP is planned and every switch has an ASN: its convergence is simulated, even for unsafe ASNs. */
bool roce_bgp_simulated(const struct roce_plan *p);
/* True when eBGP is not planned, or what it converges to in s is safe. */
bool roce_bgp_safe(const struct roce_plan *p, const struct roce_scenario *s);
/* True when r found no loop, no CBD, and no dead ends beyond the cut_pairs no path could join. */
bool roce_report_safe(const struct ecmp_report *r, size_t cut_pairs);
/* The same for the planned tables of s. */
bool roce_scenario_safe(const struct roce_scenario *s);
/* "leaf1:swp49 -> spine1:swp2 -> ..." for a CBD cycle of p's fabric. */
void roce_cycle_text(const struct roce_plan *p, const struct cdg_report *r, char *buf, size_t len);
/* "leaf1:swp49 - spine1:swp1" for link i. */
void roce_link_text(const struct roce_fabric *rf, size_t i, char *buf, size_t len);

#endif
