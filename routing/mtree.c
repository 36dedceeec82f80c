/*
 * DOC: multicast trees
 *
 * One breadth-first tree over the switch links, from the switch with the
 * most switch links (lowest GUID on a tie), or the next ones in that order
 * when a caller asks (mtree_build_from): each switch's parent is one hop
 * closer to that root. A group's tree is the union of the paths from
 * its members' switches up to the root, plus the member ports, less the
 * stub above the switch where the paths meet; a group of fewer than two
 * members has none (as OpenSM builds it). A packet
 * entering a switch from a child goes on to the parent and the other
 * children; from the parent, only down to children: no turn ever goes
 * from down back up, so the group's own dependencies cannot close a
 * cycle.
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

/* The choice-th switch in root order (0: the first), or SW_NONE when there are not that many. */
static size_t root_of(const struct swindex *x, unsigned choice)
{
	size_t prev = SW_NONE;
	for (unsigned k = 0; k <= choice; k++) {
		size_t best = SW_NONE;
		for (size_t s = 0; s < x->nsw; s++)
			if ((prev == SW_NONE || root_before(x, prev, s)) && (best == SW_NONE || root_before(x, s, best)))
				best = s;
		if (best == SW_NONE)
			return SW_NONE;
		prev = best;
	}
	return prev;
}

int mtree_build(const struct fabric *f, const struct mtree_member *m, size_t n, bool **on)
{
	return mtree_build_from(f, m, n, 0, on);
}

int mtree_build_from(const struct fabric *f, const struct mtree_member *m, size_t n, unsigned choice, bool **on)
{
	struct swindex x;
	if (swindex_build(&x, f) < 0)
		return -1;
	size_t *queue = malloc((x.nsw + 1) * sizeof(*queue)), *parent = malloc((x.nsw + 1) * sizeof(*parent));
	uint8_t *up_port = malloc(x.nsw + 1);
	int rc = queue && parent && up_port && x.nsw ? 0 : -1;
	size_t root = rc == 0 ? root_of(&x, choice) : SW_NONE;
	if (rc == 0 && root == SW_NONE)
		rc = 1;
	if (rc == 0) {
		size_t head = 0, tail = 0;
		for (size_t s = 0; s < x.nsw; s++)
			parent[s] = SW_NONE;
		parent[root] = root;
		queue[tail++] = root;
		while (head < tail) {	/* children record the port that leads up */
			size_t v = queue[head++];
			for (unsigned p = 1; p <= x.sw[v]->nports; p++) {
				size_t w = swindex_peer(&x, x.sw[v], p);
				if (w != SW_NONE && parent[w] == SW_NONE) {
					parent[w] = v;
					up_port[w] = x.sw[v]->ports[p].remote_port;
					queue[tail++] = w;
				}
			}
		}
		/* one member alone has nobody to reach: no tree (a switch never sends a packet back where it came from) */
		size_t members = attached(m, n);
		for (size_t i = 0; members >= 2 && i < n; i++) {
			const struct port *cp = &m[i].ca->ports[m[i].port];
			if (!cp->remote || cp->remote->type != NODE_SWITCH)
				continue;
			size_t s = x.of_node[cp->remote->index];
			on[cp->remote->index][cp->remote_port] = true;
			/* climb until the path joins the tree (or reaches the root) */
			while (parent[s] != SW_NONE && parent[s] != s) {
				const struct node *sw = x.sw[s], *up = x.sw[parent[s]];
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
			const struct node *sw = x.sw[r];
			unsigned used = 0, last = 0;
			for (unsigned p = 1; p <= sw->nports; p++)
				if (on[sw->index][p]) {
					used++;
					last = p;
				}
			size_t child = used == 1 ? swindex_peer(&x, sw, last) : SW_NONE;
			if (child == SW_NONE)
				break;
			on[sw->index][last] = false;
			on[x.sw[child]->index][sw->ports[last].remote_port] = false;
			r = child;
		}
	}
	free(queue);
	free(parent);
	free(up_port);
	swindex_free(&x);
	return rc;
}

int mtree_dependencies(const struct fabric *f, bool *const *on, struct depgraph *g)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned in = 1; n->type == NODE_SWITCH && in <= n->nports; in++) {
			const struct node *from = n->ports[in].remote;
			if (!on[i][in] || !from || from->type != NODE_SWITCH)
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
