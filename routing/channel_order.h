/*
 * channel_order.h - the up*-down* numbering of a fat tree's channels:
 * switches in (level, GUID) order, a channel up from the switch in place
 * p numbered p, a channel down from it after every up channel (higher the
 * lower p is), a channel to a CA last. A dependency that rises in it is an
 * up-up, up-down or down-down turn; a down-up turn falls. Shared by the
 * proofs by channel order (order_proof.h).
 */
#ifndef ROUTING_CHANNEL_ORDER_H
#define ROUTING_CHANNEL_ORDER_H

#include <stdint.h>

#include "routing/rank.h"
#include "routing/swindex.h"

#define CHANNEL_KEY_NONE INT32_MIN	/* no channel: port 0, unconnected, out of range */
#define CHANNEL_KEY_CA INT32_MAX	/* to a CA: last */

struct channel_order {
	struct swindex x;
	struct rank r;
	bool ranked;		/* every switch has a level (some CA below it) */
	size_t *place;		/* per switch index: its place in (level, GUID) order */
	size_t *at_place;	/* per place: the switch index there */
	size_t *offset;		/* per switch index: where its ports' keys start */
	uint8_t *nports;	/* per switch index */
	int32_t *key;		/* per switch port: the number of the channel it sends on */
	size_t *peer;		/* per switch port: the switch behind it, SW_NONE for none */
};

/* Numbers f's channels into o (zeroed); -1 on allocation failure. Free with channel_order_free either way. */
int channel_order_build(const struct fabric *f, struct channel_order *o);
void channel_order_free(struct channel_order *o);

#endif
