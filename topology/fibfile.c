/*
 * DOC: reading Linux FIBs
 *
 * `ip -j route show` prints one JSON object per route: "dst" (a prefix,
 * or a bare address for a host route, or "default"), the next hop's "dev"
 * (with "gateway" or "via"), or "nexthops": [{"dev": ...}, ...] for ECMP,
 * "type" for blackholes, "scope": "link" for connected subnets. Every
 * other key (protocol, metric, nhid, flags, prefsrc...) is ignored: they
 * vary with the kernel and iproute2 version and change no forwarding
 * decision the proofs look at. libyaml reads the JSON (JSON is YAML).
 */
#include "topology/fibfile.h"

#include <stdlib.h>
#include <string.h>

#include "topology/yamldoc.h"

static int add_dev(struct ydoc *d, const yaml_node_t *v, struct fib_route *rt)
{
	if (roce_grow((void **)&rt->dev, rt->ndev, sizeof(*rt->dev)) < 0)
		return ydoc_fail(d, v, "out of memory");
	return ydoc_string(d, "dev", v, rt->dev[rt->ndev++], sizeof(*rt->dev));
}

static int hop_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	return strcmp(key, "dev") == 0 ? add_dev(d, v, arg) : 0;
}

static int hop_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	return ydoc_each_pair(d, "a next hop", item, hop_pair, arg);
}

/* "10.255.0.2" -> "10.255.0.2/32", in canonical form; false for what is no prefix ("default"). */
static bool with_length(const char *dst, char *out, size_t len)
{
	char full[ROCE_ADDR_LEN + 8];
	if (strchr(dst, '/'))
		snprintf(full, sizeof(full), "%s", dst);
	else
		snprintf(full, sizeof(full), "%s/%u", dst, strchr(dst, ':') ? 128 : 32);
	return roce_canonical_prefix(full, out, len);
}

static int route_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct fib_route *rt = arg;
	const char *s;
	if (strcmp(key, "dst") == 0) {
		if (ydoc_scalar(d, key, v, &s) < 0)
			return -1;
		if (!with_length(s, rt->dst, sizeof(rt->dst)))
			rt->dst[0] = '\0';	/* "default" and the like: not a fabric prefix */
		return 0;
	}
	if (strcmp(key, "dev") == 0)
		return add_dev(d, v, rt);
	if (strcmp(key, "nexthops") == 0)
		return ydoc_each_item(d, key, v, hop_item, rt);
	if (strcmp(key, "scope") == 0 || strcmp(key, "type") == 0) {
		if (ydoc_scalar(d, key, v, &s) < 0)
			return -1;
		rt->connected |= strcmp(s, "link") == 0 || strcmp(s, "host") == 0;
		rt->drop |= strcmp(s, "blackhole") == 0 || strcmp(s, "unreachable") == 0 || strcmp(s, "prohibit") == 0;
	}
	return 0;
}

static int route_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct fib_table *t = arg;
	if (roce_grow((void **)&t->routes, t->nroutes, sizeof(*t->routes)) < 0)
		return ydoc_fail(d, item, "out of memory");
	struct fib_route *rt = &t->routes[t->nroutes++];
	rt->line = (unsigned)item->start_mark.line + 1;
	if (ydoc_each_pair(d, "a route", item, route_pair, rt) < 0)
		return -1;
	if (rt->drop)
		rt->ndev = 0;
	if (!rt->dst[0]) {	/* not a prefix: forget it */
		free(rt->dev);
		memset(rt, 0, sizeof(*rt));
		t->nroutes--;
	}
	return 0;
}

int fibfile_load(const char *path, struct fib_table *t, char *err, size_t errlen)
{
	struct ydoc d;
	if (ydoc_load(&d, path, err, errlen) < 0)
		return -1;
	const yaml_node_t *root = ydoc_root(&d);
	int rc = 0;
	if (root && root->type != YAML_SEQUENCE_NODE)
		rc = ydoc_fail(&d, root, "not a route list (ip -j route show prints a JSON array)");
	else if (root)
		rc = ydoc_each_item(&d, "routes", root, route_item, t);
	ydoc_free(&d);
	return rc;
}

void fibfile_free(struct fib_table *t)
{
	for (size_t i = 0; i < t->nroutes; i++)
		free(t->routes[i].dev);
	free(t->routes);
	memset(t, 0, sizeof(*t));
}

const struct fib_route *fibfile_find(const struct fib_table *t, const char *dst)
{
	for (size_t i = 0; i < t->nroutes; i++)
		if (strcmp(t->routes[i].dst, dst) == 0)
			return &t->routes[i];
	return NULL;
}
