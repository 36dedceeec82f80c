/*
 * smnode.h - what the SM keeps about a node beyond the fabric model: the
 * raw SwitchInfo and PortInfo attributes as the node last reported them.
 * Configuration starts from these, so fields fabricd does not manage are
 * written back as the node had them. Hangs off node->user.
 */
#ifndef SM_SMNODE_H
#define SM_SMNODE_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "topology/fabric.h"

struct sm_node {
	ib_switch_info_t switch_info;
	bool have_switch_info;
	bool *have_port_info;	/* [0..nports] */
	ib_port_info_t *port_info;	/* [0..nports] */
};

static inline struct sm_node *sm_node(const struct node *n)
{
	return (struct sm_node *)n->user;
}

/* Allocates n->user; -1 on allocation failure. */
int sm_node_attach(struct node *n);
/* Frees every node's sm_node. */
void sm_node_detach_all(struct fabric *f);
/* Copies a PortInfo into both the raw store and the model's port fields. */
void sm_node_set_port_info(struct node *n, uint8_t port, const ib_port_info_t *pi);

#endif
