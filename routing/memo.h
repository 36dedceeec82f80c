/*
 * memo.h - the last fresh routing, kept with what it was a function of.
 * Routing is a pure function of the fabric and the request; a link that
 * comes back leaves the fabric as it was before it went down, and the
 * fresh routing of that fabric is the one the sweep before the loss
 * already computed and proved. The caller owns the memo; routing_compute
 * reads and refreshes it (routing_request.memo).
 */
#ifndef ROUTING_MEMO_H
#define ROUTING_MEMO_H

#include "routing/engine.h"

struct routing_memo {
	bool held;
	/* the fabric, node by node in its order: the tables are indexed by node */
	size_t nnodes;
	struct memo_node {
		uint64_t guid;
		uint8_t type, nports;
		size_t first_port;	/* into port[] */
	} *node;
	struct memo_port {
		uint64_t remote_guid;	/* 0: nothing cabled */
		uint16_t lid;
		uint8_t remote_port;
	} *port;
	/* the request, but for the tables the switches hold (a fresh routing does not read them) */
	enum routing_engine engine;
	unsigned max_layers;
	uint64_t *roots;
	size_t nroots;
	struct routing_tables t;	/* proven, with the SLs of its layering */
	struct routing_result res;
};

/* Whether m holds the fresh routing of f for rq. */
bool routing_memo_fits(const struct routing_memo *m, const struct fabric *f, const struct routing_request *rq);
/* m made to hold t, the proven fresh routing of f for rq, and its result; -1 on allocation failure (m emptied). */
int routing_memo_keep(struct routing_memo *m, const struct fabric *f, const struct routing_request *rq,
		      const struct routing_tables *t, const struct routing_result *res);
void routing_memo_free(struct routing_memo *m);

#endif
