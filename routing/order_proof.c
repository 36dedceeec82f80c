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
 * The numbering tried is the up*-down* one of a fat tree. Switches are
 * ordered by level (routing/rank.c: the distance from the nearest switch
 * with a CA), then GUID, as the up/down engine orders them; a channel is
 * up when it leads higher in that order. A channel up from the switch in
 * place p is numbered p; a channel down from it is numbered after every up
 * channel, higher the lower p is; a channel to a CA comes last (nothing
 * depends on it). So up-up, up-down and down-down turns rise, and a
 * down-up turn does not: where some entry makes one, this proof says
 * nothing and the caller builds the graph.
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

#include "routing/loops.h"
#include "routing/rank.h"
#include "routing/swindex.h"

#define KEY_NONE INT32_MIN	/* no channel: port 0, unconnected, out of range */
#define KEY_CA INT32_MAX	/* to a CA: last */

struct order {
	struct swindex x;
	struct rank r;
	size_t *place;		/* per switch index: its place in (level, GUID) order */
	size_t *offset;		/* per switch index: where its ports' keys start */
	int32_t *key;		/* per switch port: the number of the channel it sends on */
};

static void order_free(struct order *o)
{
	free(o->key);
	free(o->offset);
	free(o->place);
	rank_free(&o->r);
	swindex_free(&o->x);
}

static int by_rank(const void *a, const void *b, void *arg)
{
	const struct order *o = arg;
	size_t sa = *(const size_t *)a, sb = *(const size_t *)b;
	return rank_above(&o->r, &o->x, sa, sb) ? 1 : rank_above(&o->r, &o->x, sb, sa) ? -1 : 0;
}

static int order_build(const struct fabric *f, struct order *o)
{
	if (swindex_build(&o->x, f) < 0 || rank_fat_tree(&o->r, &o->x, NULL, 0) < 0)
		return -1;
	size_t n = o->x.nsw, ports = 0;
	size_t *sorted = malloc((n + 1) * sizeof(*sorted));
	o->place = malloc((n + 1) * sizeof(*o->place));
	o->offset = malloc((n + 1) * sizeof(*o->offset));
	for (size_t s = 0; o->offset && s < n; s++) {
		o->offset[s] = ports;
		ports += (size_t)o->x.sw[s]->nports + 1;
	}
	o->key = malloc((ports + 1) * sizeof(*o->key));
	if (!sorted || !o->place || !o->offset || !o->key) {
		free(sorted);
		return -1;
	}
	for (size_t s = 0; s < n; s++)
		sorted[s] = s;
	qsort_r(sorted, n, sizeof(*sorted), by_rank, o);
	for (size_t k = 0; k < n; k++)
		o->place[sorted[k]] = k;
	free(sorted);
	for (size_t s = 0; s < n; s++) {
		const struct node *sw = o->x.sw[s];
		o->key[o->offset[s]] = KEY_NONE;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct node *r = sw->ports[p].remote;
			size_t peer = swindex_peer(&o->x, sw, p);
			int32_t *k = &o->key[o->offset[s] + p];
			if (!r)
				*k = KEY_NONE;
			else if (peer == SW_NONE)
				*k = KEY_CA;
			else if (o->r.level[s] == RANK_NONE || o->r.level[peer] == RANK_NONE)
				*k = KEY_NONE;	/* unranked: marked unprovable below */
			else
				*k = (int32_t)(rank_above(&o->r, &o->x, peer, s) ? o->place[s] : 2 * n - o->place[s]);
		}
	}
	return 0;
}

/* The number of the channel switch s's entry for lid leaves by (KEY_NONE: none). */
static int32_t entry_key(const struct order *o, const struct routing_tables *t, size_t s, uint16_t lid)
{
	const struct node *sw = o->x.sw[s];
	uint8_t out = t->lft[sw->index] ? t->lft[sw->index][lid] : 0;
	return out && out <= sw->nports ? o->key[o->offset[s] + out] : KEY_NONE;
}

/* Whether the turn switch s makes for lid, if any, rises (as a turn can only be, onto a switch). */
static bool turn_rises(const struct order *o, const struct routing_tables *t, size_t s, uint16_t lid)
{
	int32_t k1 = entry_key(o, t, s, lid);
	if (k1 == KEY_NONE || k1 == KEY_CA)
		return true;	/* delivered, dropped, or out of range: no turn */
	const struct node *sw = o->x.sw[s];
	int32_t k2 = entry_key(o, t, swindex_peer(&o->x, sw, t->lft[sw->index][lid]), lid);
	return k2 == KEY_NONE || k2 == KEY_CA || k2 > k1;
}

/* Every turn switch s makes towards a CA's LID rises: any switch may answer a CA. */
static bool rises_to_cas(const struct order *o, const struct routing_tables *t, size_t s, const bool *switch_lid)
{
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		if (!switch_lid[lid] && !turn_rises(o, t, s, (uint16_t)lid))
			return false;
	return true;
}

/* The switch s's entry for lid leads to (SW_NONE: none, a CA, or s is lid's). */
static size_t next_switch(const struct order *o, const struct routing_tables *t, size_t s, uint16_t lid)
{
	const struct node *sw = o->x.sw[s];
	uint8_t out = t->lft[sw->index] ? t->lft[sw->index][lid] : 0;
	return out && out <= sw->nports ? swindex_peer(&o->x, sw, out) : SW_NONE;
}

/*
 * Towards a switch's LID only CAs send on the data VLs (switches talk on
 * VL15): the turns on the paths from the switches with CAs must rise.
 * reached: per switch, scratch, holding the last walk's stamp.
 */
static bool leaves_paths_rise(const struct order *o, const struct routing_tables *t, uint16_t lid, uint32_t *reached,
			      uint32_t stamp, size_t *stack)
{
	size_t top = 0;
	for (size_t s = 0; s < o->x.nsw; s++)
		if (o->r.level[s] == 0) {
			reached[s] = stamp;
			stack[top++] = s;
		}
	while (top) {
		size_t s = stack[--top];
		if (!turn_rises(o, t, s, lid))
			return false;
		size_t next = next_switch(o, t, s, lid);
		if (next != SW_NONE && reached[next] != stamp) {
			reached[next] = stamp;
			stack[top++] = next;
		}
	}
	return true;
}

int order_proof(const struct fabric *f, const struct routing_tables *t)
{
	struct order o = { 0 };
	bool *switch_lid = calloc((size_t)t->max_lid + 1, sizeof(*switch_lid));
	uint32_t *reached = NULL;
	size_t *stack = NULL;
	if (!switch_lid || order_build(f, &o) < 0 || !(reached = calloc(o.x.nsw + 1, sizeof(*reached))) ||
	    !(stack = malloc((o.x.nsw + 1) * sizeof(*stack)))) {
		free(switch_lid);
		free(reached);
		order_free(&o);
		return -1;
	}
	int proven = 1;
	for (size_t s = 0; s < o.x.nsw; s++) {
		uint16_t lid = o.x.sw[s]->ports[0].lid;
		if (lid && lid <= t->max_lid)
			switch_lid[lid] = true;
		if (o.r.level[s] == RANK_NONE)
			proven = 0;	/* a switch no CA is below: its links have no place in the order */
	}
	for (size_t s = 0; proven && s < o.x.nsw; s++)
		if (t->lft[o.x.sw[s]->index] && !rises_to_cas(&o, t, s, switch_lid))
			proven = 0;
	uint32_t stamp = 0;
	for (uint32_t lid = 1; proven && lid <= t->max_lid; lid++)
		if (switch_lid[lid] && !leaves_paths_rise(&o, t, (uint16_t)lid, reached, ++stamp, stack))
			proven = 0;
	/* towards a switch's LID, entries off the leaves' paths must not loop either (routing/loops.c) */
	struct loops_report loops;
	if (proven && loops_find_lids(f, t, switch_lid, &loops) < 0)
		proven = -1;
	else if (proven && loops.entries)
		proven = 0;
	free(stack);
	free(reached);
	free(switch_lid);
	order_free(&o);
	return proven;
}
