/*
 * pfc.h - per-port lossless settings for RoCE: the PFC headroom a port
 * needs so that no frame is dropped after it sends PAUSE, and the ECN
 * (WRED) marking thresholds DCQCN reacts to. Formulas in docs/roce.md.
 */
#ifndef ROUTING_PFC_H
#define ROUTING_PFC_H

#include "topology/roce.h"

struct pfc_delays {
	unsigned interface_bits;	/* one end's PHY + MAC delay, in bit times */
	unsigned response_bits;		/* the sender's reaction to PAUSE, in bit times */
};

/* The IEEE 802.1Qbb Annex N worst-case delays for a port speed (Gb/s). */
struct pfc_delays pfc_delays_for(double gbps);
/*
 * Bytes of headroom per lossless priority on a port receiving at gbps over
 * cable_m of cable, with frames up to mtu bytes.
 */
unsigned pfc_headroom_bytes(double gbps, double cable_m, unsigned mtu);

struct ecn_marking {
	double min_kb, max_kb;	/* marking starts at min, reaches probability at max */
	double probability;	/* percent */
};

/* DCQCN's published thresholds (5 KB / 200 KB / 1 % at 40G), scaled by speed. */
struct ecn_marking ecn_defaults(double gbps);
/* A port's marking: the fabric's own thresholds (q) where it gives them, else the defaults for gbps. */
struct ecn_marking ecn_for_port(const struct roce_qos *q, double gbps);

#endif
