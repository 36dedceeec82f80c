/*
 * DOC: a RoCE plan read back
 *
 * Every DIR/<switch>.json (as fabricctl plan roce writes it) is read with
 * libyaml (JSON is YAML) into the RoCE fabric model: switches, their ports
 * and peers, plus each switch's routes, next-hop groups and per-port PFC
 * settings, with the line of each route for the messages. Files are read
 * in name order, so errors do not depend on the directory's order. Both
 * ends of every link must name each other. What the plan claims is proven
 * again by routing/roce_recheck.c.
 */
#include "topology/roce_planfile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/yamldoc.h"

/* Reading: the plan so far, and the error. */
struct loader {
	struct roce_planfiles *pf;
	char *err;
};

/* Reading one file: the port and route being filled. */
struct reading {
	struct loader *c;
	struct roce_switch *sw;
	struct planfile_switch *x;
	struct planfile_route *route;
	struct planfile_hop *hop;
	size_t port;
	bool have_format;
};

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
	struct planfile_switch *x = r->x;
	size_t n = r->sw->nports;
	if (roce_grow((void **)&r->sw->ports, n, sizeof(*r->sw->ports)) < 0 || roce_grow((void **)&x->peer, n, ROCE_NAME_LEN) < 0 ||
	    roce_grow((void **)&x->peer_port, n, ROCE_NAME_LEN) < 0 || roce_grow((void **)&x->pfc_mask, n, sizeof(unsigned)) < 0 ||
	    roce_grow((void **)&x->headroom, n, sizeof(unsigned)) < 0)
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
	struct planfile_hop *h = arg;
	if (strcmp(key, "port") == 0)
		return ydoc_string(d, key, v, h->port, sizeof(h->port));
	if (strcmp(key, "neighbour") == 0)
		return ydoc_string(d, key, v, h->neighbour, sizeof(h->neighbour));
	return ydoc_fail(d, v, "unknown next-hop key '%s' (expected port, neighbour)", key);
}

static int hop_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct planfile_group *g = arg;
	if (roce_grow((void **)&g->hops, g->nhops, sizeof(*g->hops)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct planfile_hop *h = &g->hops[g->nhops++];
	if (ydoc_each_pair(d, "a next hop", item, hop_pair, h) < 0)
		return -1;
	if (!h->port[0])
		return ydoc_fail(d, item, "a next hop needs a port");
	return 0;
}

static int group_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct planfile_group *g = arg;
	if (strcmp(key, "id") == 0)
		return ydoc_uint(d, key, v, 0, UINT32_MAX, &g->id);
	if (strcmp(key, "next_hops") == 0)
		return ydoc_each_item(d, "next_hops", v, hop_item, g);
	return ydoc_fail(d, v, "unknown next-hop group key '%s' (expected id, next_hops)", key);
}

static int group_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct planfile_switch *x = arg;
	if (roce_grow((void **)&x->groups, x->ngroups, sizeof(*x->groups)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct planfile_group *g = &x->groups[x->ngroups++];
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
	struct planfile_route *rt = arg;
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
	struct planfile_switch *x = r->x;
	if (roce_grow((void **)&x->routes, x->nroutes, sizeof(*x->routes)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct planfile_route *rt = &x->routes[x->nroutes++];
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
		return ydoc_string(d, key, v, r->c->pf->rf.name, sizeof(r->c->pf->rf.name));
	if (strcmp(key, "tier") == 0) {
		if (ydoc_uint(d, key, v, 0, 15, &n) < 0)
			return -1;
		r->sw->tier = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "mtu") == 0) {
		if (ydoc_uint(d, key, v, 1280, 16384, &n) < 0)
			return -1;
		if (r->c->pf->rf.mtu && r->c->pf->rf.mtu != n)
			return ydoc_fail(d, v, "mtu %llu differs from the other switches' %u", n, r->c->pf->rf.mtu);
		r->c->pf->rf.mtu = (unsigned)n;
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
	if (strcmp(key, "asn") == 0) {	/* what the twin's BGP simulation uses */
		if (ydoc_uint(d, key, v, 1, UINT32_MAX, &n) < 0)
			return -1;
		r->sw->asn = (uint32_t)n;
		return 0;
	}
	if (strcmp(key, "loopback") == 0)
		return ydoc_string(d, key, v, r->sw->loopback, sizeof(r->sw->loopback));
	return ydoc_fail(d, v, "unknown key '%s'", key);
}

static int read_file(struct loader *c, const char *path)
{
	struct roce_fabric *rf = &c->pf->rf;
	if (roce_grow((void **)&rf->sw, rf->nsw, sizeof(*rf->sw)) < 0 ||
	    roce_grow((void **)&c->pf->x, rf->nsw, sizeof(*c->pf->x)) < 0) {
		snprintf(c->err, PLANFILE_ERR_LEN, "%s: out of memory", path);
		return -1;
	}
	struct reading r = { .c = c, .sw = &rf->sw[rf->nsw], .x = &c->pf->x[rf->nsw] };
	snprintf(r.x->file, sizeof(r.x->file), "%s", path);
	rf->nsw++;
	struct ydoc d;
	if (ydoc_load(&d, path, c->err, PLANFILE_ERR_LEN) < 0)
		return -1;
	const yaml_node_t *root = ydoc_root(&d);
	int rc = root ? ydoc_each_pair(&d, "a switch plan", root, top_pair, &r) : ydoc_fail(&d, NULL, "empty file");
	if (rc == 0 && (!r.have_format || !r.sw->name[0]))
		rc = ydoc_fail(&d, root, "not a switch plan (needs format \"" PLAN_FORMAT "\" and switch)");
	ydoc_free(&d);
	return rc;
}

void planfiles_free(struct roce_planfiles *c)
{
	for (size_t i = 0; i < c->rf.nsw && c->x; i++) {
		struct planfile_switch *x = &c->x[i];
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
static int join_links(struct roce_planfiles *c, char *err)
{
	struct roce_fabric *rf = &c->rf;
	for (size_t s = 0; s < rf->nsw; s++)
		for (size_t p = 0; p < rf->sw[s].nports; p++) {
			struct planfile_switch *x = &c->x[s];
			struct roce_port *pt = &rf->sw[s].ports[p];
			if (!x->peer[p][0])
				continue;
			size_t t = roce_find_switch(rf, x->peer[p]);
			size_t q = t == ROCE_NONE ? ROCE_NONE : roce_find_port(&rf->sw[t], x->peer_port[p]);
			if (q == ROCE_NONE || strcmp(c->x[t].peer[q], rf->sw[s].name) != 0 ||
			    strcmp(c->x[t].peer_port[q], pt->name) != 0) {
				snprintf(err, PLANFILE_ERR_LEN, "%s: port %s says its peer is %s:%s, which does not say so back",
					 x->file, pt->name, x->peer[p], x->peer_port[p]);
				return -1;
			}
			pt->peer_sw = t;
			pt->peer_port = q;
			if (t < s || (t == s && q < p))
				continue;	/* each link once */
			if (roce_grow((void **)&rf->links, rf->nlinks, sizeof(*rf->links)) < 0)
				return -1;
			rf->links[rf->nlinks++] = (struct roce_link){ s, p, t, q, 0 };
		}
	return 0;
}

/* A switch plan: NAME.json, not the SONiC fragment NAME.sonic.json beside it. */
static int json_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);
	return len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
	       !(len > 11 && strcmp(e->d_name + len - 11, ".sonic.json") == 0);
}

/* Reads the switch files in name order, so errors and figures do not depend on the directory's order. */
static int load_dir(struct loader *c, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, json_file, alphasort), rc = 0;
	if (n < 0) {
		snprintf(c->err, PLANFILE_ERR_LEN, "%s: cannot open the plan directory", dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (rc == 0)
			rc = read_file(c, path);
		free(names[i]);
	}
	free(names);
	if (rc == 0 && !c->pf->rf.nsw) {
		snprintf(c->err, PLANFILE_ERR_LEN, "%s: no switch plans (*.json) in it", dir);
		rc = -1;
	}
	return rc;
}

int planfiles_load(const char *dir, struct roce_planfiles *pf, char err[PLANFILE_ERR_LEN])
{
	struct loader c = { .pf = pf, .err = err };
	memset(pf, 0, sizeof(*pf));
	err[0] = '\0';
	if (load_dir(&c, dir) < 0 || join_links(pf, err) < 0) {
		if (!err[0])
			snprintf(err, PLANFILE_ERR_LEN, "%s: out of memory", dir);
		planfiles_free(pf);
		return -1;
	}
	return 0;
}
