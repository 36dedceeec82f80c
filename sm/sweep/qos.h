/*
 * qos.h - programming virtual lanes: the SL-to-VL map on every port pair
 * and the VL arbitration tables on every port.
 */
#ifndef SM_QOS_H
#define SM_QOS_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "sm/sweep/configure.h"

#define QOS_MAX_ARB 64	/* entries in a high or low VL arbitration table */

struct qos_tables {
	uint8_t vls;		/* data VLs: SL s travels on VL s % vls on every hop */
	ib_slvl_table_t sl2vl;
	/* a switch's own packets (input port 0): every SL on VL 0 (routing/cdg.h, cdg_own_hop_on_vl0) */
	ib_slvl_table_t sl2vl_own;
	ib_vl_arb_element_t high[QOS_MAX_ARB], low[QOS_MAX_ARB];
	unsigned nhigh, nlow;
	uint8_t high_limit;	/* VLHighLimit (PortInfo) */
};

/* The tables for vls data VLs from the configured arbitration lists (NULL/"" = defaults). */
int qos_tables_build(struct qos_tables *q, unsigned vls, const char *high, const char *low, unsigned high_limit,
		     char *err, size_t errlen);
/* "high: VL:weight,...; low: ...; high limit N" into buf. */
void qos_describe(const struct qos_tables *q, char *buf, size_t len);
/* Parses "VL:weight,VL:weight"; -1 with a reason in err. */
int qos_parse_arb(const char *s, ib_vl_arb_element_t *e, unsigned *n, char *err, size_t errlen);

/* VLArbitrationTable block 1-2 (low) or 3-4 (high) as port pi gets it; false if its caps have no such block. */
bool qos_vlarb_block(const struct qos_tables *q, const ib_port_info_t *pi, unsigned block, ib_vl_arb_table_t *out);
/* The SL-to-VL map of a switch's input port in (0: its own packets). */
static inline const ib_slvl_table_t *qos_sl2vl_of(const struct qos_tables *q, unsigned in)
{
	return in == 0 ? &q->sl2vl_own : &q->sl2vl;
}
/*
 * Whether switch n's pair (in, out) holds the map program_switch gives
 * it: every pair on a switch with OptimizedSLtoVLMappingProgramming (one
 * Set covers all), else every pair of linked ports (in == out too), port 0
 * as input.
 */
bool qos_sl2vl_programmed(const struct node *n, unsigned in, unsigned out);
/* Whether (n, port) gets an SL-to-VL map (IsSLMappingSupported, or more than one data VL). */
bool qos_has_sl_map(const struct node *n, unsigned port);

/*
 * Calls fn for each VL table of n that the sweeps write (SL-to-VL maps,
 * VL arbitration blocks; a switch with optimized SL-to-VL programming:
 * every port pair, which its two Sets cover), in port order, from the
 * from-th on (those before are counted, not built), until fn returns
 * false. Returns how many tables it went through, the one fn stopped at
 * included: with from SIZE_MAX, how many n has.
 */
size_t qos_each_table(const struct node *n, const struct qos_tables *q, size_t from, port_table_fn fn, void *arg);

/*
 * Sends SLtoVLMappingTable (one MAD per switch that has the optimized
 * form, else one per input/output port pair) and VLArbitrationTable Sets.
 * A node that was in prev (the published sweep's fabric, whose nodes hold
 * what it programmed, with the same tables) and shows no sign of a reset
 * gets only what involves ports linked since (or to another peer), none
 * if there are none; unless its sweep lost a Set to it (lost).
 */
int qos_program(struct mad_port *mp, struct fabric *f, const struct qos_tables *q, const struct fabric *prev,
		const struct qos_tables *prev_q, const struct lost_set *lost, cfg_done_fn done, void *arg);

#endif
