/*
 * DOC: fabric model
 *
 * Owns the nodes of a fabric. Nodes live in a growable array (their index is
 * stable for the life of the fabric) and in a complib quick map keyed by
 * node GUID. Links are symmetric: fabric_link() writes both ends.
 */
#include "topology/fabric.h"

#include <stdlib.h>
#include <string.h>

#include "topology/text.h"

/* An end port, in the index by LID (position = LID) and by GUID (sorted). */
struct end_ref {
	uint64_t guid;
	struct node *node;
	uint8_t port;
};

struct fabric_end_ports {
	struct end_ref *by_lid;
	uint16_t max_lid;
	struct end_ref *by_guid;
	size_t n;
};

static void drop_index(struct fabric *f)
{
	if (f->ends) {
		free(f->ends->by_lid);
		free(f->ends->by_guid);
		free(f->ends);
		f->ends = NULL;
	}
}

void fabric_init(struct fabric *f)
{
	memset(f, 0, sizeof(*f));
	cl_qmap_init(&f->by_guid);
}

void fabric_free(struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i]->ports);
		free(f->nodes[i]);
	}
	free(f->nodes);
	drop_index(f);
	fabric_init(f);
}

void fabric_move(struct fabric *dst, struct fabric *src)
{
	*dst = *src;
	cl_qmap_init(&dst->by_guid);
	for (size_t i = 0; i < dst->nnodes; i++)
		cl_qmap_insert(&dst->by_guid, dst->nodes[i]->guid, &dst->nodes[i]->guid_item);
	fabric_init(src);
}

int fabric_copy(struct fabric *dst, const struct fabric *src)
{
	fabric_init(dst);
	for (size_t i = 0; i < src->nnodes; i++) {
		const struct node *o = src->nodes[i];
		struct node *n = fabric_add_node(dst, o->type, o->guid, o->nports, NULL);
		if (!n) {
			fabric_free(dst);
			return -1;
		}
		struct port *ports = n->ports;
		cl_map_item_t in_map = n->guid_item;	/* dst's map holds it */
		*n = *o;
		n->guid_item = in_map;
		n->ports = ports;
		n->index = i;
		n->user = NULL;
		memcpy(n->ports, o->ports, ((size_t)o->nports + 1) * sizeof(*o->ports));
	}
	for (size_t i = 0; i < dst->nnodes; i++) {
		struct node *n = dst->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++)
			if (n->ports[p].remote)	/* the same node in dst */
				n->ports[p].remote = dst->nodes[n->ports[p].remote->index];
	}
	return 0;
}

void fabric_remove_node(struct fabric *f, struct node *n)
{
	for (unsigned p = 1; p <= n->nports; p++)
		fabric_unlink(n, (uint8_t)p);
	drop_index(f);
	cl_qmap_remove_item(&f->by_guid, &n->guid_item);
	for (size_t i = n->index + 1; i < f->nnodes; i++) {
		f->nodes[i - 1] = f->nodes[i];
		f->nodes[i - 1]->index = i - 1;
	}
	f->nnodes--;
	free(n->ports);
	free(n);
}

struct node *fabric_add_node(struct fabric *f, enum node_type type, uint64_t guid, uint8_t nports,
			     const char *desc)
{
	if (f->nnodes == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct node **n = realloc(f->nodes, cap * sizeof(*n));
		if (!n)
			return NULL;
		f->nodes = n;
		f->cap = cap;
	}
	drop_index(f);
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->ports = calloc((size_t)nports + 1, sizeof(*n->ports));
	if (!n->ports) {
		free(n);
		return NULL;
	}
	n->type = type;
	n->guid = guid;
	n->sys_guid = guid;
	n->nports = nports;
	n->index = f->nnodes;
	for (unsigned p = 0; p <= nports; p++) {
		n->ports[p].num = (uint8_t)p;
		/* A CA has no port 0; a switch's port 0 is its management port. */
		n->ports[p].exists = p > 0 || type == NODE_SWITCH;
		n->ports[p].guid = type == NODE_SWITCH ? guid : guid + p;
	}
	if (desc)
		text_clean(n->desc, desc, FABRIC_DESC_LEN);
	f->nodes[f->nnodes++] = n;
	cl_qmap_insert(&f->by_guid, guid, &n->guid_item);
	return n;
}

static int by_guid(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

void fabric_sort_by_guid(struct fabric *f)
{
	if (f->nnodes > 1)	/* an empty fabric has no array: qsort must not see NULL */
		qsort(f->nodes, f->nnodes, sizeof(*f->nodes), by_guid);
	for (size_t i = 0; i < f->nnodes; i++)
		f->nodes[i]->index = i;
}

struct node *fabric_find_guid(const struct fabric *f, uint64_t guid)
{
	cl_map_item_t *it = cl_qmap_get(&f->by_guid, guid);
	if (it == cl_qmap_end(&f->by_guid))
		return NULL;
	return (struct node *)it;
}

struct node *fabric_find_desc(const struct fabric *f, const char *desc)
{
	for (size_t i = 0; i < f->nnodes; i++)
		if (strcmp(f->nodes[i]->desc, desc) == 0)
			return f->nodes[i];
	return NULL;
}


struct node *fabric_find_lid(const struct fabric *f, uint16_t lid, uint8_t *port)
{
	if (lid == 0 || lid > FABRIC_MAX_UCAST_LID)	/* no port has these: 0 is "none", the rest multicast */
		return NULL;
	if (f->ends) {
		const struct end_ref *e = lid <= f->ends->max_lid ? &f->ends->by_lid[lid] : NULL;
		if (!e || !e->node)
			return NULL;
		*port = e->port;
		return e->node;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		FOR_END_PORTS(f->nodes[i], p)
			if (f->nodes[i]->ports[p].lid == lid) {
				*port = (uint8_t)p;
				return f->nodes[i];
			}
	return NULL;
}

static int cmp_end_guid(const void *a, const void *b)
{
	const struct end_ref *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

struct node *fabric_find_port_guid(const struct fabric *f, uint64_t guid, uint8_t *port)
{
	if (f->ends) {
		const struct end_ref key = { guid, NULL, 0 };
		const struct end_ref *e = bsearch(&key, f->ends->by_guid, f->ends->n, sizeof(key), cmp_end_guid);
		if (!e)
			return NULL;
		*port = e->port;
		return e->node;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		FOR_END_PORTS(n, p)
			if (fabric_port_guid(n, (uint8_t)p) == guid) {
				*port = (uint8_t)p;
				return n;
			}
	}
	return NULL;
}

int fabric_index_end_ports(struct fabric *f)
{
	drop_index(f);
	struct fabric_end_ports *x = calloc(1, sizeof(*x));
	size_t ends = 0;
	uint16_t max_lid = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		FOR_END_PORTS(f->nodes[i], p) {
			ends++;
			if (f->nodes[i]->ports[p].lid > max_lid)
				max_lid = f->nodes[i]->ports[p].lid;
		}
	if (!x || !(x->by_lid = calloc((size_t)max_lid + 1, sizeof(*x->by_lid))) ||
	    !(x->by_guid = malloc((ends + 1) * sizeof(*x->by_guid)))) {
		if (x)
			free(x->by_lid);
		free(x);
		return -1;
	}
	x->max_lid = max_lid;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		FOR_END_PORTS(n, p) {
			struct end_ref e = { fabric_port_guid(n, (uint8_t)p), n, (uint8_t)p };
			x->by_guid[x->n++] = e;
			if (n->ports[p].lid && !x->by_lid[n->ports[p].lid].node)	/* the first, as the scan finds */
				x->by_lid[n->ports[p].lid] = e;
		}
	}
	qsort(x->by_guid, x->n, sizeof(*x->by_guid), cmp_end_guid);
	f->ends = x;
	return 0;
}

int fabric_link(struct node *a, uint8_t pa, struct node *b, uint8_t pb)
{
	if (pa == 0 || pb == 0 || pa > a->nports || pb > b->nports)
		return -1;
	if ((a->ports[pa].remote && (a->ports[pa].remote != b || a->ports[pa].remote_port != pb)) ||
	    (b->ports[pb].remote && (b->ports[pb].remote != a || b->ports[pb].remote_port != pa)))
		return -1;
	a->ports[pa].remote = b;
	a->ports[pa].remote_port = pb;
	b->ports[pb].remote = a;
	b->ports[pb].remote_port = pa;
	return 0;
}

void fabric_unlink(struct node *a, uint8_t pa)
{
	struct port *p = &a->ports[pa];
	if (!p->remote)
		return;
	struct port *r = &p->remote->ports[p->remote_port];
	r->remote = NULL;
	r->remote_port = 0;
	p->remote = NULL;
	p->remote_port = 0;
}

uint64_t fabric_port_guid(const struct node *n, uint8_t port)
{
	return n->type == NODE_SWITCH ? n->guid : n->ports[port].guid;
}

uint16_t fabric_port_lid(const struct node *n, uint8_t port)
{
	return n->type == NODE_SWITCH ? n->ports[0].lid : n->ports[port].lid;
}

size_t fabric_count(const struct fabric *f, enum node_type type)
{
	size_t c = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		c += f->nodes[i]->type == type;
	return c;
}

size_t fabric_link_count(const struct fabric *f)
{
	size_t ends = 0;
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i]->nports; p++)
			ends += f->nodes[i]->ports[p].remote != NULL;
	return ends / 2;
}

const char *fabric_node_type_name(enum node_type t)
{
	switch (t) {
	case NODE_CA:
		return "CA";
	case NODE_SWITCH:
		return "Switch";
	case NODE_ROUTER:
		return "Router";
	}
	return "?";
}

double fabric_port_data_gbps(const struct port *p)
{
	unsigned lanes = p->width_active == 1 ? 1 : p->width_active == 2 ? 4 : p->width_active == 4 ? 8
		       : p->width_active == 8 ? 12 : p->width_active == 16 ? 2 : 0;
	double lane;	/* Gb/s of data per lane: 8b/10b up to QDR, 64b/66b from FDR */
	switch (p->speed_ext_active) {
	case 1: lane = 14.0625 * 64 / 66; break;
	case 2: lane = 25.78125 * 64 / 66; break;
	case 4: lane = 50.0; break;
	case 8: lane = 100.0; break;
	default:
		lane = p->speed_active == 1 ? 2.0 : p->speed_active == 2 ? 4.0 : p->speed_active == 4 ? 8.0 : 0;
	}
	return lanes * lane;
}
