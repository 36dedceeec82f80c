/*
 * DOC: SA records of the fabric
 *
 * NodeRecord, PortInfoRecord, SwitchInfoRecord, LinearForwardingTableRecord,
 * LinkRecord, SMInfoRecord, GUIDInfoRecord (every block of the port's
 * GUIDCap; block 0 holds the port GUID; no alias GUIDs are assigned), P_KeyTableRecord (CA ports: the tables the
 * partitions give them; switch ports facing them where the switch
 * enforces: the same table, cut to its capacity), SLtoVLMappingTableRecord and
 * VLArbitrationTableRecord (the VL tables as sm/sweep/qos.c programs them,
 * port pair by port pair), MulticastForwardingTableRecord (a switch's
 * blocks up to its last in use, from the trees sm/sa/mcast.c programs), built from
 * the last stored sweep's fabric
 * (and the attributes the nodes reported, kept in sm_node) and filtered by
 * the component mask's LID, port, block and GUID fields (and, for
 * PortInfoRecord, every PortInfo component). A GetTable answer of any
 * length goes out by RMPP (sm/mad/rmpp.c).
 */
#include "sm/sa/sa.h"

#include <string.h>

#include "sm/sm.h"
#include "sm/smnode.h"
#include "sm/sweep/pkeys.h"
#include "sm/sweep/qos.h"

#define BIT(n) cl_hton64(1ULL << (n))

static bool want(const ib_sa_mad_t *req, unsigned bit, uint64_t asked, uint64_t have)
{
	return !(req->comp_mask & BIT(bit)) || asked == have;
}

/* The LID that addresses (n, port) as an end port: a switch's port 0 LID for all its ports. */
static void node_records(const struct fabric *f, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const ib_node_record_t *q = (const ib_node_record_t *)req->data;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		FOR_END_PORTS(n, p) {
			uint64_t port_guid = fabric_port_guid(n, (uint8_t)p);
			uint16_t lid = fabric_port_lid(n, (uint8_t)p);
			if (!lid || !want(req, 0, cl_ntoh16(q->lid), lid) ||
			    !want(req, 7, cl_ntoh64(q->node_info.node_guid), n->guid) ||
			    !want(req, 8, cl_ntoh64(q->node_info.port_guid), port_guid))
				continue;
			ib_node_record_t *r = sa_answer_add(a);
			if (!r)
				return;
			r->lid = cl_hton16(lid);
			ib_node_info_t *ni = &r->node_info;
			ni->base_version = 1;
			ni->class_version = 1;
			ni->node_type = (uint8_t)n->type;
			ni->num_ports = n->nports;
			ni->sys_guid = cl_hton64(n->sys_guid);
			ni->node_guid = cl_hton64(n->guid);
			ni->port_guid = cl_hton64(port_guid);
			ni->partition_cap = cl_hton16(sm_node(n)->partition_cap);
			ni->device_id = cl_hton16(n->device_id);
			ni->revision = cl_hton32(n->revision);
			ni->port_num_vendor_id = cl_hton32((uint32_t)(n->type == NODE_SWITCH ? 0 : p) << 24 | n->vendor_id);
			memcpy(r->node_desc.description, n->desc, strnlen(n->desc, sizeof(r->node_desc.description)));
		}
	}
}

/*
 * PortInfo's fields in component-mask order (PortInfoRecord bit 3 on, IBA
 * 15.2.5.3 with 14.2.5.6's layout), each as bit offset and width in the
 * big-endian attribute: one table instead of fifty-five comparisons.
 */
static const struct {
	uint16_t at;
	uint8_t width;
} port_info_fields[] = {
	{0, 64}, {64, 64}, {128, 16}, {144, 16}, {160, 32}, {192, 16}, {208, 16}, {224, 8}, {232, 8}, {240, 8}, {248, 8},
	{256, 4}, {260, 4}, {264, 4}, {268, 4}, {272, 2}, {274, 3}, {277, 3}, {280, 4}, {284, 4}, {288, 4}, {292, 4},
	{296, 4}, {300, 4}, {304, 8}, {312, 8}, {320, 8}, {328, 4}, {332, 4}, {336, 3}, {339, 5}, {344, 4}, {348, 1},
	{349, 1}, {350, 1}, {351, 1}, {352, 16}, {368, 16}, {384, 16}, {400, 8}, {408, 1}, {409, 2}, {411, 5}, {416, 3},
	{419, 5}, {424, 4}, {428, 4}, {432, 16}, {448, 8}, {456, 24}, {480, 16}, {496, 4}, {500, 4}, {504, 3}, {507, 5},
};
#define PIR_FIRST_FIELD_BIT 3
#define PIR_CAPMASK_BIT 7
#define PIR_CAPMASK2_BIT 53

static uint64_t field_bits(const uint8_t *b, unsigned at, unsigned width)
{
	uint64_t v = 0;
	for (unsigned i = at; i < at + width; i++)
		v = v << 1 | ((b[i / 8] >> (7 - i % 8)) & 1);
	return v;
}

/*
 * Each PortInfo component asked for equals the record's, as the record is
 * answered (an M_Key is matched as the 0 it is answered as). CapabilityMask
 * and CapabilityMask2 match bitwise (the bits asked for are set) when the
 * AttributeModifier's bit 31 says so, exactly otherwise: IBA 1.2 errata,
 * what ClassPortInfo's IsPortInfoCapMaskMatchSupported announces.
 */
static bool port_info_matches(const ib_sa_mad_t *req, const ib_port_info_t *want, const ib_port_info_t *have)
{
	uint64_t mask = cl_ntoh64(req->comp_mask);
	bool bitwise = cl_ntoh32(req->attr_mod) & 0x80000000u;
	for (unsigned f = 0; f < sizeof(port_info_fields) / sizeof(port_info_fields[0]); f++) {
		unsigned bit = PIR_FIRST_FIELD_BIT + f;
		if (!(mask & (1ULL << bit)))
			continue;
		uint64_t w = field_bits((const uint8_t *)want, port_info_fields[f].at, port_info_fields[f].width);
		uint64_t h = field_bits((const uint8_t *)have, port_info_fields[f].at, port_info_fields[f].width);
		if (bitwise && (bit == PIR_CAPMASK_BIT || bit == PIR_CAPMASK2_BIT) ? (w & h) != w : w != h)
			return false;
	}
	return true;
}

static void port_info_records(const struct fabric *f, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const ib_portinfo_record_t *q = (const ib_portinfo_record_t *)req->data;
	ib_port_info_t asked = q->port_info;	/* the record is packed: no pointer into it */
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		const struct sm_node *s = sm_node(n);
		for (unsigned p = n->type == NODE_SWITCH ? 0 : 1; p <= n->nports; p++) {
			uint16_t lid = fabric_port_lid(n, (uint8_t)p);
			if (!s->have_port_info[p] || !lid || !want(req, 0, cl_ntoh16(q->lid), lid) ||
			    !want(req, 1, q->port_num, p) || !want(req, 2, q->options, 0))
				continue;
			ib_port_info_t pi = s->port_info[p];
			pi.m_key = 0;	/* never hand out M_Keys */
			if (!port_info_matches(req, &asked, &pi))
				continue;
			ib_portinfo_record_t *r = sa_answer_add(a);
			if (!r)
				return;
			r->lid = cl_hton16(lid);
			r->port_num = (uint8_t)p;
			r->port_info = pi;
		}
	}
}

static void switch_records(const struct sm_snapshot *pub, const ib_sa_mad_t *req, struct sa_answer *a, bool lft)
{
	const struct fabric *f = &pub->fabric;
	const struct routing_tables *tables = &pub->tables;
	const ib_lft_record_t *ql = (const ib_lft_record_t *)req->data;
	const ib_switch_info_record_t *qs = (const ib_switch_info_record_t *)req->data;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		const struct sm_node *s = sm_node(n);
		uint16_t lid = n->ports[0].lid;
		if (n->type != NODE_SWITCH || !lid || !want(req, 0, cl_ntoh16(lft ? ql->lid : qs->lid), lid))
			continue;
		if (!lft) {
			ib_switch_info_record_t *r = s->have_switch_info ? sa_answer_add(a) : NULL;
			if (r) {
				r->lid = cl_hton16(lid);
				r->switch_info = s->switch_info;
			}
			continue;
		}
		const uint8_t *t = tables->lft[n->index];
		for (unsigned block = 0; t && block <= tables->max_lid / 64u; block++) {
			if (!want(req, 1, cl_ntoh16(ql->block_num), block))
				continue;
			ib_lft_record_t *r = sa_answer_add(a);
			if (!r)
				return;
			r->lid = cl_hton16(lid);
			r->block_num = cl_hton16((uint16_t)block);
			memset(r->lft, LFT_NO_PATH, sizeof(r->lft));
			unsigned count = tables->max_lid + 1u - block * 64u;
			memcpy(r->lft, t + block * 64u, count < 64 ? count : 64);
		}
	}
}

static void link_records(const struct fabric *f, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const ib_link_record_t *q = (const ib_link_record_t *)req->data;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct node *r = n->ports[p].remote;
			if (!r)
				continue;
			uint8_t rp = n->ports[p].remote_port;
			uint16_t from = fabric_port_lid(n, (uint8_t)p), to = fabric_port_lid(r, rp);
			if (!from || !to || !want(req, 0, cl_ntoh16(q->from_lid), from) ||
			    !want(req, 1, q->from_port_num, p) || !want(req, 2, q->to_port_num, rp) ||
			    !want(req, 3, cl_ntoh16(q->to_lid), to))
				continue;
			ib_link_record_t *lr = sa_answer_add(a);
			if (!lr)
				return;
			*lr = (ib_link_record_t){ cl_hton16(from), (uint8_t)p, rp, cl_hton16(to), { 0 } };
		}
	}
}

static void sminfo_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const ib_sminfo_record_t *q = (const ib_sminfo_record_t *)req->data;
	uint16_t lid = sm_node_own_lid(&sm_published(sm)->fabric);
	if (!want(req, 0, cl_ntoh16(q->lid), lid))
		return;
	ib_sminfo_record_t *r = sa_answer_add(a);
	if (r) {
		r->lid = cl_hton16(lid);
		ha_own_info(sm, &r->sm_info, false);	/* the SA is not an SM: no SM_Key */
	}
}

/* Every block of each end port's GUIDCap: block 0 holds the port GUID; no alias GUIDs are assigned. */
static void guid_info_records(const struct fabric *f, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const ib_guidinfo_record_t *q = (const ib_guidinfo_record_t *)req->data;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		const struct sm_node *s = sm_node(n);
		FOR_END_PORTS(n, p) {
			uint16_t lid = fabric_port_lid(n, (uint8_t)p);
			unsigned cap = s->have_port_info[p] ? s->port_info[p].guid_cap : 1;
			for (unsigned block = 0; lid && want(req, 0, cl_ntoh16(q->lid), lid) &&
						 (block == 0 || block * GUID_TABLE_MAX_ENTRIES < cap);
			     block++) {
				if (!want(req, 1, q->block_num, block))
					continue;
				ib_guidinfo_record_t *r = sa_answer_add(a);
				if (!r)
					return;
				r->lid = cl_hton16(lid);
				r->block_num = (uint8_t)block;
				if (block == 0)
					r->guid_info.guid[0] = cl_hton64(fabric_port_guid(n, (uint8_t)p));
			}
		}
	}
}

/* The P_KeyTableRecords of port p (LID lid) whose table holds keys[0..k) in cap entries; false when memory ran out. */
static bool add_pkey_blocks(const ib_sa_mad_t *req, struct sa_answer *a, uint16_t lid, unsigned p, const uint16_t *keys,
			    unsigned k, unsigned cap)
{
	const ib_pkey_table_record_t *q = (const ib_pkey_table_record_t *)req->data;
	if (!want(req, 0, cl_ntoh16(q->lid), lid) || !want(req, 2, q->port_num, p))
		return true;
	for (unsigned block = 0; block * IB_NUM_PKEY_ELEMENTS_IN_BLOCK < cap; block++) {
		if (!want(req, 1, cl_ntoh16(q->block_num), block))
			continue;
		ib_pkey_table_record_t *r = sa_answer_add(a);
		if (!r)
			return false;
		r->lid = cl_hton16(lid);
		r->block_num = cl_hton16((uint16_t)block);
		r->port_num = (uint8_t)p;
		for (unsigned e = 0; e < IB_NUM_PKEY_ELEMENTS_IN_BLOCK; e++) {
			unsigned at = block * IB_NUM_PKEY_ELEMENTS_IN_BLOCK + e;
			r->pkey_tbl.pkey_entry[e] = at < k ? cl_hton16(keys[at]) : 0;
		}
	}
	return true;
}

/* CA ports, and the switch ports facing them where the switch enforces partitions. */
static void pkey_table_records(const struct sm_snapshot *pub, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const struct fabric *f = &pub->fabric;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		bool sw = n->type == NODE_SWITCH;
		for (unsigned p = 1; p <= n->nports; p++) {
			uint16_t lid = sw ? n->ports[0].lid : n->ports[p].lid, keys[PART_MAX + 1];
			unsigned cap, k;
			if (!lid || !n->ports[p].remote)
				continue;
			k = sw ? pkeys_switch_port_table(n, p, &pub->parts, keys, &cap)
			       : pkeys_port_table(n, p, &pub->parts, keys, &cap);
			if (!add_pkey_blocks(req, a, lid, p, keys, k, cap))
				return;
		}
	}
}

/* One SL-to-VL record (in, out: 0 on a CA) unless the mask rules it out; false when memory ran out. */
static bool add_sl2vl(const ib_slvl_table_t *tbl, const ib_sa_mad_t *req, struct sa_answer *a, uint16_t lid,
		      unsigned in, unsigned out)
{
	const ib_slvl_table_record_t *q = (const ib_slvl_table_record_t *)req->data;
	if (!want(req, 0, cl_ntoh16(q->lid), lid) || !want(req, 1, q->in_port_num, in) ||
	    !want(req, 2, q->out_port_num, out))
		return true;
	ib_slvl_table_record_t *r = sa_answer_add(a);
	if (!r)
		return false;
	r->lid = cl_hton16(lid);
	r->in_port_num = (uint8_t)in;
	r->out_port_num = (uint8_t)out;
	r->slvl_tbl = *tbl;
	return true;
}

/* The highest MFT block with a port set on switch n; -1 when none is. */
static int last_block_in_use(const struct mc_trees *t, const struct node *n)
{
	int last = -1;
	for (unsigned block = 0; block * IB_MCAST_BLOCK_SIZE < n->mft_cap; block++) {
		ib_net16_t masks[IB_MCAST_BLOCK_SIZE];
		for (unsigned pos = 0; pos * 16u <= n->nports && mc_trees_masks(t, n, block, pos, masks); pos++)
			for (unsigned e = 0; e < IB_MCAST_BLOCK_SIZE; e++)
				if (masks[e])
					last = (int)block;
	}
	return last;
}

/*
 * Every switch's MFT blocks up to the last one in use, per 16-port
 * position, as the switch holds them (blocks of groups no port of it
 * forwards are all zero): false when memory ran out.
 */
static bool mft_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const struct fabric *f = &sm_published(sm)->fabric;
	const ib_mft_record_t *q = (const ib_mft_record_t *)req->data;
	unsigned asked = cl_ntoh16(q->position_block_num);	/* position in bits 12-15, block in 0-8 */
	struct mc_trees t;
	bool ok = mcast_trees(&sm->mcast, f, &t) == 0;
	for (size_t i = 0; ok && i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		uint16_t lid = n->ports[0].lid;
		if (n->type != NODE_SWITCH || !lid || !n->mft_cap || !want(req, 0, cl_ntoh16(q->lid), lid))
			continue;
		int last = last_block_in_use(&t, n);
		for (int block = 0; block <= last; block++) {
			ib_net16_t masks[IB_MCAST_BLOCK_SIZE];
			for (unsigned pos = 0; pos * 16u <= n->nports; pos++) {
				if (!want(req, 1, asked >> 12, pos) || !want(req, 3, asked & 0x1ff, (unsigned)block))
					continue;
				mc_trees_masks(&t, n, (unsigned)block, pos, masks);	/* zeros: no group */
				ib_mft_record_t *r = sa_answer_add(a);
				if (!r) {
					mc_trees_free(&t);
					return false;
				}
				r->lid = cl_hton16(lid);
				r->position_block_num = cl_hton16((uint16_t)(pos << 12 | (unsigned)block));
				memcpy(r->mft, masks, sizeof(masks));
			}
		}
	}
	if (ok)
		mc_trees_free(&t);
	return ok;
}

static void sl2vl_records(const struct sm_snapshot *pub, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const struct fabric *f = &pub->fabric;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		if (n->type == NODE_SWITCH) {
			if (sm_node(n)->have_port0_sl2vl && !qos_sl2vl_programmed(n, 0, 0) &&
			    !add_sl2vl(&sm_node(n)->port0_sl2vl, req, a, n->ports[0].lid, 0, 0))
				return;	/* read, not programmed: see on_switch_info */
			for (unsigned out = 0; out <= n->nports; out++)
				for (unsigned in = 0; in <= n->nports; in++)
					if (qos_sl2vl_programmed(n, in, out) &&
					    !add_sl2vl(qos_sl2vl_of(&pub->qos, in), req, a, n->ports[0].lid, in, out))
						return;
			continue;
		}
		for (unsigned p = 1; p <= n->nports; p++)
			if (n->ports[p].remote && n->ports[p].lid && qos_has_sl_map(n, p) &&
			    !add_sl2vl(&pub->qos.sl2vl, req, a, n->ports[p].lid, 0, 0))
				return;
	}
}

/*
 * Blocks 1-4 of every linked port and of a switch's port 0; a block the
 * port has no table for answers as zeros, as OpenSM answers it. A CA
 * port's record has port number 0 (the LID names the port).
 */
static void vlarb_records(const struct sm_snapshot *pub, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const ib_vl_arb_table_record_t *q = (const ib_vl_arb_table_record_t *)req->data;
	const struct fabric *f = &pub->fabric;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		const struct sm_node *s = sm_node(n);
		bool sw = n->type == NODE_SWITCH;
		for (unsigned p = sw ? 0 : 1; p <= n->nports; p++) {
			uint16_t lid = fabric_port_lid(n, (uint8_t)p);
			/* a CA's records carry its own port number whatever port was asked for (its LID names it), as OpenSM's */
			if ((p && !n->ports[p].remote) || !s->have_port_info[p] || !lid ||
			    !want(req, 0, cl_ntoh16(q->lid), lid) || (sw && !want(req, 1, q->port_num, p)))
				continue;
			for (unsigned block = 1; block <= 4; block++) {
				ib_vl_arb_table_t t;
				if (!want(req, 2, q->block_num, block))
					continue;
				if (!qos_vlarb_block(&pub->qos, &s->port_info[p], block, &t))
					memset(&t, 0, sizeof(t));
				ib_vl_arb_table_record_t *r = sa_answer_add(a);
				if (!r)
					return;
				r->lid = cl_hton16(lid);
				r->port_num = (uint8_t)p;
				r->block_num = (uint8_t)block;
				r->vl_arb_tbl = t;
			}
		}
	}
}

int sa_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a)
{
	size_t size;
	const ib_net16_t id = req->attr_id;
	if (id == IB_MAD_ATTR_NODE_RECORD)
		size = sizeof(ib_node_record_t);
	else if (id == IB_MAD_ATTR_PORTINFO_RECORD)
		size = sizeof(ib_portinfo_record_t);
	else if (id == IB_MAD_ATTR_SWITCH_INFO_RECORD)
		size = sizeof(ib_switch_info_record_t);
	else if (id == IB_MAD_ATTR_LFT_RECORD)
		size = sizeof(ib_lft_record_t);
	else if (id == IB_MAD_ATTR_LINK_RECORD)
		size = sizeof(ib_link_record_t);
	else if (id == IB_MAD_ATTR_SMINFO_RECORD)
		size = sizeof(ib_sminfo_record_t);
	else if (id == IB_MAD_ATTR_GUIDINFO_RECORD)
		size = sizeof(ib_guidinfo_record_t);
	else if (id == IB_MAD_ATTR_PKEY_TBL_RECORD)
		size = sizeof(ib_pkey_table_record_t);
	else if (id == IB_MAD_ATTR_SLVL_RECORD)
		size = sizeof(ib_slvl_table_record_t);
	else if (id == IB_MAD_ATTR_VLARB_RECORD)
		size = sizeof(ib_vl_arb_table_record_t);
	else if (id == IB_MAD_ATTR_MFT_RECORD)
		size = sizeof(ib_mft_record_t);
	else if (id == IB_MAD_ATTR_INFORM_INFO_RECORD)
		size = sizeof(ib_inform_info_record_t);
	else
		return -1;
	const struct sm_snapshot *pub = sm_published(sm);	/* the SA answers only once there is one */
	sa_answer_init(a, size);
	if (id == IB_MAD_ATTR_NODE_RECORD)
		node_records(&pub->fabric, req, a);
	else if (id == IB_MAD_ATTR_PORTINFO_RECORD)
		port_info_records(&pub->fabric, req, a);
	else if (id == IB_MAD_ATTR_SWITCH_INFO_RECORD || id == IB_MAD_ATTR_LFT_RECORD)
		switch_records(pub, req, a, id == IB_MAD_ATTR_LFT_RECORD);
	else if (id == IB_MAD_ATTR_LINK_RECORD)
		link_records(&pub->fabric, req, a);
	else if (id == IB_MAD_ATTR_GUIDINFO_RECORD)
		guid_info_records(&pub->fabric, req, a);
	else if (id == IB_MAD_ATTR_PKEY_TBL_RECORD)
		pkey_table_records(pub, req, a);
	else if (id == IB_MAD_ATTR_SLVL_RECORD)
		sl2vl_records(pub, req, a);
	else if (id == IB_MAD_ATTR_VLARB_RECORD)
		vlarb_records(pub, req, a);
	else if (id == IB_MAD_ATTR_MFT_RECORD)
		a->failed |= !mft_records(sm, req, a);
	else if (id == IB_MAD_ATTR_INFORM_INFO_RECORD)
		sa_inform_records(sm, req, a);
	else
		sminfo_records(sm, req, a);
	return 0;
}
