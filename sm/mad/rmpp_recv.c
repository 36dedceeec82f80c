/*
 * DOC: RMPP receiver of requests
 *
 * A request longer than one MAD (a MultiPathRecord of more than 11 GIDs)
 * comes as an RMPP transfer, as the sender's kernel cuts it: segment 1
 * with FIRST and the PayloadLength of the whole, then 2..N, N with LAST
 * and its own PayloadLength; each segment repeats the MAD and SA headers
 * and carries 200 bytes of the request's data. The receiver (here: the
 * SA) acknowledges what it has in order and opens a window; the ACK of
 * the last segment tells the sender its request arrived whole, and the
 * answer follows.
 *
 * Any host may send anything: a transfer longer than RECV_MAX_SEGS is
 * aborted at its first segment, a segment out of order is not taken (the
 * last in-order one is acknowledged again, so the sender resends from
 * there), a segment of no transfer is dropped, and at most RECV_MAX
 * transfers are kept: a new one replaces a stale one, else the oldest.
 */
#include "sm/mad/rmpp_recv.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/mad/rmpp.h"

#define RECV_MAX 32		/* requests being reassembled at once */
#define RECV_MAX_SEGS 48	/* 9,600 bytes of data: a MultiPathRecord of 510 GIDs fits */
#define RECV_WINDOW 16		/* segments the sender may send beyond the last acknowledged */
#define SA_HDR_IN_PAYLOAD 20	/* the SA header's part of each segment's PayloadLength */
#define SEG_PAYLOAD (SA_HDR_IN_PAYLOAD + IB_SA_DATA_SIZE)

struct reassembly {
	uint16_t slid;
	ib_net64_t tid;
	uint32_t got;		/* segments taken, in order */
	uint64_t last_ms;	/* when the last one came */
	ib_sa_mad_t *whole;	/* headers, then RECV_MAX_SEGS segments' data */
};

struct rmpp_receiver {
	struct mad_port *mp;
	struct reassembly r[RECV_MAX];
};

struct rmpp_receiver *rmpp_receiver_new(struct mad_port *mp)
{
	struct rmpp_receiver *rr = calloc(1, sizeof(*rr));
	if (rr)
		rr->mp = mp;
	return rr;
}

void rmpp_receiver_free(struct rmpp_receiver *rr)
{
	for (unsigned i = 0; rr && i < RECV_MAX; i++)
		free(rr->r[i].whole);
	free(rr);
}

static size_t whole_size(void)
{
	return IB_SA_MAD_HDR_SIZE + (size_t)RECV_MAX_SEGS * IB_SA_DATA_SIZE;
}

static struct reassembly *find(struct rmpp_receiver *rr, uint16_t slid, ib_net64_t tid)
{
	for (unsigned i = 0; i < RECV_MAX; i++)
		if (rr->r[i].whole && rr->r[i].slid == slid && rr->r[i].tid == tid)
			return &rr->r[i];
	return NULL;
}

/* A free slot, else the one that waited longest (its sender gave up, or is slow and will resend). */
static struct reassembly *slot(struct rmpp_receiver *rr)
{
	struct reassembly *oldest = &rr->r[0];
	for (unsigned i = 0; i < RECV_MAX; i++) {
		if (!rr->r[i].whole)
			return &rr->r[i];
		if (rr->r[i].last_ms < oldest->last_ms)
			oldest = &rr->r[i];
	}
	log_debug("sa: RMPP request of LID %u replaced, unfinished", oldest->slid);
	free(oldest->whole);
	oldest->whole = NULL;
	return oldest;
}

static void answer_control(struct rmpp_receiver *rr, const ib_sa_mad_t *seg, const struct mad_origin *from,
			   uint8_t type, uint8_t status, uint32_t got)
{
	ib_sa_mad_t hdr = *seg;
	hdr.method ^= IB_MAD_METHOD_RESP_MASK;	/* the receiver's ACK carries the data's method turned over */
	rmpp_send_control(rr->mp, &hdr, from, type, status, got, type == IB_RMPP_TYPE_ACK ? got + RECV_WINDOW : 0);
}

static void release(struct reassembly *r)
{
	free(r->whole);
	r->whole = NULL;
}

ib_sa_mad_t *rmpp_receive_request(struct rmpp_receiver *rr, const ib_sa_mad_t *seg, const struct mad_origin *from,
				  size_t *data_len)
{
	uint32_t k = cl_ntoh32(seg->seg_num), paylen = cl_ntoh32(seg->paylen_newwin);
	bool first = seg->rmpp_flags & IB_RMPP_FLAG_FIRST, last = seg->rmpp_flags & IB_RMPP_FLAG_LAST;
	struct reassembly *r = find(rr, from->slid, seg->trans_id);
	uint8_t refused = seg->rmpp_type != IB_RMPP_TYPE_DATA			       ? IB_RMPP_STATUS_BADT
			  : first && k != 1					       ? IB_RMPP_STATUS_BAD_SEG
			  : first && paylen > (uint32_t)RECV_MAX_SEGS * SEG_PAYLOAD ? IB_RMPP_STATUS_RESX
										       : 0;
	if (refused) {
		log_info("sa: LID %u sent an RMPP request %s: aborted", from->slid,
			 refused == IB_RMPP_STATUS_BADT ? "of no data"
			 : refused == IB_RMPP_STATUS_BAD_SEG ? "whose first segment is not 1"
							     : "longer than the SA takes");
		answer_control(rr, seg, from, IB_RMPP_TYPE_ABORT, refused, 0);
		if (r)
			release(r);
		return NULL;
	}
	if (first) {
		if (!r)
			r = slot(rr);
		else
			release(r);	/* the sender began again */
		if (!(r->whole = calloc(1, whole_size()))) {
			answer_control(rr, seg, from, IB_RMPP_TYPE_ABORT, IB_RMPP_STATUS_RESX, 0);
			return NULL;
		}
		r->slid = from->slid;
		r->tid = seg->trans_id;
		r->got = 0;
		memcpy(r->whole, seg, IB_SA_MAD_HDR_SIZE);
	} else if (!r) {
		log_debug("sa: RMPP segment %u from LID %u of no request being received", k, from->slid);
		return NULL;
	}
	r->last_ms = evl_now_ms();
	if (k == r->got + 1) {
		if (k > RECV_MAX_SEGS) {
			answer_control(rr, seg, from, IB_RMPP_TYPE_ABORT, IB_RMPP_STATUS_S2B, 0);
			release(r);
			return NULL;
		}
		memcpy(r->whole->data + (size_t)(k - 1) * IB_SA_DATA_SIZE, seg->data, IB_SA_DATA_SIZE);
		r->got = k;
	}
	/* in order or not, the ACK names the last segment held in order: the sender goes on (or back) from there */
	answer_control(rr, seg, from, IB_RMPP_TYPE_ACK, 0, r->got);
	if (!last || k != r->got)
		return NULL;
	/* the last segment's PayloadLength: its SA header and the data it carries */
	size_t tail = paylen > SA_HDR_IN_PAYLOAD && paylen <= SEG_PAYLOAD ? paylen - SA_HDR_IN_PAYLOAD : IB_SA_DATA_SIZE;
	*data_len = (size_t)(r->got - 1) * IB_SA_DATA_SIZE + tail;
	log_debug("sa: RMPP request from LID %u whole: %u segments, %zu bytes", from->slid, r->got, *data_len);
	ib_sa_mad_t *whole = r->whole;
	r->whole = NULL;
	return whole;
}
