/*
 * DOC: the multicast trees the switches hold
 *
 * Every MFT programming (sm/sa/mcast_program.c) writes trees computed on
 * the published fabric, which the next sweep replaces; the switches keep
 * the entries. So what they hold is kept here by switch GUID and port
 * (routing/mtree_saved.c), per MLID with its group's SL: while a
 * programming's Sets go out, the union of what was held and what is
 * written (a switch holds one or the other), and once every Set is
 * answered, what was written (not known at start, nor after standing
 * by: the first programming then clears before it writes). A repair's
 * plan sees them on its fabric
 * (the stages' mixtures must be proven with the trees the switches hold
 * throughout), and so does the next programming (each switch goes from
 * its held entry to its new one). Trees on one fabric (struct mc_trees),
 * and the MFT blocks they make, are here too.
 */
#include "sm/sa/mcast_held.h"

#include <stdlib.h>
#include <string.h>

int mc_trees_new(struct mc_trees *t, unsigned n, const struct fabric *f)
{
	memset(t, 0, sizeof(*t));
	t->nnodes = f->nnodes;
	t->mlid = calloc(n + 1, sizeof(*t->mlid));
	t->sl = calloc(n + 1, 1);
	t->on = calloc(n + 1, sizeof(*t->on));
	bool ok = t->mlid && t->sl && t->on;
	t->n = ok ? n : 0;
	for (unsigned k = 0; ok && k < n; k++)
		ok = (t->on[k] = mtree_new(f)) != NULL;
	if (!ok)
		mc_trees_free(t);
	return ok ? 0 : -1;
}

void mc_trees_free(struct mc_trees *t)
{
	for (unsigned k = 0; t->on && k < t->n; k++)
		mtree_free(t->on[k], t->nnodes);
	free(t->on);
	free(t->mlid);
	free(t->sl);
	memset(t, 0, sizeof(*t));
}

bool mc_trees_masks(const struct mc_trees *t, const struct node *n, unsigned block, unsigned pos,
		    ib_net16_t masks[IB_MCAST_BLOCK_SIZE])
{
	bool used = false;
	memset(masks, 0, IB_MCAST_BLOCK_SIZE * sizeof(*masks));
	for (unsigned k = 0; k < t->n; k++) {
		if (mcast_block_of(t->mlid[k]) != block)
			continue;
		used = true;
		uint16_t bits = 0;
		for (unsigned p = pos * 16u; p < pos * 16u + 16 && p <= n->nports; p++)
			bits |= t->on[k][n->index][p] ? (uint16_t)(1u << (p - pos * 16u)) : 0;
		masks[(t->mlid[k] - MC_FIRST_MLID) % IB_MCAST_BLOCK_SIZE] |= cl_hton16(bits);
	}
	return used;
}

int mc_held_trees(const struct mc_held *h, unsigned n, const struct fabric *f, struct mc_trees *out)
{
	if (mc_trees_new(out, n, f) < 0)
		return -1;
	for (unsigned k = 0; k < n; k++) {
		out->mlid[k] = h[k].mlid;
		out->sl[k] = h[k].sl;
		mtree_load(&h[k].tree, f, out->on[k]);
	}
	return 0;
}

int mcast_held_trees(const struct mcast *mc, const struct fabric *f, struct mc_trees *out)
{
	return mc_held_trees(mc->held, mc->nheld, f, out);
}

void mc_held_free(struct mc_held *h, unsigned n)
{
	for (unsigned k = 0; h && k < n; k++)
		mtree_saved_free(&h[k].tree);
	free(h);
}

int mc_held_save(const struct mc_trees *t, const struct fabric *f, struct mc_held **out, unsigned *n)
{
	struct mc_held *h = calloc(t->n + 1, sizeof(*h));
	*out = NULL;
	*n = 0;
	for (unsigned k = 0; h && k < t->n; k++) {
		h[k].mlid = t->mlid[k];
		h[k].sl = t->sl[k];
		if (mtree_save(f, t->on[k], &h[k].tree) < 0) {
			mc_held_free(h, k);
			return -1;
		}
	}
	if (!h)
		return -1;
	*out = h;
	*n = t->n;
	return 0;
}

void mcast_held_take(struct mcast *mc, struct mc_held *h, unsigned n)
{
	mc_held_free(mc->held, mc->nheld);
	mc->held = h;
	mc->nheld = n;
	mc->held_known = true;
}

void mcast_held_forget(struct mcast *mc)
{
	mc_held_free(mc->held, mc->nheld);
	mc->held = NULL;
	mc->nheld = 0;
	mc->held_known = false;
}

int mc_held_union(struct mc_held **into, unsigned *ninto, const struct mc_held *h, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		unsigned j = 0;
		while (j < *ninto && (*into)[j].mlid != h[k].mlid)
			j++;
		if (j == *ninto) {
			struct mc_held *more = realloc(*into, (*ninto + 1) * sizeof(*more));
			if (!more)
				return -1;
			*into = more;
			(*into)[(*ninto)++] = (struct mc_held){ .mlid = h[k].mlid, .sl = h[k].sl };
		}
		if (mtree_saved_union(&(*into)[j].tree, &h[k].tree) < 0)
			return -1;
	}
	return 0;
}

int mcast_held_add(struct mcast *mc, const struct mc_held *h, unsigned n)
{
	return mc_held_union(&mc->held, &mc->nheld, h, n);
}
