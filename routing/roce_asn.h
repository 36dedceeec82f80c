/*
 * roce_asn.h - the BGP AS numbers of a RoCE fabric, per RFC 7938: every
 * leaf its own ASN, the switches of a middle tier that share a leaf (a
 * pod) one ASN, the top tier one ASN. AS-path loop detection then rejects
 * every route that would go down and up again (a valley), which is the
 * turn the CBD proof forbids. ASNs the YAML gives are checked instead.
 */
#ifndef ROUTING_ROCE_ASN_H
#define ROUTING_ROCE_ASN_H

#include <stdbool.h>
#include <stdint.h>

#include "topology/roce.h"

/* The base of the ASNs fabricd assigns: 4-byte private ASNs (RFC 6996). */
#define ROCE_ASN_BASE 4200000000u

struct roce_asn_plan {
	uint32_t *asn;		/* per switch */
	bool assigned;		/* fabricd chose them: the YAML gave none */
	bool safe;
	char problem[320];	/* why not, naming the switches */
};

/* Assigns or checks rf's ASNs into out; -1 on allocation failure. */
int roce_asn_plan(const struct roce_fabric *rf, struct roce_asn_plan *out);
void roce_asn_free(struct roce_asn_plan *a);

#endif
