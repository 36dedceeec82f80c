/*
 * DOC: the RoCE planning input (YAML)
 *
 *   name: dc1
 *   mtu: 9216                          # bytes, default 9216
 *   defaults: { speed: 100G, cable_m: 3 }
 *   qos:                               # all optional; these are the defaults
 *     lossless: [ { priority: 3, dscp: [26] } ]
 *     cnp: { priority: 6, dscp: 48 }
 *     ecn: { min_kb: 0, max_kb: 0, probability: 0 }   # 0: scaled by speed
 *   switches:
 *     - { name: leaf1, tier: 0, asn: 65101, loopback: 10.255.0.1,
 *         prefixes: [10.1.1.0/24], host_ports: { ports: swp1-32, speed: 100G, cable_m: 2 } }
 *     - { name: spine1, role: spine }  # role: leaf, spine or superspine (tiers 0, 1, 2)
 *   links:
 *     - { a: leaf1:swp49, b: spine1:swp1, speed: 400G, cable_m: 10 }
 *
 * Scalars and defaults are read first, then qos, switches and links, in
 * that order whatever the file's order, so a link may use a default set
 * below it. Every error names the file and the line of the bad value.
 */
#include "topology/roce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/yamldoc.h"

struct rload {
	struct roce_fabric *rf;
	double gbps, cable_m;	/* defaults for ports */
	const yaml_node_t *qos, *switches, *links;
	int dscp_line[ROCE_DSCPS];	/* where each DSCP got its priority: 0 not yet, -1 by default */
	bool prio_lossless[ROCE_PRIOS];
};

/* "100G", "400g", "1.6T" or a bare number of Gb/s. */
static int get_speed(struct ydoc *d, const char *key, const yaml_node_t *v, double *gbps)
{
	const char *s = NULL;
	char *end;
	if (ydoc_scalar(d, key, v, &s) < 0)
		return -1;
	double x = strtod(s, &end);
	if (end == s)
		return ydoc_fail(d, v, "%s must be a speed like 100G, not '%s'", key, s);
	if (*end == 'T' || *end == 't')
		x *= 1000, end++;
	else if (*end == 'G' || *end == 'g')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || x < 1 || x > 1600)
		return ydoc_fail(d, v, "%s must be a speed from 1G to 1.6T, like 100G, not '%s'", key, s);
	*gbps = x;
	return 0;
}

static int defaults_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct rload *l = arg;
	if (strcmp(key, "speed") == 0)
		return get_speed(d, "defaults.speed", v, &l->gbps);
	if (strcmp(key, "cable_m") == 0)
		return ydoc_number(d, "defaults.cable_m", v, 0, 100000, &l->cable_m);
	return ydoc_fail(d, v, "unknown key 'defaults.%s' (expected speed or cable_m)", key);
}

static int top_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct rload *l = arg;
	unsigned long long n;
	if (strcmp(key, "name") == 0)
		return ydoc_string(d, key, v, l->rf->name, sizeof(l->rf->name));
	if (strcmp(key, "mtu") == 0) {
		if (ydoc_uint(d, key, v, 1280, 16384, &n) < 0)
			return -1;
		l->rf->mtu = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "defaults") == 0)
		return ydoc_each_pair(d, "defaults", v, defaults_pair, l);
	const yaml_node_t **later = strcmp(key, "qos") == 0 ? &l->qos
				    : strcmp(key, "switches") == 0 ? &l->switches
				    : strcmp(key, "links") == 0 ? &l->links : NULL;
	if (!later)
		return ydoc_fail(d, v, "unknown key '%s' (expected name, mtu, defaults, qos, switches or links)", key);
	*later = v;
	return 0;
}

static int set_dscp(struct ydoc *d, struct rload *l, const yaml_node_t *v, unsigned prio)
{
	unsigned long long n;
	if (ydoc_uint(d, "dscp", v, 0, ROCE_DSCPS - 1, &n) < 0)
		return -1;
	if (l->dscp_line[n] < 0)
		return ydoc_fail(d, v, "DSCP %llu is the default lossless class's: list qos.lossless too", n);
	if (l->dscp_line[n])
		return ydoc_fail(d, v, "DSCP %llu is already mapped (line %d)", n, l->dscp_line[n]);
	l->dscp_line[n] = (int)v->start_mark.line + 1;
	l->rf->qos.prio_of_dscp[n] = (uint8_t)prio;
	return 0;
}

struct tclass {
	struct rload *l;
	unsigned long long prio;
	const yaml_node_t *prio_node, *dscp;
};

static int tclass_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct tclass *t = arg;
	if (strcmp(key, "priority") == 0) {
		t->prio_node = v;
		return ydoc_uint(d, "priority", v, 0, ROCE_PRIOS - 1, &t->prio);
	}
	if (strcmp(key, "dscp") == 0) {
		t->dscp = v;
		return 0;
	}
	return ydoc_fail(d, v, "unknown key '%s' in a traffic class (expected priority or dscp)", key);
}

static int tclass_dscp(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct tclass *t = arg;
	return set_dscp(d, t->l, item, (unsigned)t->prio);
}

/* { priority: P, dscp: D or [D, ...] } into t. */
static int read_tclass(struct ydoc *d, const char *what, const yaml_node_t *v, struct tclass *t)
{
	if (ydoc_each_pair(d, what, v, tclass_pair, t) < 0)
		return -1;
	if (!t->prio_node || !t->dscp)
		return ydoc_fail(d, v, "%s needs a priority and a dscp", what);
	if (t->dscp->type == YAML_SEQUENCE_NODE)
		return ydoc_each_item(d, "dscp", t->dscp, tclass_dscp, t);
	return set_dscp(d, t->l, t->dscp, (unsigned)t->prio);
}

static int lossless_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct rload *l = arg;
	struct tclass t = { .l = l };
	if (read_tclass(d, "a lossless class", item, &t) < 0)
		return -1;
	if (l->prio_lossless[t.prio])
		return ydoc_fail(d, t.prio_node, "priority %llu is already lossless", t.prio);
	l->prio_lossless[t.prio] = true;
	l->rf->qos.lossless[l->rf->qos.nlossless++] = (uint8_t)t.prio;
	return 0;
}

static int ecn_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct roce_qos *q = arg;
	if (strcmp(key, "min_kb") == 0)
		return ydoc_number(d, "ecn.min_kb", v, 0, 1e6, &q->ecn_min_kb);
	if (strcmp(key, "max_kb") == 0)
		return ydoc_number(d, "ecn.max_kb", v, 0, 1e6, &q->ecn_max_kb);
	if (strcmp(key, "probability") == 0)
		return ydoc_number(d, "ecn.probability", v, 0, 100, &q->ecn_probability);
	return ydoc_fail(d, v, "unknown key 'ecn.%s' (expected min_kb, max_kb or probability)", key);
}

struct qos_read {
	struct rload *l;
	const yaml_node_t *lossless, *cnp;
};

static int qos_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct qos_read *q = arg;
	if (strcmp(key, "lossless") == 0)
		q->lossless = v;
	else if (strcmp(key, "cnp") == 0)
		q->cnp = v;
	else if (strcmp(key, "ecn") == 0)
		return ydoc_each_pair(d, "qos.ecn", v, ecn_pair, &q->l->rf->qos);
	else
		return ydoc_fail(d, v, "unknown key 'qos.%s' (expected lossless, cnp or ecn)", key);
	return 0;
}

static int read_qos(struct ydoc *d, struct rload *l)
{
	struct roce_qos *q = &l->rf->qos;
	struct qos_read r = { .l = l };
	if (l->qos && ydoc_each_pair(d, "qos", l->qos, qos_pair, &r) < 0)
		return -1;
	if (r.lossless) {
		if (ydoc_each_item(d, "qos.lossless", r.lossless, lossless_item, l) < 0)
			return -1;
		if (!q->nlossless)
			return ydoc_fail(d, r.lossless, "qos.lossless is empty: RoCE needs one lossless priority");
	} else {
		q->lossless[q->nlossless++] = 3;	/* the common RoCE v2 choice */
		l->prio_lossless[3] = true;
		q->prio_of_dscp[26] = 3;
		l->dscp_line[26] = -1;
	}
	if (r.cnp) {
		struct tclass t = { .l = l };
		if (read_tclass(d, "qos.cnp", r.cnp, &t) < 0)
			return -1;
		if (t.dscp->type != YAML_SCALAR_NODE)
			return ydoc_fail(d, t.dscp, "qos.cnp takes one dscp");
		if (l->prio_lossless[t.prio])
			return ydoc_fail(d, t.prio_node, "CNPs must not share lossless priority %llu", t.prio);
		q->cnp_prio = (uint8_t)t.prio;
		q->cnp_dscp = (uint8_t)strtoul((const char *)t.dscp->data.scalar.value, NULL, 0);
	} else {
		if (l->prio_lossless[6] || l->dscp_line[48])
			return ydoc_fail(d, l->qos, "the default CNP class (priority 6, DSCP 48) clashes: set qos.cnp");
		q->cnp_prio = 6;
		q->cnp_dscp = 48;
		q->prio_of_dscp[48] = 6;
	}
	if (q->ecn_max_kb && q->ecn_min_kb > q->ecn_max_kb)
		return ydoc_fail(d, l->qos, "qos.ecn.min_kb is above max_kb");
	return 0;
}

struct sw_read {
	struct rload *l;
	struct roce_switch *sw;
	bool have_tier;
	const yaml_node_t *host_ports;
};

static int prefix_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct sw_read *s = arg;
	char pfx[ROCE_ADDR_LEN], why[160];
	if (ydoc_string(d, "prefix", item, pfx, sizeof(pfx)) < 0)
		return -1;
	if (!roce_valid_addr(pfx, true, why, sizeof(why)))
		return ydoc_fail(d, item, "%s", why);
	const struct roce_fabric *rf = s->l->rf;
	for (size_t i = 0; i < rf->nsw; i++)
		for (size_t k = 0; k < rf->sw[i].nprefixes; k++)
			if (strcmp(rf->sw[i].prefixes[k], pfx) == 0)
				return ydoc_fail(d, item, "prefix %s is already behind %s", pfx, rf->sw[i].name);
	for (size_t k = 0; k < s->sw->nprefixes; k++)
		if (strcmp(s->sw->prefixes[k], pfx) == 0)
			return ydoc_fail(d, item, "prefix %s is listed twice", pfx);
	char (*more)[ROCE_ADDR_LEN] = realloc(s->sw->prefixes, (s->sw->nprefixes + 1) * sizeof(*more));
	if (!more)
		return ydoc_fail(d, item, "out of memory");
	s->sw->prefixes = more;
	snprintf(more[s->sw->nprefixes++], ROCE_ADDR_LEN, "%s", pfx);
	return 0;
}

static int switch_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct sw_read *s = arg;
	unsigned long long n;
	const char *str = NULL;
	char why[160];
	if (strcmp(key, "name") == 0) {
		if (ydoc_string(d, key, v, s->sw->name, sizeof(s->sw->name)) < 0)
			return -1;
		if (!s->sw->name[0] || strpbrk(s->sw->name, ": /"))
			return ydoc_fail(d, v, "switch name '%s' must be non-empty, without ':', '/' or spaces",
					 s->sw->name);
		size_t other = roce_find_switch(s->l->rf, s->sw->name);
		if (other != ROCE_NONE)
			return ydoc_fail(d, v, "switch %s is already described (line %u)", s->sw->name,
					 s->l->rf->sw[other].line);
		return 0;
	}
	if (strcmp(key, "tier") == 0) {
		if (ydoc_uint(d, key, v, 0, 15, &n) < 0)
			return -1;
		s->sw->tier = (unsigned)n;
		s->have_tier = true;
		return 0;
	}
	if (strcmp(key, "role") == 0) {
		static const char *roles[] = { "leaf", "spine", "superspine" };
		if (ydoc_scalar(d, key, v, &str) < 0)
			return -1;
		for (unsigned t = 0; t < 3; t++)
			if (strcmp(str, roles[t]) == 0) {
				s->sw->tier = t;
				s->have_tier = true;
				return 0;
			}
		return ydoc_fail(d, v, "role must be leaf, spine or superspine (or give tier: N), not '%s'", str);
	}
	if (strcmp(key, "asn") == 0) {
		if (ydoc_uint(d, key, v, 1, UINT32_MAX, &n) < 0)
			return -1;
		s->sw->asn = (uint32_t)n;
		return 0;
	}
	if (strcmp(key, "loopback") == 0) {
		if (ydoc_string(d, key, v, s->sw->loopback, sizeof(s->sw->loopback)) < 0)
			return -1;
		if (!roce_valid_addr(s->sw->loopback, false, why, sizeof(why)))
			return ydoc_fail(d, v, "%s", why);
		return 0;
	}
	if (strcmp(key, "prefixes") == 0)
		return ydoc_each_item(d, "prefixes", v, prefix_item, s);
	if (strcmp(key, "host_ports") == 0) {
		s->host_ports = v;
		return 0;
	}
	return ydoc_fail(d, v, "unknown switch key '%s' (expected name, tier, role, asn, loopback, prefixes or host_ports)",
			 key);
}

struct host_read {
	struct sw_read *s;
	const yaml_node_t *ports;
	double gbps, cable_m;
};

static int host_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct host_read *h = arg;
	if (strcmp(key, "ports") == 0) {
		h->ports = v;
		return 0;
	}
	if (strcmp(key, "speed") == 0)
		return get_speed(d, "host_ports.speed", v, &h->gbps);
	if (strcmp(key, "cable_m") == 0)
		return ydoc_number(d, "host_ports.cable_m", v, 0, 100000, &h->cable_m);
	return ydoc_fail(d, v, "unknown key 'host_ports.%s' (expected ports, speed or cable_m)", key);
}

static int add_host_port(struct ydoc *d, struct host_read *h, const yaml_node_t *at, const char *name)
{
	struct roce_switch *sw = h->s->sw;
	if (roce_find_port(sw, name) != ROCE_NONE)
		return ydoc_fail(d, at, "%s:%s is listed twice", sw->name, name);
	size_t p = roce_add_port(sw, name, h->gbps, h->cable_m);
	if (p == ROCE_NONE)
		return ydoc_fail(d, at, "out of memory");
	sw->ports[p].host = true;
	return 0;
}

/* "swp1-32" is swp1 .. swp32; anything else is one port. */
static int host_port_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct host_read *h = arg;
	char name[ROCE_NAME_LEN];
	if (ydoc_string(d, "host port", item, name, sizeof(name)) < 0)
		return -1;
	char *dash = strrchr(name, '-');
	size_t digits = 0;
	while (dash && dash - digits > name && dash[-1 - (long)digits] >= '0' && dash[-1 - (long)digits] <= '9')
		digits++;
	char *end;
	unsigned long hi = dash && digits ? strtoul(dash + 1, &end, 10) : 0;
	if (!dash || !digits || !dash[1] || *end)
		return add_host_port(d, h, item, name);
	unsigned long lo = strtoul(dash - digits, NULL, 10);
	if (lo > hi || hi - lo >= 256)
		return ydoc_fail(d, item, "port range '%s' must go up, by at most 256 ports", name);
	*(dash - digits) = '\0';
	for (unsigned long i = lo; i <= hi; i++) {
		char one[ROCE_NAME_LEN + 24];
		snprintf(one, sizeof(one), "%s%lu", name, i);
		if (strlen(one) >= ROCE_NAME_LEN)
			return ydoc_fail(d, item, "port name '%s' is too long", one);
		if (add_host_port(d, h, item, one) < 0)
			return -1;
	}
	return 0;
}

static int read_host_ports(struct ydoc *d, struct sw_read *s)
{
	struct host_read h = { .s = s, .gbps = s->l->gbps, .cable_m = s->l->cable_m };
	if (ydoc_each_pair(d, "host_ports", s->host_ports, host_pair, &h) < 0)
		return -1;
	if (!h.ports)
		return ydoc_fail(d, s->host_ports, "host_ports needs ports: (a name, a range like swp1-32, or a list)");
	if (h.ports->type == YAML_SEQUENCE_NODE)
		return ydoc_each_item(d, "host_ports.ports", h.ports, host_port_item, &h);
	return host_port_item(d, h.ports, &h);
}

static int switch_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct rload *l = arg;
	struct roce_fabric *rf = l->rf;
	struct roce_switch *more = realloc(rf->sw, (rf->nsw + 1) * sizeof(*more));
	if (!more)
		return ydoc_fail(d, item, "out of memory");
	rf->sw = more;
	struct roce_switch *sw = &rf->sw[rf->nsw];
	memset(sw, 0, sizeof(*sw));
	sw->line = (unsigned)item->start_mark.line + 1;
	struct sw_read s = { .l = l, .sw = sw };
	/* counted only once read whole, so the lookups above skip it */
	int rc = ydoc_each_pair(d, "a switch", item, switch_pair, &s);
	if (rc == 0 && !sw->name[0])
		rc = ydoc_fail(d, item, "a switch needs a name");
	if (rc == 0 && !s.have_tier)
		rc = ydoc_fail(d, item, "switch %s needs a tier (0 for leaves) or a role", sw->name);
	if (rc == 0 && s.host_ports)
		rc = read_host_ports(d, &s);
	if (rc < 0) {
		free(sw->ports);
		free(sw->prefixes);
		return -1;
	}
	rf->nsw++;
	return 0;
}

struct link_read {
	struct rload *l;
	const yaml_node_t *a, *b;
	double gbps, cable_m;
};

static int link_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct link_read *k = arg;
	if (strcmp(key, "a") == 0)
		k->a = v;
	else if (strcmp(key, "b") == 0)
		k->b = v;
	else if (strcmp(key, "speed") == 0)
		return get_speed(d, "speed", v, &k->gbps);
	else if (strcmp(key, "cable_m") == 0)
		return ydoc_number(d, "cable_m", v, 0, 100000, &k->cable_m);
	else
		return ydoc_fail(d, v, "unknown link key '%s' (expected a, b, speed or cable_m)", key);
	return 0;
}

/* "switch:port" into a new port of that switch. */
static int link_end(struct ydoc *d, struct link_read *k, const yaml_node_t *v, size_t *sw, size_t *port)
{
	char end[2 * ROCE_NAME_LEN];
	if (ydoc_string(d, "a link end", v, end, sizeof(end)) < 0)
		return -1;
	char *colon = strchr(end, ':');
	if (!colon || colon == end || !colon[1])
		return ydoc_fail(d, v, "a link end must be switch:port, not '%s'", end);
	*colon = '\0';
	struct roce_fabric *rf = k->l->rf;
	if ((*sw = roce_find_switch(rf, end)) == ROCE_NONE)
		return ydoc_fail(d, v, "unknown switch '%s'", end);
	if (strlen(colon + 1) >= ROCE_NAME_LEN)
		return ydoc_fail(d, v, "port name '%s' is too long", colon + 1);
	if (roce_find_port(&rf->sw[*sw], colon + 1) != ROCE_NONE)
		return ydoc_fail(d, v, "%s:%s is already in use", end, colon + 1);
	if ((*port = roce_add_port(&rf->sw[*sw], colon + 1, k->gbps, k->cable_m)) == ROCE_NONE)
		return ydoc_fail(d, v, "out of memory");
	return 0;
}

static int link_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct rload *l = arg;
	struct roce_fabric *rf = l->rf;
	struct link_read k = { .l = l, .gbps = l->gbps, .cable_m = l->cable_m };
	struct roce_link lk = { .line = (unsigned)item->start_mark.line + 1 };
	if (ydoc_each_pair(d, "a link", item, link_pair, &k) < 0)
		return -1;
	if (!k.a || !k.b)
		return ydoc_fail(d, item, "a link needs both ends, a: and b:");
	if (link_end(d, &k, k.a, &lk.a, &lk.pa) < 0 || link_end(d, &k, k.b, &lk.b, &lk.pb) < 0)
		return -1;
	if (lk.a == lk.b)
		return ydoc_fail(d, item, "link joins %s to itself", rf->sw[lk.a].name);
	struct roce_link *more = realloc(rf->links, (rf->nlinks + 1) * sizeof(*more));
	if (!more)
		return ydoc_fail(d, item, "out of memory");
	rf->links = more;
	rf->links[rf->nlinks++] = lk;
	struct roce_port *pa = &rf->sw[lk.a].ports[lk.pa], *pb = &rf->sw[lk.b].ports[lk.pb];
	pa->peer_sw = lk.b;
	pa->peer_port = lk.pb;
	pb->peer_sw = lk.a;
	pb->peer_port = lk.pa;
	return 0;
}

static int check_whole(struct ydoc *d, struct rload *l)
{
	const struct roce_fabric *rf = l->rf;
	const yaml_node_t *root = ydoc_root(d);
	size_t prefixes = 0;
	if (!l->switches || !rf->nsw)
		return ydoc_fail(d, l->switches ? l->switches : root, "the fabric has no switches");
	for (size_t i = 0; i < rf->nsw; i++) {
		const struct roce_switch *sw = &rf->sw[i];
		bool linked = false;
		for (size_t p = 0; p < sw->nports; p++)
			linked |= !sw->ports[p].host;
		if (!linked && rf->nsw > 1) {
			snprintf(d->err, d->errlen, "%s:%u: switch %s has no links", d->file, sw->line, sw->name);
			return -1;
		}
		if (sw->nports > 254) {
			snprintf(d->err, d->errlen, "%s:%u: switch %s has %zu ports; at most 254 are supported",
				 d->file, sw->line, sw->name, sw->nports);
			return -1;
		}
		prefixes += sw->nprefixes;
	}
	if (!prefixes)
		return ydoc_fail(d, l->switches, "no switch has prefixes: there is nothing to route to");
	return 0;
}

int roce_load(const char *path, struct roce_fabric *rf, char err[ROCE_ERR_LEN])
{
	struct ydoc d;
	struct rload l = { .rf = rf, .gbps = 100, .cable_m = 3 };
	memset(rf, 0, sizeof(*rf));
	rf->mtu = 9216;
	if (ydoc_load(&d, path, err, ROCE_ERR_LEN) < 0)
		return -1;
	const yaml_node_t *root = ydoc_root(&d);
	int rc = -1;
	if (!root)
		snprintf(err, ROCE_ERR_LEN, "%s:1: the file is empty", path);
	else if (ydoc_each_pair(&d, "the fabric", root, top_pair, &l) == 0 && read_qos(&d, &l) == 0 &&
		 (!l.switches || ydoc_each_item(&d, "switches", l.switches, switch_item, &l) == 0) &&
		 (!l.links || ydoc_each_item(&d, "links", l.links, link_item, &l) == 0))
		rc = check_whole(&d, &l);
	ydoc_free(&d);
	if (rc < 0)
		roce_free(rf);
	return rc;
}
