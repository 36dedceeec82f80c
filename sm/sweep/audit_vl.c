/*
 * DOC: table audit of the VL tables
 *
 * The deadlock proof holds only while every switch maps each SL to the VL
 * the sweep gave it: a switch whose SL-to-VL tables went back to a
 * default (firmware, a reset the traps did not tell, another SM or a
 * root user writing them without M_Key protection) may put two VL
 * layers on one VL, and a cycle the layering broke is whole again. The
 * sweeps never read them back (they write only what a port linked since
 * needs). So the table audit also reads the VL tables back: every SL-to-
 * VL map and VL arbitration block the sweeps write (qos_each_table), of
 * switches and CAs, vl_audit_tables of them after each quiet light sweep.
 *
 * The rotation goes by index: the first table of every node, then the
 * second of every node that has one, and so on (a switch of 36 ports has
 * about 1,400, a CA three). A switch that lost all of its tables is so
 * found within the first pass over the nodes, not after every table of
 * every switch before it. A node holding a table unlike the published
 * sweep's joins sm->vl_unsure: the full sweep that follows writes every
 * VL table of it again (qos_program), as after a lost Set.
 */
#include "sm/sweep/audit_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"

struct table_get {
	struct audit *a;
	const struct node *n;
	struct qos_table t;
};

/*
 * The first entry of t that held differs in: "SL-to-VL map of ports (3,
 * 5): SL 1 on VL 0, published 1", or "VL arbitration low table of port
 * 3: entry 2 VL 0 weight 0, published VL 2 weight 64".
 */
static void describe(const struct qos_table *t, const uint8_t *held, char *buf, size_t len)
{
	unsigned at = 0;
	while (at + 1 < t->len && held[at] == t->data[at])
		at++;
	if (t->attr == IB_MAD_ATTR_SLVL_TABLE) {
		bool low = !((held[at] ^ t->data[at]) & 0xf0);	/* an even SL's VL is the high nibble */
		unsigned sl = at * 2 + low, shift = low ? 0 : 4;
		snprintf(buf, len, "SL-to-VL map of ports (%u, %u): SL %u on VL %u, published %u", t->in, t->out, sl,
			 held[at] >> shift & 0x0f, t->data[at] >> shift & 0x0f);
		return;
	}
	unsigned e = at / 2, block = t->mod >> 16;
	const uint8_t *h = held + e * 2, *w = t->data + e * 2;
	snprintf(buf, len, "VL arbitration %s table of port %u: entry %u VL %u weight %u, published VL %u weight %u",
		 block >= 3 ? "high" : "low", t->out, (block - 1) % 2 * 32 + e, h[0] & 0x0f, h[1], w[0] & 0x0f, w[1]);
}

static void on_table(void *ctx, int status, const ib_smp_t *reply)
{
	struct table_get *q = ctx;
	struct audit *a = q->a;
	if (status) {
		a->r.vl_unanswered++;
	} else {
		a->r.vl_read++;
		if (memcmp(reply->data, q->t.data, q->t.len)) {
			char what[160], detail[320];
			a->r.vl_differed++;
			lost_set_add(&a->sm->vl_unsure, q->n->guid);
			describe(&q->t, reply->data, what, sizeof(what));
			snprintf(detail, sizeof(detail), "%s (0x%016llx) holds a VL table unlike the published sweep's: %s",
				 q->n->desc, (unsigned long long)q->n->guid, what);
			audit_note_unlike(a, q->n, detail);
		}
	}
	free(q);
	audit_answered(a);
}

static void ask_table(struct audit *a, const struct node *n, const struct qos_table *t)
{
	struct table_get *q = malloc(sizeof(*q));
	if (q) {
		*q = (struct table_get){ a, n, *t };
		a->in_flight++;
		if (sm_node_get(a->sm->mp, n, t->at, t->attr, t->mod, on_table, q) == 0)
			return;
		a->in_flight--;
		free(q);
	}
	a->r.vl_unanswered++;
}

/* Visiting one node's tables: finds the index-th, or counts them up to a bound, or keeps each into tables[]. */
struct visit {
	size_t seen, index, bound;
	struct qos_table found, *keep;
	bool met;
};

static bool visit_table(void *arg, const struct qos_table *t)
{
	struct visit *v = arg;
	if (v->keep)
		v->keep[v->seen] = *t;
	else if (v->seen == v->index)
		v->found = *t;
	v->met |= v->seen == v->index;
	return ++v->seen <= v->index && v->seen < v->bound;
}

/* How many VL tables the published nodes have, counted up to bound (beyond it, bound). */
static size_t tables_up_to(const struct sm_snapshot *pub, size_t bound)
{
	size_t n = 0;
	for (size_t i = 0; i < pub->fabric.nnodes && n < bound; i++) {
		struct visit v = { .index = SIZE_MAX, .bound = bound - n };
		qos_each_table(pub->fabric.nodes[i], &pub->qos, visit_table, &v);
		n += v.seen;
	}
	return n < bound ? n : bound;
}

size_t audit_vl_tables_published(const struct sm_snapshot *pub)
{
	return tables_up_to(pub, SIZE_MAX);
}

void audit_vl_start(struct audit *a, size_t budget)
{
	a->vl_left = a->whole ? 0 : tables_up_to(a->pub, budget);	/* at most one rotation: no table twice */
}

/* A whole audit's next table, node by node: each node's tables are listed once, when its turn comes. */
static bool ask_whole_next(struct audit *a)
{
	const struct fabric *f = &a->pub->fabric;
	while (a->next == a->ntables) {
		if (a->node >= f->nnodes)
			return false;
		const struct node *n = f->nodes[a->node++];
		struct visit count = { .index = SIZE_MAX, .bound = SIZE_MAX };
		qos_each_table(n, &a->pub->qos, visit_table, &count);
		struct qos_table *more = count.seen ? realloc(a->tables, count.seen * sizeof(*more)) : a->tables;
		a->next = a->ntables = 0;
		if (!more) {
			log_error("table audit: out of memory listing the VL tables of %s", n->desc);
			a->r.vl_unanswered += (unsigned)count.seen;
			continue;
		}
		struct visit keep = { .index = SIZE_MAX, .bound = SIZE_MAX, .keep = a->tables = more };
		qos_each_table(n, &a->pub->qos, visit_table, &keep);
		a->ntables = keep.seen;
	}
	ask_table(a, f->nodes[a->node - 1], &a->tables[a->next++]);
	return true;
}

bool audit_vl_ask_next(struct audit *a)
{
	struct sm_audit *c = &a->sm->audit;
	const struct fabric *f = &a->pub->fabric;
	if (a->whole)	/* node by node: the rotation's order would list each node's tables once per index */
		return ask_whole_next(a);
	while (a->vl_left) {
		if (c->vl_node >= f->nnodes) {	/* the next index, or round again when no node had this one */
			c->vl_node = 0;
			c->vl_index = c->vl_index_met ? c->vl_index + 1 : 0;
			c->vl_rotations += !c->vl_index_met;
			c->vl_index_met = false;
			continue;
		}
		const struct node *n = f->nodes[c->vl_node++];
		struct visit v = { .index = c->vl_index, .bound = SIZE_MAX };
		qos_each_table(n, &a->pub->qos, visit_table, &v);
		if (!v.met)
			continue;
		c->vl_index_met = true;
		a->vl_left--;
		ask_table(a, n, &v.found);
		return true;
	}
	return false;
}
