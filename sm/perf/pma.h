/*
 * pma.h - what a port's Performance Management Agent says, on the wire.
 *
 * Encodes fabricd's PerfMgt requests and decodes the answers into
 * struct pc_values (topology/portcounters.h). Pure functions of bytes: the
 * answers come from anywhere on the fabric and are checked here.
 */
#ifndef SM_PERF_PMA_H
#define SM_PERF_PMA_H

#include <stdbool.h>
#include <stdint.h>
#include <iba/ib_types.h>

#include "topology/portcounters.h"

/* What a node's PMA can do, from its ClassPortInfo. */
struct pma_caps {
	bool extended;		/* PortCountersExtended: 64-bit data and packet counters */
	bool xmit_wait;		/* PortXmitWait in PortCounters */
	bool all_port_select;	/* PortSelect 0xFF sums the ports */
};

/* The caps in a ClassPortInfo answer's data. */
struct pma_caps pma_decode_caps(const uint8_t data[IB_PM_DATA_SIZE]);

/*
 * The PortCounters request for port (its data); reset names the counters
 * a Set clears (CounterSelect and CounterSelect2 bits), none for a Get.
 */
void pma_counters_request(uint8_t data[IB_PM_DATA_SIZE], uint8_t port, const bool reset[PC_COUNT]);
/* The PortCountersExtended request for port (a Get). */
void pma_extended_request(uint8_t data[IB_PM_DATA_SIZE], uint8_t port);

/*
 * Decodes a PortCounters answer into out (every counter; XmitWait only
 * if caps say it is there). -1 if it is for another port.
 */
int pma_decode_counters(const uint8_t data[IB_PM_DATA_SIZE], uint8_t port, bool xmit_wait, struct pc_values *out);
/* Decodes a PortCountersExtended answer's data and packet counters over out's; -1 if for another port. */
int pma_decode_extended(const uint8_t data[IB_PM_DATA_SIZE], uint8_t port, struct pc_values *out);

#endif
