/*
 * DOC: one layer proven by channel order
 *
 * order_proof.c proves every layer at once, every entry of every switch
 * rising in the up*-down* numbering of channels (routing/channel_order.c).
 * On a degraded tree the escape entries (switches without a legal path,
 * which answer along a down-up turn) fail it, though the layer of the
 * hosts' LIDs may carry none of them. This proves one layer the same way,
 * but only along the walks routing/cdg.c makes for it: from the CAs'
 * switches to the layer's LIDs and, with answers, from the layer's
 * senders to every CA. Where each turn on them rises, the layer's graph is
 * acyclic without being built.
 *
 * The only turn that does not rise is a down move followed by an up move.
 * The walks are not walked one by one. For 64 LIDs at a time each switch
 * holds a bit per LID that some walk reaches it. Rising turns go up the
 * order and then down, so one pass up the switches' places (following the
 * entries that lead higher, noting which lead lower) and one down
 * (following those) reach every switch a walk reaches, as long as every
 * turn met rises; in the pass down a switch's bits from above are
 * complete when it comes, and one whose entry there leads up is the turn
 * that does not rise: it ends the proof, so the passes never stand for a
 * walk they would miss. Each entry is read about once. The blocks are
 * shared out among the CPUs.
 */
#include "routing/order_proof.h"

#include <stdlib.h>
#include <string.h>

#include "routing/channel_order.h"
#include "routing/shares.h"

#define LID_BLOCK 64	/* LIDs proven together: a bit each in a switch's word */
#define SHARE_MIN_BLOCKS 16	/* fewer blocks are proven by one thread: starting more costs more than it saves */

struct layer_proof {
	const struct channel_order *o;
	const struct routing_tables *t;
	const uint8_t **row;	/* per switch index: its LFT */
	bool *to_ca;		/* per LID: a CA's (answers go to it) */
	bool *mine;		/* per LID: on the layer (the CAs send to it on it) */
	uint64_t *seed_mine, *seed_ca;	/* per switch index: all ones where walks start for those LIDs */
	size_t *own;		/* switches whose own LID is on the layer (they answer CAs) */
	size_t nown;
	bool own_next;		/* their answers start at their next switch (cdg_own_hop_on_vl0) */
	uint8_t *move;		/* per switch port (as o->key): MOVE_UP, MOVE_DOWN or MOVE_NONE */
	int verdict[SHARES_MAX];	/* per share: 1 every turn rises, 0 one does not, -1 allocation failure */
};

/* How an entry leaves a switch: towards a switch higher or lower in the order, or not to a switch. */
enum { MOVE_NONE, MOVE_UP, MOVE_DOWN };

/* A share's words for one block, per switch index. */
struct block_bits {
	uint64_t *reach;	/* LIDs some walk brings there going up (the seeds included) */
	uint64_t *up, *down;	/* of those, the LIDs whose entry there leads up, or down */
	uint64_t *came;		/* LIDs some walk brings there going down */
};

/* Switch s's view for one block: its entries for the block's LIDs, and per port the move and the switch. */
struct at_switch {
	const uint8_t *entry;	/* [k]: the entry for LID lo + k */
	const uint8_t *move;	/* [port] */
	const size_t *peer;	/* [port] */
	uint8_t nports;
};

static struct at_switch view_of(const struct layer_proof *p, size_t s, uint16_t lo)
{
	const struct channel_order *o = p->o;
	return (struct at_switch){ p->row[s] + lo, p->move + o->offset[s], o->peer + o->offset[s], o->nports[s] };
}

/* The move of the entry for LID lo + k. */
static inline uint8_t move_at(const struct at_switch *a, unsigned k)
{
	uint8_t out = a->entry[k];
	return out <= a->nports ? a->move[out] : MOVE_NONE;
}

/* The switch the entry for LID lo + k leads to, SW_NONE for none. */
static inline size_t next_at(const struct at_switch *a, unsigned k)
{
	uint8_t out = a->entry[k];
	return out <= a->nports ? a->peer[out] : SW_NONE;
}

/* Where the walks to LIDs lo .. lo + n - 1 start, as bits in reach. */
static void seed_block(const struct layer_proof *p, uint16_t lo, size_t n, uint64_t *reach)
{
	uint64_t mine = 0, ca = 0;
	for (size_t k = 0; k < n; k++) {
		mine |= (uint64_t)p->mine[lo + k] << k;
		ca |= (uint64_t)p->to_ca[lo + k] << k;
	}
	for (size_t s = 0; s < p->o->x.nsw; s++)
		reach[s] = (p->seed_mine[s] & mine) | (p->seed_ca[s] & ca);
	for (size_t i = 0; i < p->nown; i++) {
		size_t s = p->own[i];
		if (!p->own_next) {
			reach[s] |= ca;
			continue;
		}
		struct at_switch a = view_of(p, s, lo);
		for (uint64_t b = ca; b; b &= b - 1) {
			unsigned k = (unsigned)__builtin_ctzll(b);
			size_t next = next_at(&a, k);
			if (next != SW_NONE)
				reach[next] |= 1ull << k;
		}
	}
}

/*
 * The two passes over one block: false when a walk turns from down to up,
 * the only turn that does not rise (an up move is followed by anything
 * higher in the numbering, a down move by another down move or a CA).
 */
static bool block_rises(const struct layer_proof *p, uint16_t lo, struct block_bits *w)
{
	const struct channel_order *o = p->o;
	size_t nsw = o->x.nsw;
	memset(w->up, 0, nsw * sizeof(*w->up));
	memset(w->down, 0, nsw * sizeof(*w->down));
	memset(w->came, 0, nsw * sizeof(*w->came));
	for (size_t i = 0; i < nsw; i++) {	/* up: lower places first, so reach[s] is whole when s comes */
		size_t s = o->at_place[i];
		struct at_switch a = view_of(p, s, lo);
		for (uint64_t b = w->reach[s]; b; b &= b - 1) {
			unsigned k = (unsigned)__builtin_ctzll(b);
			uint8_t mv = move_at(&a, k);
			if (mv == MOVE_UP) {
				w->up[s] |= 1ull << k;
				w->reach[next_at(&a, k)] |= 1ull << k;
			} else if (mv == MOVE_DOWN) {
				w->down[s] |= 1ull << k;
			}
		}
	}
	for (size_t i = nsw; i-- > 0;) {	/* down: higher places first, so came[s] is whole when s comes */
		size_t s = o->at_place[i];
		if (w->came[s] & w->up[s])
			return false;
		struct at_switch a = view_of(p, s, lo);
		for (uint64_t b = w->came[s] & ~w->reach[s]; b; b &= b - 1) {	/* not looked at going up */
			unsigned k = (unsigned)__builtin_ctzll(b);
			uint8_t mv = move_at(&a, k);
			if (mv == MOVE_UP)
				return false;
			if (mv == MOVE_DOWN)
				w->down[s] |= 1ull << k;
		}
		for (uint64_t b = w->down[s]; b; b &= b - 1) {
			unsigned k = (unsigned)__builtin_ctzll(b);
			w->came[next_at(&a, k)] |= 1ull << k;
		}
	}
	return true;
}

/* Blocks [from, to) of LIDs (block b: LIDs 1 + 64 b ...), each share with its own words. */
static void prove_share(void *arg, size_t k, size_t from, size_t to)
{
	struct layer_proof *p = arg;
	size_t max_lid = p->t->max_lid, nsw = p->o->x.nsw + 1;
	struct block_bits w = { malloc(nsw * sizeof(*w.reach)), malloc(nsw * sizeof(*w.up)),
				malloc(nsw * sizeof(*w.down)), malloc(nsw * sizeof(*w.came)) };
	p->verdict[k] = w.reach && w.up && w.down && w.came ? 1 : -1;
	for (size_t b = from; b < to && p->verdict[k] == 1; b++) {
		size_t lo = 1 + b * LID_BLOCK, n = max_lid - lo + 1 < LID_BLOCK ? max_lid - lo + 1 : LID_BLOCK;
		seed_block(p, (uint16_t)lo, n, w.reach);
		p->verdict[k] = block_rises(p, (uint16_t)lo, &w);
	}
	free(w.reach);
	free(w.up);
	free(w.down);
	free(w.came);
}

/* A LID on the layer answers CAs from its switch: a switch's own from there, or its next hop; a CA's from its switch. */
static void add_sender(void *arg, uint16_t lid, const struct node *sw, bool own)
{
	struct layer_proof *p = arg;
	(void)lid;
	if (own)
		p->own[p->nown++] = p->o->x.of_node[sw->index];
	else
		p->seed_ca[p->o->x.of_node[sw->index]] = UINT64_MAX;
}

/*
 * Fills what the walks of m's layer start from, as routing/cdg.c finds
 * it: 0, 1 when a switch has no table (not proven here), -1 on allocation
 * failure.
 */
static int layer_setup(struct layer_proof *p, const struct fabric *f, const struct cdg_mix *m, unsigned layer)
{
	const struct channel_order *o = p->o;
	size_t nsw = o->x.nsw, n = (size_t)p->t->max_lid + 1;
	const struct node **entry = malloc((f->nnodes + 1) * sizeof(*entry));
	p->row = malloc((nsw + 1) * sizeof(*p->row));
	p->to_ca = calloc(n, sizeof(*p->to_ca));
	p->mine = calloc(n, sizeof(*p->mine));
	p->seed_mine = calloc(nsw + 1, sizeof(*p->seed_mine));
	p->seed_ca = calloc(nsw + 1, sizeof(*p->seed_ca));
	p->own = malloc((nsw + 1) * sizeof(*p->own));
	size_t ports = nsw ? o->offset[nsw - 1] + o->nports[nsw - 1] + 1 : 0;
	p->move = malloc(ports + 1);
	size_t nentry = entry ? cdg_entry_switches(f, entry) : SIZE_MAX;
	if (!p->row || !p->to_ca || !p->mine || !p->seed_mine || !p->seed_ca || !p->own || !p->move ||
	    nentry == SIZE_MAX) {
		free(entry);
		return -1;
	}
	for (size_t i = 0; i < ports; i++) {	/* up channels are numbered below the switch count */
		int32_t key = o->key[i];
		p->move[i] = key == CHANNEL_KEY_NONE || key == CHANNEL_KEY_CA ? MOVE_NONE
			     : (size_t)key < nsw ? MOVE_UP : MOVE_DOWN;
	}
	p->own_next = cdg_own_hop_on_vl0(layer);
	for (size_t s = 0; s < nsw; s++)
		if (!(p->row[s] = p->t->lft[o->x.sw[s]->index])) {
			free(entry);
			return 1;	/* a switch without a table: not for this proof */
		}
	for (size_t i = 0; i < nentry; i++)
		p->seed_mine[o->x.of_node[entry[i]->index]] = UINT64_MAX;
	free(entry);
	for (size_t i = 0; i < f->nnodes; i++) {	/* the destinations, as routing/cdg.c lists them */
		const struct node *x = f->nodes[i];
		bool sw = x->type == NODE_SWITCH;
		for (unsigned q = sw ? 0 : 1; q <= (sw ? 0 : x->nports); q++) {
			uint16_t lid = x->ports[q].lid;
			if (!lid || lid >= n || (sw && m->to_cas_only))
				continue;
			p->to_ca[lid] = !sw;
			p->mine[lid] = cdg_on_layer(m, lid, layer);
		}
	}
	if (!m->to_cas_only && !m->no_answers)
		cdg_each_layer_lid(f, m, layer, p->t->max_lid, add_sender, p);
	return 0;
}

int order_proof_layer(const struct fabric *f, const struct cdg_mix *m, unsigned layer)
{
	struct channel_order o = { 0 };
	struct layer_proof p = { .o = &o, .t = m->lft[0] };
	if (m->nlft != 1)
		return 0;	/* a mixture: each switch has two entries, not proven here */
	int rc = channel_order_build(f, &o) < 0 ? -1 : layer_setup(&p, f, m, layer);
	int proven = rc < 0 ? -1 : rc == 0 && o.ranked;
	if (proven == 1) {
		size_t nblocks = ((size_t)p.t->max_lid + LID_BLOCK - 1) / LID_BLOCK;
		size_t nshares = shares_count(nblocks, SHARE_MIN_BLOCKS);
		shares_run(nshares, nblocks, prove_share, &p);
		for (size_t k = 0; k < nshares; k++)
			proven = p.verdict[k] < proven ? p.verdict[k] : proven;
	}
	free(p.row);
	free(p.to_ca);
	free(p.mine);
	free(p.seed_mine);
	free(p.seed_ca);
	free(p.own);
	free(p.move);
	channel_order_free(&o);
	return proven;
}
