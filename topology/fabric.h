/*
 * fabric.h - the fabric model shared by every part of fabricd.
 *
 * A fabric is a set of nodes (channel adapters and switches), each with an
 * array of ports indexed by port number (0 is a switch's management port),
 * and links joining two ports. Nodes are found by GUID through a complib
 * quick map; links are stored on both ports as (remote node, remote port).
 */
#ifndef FABRIC_H
#define FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <complib/cl_qmap.h>

enum node_type { NODE_CA = 1, NODE_SWITCH = 2, NODE_ROUTER = 3 };

#define FABRIC_MAX_PORTS 254
#define FABRIC_DESC_LEN 64
#define FABRIC_MAX_HOPS 63
/* Unicast LIDs are 1..0xBFFF; 0xC000 and above are multicast. */
#define FABRIC_MAX_UCAST_LID 0xBFFF

/* Port states and physical states as PortInfo encodes them. */
enum port_state { PORT_NOP = 0, PORT_DOWN = 1, PORT_INIT = 2, PORT_ARMED = 3, PORT_ACTIVE = 4 };
#define PORT_PHYS_LINKUP 5

struct node;

struct port {
	uint8_t num;
	bool exists;		/* within the node's port count */
	uint64_t guid;		/* CA ports; a switch's ports share the node GUID */
	uint16_t lid;		/* CA ports and switch port 0 */
	uint8_t lmc;
	uint8_t state, phys_state;
	uint8_t width_active;	/* 1x/4x/8x/12x as PortInfo bits */
	uint8_t speed_active;	/* SDR=1, DDR=2, QDR=4 as PortInfo */
	uint8_t speed_ext_active;
	/* what the port can do, for "could be" (0: unknown, as from a net file) */
	uint8_t width_supported, speed_supported, speed_ext_supported;
	bool ext_speeds;	/* its node's PortInfo CapabilityMask has IsExtendedSpeedsSupported */
	uint8_t mtu_cap, vl_cap;
	struct node *remote;	/* NULL when nothing is attached */
	uint8_t remote_port;
};

struct node {
	cl_map_item_t guid_item;	/* keyed by node GUID in fabric.by_guid */
	enum node_type type;
	uint64_t guid, sys_guid;
	char desc[FABRIC_DESC_LEN + 1];
	uint8_t nports;
	struct port *ports;	/* nports + 1 entries, [0] is switch port 0 */
	size_t index;		/* position in fabric.nodes */
	/* Directed route from the SM port, filled by discovery. */
	uint8_t path[FABRIC_MAX_HOPS + 1];
	uint8_t hops;
	/* Switch capabilities from SwitchInfo. */
	uint16_t lft_cap;
	uint16_t mft_cap;
	uint8_t local_port;	/* port through which discovery first reached it */
	uint32_t vendor_id;
	uint16_t device_id;
	uint32_t revision;
	void *user;		/* per-module scratch pointer */
};

struct fabric_end_ports;

struct fabric {
	struct node **nodes;
	size_t nnodes, cap;
	cl_qmap_t by_guid;
	struct fabric_end_ports *ends;	/* fabric_index_end_ports(), or NULL */
};

void fabric_init(struct fabric *f);
void fabric_free(struct fabric *f);
/*
 * Moves src's nodes into dst (which must be empty) and leaves src empty.
 * Needed instead of a struct copy: the GUID map's sentinel lives inside
 * struct fabric, so the map is rebuilt at dst's address.
 */
void fabric_move(struct fabric *dst, struct fabric *src);
/*
 * Makes dst (uninitialised) a copy of src: its nodes, ports and links, in
 * the same order; node->user is left NULL. -1 on allocation failure (dst
 * then empty).
 */
int fabric_copy(struct fabric *dst, const struct fabric *src);
/* Unlinks n, takes it out of f (the nodes after it move up one index) and frees it; n->user is the caller's. */
void fabric_remove_node(struct fabric *f, struct node *n);
/* Adds a node with nports ports (all unconnected); NULL on allocation failure. */
struct node *fabric_add_node(struct fabric *f, enum node_type type, uint64_t guid, uint8_t nports,
			     const char *desc);
struct node *fabric_find_guid(const struct fabric *f, uint64_t guid);
/*
 * Orders f->nodes by GUID and renumbers node->index. Discovery calls it so
 * that what follows (LIDs for new ports, routes) does not depend on the
 * order in which answers happened to arrive.
 */
void fabric_sort_by_guid(struct fabric *f);
/* Finds a node by exact description, or NULL. Linear: for tools, not hot paths. */
struct node *fabric_find_desc(const struct fabric *f, const char *desc);
/*
 * The end port with LID lid (a switch's port 0, or a CA port) and, in
 * *port, its number; NULL if none. From the index if f has one (constant
 * time), else by a scan of the fabric.
 */
struct node *fabric_find_lid(const struct fabric *f, uint16_t lid, uint8_t *port);
/* The end port with GUID guid (a switch's node GUID, or a CA port's), likewise (log time indexed). */
struct node *fabric_find_port_guid(const struct fabric *f, uint64_t guid, uint8_t *port);
/*
 * Indexes the end ports by LID and by GUID for the two lookups above: for
 * a fabric whose LIDs are final (the SM's stored one, which the SA asks
 * for every query). The index keeps the LIDs as they were: build it again
 * after changing any. Adding a node drops it. -1 when memory runs out
 * (the lookups then scan).
 */
int fabric_index_end_ports(struct fabric *f);
/* Connects a.pa <-> b.pb; fails (-1) if either port is out of range or in use. */
int fabric_link(struct node *a, uint8_t pa, struct node *b, uint8_t pb);
void fabric_unlink(struct node *a, uint8_t pa);
/* The LID that addresses a port: a switch's LID is its port 0's. */
uint16_t fabric_port_lid(const struct node *n, uint8_t port);
/* The end ports of n (those with a LID and a port GUID): port 0 of a switch, ports 1..nports of a CA. */
#define FOR_END_PORTS(n, p) \
	for (unsigned p = (n)->type == NODE_SWITCH ? 0 : 1; p <= ((n)->type == NODE_SWITCH ? 0u : (n)->nports); p++)
/* The GUID of end port (n, port): a switch's node GUID (port 0), a CA port's own. */
uint64_t fabric_port_guid(const struct node *n, uint8_t port);
size_t fabric_count(const struct fabric *f, enum node_type type);
size_t fabric_link_count(const struct fabric *f);
const char *fabric_node_type_name(enum node_type t);
/* Lanes times the data rate per lane (after line coding), in Gb/s; 0 if unknown. */
double fabric_port_data_gbps(const struct port *p);

#endif
