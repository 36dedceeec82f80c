/*
 * umad2sim_tail.c - keeps the last 32 bytes of each SA MAD that ibsim
 * hands umad2sim, which umad2sim loses, for the RMPP shim to put back.
 *
 *   LD_PRELOAD="librmpp-shim.so libumad2sim.so libumad2sim-tail.so" saquery NR
 *
 * umad2sim (ibsim 0.10) receives each packet into a buffer the size of
 * its socket record (288 bytes), of which 64 go to the umad header: a
 * tool gets bytes 0-223 of the MAD and 32 bytes of whatever follows the
 * buffer. SMPs (data in bytes 64-127) never notice; SA answers do, in the
 * last 32 of their 200 data bytes. Loaded after umad2sim, this library is
 * the read() umad2sim's receive thread calls on ibsim's socket: it notes
 * the tail of every SA MAD by TID, method, attribute and RMPP segment,
 * and umad2sim_tail() gives it back to the shim, which sits in front of
 * umad2sim. Test equipment, like the shim.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_types.h>

#define TAIL 32			/* the bytes umad2sim loses */
#define KEPT 4096		/* tails remembered, newest over oldest */

/* ibsim 0.10's socket record (struct sim_request) */
struct sim_packet {
	uint32_t dlid, slid, dqp, sqp, status;
	uint64_t length;
	uint8_t mad[256];
};

static struct tail {
	ib_net64_t tid;
	ib_net32_t seg;
	uint8_t method;
	ib_net16_t attr;
	uint8_t bytes[TAIL];
} kept[KEPT];
static size_t next;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ssize_t (*next_read)(int, void *, size_t);

static bool same(const struct tail *t, const ib_sa_mad_t *m)
{
	return t->tid == m->trans_id && t->seg == m->seg_num && t->method == m->method && t->attr == m->attr_id;
}

ssize_t read(int fd, void *buf, size_t count)
{
	if (!next_read)
		next_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	ssize_t n = next_read(fd, buf, count);
	if (count != sizeof(struct sim_packet) || n != (ssize_t)sizeof(struct sim_packet))
		return n;
	/* copies: umad2sim's buffer need not be aligned for either struct */
	const uint8_t *mad = (const uint8_t *)buf + offsetof(struct sim_packet, mad);
	ib_sa_mad_t m;
	memcpy(&m, mad, sizeof(m));
	if (m.mgmt_class != IB_MCLASS_SUBN_ADM)
		return n;
	pthread_mutex_lock(&lock);
	struct tail *t = &kept[next++ % KEPT];
	*t = (struct tail){ m.trans_id, m.seg_num, m.method, m.attr_id, { 0 } };
	memcpy(t->bytes, mad + sizeof(m) - TAIL, TAIL);
	pthread_mutex_unlock(&lock);
	return n;
}

/* Puts the last TAIL bytes of the 256-byte SA MAD mad back as ibsim sent them; false if not seen. */
bool umad2sim_tail(void *mad)
{
	ib_sa_mad_t *m = mad;
	bool found = false;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < KEPT && i < next && !found; i++) {
		const struct tail *t = &kept[(next - 1 - i) % KEPT];
		if ((found = same(t, m)))
			memcpy((uint8_t *)mad + sizeof(*m) - TAIL, t->bytes, TAIL);
	}
	pthread_mutex_unlock(&lock);
	return found;
}
