/*
 * portcounters.h - a port's PerfMgt counters as fabricd keeps them.
 *
 * The hardware counters are narrow and saturate (4 to 32 bits, or 64 with
 * PortCountersExtended); fabricd reads them, resets the error ones, and
 * keeps 64-bit running totals that survive resets, saturation, switch
 * reboots and its own restarts (sm/perf/, db/perf.c).
 */
#ifndef TOPOLOGY_PORTCOUNTERS_H
#define TOPOLOGY_PORTCOUNTERS_H

#include <stdbool.h>
#include <stdint.h>

/* In PortCounters' order; the first PC_FIRST_DATA are errors. */
enum pc_counter {
	PC_SYMBOL_ERRORS,
	PC_LINK_ERROR_RECOVERY,
	PC_LINK_DOWNED,
	PC_RCV_ERRORS,
	PC_RCV_REMOTE_PHYS_ERRORS,
	PC_RCV_SWITCH_RELAY_ERRORS,
	PC_XMIT_DISCARDS,
	PC_XMIT_CONSTRAINT_ERRORS,
	PC_RCV_CONSTRAINT_ERRORS,
	PC_LOCAL_LINK_INTEGRITY_ERRORS,
	PC_EXCESSIVE_BUFFER_OVERRUN,
	PC_VL15_DROPPED,
	PC_XMIT_DATA,		/* in 4-byte words, as the counters count */
	PC_RCV_DATA,
	PC_XMIT_PKTS,
	PC_RCV_PKTS,
	PC_XMIT_WAIT,		/* ticks with data to send and no credits to send it */
	PC_COUNT
};
#define PC_FIRST_DATA PC_XMIT_DATA

/* One reading, or one set of totals or deltas. */
struct pc_values {
	uint64_t v[PC_COUNT];
};

/* The snake_case name (database columns, JSON, Prometheus). */
const char *pc_name(enum pc_counter c);
/* The largest value the counter holds in a PortCounters reading (where it saturates). */
uint64_t pc_max(enum pc_counter c);
/* True for the error counters (those fabricd resets after reading). */
static inline bool pc_is_error(enum pc_counter c)
{
	return c < PC_FIRST_DATA;
}

/*
 * How far counter c moved from `before` to `now`, `width` the counter's
 * maximum (pc_max, or UINT64_MAX for an extended one). A reading below the
 * last one means the counter was reset (by fabricd's Set, another tool, or
 * a reboot): all of `now` is new. A saturated reading counts what it shows
 * and sets *saturated: the true delta may be more.
 */
uint64_t pc_delta(uint64_t before, uint64_t now, uint64_t width, bool *saturated);

/* The bit error rate these symbol errors mean on a link carrying gbps for seconds; 0 if unknown. */
double pc_ber(uint64_t symbol_errors, double gbps, double seconds);

#endif
