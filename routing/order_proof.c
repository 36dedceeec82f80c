/*
 * DOC: proof by channel order
 *
 * A channel dependency graph with no cycle is one whose channels can be
 * numbered so that every dependency goes from a lower number to a higher
 * one; finding such a numbering for the whole fabric, and checking each
 * dependency against it, proves every layer acyclic at once without
 * building the graph (routing/cdg.c builds it: millions of dependencies on
 * a 27,648-host tree, each walked destination by destination).
 *
 * The numbering tried is the up*-down* one of a fat tree
 * (routing/channel_order.c), in which a down-up turn does not rise:
 * where some entry makes one, this proof says nothing and the caller
 * builds the graph.
 *
 * Towards a CA's LID every entry of every switch is checked, not only
 * those some walk from a CA would reach: any switch may answer a CA on
 * that LID's layer; and a forwarding loop, which would need a turn that
 * does not rise, cannot pass either. Towards a switch's LID only CAs send
 * on the data VLs: the turns on the leaves' paths are checked, and the
 * switches' entries for it looked at for loops (routing/loops.c). The
 * switch-major scan reads each LFT row in order and the next switches'
 * rows alongside: cache-friendly where the walk, destination by
 * destination, is not.
 */
#include "routing/order_proof.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/loops.h"
#include "routing/channel_order.h"
#include "routing/shares.h"
#include "routing/swindex.h"

/* Fabrics with fewer switches are checked by one thread: starting more costs more than it saves. */
#define SHARE_MIN_SWITCHES 256

/* One proof's tables, as the order's switch indexes see them, and each share's verdict. */
struct proof {
	const struct channel_order *o;
	const struct routing_tables *t;
	const uint8_t **row;	/* per switch index: its LFT, or NULL */
	const bool *switch_lid;
	const uint16_t *switch_lids;	/* the switches' LIDs, in LID order */
	int verdict[SHARES_MAX];	/* 1 every turn rises, 0 one does not, -1 allocation failure */
};

/* The port switch s's entry for lid leaves by, 0 when none or out of range. */
static uint8_t entry_port(const struct proof *p, size_t s, uint16_t lid)
{
	uint8_t out = p->row[s] ? p->row[s][lid] : 0;
	return out <= p->o->nports[s] ? out : 0;
}

/* Whether the turn switch s makes for lid, if any, rises (as a turn can only be, onto a switch). */
static bool turn_rises(const struct proof *p, size_t s, uint16_t lid)
{
	const struct channel_order *o = p->o;
	uint8_t out = entry_port(p, s, lid);
	int32_t k1 = out ? o->key[o->offset[s] + out] : CHANNEL_KEY_NONE;
	if (k1 == CHANNEL_KEY_NONE || k1 == CHANNEL_KEY_CA)
		return true;	/* delivered, dropped, or out of range: no turn */
	size_t next = o->peer[o->offset[s] + out];
	uint8_t on = entry_port(p, next, lid);
	int32_t k2 = on ? o->key[o->offset[next] + on] : CHANNEL_KEY_NONE;
	return k2 == CHANNEL_KEY_NONE || k2 == CHANNEL_KEY_CA || k2 > k1;
}

/* What a port of one switch leads to: the channel's number, the next switch's table and channel numbers. */
struct port_turns {
	bool turns;		/* leads to a switch with a table: the entries out of it make turns */
	int32_t key;
	const uint8_t *next_row;
	const int32_t *next_key;
	uint8_t next_ports;
};

/*
 * Every turn switches [from, to) make towards a CA's LID rises: any
 * switch may answer a CA. turn_rises for each entry, with what each port
 * leads to looked up once per switch rather than once per entry.
 */
static void rises_to_cas(void *arg, size_t k, size_t from, size_t to)
{
	struct proof *p = arg;
	const struct channel_order *o = p->o;
	struct port_turns port[256];
	for (size_t s = from; s < to && p->verdict[k] == 1; s++) {
		const uint8_t *row = p->row[s];
		if (!row)
			continue;
		memset(port, 0, sizeof(port));
		for (unsigned out = 1; out <= o->nports[s]; out++) {
			struct port_turns *pt = &port[out];
			size_t next = o->peer[o->offset[s] + out];
			pt->key = o->key[o->offset[s] + out];
			pt->turns = pt->key != CHANNEL_KEY_NONE && pt->key != CHANNEL_KEY_CA && p->row[next];
			if (pt->turns) {
				pt->next_row = p->row[next];
				pt->next_key = o->key + o->offset[next];
				pt->next_ports = o->nports[next];
			}
		}
		for (uint32_t lid = 1; lid <= p->t->max_lid; lid++) {
			const struct port_turns *pt = &port[row[lid]];
			if (!pt->turns || p->switch_lid[lid])
				continue;
			uint8_t on = pt->next_row[lid];
			int32_t k2 = on && on <= pt->next_ports ? pt->next_key[on] : CHANNEL_KEY_NONE;
			if (k2 != CHANNEL_KEY_NONE && k2 <= pt->key) {	/* CHANNEL_KEY_CA, last, always rises */
				p->verdict[k] = 0;
				break;
			}
		}
	}
}

/* The switch s's entry for lid leads to (SW_NONE: none, a CA, or s is lid's). */
static size_t next_switch(const struct proof *p, size_t s, uint16_t lid)
{
	uint8_t out = entry_port(p, s, lid);
	return out ? p->o->peer[p->o->offset[s] + out] : SW_NONE;
}

/*
 * Towards a switch's LID only CAs send on the data VLs (switches talk on
 * VL15): the turns on the paths from the switches with CAs must rise.
 * reached: per switch, scratch, holding the last walk's stamp.
 */
static bool leaves_paths_rise(const struct proof *p, uint16_t lid, uint32_t *reached, uint32_t stamp, size_t *stack)
{
	const struct channel_order *o = p->o;
	size_t top = 0;
	for (size_t s = 0; s < o->x.nsw; s++)
		if (o->r.level[s] == 0) {
			reached[s] = stamp;
			stack[top++] = s;
		}
	while (top) {
		size_t s = stack[--top];
		if (!turn_rises(p, s, lid))
			return false;
		size_t next = next_switch(p, s, lid);
		if (next != SW_NONE && reached[next] != stamp) {
			reached[next] = stamp;
			stack[top++] = next;
		}
	}
	return true;
}

/* The leaves' paths to the switch LIDs switch_lids[from, to) rise. */
static void switch_lids_rise(void *arg, size_t k, size_t from, size_t to)
{
	struct proof *p = arg;
	size_t nsw = p->o->x.nsw;
	uint32_t *reached = calloc(nsw + 1, sizeof(*reached)), stamp = 0;
	size_t *stack = malloc((nsw + 1) * sizeof(*stack));
	if (!reached || !stack)
		p->verdict[k] = -1;
	for (size_t i = from; i < to && p->verdict[k] == 1; i++)
		if (!leaves_paths_rise(p, p->switch_lids[i], reached, ++stamp, stack))
			p->verdict[k] = 0;
	free(stack);
	free(reached);
}

/* Runs fn over [0, n) in shares: 1 when every share found each turn rising, 0 when one did not, -1 on failure. */
static int prove_shares(struct proof *p, size_t n, share_fn fn)
{
	size_t nshares = shares_count(p->o->x.nsw, SHARE_MIN_SWITCHES);
	int proven = 1;
	for (size_t k = 0; k < nshares; k++)
		p->verdict[k] = 1;
	shares_run(nshares, n, fn, p);
	for (size_t k = 0; k < nshares; k++)
		if (p->verdict[k] < proven)
			proven = p->verdict[k];
	return proven;
}

int order_proof(const struct fabric *f, const struct routing_tables *t)
{
	struct channel_order o = { 0 };
	struct proof p = { .o = &o, .t = t };
	bool *switch_lid = calloc((size_t)t->max_lid + 1, sizeof(*switch_lid));
	uint16_t *switch_lids = NULL;
	const uint8_t **row = NULL;
	int proven = -1;
	if (!switch_lid || channel_order_build(f, &o) < 0 || !(switch_lids = malloc((o.x.nsw + 1) * sizeof(*switch_lids))) ||
	    !(row = malloc((o.x.nsw + 1) * sizeof(*row))))
		goto done;
	proven = o.ranked;	/* a switch no CA is below: its links have no place in the order */
	size_t nswitch_lids = 0;
	for (size_t s = 0; s < o.x.nsw; s++) {
		uint16_t lid = o.x.sw[s]->ports[0].lid;
		if (lid && lid <= t->max_lid)
			switch_lid[lid] = true;
		row[s] = t->lft[o.x.sw[s]->index];
	}
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		if (switch_lid[lid])
			switch_lids[nswitch_lids++] = (uint16_t)lid;
	p.row = row;
	p.switch_lid = switch_lid;
	p.switch_lids = switch_lids;
	/*
	 * The switches' LIDs first: the leaves' paths to them are far fewer
	 * entries than every switch's towards every CA, and a degraded tree's
	 * escape LIDs fail here, before the CAs' entries are read for nothing
	 * (the layering then proves layer 0 by this order again).
	 */
	if (proven == 1)
		proven = prove_shares(&p, nswitch_lids, switch_lids_rise);
	if (proven == 1)
		proven = prove_shares(&p, o.x.nsw, rises_to_cas);
	/* towards a switch's LID, entries off the leaves' paths must not loop either (routing/loops.c) */
	struct loops_report loops;
	if (proven == 1 && loops_find_lids(f, t, switch_lid, &loops) < 0)
		proven = -1;
	else if (proven == 1 && loops.entries)
		proven = 0;
done:
	free(row);
	free(switch_lids);
	free(switch_lid);
	channel_order_free(&o);
	return proven;
}
