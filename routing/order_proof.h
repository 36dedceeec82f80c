/*
 * order_proof.h - a deadlock proof without the dependency graph: every
 * turn of every switch entry rises in the fat tree's up*-down* order of
 * channels.
 */
#ifndef ROUTING_ORDER_PROOF_H
#define ROUTING_ORDER_PROOF_H

#include "routing/cdg.h"
#include "routing/routing.h"

/*
 * 1 when every dependency any switch's entries make (for every LID, from
 * any source) rises in the up*-down* numbering of the channels: every
 * layer is then acyclic, the switches' answers included, and no entry
 * loops. 0 when some turn does not rise (a down-up turn, a route over a
 * link between switches of one rank): this proof says nothing, build the
 * graph. -1 on allocation failure.
 */
int order_proof(const struct fabric *f, const struct routing_tables *t);
/*
 * 1 when every turn on the walks of one layer of m (one table; those
 * routing/cdg.c makes: to the layer's LIDs from the CAs' switches and,
 * with answers, from the layer's senders to every CA) rises in that
 * order: the layer's graph is then acyclic, and no walk loops. 0 when
 * some turn does not (or m is a mixture): build the graph. -1 on
 * allocation failure. (routing/order_layer.c)
 */
int order_proof_layer(const struct fabric *f, const struct cdg_mix *m, unsigned layer);

#endif
