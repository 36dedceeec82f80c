/*
 * mcast_held.h - the multicast trees the switches hold, kept by switch
 * GUID (routing/mtree.h) across fabrics: a repair's plan proves its
 * stages with them, and the next programming of the MFTs proves the
 * mixture of them and its new trees.
 */
#ifndef SM_MCAST_HELD_H
#define SM_MCAST_HELD_H

#include "sm/sa/mcast.h"

/* The trees h[0..n) on f. -1 on allocation failure. */
int mc_held_trees(const struct mc_held *h, unsigned n, const struct fabric *f, struct mc_trees *out);
/* The trees mc's switches hold, on f (one per held MLID). -1 on allocation failure. */
int mcast_held_trees(const struct mcast *mc, const struct fabric *f, struct mc_trees *out);
/* t (trees of f) as held entries into *out, *n of them. -1 on allocation failure. */
int mc_held_save(const struct mc_trees *t, const struct fabric *f, struct mc_held **out, unsigned *n);
void mc_held_free(struct mc_held *h, unsigned n);
/*
 * Adds h[0..n) to *into (*ninto entries): an MLID's ports to those it
 * has, an MLID it lacks as a new entry. -1 on allocation failure.
 */
int mc_held_union(struct mc_held **into, unsigned *ninto, const struct mc_held *h, unsigned n);
/* What the switches hold is h[0..n) (taken: mc frees it), its Sets all answered. */
void mcast_held_take(struct mcast *mc, struct mc_held *h, unsigned n);
/* What the switches hold is not known any more (another SM programs them): forgotten. */
void mcast_held_forget(struct mcast *mc);
/*
 * Adds h[0..n) to what the switches may hold (an MLID's ports to those
 * held for it): while its Sets go out, or after some went unanswered.
 * -1 on allocation failure (then what mc holds may lack some of h: the
 * caller must not program h).
 */
int mcast_held_add(struct mcast *mc, const struct mc_held *h, unsigned n);

#endif
