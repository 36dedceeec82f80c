/*
 * discover.h - directed-route discovery of the whole fabric.
 */
#ifndef SM_DISCOVER_H
#define SM_DISCOVER_H

#include "sm/mad/mad.h"
#include "sm/sweep/mkey.h"
#include "topology/fabric.h"

struct discovery;

struct disc_report {
	unsigned nodes, switches, cas, links;
	unsigned unreachable;	/* ports whose neighbour never answered */
	unsigned duplicates;	/* GUIDs seen at two places */
	unsigned malformed;	/* NodeInfo answers no node can give: the node behind is left out */
	unsigned failed_attrs;	/* NodeDescription/PortInfo/SwitchInfo reads that failed */
	unsigned pruned;	/* a repair: nodes of the model it started from no longer reached */
	unsigned joined;	/* a repair: switches that reported a change while it read (disc_repair_join) */
	char repair_failed[160];	/* a repair that cannot stand in for a full discovery: why */
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

/*
 * Repairs a model instead of discovering anew: f (uninitialised) becomes
 * a copy of prev (the last programmed sweep's fabric, with its sm_nodes),
 * then the switches named by guids (those that reported a port change)
 * have every PortInfo and their SwitchInfo read again. A link found down,
 * or retrained, leaves the model and its far end is read again; a port
 * found up leads to the node behind it, and what is new there is
 * discovered as disc_start would. Reads go in waves, nearest node first,
 * each over routes computed on the model as it then is; an unanswered one
 * is asked again in a later wave. Nodes no longer reached leave f. When
 * the repair cannot vouch for its model (a GUID met where the model has
 * it elsewhere, a node that twice does not answer, a switch not in prev),
 * done hears why in repair_failed and the caller discovers in full.
 */
int disc_repair(struct mad_port *mp, struct mkeys *mkeys, const struct fabric *prev, const uint64_t *guids,
		size_t nguids, struct fabric *f, disc_done_fn done, void *arg, struct discovery **reading);

/*
 * While a repair reads (*reading, as disc_repair set it; it is NULL again
 * before done is called), the switch with that GUID joins it: every
 * PortInfo and its SwitchInfo read in a later wave, as a switch named at
 * the start is. For a switch that reported a change meanwhile: its own
 * repair would follow this one. 0, or -1 when the model has no such
 * switch (a repair of its own then finds out why).
 */
int disc_repair_join(struct discovery *d, uint64_t guid);

#endif
