/*
 * DOC: channel dependencies over VLs
 *
 * A packet's VL can change at every switch (the SL-to-VL table of its
 * input and output port), so a walk's state is (switch, input port) and
 * the graph's nodes are (output port, VL) pairs: per destination and SL,
 * each state is walked once, and each hop adds "(switch, out, VL) waits
 * for (next switch, its out, its VL)". One graph holds every VL, so a
 * scheme that changes VLs on the way (a dateline) is judged as a whole.
 *
 * Traffic starts where routing/cdg.c starts it: every CA's entry switch
 * (in on the port facing the CA) for every destination, on the
 * destination's SL; with answers, every LID sends to every CA on its own
 * SL (a CA from its entry switch, a switch from its port 0).
 *
 * A transition (q->before) is the mixture routing/transition.c proves:
 * from every state the walk follows both tables' entries, and each LID's
 * traffic runs on its old SL as well as its new one.
 */
#include "routing/cdg_vl.h"

#include <stdlib.h>
#include <string.h>

#define DROP_VL 15	/* a data SL mapped to VL 15 is discarded by the switch */

struct start {
	const struct node *sw;
	uint8_t in;
	uint8_t sl;		/* answers only: the sender's SL */
};

struct walker {
	const struct fabric *f;
	const struct cdg_vl_request *q;
	struct depgraph g;
	size_t *base;		/* state id = base[node index] + input port */
	uint32_t *mark;		/* per state: the walk generation that passed it */
	uint32_t generation;
	struct start *stack, *requests, *answers;
	size_t nrequests, nanswers;
	struct cdg_vl_missing *missing;
};

/* The VL of (sw, in, out) for sl; false with w->missing set when no table gives it. */
static bool vl_of(struct walker *w, const struct node *sw, unsigned in, unsigned out, unsigned sl, uint8_t *vl)
{
	*vl = sl2vl_get(w->q->vl, sw, in, out, sl);
	if (*vl != SL2VL_UNKNOWN)
		return true;
	*w->missing = (struct cdg_vl_missing){ sw, in, out };
	return false;
}

static void push(struct walker *w, const struct node *sw, uint8_t in, size_t *top)
{
	uint32_t *m = &w->mark[w->base[sw->index] + in];
	if (*m != w->generation) {
		*m = w->generation;
		w->stack[(*top)++] = (struct start){ sw, in, 0 };
	}
}

/* The ports sw may send lid out of: its entry in t, and in before when that differs. How many (0-2). */
static unsigned next_hops(const struct cdg_vl_request *q, const struct node *sw, uint16_t lid, uint8_t out[2])
{
	unsigned n = 0;
	out[n] = routing_next_hop(q->t, sw, lid);
	n += out[n] != 0;
	if (q->before) {
		out[n] = routing_next_hop(q->before, sw, lid);
		n += out[n] && (n == 0 || out[n] != out[0]);
	}
	return n;
}

/* The dependencies of the hop from state s out of port out, for lid on sl; pushes the next state. 0, -1, -2. */
static int hop(struct walker *w, struct start s, uint8_t out, uint16_t lid, unsigned sl, size_t *top)
{
	const struct node *next = routing_next_switch(s.sw, out);
	uint8_t vl, next_vl, next_out[2];
	if (!next)
		return 0;
	if (!vl_of(w, s.sw, s.in, out, sl, &vl))
		return -2;
	uint8_t in = s.sw->ports[out].remote_port;
	unsigned n = next_hops(w->q, next, lid, next_out);
	if (vl == DROP_VL || !n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		if (!vl_of(w, next, in, next_out[i], sl, &next_vl))
			return -2;
		if (next_vl != DROP_VL && depgraph_add_vl(&w->g, s.sw, out, vl, next, next_out[i], next_vl) < 0)
			return -1;
	}
	push(w, next, in, top);
	return 0;
}

/* Adds the dependencies of the traffic to lid on sl from the states on the stack; 0, -1 or -2. */
static int walk(struct walker *w, uint16_t lid, unsigned sl, size_t top)
{
	while (top) {
		struct start s = w->stack[--top];
		uint8_t out[2];
		unsigned n = next_hops(w->q, s.sw, lid, out);
		for (unsigned i = 0; i < n; i++) {
			int rc = hop(w, s, out[i], lid, sl, &top);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The CAs' requests to lid on sl. */
static int add_requests(struct walker *w, uint16_t lid, unsigned sl)
{
	size_t top = 0;
	w->generation++;
	for (size_t i = 0; i < w->nrequests; i++)
		push(w, w->requests[i].sw, w->requests[i].in, &top);
	return walk(w, lid, sl, top);
}

static int add_destination(struct walker *w, uint16_t lid, bool to_ca)
{
	const struct routing_tables *before = w->q->before;
	unsigned own = w->q->t->sl[lid];
	int rc = add_requests(w, lid, own);
	if (rc == 0 && before && lid <= before->max_lid && before->sl[lid] != own)
		rc = add_requests(w, lid, before->sl[lid]);	/* hosts that have not re-queried */
	if (rc != 0 || !to_ca)
		return rc;
	for (size_t i = 0; i < w->nanswers;) {	/* the answers, one SL at a time (find_starts sorted them) */
		unsigned sl = w->answers[i].sl;
		size_t top = 0;
		w->generation++;
		for (; i < w->nanswers && w->answers[i].sl == sl; i++)
			push(w, w->answers[i].sw, w->answers[i].in, &top);
		if ((rc = walk(w, lid, sl, top)) != 0)
			return rc;
	}
	return 0;
}

static int by_sl(const void *a, const void *b)
{
	return (int)((const struct start *)a)->sl - (int)((const struct start *)b)->sl;
}

/* An answer from LID lid entering at (sw, in): on its SL, and in a transition on its old SL too. */
static void add_answer(struct walker *w, const struct node *sw, uint8_t in, uint16_t lid)
{
	const struct routing_tables *t = w->q->t, *before = w->q->before;
	if (!w->q->answers || !lid || lid > t->max_lid)
		return;
	w->answers[w->nanswers++] = (struct start){ sw, in, t->sl[lid] };
	if (before && lid <= before->max_lid && before->sl[lid] != t->sl[lid])
		w->answers[w->nanswers++] = (struct start){ sw, in, before->sl[lid] };
}

/* The states where traffic enters: every CA port's (requests) and every LID's on its SL (answers, by SL). */
static void find_starts(struct walker *w)
{
	for (size_t i = 0; i < w->f->nnodes; i++) {
		const struct node *n = w->f->nodes[i];
		if (n->type == NODE_SWITCH) {
			add_answer(w, n, 0, n->ports[0].lid);
			continue;
		}
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct node *sw = n->ports[p].remote;
			uint16_t lid = n->ports[p].lid;
			if (!sw || sw->type != NODE_SWITCH)
				continue;
			w->requests[w->nrequests++] = (struct start){ sw, n->ports[p].remote_port, 0 };
			add_answer(w, sw, n->ports[p].remote_port, lid);
		}
	}
	qsort(w->answers, w->nanswers, sizeof(*w->answers), by_sl);
}

static int walker_init(struct walker *w, const struct fabric *f, const struct cdg_vl_request *q,
		       struct cdg_vl_missing *missing)
{
	size_t states = 0;
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->q = q;
	w->missing = missing;
	w->base = malloc((f->nnodes + 1) * sizeof(*w->base));
	if (!w->base)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		w->base[i] = states;
		states += (size_t)f->nodes[i]->nports + 1;
	}
	w->mark = calloc(states + 1, sizeof(*w->mark));
	w->stack = malloc((states + 1) * sizeof(*w->stack));
	w->requests = malloc((states + 1) * sizeof(*w->requests));
	w->answers = malloc(2 * (states + 1) * sizeof(*w->answers));	/* two SLs each in a transition */
	if (!w->mark || !w->stack || !w->requests || !w->answers || depgraph_init_vls(&w->g, f, SL2VL_SLS) < 0)
		return -1;
	find_starts(w);
	return 0;
}

static void walker_free(struct walker *w)
{
	free(w->base);
	free(w->mark);
	free(w->stack);
	free(w->requests);
	free(w->answers);
	depgraph_free(&w->g);
}

int cdg_vl_check(const struct fabric *f, const struct cdg_vl_request *q, struct cdg_report *r,
		 struct cdg_vl_missing *missing)
{
	struct walker w;
	int rc = -1;
	memset(r, 0, sizeof(*r));
	if (walker_init(&w, f, q, missing) < 0)
		goto done;
	rc = 0;
	for (size_t i = 0; i < f->nnodes && rc == 0; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports && rc == 0; p++) {
			uint16_t lid = n->ports[p].lid;
			bool sw = n->type == NODE_SWITCH;
			if (lid && lid <= q->t->max_lid && (sw ? p == 0 && !q->to_cas_only : p > 0))
				rc = add_destination(&w, lid, !sw);
		}
	}
	if (rc == 0)
		rc = depgraph_check(&w.g, r);
done:
	walker_free(&w);
	return rc;
}
