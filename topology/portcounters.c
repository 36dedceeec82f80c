/*
 * DOC: port counters
 *
 * Names and widths of the PerfMgt PortCounters fields (IBA 16.1.3.5), and
 * the arithmetic that turns successive readings into running totals.
 */
#include "topology/portcounters.h"

static const struct {
	const char *name;
	uint64_t max;
} counters[PC_COUNT] = {
	[PC_SYMBOL_ERRORS] = { "symbol_errors", 0xffff },
	[PC_LINK_ERROR_RECOVERY] = { "link_error_recovery", 0xff },
	[PC_LINK_DOWNED] = { "link_downed", 0xff },
	[PC_RCV_ERRORS] = { "rcv_errors", 0xffff },
	[PC_RCV_REMOTE_PHYS_ERRORS] = { "rcv_remote_phys_errors", 0xffff },
	[PC_RCV_SWITCH_RELAY_ERRORS] = { "rcv_switch_relay_errors", 0xffff },
	[PC_XMIT_DISCARDS] = { "xmit_discards", 0xffff },
	[PC_XMIT_CONSTRAINT_ERRORS] = { "xmit_constraint_errors", 0xff },
	[PC_RCV_CONSTRAINT_ERRORS] = { "rcv_constraint_errors", 0xff },
	[PC_LOCAL_LINK_INTEGRITY_ERRORS] = { "local_link_integrity_errors", 0xf },
	[PC_EXCESSIVE_BUFFER_OVERRUN] = { "excessive_buffer_overrun", 0xf },
	[PC_VL15_DROPPED] = { "vl15_dropped", 0xffff },
	[PC_XMIT_DATA] = { "xmit_data", 0xffffffff },
	[PC_RCV_DATA] = { "rcv_data", 0xffffffff },
	[PC_XMIT_PKTS] = { "xmit_pkts", 0xffffffff },
	[PC_RCV_PKTS] = { "rcv_pkts", 0xffffffff },
	[PC_XMIT_WAIT] = { "xmit_wait", 0xffffffff },
};

const char *pc_name(enum pc_counter c)
{
	return c < PC_COUNT ? counters[c].name : "?";
}

uint64_t pc_max(enum pc_counter c)
{
	return c < PC_COUNT ? counters[c].max : 0;
}

uint64_t pc_delta(uint64_t before, uint64_t now, uint64_t width, bool *saturated)
{
	if (now >= width)
		*saturated = true;
	return now >= before ? now - before : now;
}

double pc_ber(uint64_t symbol_errors, double gbps, double seconds)
{
	if (gbps <= 0 || seconds <= 0)
		return 0;
	return (double)symbol_errors / (gbps * 1e9 * seconds);
}
