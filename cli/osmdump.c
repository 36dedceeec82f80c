/*
 * DOC: OpenSM's dump files
 *
 * opensm-subnet.lst: for every cabled port, "{ end } { far end } PHY=4x
 * LOG=ACT SPD=10", where an end is its node type, port count, system,
 * node and port GUIDs, vendor, device, revision, {description}, the LID
 * of the port (a switch's port 0 LID for every switch port) and the port
 * number; the near end's VenID has 6 digits, the far end's 8, as OpenSM
 * prints them. opensm.fdbs: per switch a "dump_ucast_routes: Switch
 * 0xGUID" header, then one row per LID up to the tables' top, UNREACHABLE
 * where no port holds the LID or the switch has no entry for it. The
 * path-SL file gives ibdmchk each route's SL: fabricd's SL belongs to the
 * destination, so every source has the same line for a LID.
 */
#include "cli/osmdump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "topology/netfile.h"

static const char *type_text(enum node_type t)
{
	return t == NODE_SWITCH ? "SW" : t == NODE_CA ? "CA" : "Rt";
}

/* The port that stands for (n, p) in the file: a switch's port 0, else p itself. */
static const struct port *addressed(const struct node *n, unsigned p)
{
	return n->type == NODE_SWITCH ? &n->ports[0] : &n->ports[p];
}

static void write_end(FILE *out, const struct node *n, unsigned p, int vendor_digits)
{
	fprintf(out, "{ %s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64 " PortGUID:%016" PRIx64
		" VenID:%0*X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ", type_text(n->type), n->nports,
		n->sys_guid, n->guid, fabric_port_guid(n, (uint8_t)p), vendor_digits, n->vendor_id, n->device_id,
		n->revision, n->desc, addressed(n, p)->lid, p);
}

/* A topology file does not say a link's logical state; ibnetdiscover lists links that are up: ACT. */
static const char *state_text(uint8_t state)
{
	switch (state) {
	case PORT_NOP: return "ACT";
	case PORT_DOWN: return "DWN";
	case PORT_INIT: return "INI";
	case PORT_ARMED: return "ARM";
	case PORT_ACTIVE: return "ACT";
	}
	return "UNK";
}

/* Gb/s per lane, as OpenSM prints the active speed. */
static const char *speed_text(const struct port *p)
{
	switch (p->speed_ext_active) {
	case 1: return "14";
	case 2: return "25";
	case 4: return "50";
	case 8: return "100";
	}
	return p->speed_active == 4 ? "10" : p->speed_active == 2 ? "5" : "2.5";
}

int osmdump_subnet(FILE *out, const struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct port *pt = &n->ports[p];
			if (!pt->remote)
				continue;
			write_end(out, n, p, 6);
			write_end(out, pt->remote, pt->remote_port, 8);
			fprintf(out, "PHY=%s LOG=%s SPD=%s\n", netfile_width_text(pt->width_active),
				state_text(pt->state), speed_text(pt));
		}
	}
	return ferror(out) ? -1 : 0;
}

/* The node holding lid (an end port's LID), or NULL. */
static const struct node *lid_owner(const struct fabric *f, uint32_t lid)
{
	uint8_t port;
	return fabric_find_lid(f, (uint16_t)lid, &port);
}

/* Links from sw to lid's port along t (its switch's hops, one more to a CA), or ROUTING_HOPS_NONE. */
static unsigned walked_hops(const struct routing_tables *t, const struct node *sw, const struct node *owner,
			    uint16_t lid)
{
	unsigned hops = routing_switch_hops(t, sw, lid);
	return hops == ROUTING_HOPS_NONE || owner->type == NODE_SWITCH ? hops : hops + 1;
}

/* Links from sw to every switch (dist, by node index; ROUTING_HOPS_NONE: not reached), breadth first. */
static void switch_distances(const struct fabric *f, const struct node *sw, unsigned *dist, const struct node **queue)
{
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		dist[i] = ROUTING_HOPS_NONE;
	dist[sw->index] = 0;
	queue[tail++] = sw;
	while (head < tail) {
		const struct node *at = queue[head++];
		for (unsigned p = 1; p <= at->nports; p++) {
			const struct node *r = at->ports[p].remote;
			if (r && r->type == NODE_SWITCH && dist[r->index] == ROUTING_HOPS_NONE) {
				dist[r->index] = dist[at->index] + 1;
				queue[tail++] = r;
			}
		}
	}
}

/* Fewest links to owner: to a switch, its distance; to a CA, one more than its nearest switch's. */
static unsigned fewest_hops(const struct node *owner, const unsigned *dist)
{
	if (owner->type == NODE_SWITCH)
		return dist[owner->index];
	unsigned best = ROUTING_HOPS_NONE;
	for (unsigned p = 1; p <= owner->nports; p++) {
		const struct node *r = owner->ports[p].remote;
		if (r && r->type == NODE_SWITCH && dist[r->index] + 1 < best)
			best = dist[r->index] + 1;
	}
	return best;
}

int osmdump_fdbs(FILE *out, const struct fabric *f, const struct routing_tables *t)
{
	unsigned *dist = malloc(f->nnodes * sizeof(*dist) + 1);
	const struct node **queue = malloc(f->nnodes * sizeof(*queue) + 1);
	int rc = dist && queue ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < f->nnodes; i++) {
		const struct node *sw = f->nodes[i];
		if (sw->type != NODE_SWITCH || !t->lft[i])
			continue;
		switch_distances(f, sw, dist, queue);
		fprintf(out, "dump_ucast_routes: Switch 0x%016" PRIx64 "\nLID    : Port : Hops : Optimal\n", sw->guid);
		for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
			uint8_t port = routing_lft_entry(t, sw, (uint16_t)lid);
			const struct node *owner = lid_owner(f, lid);
			if (!owner || port == LFT_NO_PATH) {
				fprintf(out, "0x%04X : UNREACHABLE\n", lid);
				continue;
			}
			unsigned hops = walked_hops(t, sw, owner, (uint16_t)lid);
			bool optimal = hops != ROUTING_HOPS_NONE && hops == fewest_hops(owner, dist);
			fprintf(out, "0x%04X : %03u  : %02u   : %s\n", lid, port, hops, optimal ? "yes" : "no");
		}
		fprintf(out, "\n");
	}
	free(dist);
	free(queue);
	return rc < 0 || ferror(out) ? -1 : 0;
}

int osmdump_path_sl(FILE *out, const struct fabric *f, const struct routing_tables *t)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; n->type != NODE_SWITCH && p <= n->nports; p++) {
			if (!n->ports[p].lid || !n->ports[p].remote)
				continue;
			for (uint32_t lid = 1; lid <= t->max_lid; lid++)
				if (lid != n->ports[p].lid && lid_owner(f, lid))
					fprintf(out, "0x%016" PRIx64 " %u %u\n", n->guid, lid, t->sl[lid]);
		}
	}
	return ferror(out) ? -1 : 0;
}
