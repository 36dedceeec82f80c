/*
 * rmpp_recv.h - the receiving side of RMPP (IBA 13.6) for requests: a
 * request sent in several segments is acknowledged segment by segment
 * and handed over whole.
 */
#ifndef SM_RMPP_RECV_H
#define SM_RMPP_RECV_H

#include <stddef.h>
#include <iba/ib_types.h>

#include "sm/mad/mad.h"

struct rmpp_receiver;

struct rmpp_receiver *rmpp_receiver_new(struct mad_port *mp);
void rmpp_receiver_free(struct rmpp_receiver *rr);

/*
 * Takes one DATA segment of an RMPP request from `from` and acknowledges
 * it. Once the last segment has come in order, returns the whole request
 * (the first segment's headers, then *data_len bytes of data; at least
 * IB_SA_DATA_SIZE readable, zero-filled) for the caller to free(); NULL
 * while more is awaited, or when the transfer was refused (aborted).
 */
ib_sa_mad_t *rmpp_receive_request(struct rmpp_receiver *rr, const ib_sa_mad_t *seg, const struct mad_origin *from,
				  size_t *data_len);

#endif
