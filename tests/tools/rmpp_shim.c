/*
 * rmpp_shim.c - the RMPP receiver a host's kernel is, for tools run on
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
 * It reassembles one answer at a time, which is what saquery and the
 * other diagnostic tools wait for. It is fabricd's test equipment: the
 * sender it talks to is fabricd's (sm/mad/rmpp.c), written separately from
 * this, both after IBA 13.6 and the kernel's mad_rmpp.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define WINDOW 16		/* segments acknowledged at a time */
#define SEGMENT_WAIT_MS 3000
#define ANSWER_WAIT_S 10
#define LAST_ACK_PAUSE_US 50000	/* for a whole answer, however many unusable MADs arrive meanwhile */
#define SEG_PAYLOAD 220		/* what PayloadLength counts per segment: SA header and data */
#define MAD_SIZE 256
#define UMAD2SIM_FIRST_FD 1024	/* umad2sim's umad file descriptors start here */

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

static ib_sa_mad_t *sa_of(void *umad)
{
	return (ib_sa_mad_t *)umad_get_mad(umad);
}

/* umad2sim's read, with the tail of an SA MAD put back. */
static ssize_t read_mad(int fd, void *umad, size_t count)
{
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
 * socket before its packets, so a tool that exits right after would have
 * its disconnect taken first and this ACK dropped, and the SA would send
 * its last window again to whichever tool next uses the port (umad2sim
 * crashes on a MAD that comes before the tool registered): give ibsim a
 * moment to take the ACK. A tool that asks thousands of questions before
 * it exits (osmtest) may shorten the pause with RMPP_SHIM_ACK_PAUSE_US.
 */
static void ack_last(int fd, const void *data_umad, uint32_t seg, uint32_t window_last)
{
	const char *pause = getenv("RMPP_SHIM_ACK_PAUSE_US");
	ack(fd, data_umad, seg, window_last);
	usleep(pause ? (useconds_t)strtoul(pause, NULL, 10) : LAST_ACK_PAUSE_US);
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

/* The TIDs of the SA requests this process has sent and had no answer to. */
static struct {
	uint32_t tid[64];	/* low 32 bits: umad2sim puts its agent number in the high ones */
	unsigned n;
} asked;

static bool outstanding(const ib_sa_mad_t *m, bool forget)
{
	for (unsigned i = 0; i < asked.n; i++)
		if (asked.tid[i] == (uint32_t)cl_ntoh64(m->trans_id)) {
			if (forget)
				asked.tid[i] = asked.tid[--asked.n];
			return true;
		}
	return false;
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
	memcpy(copy, buf, count);
	ib_sa_mad_t *m = sa_of(copy);
	m->rmpp_version = 1;
	m->rmpp_type = IB_RMPP_TYPE_DATA;
	m->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	m->rmpp_status = 0;
	m->seg_num = cl_hton32(1);
	m->paylen_newwin = cl_hton32(SEG_PAYLOAD);
	return next_write(fd, copy, count);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	resolve();
	const ib_sa_mad_t *m = sa_of((void *)buf);
	if (fd < UMAD2SIM_FIRST_FD || count < umad_size() + MAD_SIZE || m->mgmt_class != IB_MCLASS_SUBN_ADM ||
	    (m->method & IB_MAD_METHOD_RESP_MASK))
		return next_write(fd, buf, count);	/* not an SA request */
	if (!outstanding(m, false)) {
		if (asked.n == sizeof(asked.tid) / sizeof(asked.tid[0]))
			asked.n--;	/* the oldest are long answered or lost */
		asked.tid[asked.n++] = (uint32_t)cl_ntoh64(m->trans_id);
	}
	if ((m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && m->rmpp_type != IB_RMPP_TYPE_DATA)
		return write_rmpp_request(fd, buf, count);
	return next_write(fd, buf, count);
}

/*
 * Whether a MAD read is one the kernel would drop: an SA answer to no
 * request outstanding (a window an SA sends again after the answer was
 * complete, or to a process gone), or an RMPP segment that does not
 * start an answer, or the SA's RMPP ACK of a request (the kernel's
 * sending side takes it). A last segment sent again is acknowledged
 * again: the sender missed the ACK.
 */
static bool unwanted(int fd, void *umad, ssize_t n)
{
	const ib_sa_mad_t *m = sa_of(umad);
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
	time_t deadline = time(NULL) + ANSWER_WAIT_S;
	while (n = read_mad(fd, buf, count), fd >= UMAD2SIM_FIRST_FD && unwanted(fd, buf, n))
		if (!wait_readable(fd, deadline))
			return -1;
	if (fd < UMAD2SIM_FIRST_FD || n < (ssize_t)(umad_size() + MAD_SIZE) || sa_of(buf)->mgmt_class != IB_MCLASS_SUBN_ADM)
		return n;
	const ib_sa_mad_t *m = sa_of(buf);
	if (!is_rmpp_data(buf, n)) {	/* a one-MAD answer, or the SA's ACK of an RMPP request */
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

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	resolve();
	for (nfds_t i = 0; i < nfds; i++)
		if (held.umad && fds[i].fd == held.fd) {
			fds[i].revents = POLLIN;
			return 1;
		}
	return next_poll(fds, nfds, timeout);
}
