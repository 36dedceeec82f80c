/*
 * origin.h - which port of the fabric an SMP we received came from.
 */
#ifndef SM_ORIGIN_H
#define SM_ORIGIN_H

#include <stdint.h>
#include <iba/ib_types.h>

#include "sm/mad/mad.h"
#include "topology/fabric.h"

/*
 * The end port (node, and in *port its number: 0 for a switch) that sent
 * req, as far as f tells: a LID-routed SMP by the source LID the receiving
 * port reported; a directed-route one by following its return path (which
 * the switches on the way wrote) from own_guid's port through f's links.
 * NULL when f has no such port or the path leaves f.
 */
const struct node *smp_origin(const struct fabric *f, uint64_t own_guid, const ib_smp_t *req,
			      const struct mad_origin *from, uint8_t *port);

#endif
