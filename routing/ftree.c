/*
 * DOC: fat-tree and up/down engines
 *
 * ftree: rank switches from the leaves (or from configured roots), and if
 * the fabric has fat-tree shape route it up/down with D-mod-K port choice:
 * destination j (in host order) leaves a switch at level l on up-port
 * slot (j / stride[l]) mod n_slots, stride[l] being the product of the
 * slot counts of the levels below. Slots are numbered by the parent's
 * column (see columns()), over every parent the switch's column has, so
 * every switch agrees which upper switch carries destination j and a shift
 * permutation of a full tree puts at most one flow on each link. Parallel
 * links to one parent take alternate slots. A switch missing a link of its
 * group has a hole there; where the slot is a hole or not on a legal
 * shortest path (a degraded tree) the least loaded candidate is used, and
 * destinations then move between equally good ports until each switch's
 * ports carry CA LID counts within one of each other (updown.c).
 *
 * In a degraded tree some leaves may have no up/down path to the LID of a
 * switch whose column lost its way down. Those switch LIDs are routed by
 * plain up/down from one root instead, on VL layer 1 (SL 1), where that
 * order's own up/down rule keeps them acyclic; every CA LID stays on
 * layer 0 with its fat-tree routes. Only those LIDs are routed there, each
 * on the port the fat-tree routes give the fewest host LIDs.
 *
 * A fabric that is not a fat tree, where fat-tree up/down would leave a
 * host without a path, or that needs the second layer when only one VL
 * is available, is routed by the up/down engine instead (ranked from one
 * root), and info->note says why.
 */
#include "routing/routing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/rank.h"
#include "routing/stable.h"
#include "routing/swindex.h"
#include "routing/updown.h"

struct dmodk {
	const struct swindex *x;
	const uint64_t *column;
};

struct plan_ctx {
	struct dmodk d;
	const struct rank *r;
};

static void plan_free(struct updown_plan *p, size_t nsw)
{
	if (p->up_order)
		for (size_t s = 0; s < nsw; s++)
			free(p->up_order[s]);
	free(p->up_order);
	free(p->n_up);
	free(p->stride);
}

static bool is_up(const struct rank *r, const struct swindex *x, size_t s, unsigned port, size_t *parent)
{
	*parent = swindex_peer(x, x->sw[s], port);
	return *parent != SW_NONE && r->level[*parent] == r->level[s] + 1;
}

static size_t find_root(size_t *up, size_t s)
{
	while (up[s] != s)
		s = up[s] = up[up[s]];
	return s;
}

/*
 * Each switch's column: switches of one level that share a parent, and
 * so on transitively, form one column (a pod's leaves; the aggregation
 * switches under one set of cores), named by its lowest GUID. A missing
 * link or switch rarely splits a column, so its members keep agreeing on
 * their parents' order. Top switches have no parents: each is its own.
 */
static int columns(const struct rank *r, const struct swindex *x, uint64_t *column)
{
	size_t *up = malloc((x->nsw + 1) * sizeof(*up));
	if (!up)
		return -1;
	for (size_t s = 0; s < x->nsw; s++)
		up[s] = s;
	for (size_t u = 0; u < x->nsw; u++) {	/* join the children of each switch */
		size_t first = SW_NONE;
		for (unsigned p = 1; p <= x->sw[u]->nports; p++) {
			size_t c = swindex_peer(x, x->sw[u], p);
			if (c == SW_NONE || r->level[c] == RANK_NONE || r->level[c] + 1 != r->level[u])
				continue;
			if (first == SW_NONE)
				first = c;
			else
				up[find_root(up, c)] = find_root(up, first);
		}
	}
	for (size_t s = 0; s < x->nsw; s++)
		column[s] = UINT64_MAX;
	for (size_t s = 0; s < x->nsw; s++) {
		size_t root = find_root(up, s);
		if (x->sw[s]->guid < column[root])
			column[root] = x->sw[s]->guid;
	}
	for (size_t s = 0; s < x->nsw; s++)
		column[s] = column[find_root(up, s)];
	free(up);
	return 0;
}

/* Switch indexes ordered by (level, column): a group shares one set of parents in a full tree. */
static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct plan_ctx *c = arg;
	size_t s = *(const size_t *)a, t = *(const size_t *)b;
	if (c->r->level[s] != c->r->level[t])
		return c->r->level[s] < c->r->level[t] ? -1 : 1;
	if (c->d.column[s] != c->d.column[t])
		return c->d.column[s] < c->d.column[t] ? -1 : 1;
	return s < t ? -1 : s > t;
}

static int cmp_parent(const void *a, const void *b, void *arg)
{
	const struct dmodk *d = arg;
	size_t s = *(const size_t *)a, t = *(const size_t *)b;
	if (d->column[s] != d->column[t])
		return d->column[s] < d->column[t] ? -1 : 1;
	return d->x->sw[s]->guid < d->x->sw[t]->guid ? -1 : d->x->sw[s]->guid > d->x->sw[t]->guid;
}

/*
 * Up-port slots of one group (switches at one level under one column):
 * every parent any of them has, times the most parallel links one of them
 * has to a parent. A member's missing link leaves a hole (port 0) in its
 * slot, so the others keep the digits a full tree gives them and only the
 * hole's destinations are placed by load.
 */
static int group_slots(struct updown_plan *p, const struct plan_ctx *c, const size_t *member, size_t n,
		       size_t *parents)
{
	const struct swindex *x = c->d.x;
	size_t np = 0;
	unsigned mult = 1;
	for (size_t i = 0; i < n; i++) {
		const struct node *sw = x->sw[member[i]];
		for (unsigned port = 1; port <= sw->nports; port++) {
			size_t u, k;
			if (!is_up(c->r, x, member[i], port, &u))
				continue;
			for (k = 0; k < np && parents[k] != u; k++)
				;
			if (k == np)
				parents[np++] = u;
		}
	}
	qsort_r(parents, np, sizeof(*parents), cmp_parent, (void *)&c->d);
	for (size_t i = 0; i < n; i++) {
		const struct node *sw = x->sw[member[i]];
		for (size_t k = 0; k < np; k++) {
			unsigned links = 0;
			for (unsigned port = 1; port <= sw->nports; port++)
				links += swindex_peer(x, sw, port) == parents[k];
			if (links > mult)
				mult = links;
		}
	}
	size_t slots = np * mult;
	if (slots > FABRIC_MAX_PORTS)
		slots = FABRIC_MAX_PORTS;
	for (size_t i = 0; i < n; i++) {
		size_t s = member[i];
		const struct node *sw = x->sw[s];
		if (!(p->up_order[s] = calloc(slots + 1, 1)))
			return -1;
		p->n_up[s] = (uint8_t)slots;
		for (size_t k = 0; k < np; k++) {
			unsigned rank = 0;
			for (unsigned port = 1; port <= sw->nports; port++)
				if (swindex_peer(x, sw, port) == parents[k] && rank * np + k < slots)
					p->up_order[s][rank++ * np + k] = (uint8_t)port;
		}
	}
	return 0;
}

static int build_plan(struct updown_plan *p, const struct swindex *x, const struct rank *r)
{
	uint64_t *column = malloc((x->nsw + 1) * sizeof(*column));
	size_t *order = malloc((x->nsw + 1) * sizeof(*order)), *parents = malloc((x->nsw + 1) * sizeof(*parents));
	int rc = -1;
	memset(p, 0, sizeof(*p));
	p->x = x;
	p->r = r;
	p->up_order = calloc(x->nsw + 1, sizeof(*p->up_order));
	p->n_up = calloc(x->nsw + 1, 1);
	p->stride = calloc((size_t)r->top + 2, sizeof(*p->stride));
	if (!column || !order || !parents || !p->up_order || !p->n_up || !p->stride)
		goto done;
	if (columns(r, x, column) < 0)
		goto done;
	struct plan_ctx c = { { x, column }, r };
	for (size_t s = 0; s < x->nsw; s++)
		order[s] = s;
	qsort_r(order, x->nsw, sizeof(*order), cmp_group, &c);
	for (size_t a = 0, b; a < x->nsw; a = b) {
		for (b = a + 1; b < x->nsw && r->level[order[b]] == r->level[order[a]] &&
				column[order[b]] == column[order[a]]; b++)
			;
		if (group_slots(p, &c, order + a, b - a, parents) < 0)
			goto done;
	}
	/* stride[l]: product of the widest up-port count of each level below l */
	p->stride[0] = 1;
	for (uint32_t l = 0; l < r->top; l++) {
		unsigned widest = 1;
		for (size_t s = 0; s < x->nsw; s++)
			if (r->level[s] == l && p->n_up[s] > widest)
				widest = p->n_up[s];
		p->stride[l + 1] = p->stride[l] * widest;
		if (p->stride[l + 1] > UINT32_MAX)	/* beyond any destination number */
			p->stride[l + 1] = UINT32_MAX;
	}
	rc = 0;
done:
	free(column);
	free(order);
	free(parents);
	return rc;
}

static void note(struct route_info *info, const char *engine, unsigned levels, const char *why)
{
	snprintf(info->engine, sizeof(info->engine), "%s", engine);
	info->levels = levels;
	snprintf(info->note, sizeof(info->note), "%s", why ? why : "");
}

/*
 * Up/down from one root into out; *r is the ranking used (free it). With
 * switch_lids_only, out holds the fat-tree tables: only those switches'
 * LID columns are routed into it, each port loaded by the CA LIDs out
 * sends through it (loads, as the fat-tree fill left them), and nothing
 * is balanced.
 */
static int updown_tables(const struct fabric *f, const struct swindex *x, struct routing_tables *out,
			 struct rank *r, const bool *switch_lids_only, const uint32_t *loads)
{
	struct updown_plan plan = { .x = x, .r = r, .only = switch_lids_only, .in_place = switch_lids_only,
				    .loads = loads };
	struct updown_gaps gaps;
	if (rank_from_center(r, x) < 0)
		return -1;
	int rc = updown_fill(f, &plan, out, &gaps);
	updown_gaps_free(&gaps);	/* none: every switch is above the root's descendants */
	if (rc < 0)
		rank_free(r);
	return rc;
}

/* Up/down from one root, with why the caller fell back here (or NULL). */
static int updown_with_note(const struct fabric *f, const struct swindex *x, struct routing_tables *out,
			    struct route_info *info, const char *why)
{
	struct rank r;
	if (updown_tables(f, x, out, &r, NULL, NULL) < 0)
		return -1;
	char text[sizeof(info->note)];
	snprintf(text, sizeof(text), "%s%s%s", why ? why : "", why ? "; " : "", r.why);
	note(info, "updown", r.top + 1, text);
	rank_free(&r);
	return 0;
}

int updown_route(const struct fabric *f, struct routing_tables *out, struct route_info *info)
{
	struct swindex x;
	if (swindex_build(&x, f) < 0)
		return -1;
	int rc = updown_with_note(f, &x, out, info, NULL);
	swindex_free(&x);
	return rc;
}

/*
 * The layer of switch s's LID when some leaf reaches it only by an escape
 * (fr: the fat-tree ranking from the leaves): its level, aggregation
 * switches 1, those above them 2, ..., within max_layers - 1. Switches of
 * different levels answer hosts along escapes with turns that close cycles
 * together (a core goes down two levels before it turns up, an aggregation
 * switch one); apart, each level mostly fits its layer, and the layering
 * then offers the upper ones a place lower down (layers_assign).
 */
static unsigned escape_layer_of(const struct rank *fr, size_t s, unsigned max_layers)
{
	unsigned top = max_layers > 2 ? max_layers - 1 : 1, l = fr->level[s];
	return l < 1 ? 1 : l > top ? top : l;
}

/*
 * Moves the switch LIDs in gaps to the layers above 0, a switch level
 * each (escape_layer_of), routed up/down from one root: those switches'
 * LIDs only, each on the shortest legal port that carries the fewest CA
 * LIDs in t (the fat-tree routes). Each layer holds a part of one up/down
 * routing, acyclic by its order.
 */
static int escape_layer(const struct fabric *f, const struct swindex *x, const struct rank *fr,
			unsigned max_layers, struct routing_tables *t, const struct updown_gaps *gaps,
			const uint32_t *loads, char *why, size_t len)
{
	struct rank r;
	bool *only = calloc(x->nsw + 1, sizeof(*only)), *gap = calloc((size_t)t->max_lid + 1, sizeof(*gap));
	int rc = only && gap ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < gaps->nswitch_lids; i++)
		gap[gaps->switch_lids[i]] = true;
	for (size_t s = 0; rc == 0 && s < x->nsw; s++)
		only[s] = x->sw[s]->ports[0].lid <= t->max_lid && gap[x->sw[s]->ports[0].lid];
	if (rc == 0)
		rc = updown_tables(f, x, t, &r, only, loads);
	free(gap);
	if (rc < 0) {
		free(only);
		return -1;
	}
	unsigned top = 1;
	for (size_t s = 0; s < x->nsw; s++)
		if (only[s]) {
			uint16_t lid = x->sw[s]->ports[0].lid;
			t->sl[lid] = (uint8_t)escape_layer_of(fr, s, max_layers);
			top = t->sl[lid] > top ? t->sl[lid] : top;
		}
	t->layers = top + 1;
	char vls[32];
	snprintf(vls, sizeof(vls), top > 1 ? "VLs 1-%u, one per switch level" : "VL %u", top);
	snprintf(why, len, "%zu switch LIDs some leaf cannot reach up/down in the degraded tree: on %s, %s",
		 gaps->nswitch_lids, vls, r.why);
	free(only);
	rank_free(&r);
	return 0;
}

int ftree_route(const struct fabric *f, const uint64_t *roots, size_t nroots, unsigned max_layers,
		struct routing_tables *out, struct route_info *info)
{
	struct swindex x;
	struct rank r = { 0 };
	struct updown_plan plan = { 0 };
	struct updown_gaps gaps = { 0 };
	uint32_t *loads = NULL;	/* each port's CA LIDs after the fat-tree fill */
	char why[sizeof(info->note)];
	int rc = -1;
	if (swindex_build(&x, f) < 0)
		return -1;
	if (rank_fat_tree(&r, &x, roots, nroots) < 0)
		goto done;
	if (!r.fat_tree) {
		snprintf(why, sizeof(why), "not a fat tree: %s", r.why);
	} else {
		if (build_plan(&plan, &x, &r) < 0)
			goto done;
		plan.gaps_elsewhere = true;	/* the escape layer routes them, or these tables go */
		plan.loads_out = &loads;
		if (updown_fill(f, &plan, out, &gaps) < 0)
			goto done;
		bool escapes = gaps.nswitch_lids > 0;
		if (!gaps.ca_pairs && (!escapes || max_layers >= 2)) {
			why[0] = '\0';
			if (escapes && escape_layer(f, &x, &r, max_layers, out, &gaps, loads, why, sizeof(why)) < 0) {
				routing_tables_free(out);
				goto done;
			}
			note(info, "ftree", r.top + 1, why);
			rc = 0;
			goto done;
		}
		routing_tables_free(out);
		if (gaps.ca_pairs)
			snprintf(why, sizeof(why), "not routable as a fat tree: %zu leaf-to-host pairs without an "
				 "up/down path", gaps.ca_pairs);
		else
			snprintf(why, sizeof(why), "degraded tree needs a second VL for %zu switch LIDs, the fabric "
				 "has one", gaps.nswitch_lids);
	}
	rc = updown_with_note(f, &x, out, info, why);
done:
	free(loads);
	updown_gaps_free(&gaps);
	plan_free(&plan, x.nsw);
	rank_free(&r);
	swindex_free(&x);
	return rc;
}

int ftree_mend(const struct fabric *f, const uint64_t *roots, size_t nroots, unsigned max_layers,
	       const struct fabric *old_f, const struct routing_tables *old, struct routing_tables *out,
	       struct route_info *info, struct stable_report *r)
{
	struct swindex x;
	struct rank rk = { 0 };
	if (swindex_build(&x, f) < 0)
		return -1;
	int rc = rank_fat_tree(&rk, &x, roots, nroots) < 0 ? -1 :
		 !rk.fat_tree ? 1 : stable_patch(old_f, old, f, &x, &rk, max_layers, out, r);
	if (rc == 0)
		note(info, "ftree", rk.top + 1, NULL);
	rank_free(&rk);
	swindex_free(&x);
	return rc;
}
