/*
 * DOC: PFC headroom and ECN thresholds
 *
 * After a receiver decides to pause a priority, data keeps arriving until
 * the PAUSE has reached the sender and the sender has stopped. In bit
 * times (IEEE 802.1Qbb Annex N), the worst case is:
 *
 *   the receiver's frame in progress (MTU) that delays the PAUSE
 * + the PAUSE frame itself (64 bytes + preamble and gap: 672 bits)
 * + twice the interface delay and twice the cable (there and back)
 * + the sender's response time
 * + the frame the sender has begun when it reacts (MTU)
 *
 * with a frame of MTU bytes costing MTU * 8 + 160 bits (gap and preamble)
 * and the cable 5 ns per metre. The interface and response delays come
 * from the standard's tables per speed; above 100G the response is the
 * 400G figure and the interface delay is scaled from 100G's.
 */
#include "routing/pfc.h"

#include <math.h>

#define PAUSE_FRAME_BITS 672.0
#define FRAME_OVERHEAD_BITS 160.0
#define CABLE_NS_PER_M 5.0

struct pfc_delays pfc_delays_for(double gbps)
{
	if (gbps <= 10)
		return (struct pfc_delays){ 8192, 30720 };
	if (gbps <= 25)
		return (struct pfc_delays){ 6144, 40960 };
	if (gbps <= 40)
		return (struct pfc_delays){ 24576, 60416 };
	if (gbps <= 100)
		return (struct pfc_delays){ 122880, 201728 };
	return (struct pfc_delays){ (unsigned)(122880 * gbps / 100), 463360 };
}

unsigned pfc_headroom_bytes(double gbps, double cable_m, unsigned mtu)
{
	struct pfc_delays dl = pfc_delays_for(gbps);
	double frame = mtu * 8.0 + FRAME_OVERHEAD_BITS;
	double cable = cable_m * CABLE_NS_PER_M * gbps;	/* Gb/s is bits per ns */
	double bits = frame + PAUSE_FRAME_BITS + 2.0 * (dl.interface_bits + cable) + dl.response_bits + frame;
	return (unsigned)ceil(bits / 8.0);
}

struct ecn_marking ecn_defaults(double gbps)
{
	double scale = gbps / 40.0;
	return (struct ecn_marking){ 5.0 * scale, 200.0 * scale, 1.0 };
}

struct ecn_marking ecn_for_port(const struct roce_qos *q, double gbps)
{
	struct ecn_marking ecn = ecn_defaults(gbps);
	if (q->ecn_max_kb)
		ecn = (struct ecn_marking){ q->ecn_min_kb, q->ecn_max_kb, ecn.probability };
	if (q->ecn_probability)
		ecn.probability = q->ecn_probability;
	return ecn;
}
