/*
 * discover.h - directed-route discovery of the whole fabric.
 */
#ifndef SM_DISCOVER_H
#define SM_DISCOVER_H

#include "sm/mad/mad.h"
#include "sm/sweep/mkey.h"
#include "topology/fabric.h"

struct disc_report {
	unsigned nodes, switches, cas, links;
	unsigned unreachable;	/* ports whose neighbour never answered */
	unsigned duplicates;	/* GUIDs seen at two places */
	unsigned failed_attrs;	/* NodeDescription/PortInfo/SwitchInfo reads that failed */
};

typedef void (*disc_done_fn)(void *arg, const struct disc_report *r);

/*
 * Discovers the fabric reachable from mp into f (which must be empty and
 * initialised), reading NodeInfo, NodeDescription, SwitchInfo and every
 * PortInfo. Requests are pipelined: each answer issues the next ones.
 * Calls done once nothing is left in flight, with f->nodes in GUID order;
 * the SM's own node is the one at 0 hops. Each node found gets its M_Key
 * from mkeys (sm_node->mkey), and the SMPs about it carry that key.
 */
int disc_start(struct mad_port *mp, struct mkeys *mkeys, struct fabric *f, disc_done_fn done, void *arg);

#endif
