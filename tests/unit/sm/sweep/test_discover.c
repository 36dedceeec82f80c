/*
 * Discovery (sm/sweep/discover.c) over a fake MAD port: mad_send_dr is
 * replaced at link time (-Wl,--wrap) by the small simulator of
 * tests/common/smp_sim.h over a 2-level radix-4 fat tree. The test delivers
 * the answers in the order it likes, or loses them.
 *
 * - In order, late (newest first) or shuffled, the model found is the
 *   true fabric: the same GUIDs, types, links, port for port.
 * - A CA whose NodeInfo is lost is counted unreachable and left out;
 *   nothing else changes.
 * - A node whose NodeInfo is malformed (an unknown type, no ports or more
 *   than a node can have, entered by a port it does not have) is left out,
 *   with what only it leads to, and each such answer counted; nothing else
 *   changes (under ASan, in the sanitized suite, a write past its ports
 *   would fail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sm/smnode.h"
#include "sm/sweep/discover.h"
#include "topology/fattree_gen.h"
#include "smp_sim.h"

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	sim_queue(method, attr, mod, path, hops, data, len, done, ctx);
	return 0;
}

enum order { IN_ORDER, NEWEST_FIRST, SHUFFLED };

/* Delivers every answer (and those the answers ask for) in order (shuffled: by seed) until discovery ends. */
static void deliver(enum order order, uint64_t seed, const bool *ended)
{
	size_t first = 0;
	while (!*ended) {
		assert_true(queued > first);
		size_t i = order == IN_ORDER ? first : order == NEWEST_FIRST ? queued - 1 : first + seed % (queued - first);
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		struct answer a = queue[i];
		queue[i] = queue[first++];	/* the slot is consumed; keep the rest packed after first */
		a.done(a.ctx, a.status, a.status ? NULL : &a.reply);
	}
}

static struct disc_report report;
static bool ended;

static void on_done(void *arg, const struct disc_report *r)
{
	report = *r;
	ended = true;
}

/* Discovers the true fabric into f, answers delivered in order. */
static void discover(struct fabric *f, enum order order, uint64_t seed)
{
	struct mkey_config off = { 0 };
	struct mkeys keys;
	assert_int_equal(mkeys_init(&keys, &off, NULL, 0), 0);
	fabric_init(f);
	queued = 0;
	ended = false;
	assert_int_equal(disc_start(NULL, &keys, f, on_done, NULL), 0);
	deliver(order, seed, &ended);
	mkeys_free(&keys);
}

/* f holds exactly truth's nodes and links, by GUID and port. */
static void same_as_truth(const struct fabric *f, const struct node *except)
{
	for (size_t i = 0; i < truth.nnodes; i++) {
		const struct node *t = truth.nodes[i];
		const struct node *n = fabric_find_guid(f, t->guid);
		if (t == except) {
			assert_null(n);
			continue;
		}
		assert_non_null(n);
		assert_int_equal(n->type, t->type);
		assert_int_equal(n->nports, t->nports);
		assert_string_equal(n->desc, t->desc);
		for (unsigned p = 1; p <= t->nports; p++) {
			const struct port *tp = &t->ports[p], *np = &n->ports[p];
			if (!tp->remote || tp->remote == except) {
				assert_null(np->remote);
				continue;
			}
			assert_non_null(np->remote);
			assert_true(np->remote->guid == tp->remote->guid);
			assert_int_equal(np->remote_port, tp->remote_port);
		}
	}
}

static int setup(void **state)
{
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, &truth, err), 0);
	lost = NULL;
	return 0;
}

static int teardown(void **state)
{
	fabric_free(&truth);
	return 0;
}

static void whatever_the_order_the_model_is_the_fabric(void **state)
{
	/* in order, newest first, and 40 shuffles: late answers of links probed from both ends among them */
	for (unsigned k = 0; k < 42; k++) {
		struct fabric f;
		discover(&f, k == 0 ? IN_ORDER : k == 1 ? NEWEST_FIRST : SHUFFLED, k);
		assert_int_equal(report.nodes, truth.nnodes);
		assert_int_equal(report.switches, fabric_count(&truth, NODE_SWITCH));
		assert_int_equal(report.links, fabric_link_count(&truth));
		assert_int_equal(report.unreachable + report.duplicates + report.failed_attrs, 0);
		same_as_truth(&f, NULL);
		for (size_t i = 1; i < f.nnodes; i++)	/* in GUID order, whatever the answers' order */
			assert_true(f.nodes[i - 1]->guid < f.nodes[i]->guid);
		sm_node_detach_all(&f);
		fabric_free(&f);
	}
}

static void a_lost_ca_is_unreachable_and_left_out(void **state)
{
	for (size_t i = truth.nnodes; i-- > 0;)	/* the last CA: not the SM's own */
		if (truth.nodes[i]->type == NODE_CA) {
			lost = truth.nodes[i];
			break;
		}
	struct fabric f;
	discover(&f, SHUFFLED, 7);
	assert_int_equal(report.nodes, truth.nnodes - 1);
	assert_int_equal(report.unreachable, 1);
	assert_int_equal(report.links, fabric_link_count(&truth) - 1);
	same_as_truth(&f, lost);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

/* The node that answers NodeInfo with lie's fields (its own GUIDs kept). */
static const struct node *liar;
static struct lie {
	uint8_t type, nports, local;
} lie;

static void lie_in_node_info(const struct node *n, ib_net16_t attr, uint32_t mod, ib_smp_t *r)
{
	if (n != liar || attr != IB_MAD_ATTR_NODE_INFO)
		return;
	ib_node_info_t *ni = (ib_node_info_t *)r->data;
	ni->node_type = lie.type;
	ni->num_ports = lie.nports;
	ni->port_num_vendor_id = (ni->port_num_vendor_id & cl_hton32(0x00ffffff)) | cl_hton32((uint32_t)lie.local << 24);
}

/* The last node of truth of the type, which is not the SM's. */
static const struct node *last_of(enum node_type type)
{
	for (size_t i = truth.nnodes; i-- > 0;)
		if (truth.nodes[i]->type == type)
			return truth.nodes[i];
	return NULL;
}

static void a_malformed_node_info_is_left_out(void **state)
{
	const struct node *ca = last_of(NODE_CA), *leaf = ca->ports[1].remote;
	size_t behind_leaf = 0, above_leaf = 0;	/* its CAs; the spines, each of which asks it */
	for (unsigned p = 1; p <= leaf->nports; p++) {
		behind_leaf += leaf->ports[p].remote && leaf->ports[p].remote->type == NODE_CA;
		above_leaf += leaf->ports[p].remote && leaf->ports[p].remote->type == NODE_SWITCH;
	}
	const struct {
		const struct node *liar;
		struct lie lie;
		size_t gone;	/* nodes the model lacks: the liar and what only it leads to */
		size_t answers;	/* malformed answers: one per neighbour that asks */
	} cases[] = {
		{ ca, { IB_NODE_TYPE_CA, 1, 200 }, 1, 1 },	/* entered by a port beyond its ports */
		{ ca, { IB_NODE_TYPE_CA, 1, 0 }, 1, 1 },	/* a CA entered by port 0 */
		{ ca, { IB_NODE_TYPE_CA, 0, 1 }, 1, 1 },	/* no ports */
		{ ca, { IB_NODE_TYPE_CA, 255, 1 }, 1, 1 },	/* more than a node can have */
		{ ca, { 0, 1, 1 }, 1, 1 },	/* no type */
		{ ca, { 9, 1, 1 }, 1, 1 },	/* a type IBA does not define */
		{ leaf, { IB_NODE_TYPE_SWITCH, leaf->nports, (uint8_t)(leaf->nports + 1) }, 1 + behind_leaf, above_leaf },
		{ leaf, { IB_NODE_TYPE_SWITCH, leaf->nports, 0 }, 1 + behind_leaf, above_leaf },	/* port 0 over a link */
		{ leaf, { IB_NODE_TYPE_SWITCH, 0, 0 }, 1 + behind_leaf, above_leaf },
	};
	sim_tamper = lie_in_node_info;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		liar = cases[k].liar;
		lie = cases[k].lie;
		struct fabric f;
		discover(&f, SHUFFLED, k);
		assert_int_equal(report.malformed, cases[k].answers);
		assert_int_equal(report.nodes, truth.nnodes - cases[k].gone);
		assert_int_equal(report.duplicates + report.failed_attrs, 0);
		assert_null(fabric_find_guid(&f, liar->guid));
		if (liar == ca)
			same_as_truth(&f, ca);
		sm_node_detach_all(&f);
		fabric_free(&f);
	}
	sim_tamper = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(whatever_the_order_the_model_is_the_fabric, setup, teardown),
		cmocka_unit_test_setup_teardown(a_lost_ca_is_unreachable_and_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(a_malformed_node_info_is_left_out, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
