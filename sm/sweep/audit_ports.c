/*
 * DOC: table audit of the port tables
 *
 * The deadlock proof holds only while every switch maps each SL to the VL
 * the sweep gave it: a switch whose SL-to-VL tables went back to a
 * default (firmware, a reset the traps did not tell, another SM or a
 * root user writing them without M_Key protection) may put two VL
 * layers on one VL, and a cycle the layering broke is whole again. The
 * partitions hold only while the P_Key tables do: a host that writes a
 * key into its own table, or into the switch port that enforces it, joins
 * a partition it was not given. The sweeps never read these tables back
 * (they write only what a port linked since needs). So the table audit
 * also reads them back: every P_Key block (pkeys_each_table), SL-to-VL
 * map and VL arbitration block (qos_each_table) the sweeps write, of
 * switches and CAs, port_audit_tables of them after each quiet light
 * sweep.
 *
 * The rotation goes by index: the first table of every node, then the
 * second of every node that has one, and so on (a switch of 36 ports has
 * about 1,400, a CA five); a node's P_Key blocks come first. A switch that
 * lost all of its tables is so found within the first pass over the
 * nodes, not after every table of every switch before it. A node holding
 * a table unlike the published sweep's joins sm->port_unsure: the full
 * sweep that follows writes every port table of it again (qos_program,
 * pkeys_program), as after a lost Set.
 */
#include "sm/sweep/audit_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"
#include "sm/sweep/pkeys.h"

struct table_get {
	struct audit *a;
	const struct node *n;
	struct port_table t;
};

/*
 * The first entry of t that held differs in: "SL-to-VL map of ports (3,
 * 5): SL 1 on VL 0, published 1", "VL arbitration low table of port 3:
 * entry 2 VL 0 weight 0, published VL 2 weight 64", or "P_Key table of
 * port 1: entry 1 0x8001, published 0x0000".
 */
static void describe(const struct port_table *t, const uint8_t *held, char *buf, size_t len)
{
	unsigned at = 0;
	while (at + 1 < t->len && held[at] == t->data[at])
		at++;
	if (t->attr == IB_MAD_ATTR_P_KEY_TABLE) {
		unsigned e = at / 2;
		snprintf(buf, len, "P_Key table of port %u: entry %u 0x%04x, published 0x%04x", t->out,
			 (t->mod & 0xffff) * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + e, held[e * 2] << 8 | held[e * 2 + 1],
			 t->data[e * 2] << 8 | t->data[e * 2 + 1]);
		return;
	}
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
		a->r.port_unanswered++;
	} else {
		a->r.port_read++;
		if (memcmp(reply->data, q->t.data, q->t.len)) {
			char what[160], detail[320];
			a->r.port_differed++;
			lost_set_add(&a->sm->port_unsure, q->n->guid);
			describe(&q->t, reply->data, what, sizeof(what));
			snprintf(detail, sizeof(detail), "%s (0x%016llx) holds a port table unlike the published sweep's: %s",
				 q->n->desc, (unsigned long long)q->n->guid, what);
			audit_note_unlike(a, q->n, detail);
		}
	}
	free(q);
	audit_answered(a);
}

static void ask_table(struct audit *a, const struct node *n, const struct port_table *t)
{
	struct table_get *q = malloc(sizeof(*q));
	if (q) {
		*q = (struct table_get){ a, n, *t };
		if (paced_get(&a->pace, a->sm->mp, n, t->at, t->attr, t->mod, on_table, q))
			return;
		free(q);
	}
	a->r.port_unanswered++;
}

/* Visiting one node's tables: keeps each into keep[] (a whole audit's list), or else the first met, and stops. */
struct visit {
	struct port_table found, *keep;
	size_t kept;
	bool met;
};

static bool visit_table(void *arg, const struct port_table *t)
{
	struct visit *v = arg;
	if (v->keep) {
		v->keep[v->kept++] = *t;
		return true;
	}
	v->found = *t;
	v->met = true;
	return false;
}

/*
 * Node n's port tables as the published sweep wrote them, from the
 * from-th on, in turn to v: its P_Key blocks, then its VL tables (those
 * before from are counted, not built). How many it went through: with
 * from SIZE_MAX, how many n has.
 */
static size_t visit_node(const struct sm_snapshot *pub, const struct node *n, size_t from, struct visit *v)
{
	size_t keys = pkeys_each_table(n, &pub->parts, from, visit_table, v);
	if (v->met)
		return keys;
	return keys + qos_each_table(n, &pub->qos, from > keys ? from - keys : 0, visit_table, v);
}

/* How many port tables the published nodes have, counted up to bound (beyond it, bound). */
static size_t tables_up_to(const struct sm_snapshot *pub, size_t bound)
{
	size_t n = 0;
	for (size_t i = 0; i < pub->fabric.nnodes && n < bound; i++)
		n += visit_node(pub, pub->fabric.nodes[i], SIZE_MAX, &(struct visit){ 0 });
	return n < bound ? n : bound;
}

size_t audit_port_tables_published(const struct sm_snapshot *pub)
{
	return tables_up_to(pub, SIZE_MAX);
}

void audit_ports_start(struct audit *a, size_t budget)
{
	a->port_left = a->whole ? 0 : tables_up_to(a->pub, budget);	/* at most one rotation: no table twice */
}

/* A whole audit's next table, node by node: each node's tables are listed once, when its turn comes. */
static bool ask_whole_next(struct audit *a)
{
	const struct fabric *f = &a->pub->fabric;
	while (a->next == a->ntables) {
		if (a->node >= f->nnodes)
			return false;
		const struct node *n = f->nodes[a->node++];
		size_t count = visit_node(a->pub, n, SIZE_MAX, &(struct visit){ 0 });
		struct port_table *more = count ? realloc(a->tables, count * sizeof(*more)) : a->tables;
		a->next = a->ntables = 0;
		if (!more) {
			log_error("table audit: out of memory listing the port tables of %s", n->desc);
			a->r.port_unanswered += (unsigned)count;
			continue;
		}
		struct visit keep = { .keep = a->tables = more };
		visit_node(a->pub, n, 0, &keep);
		a->ntables = keep.kept;
	}
	ask_table(a, f->nodes[a->node - 1], &a->tables[a->next++]);
	return true;
}

bool audit_ports_ask_next(struct audit *a)
{
	struct sm_audit *c = &a->sm->audit;
	const struct fabric *f = &a->pub->fabric;
	if (a->whole)	/* node by node: the rotation's order would list each node's tables once per index */
		return ask_whole_next(a);
	while (a->port_left) {
		if (c->port_node >= f->nnodes) {	/* the next index, or round again when no node had this one */
			c->port_node = 0;
			c->port_index = c->port_index_met ? c->port_index + 1 : 0;
			c->port_rotations += !c->port_index_met;
			c->port_index_met = false;
			continue;
		}
		const struct node *n = f->nodes[c->port_node++];
		struct visit v = { 0 };
		visit_node(a->pub, n, c->port_index, &v);
		if (!v.met)
			continue;
		c->port_index_met = true;
		a->port_left--;
		ask_table(a, n, &v.found);
		return true;
	}
	return false;
}
