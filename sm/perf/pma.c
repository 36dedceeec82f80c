/*
 * DOC: PerfMgt wire format
 *
 * PortCounters (IBA 16.1.3.5): 4- to 32-bit saturating counters, reset by
 * a Set whose CounterSelect bits name them (bit i is counter i in
 * enum pc_counter's order; CounterSelect2 bit 0 is PortXmitWait).
 * PortCountersExtended (16.1.4.11): the data and packet counters in 64
 * bits. ClassPortInfo's CapabilityMask says which the agent has.
 */
#include "sm/perf/pma.h"

#include <string.h>

struct pma_caps pma_decode_caps(const uint8_t data[IB_PM_DATA_SIZE])
{
	ib_class_port_info_t cpi;
	memcpy(&cpi, data, sizeof(cpi));
	struct pma_caps c = {
		.extended = (cpi.cap_mask & (IB_PM_EXT_WIDTH_SUPPORTED | IB_PM_EXT_WIDTH_NOIETF_SUP)) != 0,
		.xmit_wait = (cpi.cap_mask & IB_PM_PC_XMIT_WAIT_SUP) != 0,
		.all_port_select = (cpi.cap_mask & IB_PM_ALL_PORT_SELECT) != 0,
	};
	return c;
}

void pma_counters_request(uint8_t data[IB_PM_DATA_SIZE], uint8_t port, const bool reset[PC_COUNT])
{
	ib_port_counters_t pc;
	uint16_t select = 0;
	memset(&pc, 0, sizeof(pc));
	pc.port_select = port;
	for (int c = 0; reset && c < PC_XMIT_WAIT; c++)
		if (reset[c])
			select |= (uint16_t)(1u << c);
	pc.counter_select = cl_hton16(select);
	pc.counter_select2 = reset && reset[PC_XMIT_WAIT] ? 1 : 0;
	memset(data, 0, IB_PM_DATA_SIZE);
	memcpy(data, &pc, sizeof(pc));
}

void pma_extended_request(uint8_t data[IB_PM_DATA_SIZE], uint8_t port)
{
	ib_port_counters_ext_t ext;
	memset(&ext, 0, sizeof(ext));
	ext.port_select = port;
	memset(data, 0, IB_PM_DATA_SIZE);
	memcpy(data, &ext, sizeof(ext));
}

int pma_decode_counters(const uint8_t data[IB_PM_DATA_SIZE], uint8_t port, bool xmit_wait, struct pc_values *out)
{
	ib_port_counters_t pc;
	memcpy(&pc, data, sizeof(pc));
	if (pc.port_select != port)
		return -1;
	uint64_t *v = out->v;
	v[PC_SYMBOL_ERRORS] = cl_ntoh16(pc.symbol_err_cnt);
	v[PC_LINK_ERROR_RECOVERY] = pc.link_err_recover;
	v[PC_LINK_DOWNED] = pc.link_downed;
	v[PC_RCV_ERRORS] = cl_ntoh16(pc.rcv_err);
	v[PC_RCV_REMOTE_PHYS_ERRORS] = cl_ntoh16(pc.rcv_rem_phys_err);
	v[PC_RCV_SWITCH_RELAY_ERRORS] = cl_ntoh16(pc.rcv_switch_relay_err);
	v[PC_XMIT_DISCARDS] = cl_ntoh16(pc.xmit_discards);
	v[PC_XMIT_CONSTRAINT_ERRORS] = pc.xmit_constraint_err;
	v[PC_RCV_CONSTRAINT_ERRORS] = pc.rcv_constraint_err;
	v[PC_LOCAL_LINK_INTEGRITY_ERRORS] = PC_LINK_INT(pc.link_int_buffer_overrun);
	v[PC_EXCESSIVE_BUFFER_OVERRUN] = PC_BUF_OVERRUN(pc.link_int_buffer_overrun);
	v[PC_VL15_DROPPED] = cl_ntoh16(pc.vl15_dropped);
	v[PC_XMIT_DATA] = cl_ntoh32(pc.xmit_data);
	v[PC_RCV_DATA] = cl_ntoh32(pc.rcv_data);
	v[PC_XMIT_PKTS] = cl_ntoh32(pc.xmit_pkts);
	v[PC_RCV_PKTS] = cl_ntoh32(pc.rcv_pkts);
	v[PC_XMIT_WAIT] = xmit_wait ? cl_ntoh32(pc.xmit_wait) : 0;
	return 0;
}

int pma_decode_extended(const uint8_t data[IB_PM_DATA_SIZE], uint8_t port, struct pc_values *out)
{
	ib_port_counters_ext_t ext;
	memcpy(&ext, data, sizeof(ext));
	if (ext.port_select != port)
		return -1;
	out->v[PC_XMIT_DATA] = cl_ntoh64(ext.xmit_data);
	out->v[PC_RCV_DATA] = cl_ntoh64(ext.rcv_data);
	out->v[PC_XMIT_PKTS] = cl_ntoh64(ext.xmit_pkts);
	out->v[PC_RCV_PKTS] = cl_ntoh64(ext.rcv_pkts);
	return 0;
}
