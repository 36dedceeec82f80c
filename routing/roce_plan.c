/*
 * DOC: the RoCE planner
 *
 * The Ethernet fabric becomes a fabric model of switches only (host
 * prefixes are destinations at their switch), ranked by tier: a hop to a
 * higher (tier, file order) switch is "up". The tables are the up/down
 * ECMP of routing/updown.c: towards every switch, all next hops on a
 * shortest legal up*down* path. Such paths cannot close a buffer
 * dependency cycle, and ecmp_check proves it on the tables themselves
 * (with loop-freedom and reachability), so the proof does not rest on
 * the theorem.
 *
 * If the tiers leave some source without a legal path (odd designs, or
 * after a failure), the fabric is ranked again from its centre, classic
 * up/down, which reaches every pair that any path joins.
 *
 * Each scenario is also routed by plain shortest-path ECMP, what an IGP
 * or unconstrained BGP would install, and checked the same way: that is
 * how the report names the cycle an unsafe design would have. With eBGP,
 * the scenario is also routed as the switches' BGP converges with the
 * plan's ASNs (ecmp_bgp: shortest AS path, loop rejection, multipath) and
 * checked the same way: those are the tables a failure leaves installed.
 */
#include "routing/roce_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct planner {
	struct roce_plan *p;
	struct swindex x;
	struct rank tiers;
	size_t *component;	/* per switch: connected component, for cut pairs */
	size_t *queue;
};

int roce_model(const struct roce_fabric *rf, struct fabric *f)
{
	fabric_init(f);
	for (size_t i = 0; i < rf->nsw; i++)
		if (!fabric_add_node(f, NODE_SWITCH, i + 1, (uint8_t)rf->sw[i].nports, rf->sw[i].name))
			return -1;
	for (size_t i = 0; i < rf->nlinks; i++) {
		const struct roce_link *l = &rf->links[i];
		if (fabric_link(f->nodes[l->a], (uint8_t)(l->pa + 1), f->nodes[l->b], (uint8_t)(l->pb + 1)) < 0)
			return -1;
	}
	return 0;
}

static int build_fabric(struct roce_plan *p)
{
	const struct roce_fabric *rf = p->rf;
	if (roce_model(rf, &p->f) < 0)
		return -1;
	p->source = calloc(rf->nsw + 1, sizeof(*p->source));
	p->routed = calloc(rf->nsw + 1, sizeof(*p->routed));
	p->lossless = calloc(rf->nsw + 1, sizeof(*p->lossless));
	if (!p->source || !p->routed || !p->lossless)
		return -1;
	for (size_t i = 0, d = 0; i < rf->nsw; i++) {
		const struct roce_switch *sw = &rf->sw[i];
		p->routed[i] = sw->nprefixes > 0 || (p->loopbacks && sw->loopback[0]);
		if (p->routed[i])	/* destinations are numbered in switch order */
			p->lossless[d++] = sw->nprefixes > 0;
		p->source[i] = sw->nprefixes > 0;
		for (size_t k = 0; k < sw->nports; k++)
			p->source[i] |= sw->ports[k].host;
	}
	return 0;
}

static int rank_by_tier(struct planner *pl)
{
	struct rank *r = &pl->tiers;
	memset(r, 0, sizeof(*r));
	if (!(r->level = malloc((pl->x.nsw + 1) * sizeof(*r->level))))
		return -1;
	for (size_t s = 0; s < pl->x.nsw; s++) {
		r->level[s] = pl->p->rf->sw[s].tier;
		if (r->level[s] > r->top)
			r->top = r->level[s];
	}
	snprintf(r->why, sizeof(r->why), "by tier");
	return 0;
}

/* Pairs of a source and a destination switch that no path joins. */
static size_t cut_pairs(struct planner *pl)
{
	size_t n = pl->x.nsw, cut = 0;
	for (size_t s = 0; s < n; s++)
		pl->component[s] = SIZE_MAX;
	for (size_t root = 0; root < n; root++) {
		if (pl->component[root] != SIZE_MAX)
			continue;
		size_t head = 0, tail = 0;
		pl->component[root] = root;
		pl->queue[tail++] = root;
		while (head < tail) {
			size_t v = pl->queue[head++];
			for (unsigned port = 1; port <= pl->x.sw[v]->nports; port++) {
				size_t w = swindex_peer(&pl->x, pl->x.sw[v], port);
				if (w != SW_NONE && pl->component[w] == SIZE_MAX) {
					pl->component[w] = root;
					pl->queue[tail++] = w;
				}
			}
		}
	}
	for (size_t s = 0; s < n; s++)
		for (size_t d = 0; d < n; d++)
			cut += pl->p->source[s] && pl->p->routed[d] && s != d && pl->component[s] != pl->component[d];
	return cut;
}

/* Plans the fabric as its links are now into tables and sc. */
static int plan_scenario(struct planner *pl, struct ecmp_tables *tables, struct roce_scenario *sc)
{
	struct roce_plan *p = pl->p;
	struct ecmp_tables shortest;
	if (ecmp_updown(&p->f, &pl->x, &pl->tiers, p->routed, tables) < 0 ||
	    ecmp_check(tables, p->source, p->lossless, &sc->check) < 0)
		return -1;
	sc->cut_pairs = cut_pairs(pl);
	if (sc->check.unreachable > sc->cut_pairs) {
		struct rank center;
		struct ecmp_tables t2;
		struct ecmp_report r2;
		if (rank_from_center(&center, &pl->x) < 0)
			return -1;
		int rc = ecmp_updown(&p->f, &pl->x, &center, p->routed, &t2);
		rank_free(&center);
		if (rc < 0 || ecmp_check(&t2, p->source, p->lossless, &r2) < 0)
			return -1;
		ecmp_free(tables);
		*tables = t2;
		sc->check = r2;
		sc->center = true;
	}
	if (ecmp_shortest(&p->f, &pl->x, p->routed, &shortest) < 0)
		return -1;
	int rc = ecmp_check(&shortest, p->source, p->lossless, &sc->shortest);
	ecmp_free(&shortest);
	if (rc == 0 && roce_bgp_simulated(p)) {	/* what BGP itself installs in this state, proven the same way */
		struct ecmp_tables bgp;
		if (ecmp_bgp(&p->f, &pl->x, p->asn.asn, p->routed, &bgp, &sc->bgp_unsettled) < 0)
			return -1;
		rc = ecmp_check(&bgp, p->source, p->lossless, &sc->bgp);
		sc->bgp_differs = ecmp_changed_switches(tables, &bgp);
		ecmp_free(&bgp);
	}
	return rc;
}

static int plan_failures(struct planner *pl, const struct roce_plan_options *o)
{
	struct roce_plan *p = pl->p;
	const struct roce_fabric *rf = p->rf;
	size_t n = rf->nlinks;
	if (o->max_failures && o->max_failures < n)
		n = o->max_failures;
	if (!(p->failures = calloc(n + 1, sizeof(*p->failures))))
		return -1;
	for (size_t k = 0; k < n; k++) {
		size_t i = k * rf->nlinks / n;	/* evenly spread when sampling */
		const struct roce_link *l = &rf->links[i];
		struct roce_scenario *sc = &p->failures[p->nfailures++];
		struct ecmp_tables t;
		sc->failed_link = i;
		sc->failed_switch = ROCE_NONE;
		fabric_unlink(p->f.nodes[l->a], (uint8_t)(l->pa + 1));
		int rc = plan_scenario(pl, &t, sc);
		if (rc == 0)
			sc->changed = ecmp_changed_switches(&p->tables, &t);
		ecmp_free(&t);
		if (fabric_link(p->f.nodes[l->a], (uint8_t)(l->pa + 1), p->f.nodes[l->b], (uint8_t)(l->pb + 1)) < 0 ||
		    rc < 0)
			return -1;
	}
	return 0;
}

/* Takes every link of switch s down (up with up), as a switch that fails or returns; -1 on allocation failure. */
static int switch_links(struct roce_plan *p, size_t s, bool up)
{
	const struct roce_fabric *rf = p->rf;
	for (size_t i = 0; i < rf->nlinks; i++) {
		const struct roce_link *l = &rf->links[i];
		if (l->a != s && l->b != s)
			continue;
		if (!up)
			fabric_unlink(p->f.nodes[l->a], (uint8_t)(l->pa + 1));
		else if (fabric_link(p->f.nodes[l->a], (uint8_t)(l->pa + 1), p->f.nodes[l->b], (uint8_t)(l->pb + 1)) < 0)
			return -1;
	}
	return 0;
}

/* Each switch (or an even sample of them) down in turn: what its loss leaves, proven like a link failure. */
static int plan_switch_failures(struct planner *pl, const struct roce_plan_options *o)
{
	struct roce_plan *p = pl->p;
	size_t nsw = p->rf->nsw, n = nsw;
	if (o->max_failures && o->max_failures < n)
		n = o->max_failures;
	if (!(p->switch_failures = calloc(n + 1, sizeof(*p->switch_failures))))
		return -1;
	for (size_t k = 0; k < n; k++) {
		size_t s = k * nsw / n;
		struct roce_scenario *sc = &p->switch_failures[p->nswitch_failures++];
		struct ecmp_tables t;
		sc->failed_link = ROCE_NONE;
		sc->failed_switch = s;
		switch_links(p, s, false);
		int rc = plan_scenario(pl, &t, sc);
		if (rc == 0)
			sc->changed = ecmp_changed_switches(&p->tables, &t);
		ecmp_free(&t);
		if (switch_links(p, s, true) < 0 || rc < 0)
			return -1;
	}
	return 0;
}

int roce_plan(const struct roce_fabric *rf, const struct roce_plan_options *o, struct roce_plan *p)
{
	struct planner pl = { .p = p };
	int rc = -1;
	memset(p, 0, sizeof(*p));
	p->rf = rf;
	p->loopbacks = o->loopbacks;
	p->bgp = o->bgp;
	p->design.failed_link = ROCE_NONE;
	p->design.failed_switch = ROCE_NONE;
	if (roce_asn_plan(rf, &p->asn) < 0 || build_fabric(p) < 0 || swindex_build(&pl.x, &p->f) < 0 || rank_by_tier(&pl) < 0)
		goto done;
	pl.component = malloc((pl.x.nsw + 1) * sizeof(*pl.component));
	pl.queue = malloc((pl.x.nsw + 1) * sizeof(*pl.queue));
	if (!pl.component || !pl.queue || plan_scenario(&pl, &p->tables, &p->design) < 0)
		goto done;
	rc = plan_failures(&pl, o) < 0 || plan_switch_failures(&pl, o) < 0 ? -1 : 0;
done:
	free(pl.component);
	free(pl.queue);
	rank_free(&pl.tiers);
	swindex_free(&pl.x);
	if (rc < 0)
		roce_plan_free(p);
	return rc;
}

void roce_plan_free(struct roce_plan *p)
{
	ecmp_free(&p->tables);
	fabric_free(&p->f);
	free(p->source);
	free(p->routed);
	free(p->lossless);
	free(p->failures);
	free(p->switch_failures);
	roce_asn_free(&p->asn);
	memset(p, 0, sizeof(*p));
}

bool roce_bgp_simulated(const struct roce_plan *p)
{
	for (size_t i = 0; i < p->rf->nsw && p->bgp; i++)
		if (!p->asn.asn[i])
			return false;
	return p->bgp && p->rf->nsw > 0;
}

bool roce_report_safe(const struct ecmp_report *r, size_t cut_pairs)
{
	return !r->loops && !r->bad_hops && !r->cbd.cycle_len && r->unreachable <= cut_pairs;
}

bool roce_bgp_safe(const struct roce_plan *p, const struct roce_scenario *s)
{
	return !p->bgp || (p->asn.safe && !s->bgp_unsettled && roce_report_safe(&s->bgp, s->cut_pairs));
}

bool roce_scenario_safe(const struct roce_scenario *s)
{
	return roce_report_safe(&s->check, s->cut_pairs);
}

void roce_cycle_text(const struct roce_plan *p, const struct cdg_report *r, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i <= r->cycle_len && r->cycle_len && off < len; i++) {
		const struct cdg_channel *c = &r->cycle[i % r->cycle_len];
		const struct roce_switch *sw = &p->rf->sw[c->node->index];
		int n = snprintf(buf + off, len - off, "%s%s:%s", i ? " -> " : "", sw->name, sw->ports[c->port - 1].name);
		off = n < 0 ? len : off + (size_t)n;
	}
}

void roce_link_text(const struct roce_fabric *rf, size_t i, char *buf, size_t len)
{
	const struct roce_link *l = &rf->links[i];
	snprintf(buf, len, "%s:%s - %s:%s", rf->sw[l->a].name, rf->sw[l->a].ports[l->pa].name, rf->sw[l->b].name,
		 rf->sw[l->b].ports[l->pb].name);
}
