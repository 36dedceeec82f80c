/*
 * rmpp_shim.c - the RMPP receiver and send timer a host's kernel is, for tools run on
 * ibsim's umad2sim, which has none.
 *
 *   LD_PRELOAD="librmpp-shim.so libumad2sim.so" saquery NR
 *
 * On a real host the kernel reassembles an RMPP answer (IBA 13.6) and
 * hands the tool the whole of it in one read; under umad2sim the tool
 * would get the first segment only. This library sits in front of
 * umad2sim's read(): when an SA answer arrives as RMPP DATA it reads the
 * following segments, acknowledges them as the kernel does (after the
 * first segment, after each window of WINDOW segments, and after the
 * last, naming the last segment received in order and the new window's
 * last; an ACK is the data's method without the response bit), and
 * returns the reassembled answer: the first segment's headers, then every
 * segment's data, its length from the last segment's PayloadLength. A
 * reader whose buffer is too short gets ENOSPC with the length needed, as
 * from the kernel, and the answer on its next read. A segment out of
 * order is dropped (the sender sends the window again); no segment for
 * SEGMENT_WAIT_MS, or no whole answer in ANSWER_WAIT_S, ends the read
 * with ETIMEDOUT, the sender's ABORT with
 * ECONNABORTED. As the kernel does, it drops answers to no request of
 * this process (tracked in write()) and segments that start no answer.
 *
 * umad2sim also loses the last 32 bytes of every MAD it receives
 * (umad2sim_tail.c says why); loaded after umad2sim, libumad2sim-tail.so
 * keeps them, and this library puts them back into every SA MAD before
 * anything else looks at it:
 *
 *   LD_PRELOAD="librmpp-shim.so libumad2sim.so libumad2sim-tail.so" saquery NR
 *
 * The kernel also keeps each request's send timeout (umad timeout_ms and
 * retries), sending it again and at last handing the reader the request
 * back with status ETIMEDOUT; umad2sim does neither, so a tool waits for
 * ever for an answer that will not come (an SA drops a request with a
 * wrong SM_Key, as osmtest checks). This library does it in front of
 * umad2sim's poll() and read().
 *
 * It reassembles one answer at a time, which is what saquery and the
 * other diagnostic tools wait for. It is fabricd's test equipment: the
 * sender it talks to is fabricd's (sm/mad/rmpp.c), written separately from
 * this, both after IBA 13.6 and the kernel's mad_rmpp.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#include "rmpp_shim.h"

#define WINDOW 16		/* segments acknowledged at a time */
#define SEGMENT_WAIT_MS 3000
#define ANSWER_WAIT_S 10
#define LAST_ACK_PAUSE_US 50000	/* after the last ACK, before the port closes */
#define MAD_SIZE 256
#define UMAD2SIM_FIRST_FD 1024	/* umad2sim's umad file descriptors start here */
#define REQUEST_CHECK_MS 50	/* a poll looks for requests sent since it began this often */

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_write)(int, const void *, size_t);
static int (*next_poll)(struct pollfd *, nfds_t, int);
static bool (*put_tail_back)(void *mad);	/* umad2sim_tail(), when that library is loaded */

/* An answer reassembled for a reader whose buffer was too short. */
static struct {
	int fd;
	uint8_t *umad;		/* umad header and MAD */
	size_t len;
} held = { -1, NULL, 0 };

static void resolve(void)
{
	if (!next_read) {
		next_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
		next_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
		next_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
		put_tail_back = (bool (*)(void *))dlsym(RTLD_DEFAULT, "umad2sim_tail");
	}
}

/* A MAD poll() read to see whether it was an RMPP ACK for rmpp_send.c, kept for the reader. */
static struct {
	int fd;
	ssize_t n;
	uint8_t umad[sizeof(struct ib_user_mad) + MAD_SIZE];
} peeked = { .fd = -1 };

/* umad2sim's read, with the tail of an SA MAD put back; what poll() peeked first. */
static ssize_t read_mad(int fd, void *umad, size_t count)
{
	if (peeked.fd == fd) {
		peeked.fd = -1;
		if (peeked.n > 0 && (size_t)peeked.n > count) {
			errno = ENOSPC;
			return -1;
		}
		if (peeked.n > 0)
			memcpy(umad, peeked.umad, (size_t)peeked.n);
		return peeked.n;
	}
	ssize_t n = next_read(fd, umad, count);
	if (fd >= UMAD2SIM_FIRST_FD && n >= (ssize_t)(umad_size() + MAD_SIZE) && put_tail_back &&
	    sa_of(umad)->mgmt_class == IB_MCLASS_SUBN_ADM)
		put_tail_back(sa_of(umad));
	return n;
}

/* Waits for fd to be readable, until SEGMENT_WAIT_MS have passed or the answer's deadline. */
static bool wait_readable(int fd, time_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (time(NULL) < deadline && next_poll(&p, 1, SEGMENT_WAIT_MS) == 1)
		return true;
	errno = ETIMEDOUT;
	return false;
}

static bool is_rmpp_data(void *umad, ssize_t n)
{
	if (n < (ssize_t)(umad_size() + MAD_SIZE))
		return false;
	const ib_sa_mad_t *m = sa_of(umad);
	return m->mgmt_class == IB_MCLASS_SUBN_ADM && (m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) &&
	       m->rmpp_type == IB_RMPP_TYPE_DATA;
}

/* ACKs `seg` (the last in order) and opens the window to window_last, back where data came from. */
static void ack(int fd, const void *data_umad, uint32_t seg, uint32_t window_last)
{
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	memset(buf, 0, sizeof(buf));
	memcpy(buf, data_umad, umad_size());
	ib_sa_mad_t *a = sa_of(buf);
	memcpy(a, sa_of((void *)data_umad), IB_SA_MAD_HDR_SIZE);
	a->method ^= IB_MAD_METHOD_RESP_MASK;
	a->status = 0;
	a->rmpp_type = IB_RMPP_TYPE_ACK;
	a->rmpp_flags = IB_RMPP_NO_RESP_TIME << 3 | IB_RMPP_FLAG_ACTIVE;
	a->rmpp_status = 0;
	a->seg_num = cl_hton32(seg);
	a->paylen_newwin = cl_hton32(window_last);
	memset(a->data, 0, sizeof(a->data));
	next_write(fd, buf, umad_size() + MAD_SIZE);
}

/*
 * The ACK of an answer's last segment. ibsim serves a client's control
 * socket before its packets, so a tool that closed its port or exited
 * right after would have its disconnect taken first and this ACK dropped,
 * and the SA would send its last window again to whichever tool next
 * uses the port (umad2sim crashes on a MAD that comes before the tool
 * registered): close() and exit give ibsim LAST_ACK_PAUSE_US from the
 * last such ACK to take it (settle()), and a tool that asks thousands of
 * questions (osmtest) does not wait after each answer.
 */
static uint64_t last_ack_us;

static void settle(void);

static void ack_last(int fd, const void *data_umad, uint32_t seg, uint32_t window_last)
{
	/*
	 * A tool that exits with its port open: atexit handlers registered
	 * now run before the libraries' destructors, umad2sim's disconnect
	 * among them (a destructor of this library may run after it).
	 */
	static bool settle_at_exit;
	if (!__atomic_exchange_n(&settle_at_exit, true, __ATOMIC_RELAXED))
		atexit(settle);
	ack(fd, data_umad, seg, window_last);
	__atomic_store_n(&last_ack_us, now_us(), __ATOMIC_RELAXED);
}

static void settle(void)
{
	uint64_t since = now_us() - __atomic_load_n(&last_ack_us, __ATOMIC_RELAXED);
	if (since < LAST_ACK_PAUSE_US)
		usleep((useconds_t)(LAST_ACK_PAUSE_US - since));
}

/* Hands the reader an answer of len bytes (umad header included), or ENOSPC and keeps it. */
static ssize_t deliver(int fd, void *buf, size_t count, uint8_t *umad, size_t len)
{
	((struct ib_user_mad *)umad)->length = (uint32_t)len;
	if (len <= count) {
		memcpy(buf, umad, len);
		free(umad);
		return (ssize_t)len;
	}
	memcpy(buf, umad, umad_size());	/* the reader learns the length from the header */
	held.fd = fd;
	held.umad = umad;
	held.len = len;
	errno = ENOSPC;
	return -1;
}

/* Reads segments 2.. of the answer whose first segment is in first; returns its reassembled length or -1. */
static ssize_t reassemble(int fd, uint8_t **umad, const uint8_t *first)
{
	const ib_sa_mad_t *f = sa_of((void *)first);
	uint32_t got = 1, window_last = 1 + WINDOW;
	size_t cap = umad_size() + MAD_SIZE;
	uint8_t seg[sizeof(struct ib_user_mad) + MAD_SIZE];
	if (!(*umad = malloc(cap)))
		return -1;
	memcpy(*umad, first, cap);
	ack(fd, first, 1, window_last);
	time_t deadline = time(NULL) + ANSWER_WAIT_S;
	for (;;) {
		if (!wait_readable(fd, deadline)) {
			free(*umad);
			return -1;
		}
		ssize_t n = read_mad(fd, seg, sizeof(seg));
		const ib_sa_mad_t *m = sa_of(seg);
		if (n >= (ssize_t)(umad_size() + MAD_SIZE) && m->trans_id == f->trans_id &&
		    (m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) &&
		    (m->rmpp_type == IB_RMPP_TYPE_ABORT || m->rmpp_type == IB_RMPP_TYPE_STOP)) {
			free(*umad);
			errno = ECONNABORTED;	/* the sender gave up */
			return -1;
		}
		if (!is_rmpp_data(seg, n) || m->trans_id != f->trans_id || cl_ntoh32(m->seg_num) != got + 1) {
			if (n > 0 && is_rmpp_data(seg, n) && m->trans_id == f->trans_id && cl_ntoh32(m->seg_num) <= got)
				ack(fd, seg, got, window_last);	/* a window sent again: say where we are */
			continue;
		}
		got++;
		uint8_t *more = realloc(*umad, cap + IB_SA_DATA_SIZE);
		if (!more) {
			free(*umad);
			return -1;
		}
		*umad = more;
		memcpy(*umad + cap, m->data, IB_SA_DATA_SIZE);
		cap += IB_SA_DATA_SIZE;
		if (m->rmpp_flags & IB_RMPP_FLAG_LAST) {
			ack_last(fd, seg, got, window_last);	/* a window never shrinks */
			uint32_t pad = SEG_PAYLOAD - cl_ntoh32(m->paylen_newwin);
			return (ssize_t)(cap - (pad <= IB_SA_DATA_SIZE ? pad : 0));
		}
		if (got == window_last) {
			window_last = got + WINDOW;
			ack(fd, seg, got, window_last);
		}
	}
}

/*
 * The SA requests this process has sent and had no answer to, each with
 * the send timeout its writer asked for (umad timeout_ms and retries),
 * which the kernel keeps and umad2sim does not: when timeout_ms passes
 * without an answer the request is sent again, up to `retries` times,
 * and after the last the reader gets the request's umad back with status
 * ETIMEDOUT, as from the kernel. The receiving thread of a tool (osmtest's
 * vendor layer) reads while its main thread writes: hence the lock.
 */
struct request {
	uint32_t tid;		/* low 32 bits: umad2sim puts its agent number in the high ones */
	int fd;
	uint32_t timeout_ms;	/* 0: the writer set none; the answer is awaited for ever */
	uint32_t retries_left;
	uint64_t due_ms;	/* when the answer is late */
	size_t len;
	uint8_t umad[sizeof(struct ib_user_mad) + MAD_SIZE];
};

#define MAX_ASKED 64

static struct {
	struct request req[MAX_ASKED];
	unsigned n;
	pthread_mutex_t lock;
} asked = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int find_request(uint32_t tid)
{
	for (unsigned i = 0; i < asked.n; i++)
		if (asked.req[i].tid == tid)
			return (int)i;
	return -1;
}

static bool outstanding(const ib_sa_mad_t *m, bool forget)
{
	pthread_mutex_lock(&asked.lock);
	int i = find_request((uint32_t)cl_ntoh64(m->trans_id));
	if (i >= 0 && forget)
		asked.req[i] = asked.req[--asked.n];
	pthread_mutex_unlock(&asked.lock);
	return i >= 0;
}

/* Notes a request written to fd, the first time or sent again by its writer. */
static void remember(int fd, const void *buf, size_t count)
{
	const struct ib_user_mad *u = buf;
	/* a request of several segments is kept for its answer only: rmpp_send.c sends it again when late */
	bool segmented = count > sizeof(asked.req[0].umad);
	if (segmented)
		count = sizeof(asked.req[0].umad);
	pthread_mutex_lock(&asked.lock);
	int i = find_request((uint32_t)cl_ntoh64(sa_of((void *)buf)->trans_id));
	if (i < 0) {
		if (asked.n == MAX_ASKED)
			asked.req[0] = asked.req[--asked.n];	/* long answered or lost */
		i = (int)asked.n++;
	}
	struct request *r = &asked.req[i];
	r->tid = (uint32_t)cl_ntoh64(sa_of((void *)buf)->trans_id);
	r->fd = fd;
	r->timeout_ms = u->timeout_ms > 0 && !segmented ? (uint32_t)u->timeout_ms : 0;
	r->retries_left = u->retries > 0 ? (uint32_t)u->retries : 0;
	r->due_ms = now_ms() + r->timeout_ms;
	r->len = count;
	memcpy(r->umad, buf, count);
	pthread_mutex_unlock(&asked.lock);
}

/*
 * Sends again each late request that has retries left; returns the
 * milliseconds until the next request among fds is late (-1: none), and
 * marks readable each fd with a request out of retries.
 */
static int serve_timeouts(struct pollfd *fds, nfds_t nfds, bool *expired)
{
	uint64_t now = now_ms(), next = UINT64_MAX;
	*expired = false;
	pthread_mutex_lock(&asked.lock);
	for (unsigned i = 0; i < asked.n; i++) {
		struct request *r = &asked.req[i];
		nfds_t f = 0;
		while (f < nfds && fds[f].fd != r->fd)
			f++;
		if (!r->timeout_ms || f == nfds)
			continue;
		if (r->due_ms <= now && r->retries_left) {
			r->retries_left--;
			r->due_ms = now + r->timeout_ms;
			next_write(r->fd, r->umad, r->len);
		}
		if (r->due_ms <= now) {
			fds[f].revents |= POLLIN;
			*expired = true;
		} else if (r->due_ms < next)
			next = r->due_ms;
	}
	pthread_mutex_unlock(&asked.lock);
	return next == UINT64_MAX ? -1 : (int)(next - now);
}

/* A late request of fd out of retries into buf, as the kernel returns it: umad header with ETIMEDOUT, MAD header. */
static ssize_t take_timeout(int fd, void *buf, size_t count)
{
	ssize_t n = -1;
	uint64_t now = now_ms();
	pthread_mutex_lock(&asked.lock);
	for (unsigned i = 0; i < asked.n; i++) {
		struct request *r = &asked.req[i];
		if (r->fd != fd || !r->timeout_ms || r->retries_left || r->due_ms > now)
			continue;
		n = (ssize_t)(umad_size() + sizeof(ib_mad_t));
		if (count < (size_t)n)
			break;
		memcpy(buf, r->umad, (size_t)n);
		((struct ib_user_mad *)buf)->status = ETIMEDOUT;
		((struct ib_user_mad *)buf)->length = (uint32_t)n;
		asked.req[i] = asked.req[--asked.n];
		break;
	}
	pthread_mutex_unlock(&asked.lock);
	return n;
}

/*
 * An SA request its writer marked RMPP-active (as libibumad users leave
 * the rest to the kernel) goes out as the kernel sends it: one DATA
 * segment, first and last, its PayloadLength the SA header and data.
 */
static ssize_t write_rmpp_request(int fd, const void *buf, size_t count)
{
	uint8_t copy[sizeof(struct ib_user_mad) + MAD_SIZE];
	if (count > sizeof(copy))
		return next_write(fd, buf, count);
	memset(copy, 0, sizeof(copy));
	memcpy(copy, buf, count);
	ib_sa_mad_t *m = sa_of(copy);
	m->rmpp_version = 1;
	m->rmpp_type = IB_RMPP_TYPE_DATA;
	m->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	m->rmpp_status = 0;
	m->seg_num = cl_hton32(1);
	m->paylen_newwin = cl_hton32(SEG_PAYLOAD);
	remember(fd, copy, sizeof(copy));
	return next_write(fd, copy, sizeof(copy)) < 0 ? -1 : (ssize_t)count;
}

/* An SA MAD shorter than a MAD goes out as one, zero-padded, as the kernel sends it. */
static ssize_t write_whole_mad(int fd, const void *buf, size_t count)
{
	uint8_t mad[sizeof(struct ib_user_mad) + MAD_SIZE];
	if (count >= sizeof(mad))
		return next_write(fd, buf, count);
	memset(mad, 0, sizeof(mad));
	memcpy(mad, buf, count);
	return next_write(fd, mad, sizeof(mad)) < 0 ? -1 : (ssize_t)count;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	resolve();
	const ib_sa_mad_t *m = sa_of((void *)buf);
	if (fd < UMAD2SIM_FIRST_FD || count < umad_size() + IB_SA_MAD_HDR_SIZE || m->mgmt_class != IB_MCLASS_SUBN_ADM)
		return next_write(fd, buf, count);
	if (m->method & IB_MAD_METHOD_RESP_MASK)	/* an SA's answer: the kernel's RMPP, if its writer left that to it */
		return shim_send_segmented(fd, buf, count) ? (ssize_t)count : write_whole_mad(fd, buf, count);
	if ((m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && count > umad_size() + MAD_SIZE) {	/* a request of several segments */
		remember(fd, buf, count);
		return shim_send_segmented(fd, buf, count) ? (ssize_t)count : -1;
	}
	if ((m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && m->rmpp_type != IB_RMPP_TYPE_DATA)
		return write_rmpp_request(fd, buf, count);
	remember(fd, buf, count);
	return write_whole_mad(fd, buf, count);
}

/*
 * Whether a MAD read is one the kernel would drop: an SA answer to no
 * request outstanding (a window an SA sends again after the answer was
 * complete, or to a process gone), or an RMPP segment that does not
 * start an answer, or the SA's RMPP ACK of a request (the kernel's
 * sending side takes it), or a receiver's ACK, STOP or ABORT of an
 * answer rmpp_send.c is sending. A last segment sent again is
 * acknowledged again: the sender missed the ACK.
 */
static bool unwanted(int fd, void *umad, ssize_t n)
{
	const ib_sa_mad_t *m = sa_of(umad);
	if (shim_take_rmpp_control(fd, umad, n))
		return true;
	if (n < (ssize_t)(umad_size() + MAD_SIZE) || m->mgmt_class != IB_MCLASS_SUBN_ADM ||
	    !(m->method & IB_MAD_METHOD_RESP_MASK))
		return false;
	bool data = is_rmpp_data(umad, n), first = (m->rmpp_flags & IB_RMPP_FLAG_FIRST) && cl_ntoh32(m->seg_num) == 1;
	if ((m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && m->rmpp_type == IB_RMPP_TYPE_ACK)
		return true;
	if (outstanding(m, false) && (!data || first))
		return false;
	if (data && (m->rmpp_flags & IB_RMPP_FLAG_LAST))
		ack(fd, umad, cl_ntoh32(m->seg_num), cl_ntoh32(m->seg_num));
	return true;
}

ssize_t read(int fd, void *buf, size_t count)
{
	resolve();
	if (held.umad && held.fd == fd) {
		uint8_t *umad = held.umad;
		held.umad = NULL;
		return deliver(fd, buf, count, umad, held.len);
	}
	ssize_t n;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (fd >= UMAD2SIM_FIRST_FD && peeked.fd != fd && next_poll(&p, 1, 0) == 0 &&
	    (n = take_timeout(fd, buf, count)) > 0)
		return n;	/* nothing arrived, and a request is out of time */
	time_t deadline = time(NULL) + ANSWER_WAIT_S;
	while (n = read_mad(fd, buf, count), fd >= UMAD2SIM_FIRST_FD && unwanted(fd, buf, n))
		if (!wait_readable(fd, deadline))
			return -1;
	if (fd < UMAD2SIM_FIRST_FD || n < (ssize_t)(umad_size() + MAD_SIZE) || sa_of(buf)->mgmt_class != IB_MCLASS_SUBN_ADM)
		return n;
	const ib_sa_mad_t *m = sa_of(buf);
	/* a request's segments are the kernel's to take only for an agent registered with RMPP (OpenSM's, not fabricd's) */
	bool kernel_rmpp = (m->method & IB_MAD_METHOD_RESP_MASK) || shim_rmpp_agent(fd, ((struct ib_user_mad *)buf)->agent_id);
	if (!is_rmpp_data(buf, n) || !kernel_rmpp) {	/* a one-MAD answer, the SA's ACK of an RMPP request, a raw segment */
		if (m->method & IB_MAD_METHOD_RESP_MASK && !(m->rmpp_flags & IB_RMPP_FLAG_ACTIVE))
			outstanding(m, true);
		return n;
	}
	outstanding(m, true);
	if (m->rmpp_flags & IB_RMPP_FLAG_LAST) {	/* one segment: only its length to set */
		uint32_t pad = SEG_PAYLOAD - cl_ntoh32(m->paylen_newwin);
		ack_last(fd, buf, 1, 1);
		n = (ssize_t)(umad_size() + MAD_SIZE - (pad <= IB_SA_DATA_SIZE ? pad : 0));
		((struct ib_user_mad *)buf)->length = (uint32_t)n;
		return n;
	}
	uint8_t first[sizeof(struct ib_user_mad) + MAD_SIZE], *umad;
	memcpy(first, buf, sizeof(first));
	ssize_t len = reassemble(fd, &umad, first);
	return len < 0 ? -1 : deliver(fd, buf, count, umad, (size_t)len);
}

/*
 * Reads the MAD waiting on each readable umad fd: an RMPP ACK, STOP or
 * ABORT of a transfer rmpp_send.c makes is taken (the kernel keeps them),
 * anything else is kept for read(). Returns how many fds are no longer
 * readable.
 */
static int take_rmpp_controls(struct pollfd *fds, nfds_t nfds)
{
	int taken = 0;
	for (nfds_t i = 0; i < nfds; i++) {
		if (fds[i].fd < UMAD2SIM_FIRST_FD || !(fds[i].revents & POLLIN) || peeked.fd >= 0)
			continue;
		peeked.n = read_mad(fds[i].fd, peeked.umad, sizeof(peeked.umad));
		if (shim_take_rmpp_control(fds[i].fd, peeked.umad, peeked.n)) {
			fds[i].revents = 0;
			taken++;
		} else
			peeked.fd = fds[i].fd;
	}
	return taken;
}

/* umad2sim's poll, woken when a request is late: to send it again, or to hand back its timeout. */
int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	resolve();
	for (nfds_t i = 0; i < nfds; i++)
		if ((held.umad && fds[i].fd == held.fd) || fds[i].fd == peeked.fd) {
			fds[i].revents = POLLIN;
			return 1;
		}
	uint64_t end = timeout < 0 ? UINT64_MAX : now_ms() + (uint64_t)timeout;
	for (;;) {
		bool expired;
		for (nfds_t i = 0; i < nfds; i++)
			fds[i].revents = 0;
		int late_in = serve_timeouts(fds, nfds, &expired), ready;
		if (expired) {
			ready = 0;
			for (nfds_t i = 0; i < nfds; i++)
				ready += fds[i].revents != 0;
			return ready;
		}
		uint64_t now = now_ms();
		int wait = end == UINT64_MAX ? -1 : (int)(end > now ? end - now : 0);
		if (late_in >= 0 && (wait < 0 || late_in < wait))
			wait = late_in;
		int resend_in = shim_send_timers();
		if (resend_in >= 0 && (wait < 0 || resend_in < wait))
			wait = resend_in;
		if (wait < 0 || wait > REQUEST_CHECK_MS)
			wait = REQUEST_CHECK_MS;	/* another thread may send meanwhile */
		ready = next_poll(fds, nfds, wait);
		if (ready > 0)
			ready -= take_rmpp_controls(fds, nfds);
		if (ready != 0 || now_ms() >= end)
			return ready;
	}
}

int close(int fd)
{
	static int (*next_close)(int);
	if (!next_close)
		next_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (fd >= UMAD2SIM_FIRST_FD)
		settle();
	return next_close(fd);
}
