/*
 * DOC: fat-tree and up/down engines
 *
 * ftree: rank switches from the leaves (or from configured roots), and if
 * the fabric has fat-tree shape route it up/down with D-mod-K port choice:
 * destination j (in host order) leaves a switch at level l on up-port
 * (j / stride[l]) mod n_up, stride[l] being the product of the up-port
 * counts of the levels below. Up-ports are numbered by their parent's
 * "column" (the lowest GUID above the parent; the GUID itself at the top),
 * so every switch agrees which upper switch carries destination j and a
 * shift permutation of a full tree puts at most one flow on each link.
 * Parallel links to one parent take alternate numbers. Where the wanted
 * port is not on a legal shortest path (a degraded tree) the least loaded
 * candidate is used.
 *
 * In a degraded tree some leaves may have no up/down path to the LID of a
 * switch whose column lost its way down. Those switch LIDs are routed by
 * plain up/down from one root instead, on VL layer 1 (SL 1), where that
 * order's own up/down rule keeps them acyclic; every CA LID stays on
 * layer 0 with its fat-tree routes.
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
#include "routing/swindex.h"
#include "routing/updown.h"

struct up_port {
	uint8_t port;
	size_t parent;
	unsigned link_rank;	/* among this switch's links to the same parent */
};

struct dmodk {
	const struct swindex *x;
	const uint64_t *column;
};

static int cmp_by_parent(const void *a, const void *b, void *arg)
{
	const struct dmodk *d = arg;
	const struct up_port *x = a, *y = b;
	uint64_t gx = d->x->sw[x->parent]->guid, gy = d->x->sw[y->parent]->guid;
	if (gx != gy)
		return gx < gy ? -1 : 1;
	return x->port - y->port;
}

static int cmp_digit(const void *a, const void *b, void *arg)
{
	const struct dmodk *d = arg;
	const struct up_port *x = a, *y = b;
	if (x->link_rank != y->link_rank)
		return x->link_rank < y->link_rank ? -1 : 1;
	if (d->column[x->parent] != d->column[y->parent])
		return d->column[x->parent] < d->column[y->parent] ? -1 : 1;
	return cmp_by_parent(a, b, arg);
}

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

/* Each switch's column: the lowest GUID above it, or its own GUID at the top. */
static void columns(const struct rank *r, const struct swindex *x, uint64_t *column)
{
	for (size_t s = 0; s < x->nsw; s++) {
		column[s] = r->level[s] == r->top ? x->sw[s]->guid : UINT64_MAX;
		for (unsigned p = 1; p <= x->sw[s]->nports; p++) {
			size_t u;
			if (is_up(r, x, s, p, &u) && x->sw[u]->guid < column[s])
				column[s] = x->sw[u]->guid;
		}
	}
}

static int order_up_ports(struct updown_plan *p, const struct dmodk *d, size_t s, struct up_port *tmp)
{
	const struct node *n = d->x->sw[s];
	unsigned k = 0;
	for (unsigned port = 1; port <= n->nports; port++) {
		size_t u;
		if (is_up(p->r, d->x, s, port, &u))
			tmp[k++] = (struct up_port){ (uint8_t)port, u, 0 };
	}
	qsort_r(tmp, k, sizeof(*tmp), cmp_by_parent, (void *)d);
	for (unsigned i = 1; i < k; i++)
		if (tmp[i].parent == tmp[i - 1].parent)
			tmp[i].link_rank = tmp[i - 1].link_rank + 1;
	qsort_r(tmp, k, sizeof(*tmp), cmp_digit, (void *)d);
	if (!(p->up_order[s] = malloc(k + 1)))
		return -1;
	for (unsigned i = 0; i < k; i++)
		p->up_order[s][i] = tmp[i].port;
	p->n_up[s] = (uint8_t)k;
	return 0;
}

static int build_plan(struct updown_plan *p, const struct swindex *x, const struct rank *r)
{
	uint64_t *column = malloc((x->nsw + 1) * sizeof(*column));
	struct up_port *tmp = malloc((FABRIC_MAX_PORTS + 1) * sizeof(*tmp));
	int rc = -1;
	memset(p, 0, sizeof(*p));
	p->x = x;
	p->r = r;
	p->up_order = calloc(x->nsw + 1, sizeof(*p->up_order));
	p->n_up = calloc(x->nsw + 1, 1);
	p->stride = calloc((size_t)r->top + 2, sizeof(*p->stride));
	if (!column || !tmp || !p->up_order || !p->n_up || !p->stride)
		goto done;
	columns(r, x, column);
	struct dmodk d = { x, column };
	for (size_t s = 0; s < x->nsw; s++)
		if (order_up_ports(p, &d, s, tmp) < 0)
			goto done;
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
	free(tmp);
	return rc;
}

static void note(struct route_info *info, const char *engine, unsigned levels, const char *why)
{
	snprintf(info->engine, sizeof(info->engine), "%s", engine);
	info->levels = levels;
	snprintf(info->note, sizeof(info->note), "%s", why ? why : "");
}

/* Up/down from one root into out; *r is the ranking used (free it). */
static int updown_tables(const struct fabric *f, const struct swindex *x, struct routing_tables *out,
			 struct rank *r)
{
	struct updown_plan plan = { .x = x, .r = r };
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
	if (updown_tables(f, x, out, &r) < 0)
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

/* Moves the switch LIDs in gaps to layer 1, routed up/down from one root. */
static int escape_layer(const struct fabric *f, const struct swindex *x, struct routing_tables *t,
			const struct updown_gaps *gaps, char *why, size_t len)
{
	struct routing_tables u;
	struct rank r;
	if (updown_tables(f, x, &u, &r) < 0)
		return -1;
	for (size_t i = 0; i < gaps->nswitch_lids; i++) {
		uint16_t lid = gaps->switch_lids[i];
		for (size_t n = 0; n < f->nnodes; n++)
			if (t->lft[n])
				t->lft[n][lid] = u.lft[n][lid];
		t->sl[lid] = 1;
	}
	t->layers = 2;
	snprintf(why, len, "%zu switch LIDs some leaf cannot reach up/down in the degraded tree: on VL 1, %s",
		 gaps->nswitch_lids, r.why);
	rank_free(&r);
	routing_tables_free(&u);
	return 0;
}

int ftree_route(const struct fabric *f, const uint64_t *roots, size_t nroots, unsigned max_layers,
		struct routing_tables *out, struct route_info *info)
{
	struct swindex x;
	struct rank r = { 0 };
	struct updown_plan plan = { 0 };
	struct updown_gaps gaps = { 0 };
	char why[sizeof(info->note)];
	int rc = -1;
	if (swindex_build(&x, f) < 0)
		return -1;
	if (rank_fat_tree(&r, &x, roots, nroots) < 0)
		goto done;
	if (!r.fat_tree) {
		snprintf(why, sizeof(why), "not a fat tree: %s", r.why);
	} else {
		if (build_plan(&plan, &x, &r) < 0 || updown_fill(f, &plan, out, &gaps) < 0)
			goto done;
		bool escapes = gaps.nswitch_lids > 0;
		if (!gaps.ca_pairs && (!escapes || max_layers >= 2)) {
			why[0] = '\0';
			if (escapes && escape_layer(f, &x, out, &gaps, why, sizeof(why)) < 0) {
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
	updown_gaps_free(&gaps);
	plan_free(&plan, x.nsw);
	rank_free(&r);
	swindex_free(&x);
	return rc;
}
