/*
 * A whole heavy sweep (sm/sweep/sweep.c) over a fake MAD port: the
 * simulator of tests/common/smp_sim.h plays a 2-level radix-4 fat tree
 * (hosts offering ClientReregister), a real SQLite database takes the
 * sweep. Every SMP is recorded with the sweep's state when it was sent.
 *
 * - The phases run in the order of phases[]: discovery's Gets before any
 *   Set; then LFT blocks, SL-to-VL tables, P_Key tables, ports to ARMED,
 *   ports to ACTIVE; the sweep is stored; and only then, with the sweep
 *   published (the SA answers from it), the hosts' ports are asked to
 *   reregister (a first sweep as master).
 * - The scheduler hears one outcome: ok and published.
 *
 * A repair (a sweep given the switches that reported port changes) over a
 * 3-level radix-4 tree, through a sequence of failures, ends with what a
 * full sweep of the same fabric then finds: the same nodes and links, the
 * same LIDs and the same forwarding tables. It reads far fewer
 * attributes, and an answer lost on the way is asked for again:
 * - a leaf's up-link unlinked, then linked again;
 * - a core switch gone (every cable), then back: the repair discovers
 *   it anew through its neighbours; while the repair routes, the entries
 *   of the switch's LID are dropped already, while the switches take the
 *   new tables, the database takes them, and after each the switches
 *   (the LFT blocks set into them) and the database hold the published
 *   tables;
 * - a core switch gone, only one neighbour reporting it: the repair reads
 *   the ports facing it from its other neighbours first, finds them all
 *   down, and never asks the dead switch (on hardware each such read
 *   waits out every try's timeout); every neighbour's PortStateChange is
 *   cleared, so the next light sweep has nothing to repair again;
 * - a core switch gone unreported, the reporting switch reached through
 *   it: its read, retried only after the ports facing it, finds a way
 *   around, and the repair does not give way to a full discovery;
 * - a host's cable moved to another port of its switch: repaired;
 * - a switch's cable moved, met at its new place before its old one is
 *   read: the repair cannot vouch for its model and the sweep discovers
 *   the whole fabric.
 *
 * A change reported before a sweep counts (sm->reaction) once the
 * switches hold its tables: in that sweep, or the next one when its Sets
 * were lost.
 *
 * The table audit goes round the switches' LFT blocks and finds an entry
 * changed behind the sweep's back; a light sweep finds a switch whose
 * LinearFDBTop moved; either way the next sweep reads that switch back
 * alone and writes it again.
 *
 * On the degraded radix-8 tree of seed 18, L1 losing its first up-link:
 * the routes mended in place leave a transition step that no staging
 * proves, so the sweep routes afresh (and merges), whose transition is
 * proven, and programs that.
 *
 * On seed 8, with the broadcast group's tree held by the switches, the
 * loss of the switch above L14 is proven only without that tree: the
 * sweep clears it on every switch before the first LFT stage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sm/log.h"
#include "sm/sm.h"
#include "sm/smnode.h"
#include "sm/sweep/audit.h"
#include "sm/sweep/audit_run.h"
#include "sm/sweep/readback.h"
#include "sm/sweep/light.h"
#include "sm/sweep/reregister.h"
#include "sm/sweep/sweep.h"
#include "topology/fattree_gen.h"
#include "smp_sim.h"
#include "sim_port.h"

static struct sm sm;
static char db_path[64];

/* What went out, in order, and what the SM had done by then. */
static struct sent {
	uint8_t method;
	ib_net16_t attr;
	uint8_t state;		/* PortInfo Sets: the port state asked for */
	bool rereg;		/* PortInfo Sets: ClientReregister */
	bool published;		/* a sweep was published when it went out */
	unsigned stored;	/* sweeps in the database when it went out */
	bool routing;		/* the routing was running on its thread */
	bool storing;		/* the tables were being stored ahead on theirs */
	uint64_t to;		/* the GUID of the node it went to (0: none there) */
	size_t answered;	/* answers the sweep had been given when it went out */
} sent[QUEUE];
static size_t nsent, answered;
/* What each switch of the truth holds: the LFT blocks set into it, by truth node index. */
#define HELD_LIDS 512
static uint8_t held_lft[SIM_MAX_NODES][HELD_LIDS];
/* What each node's SL-to-VL maps hold, by truth node index and (input, output) port (a CA's: (port, port)). */
#define HELD_PORTS 17
static ib_slvl_table_t held_sl2vl[SIM_MAX_NODES][HELD_PORTS][HELD_PORTS];
/* ... and their P_Key tables, by port and block (PartitionCap 64: two blocks). */
#define HELD_PKEY_BLOCKS 2
static ib_pkey_table_t held_pkeys[SIM_MAX_NODES][HELD_PORTS][HELD_PKEY_BLOCKS];
/* Each switch's LinearFDBTop, as its last SwitchInfo Set left it (by truth node index): Gets answer it. */
static uint16_t held_top[SIM_MAX_NODES];
/*
 * The next answers lost: the first lose_times (1 unless set) to a Get of
 * lose_attr (modifier lose_mod, if not -1) about the node with this GUID
 * (0: none).
 */
static uint64_t lose_guid;
static unsigned lose_times = 1;
static ib_net16_t lose_attr;
static int64_t lose_mod = -1;
/*
 * The next Set of this attribute (0: none) lost on its way, to the node
 * with GUID lose_set_guid if not 0: the node never takes it, no answer comes.
 */
static ib_net16_t lose_set_attr;
static uint64_t lose_set_guid;
/*
 * With lose_set_all_sweep, every such Set to that node (the first lost's)
 * is lost until the sweep ends: a stage's LFT blocks are sent again to
 * the switch they were lost to, and those are lost too.
 */
static bool lose_set_all_sweep;
static uint64_t lost_set_to;	/* the GUID of the node it went to */
/* The switch with this GUID (0: none) reports a change once the sweep has had join_after answers. */
static uint64_t join_guid;
static size_t join_after;

static unsigned stored_sweeps(void)
{
	uint64_t bytes;
	unsigned sweeps = 0, events;
	assert_int_equal(db_size(sm.db, &bytes, &sweeps, &events), 0);
	return sweeps;
}

/* Where node n holds the SL-to-VL map an SMP with modifier mod that entered at port `at` is about; or NULL. */
static ib_slvl_table_t *held_map(const struct node *n, uint8_t at, uint32_t mod)
{
	unsigned in = n->type == NODE_SWITCH ? mod >> 8 & 0xff : at, out = n->type == NODE_SWITCH ? mod & 0xff : at;
	if (n->index >= SIM_MAX_NODES || in >= HELD_PORTS || out >= HELD_PORTS || (mod >> 16))
		return NULL;	/* (fabricd sends the optimized form only to switches that offer it, none here) */
	return &held_sl2vl[n->index][in][out];
}

/* Where node n holds the P_Key block an SMP with modifier mod that entered at port `at` is about; or NULL. */
static ib_pkey_table_t *held_keys(const struct node *n, uint8_t at, uint32_t mod)
{
	unsigned port = n->type == NODE_SWITCH ? mod >> 16 : at, block = mod & 0xffff;
	if (n->index >= SIM_MAX_NODES || port >= HELD_PORTS || block >= HELD_PKEY_BLOCKS)
		return NULL;
	return &held_pkeys[n->index][port][block];
}

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	struct sent *s = &sent[nsent++];
	*s = (struct sent){ .method = method, .attr = attr, .answered = answered, .published = sm_published(&sm) != NULL,
			    .stored = stored_sweeps(), .routing = sm.computing && !sm.db_busy,	/* not the store's thread */
			    .storing = sm.computing && sm.db_busy };
	uint8_t at;
	const struct node *to = follow(path, hops, &at);
	s->to = to ? to->guid : 0;
	if (method == IB_MAD_METHOD_SET && attr == lose_set_attr && (!lose_set_guid || lose_set_guid == s->to)) {
		lose_set_guid = lose_set_all_sweep ? s->to : 0;
		lose_set_attr = lose_set_all_sweep ? attr : 0;
		lost_set_to = s->to;
		sim_queue(IB_MAD_METHOD_GET, attr, mod, path, 0, NULL, 0, done, ctx);	/* an answer slot, never given */
		queue[queued - 1].status = MAD_TIMEOUT;
		return 0;
	}
	if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_LIN_FWD_TBL && to && to->index < SIM_MAX_NODES &&
	    (mod + 1) * 64 <= HELD_LIDS)
		memcpy(&held_lft[to->index][mod * 64], data, 64);
	if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_SWITCH_INFO && to && to->index < SIM_MAX_NODES)
		held_top[to->index] = cl_ntoh16(((const ib_switch_info_t *)data)->lin_top);
	ib_slvl_table_t *map = to && attr == IB_MAD_ATTR_SLVL_TABLE ? held_map(to, at, mod) : NULL;
	if (method == IB_MAD_METHOD_SET && map)
		memcpy(map, data, sizeof(*map));
	ib_pkey_table_t *keys = to && attr == IB_MAD_ATTR_P_KEY_TABLE ? held_keys(to, at, mod) : NULL;
	if (method == IB_MAD_METHOD_SET && keys)
		memcpy(keys, data, sizeof(*keys));
	if (method == IB_MAD_METHOD_SET && attr == IB_MAD_ATTR_PORT_INFO) {
		ib_port_info_t pi;
		memcpy(&pi, data, sizeof(pi));
		s->state = ib_port_info_get_port_state(&pi);
		s->rereg = ib_port_info_get_client_rereg(&pi);
	}
	sim_queue(method, attr, mod, path, hops, data, len, done, ctx);
	struct answer *a = &queue[queued - 1];
	if (method == IB_MAD_METHOD_GET && !a->status && to && to->index < SIM_MAX_NODES) {	/* the tables held */
		if (attr == IB_MAD_ATTR_SWITCH_INFO)
			((ib_switch_info_t *)a->reply.data)->lin_top = cl_hton16(held_top[to->index]);
		if (attr == IB_MAD_ATTR_LIN_FWD_TBL && (mod + 1) * 64 <= HELD_LIDS)
			memcpy(a->reply.data, &held_lft[to->index][mod * 64], 64);
		if (map)
			memcpy(a->reply.data, map, sizeof(*map));
		if (keys)
			memcpy(a->reply.data, keys, sizeof(*keys));
	}
	uint8_t in;
	const struct node *n = lose_guid && method == IB_MAD_METHOD_GET && attr == lose_attr ? follow(path, hops, &in)
											       : NULL;
	if (n && n->guid == lose_guid && (lose_mod < 0 || lose_mod == mod)) {	/* the answer is lost on its way */
		queue[queued - 1].status = MAD_TIMEOUT;
		if (--lose_times == 0) {
			lose_guid = 0;
			lose_times = 1;
		}
	}
	return 0;
}

static struct sweep_outcome outcome;
static unsigned outcomes;

static void on_swept(struct sm *s, const struct sweep_outcome *o)
{
	outcome = *o;
	outcomes++;
}

/* Heavy sweeps the sweeps asked for (sm->sched.want_sweep). */
static unsigned sweeps_wanted;

static void want_sweep(struct sm *s)
{
	(void)s;
	sweeps_wanted++;
}

static int setup_tree(const struct fattree_spec *spec)
{
	char err[DB_ERR_LEN];
	assert_int_equal(fattree_generate(spec, &truth, err), 0);
	assert_true(truth.nnodes <= SIM_MAX_NODES);
	memset(state_change, 0, sizeof(state_change));
	memset(no_client_rereg, 0, sizeof(no_client_rereg));
	memset(held_lft, 0, sizeof(held_lft));
	memset(held_top, 0, sizeof(held_top));
	memset(held_sl2vl, 0, sizeof(held_sl2vl));
	memset(held_pkeys, 0, sizeof(held_pkeys));
	memset(&sm, 0, sizeof(sm));
	config_defaults(&sm.cfg);
	snprintf(db_path, sizeof(db_path), "/tmp/fabricd-test-sweep.%d.db", (int)getpid());
	unlink(db_path);
	sm.db = db_open(db_path, DB_READ_WRITE, err);
	assert_non_null(sm.db);
	sm.loop = evl_new();
	assert_non_null(sm.loop);
	sm.mp = (struct mad_port *)&sm;	/* never dereferenced: every mad_ call the sweep makes is wrapped */
	assert_int_equal(mkeys_init(&sm.mkeys, &sm.cfg.mkey, NULL, 0), 0);
	assert_int_equal(ha_init(&sm), 0);
	assert_int_equal(mcast_init(&sm.mcast, sm.cfg.subnet_prefix), 0);
	sm.sched.want_sweep = want_sweep;
	sweeps_wanted = 0;
	return 0;
}

static int setup(void **state)
{
	return setup_tree(&(struct fattree_spec){ .levels = 2, .radix = 4 });
}

static int setup_3_levels(void **state)
{
	return setup_tree(&(struct fattree_spec){ .levels = 3, .radix = 4 });
}

static int teardown(void **state)
{
	ha_free(&sm);
	mcast_free(&sm.mcast);
	sm_snapshot_free(sm.pub);
	routing_memo_free(&sm.route_memo);
	mkeys_free(&sm.mkeys);
	db_close(sm.db);
	evl_free(sm.loop);
	unlink(db_path);
	fabric_free(&truth);
	return 0;
}

/* The first SMP sent with attribute attr (and, for PortInfo Sets, state and rereg), or nsent. */
static size_t first(uint8_t method, ib_net16_t attr, uint8_t state, bool rereg)
{
	for (size_t i = 0; i < nsent; i++)
		if (sent[i].method == method && sent[i].attr == attr &&
		    (attr != IB_MAD_ATTR_PORT_INFO || method != IB_MAD_METHOD_SET ||
		     (sent[i].state == state && sent[i].rereg == rereg)))
			return i;
	return nsent;
}

static void phases_go_in_order_and_hosts_reregister_after_the_sweep_is_published(void **state)
{
	sweep_start(&sm, NULL, 0, on_swept);
	for (size_t next = 0; outcomes == 0;) {	/* every answer, in the order asked */
		if (next == queued) {	/* nothing asked: the routing's thread is to be back */
			assert_int_equal(evl_run_once(sm.loop), 0);
			continue;
		}
		struct answer a = queue[next++];
		answered++;
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
	}
	assert_int_equal(outcomes, 1);
	assert_true(outcome.ok);
	assert_true(outcome.published);
	assert_non_null(sm_published(&sm));
	assert_int_equal(sm_published(&sm)->fabric.nnodes, truth.nnodes);

	size_t first_set = nsent;
	for (size_t i = 0; i < nsent && first_set == nsent; i++)
		if (sent[i].method == IB_MAD_METHOD_SET)
			first_set = i;
	for (size_t i = first_set; i < nsent; i++)	/* discovery is over before anything is set */
		assert_false(sent[i].method == IB_MAD_METHOD_GET && sent[i].attr == IB_MAD_ATTR_NODE_INFO);
	size_t lft = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 0, false);
	size_t sl2vl = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, 0, false);
	size_t pkeys = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_P_KEY_TABLE, 0, false);
	size_t armed = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, IB_LINK_ARMED, false);
	size_t active = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, IB_LINK_ACTIVE, false);
	size_t rereg = first(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, IB_LINK_NO_CHANGE, true);
	assert_true(first_set <= lft);
	assert_true(lft < sl2vl);
	assert_true(sl2vl < pkeys);
	assert_true(pkeys < armed);
	assert_true(armed < active);
	assert_true(active < rereg);
	assert_true(rereg < nsent);
	assert_false(sent[active].published);	/* published only after the store */
	assert_int_equal(sent[active].stored, 0);
	assert_true(sent[rereg].published);
	assert_int_equal(sent[rereg].stored, 1);
	for (size_t i = rereg; i < nsent; i++)	/* the last phase: nothing but reregistration after it starts */
		assert_true(sent[i].rereg);
}

/* Runs a sweep (a repair of the switches named, or full) to its end, published or not, answers in order. */
static void sweep_to_end(const uint64_t *repair, size_t n)
{
	unsigned before = outcomes;
	queued = 0;
	nsent = 0;
	answered = 0;
	sweep_start(&sm, repair, n, on_swept);
	for (size_t next = 0; outcomes == before;) {
		if (next == queued) {	/* nothing asked: the routing's thread is to be back */
			assert_int_equal(evl_run_once(sm.loop), 0);
			continue;
		}
		struct answer a = queue[next++];
		answered++;
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
		if (join_guid && answered == join_after) {	/* the repair still reads: it takes the switch */
			assert_true(sweep_repair_join(&sm, join_guid));
			join_guid = 0;
		}
	}
	assert_int_equal(outcomes, before + 1);
	assert_int_equal(join_guid, 0);
	if (lose_set_all_sweep && lose_set_guid) {	/* the loss lasted this sweep */
		lose_set_attr = 0;
		lose_set_guid = 0;
		lose_set_all_sweep = false;
	}
}

/* Runs a sweep (a repair of the switches named, or full) to its end, answers in order; returns its Gets. */
static size_t sweep(const uint64_t *repair, size_t n)
{
	sweep_to_end(repair, n);
	assert_true(outcome.published);
	size_t gets = 0;
	for (size_t i = 0; i < nsent; i++)
		gets += sent[i].method == IB_MAD_METHOD_GET;
	return gets;
}

/* The published sweep's links, LIDs and tables, by GUID, kept to compare with another sweep's. */
struct picture {
	struct fabric f;
	struct routing_tables t;
};

static void take(struct picture *p)
{
	const struct sm_snapshot *pub = sm_published(&sm);
	assert_int_equal(fabric_copy(&p->f, &pub->fabric), 0);
	assert_int_equal(routing_tables_alloc(&p->t, &p->f, pub->tables.max_lid), 0);
	for (size_t i = 0; i < p->f.nnodes; i++)
		if (p->t.lft[i])
			memcpy(p->t.lft[i], pub->tables.lft[i], pub->tables.max_lid + 1u);
}

static void drop(struct picture *p)
{
	routing_tables_free(&p->t);
	fabric_free(&p->f);
}

/* The published sweep is the picture: every node, link, LID and LFT entry alike. */
static void same_as(const struct picture *p)
{
	const struct sm_snapshot *pub = sm_published(&sm);
	const struct fabric *f = &pub->fabric;
	assert_int_equal(f->nnodes, p->f.nnodes);
	assert_int_equal(pub->tables.max_lid, p->t.max_lid);
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i], *o = p->f.nodes[i];
		assert_int_equal(n->guid, o->guid);
		for (unsigned port = 0; port <= n->nports; port++) {
			const struct port *a = &n->ports[port], *b = &o->ports[port];
			assert_int_equal(a->lid, b->lid);
			assert_int_equal(a->remote ? a->remote->guid : 0, b->remote ? b->remote->guid : 0);
			assert_int_equal(a->remote_port, b->remote_port);
		}
		if (n->type == NODE_SWITCH)
			assert_memory_equal(pub->tables.lft[i], p->t.lft[i], p->t.max_lid + 1u);
	}
}

/* Every switch of the truth the published sweep has holds its table (LIDs 0..max), as the LFT Sets left it. */
static void switches_hold_published(void)
{
	const struct sm_snapshot *pub = sm_published(&sm);
	assert_true(pub->tables.max_lid < HELD_LIDS);
	for (size_t i = 0; i < pub->fabric.nnodes; i++) {
		const struct node *n = pub->fabric.nodes[i], *t = fabric_find_guid(&truth, n->guid);
		if (n->type == NODE_SWITCH && t)
			assert_memory_equal(held_lft[t->index], pub->tables.lft[i], pub->tables.max_lid + 1u);
	}
}

enum when { ANY_TIME, WHILE_ROUTING, WHILE_STORING };

/* LFT Sets of the last sweep (those sent while its routing ran, or while its tables were stored ahead). */
static size_t lft_sets(enum when w)
{
	size_t n = 0;
	for (size_t i = 0; i < nsent; i++)
		n += sent[i].method == IB_MAD_METHOD_SET && sent[i].attr == IB_MAD_ATTR_LIN_FWD_TBL &&
		     (w == ANY_TIME || (w == WHILE_ROUTING ? sent[i].routing : sent[i].storing));
	return n;
}

/* The database holds the published sweep's tables, switch by switch. */
static void stored_is_published(void)
{
	const struct sm_snapshot *pub = sm_published(&sm);
	struct fabric f;
	struct routing_tables t;
	assert_int_equal(db_load_fabric(sm.db, &f), 0);
	assert_int_equal(db_load_tables(sm.db, &f, &t), 0);
	assert_int_equal(t.max_lid, pub->tables.max_lid);
	for (size_t i = 0; i < pub->fabric.nnodes; i++) {
		const struct node *n = pub->fabric.nodes[i], *o = fabric_find_guid(&f, n->guid);
		assert_non_null(o);
		if (n->type == NODE_SWITCH)
			assert_memory_equal(t.lft[o->index], pub->tables.lft[i], t.max_lid + 1u);
	}
	assert_int_equal(f.nnodes, pub->fabric.nnodes);
	routing_tables_free(&t);
	fabric_free(&f);
}

/*
 * A repair of the switches named, then a full sweep: both publish the
 * same picture. The repair's Gets are returned.
 */
static size_t repair_matches_a_full_sweep(const uint64_t *repair, size_t n)
{
	size_t gets = sweep(repair, n);
	assert_true(outcome.ok);
	struct picture after_repair;
	take(&after_repair);
	sweep(NULL, 0);
	assert_true(outcome.ok);
	same_as(&after_repair);
	drop(&after_repair);
	return gets;
}

/* Links a and b in the truth again: the ports train to INIT, as a new link does. */
static void plug(struct node *a, uint8_t pa, struct node *b, uint8_t pb)
{
	assert_int_equal(fabric_link(a, pa, b, pb), 0);
	a->ports[pa].state = b->ports[pb].state = 0;
}

static void repairs_end_where_a_full_sweep_does(void **state)
{
	sm.cfg.full_sweep_interval = 0;
	size_t full_gets = sweep(NULL, 0);	/* the first */
	struct node *core = NULL, *leaf = NULL;
	for (size_t i = 0; i < truth.nnodes; i++) {
		struct node *n = truth.nodes[i];
		if (n->type == NODE_SWITCH && !core && n->ports[1].remote && n->ports[1].remote->type == NODE_SWITCH &&
		    !strncmp(n->desc, "C", 1))
			core = n;
		if (n->type == NODE_SWITCH && !leaf && !strncmp(n->desc, "L", 1))
			leaf = n;
	}
	assert_non_null(core);
	assert_non_null(leaf);

	/* a leaf's up-link: both ends report it */
	uint8_t up = leaf->nports;
	struct node *agg = leaf->ports[up].remote;
	uint8_t agg_port = leaf->ports[up].remote_port;
	assert_non_null(agg);
	uint64_t ends[2] = { leaf->guid, agg->guid };
	fabric_unlink(leaf, up);
	size_t gets = repair_matches_a_full_sweep(ends, 2);
	assert_true(gets * 5 < full_gets);
	plug(leaf, up, agg, agg_port);
	repair_matches_a_full_sweep(ends, 2);

	/* the same, the far end's first PortInfo answer lost: asked again, same result */
	fabric_unlink(leaf, up);
	lose_guid = agg->guid;
	lose_attr = IB_MAD_ATTR_PORT_INFO;
	repair_matches_a_full_sweep(ends, 2);
	assert_int_equal(lose_guid, 0);
	plug(leaf, up, agg, agg_port);
	repair_matches_a_full_sweep(ends, 2);

	/* a core switch gone: its neighbours report it */
	struct { struct node *n; uint8_t port; } was[FABRIC_MAX_PORTS + 1];
	uint64_t neighbours[FABRIC_MAX_PORTS];
	size_t nn = 0;
	for (unsigned p = 1; p <= core->nports; p++) {
		was[p].n = core->ports[p].remote;
		was[p].port = core->ports[p].remote_port;
		if (was[p].n)
			neighbours[nn++] = was[p].n->guid;
		fabric_unlink(core, (uint8_t)p);
	}
	sweep(neighbours, nn);
	assert_null(fabric_find_guid(&sm_published(&sm)->fabric, core->guid));
	/* the entries of its LIDs dropped while the routing ran, and the switches hold the new tables */
	assert_true(lft_sets(WHILE_ROUTING) > 0);
	assert_true(lft_sets(WHILE_ROUTING) < lft_sets(ANY_TIME));
	switches_hold_published();
	/* the new tables were stored while the switches took them; the database holds them */
	assert_true(lft_sets(WHILE_STORING) > 0);
	stored_is_published();
	for (unsigned p = 1; p <= core->nports; p++)
		if (was[p].n)
			plug(core, (uint8_t)p, was[p].n, was[p].port);
	sweep(NULL, 0);
	struct picture full;
	take(&full);
	for (unsigned p = 1; p <= core->nports; p++)	/* gone again, and back again, repaired */
		fabric_unlink(core, (uint8_t)p);
	sweep(neighbours, nn);
	assert_true(outcome.ok);
	for (unsigned p = 1; p <= core->nports; p++)
		if (was[p].n)
			plug(core, (uint8_t)p, was[p].n, was[p].port);
	sweep(neighbours, nn);
	assert_true(outcome.ok);
	assert_non_null(fabric_find_guid(&sm_published(&sm)->fabric, core->guid));
	switches_hold_published();
	stored_is_published();
	same_as(&full);
	drop(&full);
}

/* Reads of the last sweep that no node answered (on hardware: each waited out its timeouts). */
static size_t unanswered(void)
{
	size_t n = 0;
	for (size_t i = 0; i < queued; i++)
		n += queue[i].status != 0;
	return n;
}

static void a_dead_switch_is_not_asked(void **state)
{
	sm.cfg.full_sweep_interval = 0;
	sweep(NULL, 0);
	struct node *core = NULL;
	for (size_t i = 0; i < truth.nnodes && !core; i++)
		if (truth.nodes[i]->type == NODE_SWITCH && truth.nodes[i]->desc[0] == 'C' && truth.nodes[i]->ports[1].remote)
			core = truth.nodes[i];
	assert_non_null(core);
	uint64_t reporter = core->ports[1].remote->guid, gone = core->guid;
	struct node *neighbour[FABRIC_MAX_PORTS + 1];
	size_t nn = 0;
	for (unsigned p = 1; p <= core->nports; p++) {
		if ((neighbour[nn] = core->ports[p].remote))
			state_change[neighbour[nn++]->index] = true;	/* each lost a port */
		fabric_unlink(core, (uint8_t)p);
	}
	sweep(&reporter, 1);
	assert_true(outcome.ok);
	assert_int_equal(unanswered(), 0);
	for (size_t i = 0; i < nn; i++)	/* cleared: the next light sweep finds nothing to repair again */
		assert_false(state_change[neighbour[i]->index]);
	assert_null(fabric_find_guid(&sm_published(&sm)->fabric, gone));
	struct picture after_repair;
	take(&after_repair);
	sweep(NULL, 0);
	same_as(&after_repair);
	drop(&after_repair);
}

/* Whether the SM's directed route to the node with this GUID (as the published model has it) crosses via. */
static bool route_crosses(uint64_t guid, const struct node *via)
{
	const struct node *n = fabric_find_guid(&sm_published(&sm)->fabric, guid);
	const struct node *at = sim_sm_node();
	for (unsigned h = 1; n && h <= n->hops; h++) {
		at = at->ports[n->path[h]].remote;
		if (at == via && h < n->hops)
			return true;
	}
	return false;
}

/*
 * A core dies unreported, and the switch that reports (a neighbour) is
 * one the model reaches through it: its read goes unanswered, is retried
 * only after the ports facing it and then the core are read, and the
 * repair ends where a full sweep does instead of giving way to one.
 */
static void a_read_through_a_dead_switch_is_retried_around_it(void **state)
{
	sm.cfg.full_sweep_interval = 0;
	size_t full_gets = sweep(NULL, 0);
	struct node *core = NULL, *reporter = NULL;
	for (size_t i = 0; i < truth.nnodes && !reporter; i++) {
		struct node *c = truth.nodes[i];
		for (unsigned p = 1; c->desc[0] == 'C' && p <= c->nports && !reporter; p++)
			if (c->ports[p].remote && route_crosses(c->ports[p].remote->guid, c)) {
				core = c;
				reporter = c->ports[p].remote;
			}
	}
	assert_non_null(reporter);	/* some aggregation switch is reached through a core */
	uint64_t guid = reporter->guid, gone = core->guid;
	for (unsigned p = 1; p <= core->nports; p++)
		fabric_unlink(core, (uint8_t)p);
	struct picture after_repair;
	assert_true(sweep(&guid, 1) * 5 < full_gets);	/* repaired, not discovered in full */
	assert_true(unanswered() > 0);	/* the reads through the core went unanswered */
	assert_true(outcome.ok);
	assert_null(fabric_find_guid(&sm_published(&sm)->fabric, gone));
	take(&after_repair);
	sweep(NULL, 0);
	same_as(&after_repair);
	drop(&after_repair);
}

/* A leaf switch of the truth that the SM's CA (the first CA) is not on. */
static struct node *far_leaf(void)
{
	const struct node *sm_ca = NULL;
	for (size_t i = 0; i < truth.nnodes && !sm_ca; i++)
		if (truth.nodes[i]->type == NODE_CA)
			sm_ca = truth.nodes[i];
	for (size_t i = 0; i < truth.nnodes; i++)
		if (truth.nodes[i]->desc[0] == 'L' && sm_ca->ports[1].remote != truth.nodes[i])
			return truth.nodes[i];
	fail();
	return NULL;
}

/*
 * Two leaves each lose a host's cable; the second reports it while the
 * repair of the first still reads the fabric: it joins that repair (the
 * scheduler then starts no repair of its own), which reads it, drops its
 * host too and ends where a full sweep does. A GUID the model has no
 * switch for is refused, and so is anything once no repair reads.
 */
static void a_switch_that_reports_while_a_repair_reads_joins_it(void **state)
{
	sm.cfg.full_sweep_interval = 0;
	size_t full_gets = sweep(NULL, 0);
	struct node *first = far_leaf(), *second = NULL, *host[2];
	for (size_t i = 0; i < truth.nnodes && !second; i++) {
		struct node *n = truth.nodes[i];
		if (n->desc[0] == 'L' && n != first && n != sim_sm_node()->ports[1].remote)
			second = n;
	}
	assert_non_null(second);
	host[0] = first->ports[1].remote;
	host[1] = second->ports[1].remote;
	assert_true(host[0] && host[0]->type == NODE_CA && host[1] && host[1]->type == NODE_CA);
	fabric_unlink(first, 1);
	fabric_unlink(second, 1);
	assert_false(sweep_repair_join(&sm, second->guid));	/* no repair reads */
	join_guid = second->guid;
	join_after = 3;
	uint64_t reporter = first->guid;
	assert_true(sweep(&reporter, 1) * 5 < full_gets);
	assert_true(outcome.ok);
	const struct fabric *pub = &sm_published(&sm)->fabric;
	assert_null(fabric_find_guid(pub, host[0]->guid));
	assert_null(fabric_find_guid(pub, host[1]->guid));	/* read by the repair it joined */
	assert_null(fabric_find_guid(pub, second->guid)->ports[1].remote);
	assert_null(sm.sched.reading);
	assert_false(sweep_repair_join(&sm, second->guid));
	struct picture after_repair;
	take(&after_repair);
	sweep(NULL, 0);
	same_as(&after_repair);
	drop(&after_repair);
}

static void moved_cables_are_repaired_or_discovered_in_full(void **state)
{
	sm.cfg.full_sweep_interval = 0;
	size_t full_gets = sweep(NULL, 0);
	struct node *leaf = far_leaf();
	uint64_t guid = leaf->guid;

	/* the host on the leaf's port 1 moves to port 2, whose host is unplugged: a retrained port, repaired */
	struct node *h1 = leaf->ports[1].remote, *h2 = leaf->ports[2].remote;
	uint8_t p1 = leaf->ports[1].remote_port;
	fabric_unlink(leaf, 1);
	fabric_unlink(leaf, 2);
	plug(leaf, 2, h1, p1);
	assert_true(repair_matches_a_full_sweep(&guid, 1) * 5 < full_gets);
	const struct fabric *f = &sm_published(&sm)->fabric;
	assert_int_equal(fabric_find_guid(f, leaf->guid)->ports[2].remote->guid, h1->guid);
	assert_null(fabric_find_guid(f, h2->guid));

	/* the leaf's up-link moves to port 1 (its host unplugged): its old port found down, then the new one up */
	uint8_t up = leaf->nports;
	struct node *agg = leaf->ports[up].remote;
	uint8_t agg_port = leaf->ports[up].remote_port;
	fabric_unlink(leaf, up);
	fabric_unlink(leaf, 2);
	plug(leaf, 1, agg, agg_port);
	repair_matches_a_full_sweep(&guid, 1);
	f = &sm_published(&sm)->fabric;
	const struct node *l = fabric_find_guid(f, leaf->guid);
	assert_int_equal(l->ports[1].remote->guid, agg->guid);
	assert_null(l->ports[up].remote);

	/*
	 * Back to the up-link, but the old port's answer is lost: the switch
	 * behind it answers at its new place while the model still has it at
	 * the old. The repair cannot say which is true: the whole fabric is read.
	 */
	fabric_unlink(leaf, 1);
	plug(leaf, up, agg, agg_port);
	lose_guid = leaf->guid;
	lose_attr = IB_MAD_ATTR_PORT_INFO;
	lose_mod = 1;
	assert_true(sweep(&guid, 1) >= full_gets / 2);
	assert_true(outcome.ok);
	assert_int_equal(lose_guid, 0);
	lose_mod = -1;
	l = fabric_find_guid(&sm_published(&sm)->fabric, leaf->guid);
	assert_int_equal(l->ports[up].remote->guid, agg->guid);
	assert_null(l->ports[1].remote);
}

/* The last "transition" event's detail, into arg (700 bytes). */
static void transition_detail(void *arg, const struct db_event *ev)
{
	if (strcmp(ev->kind, "transition") == 0)
		snprintf(arg, 700, "%s", ev->detail);
}

/* Whether the last "transition" event stored says every step was proven. */
static void last_transition(void *arg, const struct db_event *ev)
{
	if (strcmp(ev->kind, "transition") == 0)
		*(bool *)arg = strstr(ev->detail, "proven deadlock-free") != NULL;
}

/* The log goes to a file of this test's own, empty: what a sweep logs can be looked for there. */
static void log_to_fresh_file(char *path, size_t len)
{
	snprintf(path, len, "/tmp/fabricd-test-sweep.%d.log", (int)getpid());
	unlink(path);
	assert_int_equal(log_set_file(path), 0);
}

static bool file_has(const char *path, const char *text)
{
	char line[1024];
	bool found = false;
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	while (!found && fgets(line, sizeof(line), fp))
		found = strstr(line, text) != NULL;
	fclose(fp);
	return found;
}

/*
 * A host whose port does not offer ClientReregister is not asked (every
 * other active host port is), and the sweep says how many such ports
 * keep their cached PathRecords.
 */
static void hosts_without_client_reregister_are_counted_not_asked(void **state)
{
	char log_path[64];
	log_to_fresh_file(log_path, sizeof(log_path));
	struct node *host = NULL;
	size_t hosts = 0;
	for (size_t i = 0; i < truth.nnodes; i++)
		if (truth.nodes[i]->type == NODE_CA) {
			host = host ? host : truth.nodes[i];
			hosts++;
		}
	assert_non_null(host);
	no_client_rereg[host->index] = true;
	sweep(NULL, 0);
	size_t asked = 0;
	for (size_t i = 0; i < nsent; i++)
		if (sent[i].method == IB_MAD_METHOD_SET && sent[i].attr == IB_MAD_ATTR_PORT_INFO && sent[i].rereg) {
			asked++;
			assert_true(sent[i].to != host->guid);
		}
	assert_int_equal(asked, hosts - 1);
	assert_int_equal(rereg_unable(&sm_published(&sm)->fabric), 1);
	assert_true(file_has(log_path, "first sweep as master; 1 active host port does not offer ClientReregister and "
			     "keeps its cached PathRecords"));
	unlink(log_path);
}

static void an_unproven_mend_is_routed_afresh(void **state)
{
	char log_path[64];
	log_to_fresh_file(log_path, sizeof(log_path));
	sweep(NULL, 0);
	struct node *leaf = fabric_find_desc(&truth, "L1");
	uint8_t up = 1;
	while (!leaf->ports[up].remote || leaf->ports[up].remote->type != NODE_SWITCH)
		up++;
	uint64_t ends[2] = { leaf->guid, leaf->ports[up].remote->guid };
	fabric_unlink(leaf, up);
	sweep(ends, 2);
	assert_true(outcome.ok);
	bool proven = false;
	assert_int_equal(db_each_event(sm.db, 0, last_transition, &proven), 0);
	assert_true(file_has(log_path, "the routes mended in place change in"));
	assert_true(file_has(log_path, "routing afresh"));
	assert_true(proven);
	unlink(log_path);
}

/* The last sweep's SMPs of method and attr: how many, and how many went to nodes other than a and b. */
static size_t sent_of(uint8_t method, ib_net16_t attr, uint64_t a, uint64_t b, size_t *elsewhere)
{
	size_t n = 0;
	*elsewhere = 0;
	for (size_t i = 0; i < nsent; i++)
		if (sent[i].method == method && sent[i].attr == attr) {
			n++;
			*elsewhere += sent[i].to != a && sent[i].to != b;
		}
	return n;
}

/* The last sweep's Sets of attr, as sent_of counts them. */
static size_t sets_of(ib_net16_t attr, uint64_t a, uint64_t b, size_t *elsewhere)
{
	return sent_of(IB_MAD_METHOD_SET, attr, a, b, elsewhere);
}

/*
 * A sweep whose LFT Set is lost on its way is published, but the switch
 * is no longer known to hold the published table: the next sweep reads
 * it back (that switch's, no other) and plans its transition from what
 * the switches hold (every mixture
 * proven, on the SLs the SA published), and leaves them holding its
 * tables (a read that lost its answer is asked again); before, such a
 * sweep programmed in one stage. A repair that
 * loses an LFT Set of its first stage (of three) stops there, unpublished,
 * and asks for a full sweep: the switches hold a mixture the first step's
 * proof covers, and the full sweep's plan from what they hold proves out.
 * (Going on with the later stages left L0[4] -> A1[1] -> L0[4] looping.)
 */
static void a_lost_set_is_planned_from_the_tables_read_back(void **state)
{
	char log_path[64];
	log_to_fresh_file(log_path, sizeof(log_path));
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	lose_set_all_sweep = true;	/* and both sendings again */
	sweep(NULL, 0);
	assert_false(outcome.ok);
	assert_int_equal(lose_set_attr, 0);
	assert_false(sm.last_sweep_ok);
	lose_guid = lost_set_to;	/* the first Get of its table loses its answer: asked again */
	lose_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	sweep(NULL, 0);
	assert_int_equal(lose_guid, 0);
	assert_true(outcome.ok);
	size_t elsewhere;	/* read back: only the switch the Set was lost to; the others hold the published tables */
	assert_true(sent_of(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, lost_set_to, lost_set_to, &elsewhere) > 0);
	assert_int_equal(elsewhere, 0);
	assert_int_equal(lft_sets(ANY_TIME), 1);	/* the lost block, no other */
	assert_true(file_has(log_path, "1 switches change; every mixture of old and new tables (on the old SLs, then "
				       "the new tables on old and new SLs) proven deadlock-free in 1 stage (from the "
				       "tables read back from the switches)"));
	bool proven = false;
	assert_int_equal(db_each_event(sm.db, 0, last_transition, &proven), 0);
	assert_true(proven);
	switches_hold_published();

	struct node *leaf = fabric_find_desc(&truth, "L1");
	uint8_t up = leaf->nports;
	struct node *agg = leaf->ports[up].remote;
	uint64_t ends[2] = { leaf->guid, agg->guid };
	fabric_unlink(leaf, up);
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	lose_set_all_sweep = true;	/* and both sendings again */
	sweep_to_end(ends, 2);
	assert_false(outcome.ok);
	assert_false(outcome.published);
	assert_int_equal(sweeps_wanted, 1);
	assert_true(file_has(log_path, "1 LFT Sets of stage 1 of 3 lost: the transition stops there"));
	size_t unsure = sm.lft_unsure.n;
	assert_true(unsure > 0);
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_false(file_has(log_path, "NOT proven"));
	switches_hold_published();
	/* it read back only the switches the repair meant to change, and wrote no VL table */
	size_t read_from = sent_of(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, 0, 0, &elsewhere);
	assert_int_equal(read_from, unsure);	/* one block each (36 LIDs) */
	assert_true(unsure < 20);		/* of the 20 switches */
	assert_int_equal(sets_of(IB_MAD_ATTR_SLVL_TABLE, 0, 0, &elsewhere), 0);
	assert_int_equal(sm.lft_unsure.n, 0);
	unlink(log_path);
}

/*
 * VL tables go where a sweep cannot vouch for them, and nowhere else: a
 * repair after a link came back writes those of the two ports it joins
 * (never written since they came up: OpenSM rewrites such a port too),
 * none elsewhere; after a sweep that lost an SL-to-VL Set to a node, the next
 * sweep writes that node's whole (and the P_Key tables of the hosts it
 * faces) and leaves the others (before, any lost Set had every node's VL
 * and P_Key tables written again: 7 million Sets at 27,648 hosts).
 */
static void vl_tables_go_to_ports_linked_since_and_nodes_a_set_was_lost_to(void **state)
{
	size_t elsewhere;
	sweep(NULL, 0);
	size_t all = sets_of(IB_MAD_ATTR_SLVL_TABLE, 0, 0, &elsewhere);
	struct node *leaf = fabric_find_desc(&truth, "L1");
	uint8_t up = leaf->nports;
	struct node *agg = leaf->ports[up].remote;
	uint8_t agg_port = leaf->ports[up].remote_port;
	uint64_t ends[2] = { leaf->guid, agg->guid };
	fabric_unlink(leaf, up);
	sweep(ends, 2);
	assert_true(outcome.ok);
	assert_int_equal(sets_of(IB_MAD_ATTR_SLVL_TABLE, 0, 0, &elsewhere), 0);

	plug(leaf, up, agg, agg_port);
	sweep(ends, 2);
	assert_true(outcome.ok);
	size_t relinked = sets_of(IB_MAD_ATTR_SLVL_TABLE, leaf->guid, agg->guid, &elsewhere);
	assert_true(relinked > 0);
	assert_true(relinked < all / 4);
	assert_int_equal(elsewhere, 0);
	assert_int_equal(sets_of(IB_MAD_ATTR_P_KEY_TABLE, 0, 0, &elsewhere), 0);

	fabric_unlink(leaf, up);
	sweep(ends, 2);
	plug(leaf, up, agg, agg_port);
	lose_set_attr = IB_MAD_ATTR_SLVL_TABLE;
	sweep(ends, 2);
	assert_false(outcome.ok);
	size_t lost_to = 0;
	for (size_t i = 0; i < nsent && !lost_to; i++)	/* the first SL-to-VL Set, the one lost */
		if (sent[i].method == IB_MAD_METHOD_SET && sent[i].attr == IB_MAD_ATTR_SLVL_TABLE)
			lost_to = i;
	uint64_t lost = sent[lost_to].to;
	assert_true(lost == leaf->guid || lost == agg->guid);
	sweep(NULL, 0);
	assert_true(outcome.ok);
	size_t whole = sets_of(IB_MAD_ATTR_SLVL_TABLE, lost, lost, &elsewhere);
	assert_int_equal(elsewhere, 0);
	assert_true(whole > relinked);	/* every port pair of the node, not only the relinked port's */
	/* P_Key tables: the lost switch's own (enforcement) and its hosts', no other */
	const struct node *l = fabric_find_guid(&truth, lost);
	for (size_t i = 0; i < nsent; i++) {
		const struct node *to = fabric_find_guid(&truth, sent[i].to);
		if (sent[i].method != IB_MAD_METHOD_SET || sent[i].attr != IB_MAD_ATTR_P_KEY_TABLE || to == l)
			continue;
		assert_int_equal(to->type, NODE_CA);
		assert_ptr_equal(to->ports[1].remote, l);
	}
}

/* The SM's leaf in fewer_ports_of: it answers NodeInfo with only its host ports. */
static const struct node *shrunk;

static void fewer_ports_of(const struct node *n, ib_net16_t attr, uint32_t mod, ib_smp_t *r)
{
	if (n == shrunk && attr == IB_MAD_ATTR_NODE_INFO)
		((ib_node_info_t *)r->data)->num_ports = 2;
}

/*
 * A switch that comes back with more ports (a switch split into more, as
 * some can be) is not the node the published sweep programmed, LIDs kept
 * or not: every SL-to-VL table of it is written, its host ports' pair
 * too. Before, the sweep took it for kept and read its old self's ports
 * past their end for the new ones (found by fuzz_sweep).
 */
static void a_switch_with_more_ports_is_programmed_anew(void **state)
{
	const struct node *sm_ca = sim_sm_node();
	shrunk = sm_ca->ports[1].remote;
	sim_tamper = fewer_ports_of;	/* the first sweep sees the leaf and its two hosts */
	sweep(NULL, 0);
	sim_tamper = NULL;
	assert_true(outcome.ok);
	assert_int_equal(sm_published(&sm)->fabric.nnodes, 3);
	memset(held_sl2vl[shrunk->index], 0, sizeof(held_sl2vl[shrunk->index]));
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_int_equal(sm_published(&sm)->fabric.nnodes, truth.nnodes);
	static const ib_slvl_table_t unwritten;
	assert_true(memcmp(&held_sl2vl[shrunk->index][1][2], &unwritten, sizeof(unwritten)) != 0);
	assert_true(memcmp(&held_sl2vl[shrunk->index][1][3], &unwritten, sizeof(unwritten)) != 0);
}

/*
 * A switch whose LFT Sets keep failing (another SM's M_Key) would stop
 * every transition: after three stopped in a row, the sweep goes on and
 * publishes, degraded, and the count starts again.
 */
static void a_transition_stops_three_times_in_a_row_at_most(void **state)
{
	char log_path[64];
	log_to_fresh_file(log_path, sizeof(log_path));
	sweep(NULL, 0);
	struct node *leaf = fabric_find_desc(&truth, "L1");
	uint8_t up = leaf->nports;
	uint64_t ends[2] = { leaf->guid, leaf->ports[up].remote->guid };
	fabric_unlink(leaf, up);
	sm.transition_stops = 3;
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	lose_set_all_sweep = true;	/* and both sendings again */
	sweep_to_end(ends, 2);
	assert_true(outcome.published);
	assert_false(outcome.ok);
	assert_int_equal(sweeps_wanted, 0);
	assert_true(file_has(log_path, "1 LFT Sets of stage 1 of 3 lost, 4 sweeps in a row: going on"));
	assert_int_equal(sm.transition_stops, 0);
	unlink(log_path);
}

/*
 * A switch whose SwitchInfo answer a sweep lost cannot take its table
 * there (LinearFDBTop unknown): it is left out and counted with the nodes
 * a Set was lost to, so the next sweep reads it back and writes it
 * (before, a published sweep vouched for the table it never got, and no
 * later sweep wrote it while its table stayed the same). A sweep after a
 * degraded one plans from the tables read back even when a switch's
 * SwitchInfo is lost there: that switch holds the published table (its
 * LID on port 0 says it was not reset), where the plan used to give up
 * on the whole fabric ("no tables known").
 */
static void a_switch_whose_switchinfo_was_lost_is_written_by_the_next_sweep(void **state)
{
	char log_path[64];
	log_to_fresh_file(log_path, sizeof(log_path));
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	lose_set_all_sweep = true;	/* and both sendings again */
	sweep(NULL, 0);		/* degraded, published: a lost Set's switch is read back next */
	assert_false(outcome.ok);
	log_to_fresh_file(log_path, sizeof(log_path));	/* the first sweep knew no tables, rightly */
	struct node *leaf = fabric_find_desc(&truth, "L1");
	if (leaf->guid == lost_set_to)
		leaf = fabric_find_desc(&truth, "L2");
	uint8_t up = leaf->nports;
	fabric_unlink(leaf, up);
	lose_guid = leaf->guid;
	lose_attr = IB_MAD_ATTR_SWITCH_INFO;
	lose_times = 2;		/* the read and the one asking again */
	sm.transition_stops = 3;	/* no stop at the stage it misses: published, degraded */
	sweep(NULL, 0);
	assert_int_equal(lose_guid, 0);
	assert_false(outcome.ok);
	assert_true(file_has(log_path, "has no SwitchInfo; not programmed"));
	assert_true(file_has(log_path, "(from the tables read back from the switches)"));
	assert_false(file_has(log_path, "no tables known"));
	assert_true(lost_set_has(&sm_published(&sm)->lost, leaf->guid));

	sweep(NULL, 0);
	assert_true(outcome.ok);
	size_t elsewhere;
	assert_true(sent_of(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, leaf->guid, leaf->guid, &elsewhere) > 0);
	assert_int_equal(elsewhere, 0);
	switches_hold_published();
	unlink(log_path);
}

/*
 * After a full sweep, with the log in a fresh file: L1's last up-link is
 * gone, and the next `times` answers to a Get of its SwitchInfo are lost.
 */
static void l1_up_link_gone_switchinfo_lost(char *log_path, size_t len, unsigned times)
{
	sweep(NULL, 0);
	log_to_fresh_file(log_path, len);
	struct node *leaf = fabric_find_desc(&truth, "L1");
	fabric_unlink(leaf, leaf->nports);
	lose_guid = leaf->guid;
	lose_attr = IB_MAD_ATTR_SWITCH_INFO;
	lose_times = times;
}

/*
 * The same loss without the stops spent: the stage that leaves the
 * switch out has not landed whole, so the transition stops there, as at
 * a lost LFT Set, and a full sweep follows that writes the switch.
 */
static void a_switch_left_out_stops_the_transition(void **state)
{
	char log_path[64];
	l1_up_link_gone_switchinfo_lost(log_path, sizeof(log_path), 2);
	sweep_to_end(NULL, 0);
	assert_false(outcome.published);
	assert_int_equal(sweeps_wanted, 1);
	assert_true(file_has(log_path, "has no SwitchInfo; not programmed"));
	assert_true(file_has(log_path, "the transition stops there"));
	sweep(NULL, 0);
	assert_true(outcome.ok);
	switches_hold_published();
	unlink(log_path);
}

/* L1 loses its last up-link after a full sweep, and a repair follows (lose: the Set to lose first). */
static void repair_l1_up_link(ib_net16_t lose_attr_set, uint64_t lose_to)
{
	sweep(NULL, 0);
	struct node *leaf = fabric_find_desc(&truth, "L1");
	uint8_t up = leaf->nports;
	uint64_t ends[2] = { leaf->guid, leaf->ports[up].remote->guid };
	fabric_unlink(leaf, up);
	lose_set_attr = lose_attr_set;
	lose_set_guid = lose_to;
	sweep_to_end(ends, 2);
}

/*
 * A switch the last repair sent LFT blocks in a later stage only: its
 * Sets all went out after answers to the first stage's had come (a stage
 * goes out whole before any of its answers is given).
 */
static uint64_t later_stage_switch(void)
{
	size_t first = SIZE_MAX;
	for (size_t i = 0; i < nsent; i++)
		if (sent[i].method == IB_MAD_METHOD_SET && sent[i].attr == IB_MAD_ATTR_LIN_FWD_TBL &&
		    sent[i].answered < first)
			first = sent[i].answered;
	for (size_t i = nsent; i-- > 0;) {
		if (sent[i].method != IB_MAD_METHOD_SET || sent[i].attr != IB_MAD_ATTR_LIN_FWD_TBL)
			continue;
		bool later_only = true;
		for (size_t k = 0; k < nsent && later_only; k++)
			later_only = !(sent[k].method == IB_MAD_METHOD_SET && sent[k].attr == IB_MAD_ATTR_LIN_FWD_TBL &&
				       sent[k].to == sent[i].to && sent[k].answered == first);
		if (later_only)
			return sent[i].to;
	}
	return 0;
}

/*
 * A repair whose later stage loses an LFT Set sends that switch's blocks
 * of the stage again and goes on: published, clean, no full sweep asked
 * for. (The same repair is first run without loss, on a tree of its own,
 * to find a switch only a later stage writes.)
 */
static void a_later_stage_sends_its_lost_blocks_again(void **state)
{
	char log_path[64];
	repair_l1_up_link(0, 0);
	assert_true(outcome.ok);
	uint64_t later = later_stage_switch();
	assert_true(later != 0);
	teardown(state);
	setup_3_levels(state);
	log_to_fresh_file(log_path, sizeof(log_path));
	repair_l1_up_link(IB_MAD_ATTR_LIN_FWD_TBL, later);
	assert_int_equal(lose_set_attr, 0);
	assert_true(outcome.ok);
	assert_int_equal(sweeps_wanted, 0);
	assert_true(file_has(log_path, "the stage's blocks go again to the 1 switches they went to"));
	assert_false(file_has(log_path, "the transition stops there"));
	assert_int_equal(sm_published(&sm)->lost.n, 0);
	switches_hold_published();
	unlink(log_path);
}

/*
 * The first stage too, where no other Set failed: after a bring-up that
 * lost a switch's LFT Set (its tries too), the next sweep reads that
 * switch back, and its one Set lost once goes again, compared with what
 * was read back (the published table has that block already); then a
 * repair's first-stage Set lost once goes again, and it ends clean.
 */
static void a_first_stage_sends_its_lost_blocks_again(void **state)
{
	char log_path[64];
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	lose_set_all_sweep = true;
	sweep(NULL, 0);
	assert_false(outcome.ok);
	log_to_fresh_file(log_path, sizeof(log_path));
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	sweep(NULL, 0);
	assert_int_equal(lose_set_attr, 0);
	assert_true(outcome.ok);
	assert_true(file_has(log_path, "1 LFT Sets of stage 1 of 1 lost: the stage's blocks go again to the 1 switches"));
	switches_hold_published();

	repair_l1_up_link(IB_MAD_ATTR_LIN_FWD_TBL, 0);
	assert_int_equal(lose_set_attr, 0);
	assert_true(outcome.ok);
	assert_true(file_has(log_path, "of stage 1 of 3 lost: the stage's blocks go again"));
	switches_hold_published();
	unlink(log_path);
}

/*
 * A repair answers the change reported before it: once every LFT Set of
 * it is answered, the time since the report counts (sm->reaction). One
 * that loses a switch's Sets (their tries and resends too) gives the
 * change back, and the sweep that then gets the tables in place counts
 * it from the same report.
 */
static void a_change_counts_until_its_tables_are_in_place(void **state)
{
	uint64_t reported = evl_now_ms() - 20;
	sm.sched.change_seen_ms = reported;
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;	/* a bring-up, one stage: published, degraded */
	lose_set_all_sweep = true;
	sweep(NULL, 0);
	assert_false(outcome.ok);
	assert_int_equal(sm.reaction.count, 0);
	assert_int_equal(sm.sched.change_seen_ms, reported);
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_int_equal(sm.reaction.count, 1);
	sweep(NULL, 0);
	assert_int_equal(sm.reaction.count, 1);	/* nothing reported, nothing counted */
	struct node *leaf = fabric_find_desc(&truth, "L1");
	uint8_t up = leaf->nports, agg_port = leaf->ports[up].remote_port;
	struct node *agg = leaf->ports[up].remote;
	uint64_t ends[2] = { leaf->guid, agg->guid };
	fabric_unlink(leaf, up);
	reported = evl_now_ms() - 20;
	sm.sched.change_seen_ms = reported;
	sweep(ends, 2);
	assert_true(outcome.ok);
	assert_int_equal(sm.sched.change_seen_ms, 0);
	assert_int_equal(sm.reaction.count, 2);
	assert_true(sm.reaction.last_ms >= 20);
	assert_int_equal(sm.reaction.within[REACTION_BOUNDS - 1], 2);

	plug(leaf, up, agg, agg_port);
	reported = evl_now_ms() - 20;
	sm.sched.change_seen_ms = reported;
	lose_set_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	lose_set_all_sweep = true;
	sweep_to_end(ends, 2);
	assert_false(outcome.ok);
	assert_int_equal(sm.reaction.count, 2);
	assert_int_equal(sm.sched.change_seen_ms, reported);	/* given back */
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_int_equal(sm.reaction.count, 3);
	assert_true(sm.reaction.last_ms >= 20);
	assert_int_equal(sm.sched.change_seen_ms, 0);
	switches_hold_published();
}

/* A full sweep asks again for a SwitchInfo whose answer was lost: the switch is programmed all the same. */
static void a_lost_switchinfo_answer_is_asked_again(void **state)
{
	char log_path[64];
	l1_up_link_gone_switchinfo_lost(log_path, sizeof(log_path), 1);
	sweep(NULL, 0);
	assert_int_equal(lose_guid, 0);
	assert_true(outcome.ok);
	assert_false(file_has(log_path, "not programmed"));
	switches_hold_published();
	unlink(log_path);
}

/*
 * A host port whose PortInfo answer discovery lost gets no SL-to-VL
 * table in that sweep (its VL capacity is not known); the published sweep
 * then counts the host with the nodes a Set was lost to, and the next
 * sweep writes its tables (before, no later sweep did: its link was not
 * new to it).
 */
static void a_port_whose_portinfo_was_lost_gets_its_tables_next_sweep(void **state)
{
	sweep(NULL, 0);
	struct node *host = fabric_find_desc(&truth, "L1")->ports[1].remote;
	assert_int_equal(host->type, NODE_CA);
	fabric_unlink(host, 1);
	sweep(NULL, 0);
	plug(host, 1, fabric_find_desc(&truth, "L1"), 1);
	lose_guid = host->guid;
	lose_attr = IB_MAD_ATTR_PORT_INFO;
	sweep(NULL, 0);
	assert_int_equal(lose_guid, 0);
	assert_true(lost_set_has(&sm_published(&sm)->lost, host->guid));
	size_t elsewhere;
	assert_int_equal(sets_of(IB_MAD_ATTR_SLVL_TABLE, host->guid, host->guid, &elsewhere) - elsewhere, 0);
	sweep(NULL, 0);
	assert_true(sets_of(IB_MAD_ATTR_SLVL_TABLE, host->guid, host->guid, &elsewhere) - elsewhere > 0);
	sweep(NULL, 0);
	assert_int_equal(sets_of(IB_MAD_ATTR_SLVL_TABLE, host->guid, host->guid, &elsewhere) - elsewhere, 0);
}

static struct audit_report audited;
static unsigned audits_done;

static void on_audited(struct sm *s, const struct audit_report *r)
{
	(void)s;
	audited = *r;
	audits_done++;
}

/* Answers what was asked, in order, until *done moves past before (a light sweep's or an audit's end). */
static void answer_until(const unsigned *done, unsigned before)
{
	for (size_t next = 0; *done == before; next++) {
		assert_true(next < queued);
		queue[next].done(queue[next].ctx, queue[next].status, queue[next].status ? NULL : &queue[next].reply);
	}
	assert_int_equal(*done, before + 1);
	assert_false(sm.sched.sweeping);
}

/* Runs a table audit to its end, answers in order; its report. */
static struct audit_report audit_to_end(void)
{
	unsigned before = audits_done;
	queued = 0;
	nsent = 0;
	audit_tables(&sm, on_audited);
	answer_until(&audits_done, before);
	return audited;
}

/*
 * The table audit reads the published switches' LFT blocks a few at a
 * time, each switch once a rotation, and finds nothing while they hold the
 * published tables. An entry changed behind fabricd's back is found (a
 * Get that lost its answer says nothing either way): the switch joins
 * lft_unsure, the switches no longer count as holding the published
 * sweep, and the full sweep after it reads that switch back alone, plans
 * from what it holds and writes that one block again.
 */
static void the_table_audit_finds_an_entry_changed_behind_our_back(void **state)
{
	sweep(NULL, 0);
	assert_true(outcome.ok);
	const struct sm_snapshot *pub = sm_published(&sm);
	size_t nsw = fabric_count(&pub->fabric, NODE_SWITCH), read = 0, elsewhere;
	assert_true(pub->tables.max_lid < 64);	/* one block a switch */
	sm.cfg.lft_audit_blocks = 3;
	sm.cfg.port_audit_tables = 0;	/* the LFT blocks alone */
	bool seen[SIM_MAX_NODES] = { false };
	while (read < nsw) {	/* the first rotation */
		struct audit_report r = audit_to_end();
		assert_int_equal(r.read, 3);
		assert_int_equal(r.differed + r.unanswered + r.switches, 0);
		for (size_t i = 0; i < nsent; i++, read++) {
			const struct node *n = fabric_find_guid(&truth, sent[i].to);
			assert_int_equal(sent[i].attr, IB_MAD_ATTR_LIN_FWD_TBL);
			assert_true(n->type == NODE_SWITCH);
			assert_true(read >= nsw || !seen[n->index]);	/* each switch once a rotation */
			seen[n->index] = true;
		}
	}
	assert_int_equal(sm.audit.rotations, read > nsw);	/* round again once the last switch was read */
	assert_true(sm.last_sweep_ok);

	const struct node *leaf = fabric_find_desc(&truth, "L1");
	uint16_t lid = 1;
	while (!held_lft[leaf->index][lid])
		lid++;
	uint8_t was = held_lft[leaf->index][lid];
	held_lft[leaf->index][lid] = (uint8_t)(was % leaf->nports + 1);	/* another port */
	sm.cfg.lft_audit_blocks = 256;
	lose_guid = leaf->guid;
	lose_attr = IB_MAD_ATTR_LIN_FWD_TBL;
	struct audit_report r = audit_to_end();
	assert_int_equal(r.unanswered, 1);
	assert_int_equal(r.read, nsw - 1);
	assert_int_equal(r.differed + r.switches, 0);
	assert_true(sm.last_sweep_ok);
	r = audit_to_end();
	assert_int_equal(r.read, nsw);
	assert_int_equal(r.differed, 1);
	assert_int_equal(r.switches, 1);
	assert_false(sm.last_sweep_ok);
	assert_true(lost_set_has(&sm.lft_unsure, leaf->guid));
	assert_int_equal(sm.lft_unsure.n, 1);

	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_int_equal(held_lft[leaf->index][lid], was);
	assert_true(sent_of(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, leaf->guid, leaf->guid, &elsewhere) > 0);
	assert_int_equal(elsewhere, 0);	/* read back: that switch alone */
	assert_int_equal(lft_sets(ANY_TIME), 1);
	assert_int_equal(sets_of(IB_MAD_ATTR_SLVL_TABLE, 0, 0, &elsewhere), 0);
	switches_hold_published();
	assert_int_equal(sm.lft_unsure.n, 0);
	assert_int_equal(audit_to_end().differed, 0);
	assert_int_equal(sm.audit.differed, 1);
}

/*
 * The table audit reads the port tables back too, the first of every
 * node's (a CA's first P_Key block, a switch's first SL-to-VL map), then
 * the second of every node's, and so on: each pass over the nodes asks
 * each once. A switch's SL-to-VL map changed behind fabricd's back is
 * found; the full sweep after it writes every VL table of that switch
 * again and nothing of any other node, reads no LFT block back and sends
 * none. So is a key a host wrote into its own P_Key table: the sweep
 * after writes that host's port tables alone.
 */
static void the_table_audit_finds_port_tables_changed_behind_our_back(void **state)
{
	const struct node *leaf = fabric_find_desc(&truth, "L1");
	size_t elsewhere;
	sweep(NULL, 0);
	assert_true(outcome.ok);
	size_t leaf_maps = sets_of(IB_MAD_ATTR_SLVL_TABLE, leaf->guid, leaf->guid, &elsewhere) - elsewhere;
	const struct sm_snapshot *pub = sm_published(&sm);
	size_t nodes = pub->fabric.nnodes, all = audit_port_tables_published(pub), read = 0;
	assert_true(leaf_maps > 1 && all > nodes);
	sm.cfg.lft_audit_blocks = 0;	/* the port tables alone */
	sm.cfg.port_audit_tables = (unsigned)nodes;
	bool seen[SIM_MAX_NODES] = { false };
	struct audit_report r = audit_to_end();	/* the first pass: every node's first table */
	assert_int_equal(r.port_read, nodes);
	assert_int_equal(r.read + r.port_differed + r.port_unanswered + r.switches, 0);
	for (size_t i = 0; i < nsent; i++) {
		const struct node *n = fabric_find_guid(&truth, sent[i].to);
		assert_int_equal(sent[i].attr, n->type == NODE_SWITCH ? IB_MAD_ATTR_SLVL_TABLE : IB_MAD_ATTR_P_KEY_TABLE);
		assert_false(seen[n->index]);
		seen[n->index] = true;
	}
	for (read = r.port_read; read < all; read += r.port_read) {	/* the rest of the rotation */
		r = audit_to_end();
		assert_int_equal(r.port_differed + r.port_unanswered + r.switches, 0);
	}
	assert_int_equal(sm.audit.port_rotations, read > all);
	assert_true(sm.last_sweep_ok);

	unsigned in = 1, out = 2;
	while (!leaf->ports[in].remote)
		in++;
	while (out == in || !leaf->ports[out].remote)
		out++;
	held_sl2vl[leaf->index][in][out].raw_vl_by_sl[1] ^= 0x01;	/* SL 3 on another VL */
	sm.cfg.port_audit_tables = (unsigned)all;
	r = audit_to_end();
	assert_int_equal(r.port_read, all);
	assert_int_equal(r.port_differed, 1);
	assert_int_equal(r.switches, 1);
	assert_false(sm.last_sweep_ok);
	assert_true(lost_set_has(&sm.port_unsure, leaf->guid));
	assert_int_equal(sm.port_unsure.n, 1);
	assert_int_equal(sm.lft_unsure.n, 0);

	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_memory_equal(&held_sl2vl[leaf->index][in][out], &sm_published(&sm)->qos.sl2vl, sizeof(ib_slvl_table_t));
	assert_int_equal(sets_of(IB_MAD_ATTR_SLVL_TABLE, leaf->guid, leaf->guid, &elsewhere), leaf_maps);
	assert_int_equal(elsewhere, 0);
	assert_int_equal(sent_of(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, 0, 0, &elsewhere), 0);
	assert_int_equal(lft_sets(ANY_TIME), 0);
	assert_int_equal(sm.port_unsure.n, 0);
	r = audit_to_end();
	assert_int_equal(r.port_read, all);
	assert_int_equal(r.port_differed, 0);
	assert_int_equal(sm.audit.port_differed, 1);

	const struct node *host = fabric_find_desc(&truth, "H3_1");
	ib_pkey_table_t was = held_pkeys[host->index][1][0];
	held_pkeys[host->index][1][0].pkey_entry[5] = cl_hton16(0x8123);	/* a partition not given, full member */
	r = audit_to_end();
	assert_int_equal(r.port_differed, 1);
	assert_int_equal(r.switches, 1);
	assert_true(lost_set_has(&sm.port_unsure, host->guid));
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_memory_equal(&held_pkeys[host->index][1][0], &was, sizeof(was));
	assert_true(sets_of(IB_MAD_ATTR_P_KEY_TABLE, host->guid, host->guid, &elsewhere) > 0);
	assert_int_equal(elsewhere, 0);
	sets_of(IB_MAD_ATTR_SLVL_TABLE, host->guid, host->guid, &elsewhere);	/* its other port tables too */
	assert_int_equal(elsewhere, 0);
	assert_int_equal(audit_to_end().port_differed, 0);
}

/*
 * fabricctl audit's whole audit reads every LFT block and VL table, but
 * asks for AUDIT_IN_FLIGHT at a time, the next as each answer comes: the
 * MADs queued stay few whatever the fabric's size.
 */
static void a_whole_audit_keeps_few_gets_out(void **state)
{
	sweep(NULL, 0);
	assert_true(outcome.ok);
	const struct sm_snapshot *pub = sm_published(&sm);
	size_t blocks = audit_blocks_published(pub), tables = audit_port_tables_published(pub), most = 0;
	assert_true(blocks + tables > 4 * AUDIT_IN_FLIGHT);
	unsigned before = audits_done;
	queued = 0;
	nsent = 0;
	sm.audit.whole_wanted = true;
	audit_tables(&sm, on_audited);
	for (size_t next = 0; audits_done == before; next++) {
		assert_true(next < queued);
		most = queued - next > most ? queued - next : most;
		queue[next].done(queue[next].ctx, queue[next].status, queue[next].status ? NULL : &queue[next].reply);
	}
	assert_int_equal(most, AUDIT_IN_FLIGHT);
	assert_int_equal(audited.read, blocks);
	assert_int_equal(audited.port_read, tables);
	assert_int_equal(audited.differed + audited.unanswered + audited.port_differed + audited.port_unanswered, 0);
	assert_int_equal(sm.audit.wholes, 1);
	assert_int_equal(sm.audit.last_port_read, tables);
}

/*
 * A restarted fabricd (no sweep of its own) reads every switch's table
 * back before it plans, READBACK_IN_FLIGHT Gets out at a time at most
 * (all at once, the 27,648-host tree's 1.41 million blocks would queue
 * some 600 MB of MADs), and writes none of what they hold again.
 */
static void a_restart_reads_the_tables_back_few_gets_at_a_time(void **state)
{
	sweep(NULL, 0);
	assert_true(outcome.ok);
	size_t nsw = fabric_count(&sm_published(&sm)->fabric, NODE_SWITCH);
	uint16_t max_lid = sm_published(&sm)->tables.max_lid;
	sm_snapshot_free(sm.pub);	/* as a new process finds it: the switches hold tables it did not write */
	sm.pub = NULL;
	sm.last_sweep_ok = false;
	sm.pub_held = false;
	sweep(NULL, 0);
	assert_true(outcome.ok);
	size_t gets = 0, most = 0;
	for (size_t i = 0; i < nsent; i++)
		if (sent[i].method == IB_MAD_METHOD_GET && sent[i].attr == IB_MAD_ATTR_LIN_FWD_TBL) {
			gets++;
			most = i + 1 - sent[i].answered > most ? i + 1 - sent[i].answered : most;
		}
	assert_int_equal(gets, nsw * (max_lid / 64u + 1u));
	assert_true(gets > READBACK_IN_FLIGHT);
	assert_true(most <= READBACK_IN_FLIGHT);
	assert_int_equal(lft_sets(ANY_TIME), 0);
}

static struct light_report lit;
static uint64_t lit_changed[SIM_MAX_NODES];
static unsigned lights_done;

static void on_lit(struct sm *s, const struct light_report *r)
{
	(void)s;
	lit = *r;
	memcpy(lit_changed, r->changed, r->nchanged * sizeof(*r->changed));
	lit.changed = lit_changed;
	lights_done++;
}

/* Runs a light sweep to its end, answers in order; its report. */
static struct light_report light_to_end(void)
{
	unsigned before = lights_done;
	queued = 0;
	nsent = 0;
	light_sweep(&sm, on_lit);
	answer_until(&lights_done, before);
	return lit;
}

/*
 * A light sweep that finds a switch's LinearFDBTop other than the
 * published max LID (the switch reset, or another SM wrote it: the LIDs
 * past it drop) names it changed, puts it in lft_unsure, and the switches
 * no longer count as clean: the full sweep after it reads that switch
 * back alone and sets its top again.
 */
static void a_light_sweep_finds_a_table_top_moved(void **state)
{
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_int_equal(light_to_end().nchanged, 0);
	assert_true(sm.last_sweep_ok);
	const struct node *leaf = fabric_find_desc(&truth, "L1");
	uint16_t max = sm_published(&sm)->tables.max_lid;
	assert_int_equal(held_top[leaf->index], max);
	held_top[leaf->index] = (uint16_t)(max - 4);
	struct light_report r = light_to_end();
	assert_int_equal(r.nchanged, 1);
	assert_int_equal(r.changed[0], leaf->guid);
	assert_false(sm.last_sweep_ok);
	assert_true(lost_set_has(&sm.lft_unsure, leaf->guid));
	sweep(NULL, 0);
	assert_true(outcome.ok);
	assert_int_equal(held_top[leaf->index], max);
	size_t elsewhere;
	assert_true(sent_of(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, leaf->guid, leaf->guid, &elsewhere) > 0);
	assert_int_equal(elsewhere, 0);
	switches_hold_published();
	assert_int_equal(light_to_end().nchanged, 0);
}

static unsigned mcast_dones;

static void on_mcast_done(struct sm *s)
{
	(void)s;
	mcast_dones++;
}

/* Every CA of the published fabric a full member of the broadcast group, whose tree is then programmed. */
static void broadcast_group_programmed(void)
{
	const struct fabric *f = &sm_published(&sm)->fabric;
	struct mc_group *g = &sm.mcast.g[0];
	for (size_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->type == NODE_CA) {
			ib_gid_t gid;
			gid.unicast.prefix = cl_hton64(sm.cfg.subnet_prefix);
			gid.unicast.interface_id = cl_hton64(f->nodes[i]->ports[1].guid);
			struct mc_member *m = mcast_add_member(&sm.mcast, g, &gid);
			assert_non_null(m);
			m->join_state = IB_MC_REC_STATE_FULL_MEMBER;
		}
	unsigned before = mcast_dones;
	queued = 0;
	nsent = 0;
	sm.state = SM_MASTER;
	assert_true(mcast_program(&sm, on_mcast_done));
	answer_until(&mcast_dones, before);
}

/*
 * On seed 8 of the degraded radix-8 family the switches hold the
 * broadcast group's tree (every host a member) when the aggregation
 * switch above L14 dies: with that tree held, no staging of the repair
 * proves out; without it, one does. So the sweep clears the tree's MFT
 * entries on every switch (all answered) before the first LFT block goes,
 * programs the stages proven without it, says so in the transition event,
 * and the switches hold no tree after it. Before 2026-12-08 the plan did
 * not see the tree and called that repair proven.
 */
static void a_repair_proven_only_without_the_trees_held_clears_them_first(void **state)
{
	sweep(NULL, 0);
	broadcast_group_programmed();
	assert_int_equal(sm.mcast.nheld, 1);
	assert_true(sm.mcast.held[0].tree.n > 0);
	struct node *leaf = fabric_find_desc(&truth, "L14");
	assert_non_null(leaf);
	uint8_t up = 1;
	while (!leaf->ports[up].remote || leaf->ports[up].remote->type != NODE_SWITCH)
		up++;
	struct node *agg = leaf->ports[up].remote;
	uint64_t neighbours[FABRIC_MAX_PORTS];
	size_t nn = 0;
	for (unsigned p = 1; p <= agg->nports; p++) {
		if (agg->ports[p].remote)
			neighbours[nn++] = agg->ports[p].remote->guid;
		fabric_unlink(agg, (uint8_t)p);
	}
	sweep(neighbours, nn);
	char detail[700] = "";
	assert_int_equal(db_each_event(sm.db, 0, transition_detail, detail), 0);
	assert_non_null(strstr(detail, "proven deadlock-free"));
	assert_non_null(strstr(detail, "the multicast trees the switches hold cleared first"));
	size_t first_lft = nsent, last_mft = 0, mfts = 0;
	for (size_t i = 0; i < nsent; i++) {
		if (sent[i].method != IB_MAD_METHOD_SET)
			continue;
		if (sent[i].attr == IB_MAD_ATTR_LIN_FWD_TBL && !sent[i].routing && first_lft == nsent)
			first_lft = i;
		if (sent[i].attr == IB_MAD_ATTR_MCAST_FWD_TBL) {
			last_mft = i;
			mfts++;
		}
	}
	assert_true(mfts > 0);
	assert_true(last_mft < first_lft);	/* cleared, every Set answered, before the stages */
	assert_true(sm.mcast.nheld == 0 || sm.mcast.held[0].tree.n == 0);
}

static int setup_radix_10(void **state)
{
	return setup_tree(&(struct fattree_spec){ .levels = 3, .radix = 10 });
}

static int setup_degraded(void **state)
{
	return setup_tree(&(struct fattree_spec){ .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1,
						 .seed = 18 });
}

static int setup_degraded_8(void **state)
{
	return setup_tree(&(struct fattree_spec){ .levels = 3, .radix = 8, .remove_links = 6, .remove_switches = 1,
						 .seed = 8 });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(phases_go_in_order_and_hosts_reregister_after_the_sweep_is_published,
						setup, teardown),
		cmocka_unit_test_setup_teardown(repairs_end_where_a_full_sweep_does, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(moved_cables_are_repaired_or_discovered_in_full, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(a_dead_switch_is_not_asked, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(hosts_without_client_reregister_are_counted_not_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(a_change_counts_until_its_tables_are_in_place, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_switch_that_reports_while_a_repair_reads_joins_it, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(a_read_through_a_dead_switch_is_retried_around_it, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(an_unproven_mend_is_routed_afresh, setup_degraded, teardown),
		cmocka_unit_test_setup_teardown(a_lost_set_is_planned_from_the_tables_read_back, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(vl_tables_go_to_ports_linked_since_and_nodes_a_set_was_lost_to,
						setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_switch_whose_switchinfo_was_lost_is_written_by_the_next_sweep,
						setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_switch_left_out_stops_the_transition, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_lost_switchinfo_answer_is_asked_again, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_later_stage_sends_its_lost_blocks_again, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_first_stage_sends_its_lost_blocks_again, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_port_whose_portinfo_was_lost_gets_its_tables_next_sweep,
						setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_transition_stops_three_times_in_a_row_at_most, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(a_whole_audit_keeps_few_gets_out, setup_degraded, teardown),
		cmocka_unit_test_setup_teardown(a_restart_reads_the_tables_back_few_gets_at_a_time, setup_radix_10,
						teardown),
		cmocka_unit_test_setup_teardown(the_table_audit_finds_port_tables_changed_behind_our_back, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(the_table_audit_finds_an_entry_changed_behind_our_back, setup_3_levels,
						teardown),
		cmocka_unit_test_setup_teardown(a_light_sweep_finds_a_table_top_moved, setup_3_levels, teardown),
		cmocka_unit_test_setup_teardown(a_switch_with_more_ports_is_programmed_anew, setup, teardown),
		cmocka_unit_test_setup_teardown(a_repair_proven_only_without_the_trees_held_clears_them_first,
						setup_degraded_8, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
