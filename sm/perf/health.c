/*
 * DOC: unhealthy ports
 *
 * Each judged port keeps two buckets of its error counts, the current one
 * and the one before, each health.window_s long: the count "within the
 * last window" is the current bucket plus the share of the previous one
 * the window still covers (the estimate rate limiters use). The BER is the
 * window's symbol errors over the bits the link carries in a window (its
 * data rate times window_s): conservative, a single error on a young
 * window does not make a port unhealthy.
 *
 * What follows a verdict (health.action):
 *   report   an event and a log line, nothing else;
 *   isolate  the next heavy sweeps route as if the link were absent
 *            (health_hide, called by the sweep around routing_compute):
 *            traffic moves off it by a normal reroute, proven like any
 *            other and its transition too, while the link stays up and
 *            keeps being read. A link whose loss would cut a node off from
 *            the SM (a host's only link, a leaf's last up-link) stays in
 *            the routing: "kept", with why;
 *   disable  a PortInfo Set with PortPhysicalState Disabled takes it down
 *            (never one whose loss cuts a node off); Polling brings it
 *            back when it is declared healthy.
 * Health is in memory: a restarted fabricd judges afresh from new samples
 * (the stored rows say what the last one judged).
 */
#include "sm/perf/health.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sm/log.h"
#include "sm/sm.h"
#include "sm/smnode.h"
#include "sm/sweep/batch.h"

enum { W_SYMBOL, W_RECOVERY, W_DOWNED, W_RCV, W_TRAPS, W_COUNT };

enum act { ACT_NONE, ACT_ISOLATE, ACT_DISABLED, ACT_KEPT };

struct hport {
	uint64_t guid;
	uint8_t port;
	double gbps;
	double bucket_start;
	uint64_t cur[W_COUNT], prev[W_COUNT];
	bool unhealthy;
	enum act act;
	bool hidden;		/* the last heavy sweep routed without it */
	double since, last_over;
	char why[160];
};

struct health {
	struct sm *sm;
	bool reroute;		/* an isolation began or ended: the routing must see it */
	struct hport *p;	/* by (guid, port) */
	size_t n, cap;
	struct db_port_health *rows;
	size_t nrows;
};

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct health *health_new(struct sm *sm)
{
	struct health *h = calloc(1, sizeof(*h));
	if (h)
		h->sm = sm;
	return h;
}

void health_free(struct health *h)
{
	if (!h)
		return;
	free(h->p);
	free(h->rows);
	free(h);
}

static int cmp_hport(const void *a, const void *b)
{
	const struct hport *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

/* The port's entry, or NULL (bsearch must not see the NULL of an empty array). */
static struct hport *find_port(const struct health *h, uint64_t guid, uint8_t port)
{
	struct hport key = { .guid = guid, .port = port };
	return h->n ? bsearch(&key, h->p, h->n, sizeof(*h->p), cmp_hport) : NULL;
}

/* The port's entry, made if it has none; NULL when memory runs out. */
static struct hport *port_of(struct health *h, uint64_t guid, uint8_t port)
{
	struct hport key = { .guid = guid, .port = port };
	struct hport *found = find_port(h, guid, port);
	if (found)
		return found;
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct hport *more = realloc(h->p, cap * sizeof(*more));
		if (!more)
			return NULL;
		h->p = more;
		h->cap = cap;
	}
	size_t at = 0;
	while (at < h->n && cmp_hport(&h->p[at], &key) < 0)
		at++;
	memmove(h->p + at + 1, h->p + at, (h->n - at) * sizeof(*h->p));
	h->p[at] = key;
	h->n++;
	return &h->p[at];
}

/* "L0[1] (to S0[3])", from the published fabric, or the GUID. */
static void port_name(const struct health *h, uint64_t guid, uint8_t port, char *out, size_t len)
{
	const struct sm_snapshot *pub = sm_published(h->sm);
	const struct node *n = pub ? fabric_find_guid(&pub->fabric, guid) : NULL;
	if (!n || port > n->nports) {
		snprintf(out, len, "0x%016" PRIx64 "[%u]", guid, port);
		return;
	}
	const struct port *pt = &n->ports[port];
	if (pt->remote)
		snprintf(out, len, "%s[%u] (to %s[%u])", n->desc, port, pt->remote->desc, pt->remote_port);
	else
		snprintf(out, len, "%s[%u]", n->desc, port);
}

static void rotate(struct hport *hp, double now, double window)
{
	if (hp->bucket_start == 0)
		hp->bucket_start = now;
	double age = now - hp->bucket_start;
	if (age < window)
		return;
	for (int c = 0; c < W_COUNT; c++)
		hp->prev[c] = age >= 2 * window ? 0 : hp->cur[c];
	memset(hp->cur, 0, sizeof(hp->cur));
	hp->bucket_start = now;
}

static double within_window(const struct hport *hp, int c, double now, double window)
{
	double left = 1 - (now - hp->bucket_start) / window;
	return (double)hp->cur[c] + (left > 0 ? left * (double)hp->prev[c] : 0);
}

/* Which threshold the port passes, in why; false if none. */
static bool over(const struct health *h, const struct hport *hp, double now, char *why, size_t len)
{
	const struct fabricd_config *cfg = &h->sm->cfg;
	double w = cfg->health_window_s;
	double sym = within_window(hp, W_SYMBOL, now, w);
	if (cfg->health_ber > 0 && hp->gbps > 0 && sym / (hp->gbps * 1e9 * w) > cfg->health_ber) {
		snprintf(why, len, "BER %.1e over the last %u s (threshold %.0e): %.0f symbol errors",
			 sym / (hp->gbps * 1e9 * w), cfg->health_window_s, cfg->health_ber, sym);
		return true;
	}
	static const struct {
		int counter;
		size_t limit;	/* offsetof the threshold in fabricd_config */
		const char *what;
	} checks[] = {
		{ W_SYMBOL, offsetof(struct fabricd_config, health_symbol_errors), "symbol_errors" },
		{ W_DOWNED, offsetof(struct fabricd_config, health_link_downed), "flapping: link_downed" },
		{ W_RECOVERY, offsetof(struct fabricd_config, health_link_error_recovery), "link_error_recovery" },
		{ W_RCV, offsetof(struct fabricd_config, health_rcv_errors), "rcv_errors" },
		{ W_TRAPS, offsetof(struct fabricd_config, health_traps), "traps 129-131" },
	};
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		unsigned limit = *(const unsigned *)((const char *)cfg + checks[i].limit);
		double seen = within_window(hp, checks[i].counter, now, w);
		if (limit && seen >= limit) {
			snprintf(why, len, "%s %.0f in the last %u s (threshold %u)", checks[i].what, seen,
				 cfg->health_window_s, limit);
			return true;
		}
	}
	return false;
}

/* Nodes reachable from the SM's node in f, switches forwarding, with link (skip, skip_port) taken as absent. */
static size_t reachable(const struct fabric *f, const struct node *skip, uint8_t skip_port)
{
	size_t n = f->nnodes, head = 0, tail = 0, count = 0;
	const struct node **queue = calloc(n ? n : 1, sizeof(*queue));
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return SIZE_MAX;	/* cannot tell: callers treat it as "would cut" */
	}
	for (size_t i = 0; i < n && !tail; i++)
		if (f->nodes[i]->hops == 0) {
			queue[tail++] = f->nodes[i];
			seen[f->nodes[i]->index] = true;
		}
	while (head < tail) {
		const struct node *u = queue[head++];
		count++;
		if (u->type != NODE_SWITCH && head > 1)
			continue;	/* a CA does not forward */
		for (unsigned p = 1; p <= u->nports; p++) {
			const struct port *pt = &u->ports[p];
			if (!pt->remote || seen[pt->remote->index] || (u == skip && p == skip_port) ||
			    (pt->remote == skip && pt->remote_port == skip_port))
				continue;
			seen[pt->remote->index] = true;
			queue[tail++] = pt->remote;
		}
	}
	free(queue);
	free(seen);
	return count;
}

/* True if the link at (n, port) can go without cutting a node off; else why not. */
static bool can_lose(const struct fabric *f, const struct node *n, uint8_t port, char *why, size_t len)
{
	size_t all = reachable(f, NULL, 0), without = reachable(f, n, port);
	if (all != SIZE_MAX && without == all)
		return true;
	const struct port *pt = &n->ports[port];
	const struct node *cut = n->type == NODE_CA ? n : pt->remote && pt->remote->type == NODE_CA ? pt->remote : NULL;
	if (cut)
		snprintf(why, len, "it is %s's only link", cut->desc);
	else
		snprintf(why, len, "without it %zu node%s lose their path to the SM", all - without,
			 all - without == 1 ? "" : "s");
	return false;
}

static void on_phys_set(void *arg, const struct cfg_result *r)
{
	(void)arg;
	if (r->failed)
		log_warn("health: a PortInfo Set (port disable or enable) failed");
}

/* PortPhysicalState Disabled (3) or Polling (2) on the published port; false if it cannot be sent. */
static bool set_phys(struct health *h, uint64_t guid, uint8_t port, uint8_t phys)
{
	struct sm *sm = h->sm;
	const struct sm_snapshot *pub = sm_published(sm);
	const struct node *n = pub ? fabric_find_guid(&pub->fabric, guid) : NULL;
	if (!n || port < 1 || port > n->nports || !sm_node(n)->have_port_info[port])
		return false;
	struct cfg_params p = cfg_params_of_sm(sm, &pub->fabric, &pub->tables);
	ib_port_info_t pi;
	cfg_wanted_port_info(n, port, &p, &pi);
	ib_port_info_set_port_state(&pi, IB_LINK_NO_CHANGE);
	ib_port_info_set_port_phys_state(phys, &pi);
	struct batch *b = batch_new(sm->mp, on_phys_set, h);
	if (!b)
		return false;
	batch_set(b, n, port, IB_MAD_ATTR_PORT_INFO, port, &pi, sizeof(pi));
	batch_issued(b);
	return true;
}

/* An event and a log line: "NAME TEXT". */
static void event(struct health *h, const char *kind, const struct hport *hp, const char *text)
{
	char name[160], detail[400];
	port_name(h, hp->guid, hp->port, name, sizeof(name));
	snprintf(detail, sizeof(detail), "%s %s", name, text);
	log_warn("health: %s", detail);
	sm_event(h->sm, kind, detail);
}

static void became_unhealthy(struct health *h, struct hport *hp, double now)
{
	static const char *actions[] = { "reported", "to be isolated by the next sweep", "disabled" };
	unsigned action = h->sm->cfg.health_action;
	hp->unhealthy = true;
	hp->since = now;
	hp->act = ACT_NONE;
	char why[160];
	if (action == HEALTH_DISABLE) {
		const struct sm_snapshot *pub = sm_published(h->sm);
		const struct node *n = pub ? fabric_find_guid(&pub->fabric, hp->guid) : NULL;
		if (!n || hp->port > n->nports || !can_lose(&pub->fabric, n, hp->port, why, sizeof(why))) {
			hp->act = ACT_KEPT;
			snprintf(hp->why + strlen(hp->why), sizeof(hp->why) - strlen(hp->why), "; kept up: %s",
				 n ? why : "not in the fabric");
		} else if (set_phys(h, hp->guid, hp->port, 3)) {
			hp->act = ACT_DISABLED;
		}
	} else if (action == HEALTH_ISOLATE) {
		hp->act = ACT_ISOLATE;
		h->reroute = true;
	}
	char text[240];
	snprintf(text, sizeof(text), "unhealthy: %s; %s", hp->why, hp->act == ACT_KEPT ? "kept" : actions[action]);
	event(h, "port_unhealthy", hp, text);
}

static void became_healthy(struct health *h, struct hport *hp, const char *why)
{
	if (hp->act == ACT_ISOLATE || (hp->act == ACT_KEPT && h->sm->cfg.health_action == HEALTH_ISOLATE))
		h->reroute = true;	/* route over it again */
	else if (hp->act == ACT_DISABLED && !set_phys(h, hp->guid, hp->port, 2))
		log_warn("health: could not enable port 0x%016" PRIx64 "[%u] again", hp->guid, hp->port);
	hp->unhealthy = hp->hidden = false;
	hp->act = ACT_NONE;
	char text[200];
	snprintf(text, sizeof(text), "healthy again: %s", why);
	event(h, "port_healthy", hp, text);
}

static void build_rows(struct health *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n; i++)
		n += h->p[i].unhealthy;
	struct db_port_health *rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return;	/* the old rows stay */
	n = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct hport *hp = &h->p[i];
		if (!hp->unhealthy)
			continue;
		static const char *states[] = { [ACT_NONE] = "unhealthy", [ACT_ISOLATE] = "isolating",
						[ACT_DISABLED] = "disabled", [ACT_KEPT] = "kept" };
		struct db_port_health *r = &rows[n++];
		r->node_guid = hp->guid;
		r->port = hp->port;
		snprintf(r->state, sizeof(r->state), "%s", hp->act == ACT_ISOLATE && hp->hidden ? "isolated" : states[hp->act]);
		r->since = hp->since;
		snprintf(r->why, sizeof(r->why), "%s", hp->why);
	}
	free(h->rows);
	h->rows = rows;
	h->nrows = n;
}

/* One heavy sweep for every isolation that began or ended since the last. */
static void reroute_if_wanted(struct health *h)
{
	if (!h->reroute)
		return;
	h->reroute = false;
	h->sm->sched.want_sweep(h->sm);
}

void health_update(struct health *h, const struct perf_port *ports, size_t n, double now)
{
	const struct fabricd_config *cfg = &h->sm->cfg;
	double w = cfg->health_window_s;
	for (size_t i = 0; i < n; i++) {
		const struct perf_port *pp = &ports[i];
		if (!pp->fresh)
			continue;
		const uint64_t *d = pp->c.last.v;
		bool any = d[PC_SYMBOL_ERRORS] || d[PC_LINK_ERROR_RECOVERY] || d[PC_LINK_DOWNED] || d[PC_RCV_ERRORS];
		struct hport *hp = any ? port_of(h, pp->c.node_guid, pp->c.port)
				       : find_port(h, pp->c.node_guid, pp->c.port);
		if (!hp)
			continue;	/* never erred: nothing to keep */
		rotate(hp, now, w);
		hp->gbps = pp->gbps;
		hp->cur[W_SYMBOL] += d[PC_SYMBOL_ERRORS];
		hp->cur[W_RECOVERY] += d[PC_LINK_ERROR_RECOVERY];
		hp->cur[W_DOWNED] += d[PC_LINK_DOWNED];
		hp->cur[W_RCV] += d[PC_RCV_ERRORS];
	}
	for (size_t i = 0; i < h->n; i++) {
		struct hport *hp = &h->p[i];
		char why[160];
		rotate(hp, now, w);
		if (over(h, hp, now, why, sizeof(why))) {
			hp->last_over = now;
			if (!hp->unhealthy) {
				snprintf(hp->why, sizeof(hp->why), "%s", why);
				became_unhealthy(h, hp, now);
			}
		} else if (hp->unhealthy && now - hp->last_over >= cfg->health_clean_s) {
			char clean[64];
			snprintf(clean, sizeof(clean), "clean for %u s", cfg->health_clean_s);
			became_healthy(h, hp, clean);
		}
	}
	build_rows(h);
	reroute_if_wanted(h);
}

void health_trap(struct health *h, uint16_t lid, uint8_t port, unsigned trap)
{
	const struct sm_snapshot *pub = sm_published(h->sm);
	uint8_t at;
	const struct node *n = pub ? fabric_find_lid(&pub->fabric, lid, &at) : NULL;
	if (!n || port < 1 || port > n->nports)
		return;
	struct hport *hp = port_of(h, n->guid, port);
	if (!hp)
		return;
	rotate(hp, now_unix(), h->sm->cfg.health_window_s);
	hp->cur[W_TRAPS]++;
	log_debug("health: trap %u about %s[%u]", trap, n->desc, port);
}

void health_restore(struct health *h, const struct db_port_health *rows, size_t n, double now)
{
	static const struct {
		const char *state;
		enum act act;
	} states[] = { { "unhealthy", ACT_NONE }, { "isolating", ACT_ISOLATE }, { "isolated", ACT_ISOLATE },
		       { "disabled", ACT_DISABLED }, { "kept", ACT_KEPT } };
	for (size_t i = 0; i < n; i++) {
		struct hport *hp = port_of(h, rows[i].node_guid, rows[i].port);
		if (!hp)
			return;
		for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++)
			if (strcmp(rows[i].state, states[s].state) == 0)
				hp->act = states[s].act;
		hp->unhealthy = true;
		hp->since = rows[i].since;
		hp->last_over = now;	/* clean_s counts from this start */
		snprintf(hp->why, sizeof(hp->why), "%s", rows[i].why);
	}
	build_rows(h);
}

size_t health_isolated_count(const struct health *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n; i++)
		n += h->p[i].act == ACT_ISOLATE || (h->p[i].act == ACT_KEPT && h->sm->cfg.health_action == HEALTH_ISOLATE);
	return n;
}

size_t health_hide(struct health *h, struct fabric *f, struct health_hidden *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n && n < max; i++) {
		struct hport *hp = &h->p[i];
		bool wanted = hp->act == ACT_ISOLATE || (hp->act == ACT_KEPT && h->sm->cfg.health_action == HEALTH_ISOLATE);
		if (!hp->unhealthy || !wanted)
			continue;
		struct node *node = fabric_find_guid(f, hp->guid);
		if (!node || hp->port > node->nports || !node->ports[hp->port].remote) {
			hp->hidden = false;	/* the link is down anyway */
			continue;
		}
		char why[160];
		if (!can_lose(f, node, hp->port, why, sizeof(why))) {
			if (hp->act != ACT_KEPT) {
				hp->act = ACT_KEPT;
				snprintf(hp->why + strlen(hp->why), sizeof(hp->why) - strlen(hp->why), "; kept in the routing: %s",
					 why);
				char text[200];
				snprintf(text, sizeof(text), "stays in the routing: %s", why);
				event(h, "port_kept", hp, text);
			}
			hp->hidden = false;
			continue;
		}
		struct port *pt = &node->ports[hp->port];
		if (!hp->hidden || hp->act == ACT_KEPT)
			event(h, "port_isolated", hp, "isolated: the routing goes around it");
		out[n++] = (struct health_hidden){ node, pt->remote, hp->port, pt->remote_port };
		fabric_unlink(node, hp->port);
		hp->act = ACT_ISOLATE;
		hp->hidden = true;
	}
	build_rows(h);
	return n;
}

void health_unhide(const struct health_hidden *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fabric_link(l[i].a, l[i].pa, l[i].b, l[i].pb);
}

unsigned health_clear(struct health *h, uint64_t node_guid, unsigned port)
{
	unsigned cleared = 0;
	for (size_t i = 0; i < h->n; i++) {
		struct hport *hp = &h->p[i];
		if (!hp->unhealthy || (node_guid && (hp->guid != node_guid || (port && hp->port != port))))
			continue;
		memset(hp->cur, 0, sizeof(hp->cur));
		memset(hp->prev, 0, sizeof(hp->prev));
		became_healthy(h, hp, "cleared by fabricctl health clear");
		cleared++;
	}
	build_rows(h);
	reroute_if_wanted(h);
	return cleared;
}

const struct db_port_health *health_rows(const struct health *h, size_t *n)
{
	*n = h->nrows;
	return h->rows;
}
