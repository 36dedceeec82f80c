/*
 * DOC: partitions
 *
 *   partitions:
 *     - { name: tenant-a, pkey: 0x0a01, full: ["gpu-a*", 0x0002c90300001234], limited: [all] }
 *     - { name: storage,  pkey: 0x0b01, full: [all] }
 *
 * A member is "all", a node or port GUID, or a glob over node
 * descriptions (fnmatch). A port named both full and limited is full.
 * Unless 0x7fff is configured, every port is a full member of the
 * default partition, as on an unconfigured subnet; fabricd's own port is
 * a full member of every partition (it must reach every port).
 */
#include "sm/partition.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

bool partition_member_matches(const struct part_member *m, const struct node *n, uint8_t port)
{
	if (m->all)
		return true;
	if (m->guid)
		return m->guid == n->guid || m->guid == n->ports[port].guid;
	return fnmatch(m->pattern, n->desc, 0) == 0;
}

unsigned partition_keys(const struct partitions *ps, const struct node *n, uint8_t port, bool sm_port,
			uint16_t *keys, unsigned max, unsigned *dropped)
{
	unsigned k = 0;
	bool default_configured = false;
	*dropped = 0;
	for (unsigned i = 0; i <= ps->n; i++) {
		uint16_t key = 0;
		if (i == ps->n) {	/* the default partition comes last unless configured */
			if (default_configured)
				break;
			key = PART_DEFAULT_PKEY | PART_FULL;
		} else {
			const struct partition *p = &ps->p[i];
			default_configured |= p->pkey == PART_DEFAULT_PKEY;
			for (unsigned m = 0; m < p->nmembers; m++)
				if (partition_member_matches(&p->members[m], n, port))
					key |= p->members[m].full ? PART_FULL | p->pkey : p->pkey;
			if (sm_port)
				key = PART_FULL | p->pkey;
		}
		if (!key)
			continue;
		if (k < max)
			keys[k++] = key;
		else
			++*dropped;
	}
	return k;
}

struct member_read {
	struct partition *p;
	bool full;
};

static int member_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct member_read *r = arg;
	struct partition *p = r->p;
	const char *s = NULL;
	if (item->type != YAML_SCALAR_NODE || ydoc_scalar(d, "a member", item, &s) < 0 || !*s)
		return ydoc_fail(d, item, "unknown member: a member is all, a GUID or a node description pattern");
	if (p->nmembers == PART_MAX_MEMBERS)
		return ydoc_fail(d, item, "partition %s has more than %d member entries", p->name, PART_MAX_MEMBERS);
	struct part_member *m = &p->members[p->nmembers];
	memset(m, 0, sizeof(*m));
	if (strlen(s) >= sizeof(m->pattern))
		return ydoc_fail(d, item, "member '%s' is longer than %zu characters", s, sizeof(m->pattern) - 1);
	snprintf(m->pattern, sizeof(m->pattern), "%s", s);
	m->full = r->full;
	m->line = (unsigned)item->start_mark.line + 1;
	m->all = strcmp(s, "all") == 0;
	if (strncmp(s, "0x", 2) == 0) {
		char *end;
		errno = 0;
		m->guid = strtoull(s, &end, 16);
		if (*end || errno || !m->guid)
			return ydoc_fail(d, item, "unknown member '%s': not a GUID", s);
	}
	p->nmembers++;
	return 0;
}

static int partition_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct partition *p = arg;
	unsigned long long n;
	if (strcmp(key, "name") == 0)
		return ydoc_string(d, key, v, p->name, sizeof(p->name));
	if (strcmp(key, "pkey") == 0) {
		if (ydoc_uint(d, key, v, 0, UINT16_MAX, &n) < 0)
			return -1;
		if (n == 0 || n > PART_DEFAULT_PKEY)
			return ydoc_fail(d, v, "pkey must be 0x0001..0x7fff (membership is set per member), not 0x%llx",
					 n);
		p->pkey = (uint16_t)n;
		return 0;
	}
	if (strcmp(key, "full") == 0 || strcmp(key, "limited") == 0) {
		struct member_read r = { p, key[0] == 'f' };
		return ydoc_each_item(d, key, v, member_item, &r);
	}
	return ydoc_fail(d, v, "unknown partition key '%s' (expected name, pkey, full or limited)", key);
}

static int partition_item(struct ydoc *d, const yaml_node_t *item, void *arg)
{
	struct partitions *ps = arg;
	if (ps->n == PART_MAX)
		return ydoc_fail(d, item, "more than %d partitions", PART_MAX);
	struct partition *p = &ps->p[ps->n];
	memset(p, 0, sizeof(*p));
	p->line = (unsigned)item->start_mark.line + 1;
	if (ydoc_each_pair(d, "a partition", item, partition_pair, p) < 0)
		return -1;
	if (!p->pkey)
		return ydoc_fail(d, item, "partition %s needs a pkey (P_Key 0 is not valid)", p->name[0] ? p->name : "?");
	if (!p->nmembers)
		return ydoc_fail(d, item, "partition %s has no members (full: or limited:)", p->name);
	for (unsigned i = 0; i < ps->n; i++) {
		if (ps->p[i].pkey == p->pkey)
			return ydoc_fail(d, item, "duplicate P_Key 0x%04x (partition %s, line %u)", p->pkey,
					 ps->p[i].name, ps->p[i].line);
		if (p->name[0] && strcmp(ps->p[i].name, p->name) == 0)
			return ydoc_fail(d, item, "duplicate partition name %s (line %u)", p->name, ps->p[i].line);
	}
	if (!p->name[0])
		snprintf(p->name, sizeof(p->name), "pkey-0x%04x", p->pkey);
	ps->n++;
	return 0;
}

int partitions_parse(struct ydoc *d, const yaml_node_t *v, struct partitions *ps)
{
	ps->n = 0;
	return ydoc_each_item(d, "partitions", v, partition_item, ps);
}
