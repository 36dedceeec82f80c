/*
 * DOC: multicast trees
 *
 * One breadth-first tree over the switch links, from the switch with the
 * most switch links (lowest GUID on a tie), or from another a caller names
 * (mtree_build_at): each switch's parent is one hop closer to that root.
 * A group's tree is the union of the paths from its members' switches up
 * to the root, plus the member ports, less the stub above the switch where
 * the paths meet; a group of fewer than two members has none (as OpenSM
 * builds it). A packet entering a switch from a child goes on to the
 * parent and the other children; from the parent, only down to children:
 * no turn ever goes from down back up, so the group's own dependencies
 * cannot close a cycle.
 */
#include "routing/mtree.h"

#include <stdlib.h>

#include "routing/depgraph.h"
#include "routing/swindex.h"

/* Members whose port reaches a switch: only those can send or receive through the tree. */
static size_t attached(const struct mtree_member *m, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += m[i].ca->ports[m[i].port].remote && m[i].ca->ports[m[i].port].remote->type == NODE_SWITCH;
	return c;
}

static unsigned switch_links(const struct swindex *x, size_t s)
{
	unsigned c = 0;
	for (unsigned p = 1; p <= x->sw[s]->nports; p++)
		c += swindex_peer(x, x->sw[s], p) != SW_NONE;
	return c;
}

/* Whether switch s comes before t as a root: more switch links, then the lower GUID. */
static bool root_before(const struct swindex *x, size_t s, size_t t)
{
	unsigned a = switch_links(x, s), b = switch_links(x, t);
	return a > b || (a == b && x->sw[s]->guid < x->sw[t]->guid);
}

/* The first switch in root order, or SW_NONE in a fabric without switches. */
static size_t first_root(const struct swindex *x)
{
	size_t best = SW_NONE;
	for (size_t s = 0; s < x->nsw; s++)
		if (best == SW_NONE || root_before(x, s, best))
			best = s;
	return best;
}

/* The breadth-first tree from root: each switch's parent (root's is itself; SW_NONE: unreached) and the port up. */
static void bfs_from(const struct swindex *x, size_t root, size_t *queue, size_t *parent, uint8_t *up_port)
{
	size_t head = 0, tail = 0;
	for (size_t s = 0; s < x->nsw; s++)
		parent[s] = SW_NONE;
	parent[root] = root;
	queue[tail++] = root;
	while (head < tail) {	/* children record the port that leads up */
		size_t v = queue[head++];
		for (unsigned p = 1; p <= x->sw[v]->nports; p++) {
			size_t w = swindex_peer(x, x->sw[v], p);
			if (w != SW_NONE && parent[w] == SW_NONE) {
				parent[w] = v;
				up_port[w] = x->sw[v]->ports[p].remote_port;
				queue[tail++] = w;
			}
		}
	}
}

/* The switch member m hangs off, or SW_NONE. */
static size_t member_switch(const struct swindex *x, const struct mtree_member *m)
{
	const struct port *cp = &m->ca->ports[m->port];
	return cp->remote && cp->remote->type == NODE_SWITCH ? x->of_node[cp->remote->index] : SW_NONE;
}

/* The group's tree over the breadth-first tree (parent, up_port) from root, into on. */
static void tree_from(const struct swindex *x, size_t root, const size_t *parent, const uint8_t *up_port,
		      const struct mtree_member *m, size_t n, bool **on)
{
	/* one member alone has nobody to reach: no tree (a switch never sends a packet back where it came from) */
	size_t members = attached(m, n);
	for (size_t i = 0; members >= 2 && i < n; i++) {
		size_t s = member_switch(x, &m[i]);
		if (s == SW_NONE)
			continue;
		const struct port *cp = &m[i].ca->ports[m[i].port];
		on[cp->remote->index][cp->remote_port] = true;
		/* climb until the path joins the tree (or reaches the root) */
		while (parent[s] != SW_NONE && parent[s] != s) {
			const struct node *sw = x->sw[s], *up = x->sw[parent[s]];
			bool joined = on[sw->index][up_port[s]];
			on[sw->index][up_port[s]] = true;
			on[up->index][sw->ports[up_port[s]].remote_port] = true;
			if (joined)
				break;
			s = parent[s];
		}
	}
	/* above the members' meeting point the paths are one stub up to the root: cut it off */
	for (size_t r = root; members >= 2;) {
		const struct node *sw = x->sw[r];
		unsigned used = 0, last = 0;
		for (unsigned p = 1; p <= sw->nports; p++)
			if (on[sw->index][p]) {
				used++;
				last = p;
			}
		size_t child = used == 1 ? swindex_peer(x, sw, last) : SW_NONE;
		if (child == SW_NONE)
			break;
		on[sw->index][last] = false;
		on[x->sw[child]->index][sw->ports[last].remote_port] = false;
		r = child;
	}
}

uint64_t mtree_first_root(const struct fabric *f)
{
	struct swindex x;
	if (swindex_build(&x, f) < 0)
		return 0;
	size_t root = first_root(&x);
	uint64_t guid = root == SW_NONE ? 0 : x.sw[root]->guid;
	swindex_free(&x);
	return guid;
}

int mtree_build(const struct fabric *f, const struct mtree_member *m, size_t n, bool **on)
{
	return mtree_build_at(f, m, n, 0, on);
}

int mtree_build_at(const struct fabric *f, const struct mtree_member *m, size_t n, uint64_t root_guid, bool **on)
{
	struct swindex x;
	if (swindex_build(&x, f) < 0)
		return -1;
	size_t *queue = malloc((x.nsw + 1) * sizeof(*queue)), *parent = malloc((x.nsw + 1) * sizeof(*parent));
	uint8_t *up_port = malloc(x.nsw + 1);
	int rc = queue && parent && up_port && x.nsw ? 0 : -1;
	const struct node *by_guid = root_guid ? fabric_find_guid(f, root_guid) : NULL;
	size_t root = !root_guid ? first_root(&x)	/* mtree_build's own */
		      : by_guid && by_guid->type == NODE_SWITCH ? x.of_node[by_guid->index] : SW_NONE;
	if (rc == 0 && root == SW_NONE)
		rc = 1;
	if (rc == 0) {
		bfs_from(&x, root, queue, parent, up_port);
		tree_from(&x, root, parent, up_port, m, n, on);
	}
	free(queue);
	free(parent);
	free(up_port);
	swindex_free(&x);
	return rc;
}

/*
 * How many switches with CAs lie inside the members' climbs to the root
 * (not where a climb starts): a packet crossing such a leaf between two
 * switches above it turns down and up again, the turn that closes cycles
 * with up*-down* routes.
 */
static size_t leaves_inside(const struct swindex *x, const size_t *parent, const bool *has_ca,
			    const struct mtree_member *m, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		size_t s = member_switch(x, &m[i]);
		if (s == SW_NONE)
			continue;
		for (s = parent[s]; s != SW_NONE && parent[s] != s; s = parent[s])
			count += has_ca[s];
	}
	return count;
}

/* Switches weighed as roots by mtree_roots: the next in mtree_build's order (a breadth-first search each). */
#define MTREE_ROOT_CANDIDATES 64

struct ranked_root {
	size_t sw;
	size_t inside;
};

static int cmp_ranked(const void *a, const void *b, void *arg)
{
	const struct ranked_root *r = a, *q = b;
	if (r->inside != q->inside)
		return r->inside < q->inside ? -1 : 1;
	return root_before(arg, r->sw, q->sw) ? -1 : root_before(arg, q->sw, r->sw);
}

static int cmp_root_order(const void *a, const void *b, void *arg)
{
	size_t s = *(const size_t *)a, t = *(const size_t *)b;
	return root_before(arg, s, t) ? -1 : root_before(arg, t, s);
}

size_t mtree_roots(const struct fabric *f, const struct mtree_member *m, size_t n, uint64_t *out, size_t max)
{
	struct swindex x;
	if (swindex_build(&x, f) < 0)
		return 0;
	size_t *queue = malloc((x.nsw + 1) * sizeof(*queue)), *parent = malloc((x.nsw + 1) * sizeof(*parent));
	uint8_t *up_port = malloc(x.nsw + 1);
	bool *has_ca = calloc(x.nsw + 1, sizeof(*has_ca));
	struct ranked_root *r = malloc((x.nsw + 1) * sizeof(*r));
	size_t *order = malloc((x.nsw + 1) * sizeof(*order)), got = 0;
	/* after mtree_build's own root (order[0]), which the caller has tried */
	size_t candidates = x.nsw < 2 ? 0 : x.nsw - 1 < MTREE_ROOT_CANDIDATES ? x.nsw - 1 : MTREE_ROOT_CANDIDATES;
	if (queue && parent && up_port && has_ca && r && order) {
		for (size_t s = 0; s < x.nsw; s++) {
			order[s] = s;
			for (unsigned p = 1; p <= x.sw[s]->nports; p++)
				has_ca[s] |= x.sw[s]->ports[p].remote && x.sw[s]->ports[p].remote->type != NODE_SWITCH;
		}
		qsort_r(order, x.nsw, sizeof(*order), cmp_root_order, &x);
		for (size_t k = 0; k < candidates; k++) {
			bfs_from(&x, order[k + 1], queue, parent, up_port);
			r[k] = (struct ranked_root){ order[k + 1], leaves_inside(&x, parent, has_ca, m, n) };
		}
		qsort_r(r, candidates, sizeof(*r), cmp_ranked, &x);
		for (; got < max && got < candidates; got++)
			out[got] = x.sw[r[got].sw]->guid;
	}
	free(order);
	free(queue);
	free(parent);
	free(up_port);
	free(has_ca);
	free(r);
	swindex_free(&x);
	return got;
}

int mtree_dependencies(const struct fabric *f, bool *const *on, struct depgraph *g)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned in = 1; n->type == NODE_SWITCH && in <= n->nports; in++) {
			const struct node *from = n->ports[in].remote;
			/* packets come in where the switch across sends them: in a union of trees, not only where n does */
			if (!from || from->type != NODE_SWITCH || !on[from->index][n->ports[in].remote_port])
				continue;	/* injection from a CA depends on nothing */
			for (unsigned out = 1; out <= n->nports; out++)
				if (out != in && on[i][out] && n->ports[out].remote &&
				    n->ports[out].remote->type == NODE_SWITCH &&
				    depgraph_add(g, from, n->ports[in].remote_port, n, (uint8_t)out) < 0)
					return -1;
		}
	}
	return 0;
}
