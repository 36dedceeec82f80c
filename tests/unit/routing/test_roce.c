/*
 * The RoCE planner: bad YAML gets file:line errors; generated 2- and
 * 3-tier Clos fabrics, full and degraded, get up/down ECMP tables with
 * no loop, no dead end and no cyclic buffer dependency, as designed and
 * after every single link failure; a spine ring is named as the cycle
 * shortest-path ECMP would close, while the plan stays safe; the checker
 * finds a loop planted in a table; the PFC headroom formula gives the
 * hand-computed figure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "routing/pfc.h"
#include "routing/roce_plan.h"
#include "routing/roce_asn.h"
#include "routing/swindex.h"
#include "topology/fattree_gen.h"
#include "topology/roce_gen.h"

static char path[64];

/* Writes text to a fresh temporary file named in path. */
static void write_temp(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/test_roce_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

/* Loads text and expects the error "<file>:line: what". */
static void expect_error(const char *text, unsigned line, const char *what)
{
	struct roce_fabric rf;
	char err[ROCE_ERR_LEN], want[ROCE_ERR_LEN];
	write_temp(text);
	assert_int_equal(roce_load(path, &rf, err), -1);
	snprintf(want, sizeof(want), "%s:%u: %s", path, line, what);
	assert_string_equal(err, want);
	unlink(path);
}

#define TWO_SWITCHES                                                                   \
	"switches:\n"                                                                  \
	"  - { name: leaf0, role: leaf, prefixes: [10.0.0.0/24] }\n"                   \
	"  - { name: spine0, role: spine }\n"

static void test_roce_bad_files_name_file_and_line(void **state)
{
	(void)state;
	expect_error("nmae: x\n", 1, "unknown key 'nmae' (expected name, mtu, defaults, qos, switches or links)");
	expect_error(TWO_SWITCHES "links:\n  - { a: leaf0:swp1, b: spine0:swp1, speed: fast }\n", 5,
		     "speed must be a speed like 100G, not 'fast'");
	expect_error(TWO_SWITCHES "  - { name: leaf0, tier: 0 }\n", 4, "switch leaf0 is already described (line 2)");
	expect_error(TWO_SWITCHES "links:\n  - { a: leaf0:swp1, b: spine9:swp1 }\n", 5, "unknown switch 'spine9'");
	expect_error(TWO_SWITCHES "links:\n  - { a: leaf0:swp1, b: spine0:swp1 }\n  - { a: leaf0:swp1, b: spine0:swp2 }\n",
		     6, "leaf0:swp1 is already in use");
	expect_error("switches:\n  - { name: leaf0, tier: 0, prefixes: [10.0.0.1/24] }\n", 2,
		     "'10.0.0.1/24' has host bits set beyond /24");
	expect_error("switches:\n  - { name: a, tier: 0, prefixes: [10.0.0.0/24] }\n"
		     "  - { name: b, tier: 0, prefixes: [10.0.0.0/24] }\n",
		     3, "prefix 10.0.0.0/24 is already behind a");
	expect_error("switches:\n  - { name: leaf0, prefixes: [10.0.0.0/24] }\n", 2,
		     "switch leaf0 needs a tier (0 for leaves) or a role");
	expect_error("qos:\n  lossless: [ { priority: 3, dscp: 26 } ]\n  cnp: { priority: 3, dscp: 48 }\n", 3,
		     "CNPs must not share lossless priority 3");
	expect_error("qos:\n  lossless: [ { priority: 3, dscp: [26, 26] } ]\n", 2, "DSCP 26 is already mapped (line 2)");
	expect_error(TWO_SWITCHES "links: [ { a: leaf0:swp1 }\n", 5, "did not find expected ',' or ']'");
	expect_error("", 1, "the file is empty");
	expect_error(TWO_SWITCHES, 2, "switch leaf0 has no links");
}

/* Plans a generated fat tree written as RoCE YAML. */
static void plan_generated(unsigned levels, unsigned radix, unsigned links, unsigned switches,
			   struct roce_fabric *rf, struct roce_plan *p)
{
	struct fattree_spec spec = { .levels = levels, .radix = radix, .remove_links = links,
				     .remove_switches = switches, .seed = 5 };
	struct fabric f;
	char err[ROCE_ERR_LEN];
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	snprintf(path, sizeof(path), "/tmp/test_roce_XXXXXX");
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");
	assert_int_equal(roce_gen_write(out, &f, "generated"), 0);
	fclose(out);
	fabric_free(&f);
	assert_int_equal(roce_load(path, rf, err), 0);
	unlink(path);
	struct roce_plan_options o = { 0 };
	assert_int_equal(roce_plan(rf, &o, p), 0);
}

/* Every failure of every link was analysed and is safe, and none cut a leaf off. */
static void assert_every_failure_safe(const struct roce_fabric *rf, const struct roce_plan *p)
{
	assert_int_equal(p->nfailures, rf->nlinks);
	for (size_t i = 0; i < p->nfailures; i++) {
		assert_true(roce_scenario_safe(&p->failures[i]));
		assert_int_equal(p->failures[i].cut_pairs, 0);
		assert_int_equal(p->failures[i].check.unreachable, 0);
	}
}

static void test_roce_two_tier_full_clos_is_safe_as_designed_and_after_each_failure(void **state)
{
	(void)state;
	struct roce_fabric rf;
	struct roce_plan p;
	plan_generated(2, 8, 0, 0, &rf, &p);
	assert_int_equal(rf.nsw, 12);
	assert_int_equal(rf.nlinks, 32);
	assert_true(roce_scenario_safe(&p.design));
	assert_false(p.design.center);
	/* 32 links both ways; each of the 32 up-channels feeds the 7 other leaves' down-channels */
	assert_int_equal(p.design.check.cbd.channels, 64);
	assert_int_equal(p.design.check.cbd.dependencies, 32 * 7);
	/* a leaf reaches another leaf's prefix over all 4 spines */
	const uint8_t *ports;
	assert_int_equal(ecmp_hops(&p.tables, 1, 0, &ports), 4);
	assert_every_failure_safe(&rf, &p);
	roce_plan_free(&p);
	roce_free(&rf);
}

static void test_roce_three_tier_degraded_clos_is_safe_after_each_failure(void **state)
{
	(void)state;
	struct roce_fabric rf;
	struct roce_plan p;
	plan_generated(3, 8, 6, 2, &rf, &p);
	assert_int_equal(rf.nsw, 78);
	assert_true(roce_scenario_safe(&p.design));
	assert_int_equal(p.design.check.unreachable, 0);
	assert_int_equal(p.design.check.loops, 0);
	assert_int_equal(p.design.check.cbd.cycle_len, 0);
	assert_every_failure_safe(&rf, &p);
	roce_plan_free(&p);
	roce_free(&rf);
}

static void test_roce_spine_ring_names_the_shortest_path_cycle_and_plans_up_down(void **state)
{
	(void)state;
	struct roce_fabric rf;
	struct roce_plan p;
	struct roce_plan_options o = { 0 };
	char err[ROCE_ERR_LEN], cycle[512];
	assert_int_equal(roce_load(FABRICS_DIR "/roce-spine-ring.yaml", &rf, err), 0);
	assert_int_equal(roce_plan(&rf, &o, &p), 0);
	roce_cycle_text(&p, &p.design.shortest.cbd, cycle, sizeof(cycle));
	assert_string_equal(cycle, "spine0:swp2 -> spine1:swp2 -> spine2:swp2 -> spine3:swp2 -> spine4:swp2 -> spine0:swp2");
	assert_true(roce_scenario_safe(&p.design));
	assert_int_equal(p.design.cut_pairs, 0);
	/* a leaf under one spine cut off: the rest stay safe; losing a ring link leaves a line */
	assert_int_equal(p.nfailures, 10);
	for (size_t i = 0; i < p.nfailures; i++)
		assert_true(roce_scenario_safe(&p.failures[i]));
	assert_int_equal(p.failures[0].cut_pairs, 8);	/* leaf0 and the 4 other prefixes, both ways */
	/* a spine down takes its leaf with it (8 pairs) and breaks the ring into a line: still up/down safe */
	assert_int_equal(p.nswitch_failures, 10);
	for (size_t i = 0; i < p.nswitch_failures; i++) {
		const struct roce_scenario *sc = &p.switch_failures[i];
		assert_true(roce_scenario_safe(sc));
		assert_int_equal(sc->failed_link, ROCE_NONE);
		assert_int_equal(sc->cut_pairs, 8);
	}
	assert_string_equal(rf.sw[p.switch_failures[5].failed_switch].name, "spine0");
	roce_plan_free(&p);
	roce_free(&rf);
}

static void test_ecmp_check_finds_a_planted_loop(void **state)
{
	(void)state;
	struct roce_fabric rf;
	struct roce_plan p;
	struct ecmp_report r;
	plan_generated(2, 4, 0, 0, &rf, &p);
	/* send spine S0 (node 4) back up... to leaf L1 for L0's prefix, and L1 back to S0 */
	struct ecmp_tables *t = &p.tables;
	const struct node *s0 = p.f.nodes[4], *l1 = p.f.nodes[1];
	assert_string_equal(s0->desc, "S0");
	uint8_t s0_to_l1 = 2, l1_to_s0 = 3;
	assert_ptr_equal(s0->ports[s0_to_l1].remote, l1);
	assert_ptr_equal(l1->ports[l1_to_s0].remote, s0);
	t->port[0][t->start[0][4]] = s0_to_l1;
	for (uint32_t k = t->start[0][1]; k < t->start[0][2]; k++)
		t->port[0][k] = l1_to_s0;
	assert_int_equal(ecmp_check(t, p.source, p.lossless, &r), 0);
	assert_int_equal(r.loops, 1);
	assert_string_equal(r.first_problem, "forwarding loop towards L0: L1 -> S0 -> L1");
	roce_plan_free(&p);
	roce_free(&rf);
}

/* The ASN plan (routing/roce_asn.c) of text: assigned or checked. */
static void asn_plan_of(const char *text, struct roce_fabric *rf, struct roce_asn_plan *a)
{
	char err[ROCE_ERR_LEN];
	write_temp(text);
	assert_int_equal(roce_load(path, rf, err), 0);
	unlink(path);
	assert_int_equal(roce_asn_plan(rf, a), 0);
}

#define TWO_PODS                                                                        \
	"  - { name: l0, tier: 0, prefixes: [10.0.0.0/24] }\n"                          \
	"  - { name: l1, tier: 0, prefixes: [10.0.1.0/24] }\n"                          \
	"  - { name: l2, tier: 0, prefixes: [10.0.2.0/24] }\n"                          \
	"  - { name: a0, tier: 1 }\n  - { name: a1, tier: 1 }\n  - { name: a2, tier: 1 }\n" \
	"  - { name: c0, tier: 2 }\n"                                                   \
	"links:\n"                                                                      \
	"  - { a: l0:p1, b: a0:p1 }\n  - { a: l0:p2, b: a1:p1 }\n"                       \
	"  - { a: l1:p1, b: a1:p2 }\n  - { a: l2:p1, b: a2:p1 }\n"                       \
	"  - { a: a0:p9, b: c0:p1 }\n  - { a: a1:p9, b: c0:p2 }\n  - { a: a2:p9, b: c0:p3 }\n"

/*
 * Assigned: each leaf its own ASN; a0 and a1 share l0, so one pod (and a1
 * brings l1); a2 is a pod alone; the top tier one ASN. Given ASNs that let
 * a route down to l0 and up again, or leaves that share one, or some
 * switches without one, are refused with the switches named.
 */
static void test_roce_asn_plan_assigns_pods_and_names_valleys(void **state)
{
	struct roce_fabric rf;
	struct roce_asn_plan a;
	asn_plan_of("switches:\n" TWO_PODS, &rf, &a);
	assert_true(a.assigned && a.safe);
	assert_true(a.asn[0] != a.asn[1] && a.asn[1] != a.asn[2]);
	assert_int_equal(a.asn[3], a.asn[4]);
	assert_true(a.asn[5] != a.asn[3]);
	assert_int_equal(a.asn[6], ROCE_ASN_BASE);
	assert_int_equal(a.asn[3], ROCE_ASN_BASE + 1001);
	assert_int_equal(a.asn[5], ROCE_ASN_BASE + 1002);
	roce_asn_free(&a);
	roce_free(&rf);

	asn_plan_of("switches:\n"
		    "  - { name: l0, tier: 0, asn: 1, prefixes: [10.0.0.0/24] }\n"
		    "  - { name: l1, tier: 0, asn: 2, prefixes: [10.0.1.0/24] }\n"
		    "  - { name: s0, tier: 1, asn: 10 }\n  - { name: s1, tier: 1, asn: 11 }\n"
		    "links:\n  - { a: l0:p1, b: s0:p1 }\n  - { a: l0:p2, b: s1:p1 }\n"
		    "  - { a: l1:p1, b: s0:p2 }\n  - { a: l1:p2, b: s1:p2 }\n", &rf, &a);
	assert_false(a.assigned || a.safe);
	assert_string_equal(a.problem, "valley: s0 (AS 10) and s1 (AS 11) are both above l0, so a route can come "
			    "down to l0 and go up again; give them one ASN (RFC 7938)");
	roce_asn_free(&a);
	roce_free(&rf);

	asn_plan_of("switches:\n"
		    "  - { name: l0, tier: 0, asn: 7, prefixes: [10.0.0.0/24] }\n"
		    "  - { name: l1, tier: 0, asn: 7, prefixes: [10.0.1.0/24] }\n"
		    "  - { name: s0, tier: 1, asn: 10 }\n"
		    "links:\n  - { a: l0:p1, b: s0:p1 }\n  - { a: l1:p1, b: s0:p2 }\n", &rf, &a);
	assert_string_equal(a.problem, "l0 and l1 share AS 7: each rejects the other's prefixes");
	roce_asn_free(&a);
	roce_free(&rf);

	asn_plan_of("switches:\n  - { name: l0, tier: 0, asn: 7, prefixes: [10.0.0.0/24] }\n  - { name: s0, tier: 1 }\n"
		    "links:\n  - { a: l0:p1, b: s0:p1 }\n", &rf, &a);
	assert_false(a.safe);
	assert_non_null(strstr(a.problem, "s0 has none: give every switch one, or none"));
	roce_asn_free(&a);
	roce_free(&rf);
}

/*
 * The eBGP simulation (ecmp_bgp) on two leaves under two spines, L0-S0
 * down. With one ASN per spine S0 still reaches L0 the long way, down to
 * L1 and up to S1 (a valley: L1 accepts S1's route and S0 accepts L1's);
 * with RFC 7938's one ASN for both spines L1 rejects it and S0 has no
 * route to L0, as the up/down plan has none.
 */
static void test_ecmp_bgp_follows_the_as_paths(void **state)
{
	struct roce_fabric rf;
	struct fabric f;
	struct swindex x;
	char err[ROCE_ERR_LEN];
	write_temp("switches:\n"
		   "  - { name: l0, tier: 0, prefixes: [10.0.0.0/24] }\n  - { name: l1, tier: 0, prefixes: [10.0.1.0/24] }\n"
		   "  - { name: s0, tier: 1 }\n  - { name: s1, tier: 1 }\n"
		   "links:\n  - { a: l0:p1, b: s0:p1 }\n  - { a: l0:p2, b: s1:p1 }\n"
		   "  - { a: l1:p1, b: s0:p2 }\n  - { a: l1:p2, b: s1:p2 }\n");
	assert_int_equal(roce_load(path, &rf, err), 0);
	unlink(path);
	assert_int_equal(roce_model(&rf, &f), 0);
	fabric_unlink(f.nodes[0], 1);	/* l0:p1 - s0:p1 */
	assert_int_equal(swindex_build(&x, &f), 0);
	bool want[4] = { true, false, false, false };	/* towards l0 */
	const uint8_t *ports;
	size_t unsettled;
	struct ecmp_tables t;
	uint32_t unique[4] = { 1, 2, 10, 11 }, rfc7938[4] = { 1, 2, 10, 10 };
	assert_int_equal(ecmp_bgp(&f, &x, unique, want, &t, &unsettled), 0);
	assert_int_equal(unsettled, 0);
	assert_int_equal(ecmp_hops(&t, 0, 2, &ports), 1);	/* s0 -> l1 (its port 2): down, to go up again */
	assert_int_equal(ports[0], 2);
	assert_int_equal(ecmp_hops(&t, 0, 1, &ports), 1);	/* l1 -> s1 */
	assert_int_equal(ports[0], 2);
	ecmp_free(&t);
	assert_int_equal(ecmp_bgp(&f, &x, rfc7938, want, &t, &unsettled), 0);
	assert_int_equal(ecmp_hops(&t, 0, 2, &ports), 0);	/* s0: no route */
	assert_int_equal(ecmp_hops(&t, 0, 1, &ports), 1);	/* l1 -> s1 -> l0 still */
	assert_int_equal(ports[0], 2);
	ecmp_free(&t);
	swindex_free(&x);
	fabric_free(&f);
	roce_free(&rf);
}

static void test_pfc_headroom_matches_the_worked_example(void **state)
{
	(void)state;
	/*
	 * 100G, 2 m, MTU 9216: two frames 2 * (9216 * 8 + 160) = 147776 bits,
	 * PAUSE 672, interfaces and cable 2 * (122880 + 2 * 5 * 100) = 247760,
	 * response 201728: 597936 bits = 74742 bytes.
	 */
	assert_int_equal(pfc_headroom_bytes(100, 2, 9216), 74742);
	struct ecn_marking e = ecn_defaults(100);
	assert_true(e.min_kb == 12.5 && e.max_kb == 500 && e.probability == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce_bad_files_name_file_and_line),
		cmocka_unit_test(test_roce_two_tier_full_clos_is_safe_as_designed_and_after_each_failure),
		cmocka_unit_test(test_roce_three_tier_degraded_clos_is_safe_after_each_failure),
		cmocka_unit_test(test_roce_spine_ring_names_the_shortest_path_cycle_and_plans_up_down),
		cmocka_unit_test(test_ecmp_check_finds_a_planted_loop),
		cmocka_unit_test(test_pfc_headroom_matches_the_worked_example),
		cmocka_unit_test(test_roce_asn_plan_assigns_pods_and_names_valleys),
		cmocka_unit_test(test_ecmp_bgp_follows_the_as_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
