/*
 * DOC: re-proving a RoCE plan from its files
 *
 * - each prefix must be connected at exactly one switch;
 * - every next hop must leave on a fabric port towards the neighbour it
 *   names;
 * - the routes, one destination per prefix, must pass ecmp_check: no
 *   loop, no dead end from any switch with hosts, no cyclic buffer
 *   dependency for the host prefixes (the lossless traffic);
 * - PFC must be on exactly the lossless priorities, with at least the
 *   headroom the port's speed, cable and the MTU need (routing/pfc.c).
 *
 * The verdict is a report; nothing here prints.
 */
#include "routing/roce_recheck.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/ecmp.h"
#include "routing/pfc.h"
#include "routing/roce_plan.h"

struct recheck {
	const struct roce_planfiles *pf;
	char *err;
};

static int check_pfc(struct recheck *c)
{
	const struct roce_fabric *rf = &c->pf->rf;
	for (size_t s = 0; s < rf->nsw; s++) {
		const struct planfile_switch *x = &c->pf->x[s];
		if (x->lossless_mask != c->pf->x[0].lossless_mask || !x->lossless_mask) {
			snprintf(c->err, PLANFILE_ERR_LEN, "%s: the lossless priorities differ from %s's (or are missing)", x->file,
				 rf->sw[0].name);
			return -1;
		}
		for (size_t p = 0; p < rf->sw[s].nports; p++) {
			const struct roce_port *pt = &rf->sw[s].ports[p];
			unsigned need = pfc_headroom_bytes(pt->gbps, pt->cable_m, rf->mtu);
			if (x->pfc_mask[p] != x->lossless_mask) {
				snprintf(c->err, PLANFILE_ERR_LEN, "%s: port %s has PFC on other priorities than the lossless ones",
					 x->file, pt->name);
				return -1;
			}
			if (x->headroom[p] < need) {
				snprintf(c->err, PLANFILE_ERR_LEN, "%s: port %s has %u bytes of PFC headroom, %u needed", x->file,
					 pt->name, x->headroom[p], need);
				return -1;
			}
		}
	}
	return 0;
}

/* One destination per prefix: where it is connected. */
static int find_prefixes(struct recheck *c, struct plan_prefixes *pp)
{
	const struct roce_fabric *rf = &c->pf->rf;
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t k = 0; k < c->pf->x[s].nroutes; k++) {
			const struct planfile_route *rt = &c->pf->x[s].routes[k];
			if (!rt->connected)
				continue;
			for (size_t i = 0; i < pp->n; i++)
				if (strcmp(pp->name[i], rt->prefix) == 0) {
					snprintf(c->err, PLANFILE_ERR_LEN, "%s:%u: %s is connected at both %s and %s", c->pf->x[s].file,
						 rt->line, rt->prefix, rf->sw[pp->owner[i]].name, rf->sw[s].name);
					return -1;
				}
			if (roce_grow((void **)&pp->name, pp->n, sizeof(*pp->name)) < 0 ||
			    roce_grow((void **)&pp->owner, pp->n, sizeof(*pp->owner)) < 0 ||
			    roce_grow((void **)&pp->host, pp->n, sizeof(*pp->host)) < 0)
				return -1;
			pp->name[pp->n] = rt->prefix;
			pp->owner[pp->n] = s;
			pp->host[pp->n] = rt->host;
			pp->n++;
		}
	return 0;
}

int roce_plan_prefixes(const struct roce_planfiles *pf, struct plan_prefixes *pp, char err[PLANFILE_ERR_LEN])
{
	struct recheck c = { .pf = pf, .err = err };
	memset(pp, 0, sizeof(*pp));
	err[0] = '\0';
	if (find_prefixes(&c, pp) < 0) {
		roce_plan_prefixes_free(pp);
		return -1;
	}
	return 0;
}

void roce_plan_prefixes_free(struct plan_prefixes *pp)
{
	free(pp->name);
	free(pp->owner);
	free(pp->host);
	memset(pp, 0, sizeof(*pp));
}

/* Prefix index of name, or SIZE_MAX. */
static size_t prefix_index(const char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return SIZE_MAX;
}

/* The group a route uses, or NULL (with the error set) when its switch has none by that id. */
static const struct planfile_group *route_group(struct recheck *c, size_t s, const struct planfile_route *rt)
{
	const struct planfile_switch *x = &c->pf->x[s];
	for (size_t g = 0; g < x->ngroups && rt->group >= 0; g++)
		if (x->groups[g].id == (unsigned long long)rt->group)
			return &x->groups[g];
	if (rt->group >= 0)
		snprintf(c->err, PLANFILE_ERR_LEN, "%s:%u: route to %s uses group %lld, which is not defined", x->file, rt->line,
			 rt->prefix, rt->group);
	return NULL;
}

/* Checks that next hop h of switch s is a link to the neighbour it names; its port number, or 0. */
static uint8_t hop_port(struct recheck *c, size_t s, const struct planfile_route *rt, const struct planfile_hop *h)
{
	const struct roce_switch *sw = &c->pf->rf.sw[s];
	size_t p = roce_find_port(sw, h->port);
	const struct roce_port *pt = p == ROCE_NONE ? NULL : &sw->ports[p];
	if (!pt || pt->peer_sw == ROCE_NONE || strcmp(c->pf->rf.sw[pt->peer_sw].name, h->neighbour) != 0) {
		snprintf(c->err, PLANFILE_ERR_LEN, "%s:%u: next hop %s (%s) for %s is not a link to that neighbour", c->pf->x[s].file,
			 rt->line, h->port, h->neighbour, rt->prefix);
		return 0;
	}
	return (uint8_t)(p + 1);
}

int roce_plan_tables(const struct roce_planfiles *pf, const struct plan_prefixes *pp, struct ecmp_tables *t,
		     char err[PLANFILE_ERR_LEN])
{
	struct recheck ctx = { .pf = pf, .err = err }, *c = &ctx;
	const struct roce_fabric *rf = &pf->rf;
	size_t hops_total = 0, n = pp->n;
	err[0] = '\0';
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t g = 0; g < pf->x[s].ngroups; g++)
			hops_total += pf->x[s].groups[g].nhops;
	for (size_t d = 0; d < n; d++) {
		t->start[d] = calloc(rf->nsw + 1, sizeof(**t->start));
		t->port[d] = malloc(hops_total + 1);
		if (!t->start[d] || !t->port[d])
			return -1;
		t->dst_node[d] = pp->owner[d];
	}
	t->dst_label = pp->name;
	/* hops per (prefix, switch) first, then their places: a switch's routes come in any order */
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t k = 0; k < pf->x[s].nroutes; k++) {
			const struct planfile_route *rt = &pf->x[s].routes[k];
			size_t d = prefix_index(pp->name, n, rt->prefix);
			const struct planfile_group *g = route_group(c, s, rt);
			if (rt->group >= 0 && !g)
				return -1;
			if (d == SIZE_MAX) {
				snprintf(err, PLANFILE_ERR_LEN, "%s:%u: %s is connected nowhere", pf->x[s].file, rt->line, rt->prefix);
				return -1;
			}
			if (t->start[d][s + 1]) {
				snprintf(err, PLANFILE_ERR_LEN, "%s:%u: a second route for %s", pf->x[s].file, rt->line, rt->prefix);
				return -1;
			}
			t->start[d][s + 1] = (uint32_t)(g ? g->nhops : 0) + 1;	/* +1: seen, even with no hops */
		}
	for (size_t d = 0; d < n; d++)
		for (size_t s = 0; s < rf->nsw; s++)
			t->start[d][s + 1] = t->start[d][s] + (t->start[d][s + 1] ? t->start[d][s + 1] - 1 : 0);
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t k = 0; k < pf->x[s].nroutes; k++) {
			const struct planfile_route *rt = &pf->x[s].routes[k];
			const struct planfile_group *g = route_group(c, s, rt);
			size_t d = prefix_index(pp->name, n, rt->prefix);
			for (size_t h = 0; g && h < g->nhops; h++) {
				uint8_t port = hop_port(c, s, rt, &g->hops[h]);
				if (!port)
					return -1;
				t->port[d][t->start[d][s] + h] = port;
			}
		}
	return 0;
}

int roce_recheck(const struct roce_planfiles *pf, struct roce_recheck *r)
{
	struct recheck c = { .pf = pf, .err = r->problem };
	struct fabric f;
	struct ecmp_tables t = { 0 };
	struct ecmp_report er;
	struct plan_prefixes pp = { 0 };
	bool *source = NULL;
	int rc = -1;
	memset(r, 0, sizeof(*r));
	r->switches = pf->rf.nsw;
	r->links = pf->rf.nlinks;
	fabric_init(&f);
	if (check_pfc(&c) < 0 || roce_plan_prefixes(pf, &pp, r->problem) < 0) {
		rc = r->problem[0] ? 0 : -1;
		goto done;
	}
	r->prefixes = pp.n;
	if (pp.n == 0) {	/* found by fuzz_plan: nothing to prove, and no table to fill */
		snprintf(r->problem, sizeof(r->problem), "the plan announces no prefix: nothing is routed");
		rc = 0;
		goto done;
	}
	if (roce_model(&pf->rf, &f) < 0 || ecmp_alloc(&t, &f, pp.n) < 0 || !(source = roce_plan_sources(pf, &pp)) ||
	    roce_plan_tables(pf, &pp, &t, r->problem) < 0) {
		rc = r->problem[0] ? 0 : -1;
		goto done;
	}
	if (ecmp_check(&t, source, pp.host, &er) < 0)
		goto done;
	rc = 0;
	r->channels = er.cbd.channels;
	r->dependencies = er.cbd.dependencies;
	if (!ecmp_report_ok(&er)) {
		roce_plan_problem(&pf->rf, &er, r->problem, sizeof(r->problem));
		goto done;
	}
	r->safe = true;
done:
	ecmp_free(&t);
	fabric_free(&f);
	roce_plan_prefixes_free(&pp);
	free(source);
	return rc;
}

bool *roce_plan_sources(const struct roce_planfiles *pf, const struct plan_prefixes *pp)
{
	bool *source = calloc(pf->rf.nsw + 1, sizeof(*source));
	for (size_t d = 0; d < pp->n && source; d++)
		source[pp->owner[d]] |= pp->host[d];
	for (size_t s = 0; s < pf->rf.nsw && source; s++)
		for (size_t p = 0; p < pf->rf.sw[s].nports; p++)
			source[s] |= pf->rf.sw[s].ports[p].host;
	return source;
}

void roce_plan_problem(const struct roce_fabric *rf, const struct ecmp_report *er, char *buf, size_t len)
{
	if (er->first_problem[0]) {
		snprintf(buf, len, "%s", er->first_problem);
	} else {
		char cycle[900];
		struct roce_plan view = { .rf = rf };
		roce_cycle_text(&view, &er->cbd, cycle, sizeof(cycle));
		snprintf(buf, len, "cyclic buffer dependency %s", cycle);
	}
}
