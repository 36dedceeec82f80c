/*
 * DOC: counter sweeps
 *
 * A perf sweep takes the ports from the published fabric (every cabled
 * port in ACTIVE state; a switch's ports are addressed at its LID), asks
 * each node it has not asked before for its PMA's ClassPortInfo (extended
 * counters? XmitWait?), then for each port: PortCounters Get, then
 * PortCountersExtended Get where the node has it, then, if an error
 * counter moved or a 32-bit counter passed half its range, a Set that
 * clears them. What the Set answers is the new baseline, so the errors
 * between the Get and the Set are the only ones that can be missed.
 *
 * Deltas against the last reading become the running totals; a reading
 * below the last one is a reset (someone else's, or a reboot) and counts
 * whole. A port's first reading (new port, or fabricd's first sweep with
 * no stored baseline) counts whole into the totals but makes no sample:
 * its interval is unknown.
 *
 * The sweep yields to a heavy sweep (sm->sched.sweeping): it sends
 * nothing new until that one is over. Its MADs name nodes by GUID and LID,
 * never by pointer, so a fabric published meanwhile changes nothing here.
 * Its samples go to the database in one transaction that does not wait; a
 * busy database keeps them (pending) for the next sweep.
 */
#include "sm/perf/perf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sm/log.h"
#include "sm/perf/health.h"
#include "sm/perf/pma.h"
#include "sm/sm.h"

#define PAUSE_MS 200	/* how often a paused sweep looks whether the heavy sweep is over */

struct perf_node {
	struct perf *p;		/* for the answers to its requests */
	uint64_t guid;
	uint16_t lid;
	struct pma_caps caps;
	enum { CAPS_UNKNOWN, CAPS_ASKED, CAPS_KNOWN, CAPS_NO_AGENT } state;
};

/* A port's place in the running sweep, and what its requests are sent with. */
struct port_job {
	struct perf *p;
	size_t i;		/* in p->ports */
	struct pc_values reading;
	bool reset[PC_COUNT];
	struct pma_caps caps;
};

struct perf {
	struct sm *sm;
	struct evl_watch *timer;
	struct perf_port *ports;	/* by (node GUID, port) */
	struct pc_values *pending;	/* per port: deltas the database has not taken yet */
	double *pending_seconds;
	struct port_job *jobs;
	size_t nports;
	struct perf_node *nodes;	/* by GUID; kept across sweeps: ClassPortInfo is asked once */
	size_t nnodes;
	bool stored_loaded;		/* the database's totals were taken as baselines */
	/* the running sweep */
	bool running;
	size_t next_node, next_port;
	unsigned inflight;
	uint64_t started_ms;
	unsigned unanswered;
	struct perf_stats stats;
};

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_port(const void *a, const void *b)
{
	const struct db_port_counters *x = a, *y = b;
	if (x->node_guid != y->node_guid)
		return x->node_guid < y->node_guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

static int cmp_node(const void *a, const void *b)
{
	const struct perf_node *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static struct perf_node *find_node(struct perf *p, uint64_t guid)
{
	struct perf_node key = { .guid = guid };
	return p->nnodes ? bsearch(&key, p->nodes, p->nnodes, sizeof(*p->nodes), cmp_node) : NULL;
}

static void arm(struct perf *p, uint64_t ms)
{
	evl_timer_arm(p->timer, ms);
}

static void arm_next(struct perf *p)
{
	if (p->sm->cfg.perf_interval)
		arm(p, (uint64_t)p->sm->cfg.perf_interval * 1000);
}

/* The ports to read in fab, carrying over what is known of them (earlier sweeps, or the database). */
static int take_ports(struct perf *p, const struct fabric *fab, const struct db_port_counters *stored, size_t nstored)
{
	size_t n = 0;
	for (size_t i = 0; i < fab->nnodes; i++)
		n += fab->nodes[i]->nports;
	struct perf_port *ports = calloc(n ? n : 1, sizeof(*ports));
	struct pc_values *pending = calloc(n ? n : 1, sizeof(*pending));
	double *pending_s = calloc(n ? n : 1, sizeof(*pending_s));
	struct port_job *jobs = calloc(n ? n : 1, sizeof(*jobs));
	struct perf_node *nodes = calloc(fab->nnodes ? fab->nnodes : 1, sizeof(*nodes));
	if (!ports || !pending || !pending_s || !jobs || !nodes)
		goto fail;
	size_t np = 0, nn = 0;
	for (size_t i = 0; i < fab->nnodes; i++) {
		const struct node *nd = fab->nodes[i];
		uint16_t node_lid = 0;
		for (unsigned q = 1; q <= nd->nports; q++) {
			const struct port *pt = &nd->ports[q];
			uint16_t lid = fabric_port_lid(nd, (uint8_t)q);
			if (!pt->exists || !pt->remote || pt->state != PORT_ACTIVE || !lid)
				continue;
			if (!node_lid)
				node_lid = lid;
			struct perf_port *pp = &ports[np++];
			pp->c.node_guid = nd->guid;
			pp->c.port = (uint8_t)q;
			pp->c.lid = lid;
			pp->gbps = fabric_port_data_gbps(pt);
		}
		if (node_lid) {
			const struct perf_node *old = find_node(p, nd->guid);
			nodes[nn] = old ? *old : (struct perf_node){ .guid = nd->guid };
			if (nodes[nn].state == CAPS_ASKED || nodes[nn].state == CAPS_NO_AGENT)
				nodes[nn].state = CAPS_UNKNOWN;	/* ask again: it may answer now */
			nodes[nn++].lid = node_lid;
		}
	}
	qsort(ports, np, sizeof(*ports), cmp_port);
	qsort(nodes, nn, sizeof(*nodes), cmp_node);
	for (size_t i = 0; i < np; i++) {
		struct perf_port *pp = &ports[i];
		/* bsearch must not see the NULL of an empty array */
		const struct perf_port *old = p->nports ? bsearch(&pp->c, p->ports, p->nports, sizeof(*p->ports), cmp_port)
							: NULL;
		const struct db_port_counters *st = old || !nstored ? NULL
							: bsearch(&pp->c, stored, nstored, sizeof(*stored), cmp_port);
		if (old) {
			size_t o = (size_t)(old - p->ports);
			pp->c.raw = old->c.raw;
			pp->c.total = old->c.total;
			pp->c.last = old->c.last;
			pp->c.time = old->c.time;
			pp->c.seconds = old->c.seconds;
			pp->c.saturated = old->c.saturated;
			pp->have_raw = old->have_raw;
			pending[i] = p->pending[o];
			pending_s[i] = p->pending_seconds[o];
		} else if (st) {
			pp->c.raw = st->raw;
			pp->c.total = st->total;
			pp->c.last = st->last;
			pp->c.time = st->time;
			pp->c.seconds = st->seconds;
			pp->have_raw = true;
		}
	}
	free(p->ports);
	free(p->pending);
	free(p->pending_seconds);
	free(p->jobs);
	free(p->nodes);
	p->ports = ports;
	p->pending = pending;
	p->pending_seconds = pending_s;
	p->jobs = jobs;
	p->nports = np;
	p->nodes = nodes;
	p->nnodes = nn;
	return 0;
fail:
	free(ports);
	free(pending);
	free(pending_s);
	free(jobs);
	free(nodes);
	return -1;
}

static void pump(struct perf *p);

static void request_done(struct perf *p)
{
	p->inflight--;
	pump(p);
}

static void on_caps(void *ctx, int status, const ib_smp_t *reply)
{
	struct perf_node *node = ctx;
	if (status == 0 && reply) {
		node->caps = pma_decode_caps(((const ib_perfmgt_mad_t *)(const void *)reply)->data);
		node->state = CAPS_KNOWN;
	} else {
		node->state = CAPS_NO_AGENT;
		log_debug("perf: no ClassPortInfo from LID %u (status 0x%04x)", node->lid, (unsigned)status);
	}
	request_done(node->p);
}

/* Folds a finished reading into the port's totals and pending sample. */
static void account(struct perf *p, size_t i, const struct pc_values *now, double t)
{
	struct perf_port *pp = &p->ports[i];
	struct port_job *job = &p->jobs[i];
	bool saturated = false;
	struct pc_values d;
	for (int c = 0; c < PC_COUNT; c++) {
		bool wide = job->caps.extended && c >= PC_XMIT_DATA && c <= PC_RCV_PKTS, was = saturated;
		uint64_t width = wide ? UINT64_MAX : pc_max(c);
		d.v[c] = pc_delta(pp->have_raw ? pp->c.raw.v[c] : 0, now->v[c], width, &saturated);
		pp->c.total.v[c] += d.v[c];
		if (saturated && !was)
			log_warn("perf: LID %u port %u: %s read at its maximum (%llu); its total may be short", pp->c.lid,
				 pp->c.port, pc_name(c), (unsigned long long)now->v[c]);
	}
	if (pp->have_raw && pp->c.time > 0 && t > pp->c.time) {
		pp->fresh = true;
		pp->c.last = d;
		pp->c.seconds = t - pp->c.time;
		for (int c = 0; c < PC_COUNT; c++)
			p->pending[i].v[c] += d.v[c];
		p->pending_seconds[i] += pp->c.seconds;
	}
	pp->c.saturated = saturated;
	pp->c.time = t;
	pp->c.raw = *now;
	pp->have_raw = true;
}

static void on_reset(void *ctx, int status, const ib_smp_t *reply)
{
	struct port_job *job = ctx;
	struct perf *p = job->p;
	struct perf_port *pp = &p->ports[job->i];
	struct pc_values after;
	if (status == 0 && reply &&
	    pma_decode_counters(((const ib_perfmgt_mad_t *)(const void *)reply)->data, pp->c.port, job->caps.xmit_wait,
				&after) == 0) {
		/* the cleared counters start again from what the Set left */
		for (int c = 0; c < PC_COUNT; c++)
			if (job->reset[c])
				pp->c.raw.v[c] = after.v[c];
	} else {
		log_debug("perf: counters of LID %u port %u not cleared (status 0x%04x)", pp->c.lid, pp->c.port,
			  (unsigned)status);
	}
	request_done(p);
}

/* The reading is whole: account for it, and clear what must be cleared. */
static void reading_done(struct perf *p, struct port_job *job)
{
	struct perf_port *pp = &p->ports[job->i];
	account(p, job->i, &job->reading, now_unix());
	bool any = false;
	for (int c = 0; c < PC_COUNT; c++) {
		bool narrow = !(job->caps.extended && c >= PC_XMIT_DATA && c <= PC_RCV_PKTS);
		job->reset[c] = pc_is_error(c) ? job->reading.v[c] > 0 : narrow && job->reading.v[c] > pc_max(c) / 2;
		any |= job->reset[c];
	}
	if (!any) {
		request_done(p);
		return;
	}
	uint8_t data[IB_PM_DATA_SIZE];
	pma_counters_request(data, pp->c.port, job->reset);
	if (mad_send_perf(p->sm->mp, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_CNTRS, 0, pp->c.lid, data, sizeof(data),
			  on_reset, job) < 0)
		request_done(p);
}

static void on_extended(void *ctx, int status, const ib_smp_t *reply)
{
	struct port_job *job = ctx;
	struct perf *p = job->p;
	struct perf_port *pp = &p->ports[job->i];
	if (status == 0 && reply &&
	    pma_decode_extended(((const ib_perfmgt_mad_t *)(const void *)reply)->data, pp->c.port, &job->reading) == 0) {
		reading_done(p, job);
		return;
	}
	p->unanswered++;
	request_done(p);
}

static void on_counters(void *ctx, int status, const ib_smp_t *reply)
{
	struct port_job *job = ctx;
	struct perf *p = job->p;
	struct perf_port *pp = &p->ports[job->i];
	if (status != 0 || !reply ||
	    pma_decode_counters(((const ib_perfmgt_mad_t *)(const void *)reply)->data, pp->c.port, job->caps.xmit_wait,
				&job->reading) < 0) {
		p->unanswered++;
		request_done(p);
		return;
	}
	if (!job->caps.extended) {
		reading_done(p, job);
		return;
	}
	uint8_t data[IB_PM_DATA_SIZE];
	pma_extended_request(data, pp->c.port);
	if (mad_send_perf(p->sm->mp, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS_EXT, 0, pp->c.lid, data, sizeof(data),
			  on_extended, job) < 0) {
		p->unanswered++;
		request_done(p);
	}
}

static void store(struct perf *p, double t)
{
	if (p->sm->db_busy)	/* a sweep's store holds the database: these go with the next counter sweep */
		return;
	struct db_port_counters *rows = calloc(p->nports ? p->nports : 1, sizeof(*rows));
	struct db_perf_sample *samples = calloc(p->nports ? p->nports : 1, sizeof(*samples));
	size_t ns = 0;
	if (!rows || !samples) {
		free(rows);
		free(samples);
		p->stats.store_failures++;
		log_warn("perf: counters not stored: out of memory");
		return;
	}
	for (size_t i = 0; i < p->nports; i++) {
		rows[i] = p->ports[i].c;
		bool moved = false;
		for (int c = 0; c < PC_COUNT && !moved; c++)
			moved = p->pending[i].v[c] != 0;
		/* an idle port's all-zero sample says nothing the sums need: not stored */
		if (p->pending_seconds[i] > 0 && moved)
			samples[ns++] = (struct db_perf_sample){ p->ports[i].c.node_guid, p->ports[i].c.port,
								 p->pending_seconds[i], p->pending[i] };
	}
	size_t nh = 0;
	const struct db_port_health *health = p->sm->health ? health_rows(p->sm->health, &nh) : NULL;
	if (db_save_perf(p->sm->db, t, rows, p->nports, samples, ns, health, nh) == 0) {
		sm_db_written(p->sm);
		sm_events_flush(p->sm);	/* the verdicts' events, without waiting for a heavy sweep */
		memset(p->pending, 0, p->nports * sizeof(*p->pending));
		memset(p->pending_seconds, 0, p->nports * sizeof(*p->pending_seconds));
	} else {
		p->stats.store_failures++;
		log_warn("perf: counters kept for the next sweep: %s", db_last_error(p->sm->db));
	}
	free(rows);
	free(samples);
}

static void finish(struct perf *p)
{
	double t = now_unix();
	p->running = false;
	if (p->sm->health)
		health_update(p->sm->health, p->ports, p->nports, t);
	store(p, t);
	p->stats.sweeps++;
	p->stats.last_unix = t;
	p->stats.last_seconds = (double)(evl_now_ms() - p->started_ms) / 1000.0;
	p->stats.ports = (unsigned)p->nports;
	p->stats.unanswered = p->unanswered;
	if (p->unanswered)
		log_info("perf: counters of %zu of %zu ports read in %.2f s; %u did not answer",
			 p->nports - p->unanswered, p->nports, p->stats.last_seconds, p->unanswered);
	else
		log_info("perf: counters of %zu ports read in %.2f s", p->nports, p->stats.last_seconds);
	arm_next(p);
}

static bool send_caps(struct perf *p, size_t n)
{
	p->nodes[n].p = p;
	p->nodes[n].state = CAPS_ASKED;
	if (mad_send_perf(p->sm->mp, IB_MAD_METHOD_GET, IB_MAD_ATTR_CLASS_PORT_INFO, 0, p->nodes[n].lid, NULL, 0,
			  on_caps, &p->nodes[n]) < 0) {
		p->nodes[n].state = CAPS_NO_AGENT;
		return false;
	}
	return true;
}

static bool send_port(struct perf *p, size_t i)
{
	struct perf_port *pp = &p->ports[i];
	const struct perf_node *node = find_node(p, pp->c.node_guid);
	if (!node || node->state != CAPS_KNOWN) {
		p->unanswered++;
		return false;
	}
	struct port_job *job = &p->jobs[i];
	*job = (struct port_job){ .p = p, .i = i, .caps = node->caps };
	uint8_t data[IB_PM_DATA_SIZE];
	pma_counters_request(data, pp->c.port, NULL);
	if (mad_send_perf(p->sm->mp, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS, 0, pp->c.lid, data, sizeof(data),
			  on_counters, job) < 0) {
		p->unanswered++;
		return false;
	}
	return true;
}

/* perf.window, but never more than half the MAD window: the SMPs keep the rest. */
static unsigned window(const struct perf *p)
{
	unsigned half = p->sm->cfg.mad_window / 2 ? p->sm->cfg.mad_window / 2 : 1;
	return p->sm->cfg.perf_window < half ? p->sm->cfg.perf_window : half;
}

/* Sends what the window allows: every node's ClassPortInfo first, then the ports. */
static void pump(struct perf *p)
{
	if (!p->running)
		return;
	if (p->sm->state != SM_MASTER) {	/* no longer ours to read: give up this one */
		if (!p->inflight) {
			p->running = false;
			arm_next(p);
		}
		return;
	}
	if (p->sm->sched.sweeping) {
		if (!p->inflight)
			arm(p, PAUSE_MS);
		return;
	}
	while (p->inflight < window(p) && p->next_node < p->nnodes) {
		size_t n = p->next_node++;
		if (p->nodes[n].state == CAPS_UNKNOWN && send_caps(p, n))
			p->inflight++;
	}
	if (p->next_node < p->nnodes || (p->next_port == 0 && p->inflight))
		return;	/* the ports wait for every node's capabilities */
	while (p->inflight < window(p) && p->next_port < p->nports)
		if (send_port(p, p->next_port++))
			p->inflight++;
	if (!p->inflight && p->next_port == p->nports)
		finish(p);
}

static void start(struct perf *p)
{
	const struct sm_snapshot *pub = sm_published(p->sm);
	struct db_port_counters *stored = NULL;
	size_t nstored = 0;
	if (!p->stored_loaded) {
		if (db_load_port_counters(p->sm->db, &stored, &nstored) < 0)
			log_warn("perf: stored counters not read (totals start again): %s", db_last_error(p->sm->db));
		p->stored_loaded = true;
	}
	int rc = take_ports(p, &pub->fabric, stored, nstored);
	free(stored);
	if (rc < 0) {
		log_warn("perf: counter sweep skipped: out of memory");
		arm_next(p);
		return;
	}
	for (size_t i = 0; i < p->nports; i++)
		p->ports[i].fresh = false;
	p->running = true;
	p->next_node = p->next_port = 0;
	p->unanswered = 0;
	p->started_ms = evl_now_ms();
	pump(p);
}

static void on_timer(void *arg)
{
	struct perf *p = arg;
	if (p->running) {	/* paused for a heavy sweep */
		pump(p);
		return;
	}
	if (!p->sm->cfg.perf_interval)
		return;
	if (p->sm->state != SM_MASTER || !sm_published(p->sm)) {
		arm_next(p);
		return;
	}
	if (p->sm->sched.sweeping) {
		arm(p, PAUSE_MS);
		return;
	}
	start(p);
}

struct perf *perf_new(struct sm *sm)
{
	struct perf *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->sm = sm;
	p->timer = evl_timer(sm->loop, on_timer, p);
	if (!p->timer) {
		free(p);
		return NULL;
	}
	arm_next(p);
	return p;
}

void perf_free(struct perf *p)
{
	if (!p)
		return;
	evl_watch_free(p->timer);
	free(p->ports);
	free(p->pending);
	free(p->pending_seconds);
	free(p->jobs);
	free(p->nodes);
	free(p);
}

void perf_reconfigure(struct perf *p)
{
	if (!p->running) {
		evl_timer_cancel(p->timer);
		arm_next(p);
	}
}

const struct perf_port *perf_ports(const struct perf *p, size_t *n)
{
	*n = p->nports;
	return p->ports;
}

const struct perf_stats *perf_get_stats(const struct perf *p)
{
	return &p->stats;
}
