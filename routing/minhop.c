/*
 * DOC: min-hop routing
 *
 * For each destination switch, a BFS over switch-to-switch links gives
 * every switch's hop count to it. Each destination LID (a switch's own, or
 * a CA port's, reached through the switch it hangs off) is then routed on
 * every switch through a port one hop closer. Ties go to the port with the
 * fewest LIDs routed so far, then the lowest port number, which spreads
 * destinations evenly over parallel links.
 *
 * Memory: one hop byte per (switch, switch) pair and one load counter per
 * switch port.
 */
#include "routing/routing.h"
#include "routing/swindex.h"

#include <stdlib.h>
#include <string.h>

#define HOPS_INF 0xff

struct minhop {
	struct swindex x;
	size_t nsw;
	struct node **sw;	/* == x.sw */
	uint8_t *hops;		/* hops[dst * nsw + src] */
	uint32_t **load;	/* load[switch index][port] */
};

static void bfs(struct minhop *m, size_t dst, size_t *queue)
{
	uint8_t *h = m->hops + dst * m->nsw;
	memset(h, HOPS_INF, m->nsw);
	size_t head = 0, tail = 0;
	h[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		size_t s = queue[head++];
		const struct node *n = m->sw[s];
		for (unsigned p = 1; p <= n->nports; p++) {
			size_t rs = swindex_peer(&m->x, n, p);
			if (rs != SW_NONE && h[rs] == HOPS_INF) {
				h[rs] = (uint8_t)(h[s] + 1);
				queue[tail++] = rs;
			}
		}
	}
}

/* Routes lid (attached to switch dst through port dst_port) on every switch. */
static void route_lid(struct minhop *m, struct routing_tables *t, uint16_t lid, size_t dst,
		      uint8_t dst_port)
{
	const uint8_t *h = m->hops + dst * m->nsw;
	for (size_t s = 0; s < m->nsw; s++) {
		const struct node *n = m->sw[s];
		uint8_t *lft = t->lft[n->index];
		if (s == dst) {
			lft[lid] = dst_port;
			if (dst_port)
				m->load[s][dst_port]++;
			continue;
		}
		if (h[s] == HOPS_INF)
			continue;
		unsigned best = 0;
		for (unsigned p = 1; p <= n->nports; p++) {
			size_t rs = swindex_peer(&m->x, n, p);
			if (rs == SW_NONE || h[rs] != h[s] - 1)
				continue;
			if (!best || m->load[s][p] < m->load[s][best])
				best = p;
		}
		lft[lid] = (uint8_t)best;
		m->load[s][best]++;
	}
}

static void free_minhop(struct minhop *m)
{
	if (m->load)
		for (size_t i = 0; i < m->nsw; i++)
			free(m->load[i]);
	free(m->load);
	free(m->hops);
	swindex_free(&m->x);
}

static int setup(struct minhop *m, const struct fabric *f)
{
	memset(m, 0, sizeof(*m));
	if (swindex_build(&m->x, f) < 0)
		return -1;
	m->nsw = m->x.nsw;
	m->sw = m->x.sw;
	m->hops = malloc(m->nsw * m->nsw + 1);
	m->load = calloc(m->nsw + 1, sizeof(*m->load));
	if (!m->hops || !m->load)
		return -1;
	for (size_t s = 0; s < m->nsw; s++)
		if (!(m->load[s] = calloc((size_t)m->sw[s]->nports + 1, sizeof(**m->load))))
			return -1;
	return 0;
}

int minhop_route(const struct fabric *f, struct routing_tables *out)
{
	struct minhop m;
	size_t *queue = NULL;
	int rc = -1;
	if (setup(&m, f) < 0 || routing_tables_alloc(out, f, routing_max_lid(f)) < 0)
		goto done;
	if (!(queue = malloc((m.nsw + 1) * sizeof(*queue))))
		goto done;
	for (size_t d = 0; d < m.nsw; d++)
		bfs(&m, d, queue);
	/* CA LIDs first: they carry the traffic, so they get the balance */
	for (size_t d = 0; d < m.nsw; d++) {
		const struct node *sw = m.sw[d];
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct node *r = sw->ports[p].remote;
			if (!r || r->type == NODE_SWITCH)
				continue;
			uint16_t lid = r->ports[sw->ports[p].remote_port].lid;
			if (lid && lid <= out->max_lid)
				route_lid(&m, out, lid, d, (uint8_t)p);
		}
	}
	for (size_t d = 0; d < m.nsw; d++)
		if (m.sw[d]->ports[0].lid)
			route_lid(&m, out, m.sw[d]->ports[0].lid, d, 0);
	rc = 0;
done:
	if (rc < 0)
		routing_tables_free(out);
	free(queue);
	free_minhop(&m);
	return rc;
}
