/*
 * DOC: virtual-lane programming
 *
 * fabricd uses one SL-to-VL map everywhere: SL s travels on VL s % vls,
 * vls being the data VLs every link runs. The routing's VL layers are SLs
 * 0..layers-1, so a packet keeps its layer's VL on every hop and each
 * layer's dependency graph is the one the checker proved acyclic. The one
 * exception is a switch's own packets (input port 0: answers of its
 * GMP agents): every SL leaves on VL 0 and takes its layer's VL at the
 * next switch, which the proof counts on (routing/cdg.h).
 *
 * A switch's map is per (input port, output port) pair: with
 * OptimizedSLtoVLMappingProgramming two Sets cover it (AllInputPorts|
 * AllOutputPorts, then input port 0 with AllOutputPorts), else every pair
 * of linked ports (and port 0 as input) gets one. CA ports take theirs,
 * and their VLArbitration tables, over their own route. One list of a
 * node's tables (qos_each_table) serves the programming and the table
 * audit that reads them back (audit_ports.c).
 *
 * VL arbitration: the configured high and low lists, or by default an
 * empty high table and every data VL at weight 64 in the low table.
 */
#include "sm/sweep/qos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/sweep/batch.h"
#include "sm/smnode.h"

#define SL2VL_ALL_PORTS 0x30000	/* AllInputPorts | AllOutputPorts */
#define SL2VL_ALL_OUTPUTS 0x10000	/* AllOutputPorts, for the input port in bits 8-15 */
#define DEFAULT_WEIGHT 64

int qos_parse_arb(const char *s, ib_vl_arb_element_t *e, unsigned *n, char *err, size_t errlen)
{
	*n = 0;
	while (s && *s) {
		char *end;
		unsigned long vl = strtoul(s, &end, 10), w;
		if (end == s || *end != ':' || vl > 14) {
			snprintf(err, errlen, "'%s': expected VL:weight with VL 0..14", s);
			return -1;
		}
		s = end + 1;
		w = strtoul(s, &end, 0);
		if (end == s || w > 255 || (*end && *end != ',')) {
			snprintf(err, errlen, "'%s': the weight must be 0..255", s);
			return -1;
		}
		if (*n == QOS_MAX_ARB) {
			snprintf(err, errlen, "more than %d entries", QOS_MAX_ARB);
			return -1;
		}
		e[(*n)++] = (ib_vl_arb_element_t){ .vl = (uint8_t)vl, .weight = (uint8_t)w };
		s = *end ? end + 1 : end;
	}
	return 0;
}

int qos_tables_build(struct qos_tables *q, unsigned vls, const char *high, const char *low, unsigned high_limit,
		     char *err, size_t errlen)
{
	memset(q, 0, sizeof(*q));
	q->vls = (uint8_t)(vls ? vls : 1);
	q->high_limit = (uint8_t)high_limit;
	for (uint8_t sl = 0; sl < 16; sl++)
		ib_slvl_table_set(&q->sl2vl, sl, sl % q->vls);
	if (qos_parse_arb(high, q->high, &q->nhigh, err, errlen) < 0 ||
	    qos_parse_arb(low, q->low, &q->nlow, err, errlen) < 0)
		return -1;
	if (!low || !*low)
		for (uint8_t vl = 0; vl < q->vls; vl++)
			q->low[q->nlow++] = (ib_vl_arb_element_t){ .vl = vl, .weight = DEFAULT_WEIGHT };
	return 0;
}

static size_t describe_list(const ib_vl_arb_element_t *e, unsigned n, char *buf, size_t len)
{
	size_t off = 0;
	for (unsigned i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u:%u", i ? "," : "", e[i].vl, e[i].weight);
	if (!n && len)
		off += (size_t)snprintf(buf, len, "-");
	return off < len ? off : len;
}

void qos_describe(const struct qos_tables *q, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "high ");
	if (off < len)
		off += describe_list(q->high, q->nhigh, buf + off, len - off);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "; low ");
	if (off < len)
		off += describe_list(q->low, q->nlow, buf + off, len - off);
	if (off < len)
		snprintf(buf + off, len - off, "; high limit %u", q->high_limit);
}

static bool same_tables(const struct qos_tables *a, const struct qos_tables *b)
{
	return b && memcmp(a, b, sizeof(*a)) == 0;
}

/* Whether a port with caps pi has VLArbitrationTable block (1-2 low, 3-4 high). */
static bool vlarb_has(const ib_port_info_t *pi, unsigned block)
{
	return block >= 1 && block <= 4 && (block - 1) % 2 * 32u < (block >= 3 ? pi->vl_arb_high_cap : pi->vl_arb_low_cap);
}

bool qos_vlarb_block(const struct qos_tables *q, const ib_port_info_t *pi, unsigned block, ib_vl_arb_table_t *out)
{
	bool high = block >= 3;
	unsigned half = (block - 1) % 2, cap = high ? pi->vl_arb_high_cap : pi->vl_arb_low_cap;
	unsigned n = high ? q->nhigh : q->nlow;
	const ib_vl_arb_element_t *e = high ? q->high : q->low;
	if (!vlarb_has(pi, block))
		return false;
	memset(out, 0, sizeof(*out));
	for (unsigned i = half * 32; i < n && i < cap && i < half * 32 + 32; i++)
		out->vl_entry[i - half * 32] = e[i];
	return true;
}

/*
 * A port that says IsSLMappingSupported, or runs more than one data VL
 * (such a port must map SLs somehow, and simulators often leave the
 * capability bit clear), gets the map.
 */
bool qos_has_sl_map(const struct node *n, unsigned port)
{
	const struct sm_node *s = sm_node(n);
	if (!s->have_port_info[port])
		return false;
	const ib_port_info_t *pi = &s->port_info[port];
	return (cl_ntoh32(pi->capability_mask) & IB_PORT_CAP_HAS_SL_MAP) || ib_port_info_get_vl_cap(pi) > 1;
}

static bool optimized_sl2vl(const struct node *n)
{
	const struct sm_node *s = sm_node(n);
	return s->have_switch_info && ib_switch_info_get_opt_sl2vlmapping(&s->switch_info);
}

bool qos_sl2vl_programmed(const struct node *n, unsigned in, unsigned out)
{
	if (!qos_has_sl_map(n, 0))
		return false;
	if (optimized_sl2vl(n))
		return true;
	/* in == out carries no packet, but set too: the switch then holds no table fabricd did not write */
	return out >= 1 && n->ports[out].remote && (in == 0 || n->ports[in].remote);
}

/*
 * Whether port p of n is linked now but was not in o (n's node in the
 * published fabric), or to another peer: its tables were never written
 * by the sweeps since it came up (OpenSM rewrites a port that went down
 * too). Without o, every port counts as new.
 */
static bool linked_since(const struct node *n, const struct node *o, unsigned p)
{
	const struct port *now = &n->ports[p], *then = o ? &o->ports[p] : NULL;
	return now->remote && (!then || !then->remote || then->remote->guid != now->remote->guid ||
			       then->remote_port != now->remote_port);
}

/* VLArbitrationTable block (1-2 low, 3-4 high) of n's port into t; false if the port's caps have no such block. */
static bool vlarb_table(const struct qos_tables *q, const struct node *n, uint8_t port, unsigned block,
			struct port_table *t)
{
	const ib_port_info_t *pi = &sm_node(n)->port_info[port];
	ib_vl_arb_table_t data;
	if (!qos_vlarb_block(q, pi, block, &data))
		return false;
	bool sw = n->type == NODE_SWITCH;
	unsigned cap = block >= 3 ? pi->vl_arb_high_cap : pi->vl_arb_low_cap, first = (block - 1) % 2 * 32;
	unsigned held = cap - first < 32 ? cap - first : 32;
	*t = (struct port_table){ .attr = IB_MAD_ATTR_VL_ARBITRATION, .mod = block << 16 | (sw ? port : 0u),
				 .at = sw ? 0 : port, .in = port, .out = port, .size = sizeof(data),
				 .len = (uint8_t)(held * sizeof(ib_vl_arb_element_t)) };
	memcpy(t->data, &data, sizeof(data));
	return true;
}

static struct port_table sl2vl_table(const ib_slvl_table_t *map, uint32_t mod, uint8_t at, uint8_t in, uint8_t out)
{
	struct port_table t = { .attr = IB_MAD_ATTR_SLVL_TABLE, .mod = mod, .at = at, .in = in, .out = out,
			       .size = sizeof(*map), .len = sizeof(*map) };
	memcpy(t.data, map, sizeof(*map));
	return t;
}

size_t qos_each_table(const struct node *n, const struct qos_tables *q, size_t from, port_table_fn fn, void *arg)
{
	const struct sm_node *s = sm_node(n);
	size_t k = 0;
	for (uint8_t p = 1; p <= n->nports; p++) {
		struct port_table t;
		bool linked = n->ports[p].remote && s->have_port_info[p];
		for (unsigned block = 1; linked && block <= 4; block++) {
			if (!vlarb_has(&s->port_info[p], block) || k++ < from)
				continue;
			vlarb_table(q, n, p, block, &t);
			if (!fn(arg, &t))
				return k;
		}
		if (n->type != NODE_SWITCH) {
			if (linked && qos_has_sl_map(n, p) && k++ >= from &&
			    !fn(arg, (t = sl2vl_table(&q->sl2vl, 0, p, p, p), &t)))
				return k;
			continue;
		}
		for (uint8_t in = 0; in <= n->nports; in++) {
			if (!qos_sl2vl_programmed(n, in, p) || k++ < from)
				continue;
			t = sl2vl_table(qos_sl2vl_of(q, in), (uint32_t)in << 8 | p, 0, in, p);
			if (!fn(arg, &t))
				return k;
		}
	}
	return k;
}

/* What one node is sent: o, its node in the published fabric (NULL: it holds nothing known). */
struct node_sets {
	struct batch *b;
	const struct node *n, *o;
	bool no_sl2vl;		/* its maps go in two Sets of their own */
};

/* Sends table t when it involves a port linked since o's sweep (or every table, without o). */
static bool set_table(void *arg, const struct port_table *t)
{
	const struct node_sets *w = arg;
	if ((w->no_sl2vl && t->attr == IB_MAD_ATTR_SLVL_TABLE) ||
	    !(linked_since(w->n, w->o, t->out) || (t->in && linked_since(w->n, w->o, t->in))))
		return true;
	batch_set(w->b, w->n, t->at, t->attr, t->mod, t->data, t->size);
	return true;
}

/* n's tables (o: only what involves ports linked since, n's node in the published fabric; NULL: all). */
static void program_node(struct batch *b, struct node *n, const struct qos_tables *q, const struct node *o)
{
	struct node_sets w = { b, n, o, n->type == NODE_SWITCH && qos_has_sl_map(n, 0) && optimized_sl2vl(n) };
	qos_each_table(n, q, 0, set_table, &w);
	if (w.no_sl2vl) {
		batch_set(b, n, 0, IB_MAD_ATTR_SLVL_TABLE, SL2VL_ALL_PORTS, &q->sl2vl, sizeof(q->sl2vl));
		batch_set(b, n, 0, IB_MAD_ATTR_SLVL_TABLE, SL2VL_ALL_OUTPUTS, &q->sl2vl_own, sizeof(q->sl2vl_own));
	}
}

struct qos_job {
	struct fabric *f;
	const struct qos_tables *q;
	const struct fabric *prev;
	const struct lost_set *lost;	/* prev's nodes its sweep lost a Set to */
	bool same;		/* the tables are the ones prev's sweep programmed */
};

/* Whether n has a port linked since prev's sweep. */
static bool any_linked_since(const struct node *n, const struct node *o)
{
	for (unsigned p = 1; p <= n->nports; p++)
		if (linked_since(n, o, p))
			return true;
	return false;
}

static void qos_node(void *ctx, struct batch *b, size_t i)
{
	const struct qos_job *j = ctx;
	struct node *n = j->f->nodes[i];
	const struct node *o = j->same && sm_node_kept(n, j->prev) && !lost_set_has(j->lost, n->guid)
				       ? fabric_find_guid(j->prev, n->guid)
				       : NULL;	/* holds what prev's sweep gave it */
	if (o && !any_linked_since(n, o))
		b->r.skipped_nodes++;
	else
		program_node(b, n, j->q, o);
}

int qos_program(struct mad_port *mp, struct fabric *f, const struct qos_tables *q, const struct fabric *prev,
		const struct qos_tables *prev_q, const struct lost_set *lost, cfg_done_fn done, void *arg)
{
	struct qos_job j = { f, q, prev, lost, same_tables(q, prev_q) };
	return batch_over_nodes(mp, f->nnodes, qos_node, &j, sizeof(j), done, arg);
}
