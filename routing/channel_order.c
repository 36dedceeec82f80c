/*
 * DOC: the up*-down* numbering of channels
 *
 * Switches are ordered by level (routing/rank.c: the distance from the
 * nearest switch with a CA), then GUID, as the up/down engine orders them;
 * a channel is up when it leads higher in that order. A channel up from
 * the switch in place p is numbered p; a channel down from it is numbered
 * after every up channel, higher the lower p is; a channel to a CA comes
 * last (nothing depends on it). So up-up, up-down and down-down turns
 * rise, and a down-up turn does not.
 */
#include "routing/channel_order.h"

#include <stdlib.h>
#include <string.h>

void channel_order_free(struct channel_order *o)
{
	free(o->peer);
	free(o->key);
	free(o->nports);
	free(o->offset);
	free(o->place);
	free(o->at_place);
	rank_free(&o->r);
	swindex_free(&o->x);
}

static int by_rank(const void *a, const void *b, void *arg)
{
	const struct channel_order *o = arg;
	size_t sa = *(const size_t *)a, sb = *(const size_t *)b;
	return rank_above(&o->r, &o->x, sa, sb) ? 1 : rank_above(&o->r, &o->x, sb, sa) ? -1 : 0;
}

int channel_order_build(const struct fabric *f, struct channel_order *o)
{
	if (swindex_build(&o->x, f) < 0 || rank_fat_tree(&o->r, &o->x, NULL, 0) < 0)
		return -1;
	size_t n = o->x.nsw, ports = 0;
	size_t *sorted = o->at_place = malloc((n + 1) * sizeof(*sorted));
	o->place = malloc((n + 1) * sizeof(*o->place));
	o->offset = malloc((n + 1) * sizeof(*o->offset));
	o->nports = malloc(n + 1);
	for (size_t s = 0; o->offset && o->nports && s < n; s++) {
		o->offset[s] = ports;
		o->nports[s] = o->x.sw[s]->nports;
		ports += (size_t)o->x.sw[s]->nports + 1;
	}
	o->key = malloc((ports + 1) * sizeof(*o->key));
	o->peer = malloc((ports + 1) * sizeof(*o->peer));
	if (!sorted || !o->place || !o->offset || !o->nports || !o->key || !o->peer)
		return -1;
	o->ranked = true;
	for (size_t s = 0; s < n; s++) {
		sorted[s] = s;
		o->ranked &= o->r.level[s] != RANK_NONE;
	}
	qsort_r(sorted, n, sizeof(*sorted), by_rank, o);
	for (size_t k = 0; k < n; k++)
		o->place[sorted[k]] = k;
	for (size_t s = 0; s < n; s++) {
		const struct node *sw = o->x.sw[s];
		o->key[o->offset[s]] = CHANNEL_KEY_NONE;
		o->peer[o->offset[s]] = SW_NONE;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct node *r = sw->ports[p].remote;
			size_t peer = swindex_peer(&o->x, sw, p);
			int32_t *k = &o->key[o->offset[s] + p];
			o->peer[o->offset[s] + p] = peer;
			if (!r)
				*k = CHANNEL_KEY_NONE;
			else if (peer == SW_NONE)
				*k = CHANNEL_KEY_CA;
			else if (o->r.level[s] == RANK_NONE || o->r.level[peer] == RANK_NONE)
				*k = CHANNEL_KEY_NONE;	/* unranked: o->ranked is false, no proof by this order */
			else
				*k = (int32_t)(rank_above(&o->r, &o->x, peer, s) ? o->place[s] : 2 * n - o->place[s]);
		}
	}
	return 0;
}

