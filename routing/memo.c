/*
 * DOC: the last fresh routing, kept
 *
 * A fresh routing (engine and proof) depends on the fabric and on the
 * request's engine, roots and VLs, nothing else. The memo keeps the last
 * one that proved out with a description of its fabric, node by node in
 * the fabric's order (the tables are indexed by node): each node's GUID,
 * type and ports, each port's LID and the GUID and port at its far end. A
 * fabric that matches it exactly, with the same request, gets the same
 * tables and result without routing again: a link that comes back after a
 * repair mended around it, or a flapping one.
 */
#include "routing/memo.h"

#include <stdlib.h>
#include <string.h>

static struct memo_port port_of(const struct node *n, unsigned p)
{
	const struct node *r = n->ports[p].remote;
	return (struct memo_port){ r ? r->guid : 0, n->ports[p].lid, r ? n->ports[p].remote_port : 0 };
}

static bool same_request(const struct routing_memo *m, const struct routing_request *rq)
{
	unsigned layers = rq->max_layers ? rq->max_layers : 1;
	return m->engine == rq->engine && m->max_layers == layers && m->nroots == rq->nroots &&
	       (!rq->nroots || memcmp(m->roots, rq->roots, rq->nroots * sizeof(*rq->roots)) == 0);
}

bool routing_memo_fits(const struct routing_memo *m, const struct fabric *f, const struct routing_request *rq)
{
	if (!m || !m->held || m->nnodes != f->nnodes || !same_request(m, rq) || m->t.max_lid != routing_max_lid(f))
		return false;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		const struct memo_node *k = &m->node[i];
		if (k->guid != n->guid || k->type != n->type || k->nports != n->nports)
			return false;
		for (unsigned p = 0; p <= n->nports; p++) {
			struct memo_port was = m->port[k->first_port + p], is = port_of(n, p);
			if (was.remote_guid != is.remote_guid || was.lid != is.lid || was.remote_port != is.remote_port)
				return false;
		}
	}
	return true;
}

void routing_memo_free(struct routing_memo *m)
{
	free(m->node);
	free(m->port);
	free(m->roots);
	routing_tables_free(&m->t);
	memset(m, 0, sizeof(*m));
}

int routing_memo_keep(struct routing_memo *m, const struct fabric *f, const struct routing_request *rq,
		      const struct routing_tables *t, const struct routing_result *res)
{
	size_t ports = 0;
	routing_memo_free(m);
	for (size_t i = 0; i < f->nnodes; i++)
		ports += (size_t)f->nodes[i]->nports + 1;
	m->node = malloc((f->nnodes + 1) * sizeof(*m->node));
	m->port = malloc((ports + 1) * sizeof(*m->port));
	m->roots = malloc((rq->nroots + 1) * sizeof(*m->roots));
	if (!m->node || !m->port || !m->roots || routing_tables_copy(&m->t, t) < 0) {
		routing_memo_free(m);
		return -1;
	}
	m->nnodes = f->nnodes;
	for (size_t i = 0, at = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		m->node[i] = (struct memo_node){ n->guid, (uint8_t)n->type, n->nports, at };
		for (unsigned p = 0; p <= n->nports; p++)
			m->port[at++] = port_of(n, p);
	}
	m->engine = rq->engine;
	m->max_layers = rq->max_layers ? rq->max_layers : 1;
	m->nroots = rq->nroots;
	if (rq->nroots)
		memcpy(m->roots, rq->roots, rq->nroots * sizeof(*rq->roots));
	m->res = *res;
	m->held = true;
	return 0;
}
