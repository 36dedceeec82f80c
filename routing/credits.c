/*
 * DOC: buffer credits
 *
 * A sender may only transmit what the receiver has advertised room for.
 * To run at full rate, one VL's buffer must cover the bytes sent during a
 * credit round trip (the first byte's flight to the receiver, and the
 * credit update's flight back, each with the ends' processing), plus the
 * one whole packet the receiver must be able to hold.
 */
#include "routing/credits.h"

#include <math.h>

unsigned credits_per_vl(double gbps, const struct credit_params *p)
{
	if (gbps <= 0)
		return 0;
	double rtt_ns = 2.0 * (p->cable_m * CREDIT_NS_PER_M + p->latency_ns);
	double bytes = gbps / 8.0 * rtt_ns + p->mtu + CREDIT_HEADER_BYTES;
	return (unsigned)ceil(bytes / CREDIT_BYTES);
}
