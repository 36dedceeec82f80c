/*
 * DOC: what the SA reads of ports
 *
 * The facts about end ports that several SA attributes need: the P_Key
 * two ports share (PathRecords; MCMemberRecord ProxyJoin), and a port's
 * link rate and MTU (PathRecords; the groups MCMemberRecord joins
 * create). Kept apart from the attributes so that none of them calls
 * another's file (tests/layers/cycles.sh).
 */
#include "sm/sa/sa.h"

#include "sm/sm.h"
#include "sm/smnode.h"
#include "sm/sweep/pkeys.h"

uint16_t sa_shared_pkey(const struct partitions *ps, const struct node *a, uint8_t pa, const struct node *b,
			uint8_t pb, uint16_t want)
{
	uint16_t ka[PART_MAX + 1], kb[PART_MAX + 1];
	unsigned dropped;
	/* a switch's port 0 is in every partition */
	unsigned na = a->type == NODE_SWITCH ? 0 : partition_keys(ps, a, pa, a->hops == 0 && pa == a->local_port, ka,
								PART_MAX + 1, &dropped);
	unsigned nb = b->type == NODE_SWITCH ? 0 : partition_keys(ps, b, pb, b->hops == 0 && pb == b->local_port, kb,
								PART_MAX + 1, &dropped);
	if (a->type == NODE_SWITCH || b->type == NODE_SWITCH) {
		const uint16_t *k = a->type == NODE_SWITCH ? kb : ka;
		unsigned n = a->type == NODE_SWITCH ? nb : na;
		if (a->type == NODE_SWITCH && b->type == NODE_SWITCH)
			return want ? want | PART_FULL : PART_DEFAULT_PKEY | PART_FULL;
		for (unsigned i = 0; i < n; i++)
			if (!want || (k[i] & ~PART_FULL) == (want & ~PART_FULL))
				return k[i];
		return 0;
	}
	for (unsigned i = 0; i < na; i++)
		for (unsigned j = 0; j < nb; j++)
			if ((ka[i] & ~PART_FULL) == (kb[j] & ~PART_FULL) && ((ka[i] | kb[j]) & PART_FULL) &&
			    (!want || (ka[i] & ~PART_FULL) == (want & ~PART_FULL)))
				return (uint16_t)(ka[i] | (kb[j] & PART_FULL));
	return 0;
}

bool sa_share_partition(const struct sm *sm, uint64_t port_a, uint64_t port_b)
{
	const struct sm_snapshot *pub = sm_published(sm);
	uint8_t pa = 0, pb = 0;
	const struct node *a = pub ? fabric_find_port_guid(&pub->fabric, port_a, &pa) : NULL;
	const struct node *b = a ? fabric_find_port_guid(&pub->fabric, port_b, &pb) : NULL;
	return b && sa_shared_pkey(&pub->parts, a, pa, b, pb, 0) != 0;
}

uint8_t sa_port_rate(const struct node *n, uint8_t p)
{
	const struct sm_node *s = sm_node(n);
	/* FDR, EDR and HDR are LinkSpeedExtActive, read where the port (a switch: its port 0) has them */
	return s && s->have_port_info[p] ? ib_port_info_compute_rate(&s->port_info[p], n->ports[p].ext_speeds)
					 : IB_PATH_RECORD_RATE_2_5_GBS;
}

uint8_t sa_port_mtu(const struct node *n, uint8_t p)
{
	const struct sm_node *s = sm_node(n);
	return s && s->have_port_info[p] ? ib_port_info_get_neighbor_mtu(&s->port_info[p]) : IB_MTU_LEN_256;
}
