/*
 * DOC: switch ranking
 *
 * Both rankings are breadth-first searches over switch-to-switch links.
 * A fat tree ranked from its leaves (or from its roots) has every link
 * between adjacent levels; anything else (a link inside a level, a switch
 * no search reached, a host above level 0) is named in r->why, and the
 * engines fall back to plain up/down on that fabric.
 */
#include "routing/rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rank_free(struct rank *r)
{
	free(r->level);
	memset(r, 0, sizeof(*r));
}

bool rank_has_hosts(const struct node *n)
{
	for (unsigned p = 1; p <= n->nports; p++)
		if (n->ports[p].remote && n->ports[p].remote->type != NODE_SWITCH)
			return true;
	return false;
}

/* BFS from the switches already at depth 0 in level[] (others RANK_NONE). */
static int bfs(const struct swindex *x, uint32_t *level)
{
	size_t *queue = malloc((x->nsw + 1) * sizeof(*queue)), head = 0, tail = 0;
	if (!queue)
		return -1;
	for (size_t s = 0; s < x->nsw; s++)
		if (level[s] == 0)
			queue[tail++] = s;
	while (head < tail) {
		size_t s = queue[head++];
		const struct node *n = x->sw[s];
		for (unsigned p = 1; p <= n->nports; p++) {
			size_t r = swindex_peer(x, n, p);
			if (r != SW_NONE && level[r] == RANK_NONE) {
				level[r] = level[s] + 1;
				queue[tail++] = r;
			}
		}
	}
	free(queue);
	return 0;
}

static int rank_alloc(struct rank *r, const struct swindex *x)
{
	memset(r, 0, sizeof(*r));
	if (!(r->level = malloc((x->nsw + 1) * sizeof(*r->level))))
		return -1;
	for (size_t s = 0; s < x->nsw; s++)
		r->level[s] = RANK_NONE;
	return 0;
}

/* Checks the fat-tree shape; the first violation goes to r->why. */
static void check_shape(struct rank *r, const struct swindex *x)
{
	r->fat_tree = true;
	for (size_t s = 0; s < x->nsw && r->fat_tree; s++) {
		const struct node *n = x->sw[s];
		if (r->level[s] == RANK_NONE) {
			snprintf(r->why, sizeof(r->why), "switch %s is not connected to the others", n->desc);
			r->fat_tree = false;
			break;
		}
		if (r->level[s] > 0 && rank_has_hosts(n)) {
			snprintf(r->why, sizeof(r->why), "switch %s has hosts but sits at level %u", n->desc,
				 r->level[s]);
			r->fat_tree = false;
			break;
		}
		for (unsigned p = 1; p <= n->nports; p++) {
			size_t o = swindex_peer(x, n, p);
			if (o == SW_NONE || r->level[o] == RANK_NONE)
				continue;
			uint32_t a = r->level[s], b = r->level[o];
			if (a != b + 1 && b != a + 1) {
				snprintf(r->why, sizeof(r->why), "link %s[%u] - %s[%u] joins levels %u and %u",
					 n->desc, p, x->sw[o]->desc, n->ports[p].remote_port, a, b);
				r->fat_tree = false;
				break;
			}
		}
	}
}

static void find_top(struct rank *r, const struct swindex *x)
{
	r->top = 0;
	for (size_t s = 0; s < x->nsw; s++)
		if (r->level[s] != RANK_NONE && r->level[s] > r->top)
			r->top = r->level[s];
}

/* Turns depths from the top into levels from the bottom. */
static void invert(struct rank *r, const struct swindex *x)
{
	find_top(r, x);
	for (size_t s = 0; s < x->nsw; s++)
		if (r->level[s] != RANK_NONE)
			r->level[s] = r->top - r->level[s];
}

int rank_fat_tree(struct rank *r, const struct swindex *x, const uint64_t *roots, size_t nroots)
{
	if (rank_alloc(r, x) < 0)
		return -1;
	size_t seeds = 0;
	for (size_t s = 0; s < x->nsw; s++) {
		bool seed = false;
		if (!nroots)
			seed = rank_has_hosts(x->sw[s]);
		for (size_t i = 0; i < nroots && !seed; i++)
			seed = x->sw[s]->guid == roots[i];
		if (seed) {
			r->level[s] = 0;
			seeds++;
		}
	}
	if (bfs(x, r->level) < 0) {
		rank_free(r);
		return -1;
	}
	if (nroots)
		invert(r, x);
	else
		find_top(r, x);
	check_shape(r, x);
	if (!seeds) {
		snprintf(r->why, sizeof(r->why), nroots ? "none of the configured root GUIDs is a switch here"
							  : "no switch has hosts");
		r->fat_tree = false;
	}
	return 0;
}

static unsigned switch_links(const struct swindex *x, size_t s)
{
	unsigned c = 0;
	for (unsigned p = 1; p <= x->sw[s]->nports; p++)
		c += swindex_peer(x, x->sw[s], p) != SW_NONE;
	return c;
}

int rank_from_center(struct rank *r, const struct swindex *x)
{
	if (rank_alloc(r, x) < 0)
		return -1;
	size_t root = 0;
	for (size_t s = 1; s < x->nsw; s++) {
		unsigned a = switch_links(x, s), b = switch_links(x, root);
		if (a > b || (a == b && x->sw[s]->guid < x->sw[root]->guid))
			root = s;
	}
	if (x->nsw)
		r->level[root] = 0;
	if (bfs(x, r->level) < 0) {
		rank_free(r);
		return -1;
	}
	invert(r, x);
	r->fat_tree = false;
	snprintf(r->why, sizeof(r->why), "up/down from root %s", x->nsw ? x->sw[root]->desc : "-");
	return 0;
}
