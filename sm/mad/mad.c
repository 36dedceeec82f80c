/*
 * DOC: MAD transport
 *
 * One umad port, two SMI agents (directed route 0x81, LID routed 0x01),
 * the SA's (0x03) and a PerfMgt client's (0x04, which only sends: the
 * port's own counters are its PMA's, not ours).
 *
 * libibumad's fd cannot always be polled by libevent: under ibsim's
 * umad2sim it is a fake descriptor served by an in-process queue. So a
 * small pump thread blocks in umad_recv() and writes the MADs, whole, into
 * a pipe that the event loop watches: with the ones queued behind the
 * first in the same write, so that the loop wakes once for many (a thread
 * woken per MAD cost a third of fabricd's CPU in a bring-up on ibsim).
 * Everything else runs on the loop.
 *
 * Transactions: at most opts.window are in flight; the rest wait in a FIFO.
 * The in-flight ones sit in a complib map keyed by the low 32 bits of the
 * TID (the kernel and ibsim rewrite the high 32). One timer scans them for
 * expired deadlines. A failed try (timeout, or a send error reported back
 * by umad) waits a backoff and is resent under a fresh TID, so a late
 * answer to an old try can never complete a newer one.
 *
 * TIDs are random (getrandom), not counted: every port we query sees our
 * TIDs, and a host that could predict the next one could answer for a
 * switch. A reply must also match its request (reply_matches).
 */
#include "sm/mad/mad.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/random.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <complib/cl_qlist.h>
#include <complib/cl_qmap.h>

#include "sm/log.h"

#define RECORD_SIZE (sizeof(struct ib_user_mad) + sizeof(ib_smp_t))
#define PUMP_BATCH (PIPE_BUF / RECORD_SIZE)	/* records the pump hands over in one write */
#define GSI_QKEY 0x80010000	/* QP1's well-known Q_Key, host order for umad_set_addr */

enum txn_state { TXN_QUEUED, TXN_SENT, TXN_BACKOFF };

struct txn {
	cl_list_item_t list_item;	/* in queued or active */
	cl_map_item_t map_item;		/* in by_tid while TXN_SENT */
	enum txn_state state;
	uint32_t tid;
	ib_smp_t smp;			/* an SMP, or (a Report) an SA MAD of the same size */
	uint16_t dlid;			/* 0xffff for directed route */
	uint32_t qpn;			/* 0 for SMPs, 1 for PerfMgt, the subscriber's QP for a Report */
	unsigned tries;
	uint64_t deadline;
	mad_done_fn done;
	void *ctx;
};

struct mad_port {
	struct mad_port_opts opts;
	char ca[UMAD_CA_NAME_LEN];
	int portnum;
	uint64_t guid;
	int portid, issm_fd;
	int agent_dr, agent_lid, agent_sa, agent_perf;
	int pipe_rd, pipe_wr;
	pthread_t pump;
	bool pump_started;
	struct evl_watch *pipe_watch, *timer;
	cl_qlist_t queued, active;
	cl_qmap_t by_tid;
	uint32_t random[256];	/* TIDs to come, from getrandom */
	unsigned nrandom;
	uint8_t *send_buf;
	/*
	 * The pump's records, PUMP_BATCH of them: on the heap, as a buffer
	 * on its stack would be left poisoned for ASan when mad_close cancels
	 * it inside umad_recv (its frame never returns).
	 */
	uint8_t *pump_buf;
	mad_request_fn on_request;
	void *request_arg;
	uint8_t (*sl_of)(void *ctx, uint16_t dlid);
	void *sl_ctx;
	struct mad_stats stats;
};

/*
 * Receives one MAD into rec, waiting timeout_ms (-1: for ever): 1, 0 when
 * none came (a timeout, a wake-up with nothing queued, a signal, a MAD
 * too big for an SMP buffer, dropped), -1 when the device went away.
 */
static int pump_one(struct mad_port *mp, uint8_t *rec, int timeout_ms)
{
	int len = sizeof(ib_smp_t);
	memset(rec, 0, RECORD_SIZE);
	errno = 0;
	if (umad_recv(mp->portid, rec, &len, timeout_ms) >= 0)
		return 1;
	/* umad2sim returns -EWOULDBLOCK without errno for a wake-up with nothing queued */
	return errno == EBADF || errno == ENODEV || errno == EIO ? -1 : 0;
}

static void *pump_main(void *arg)
{
	struct mad_port *mp = arg;
	uint8_t *buf = mp->pump_buf;
	for (;;) {
		int rc = pump_one(mp, buf, -1);
		size_t n = rc > 0;
		/* what else is queued goes in the same write: one wake-up of the loop for many MADs */
		while (rc > 0 && n < PUMP_BATCH && (rc = pump_one(mp, buf + n * RECORD_SIZE, 0)) > 0)
			n++;
		/* one write of at most PIPE_BUF bytes is atomic: the loop reads whole records */
		if (n && write(mp->pipe_wr, buf, n * RECORD_SIZE) != (ssize_t)(n * RECORD_SIZE))
			return NULL;
		if (rc < 0) {
			log_error("umad_recv failed: %s", strerror(errno));
			close(mp->pipe_wr);
			return NULL;
		}
	}
}

static void arm_timer(struct mad_port *mp)
{
	uint64_t now = evl_now_ms(), soonest = UINT64_MAX;
	for (cl_list_item_t *it = cl_qlist_head(&mp->active); it != cl_qlist_end(&mp->active);
	     it = cl_qlist_next(it)) {
		struct txn *t = (struct txn *)it;
		if (t->deadline < soonest)
			soonest = t->deadline;
	}
	if (soonest != UINT64_MAX)
		evl_timer_arm(mp->timer, soonest > now ? soonest - now : 0);
}

static void try_failed(struct mad_port *mp, struct txn *t);

/* A TID no transaction in flight has; refills from getrandom, which does not fail once the pool is ready. */
static uint32_t fresh_tid(struct mad_port *mp)
{
	for (;;) {
		if (!mp->nrandom) {
			ssize_t n = getrandom(mp->random, sizeof(mp->random), 0);
			mp->nrandom = n > 0 ? (unsigned)((size_t)n / sizeof(mp->random[0])) : 0;
			if (!mp->nrandom) {
				log_warn("getrandom failed (%s); TIDs from the clock", strerror(errno));
				mp->random[0] = (uint32_t)(evl_now_ms() * 2654435761u) ^ (uint32_t)getpid();
				mp->nrandom = 1;
			}
		}
		uint32_t tid = mp->random[--mp->nrandom];
		if (tid && cl_qmap_get(&mp->by_tid, tid) == cl_qmap_end(&mp->by_tid))
			return tid;
	}
}

static void transmit(struct mad_port *mp, struct txn *t)
{
	struct ib_user_mad *umad = (struct ib_user_mad *)mp->send_buf;
	t->tid = fresh_tid(mp);
	t->smp.trans_id = cl_hton64((uint64_t)t->tid);
	memset(mp->send_buf, 0, RECORD_SIZE);
	memcpy(umad_get_mad(umad), &t->smp, sizeof(t->smp));
	uint8_t mclass = t->smp.mgmt_class;
	bool gsi = mclass == IB_MCLASS_SUBN_ADM || mclass == IB_MCLASS_PERF;
	uint8_t sl = gsi && mp->sl_of ? mp->sl_of(mp->sl_ctx, t->dlid) : 0;	/* SMPs go on VL15 */
	umad_set_addr(umad, t->dlid, (int)t->qpn, sl, gsi ? GSI_QKEY : 0);
	int agent = mclass == IB_MCLASS_SUBN_ADM ? mp->agent_sa : mclass == IB_MCLASS_PERF ? mp->agent_perf
		    : mclass == IB_MCLASS_SUBN_DIR ? mp->agent_dr : mp->agent_lid;
	t->state = TXN_SENT;
	t->tries++;
	t->deadline = evl_now_ms() + mp->opts.timeout_ms;
	cl_qmap_insert(&mp->by_tid, t->tid, &t->map_item);
	mp->stats.sent++;
	/* the kernel's own timeout makes it report a lost MAD back to us */
	if (umad_send(mp->portid, agent, umad, sizeof(ib_smp_t), (int)mp->opts.timeout_ms, 0) < 0) {
		log_debug("umad_send failed: %s", strerror(errno));
		try_failed(mp, t);
	}
}

static void start_queued(struct mad_port *mp)
{
	bool started = false;
	while (cl_qlist_count(&mp->active) < mp->opts.window && cl_qlist_count(&mp->queued)) {
		struct txn *t = (struct txn *)cl_qlist_remove_head(&mp->queued);
		cl_qlist_insert_tail(&mp->active, &t->list_item);
		transmit(mp, t);
		started = true;
	}
	if (started)
		arm_timer(mp);
}

static void finish(struct mad_port *mp, struct txn *t, int status, const ib_smp_t *reply)
{
	if (t->state == TXN_SENT)
		cl_qmap_remove_item(&mp->by_tid, &t->map_item);
	cl_qlist_remove_item(&mp->active, &t->list_item);
	t->done(t->ctx, status, reply);
	free(t);
	start_queued(mp);
}

/* A try failed: back off and resend, or give up after opts.retries. */
static void try_failed(struct mad_port *mp, struct txn *t)
{
	if (t->state == TXN_SENT)
		cl_qmap_remove_item(&mp->by_tid, &t->map_item);
	if (t->tries > mp->opts.retries) {
		t->state = TXN_BACKOFF;	/* already out of the map */
		finish(mp, t, MAD_TIMEOUT, NULL);
		return;
	}
	mp->stats.retries++;
	unsigned backoff = 10u << (t->tries - 1);
	if (backoff > mp->opts.timeout_ms)
		backoff = mp->opts.timeout_ms;
	t->state = TXN_BACKOFF;
	t->deadline = evl_now_ms() + backoff;
}

static void on_timer(void *arg)
{
	struct mad_port *mp = arg;
	uint64_t now = evl_now_ms();
	cl_list_item_t *it = cl_qlist_head(&mp->active);
	while (it != cl_qlist_end(&mp->active)) {
		struct txn *t = (struct txn *)it;
		it = cl_qlist_next(it);
		if (t->deadline > now)
			continue;
		if (t->state == TXN_BACKOFF) {
			transmit(mp, t);
		} else {
			try_failed(mp, t);
		}
	}
	arm_timer(mp);
}

static struct txn *find_tid(struct mad_port *mp, uint64_t tid)
{
	cl_map_item_t *it = cl_qmap_get(&mp->by_tid, tid & 0xffffffffu);
	return it == cl_qmap_end(&mp->by_tid) ? NULL : PARENT_STRUCT(it, struct txn, map_item);
}

/*
 * Anyone on the fabric can send us a GetResp, so a TID alone does not make
 * an answer: it must be a GetResp of the request's class, attribute and
 * modifier, from where the request went (the LID it was sent to; for a
 * directed-route SMP the same path, coming back, over the permissive LID).
 */
static bool reply_matches(const struct txn *t, const struct ib_user_mad *umad, const ib_smp_t *r)
{
	const ib_smp_t *q = &t->smp;
	uint8_t method = q->method == IB_MAD_METHOD_REPORT ? IB_MAD_METHOD_REPORT_RESP : IB_MAD_METHOD_GET_RESP;
	if (r->mgmt_class != q->mgmt_class || r->method != method || r->attr_id != q->attr_id ||
	    r->attr_mod != q->attr_mod || cl_ntoh16(umad->addr.lid) != t->dlid)
		return false;
	if (q->mgmt_class != IB_MCLASS_SUBN_DIR)
		return true;
	return (cl_ntoh16(r->status) & 0x8000) && r->hop_count == q->hop_count &&
	       !memcmp(r->initial_path, q->initial_path, (size_t)q->hop_count + 1);
}

static void handle_record(struct mad_port *mp, uint8_t *rec)
{
	struct ib_user_mad *umad = (struct ib_user_mad *)rec;
	ib_smp_t *smp = (ib_smp_t *)umad_get_mad(umad);
	mp->stats.received++;
	if (umad->status) {
		/* our own send, handed back: timed out or dropped on the way */
		struct txn *t = find_tid(mp, cl_ntoh64(smp->trans_id));
		if (t) {
			try_failed(mp, t);
			arm_timer(mp);
		}
		return;
	}
	if (smp->method & IB_MAD_METHOD_RESP_MASK) {
		struct txn *t = find_tid(mp, cl_ntoh64(smp->trans_id));
		if (!t || !reply_matches(t, umad, smp)) {
			log_debug("reply %s (TID 0x%016llx, class 0x%02x, attribute 0x%04x, from LID %u) dropped",
				  t ? "not matching its request" : "with an unknown TID",
				  (unsigned long long)cl_ntoh64(smp->trans_id), smp->mgmt_class,
				  cl_ntoh16(smp->attr_id), cl_ntoh16(umad->addr.lid));
			return;
		}
		uint16_t status = cl_ntoh16(smp->status) & 0x7fff;	/* D bit is not status */
		if (smp->mgmt_class != IB_MCLASS_SUBN_DIR)
			status = cl_ntoh16(smp->status);
		finish(mp, t, status, smp);
		return;
	}
	if (mp->on_request) {
		struct mad_origin from = {
			.slid = cl_ntoh16(umad->addr.lid),
			.qpn = cl_ntoh32(umad->addr.qpn),
			.sl = umad->addr.sl,
			.directed = smp->mgmt_class == IB_MCLASS_SUBN_DIR,
		};
		mp->on_request(mp->request_arg, smp, &from);
	}
}

static void on_pipe(void *arg)
{
	struct mad_port *mp = arg;
	uint8_t rec[PUMP_BATCH * RECORD_SIZE];
	ssize_t n;
	/* the pump writes whole records, atomically: a read returns whole ones */
	while ((n = read(mp->pipe_rd, rec, sizeof(rec))) >= (ssize_t)RECORD_SIZE)
		for (ssize_t at = 0; at + (ssize_t)RECORD_SIZE <= n; at += (ssize_t)RECORD_SIZE)
			handle_record(mp, rec + at);
	if (n == 0) {
		log_error("MAD receive thread stopped; no more replies can arrive");
		evl_watch_free(mp->pipe_watch);
		mp->pipe_watch = NULL;
	}
}

static int submit(struct mad_port *mp, const ib_smp_t *smp, uint16_t dlid, uint32_t qpn, mad_done_fn done,
		  void *ctx)
{
	struct txn *t = calloc(1, sizeof(*t));
	if (!t)
		return -1;
	t->smp = *smp;
	t->dlid = dlid;
	t->qpn = qpn;
	t->done = done;
	t->ctx = ctx;
	t->state = TXN_QUEUED;
	cl_qlist_insert_tail(&mp->queued, &t->list_item);
	start_queued(mp);
	return 0;
}

void mad_smp_header(ib_smp_t *smp, uint8_t mclass, uint8_t method, ib_net16_t attr, uint32_t mod, uint64_t mkey,
		    const void *data, size_t len)
{
	memset(smp, 0, sizeof(*smp));
	smp->m_key = cl_hton64(mkey);
	smp->base_ver = 1;
	smp->mgmt_class = mclass;
	smp->class_ver = 1;
	smp->method = method;
	smp->attr_id = attr;	/* IB_MAD_ATTR_* are already in network order */
	smp->attr_mod = cl_hton32(mod);
	if (data)
		memcpy(smp->data, data, len < IB_SMP_DATA_SIZE ? len : IB_SMP_DATA_SIZE);
}

int mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	ib_smp_t smp;
	if (hops > IB_SUBNET_PATH_HOPS_MAX - 1)
		return -1;
	mad_smp_header(&smp, IB_MCLASS_SUBN_DIR, method, attr, mod, mkey, data, len);
	smp.hop_count = hops;
	smp.dr_slid = smp.dr_dlid = IB_LID_PERMISSIVE;
	memcpy(smp.initial_path, path, (size_t)hops + 1);
	return submit(mp, &smp, 0xffff, 0, done, ctx);
}

int mad_send_lid(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
		 uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	ib_smp_t smp;
	mad_smp_header(&smp, IB_MCLASS_SUBN_LID, method, attr, mod, mkey, data, len);
	return submit(mp, &smp, dlid, 0, done, ctx);
}

_Static_assert(sizeof(ib_perfmgt_mad_t) == sizeof(ib_smp_t), "a PerfMgt MAD travels in an SMP's place");

int mad_send_perf(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
		  const void *data, size_t len, mad_done_fn done, void *ctx)
{
	ib_perfmgt_mad_t pm;
	ib_smp_t smp;
	memset(&pm, 0, sizeof(pm));
	pm.header.base_ver = 1;
	pm.header.mgmt_class = IB_MCLASS_PERF;
	pm.header.class_ver = 1;
	pm.header.method = method;
	pm.header.attr_id = attr;
	pm.header.attr_mod = cl_hton32(mod);
	if (data)
		memcpy(pm.data, data, len < IB_PM_DATA_SIZE ? len : IB_PM_DATA_SIZE);
	memcpy(&smp, &pm, sizeof(smp));
	return submit(mp, &smp, dlid, 1, done, ctx);
}

int mad_respond(struct mad_port *mp, const ib_smp_t *req, const struct mad_origin *to, uint16_t status,
		const void *data)
{
	uint8_t buf[RECORD_SIZE] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	ib_smp_t *smp = (ib_smp_t *)umad_get_mad(umad);
	*smp = *req;
	bool smi = req->mgmt_class == IB_MCLASS_SUBN_DIR || req->mgmt_class == IB_MCLASS_SUBN_LID;
	/* SMI answers are GetResp; GSI ones echo the method with the response bit */
	smp->method = smi ? IB_MAD_METHOD_GET_RESP : (uint8_t)(req->method | IB_MAD_METHOD_RESP_MASK);
	memcpy(smp->data, data, IB_SMP_DATA_SIZE);
	if (req->mgmt_class == IB_MCLASS_SUBN_DIR) {
		/* direction bit (0x8000) marks a returning directed-route SMP */
		smp->status = cl_hton16((uint16_t)(status | 0x8000));
		smp->hop_ptr = 0;
	} else {
		smp->status = cl_hton16(status);
	}
	umad_set_addr(umad, to->directed ? 0xffff : to->slid, (int)to->qpn, smi ? 0 : to->sl, smi ? 0 : GSI_QKEY);
	int agent = req->mgmt_class == IB_MCLASS_SUBN_DIR ? mp->agent_dr
		    : req->mgmt_class == IB_MCLASS_SUBN_LID ? mp->agent_lid : mp->agent_sa;
	mp->stats.sent++;
	return umad_send(mp->portid, agent, umad, sizeof(ib_smp_t), 0, 0) < 0 ? -1 : 0;
}

int mad_send_gsi(struct mad_port *mp, const ib_sa_mad_t *mad, const struct mad_origin *to)
{
	uint8_t buf[RECORD_SIZE] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	memcpy(umad_get_mad(umad), mad, sizeof(*mad));
	umad_set_addr(umad, to->slid, (int)to->qpn, to->sl, GSI_QKEY);
	mp->stats.sent++;
	return umad_send(mp->portid, mp->agent_sa, umad, sizeof(ib_sa_mad_t), 0, 0) < 0 ? -1 : 0;
}

int mad_send_report(struct mad_port *mp, uint16_t dlid, uint32_t qpn, const void *notice, size_t len,
		    mad_done_fn done, void *ctx)
{
	ib_sa_mad_t sa;
	if (len > IB_SA_DATA_SIZE)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.base_ver = 1;
	sa.mgmt_class = IB_MCLASS_SUBN_ADM;
	sa.class_ver = 2;
	sa.method = IB_MAD_METHOD_REPORT;
	sa.attr_id = IB_MAD_ATTR_NOTICE;
	memcpy(sa.data, notice, len);
	_Static_assert(sizeof(sa) == sizeof(ib_smp_t), "a Report travels in a transaction's SMP buffer");
	ib_smp_t as_txn;
	memcpy(&as_txn, &sa, sizeof(sa));
	return submit(mp, &as_txn, dlid, qpn, done, ctx);
}

int mad_repress(struct mad_port *mp, const ib_smp_t *trap, const struct mad_origin *to)
{
	uint8_t buf[RECORD_SIZE] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	ib_smp_t *smp = (ib_smp_t *)umad_get_mad(umad);
	*smp = *trap;
	smp->method = IB_MAD_METHOD_TRAP_REPRESS;
	smp->status = 0;
	umad_set_addr(umad, to->slid, (int)to->qpn, 0, 0);
	mp->stats.sent++;
	return umad_send(mp->portid, mp->agent_lid, umad, sizeof(ib_smp_t), 0, 0) < 0 ? -1 : 0;
}

void mad_set_sl_lookup(struct mad_port *mp, uint8_t (*sl_of)(void *ctx, uint16_t dlid), void *ctx)
{
	mp->sl_of = sl_of;
	mp->sl_ctx = ctx;
}

void mad_on_request(struct mad_port *mp, mad_request_fn fn, void *arg)
{
	mp->on_request = fn;
	mp->request_arg = arg;
}

unsigned mad_pending(const struct mad_port *mp)
{
	return (unsigned)(cl_qlist_count(&mp->queued) + cl_qlist_count(&mp->active));
}

const struct mad_stats *mad_get_stats(const struct mad_port *mp)
{
	return &mp->stats;
}

uint64_t mad_port_guid(const struct mad_port *mp)
{
	return mp->guid;
}

int mad_port_num(const struct mad_port *mp)
{
	return mp->portnum;
}

const char *mad_port_ca(const struct mad_port *mp)
{
	return mp->ca;
}

/* Resolves opts (CA name, port, or port GUID) to a CA name and port number. */
static int resolve_port(struct mad_port *mp, char err[MAD_ERR_LEN])
{
	umad_port_t port;
	if (mp->opts.guid) {
		char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
		int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
		for (int i = 0; i < n; i++) {
			__be64 guids[UMAD_MAX_PORTS + 1];
			int np = umad_get_ca_portguids(names[i], guids, UMAD_MAX_PORTS + 1);
			for (int p = 0; p < np; p++)
				if (cl_ntoh64(guids[p]) == mp->opts.guid) {
					snprintf(mp->ca, sizeof(mp->ca), "%.*s", (int)sizeof(mp->ca) - 1, names[i]);
					mp->portnum = p;
					goto found;
				}
		}
		snprintf(err, MAD_ERR_LEN, "no local port has GUID 0x%016llx",
			 (unsigned long long)mp->opts.guid);
		return -1;
	}
	mp->portnum = mp->opts.port;
	if (mp->opts.ca)
		snprintf(mp->ca, sizeof(mp->ca), "%s", mp->opts.ca);
found:
	if (umad_get_port(mp->ca[0] ? mp->ca : NULL, mp->portnum, &port) < 0) {
		if (mp->ca[0] || mp->portnum)
			snprintf(err, MAD_ERR_LEN, "no InfiniBand port %s port %d (is the CA present?)",
				 mp->ca[0] ? mp->ca : "(any CA)", mp->portnum);
		else
			snprintf(err, MAD_ERR_LEN, "no InfiniBand port found (no CA present, or ibsim not running?)");
		return -1;
	}
	snprintf(mp->ca, sizeof(mp->ca), "%s", port.ca_name);
	mp->portnum = port.portnum;
	mp->guid = cl_ntoh64(port.port_guid);
	umad_release_port(&port);
	return 0;
}

static int register_agents(struct mad_port *mp, char err[MAD_ERR_LEN])
{
	/* receive Get/Set (SMInfo from other SMs and tools) and Trap requests */
	long methods[16 / sizeof(long)] = { 0 };
	uint32_t *mask = (uint32_t *)methods;
	mask[0] = (1u << IB_MAD_METHOD_GET) | (1u << IB_MAD_METHOD_SET) | (1u << IB_MAD_METHOD_TRAP) |
		  (1u << IB_MAD_METHOD_TRAP_REPRESS);
	mp->agent_dr = umad_register(mp->portid, IB_MCLASS_SUBN_DIR, 1, 0, methods);
	mp->agent_lid = umad_register(mp->portid, IB_MCLASS_SUBN_LID, 1, 0, methods);
	/*
	 * SA queries come to the SM's port too (iblinkinfo, saquery, RDMA CM):
	 * sm/sa/sa.c answers them, with "unsupported" for what it does not serve.
	 * No RMPP from the kernel: sm/mad/rmpp.c does it, and the receivers' ACKs
	 * come as GetTable and GetMulti requests.
	 */
	long sa_methods[16 / sizeof(long)] = { 0 };
	uint32_t *sa_mask = (uint32_t *)sa_methods;
	sa_mask[0] = (1u << IB_MAD_METHOD_GET) | (1u << IB_MAD_METHOD_SET) | (1u << IB_MAD_METHOD_GETTABLE) |
		     (1u << IB_MAD_METHOD_GETMULTI) | (1u << IB_MAD_METHOD_DELETE);
	mp->agent_sa = umad_register(mp->portid, IB_MCLASS_SUBN_ADM, 2, 0, sa_methods);
	/* no methods: it receives only the answers to what it sends */
	mp->agent_perf = umad_register(mp->portid, IB_MCLASS_PERF, 1, 0, NULL);
	if (mp->agent_dr < 0 || mp->agent_lid < 0 || mp->agent_sa < 0 || mp->agent_perf < 0) {
		snprintf(err, MAD_ERR_LEN, "cannot register SMI agents on %s port %d: %s "
			 "(is another SM running on this port?)", mp->ca, mp->portnum, strerror(errno));
		return -1;
	}
	return 0;
}

struct mad_port *mad_open(struct evloop *loop, const struct mad_port_opts *o, char err[MAD_ERR_LEN])
{
	struct mad_port *mp = calloc(1, sizeof(*mp));
	if (!mp) {
		snprintf(err, MAD_ERR_LEN, "out of memory");
		return NULL;
	}
	mp->opts = *o;
	mp->portid = mp->issm_fd = mp->pipe_rd = mp->pipe_wr = -1;
	cl_qlist_init(&mp->queued);
	cl_qlist_init(&mp->active);
	cl_qmap_init(&mp->by_tid);
	mp->send_buf = calloc(1, RECORD_SIZE);
	mp->pump_buf = malloc(PUMP_BATCH * RECORD_SIZE);
	if (!mp->send_buf || !mp->pump_buf || umad_init() < 0) {
		snprintf(err, MAD_ERR_LEN, "cannot initialise libibumad");
		goto fail;
	}
	if (resolve_port(mp, err) < 0)
		goto fail;
	mp->portid = umad_open_port(mp->ca, mp->portnum);
	if (mp->portid < 0) {
		snprintf(err, MAD_ERR_LEN, "cannot open %s port %d: %s", mp->ca, mp->portnum,
			 strerror(errno));
		goto fail;
	}
	/*
	 * Agents before IsSM (mad_claim_sm): once we are an SM, traps may
	 * arrive at once, and umad2sim crashes on a MAD for a class nobody
	 * registered.
	 */
	if (register_agents(mp, err) < 0)
		goto fail;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, MAD_ERR_LEN, "pipe: %s", strerror(errno));
		goto fail;
	}
	mp->pipe_rd = fds[0];
	mp->pipe_wr = fds[1];
	fcntl(mp->pipe_rd, F_SETFL, O_NONBLOCK);
	mp->pipe_watch = evl_watch_fd(loop, mp->pipe_rd, on_pipe, mp);
	mp->timer = evl_timer(loop, on_timer, mp);
	if (!mp->pipe_watch || !mp->timer || pthread_create(&mp->pump, NULL, pump_main, mp) != 0) {
		snprintf(err, MAD_ERR_LEN, "cannot start the MAD receive path");
		goto fail;
	}
	mp->pump_started = true;
	return mp;
fail:
	mad_close(mp);
	return NULL;
}

int mad_claim_sm(struct mad_port *mp, char err[MAD_ERR_LEN])
{
	char issm[256];
	if (mp->issm_fd >= 0)
		return 0;
	/* holding the issm device open is what sets IsSM in our PortInfo */
	if (umad_get_issm_path(mp->ca, mp->portnum, issm, sizeof(issm)) < 0 ||
	    (mp->issm_fd = open(issm, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(err, MAD_ERR_LEN, "cannot open the issm device of %s port %d: %s", mp->ca, mp->portnum,
			 strerror(errno));
		return -1;
	}
	return 0;
}

void mad_close(struct mad_port *mp)
{
	if (!mp)
		return;
	if (mp->pump_started) {
		pthread_cancel(mp->pump);
		pthread_join(mp->pump, NULL);
	}
	while (cl_qlist_count(&mp->queued))
		free(cl_qlist_remove_head(&mp->queued));
	while (cl_qlist_count(&mp->active))
		free(cl_qlist_remove_head(&mp->active));
	evl_watch_free(mp->pipe_watch);
	evl_watch_free(mp->timer);
	if (mp->pipe_rd >= 0)
		close(mp->pipe_rd);
	if (mp->pipe_wr >= 0)
		close(mp->pipe_wr);
	if (mp->issm_fd >= 0)
		close(mp->issm_fd);
	if (mp->portid >= 0)
		umad_close_port(mp->portid);
	free(mp->send_buf);
	free(mp->pump_buf);
	free(mp);
}
