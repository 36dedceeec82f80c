/*
 * mad.h - SMP transport over libibumad.
 *
 * Sends directed-route and LID-routed SMPs with a window of outstanding
 * transactions, matches replies by transaction ID, times out and retries,
 * and hands unsolicited requests (SMInfo queries, traps) to one handler.
 * Every completion runs from the event loop, never from another thread.
 */
#ifndef SM_MAD_H
#define SM_MAD_H

#include <stdbool.h>
#include <stdint.h>
#include <iba/ib_types.h>

#include "sm/mad/evloop.h"

#define MAD_TIMEOUT (-1)	/* completion status: no answer after every retry */
#define MAD_ERR_LEN 256

struct mad_port;

struct mad_port_opts {
	const char *ca;		/* NULL: the first CA with an active port */
	int port;		/* 0: the first active port */
	uint64_t guid;		/* non-zero: open the port with this GUID instead */
	unsigned window;	/* SMPs in flight at once */
	unsigned timeout_ms;
	unsigned retries;
};

struct mad_stats {
	uint64_t sent, received, retries;
};

/* Where an unsolicited request came from, for the reply. */
struct mad_origin {
	uint16_t slid;
	uint32_t qpn;
	uint8_t sl;		/* the SL it came on: a GSI answer goes back on it (IBA 13.5.4) */
	bool directed;
};

/* status: 0, the MAD status (host order, e.g. 0x1c bad attribute) or MAD_TIMEOUT. */
typedef void (*mad_done_fn)(void *ctx, int status, const ib_smp_t *reply);
typedef void (*mad_request_fn)(void *arg, const ib_smp_t *req, const struct mad_origin *from);

/* Opens the port and registers the SMI and SA agents. */
struct mad_port *mad_open(struct evloop *loop, const struct mad_port_opts *o, char err[MAD_ERR_LEN]);
/*
 * Sets IsSM in the port's PortInfo (by holding its issm device open) from
 * now on; again is a no-op. fabricd claims it once its first election has
 * decided what it is: a master that reads a standby's SMInfo then meets it
 * knowing its master (and so answering with the SM_Key, which OpenSM wants).
 */
int mad_claim_sm(struct mad_port *mp, char err[MAD_ERR_LEN]);
void mad_close(struct mad_port *mp);

uint64_t mad_port_guid(const struct mad_port *mp);
int mad_port_num(const struct mad_port *mp);
const char *mad_port_ca(const struct mad_port *mp);

/*
 * Directed-route SMP; path[1..hops] are the output ports, path[0] unused.
 * mkey is the target's M_Key (0 where it has none or is not known yet).
 * data: len bytes (at most IB_SMP_DATA_SIZE; the rest of the payload is
 * zero), or NULL for none.
 */
int mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx);
/* LID-routed SMP to dlid. */
int mad_send_lid(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
		 uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx);
/*
 * LID-routed PerfMgt (class 0x04) GMP to QP1 of dlid, data len bytes of
 * its 192 (NULL for none). The reply done gets is an ib_perfmgt_mad_t in
 * an SMP's 256 bytes.
 */
int mad_send_perf(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
		  const void *data, size_t len, mad_done_fn done, void *ctx);
/* The header (and len bytes of data) of an SMP as fabricd sends it. */
void mad_smp_header(ib_smp_t *smp, uint8_t mclass, uint8_t method, ib_net16_t attr, uint32_t mod, uint64_t mkey,
		    const void *data, size_t len);

void mad_on_request(struct mad_port *mp, mad_request_fn fn, void *arg);
/* Answers req with GetResp carrying data (64 bytes) and status. */
int mad_respond(struct mad_port *mp, const ib_smp_t *req, const struct mad_origin *to, uint16_t status,
		const void *data);
/*
 * Sends an SA Report of a Notice to (dlid, qpn) as a transaction: resent
 * until its ReportResp comes (done gets status 0) or the retries run out.
 */
int mad_send_report(struct mad_port *mp, uint16_t dlid, uint32_t qpn, const void *notice, size_t len,
		    mad_done_fn done, void *ctx);
/* Sends one SA-class MAD, as it is, to a requester (on the SL it asked on) from the SA's agent. */
int mad_send_gsi(struct mad_port *mp, const ib_sa_mad_t *mad, const struct mad_origin *to);
/*
 * Where LID-routed GMPs fabricd starts (PerfMgt queries, SA Reports) get
 * their SL: sl_of(ctx, dlid), the SL the routing gave dlid, so that they
 * travel on the VL layer the deadlock proof put that LID's traffic on.
 * Until it is set, SL 0.
 */
void mad_set_sl_lookup(struct mad_port *mp, uint8_t (*sl_of)(void *ctx, uint16_t dlid), void *ctx);

/* Answers a LID-routed trap with TrapRepress (same TID and notice). */
int mad_repress(struct mad_port *mp, const ib_smp_t *trap, const struct mad_origin *to);
/* Transactions queued or in flight. */
unsigned mad_pending(const struct mad_port *mp);
const struct mad_stats *mad_get_stats(const struct mad_port *mp);

#endif
