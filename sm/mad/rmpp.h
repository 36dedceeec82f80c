/*
 * rmpp.h - the sending side of RMPP (IBA 13.6): an SA answer longer than
 * one MAD goes out as numbered segments, a window at a time, each window
 * opened by the receiver's ACK.
 */
#ifndef SM_RMPP_H
#define SM_RMPP_H

#include <iba/ib_types.h>

#include "sm/mad/evloop.h"
#include "sm/mad/mad.h"

struct rmpp_sender;

/*
 * A sender on mp. A window not acknowledged within timeout_ms is sent
 * again from the first segment not acknowledged, up to retries times,
 * then the transfer is aborted.
 */
struct rmpp_sender *rmpp_new(struct evloop *loop, struct mad_port *mp, unsigned timeout_ms, unsigned retries);
void rmpp_free(struct rmpp_sender *rs);

/*
 * Sends len bytes of data after hdr (the answer's MAD and SA headers:
 * method, status, TID, attribute, offset) to `to`, in as many segments
 * as it takes; an answer that fits one MAD is one segment. A repeated
 * request (same requester, same TID) while its answer is still going out
 * is ignored. -1 when no transfer can be started (out of memory, or too
 * many at once): answer NO_RESOURCES instead, in one segment, which
 * needs no transfer and always goes.
 */
int rmpp_send(struct rmpp_sender *rs, const ib_sa_mad_t *hdr, const struct mad_origin *to, const void *data,
	      size_t len);

/* An RMPP MAD without data (ACK, STOP or ABORT) with hdr's headers, to `to`. */
void rmpp_send_control(struct mad_port *mp, const ib_sa_mad_t *hdr, const struct mad_origin *to, uint8_t type,
		       uint8_t status, uint32_t seg, uint32_t window_last);

/* Whether mad is an RMPP ACK, STOP or ABORT (for rmpp_receive), not a request. */
bool rmpp_is_control(const ib_sa_mad_t *mad);
/* Takes a receiver's ACK, STOP or ABORT for one of the transfers. */
void rmpp_receive(struct rmpp_sender *rs, const ib_sa_mad_t *mad, const struct mad_origin *from);

#endif
