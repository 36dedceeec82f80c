/*
 * DOC: RMPP sender
 *
 * An SA answer longer than one MAD (a GetTable of the fabric's nodes,
 * say) travels as an RMPP transfer: segments 1..N, each with the MAD,
 * RMPP and SA headers and 200 bytes of records. Segment 1 carries FIRST
 * and the PayloadLength of the whole transfer (220 bytes a segment: the SA
 * header and the data, less the padding of the last), segment N LAST and
 * its own PayloadLength.
 *
 * The receiver paces it: the sender may send up to the window's last
 * segment, which starts at 1; each ACK names the last segment received in
 * order and the new window's last. An ACK for a segment never sent, or a
 * window ending before the segment acknowledged, aborts the transfer; a
 * stale ACK is ignored, and an ACK whose window ends before the last one
 * still acknowledges its segments. When no ACK moves the transfer on within the
 * timeout, the window is sent again from the first segment not
 * acknowledged, up to the retries, and then the transfer is aborted (the
 * kernel's RMPP sender behaves the same way). The ACK of the last segment
 * completes it. Receivers' ACKs come back as requests (the method of the
 * data with the response bit off): the SA hands them here.
 *
 * fabricd does RMPP itself rather than asking the kernel to (an agent
 * registered without RMPP): the kernel passes such MADs through as they
 * are, and ibsim's umad2sim has no RMPP of its own.
 */
#include "sm/mad/rmpp.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"

#define RMPP_MAX_TRANSFERS 256
#define RMPP_HDRS 36	/* the MAD and RMPP headers: PayloadLength counts what follows */
#define SEG_PAYLOAD (IB_SA_MAD_HDR_SIZE - RMPP_HDRS + IB_SA_DATA_SIZE)	/* 220 */

struct transfer {
	struct transfer *next;
	ib_sa_mad_t hdr;	/* the headers every segment carries */
	uint8_t *data;
	size_t len;
	struct mad_origin to;	/* the requester: LID, QP and the SL its request came on */
	uint32_t nseg;
	uint32_t acked;		/* segments the receiver has, in order */
	uint32_t window_last;	/* the last segment it has room for */
	uint32_t next_seg;	/* the next segment to send */
	unsigned retries_left;
	uint64_t deadline;	/* for the ACK that moves the transfer on */
};

struct rmpp_sender {
	struct mad_port *mp;
	struct evl_watch *timer;
	unsigned timeout_ms, retries;
	struct transfer *list;
	size_t n;
};

static void send_segment(struct rmpp_sender *rs, const struct transfer *t, uint32_t k)
{
	ib_sa_mad_t seg = t->hdr;
	size_t off = (size_t)(k - 1) * IB_SA_DATA_SIZE;
	size_t chunk = t->len - off < IB_SA_DATA_SIZE ? t->len - off : IB_SA_DATA_SIZE;
	uint32_t pad = (uint32_t)(t->nseg * IB_SA_DATA_SIZE - t->len);
	uint32_t paylen = 0;
	seg.rmpp_version = 1;
	seg.rmpp_type = IB_RMPP_TYPE_DATA;
	seg.rmpp_flags = IB_RMPP_NO_RESP_TIME << 3 | IB_RMPP_FLAG_ACTIVE;
	seg.rmpp_status = 0;
	if (k == 1) {
		seg.rmpp_flags |= IB_RMPP_FLAG_FIRST;
		paylen = t->nseg * SEG_PAYLOAD - pad;
	}
	if (k == t->nseg) {
		seg.rmpp_flags |= IB_RMPP_FLAG_LAST;
		paylen = SEG_PAYLOAD - pad;
	}
	seg.seg_num = cl_hton32(k);
	seg.paylen_newwin = cl_hton32(paylen);
	memset(seg.data, 0, sizeof(seg.data));
	if (chunk)
		memcpy(seg.data, t->data + off, chunk);
	if (mad_send_gsi(rs->mp, &seg, &t->to) < 0)
		log_warn("sa: cannot send RMPP segment %u of %u to LID %u", k, t->nseg, t->to.slid);
}

static void send_window(struct rmpp_sender *rs, struct transfer *t)
{
	while (t->next_seg <= t->window_last && t->next_seg <= t->nseg)
		send_segment(rs, t, t->next_seg++);
	t->deadline = evl_now_ms() + rs->timeout_ms;
}

void rmpp_send_control(struct mad_port *mp, const ib_sa_mad_t *hdr, const struct mad_origin *to, uint8_t type,
		       uint8_t status, uint32_t seg, uint32_t window_last)
{
	ib_sa_mad_t m = *hdr;
	m.rmpp_version = 1;
	m.rmpp_type = type;
	m.rmpp_flags = IB_RMPP_NO_RESP_TIME << 3 | IB_RMPP_FLAG_ACTIVE;
	m.rmpp_status = status;
	m.seg_num = cl_hton32(seg);
	m.paylen_newwin = cl_hton32(window_last);
	memset(m.data, 0, sizeof(m.data));
	mad_send_gsi(mp, &m, to);
}

static void send_abort(struct rmpp_sender *rs, const struct transfer *t, uint8_t status)
{
	rmpp_send_control(rs->mp, &t->hdr, &t->to, IB_RMPP_TYPE_ABORT, status, 0, 0);
}

static void arm(struct rmpp_sender *rs)
{
	uint64_t first = UINT64_MAX, now = evl_now_ms();
	for (const struct transfer *t = rs->list; t; t = t->next)
		if (t->deadline < first)
			first = t->deadline;
	if (first == UINT64_MAX)
		evl_timer_cancel(rs->timer);
	else
		evl_timer_arm(rs->timer, first > now ? first - now : 0);
}

static void drop(struct rmpp_sender *rs, struct transfer *t)
{
	for (struct transfer **p = &rs->list; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	rs->n--;
	free(t->data);
	free(t);
}

/* Ends a transfer that will not go on (aborted, stopped). */
static void finish(struct rmpp_sender *rs, struct transfer *t)
{
	drop(rs, t);
	arm(rs);
}

static void on_timer(void *arg)
{
	struct rmpp_sender *rs = arg;
	uint64_t now = evl_now_ms();
	for (struct transfer *t = rs->list, *next; t; t = next) {
		next = t->next;
		if (t->deadline > now)
			continue;
		if (!t->retries_left) {
			log_warn("sa: RMPP answer to LID %u aborted: no ACK after segment %u of %u", t->to.slid, t->acked,
				 t->nseg);
			send_abort(rs, t, IB_RMPP_STATUS_T2L);
			drop(rs, t);
			continue;
		}
		t->retries_left--;
		t->next_seg = t->acked + 1;
		log_debug("sa: RMPP answer to LID %u: no ACK in time, segments from %u of %u again", t->to.slid,
			  t->next_seg, t->nseg);
		send_window(rs, t);
	}
	arm(rs);
}

struct rmpp_sender *rmpp_new(struct evloop *loop, struct mad_port *mp, unsigned timeout_ms, unsigned retries)
{
	struct rmpp_sender *rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	*rs = (struct rmpp_sender){ mp, evl_timer(loop, on_timer, rs), timeout_ms, retries, NULL, 0 };
	if (!rs->timer) {
		free(rs);
		return NULL;
	}
	return rs;
}

void rmpp_free(struct rmpp_sender *rs)
{
	if (!rs)
		return;
	while (rs->list)
		drop(rs, rs->list);
	evl_watch_free(rs->timer);
	free(rs);
}

static struct transfer *find(struct rmpp_sender *rs, uint16_t dlid, ib_net64_t tid)
{
	for (struct transfer *t = rs->list; t; t = t->next)
		if (t->to.slid == dlid && t->hdr.trans_id == tid)
			return t;
	return NULL;
}

int rmpp_send(struct rmpp_sender *rs, const ib_sa_mad_t *hdr, const struct mad_origin *to, const void *data,
	      size_t len)
{
	if (find(rs, to->slid, hdr->trans_id))
		return 0;	/* the requester asked again: its answer is on the way */
	struct transfer one = { .hdr = *hdr, .data = (uint8_t *)data, .len = len, .to = *to,
				.nseg = len ? (uint32_t)((len + IB_SA_DATA_SIZE - 1) / IB_SA_DATA_SIZE) : 1 };
	if (one.nseg == 1) {	/* nothing to pace: its ACK, if any, finds no transfer */
		send_segment(rs, &one, 1);
		return 0;
	}
	struct transfer *t = rs->n < RMPP_MAX_TRANSFERS ? malloc(sizeof(*t)) : NULL;
	if (!t || !(one.data = malloc(len))) {
		free(t);
		return -1;
	}
	memcpy(one.data, data, len);
	*t = one;
	t->window_last = 1;	/* until the receiver's first ACK */
	t->next_seg = 1;
	t->retries_left = rs->retries;
	send_window(rs, t);
	t->next = rs->list;
	rs->list = t;
	rs->n++;
	arm(rs);
	return 0;
}

bool rmpp_is_control(const ib_sa_mad_t *mad)
{
	return (mad->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && mad->rmpp_type != IB_RMPP_TYPE_DATA;
}

void rmpp_receive(struct rmpp_sender *rs, const ib_sa_mad_t *mad, const struct mad_origin *from)
{
	struct transfer *t = find(rs, from->slid, mad->trans_id);
	if (!t) {
		log_debug("sa: RMPP type %u from LID %u for no transfer of ours", mad->rmpp_type, from->slid);
		return;
	}
	if (mad->rmpp_type == IB_RMPP_TYPE_STOP || mad->rmpp_type == IB_RMPP_TYPE_ABORT) {
		log_info("sa: LID %u %s the RMPP answer at segment %u of %u (status %u)", t->to.slid,
			 mad->rmpp_type == IB_RMPP_TYPE_STOP ? "stopped" : "aborted", t->acked, t->nseg,
			 mad->rmpp_status);
		finish(rs, t);
		return;
	}
	if (mad->rmpp_type != IB_RMPP_TYPE_ACK) {
		send_abort(rs, t, IB_RMPP_STATUS_BADT);
		finish(rs, t);
		return;
	}
	uint32_t seg = cl_ntoh32(mad->seg_num), window_last = cl_ntoh32(mad->paylen_newwin);
	if (window_last < seg || seg > t->nseg || seg > t->window_last) {
		log_info("sa: LID %u acknowledged RMPP segment %u (window to %u) of %u sent up to %u: aborted", t->to.slid,
			 seg, window_last, t->nseg, t->next_seg - 1);
		send_abort(rs, t, window_last < seg ? IB_RMPP_STATUS_W2S : IB_RMPP_STATUS_S2B);
		finish(rs, t);
		return;
	}
	if (seg < t->acked)
		return;	/* stale */
	if (seg > t->acked) {
		t->acked = seg;
		t->retries_left = rs->retries;
	}
	if (window_last > t->window_last)	/* a window never shrinks: an ACK saying less still counts */
		t->window_last = window_last;
	if (t->acked == t->nseg)
		drop(rs, t);
	else if (t->next_seg <= t->window_last)
		send_window(rs, t);
	else
		t->deadline = evl_now_ms() + rs->timeout_ms;
	arm(rs);
}
