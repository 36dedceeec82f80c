/*
 * DOC: fabric diff
 *
 * Nodes match by GUID; a link matches when the same GUID:port pair is
 * cabled to the same GUID:port pair. Each link is reported once, from the
 * end whose (GUID, port) sorts first.
 */
#include "topology/fabric_diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct changes {
	struct fabric_change *v;
	size_t n, cap;
	int failed;
};

static struct fabric_change *add(struct changes *c, enum fabric_change_kind kind)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct fabric_change *v = realloc(c->v, cap * sizeof(*v));
		if (!v) {
			c->failed = 1;
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].kind = kind;
	return &c->v[c->n++];
}

static bool first_end(const struct node *n, unsigned p)
{
	const struct port *pt = &n->ports[p];
	return n->guid < pt->remote->guid || (n->guid == pt->remote->guid && p < pt->remote_port);
}

static bool same_link(const struct node *n, unsigned p, const struct fabric *other)
{
	const struct node *o = fabric_find_guid(other, n->guid);
	if (!o || p > o->nports || !o->ports[p].remote)
		return false;
	return o->ports[p].remote->guid == n->ports[p].remote->guid &&
	       o->ports[p].remote_port == n->ports[p].remote_port;
}

/* Reports what `a` has and `b` lacks, as the given kinds. */
static void one_way(struct changes *c, const struct fabric *a, const struct fabric *b,
		    enum fabric_change_kind node_kind, enum fabric_change_kind link_kind)
{
	for (size_t i = 0; i < a->nnodes && !c->failed; i++) {
		const struct node *n = a->nodes[i];
		struct fabric_change *ch;
		if (!fabric_find_guid(b, n->guid) && (ch = add(c, node_kind)))
			snprintf(ch->text, sizeof(ch->text), "%s %s (0x%016" PRIx64 ")",
				 fabric_node_type_name(n->type), n->desc, n->guid);
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct port *pt = &n->ports[p];
			if (!pt->remote || !first_end(n, p) || same_link(n, p, b))
				continue;
			if ((ch = add(c, link_kind)))
				snprintf(ch->text, sizeof(ch->text), "%s[%u] <-> %s[%u]", n->desc, p,
					 pt->remote->desc, pt->remote_port);
		}
	}
}

int fabric_diff(const struct fabric *before, const struct fabric *after, struct fabric_change **out,
		size_t *n)
{
	struct changes c = { 0 };
	one_way(&c, before, after, CHANGE_NODE_REMOVED, CHANGE_LINK_DOWN);
	one_way(&c, after, before, CHANGE_NODE_ADDED, CHANGE_LINK_UP);
	if (c.failed) {
		free(c.v);
		return -1;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

const char *fabric_change_name(enum fabric_change_kind k)
{
	static const char *names[] = { "node_added", "node_removed", "link_up", "link_down" };
	return names[k];
}
