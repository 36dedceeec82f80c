/*
 * DOC: a transition's tables seen on the fabric of now
 *
 * The tables the switches hold were computed on the fabric of the last
 * sweep; a transition compares them with new ones computed on the fabric
 * of now, whose node indices differ. Here they are remapped by GUID, as
 * a copy or as a view that points at the held rows where they serve as
 * they are, and the held tables are given the drops of the LIDs that
 * went (what a repair sends while it routes).
 */
#include "routing/transition.h"

#include <stdlib.h>
#include <string.h>

/* from's row of each switch of f that from_f has (by GUID), NULL for the others; NULL without memory. */
static uint8_t **rows_by_guid(const struct fabric *from_f, const struct routing_tables *from, const struct fabric *f)
{
	uint8_t **row = calloc(f->nnodes + 1, sizeof(*row));
	for (size_t i = 0; row && from && from->lft && i < f->nnodes; i++) {
		const struct node *o = f->nodes[i]->type == NODE_SWITCH ? fabric_find_guid(from_f, f->nodes[i]->guid)
									 : NULL;
		row[i] = o && o->type == NODE_SWITCH ? from->lft[o->index] : NULL;
	}
	return row;
}

/*
 * transition_remap; share: out points at from's rows where they serve as
 * they are (a switch from holds by GUID, a table at least as long as
 * like's) instead of copying them.
 */
static int remap(const struct fabric *from_f, const struct routing_tables *from, const struct fabric *f,
		 const struct routing_tables *like, struct routing_tables *out, bool share)
{
	bool held = from && from->lft;
	uint8_t **row = rows_by_guid(from_f, from, f);
	bool *own = calloc(f->nnodes + 1, sizeof(*own));
	int rc = -1;
	for (size_t i = 0; row && own && i < f->nnodes; i++)
		own[i] = !share || !row[i] || from->max_lid < like->max_lid;
	/* f's switches, every entry LFT_NO_PATH; like gives the size and the SLs */
	if (!row || !own || routing_tables_alloc_some(out, f, like->max_lid, own) < 0)
		goto done;
	memcpy(out->sl, like->sl, (size_t)like->max_lid + 1);
	memcpy(out->vl_by_sl, like->vl_by_sl, sizeof(out->vl_by_sl));
	out->layers = like->layers;
	uint16_t max = held ? from->max_lid : 0;
	if (max > like->max_lid)
		max = like->max_lid;
	for (size_t i = 0; i < f->nnodes; i++) {
		if (out->lft[i] && row[i])
			memcpy(out->lft[i], row[i], (size_t)max + 1);
		else if (!out->lft[i] && f->nodes[i]->type == NODE_SWITCH)
			out->lft[i] = row[i];	/* from's: routing_tables_free frees only out's own rows */
	}
	if (from && from->sl) {
		memcpy(out->sl, from->sl, (size_t)max + 1);
		if (from->layers > out->layers)
			out->layers = from->layers;
	}
	rc = 0;
done:
	free(row);
	free(own);
	return rc;
}

int transition_remap(const struct fabric *from_f, const struct routing_tables *from, const struct fabric *f,
		     const struct routing_tables *like, struct routing_tables *out)
{
	return remap(from_f, from, f, like, out, false);
}

int transition_remap_view(const struct fabric *from_f, const struct routing_tables *from, const struct fabric *f,
			  const struct routing_tables *like, struct routing_tables *out)
{
	return remap(from_f, from, f, like, out, true);
}

int transition_drop_view(const struct fabric *held_f, const struct routing_tables *held, const struct fabric *f,
			 struct routing_tables *out, size_t *nswitches)
{
	size_t len = (size_t)held->max_lid + 1, ngone = 0;
	struct lid_owner *was = calloc(len, sizeof(*was)), *now = calloc(len, sizeof(*now));
	bool *own = calloc(f->nnodes + 1, 1);
	uint16_t *gone = malloc(len * sizeof(*gone));
	uint8_t **row = rows_by_guid(held_f, held, f);
	int rc = -1;
	*nswitches = 0;
	if (!was || !now || !own || !gone || !row)
		goto done;
	routing_lid_owners(held_f, held->max_lid, was);
	routing_lid_owners(f, held->max_lid, now);
	for (size_t lid = 1; lid < len; lid++)
		if (was[lid].node && !now[lid].node)
			gone[ngone++] = (uint16_t)lid;
	for (size_t i = 0; i < f->nnodes; i++) {
		for (size_t k = 0; row[i] && k < ngone && !own[i]; k++)
			own[i] = row[i][gone[k]] != LFT_NO_PATH;
		*nswitches += own[i];
	}
	if (routing_tables_alloc_some(out, f, held->max_lid, own) < 0)
		goto done;
	memcpy(out->sl, held->sl, len);
	memcpy(out->vl_by_sl, held->vl_by_sl, sizeof(out->vl_by_sl));
	out->layers = held->layers;
	for (size_t i = 0; i < f->nnodes; i++) {
		if (!own[i]) {
			out->lft[i] = row[i];	/* held's: routing_tables_free frees only out's own rows */
			continue;
		}
		memcpy(out->lft[i], row[i], len);
		for (size_t k = 0; k < ngone; k++)
			out->lft[i][gone[k]] = LFT_NO_PATH;
	}
	rc = 0;
done:
	free(was);
	free(now);
	free(own);
	free(gone);
	free(row);
	return rc;
}
