/*
 * rmpp_send.c - the RMPP sender a host's kernel is, for an SA run on
 * ibsim's umad2sim: part of librmpp-shim.so (rmpp_shim.c).
 *
 * OpenSM writes a GetTable answer as one umad of any length, its RMPP
 * header marked active, and leaves the rest to the kernel (IBA 13.6):
 * cutting it into segments of 200 data bytes, each with the MAD and SA
 * headers, sending a window at a time as the receiver's ACKs open it
 * (the first window is one segment), sending the window again when no
 * ACK comes, and ending at the ACK of the last segment or at the
 * receiver's STOP or ABORT. umad2sim would pass the first 256 bytes.
 * A host's SA client sends a request longer than one MAD (a
 * MultiPathRecord of many GIDs) the same way, the SA acknowledging.
 * This file does what the kernel does: shim_send_segmented() takes the
 * write, shim_take_rmpp_control() the ACKs, STOPs and ABORTs the reader
 * would otherwise see (the kernel keeps them), shim_send_timers() sends
 * late windows again. fabricd sends its own segments (type DATA): they
 * pass untouched, and so do the ACKs of its transfers.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#include "rmpp_shim.h"

#define SEG_DATA IB_SA_DATA_SIZE	/* record bytes a segment carries */
#define MAX_SENDS 32		/* transfers under way at once */
#define RESEND_MS 1000		/* a window not acknowledged this long goes again */
#define RESENDS 5

struct transfer {
	int fd;
	uint32_t tid;		/* low 32 bits: umad2sim may rewrite the high ones */
	uint16_t lid;		/* the receiver's */
	uint8_t *umad;		/* the writer's: umad header and the whole MAD */
	size_t data_len;	/* bytes after the SA header */
	uint32_t nseg, acked, window_last, sent;
	uint64_t due_ms;
	unsigned resends_left;
};

static struct {
	struct transfer t[MAX_SENDS];
	unsigned n;
	pthread_mutex_t lock;
} sends = { .lock = PTHREAD_MUTEX_INITIALIZER };

static ssize_t send_mad(int fd, const void *buf, size_t count)
{
	static ssize_t (*next_write)(int, const void *, size_t);
	if (!next_write)
		next_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	return next_write(fd, buf, count);
}

/* Segment seg (1-based) of t, with the headers of t's MAD. */
static void send_segment(const struct transfer *t, uint32_t seg)
{
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_BLOCK_SIZE];
	memset(buf, 0, sizeof(buf));
	memcpy(buf, t->umad, umad_size());
	((struct ib_user_mad *)buf)->timeout_ms = 0;
	((struct ib_user_mad *)buf)->retries = 0;
	ib_sa_mad_t *m = (ib_sa_mad_t *)umad_get_mad(buf);
	const ib_sa_mad_t *whole = sa_of(t->umad);
	memcpy(m, whole, IB_SA_MAD_HDR_SIZE);
	size_t at = (size_t)(seg - 1) * SEG_DATA, len = t->data_len - at < SEG_DATA ? t->data_len - at : SEG_DATA;
	memcpy(m->data, whole->data + at, len);
	uint32_t pad = t->nseg * SEG_DATA - (uint32_t)t->data_len;
	m->rmpp_version = 1;
	m->rmpp_type = IB_RMPP_TYPE_DATA;
	m->rmpp_flags = (uint8_t)(IB_RMPP_NO_RESP_TIME << 3 | IB_RMPP_FLAG_ACTIVE | (seg == 1 ? IB_RMPP_FLAG_FIRST : 0) |
				  (seg == t->nseg ? IB_RMPP_FLAG_LAST : 0));
	m->rmpp_status = 0;
	m->seg_num = cl_hton32(seg);
	m->paylen_newwin = cl_hton32(seg == 1 ? t->nseg * SEG_PAYLOAD - pad : seg == t->nseg ? SEG_PAYLOAD - pad : 0);
	send_mad(t->fd, buf, sizeof(buf));
}

/* Sends segments acked+1 .. window_last of t again, or for the first time. */
static void send_window(struct transfer *t, uint32_t from)
{
	for (uint32_t seg = from; seg <= t->window_last; seg++)
		send_segment(t, seg);
	if (t->window_last > t->sent)
		t->sent = t->window_last;
	t->due_ms = now_ms() + RESEND_MS;
}

static void drop(unsigned i)
{
	free(sends.t[i].umad);
	sends.t[i] = sends.t[--sends.n];
}

bool shim_send_segmented(int fd, const void *buf, size_t count)
{
	const ib_sa_mad_t *m = sa_of(buf);
	bool answer = m->method & IB_MAD_METHOD_RESP_MASK, rmpp = m->rmpp_flags & IB_RMPP_FLAG_ACTIVE;
	/* an RMPP-active answer of no RMPP type is one its writer left to the kernel (a sender's ACK has its type) */
	bool whole_left_to_kernel = answer ? count > umad_size() + MAD_BLOCK_SIZE || (rmpp && m->rmpp_type == 0)
					   : rmpp && count > umad_size() + MAD_BLOCK_SIZE;
	if (!whole_left_to_kernel || count < umad_size() + IB_SA_MAD_HDR_SIZE)
		return false;
	uint8_t *copy = malloc(count);
	if (!copy)
		return false;
	memcpy(copy, buf, count);
	pthread_mutex_lock(&sends.lock);
	if (sends.n == MAX_SENDS)
		drop(0);	/* the oldest receiver is long gone */
	struct transfer *t = &sends.t[sends.n++];
	*t = (struct transfer){
		.fd = fd,
		.tid = (uint32_t)cl_ntoh64(m->trans_id),
		.lid = cl_ntoh16(((const struct ib_user_mad *)buf)->addr.lid),
		.umad = copy,
		.data_len = count - umad_size() - IB_SA_MAD_HDR_SIZE,
		.window_last = 1,
		.resends_left = RESENDS,
	};
	t->nseg = t->data_len ? (uint32_t)((t->data_len + SEG_DATA - 1) / SEG_DATA) : 1;
	send_window(t, 1);
	pthread_mutex_unlock(&sends.lock);
	return true;
}

bool shim_take_rmpp_control(int fd, const void *umad, ssize_t n)
{
	if (n < (ssize_t)(umad_size() + MAD_BLOCK_SIZE))
		return false;
	const ib_sa_mad_t *m = sa_of(umad);
	/* a receiver's ACK of an answer comes as a request, the SA's ACK of a request as an answer */
	if (m->mgmt_class != IB_MCLASS_SUBN_ADM || !(m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) ||
	    m->rmpp_type == IB_RMPP_TYPE_DATA)
		return false;
	bool taken = false;
	pthread_mutex_lock(&sends.lock);
	for (unsigned i = 0; i < sends.n; i++) {
		struct transfer *t = &sends.t[i];
		if (t->fd != fd || t->tid != (uint32_t)cl_ntoh64(m->trans_id) ||
		    t->lid != cl_ntoh16(((const struct ib_user_mad *)umad)->addr.lid))
			continue;
		taken = true;
		uint32_t seg = cl_ntoh32(m->seg_num), newwin = cl_ntoh32(m->paylen_newwin);
		if (m->rmpp_type != IB_RMPP_TYPE_ACK || seg > t->nseg || newwin < seg) {
			drop(i);	/* STOP, ABORT, or an ACK that makes no sense: the transfer ends */
			break;
		}
		if (seg > t->acked)
			t->acked = seg;
		if (t->acked == t->nseg) {
			drop(i);
			break;
		}
		uint32_t from = t->sent + 1;
		if (newwin > t->nseg)
			newwin = t->nseg;
		if (newwin > t->window_last)
			t->window_last = newwin;
		t->resends_left = RESENDS;
		if (from <= t->window_last)
			send_window(t, from);
		break;
	}
	pthread_mutex_unlock(&sends.lock);
	return taken;
}

int shim_send_timers(void)
{
	uint64_t now = now_ms(), next = UINT64_MAX;
	pthread_mutex_lock(&sends.lock);
	for (unsigned i = 0; i < sends.n; i++) {
		struct transfer *t = &sends.t[i];
		if (t->due_ms <= now) {
			if (!t->resends_left) {
				drop(i--);
				continue;
			}
			t->resends_left--;
			send_window(t, t->acked + 1);
		}
		if (t->due_ms < next)
			next = t->due_ms;
	}
	pthread_mutex_unlock(&sends.lock);
	return next == UINT64_MAX ? -1 : (int)(next - now);
}
