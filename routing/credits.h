/*
 * credits.h - how many receive-buffer credits a VL needs to keep a link
 * busy: the data in flight over one credit round trip, plus one packet.
 */
#ifndef ROUTING_CREDITS_H
#define ROUTING_CREDITS_H

#define CREDIT_BYTES 64		/* one IB flow-control credit */
#define CREDIT_HEADER_BYTES 128	/* header allowance on top of the MTU (LRH, GRH, BTH, extensions, CRCs) */
#define CREDIT_NS_PER_M 5.0	/* signal delay in copper or fibre */

struct credit_params {
	double cable_m;		/* cable length */
	double latency_ns;	/* per end: receive, credit update and transmit turn-around */
	unsigned mtu;		/* bytes */
};

/*
 * Credits for one VL at gbps of data: ceil((gbps / 8 * RTT + MTU + headers) / 64)
 * with RTT = 2 * (cable_m * 5 ns/m + latency_ns). 0 when gbps is 0.
 */
unsigned credits_per_vl(double gbps, const struct credit_params *p);

#endif
