/*
 * DOC: P_Key tables
 *
 * Each CA port gets the keys partition_keys() gives it, in blocks of 32
 * up to the PartitionCap its NodeInfo reports (later blocks are cleared,
 * so a key removed from the configuration is removed from the port). The
 * switch port on the other end of the cable gets the same table when the
 * switch has a PartitionEnforcementCap, and a PortInfo Set that turns on
 * inbound and outbound enforcement where SwitchInfo says it can: a host
 * then cannot send into, or receive from, a partition it is not in, even
 * if it rewrites its own table. The blocks are listed once
 * (pkeys_each_table) for the programming and for the table audit that
 * reads them back (audit_ports.c).
 */
#include "sm/sweep/pkeys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/sweep/batch.h"
#include "sm/log.h"
#include "sm/smnode.h"

#define ENFORCE_IN_CAP 0x80	/* SwitchInfo: InboundEnforcementCap */
#define ENFORCE_OUT_CAP 0x40	/* OutboundEnforcementCap */
#define ENFORCE_IN 0x08		/* PortInfo: PartitionEnforcementInbound */
#define ENFORCE_OUT 0x04	/* PartitionEnforcementOutbound */

/* The blocks of a table of cap entries. */
static unsigned blocks_of(unsigned cap)
{
	return (cap + IB_NUM_PKEY_ELEMENTS_IN_BLOCK - 1) / IB_NUM_PKEY_ELEMENTS_IN_BLOCK;
}

/*
 * Each block of a table of cap entries holding keys[0..nkeys) (the rest
 * 0) as a port_table for fn: at, the port its SMPs go to; port, the
 * table's; mod_high selects a switch port. *k counts the blocks gone
 * through; those before the from-th are not built. False when fn said stop.
 */
static bool each_block(port_table_fn fn, void *arg, uint8_t at, uint8_t port, uint32_t mod_high, unsigned cap,
		       const uint16_t *keys, unsigned nkeys, size_t *k, size_t from)
{
	for (unsigned block = 0; block < blocks_of(cap); block++) {
		if ((*k)++ < from)
			continue;
		unsigned first = block * IB_NUM_PKEY_ELEMENTS_IN_BLOCK, held = cap - first;
		struct port_table t = { .attr = IB_MAD_ATTR_P_KEY_TABLE, .mod = mod_high | block, .at = at, .in = port,
					.out = port, .size = sizeof(ib_pkey_table_t) };
		t.len = (uint8_t)((held < IB_NUM_PKEY_ELEMENTS_IN_BLOCK ? held : IB_NUM_PKEY_ELEMENTS_IN_BLOCK) *
				  sizeof(ib_net16_t));
		ib_pkey_table_t entries;
		memset(&entries, 0, sizeof(entries));
		for (unsigned i = 0; i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK && first + i < nkeys; i++)
			entries.pkey_entry[i] = cl_hton16(keys[first + i]);
		memcpy(t.data, &entries, sizeof(entries));	/* (t.data is bytes: no alignment to write through) */
		if (!fn(arg, &t))
			return false;
	}
	return true;
}

struct table_sets {
	struct batch *b;
	struct node *n;
};

static bool set_block(void *arg, const struct port_table *t)
{
	const struct table_sets *w = arg;
	batch_set(w->b, w->n, t->at, t->attr, t->mod, t->data, t->size);
	return true;
}

/* Writes keys[0..n) into the blocks of a table of cap entries; mod_high selects a switch port. */
static void send_table(struct batch *b, struct node *n, uint8_t route_port, uint32_t mod_high, unsigned cap,
		       const uint16_t *keys, unsigned nkeys)
{
	struct table_sets w = { b, n };
	size_t k = 0;
	each_block(set_block, &w, route_port, route_port, mod_high, cap, keys, nkeys, &k, 0);
}

/* Enforcement on switch port (sw, port) as far as the switch can. */
static void enforce(struct batch *b, struct node *sw, uint8_t port)
{
	const struct sm_node *s = sm_node(sw);
	uint8_t want = (s->switch_info.flags & ENFORCE_IN_CAP ? ENFORCE_IN : 0) |
		       (s->switch_info.flags & ENFORCE_OUT_CAP ? ENFORCE_OUT : 0);
	if (!want || !s->have_port_info[port] || (s->port_info[port].vl_enforce & want) == want)
		return;
	ib_port_info_t pi = s->port_info[port];
	ib_port_info_set_port_state(&pi, IB_LINK_NO_CHANGE);
	ib_port_info_set_port_phys_state(0, &pi);	/* no change */
	pi.vl_enforce |= want;
	batch_set_stored(b, sw, 0, IB_MAD_ATTR_PORT_INFO, port, &pi, sizeof(pi));
}

/* Switch sw's PartitionEnforcementCap: the entries of the tables of its ports facing CAs (0: it does not enforce). */
static unsigned enforce_cap(const struct node *sw)
{
	const struct sm_node *s = sm_node(sw);
	return s && s->have_switch_info ? cl_ntoh16(s->switch_info.enforce_cap) : 0;
}

static unsigned table_cap(const struct node *n)
{
	const struct sm_node *s = sm_node(n);
	return s && s->partition_cap ? s->partition_cap : IB_NUM_PKEY_ELEMENTS_IN_BLOCK;
}

/* The keys CA port (n, p) gets, at most its table's capacity; dropped: the partitions that did not fit. */
static unsigned port_keys(const struct node *n, unsigned p, const struct partitions *ps, uint16_t *keys,
			  unsigned *dropped)
{
	unsigned cap = table_cap(n);
	bool sm_port = n->hops == 0 && p == n->local_port;
	return partition_keys(ps, n, (uint8_t)p, sm_port, keys, cap < PART_MAX + 1 ? cap : PART_MAX + 1, dropped);
}

struct pkeys_job {
	struct fabric *f;
	const struct partitions *ps;
	const struct fabric *prev;
	const struct lost_set *lost;	/* prev's nodes its sweep lost a Set to */
	bool same;		/* the partitions are the ones prev's sweep programmed */
};

/* Whether n holds what prev's sweep gave it: there, no sign of a reset, no Set to it lost. */
static bool holds_prev(const struct pkeys_job *j, const struct node *n)
{
	return j->same && sm_node_kept(n, j->prev) && !lost_set_has(j->lost, n->guid);
}

/* Whether CA port (n, p) and the switch port it faces hold what prev's sweep gave them: the same link then. */
static bool port_holds_prev(const struct pkeys_job *j, const struct node *n, unsigned p)
{
	const struct node *o = holds_prev(j, n) ? fabric_find_guid(j->prev, n->guid) : NULL;
	const struct port *now = &n->ports[p], *then = o && p <= o->nports ? &o->ports[p] : NULL;
	return then && then->remote && then->remote->guid == now->remote->guid &&
	       then->remote_port == now->remote_port && (now->remote->type != NODE_SWITCH || holds_prev(j, now->remote));
}

/* The CA's linked ports' tables, and those of the switch ports they face; whether any was left as it was. */
static bool program_ca(struct batch *b, struct node *n, const struct pkeys_job *j)
{
	const struct sm_node *s = sm_node(n);
	unsigned cap = table_cap(n);
	bool skipped = false;
	for (unsigned p = 1; p <= n->nports; p++) {
		if (!n->ports[p].remote || !s->have_port_info[p])
			continue;
		if (port_holds_prev(j, n, p)) {
			skipped = true;
			continue;
		}
		uint16_t keys[PART_MAX + 1];
		unsigned dropped;
		unsigned k = port_keys(n, p, j->ps, keys, &dropped);
		if (dropped)
			log_warn("pkeys: %s port %u holds %u P_Keys; %u partitions left out", n->desc, p, cap, dropped);
		send_table(b, n, (uint8_t)p, 0, cap, keys, k);
		struct node *sw = n->ports[p].remote;
		uint8_t sp = n->ports[p].remote_port;
		unsigned sw_cap = sw->type == NODE_SWITCH ? enforce_cap(sw) : 0;
		if (sw_cap) {
			send_table(b, sw, 0, (uint32_t)sp << 16, sw_cap, keys, k < sw_cap ? k : sw_cap);
			enforce(b, sw, sp);
		}
	}
	return skipped;
}

static bool same_partitions(const struct partitions *a, const struct partitions *b)
{
	return b && memcmp(a, b, sizeof(*a)) == 0;
}

static void pkeys_node(void *ctx, struct batch *b, size_t i)
{
	const struct pkeys_job *j = ctx;
	struct node *n = j->f->nodes[i];
	unsigned sent = b->r.sent;
	if (n->type == NODE_SWITCH)
		return;	/* switch ports are programmed with the CA they face */
	if (program_ca(b, n, j) && b->r.sent == sent)
		b->r.skipped_nodes++;
}

int pkeys_program(struct mad_port *mp, struct fabric *f, const struct partitions *ps, const struct fabric *prev,
		  const struct partitions *prev_ps, const struct lost_set *lost, cfg_done_fn done, void *arg)
{
	struct pkeys_job j = { f, ps, prev, lost, same_partitions(ps, prev_ps) };
	return batch_over_nodes(mp, f->nnodes, pkeys_node, &j, sizeof(j), done, arg);
}

int pkeys_membership(const struct fabric *f, const struct partitions *ps, struct db_partitions *out)
{
	struct db_partition *p = calloc(ps->n + 1, sizeof(*p));
	struct db_pkey_member *m = NULL;
	size_t np = 0, nm = 0, cap = 0;
	bool default_configured = false;
	if (!p)
		return -1;
	for (unsigned i = 0; i < ps->n; i++) {
		p[np].pkey = ps->p[i].pkey;
		snprintf(p[np++].name, sizeof(p->name), "%s", ps->p[i].name);
		default_configured |= ps->p[i].pkey == PART_DEFAULT_PKEY;
	}
	if (!default_configured) {
		p[np].pkey = PART_DEFAULT_PKEY;
		snprintf(p[np++].name, sizeof(p->name), "default");
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned port = 1; port <= n->nports && n->type != NODE_SWITCH; port++) {
			uint16_t keys[PART_MAX + 1];
			unsigned dropped, k = n->ports[port].remote ? port_keys(n, port, ps, keys, &dropped) : 0;
			for (unsigned j = 0; j < k; j++) {
				if (nm == cap) {
					struct db_pkey_member *more = realloc(m, (cap = cap * 2 + 64) * sizeof(*more));
					if (!more) {
						free(p);
						free(m);
						return -1;
					}
					m = more;
				}
				m[nm++] = (struct db_pkey_member){ keys[j] & ~PART_FULL, n->guid, (uint8_t)port,
								   (keys[j] & PART_FULL) != 0 };
			}
		}
	}
	*out = (struct db_partitions){ p, np, m, nm };
	return 0;
}

void pkeys_membership_free(struct db_partitions *out)
{
	free((void *)out->p);
	free((void *)out->m);
	memset(out, 0, sizeof(*out));
}

unsigned pkeys_port_table(const struct node *n, unsigned p, const struct partitions *ps, uint16_t *keys, unsigned *cap)
{
	unsigned dropped;
	*cap = table_cap(n);
	return port_keys(n, p, ps, keys, &dropped);
}

size_t pkeys_each_table(const struct node *n, const struct partitions *ps, size_t from, port_table_fn fn, void *arg)
{
	const struct sm_node *s = sm_node(n);
	size_t k = 0;
	for (uint8_t p = 1; p <= n->nports; p++) {
		const struct node *peer = n->ports[p].remote;
		bool ca = n->type != NODE_SWITCH;
		/* a switch port's table is written with the CA port it faces */
		if (!peer || (ca ? !s->have_port_info[p] :
			      peer->type == NODE_SWITCH || !sm_node(peer)->have_port_info[n->ports[p].remote_port]))
			continue;
		unsigned cap = ca ? table_cap(n) : enforce_cap(n), nkeys;
		if (k + blocks_of(cap) <= from) {	/* before from: counted, the keys not even worked out */
			k += blocks_of(cap);
			continue;
		}
		uint16_t keys[PART_MAX + 1];
		nkeys = ca ? pkeys_port_table(n, p, ps, keys, &cap) : pkeys_switch_port_table(n, p, ps, keys, &cap);
		if (!each_block(fn, arg, ca ? p : 0, p, ca ? 0 : (uint32_t)p << 16, cap, keys, nkeys, &k, from))
			return k;
	}
	return k;
}

unsigned pkeys_switch_port_table(const struct node *sw, unsigned port, const struct partitions *ps, uint16_t *keys,
				 unsigned *cap)
{
	const struct node *ca = port && port <= sw->nports ? sw->ports[port].remote : NULL;
	*cap = enforce_cap(sw);
	if (!ca || ca->type == NODE_SWITCH || !*cap) {
		*cap = 0;
		return 0;
	}
	unsigned k = port_keys(ca, sw->ports[port].remote_port, ps, keys, &(unsigned){ 0 });
	return k < *cap ? k : *cap;
}
