/*
 * DOC: checking a RoCE plan from its files
 *
 * Every DIR/<switch>.json (as plan_write.c writes it) is read with libyaml
 * (JSON is YAML) into the RoCE fabric model: switches, their ports and
 * peers, plus each switch's routes and per-port PFC settings. Then:
 *
 * - both ends of every link must name each other;
 * - each prefix must be connected at exactly one switch;
 * - every next hop must leave on a fabric port towards the neighbour it
 *   names;
 * - the routes, one destination per prefix, must pass ecmp_check: no
 *   loop, no dead end from any switch with hosts, no cyclic buffer
 *   dependency for the host prefixes (the lossless traffic);
 * - PFC must be on exactly the lossless priorities, with at least the
 *   headroom the port's speed, cable and the MTU need (routing/pfc.c).
 */
#include "cli/plan_read.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/plan_write.h"
#include "routing/pfc.h"
#include "routing/roce_plan.h"
#include "topology/yamldoc.h"

#define ERR_LEN 8192	/* room for a path and names */

struct hop {
	char port[ROCE_NAME_LEN], neighbour[ROCE_NAME_LEN];
};

/* An ECMP group: the next hops routes share. */
struct group {
	unsigned long long id;
	struct hop *hops;
	size_t nhops;
};

struct route {
	char prefix[ROCE_ADDR_LEN];
	bool host, connected;
	long long group;	/* -1: none */
	unsigned line;
};

/* What a switch file says beyond the fabric model. */
struct extra {
	char file[4096];
	struct route *routes;
	size_t nroutes;
	struct group *groups;
	size_t ngroups;
	char (*peer)[ROCE_NAME_LEN], (*peer_port)[ROCE_NAME_LEN];	/* per port, "" for none */
	unsigned *pfc_mask, *headroom;	/* per port */
	unsigned lossless_mask;
};

struct checker {
	struct roce_fabric rf;
	struct extra *x;	/* per switch */
	char err[ERR_LEN];
	const char *dir;
};

/* Reading one file: the port and route being filled. */
struct reading {
	struct checker *c;
	struct roce_switch *sw;
	struct extra *x;
	struct route *route;
	struct hop *hop;
	size_t port;
	bool have_format;
};

static int grow(void **arr, size_t n, size_t size)
{
	void *more = realloc(*arr, (n + 1) * size);
	if (!more)
		return -1;
	*arr = more;
	memset((char *)more + n * size, 0, size);
	return 0;
}

static int prio_item(struct ydoc *d, const yaml_node_t *v, void *arg)
{
	unsigned *mask = arg;
	unsigned long long n;
	if (ydoc_uint(d, "priority", v, 0, ROCE_PRIOS - 1, &n) < 0)
		return -1;
	*mask |= 1u << n;
	return 0;
}

static int pfc_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct reading *r = arg;
	unsigned long long n;
	if (strcmp(key, "priorities") == 0)
		return ydoc_each_item(d, "pfc.priorities", v, prio_item, &r->x->pfc_mask[r->port]);
	if (strcmp(key, "headroom_bytes") == 0) {
		if (ydoc_uint(d, key, v, 0, UINT32_MAX, &n) < 0)
			return -1;
		r->x->headroom[r->port] = (unsigned)n;
		return 0;
	}
	return ydoc_fail(d, v, "unknown key 'pfc.%s'", key);
}

static int port_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct reading *r = arg;
	struct roce_port *pt = &r->sw->ports[r->port];
	if (strcmp(key, "name") == 0)
		return ydoc_string(d, key, v, pt->name, sizeof(pt->name));
	if (strcmp(key, "host") == 0) {
		pt->host = v->type == YAML_SCALAR_NODE && strcmp((const char *)v->data.scalar.value, "true") == 0;
		return 0;
	}
	if (strcmp(key, "peer") == 0)
		return ydoc_string(d, key, v, r->x->peer[r->port], ROCE_NAME_LEN);
	if (strcmp(key, "peer_port") == 0)
		return ydoc_string(d, key, v, r->x->peer_port[r->port], ROCE_NAME_LEN);
	if (strcmp(key, "speed_gbps") == 0)
		return ydoc_number(d, key, v, 1, 1600, &pt->gbps);
	if (strcmp(key, "cable_m") == 0)
		return ydoc_number(d, key, v, 0, 100000, &pt->cable_m);
	if (strcmp(key, "pfc") == 0)
		return ydoc_each_pair(d, "pfc", v, pfc_pair, r);
	if (strcmp(key, "ecn") == 0)
		return 0;	/* settings only; nothing to prove */
	return ydoc_fail(d, v, "unknown port key '%s'", key);
}

static int port_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct reading *r = arg;
	struct extra *x = r->x;
	size_t n = r->sw->nports;
	if (grow((void **)&r->sw->ports, n, sizeof(*r->sw->ports)) < 0 || grow((void **)&x->peer, n, ROCE_NAME_LEN) < 0 ||
	    grow((void **)&x->peer_port, n, ROCE_NAME_LEN) < 0 || grow((void **)&x->pfc_mask, n, sizeof(unsigned)) < 0 ||
	    grow((void **)&x->headroom, n, sizeof(unsigned)) < 0)
		return ydoc_fail(d, item, "out of memory");
	r->sw->ports[n].peer_sw = r->sw->ports[n].peer_port = ROCE_NONE;
	r->port = r->sw->nports++;
	if (ydoc_each_pair(d, "a port", item, port_pair, r) < 0)
		return -1;
	if (!r->sw->ports[n].name[0])
		return ydoc_fail(d, item, "a port needs a name");
	return 0;
}

static int hop_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct hop *h = arg;
	if (strcmp(key, "port") == 0)
		return ydoc_string(d, key, v, h->port, sizeof(h->port));
	if (strcmp(key, "neighbour") == 0)
		return ydoc_string(d, key, v, h->neighbour, sizeof(h->neighbour));
	return ydoc_fail(d, v, "unknown next-hop key '%s' (expected port, neighbour)", key);
}

static int hop_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct group *g = arg;
	if (grow((void **)&g->hops, g->nhops, sizeof(*g->hops)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct hop *h = &g->hops[g->nhops++];
	if (ydoc_each_pair(d, "a next hop", item, hop_pair, h) < 0)
		return -1;
	if (!h->port[0])
		return ydoc_fail(d, item, "a next hop needs a port");
	return 0;
}

static int group_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct group *g = arg;
	if (strcmp(key, "id") == 0)
		return ydoc_uint(d, key, v, 0, UINT32_MAX, &g->id);
	if (strcmp(key, "next_hops") == 0)
		return ydoc_each_item(d, "next_hops", v, hop_item, g);
	return ydoc_fail(d, v, "unknown next-hop group key '%s' (expected id, next_hops)", key);
}

static int group_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct extra *x = arg;
	if (grow((void **)&x->groups, x->ngroups, sizeof(*x->groups)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct group *g = &x->groups[x->ngroups++];
	g->id = UINT64_MAX;
	if (ydoc_each_pair(d, "a next-hop group", item, group_pair, g) < 0)
		return -1;
	for (size_t i = 0; i + 1 < x->ngroups; i++)
		if (x->groups[i].id == g->id)
			return ydoc_fail(d, item, "next-hop group %llu is defined twice", g->id);
	if (g->id == UINT64_MAX || !g->nhops)
		return ydoc_fail(d, item, "a next-hop group needs an id and next_hops");
	return 0;
}

static int route_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct route *rt = arg;
	const char *s = NULL;
	unsigned long long n;
	if (strcmp(key, "prefix") == 0)
		return ydoc_string(d, key, v, rt->prefix, sizeof(rt->prefix));
	if (strcmp(key, "class") == 0) {
		if (ydoc_scalar(d, key, v, &s) < 0)
			return -1;
		rt->host = strcmp(s, "hosts") == 0;
		return 0;
	}
	if (strcmp(key, "connected") == 0) {
		rt->connected = v->type == YAML_SCALAR_NODE && strcmp((const char *)v->data.scalar.value, "true") == 0;
		return 0;
	}
	if (strcmp(key, "group") == 0) {
		if (ydoc_uint(d, key, v, 0, UINT32_MAX, &n) < 0)
			return -1;
		rt->group = (long long)n;
		return 0;
	}
	return ydoc_fail(d, v, "unknown route key '%s' (expected prefix, class, connected or group)", key);
}

static int route_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct reading *r = arg;
	struct extra *x = r->x;
	if (grow((void **)&x->routes, x->nroutes, sizeof(*x->routes)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct route *rt = &x->routes[x->nroutes++];
	rt->line = (unsigned)item->start_mark.line + 1;
	rt->group = -1;
	if (ydoc_each_pair(d, "a route", item, route_pair, rt) < 0)
		return -1;
	if (!rt->prefix[0] || rt->connected == (rt->group >= 0))
		return ydoc_fail(d, item, "a route needs a prefix and either connected: true or a group");
	return 0;
}

static int qos_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct reading *r = arg;
	if (strcmp(key, "lossless_priorities") == 0)
		return ydoc_each_item(d, key, v, prio_item, &r->x->lossless_mask);
	return 0;	/* the DSCP map and CNP class are settings, not proofs */
}

static int top_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct reading *r = arg;
	const char *s = NULL;
	unsigned long long n;
	if (strcmp(key, "format") == 0) {
		if (ydoc_scalar(d, key, v, &s) < 0)
			return -1;
		if (strcmp(s, PLAN_FORMAT) != 0)
			return ydoc_fail(d, v, "format '%s' is not '" PLAN_FORMAT "'", s);
		r->have_format = true;
		return 0;
	}
	if (strcmp(key, "switch") == 0)
		return ydoc_string(d, key, v, r->sw->name, sizeof(r->sw->name));
	if (strcmp(key, "fabric") == 0)
		return ydoc_string(d, key, v, r->c->rf.name, sizeof(r->c->rf.name));
	if (strcmp(key, "tier") == 0) {
		if (ydoc_uint(d, key, v, 0, 15, &n) < 0)
			return -1;
		r->sw->tier = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "mtu") == 0) {
		if (ydoc_uint(d, key, v, 1280, 16384, &n) < 0)
			return -1;
		if (r->c->rf.mtu && r->c->rf.mtu != n)
			return ydoc_fail(d, v, "mtu %llu differs from the other switches' %u", n, r->c->rf.mtu);
		r->c->rf.mtu = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "ports") == 0)
		return ydoc_each_item(d, "ports", v, port_item, r);
	if (strcmp(key, "routes") == 0)
		return ydoc_each_item(d, "routes", v, route_item, r);
	if (strcmp(key, "next_hop_groups") == 0)
		return ydoc_each_item(d, "next_hop_groups", v, group_item, r->x);
	if (strcmp(key, "qos") == 0)
		return ydoc_each_pair(d, "qos", v, qos_pair, r);
	if (strcmp(key, "asn") == 0 || strcmp(key, "loopback") == 0)
		return 0;
	return ydoc_fail(d, v, "unknown key '%s'", key);
}

static int read_file(struct checker *c, const char *path)
{
	struct roce_fabric *rf = &c->rf;
	if (grow((void **)&rf->sw, rf->nsw, sizeof(*rf->sw)) < 0 || grow((void **)&c->x, rf->nsw, sizeof(*c->x)) < 0) {
		snprintf(c->err, ERR_LEN, "%s: out of memory", path);
		return -1;
	}
	struct reading r = { .c = c, .sw = &rf->sw[rf->nsw], .x = &c->x[rf->nsw] };
	snprintf(r.x->file, sizeof(r.x->file), "%s", path);
	rf->nsw++;
	struct ydoc d;
	if (ydoc_load(&d, path, c->err, ERR_LEN) < 0)
		return -1;
	const yaml_node_t *root = ydoc_root(&d);
	int rc = root ? ydoc_each_pair(&d, "a switch plan", root, top_pair, &r) : ydoc_fail(&d, NULL, "empty file");
	if (rc == 0 && (!r.have_format || !r.sw->name[0]))
		rc = ydoc_fail(&d, root, "not a switch plan (needs format \"" PLAN_FORMAT "\" and switch)");
	ydoc_free(&d);
	return rc;
}

static void free_checker(struct checker *c)
{
	for (size_t i = 0; i < c->rf.nsw && c->x; i++) {
		struct extra *x = &c->x[i];
		for (size_t k = 0; k < x->ngroups; k++)
			free(x->groups[k].hops);
		free(x->groups);
		free(x->routes);
		free(x->peer);
		free(x->peer_port);
		free(x->pfc_mask);
		free(x->headroom);
	}
	free(c->x);
	roce_free(&c->rf);
}

/* Both ends of every link must name each other; fills the links. */
static int join_links(struct checker *c)
{
	struct roce_fabric *rf = &c->rf;
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t p = 0; p < rf->sw[s].nports; p++) {
			struct extra *x = &c->x[s];
			struct roce_port *pt = &rf->sw[s].ports[p];
			if (!x->peer[p][0])
				continue;
			size_t t = roce_find_switch(rf, x->peer[p]);
			size_t q = t == ROCE_NONE ? ROCE_NONE : roce_find_port(&rf->sw[t], x->peer_port[p]);
			if (q == ROCE_NONE || strcmp(c->x[t].peer[q], rf->sw[s].name) != 0 ||
			    strcmp(c->x[t].peer_port[q], pt->name) != 0) {
				snprintf(c->err, ERR_LEN, "%s: port %s says its peer is %s:%s, which does not say so back",
					 x->file, pt->name, x->peer[p], x->peer_port[p]);
				return -1;
			}
			pt->peer_sw = t;
			pt->peer_port = q;
			if (t < s || (t == s && q < p))
				continue;	/* each link once */
			if (grow((void **)&rf->links, rf->nlinks, sizeof(*rf->links)) < 0)
				return -1;
			rf->links[rf->nlinks++] = (struct roce_link){ s, p, t, q, 0 };
		}
	return 0;
}

static int check_pfc(struct checker *c)
{
	const struct roce_fabric *rf = &c->rf;
	for (size_t s = 0; s < rf->nsw; s++) {
		const struct extra *x = &c->x[s];
		if (x->lossless_mask != c->x[0].lossless_mask || !x->lossless_mask) {
			snprintf(c->err, ERR_LEN, "%s: the lossless priorities differ from %s's (or are missing)", x->file,
				 rf->sw[0].name);
			return -1;
		}
		for (size_t p = 0; p < rf->sw[s].nports; p++) {
			const struct roce_port *pt = &rf->sw[s].ports[p];
			unsigned need = pfc_headroom_bytes(pt->gbps, pt->cable_m, rf->mtu);
			if (x->pfc_mask[p] != x->lossless_mask) {
				snprintf(c->err, ERR_LEN, "%s: port %s has PFC on other priorities than the lossless ones",
					 x->file, pt->name);
				return -1;
			}
			if (x->headroom[p] < need) {
				snprintf(c->err, ERR_LEN, "%s: port %s has %u bytes of PFC headroom, %u needed", x->file,
					 pt->name, x->headroom[p], need);
				return -1;
			}
		}
	}
	return 0;
}

/* One destination per prefix: where it is connected. */
static int find_prefixes(struct checker *c, const char ***names, size_t **owner, bool **host, size_t *n)
{
	const struct roce_fabric *rf = &c->rf;
	*n = 0;
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t k = 0; k < c->x[s].nroutes; k++) {
			const struct route *rt = &c->x[s].routes[k];
			if (!rt->connected)
				continue;
			for (size_t i = 0; i < *n; i++)
				if (strcmp((*names)[i], rt->prefix) == 0) {
					snprintf(c->err, ERR_LEN, "%s:%u: %s is connected at both %s and %s", c->x[s].file,
						 rt->line, rt->prefix, rf->sw[(*owner)[i]].name, rf->sw[s].name);
					return -1;
				}
			if (grow((void **)names, *n, sizeof(**names)) < 0 || grow((void **)owner, *n, sizeof(**owner)) < 0 ||
			    grow((void **)host, *n, sizeof(**host)) < 0)
				return -1;
			(*names)[*n] = rt->prefix;
			(*owner)[*n] = s;
			(*host)[*n] = rt->host;
			++*n;
		}
	return 0;
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
static const struct group *route_group(struct checker *c, size_t s, const struct route *rt)
{
	const struct extra *x = &c->x[s];
	for (size_t g = 0; g < x->ngroups && rt->group >= 0; g++)
		if (x->groups[g].id == (unsigned long long)rt->group)
			return &x->groups[g];
	if (rt->group >= 0)
		snprintf(c->err, ERR_LEN, "%s:%u: route to %s uses group %lld, which is not defined", x->file, rt->line,
			 rt->prefix, rt->group);
	return NULL;
}

/* Checks that next hop h of switch s is a link to the neighbour it names; its port number, or 0. */
static uint8_t hop_port(struct checker *c, size_t s, const struct route *rt, const struct hop *h)
{
	const struct roce_switch *sw = &c->rf.sw[s];
	size_t p = roce_find_port(sw, h->port);
	const struct roce_port *pt = p == ROCE_NONE ? NULL : &sw->ports[p];
	if (!pt || pt->peer_sw == ROCE_NONE || strcmp(c->rf.sw[pt->peer_sw].name, h->neighbour) != 0) {
		snprintf(c->err, ERR_LEN, "%s:%u: next hop %s (%s) for %s is not a link to that neighbour", c->x[s].file,
			 rt->line, h->port, h->neighbour, rt->prefix);
		return 0;
	}
	return (uint8_t)(p + 1);
}

static int fill_tables(struct checker *c, struct ecmp_tables *t, const char **names, size_t n)
{
	const struct roce_fabric *rf = &c->rf;
	size_t hops_total = 0;
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t g = 0; g < c->x[s].ngroups; g++)
			hops_total += c->x[s].groups[g].nhops;
	for (size_t d = 0; d < n; d++) {
		t->start[d] = calloc(rf->nsw + 1, sizeof(**t->start));
		t->port[d] = malloc(hops_total + 1);
		if (!t->start[d] || !t->port[d])
			return -1;
	}
	/* hops per (prefix, switch) first, then their places: a switch's routes come in any order */
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t k = 0; k < c->x[s].nroutes; k++) {
			const struct route *rt = &c->x[s].routes[k];
			size_t d = prefix_index(names, n, rt->prefix);
			const struct group *g = route_group(c, s, rt);
			if (rt->group >= 0 && !g)
				return -1;
			if (d == SIZE_MAX) {
				snprintf(c->err, ERR_LEN, "%s:%u: %s is connected nowhere", c->x[s].file, rt->line, rt->prefix);
				return -1;
			}
			if (t->start[d][s + 1]) {
				snprintf(c->err, ERR_LEN, "%s:%u: a second route for %s", c->x[s].file, rt->line, rt->prefix);
				return -1;
			}
			t->start[d][s + 1] = (uint32_t)(g ? g->nhops : 0) + 1;	/* +1: seen, even with no hops */
		}
	for (size_t d = 0; d < n; d++)
		for (size_t s = 0; s < rf->nsw; s++)
			t->start[d][s + 1] = t->start[d][s] + (t->start[d][s + 1] ? t->start[d][s + 1] - 1 : 0);
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t k = 0; k < c->x[s].nroutes; k++) {
			const struct route *rt = &c->x[s].routes[k];
			const struct group *g = route_group(c, s, rt);
			size_t d = prefix_index(names, n, rt->prefix);
			for (size_t h = 0; g && h < g->nhops; h++) {
				uint8_t port = hop_port(c, s, rt, &g->hops[h]);
				if (!port)
					return -1;
				t->port[d][t->start[d][s] + h] = port;
			}
		}
	return 0;
}

static int json_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);
	return len > 5 && strcmp(e->d_name + len - 5, ".json") == 0;
}

/* Reads the switch files in name order, so errors and figures do not depend on the directory's order. */
static int load_dir(struct checker *c)
{
	struct dirent **names;
	int n = scandir(c->dir, &names, json_file, alphasort), rc = 0;
	if (n < 0) {
		snprintf(c->err, ERR_LEN, "%s: cannot open the plan directory", c->dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", c->dir, names[i]->d_name);
		if (rc == 0)
			rc = read_file(c, path);
		free(names[i]);
	}
	free(names);
	if (rc == 0 && !c->rf.nsw) {
		snprintf(c->err, ERR_LEN, "%s: no switch plans (*.json) in it", c->dir);
		rc = -1;
	}
	return rc;
}

int plan_check(const char *dirname)
{
	struct checker c = { .dir = dirname };
	struct fabric f;
	struct ecmp_tables t = { 0 };
	struct ecmp_report r;
	const char **names = NULL;
	size_t *owner = NULL, n = 0;
	bool *host = NULL, *source = NULL;
	int rc = EXIT_NOT_FOUND;
	fabric_init(&f);
	if (load_dir(&c) < 0 || join_links(&c) < 0 || check_pfc(&c) < 0 || find_prefixes(&c, &names, &owner, &host, &n) < 0)
		goto done;
	if (n == 0) {	/* found by fuzz_plan: nothing to prove, and no table to fill */
		snprintf(c.err, ERR_LEN, "%s: the plan announces no prefix: nothing is routed", dirname);
		goto done;
	}
	if (roce_model(&c.rf, &f) < 0 || ecmp_alloc(&t, &f, n) < 0 || !(source = calloc(c.rf.nsw + 1, 1)) ||
	    fill_tables(&c, &t, names, n) < 0) {
		if (!c.err[0])
			snprintf(c.err, ERR_LEN, "%s: out of memory", dirname);
		goto done;
	}
	memcpy(t.dst_node, owner, n * sizeof(*owner));
	t.dst_label = names;
	for (size_t d = 0; d < n; d++)
		source[owner[d]] |= host[d];
	for (size_t s = 0; s < c.rf.nsw; s++)
		for (size_t p = 0; p < c.rf.sw[s].nports; p++)
			source[s] |= c.rf.sw[s].ports[p].host;
	if (ecmp_check(&t, source, host, &r) < 0) {
		snprintf(c.err, ERR_LEN, "%s: out of memory", dirname);
		goto done;
	}
	if (!ecmp_report_ok(&r)) {
		if (r.first_problem[0])
			snprintf(c.err, ERR_LEN, "%s: UNSAFE: %s", dirname, r.first_problem);
		else {
			char cycle[900];
			struct roce_plan view = { .rf = &c.rf };
			roce_cycle_text(&view, &r.cbd, cycle, sizeof(cycle));
			snprintf(c.err, ERR_LEN, "%s: UNSAFE: cyclic buffer dependency %s", dirname, cycle);
		}
		goto done;
	}
	printf("%s: %zu switches, %zu links, %zu prefixes: loop-free, every switch with hosts reaches every prefix, "
	       "no CBD (%zu channels, %zu dependencies); PFC on the lossless priorities only, with enough headroom: SAFE\n",
	       dirname, c.rf.nsw, c.rf.nlinks, n, r.cbd.channels, r.cbd.dependencies);
	rc = EXIT_OK;
done:
	if (rc != EXIT_OK)
		fprintf(stderr, "fabricctl: %s\n", c.err[0] ? c.err : "plan check failed");
	ecmp_free(&t);
	fabric_free(&f);
	free(names);
	free(owner);
	free(host);
	free(source);
	free_checker(&c);
	return rc;
}
