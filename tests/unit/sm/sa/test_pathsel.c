/*
 * PathRecord selectors: MTU, rate and packet lifetime bounds with each of
 * the four selectors, rates compared by speed (not by code), a bound
 * given without its selector ignored (as OpenSM reads it), the SL held to
 * the routing's, TClass, FlowLabel, HopLimit and QoSClass answered as
 * asked, and a MultiPathRecord read into the same request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "sm/sa/pathsel.h"

/* A path of MTU 4096, 40 Gb/s, lifetime 18, SL 1, reversible. */
static ib_path_rec_t path(void)
{
	ib_path_rec_t r;
	memset(&r, 0, sizeof(r));
	r.mtu = 2 << 6 | IB_MTU_LEN_4096;
	r.rate = 2 << 6 | IB_PATH_RECORD_RATE_40_GBS;
	r.pkt_life = 2 << 6 | 18;
	r.qos_class_sl = cl_hton16(1);
	r.num_path = 0x80 | 1;
	return r;
}

/* Fits path() to a PathRecord request of mask with field set by the caller; false if ruled out. */
static bool fit(ib_net64_t mask, const ib_path_rec_t *req, ib_path_rec_t *out)
{
	struct path_want w;
	sa_path_want_of_pr(req, mask, &w);
	*out = path();
	return sa_path_fit(&w, out);
}

static void mtu_with_each_selector(void **state)
{
	ib_path_rec_t q, r;
	ib_net64_t m = IB_PR_COMPMASK_MTU | IB_PR_COMPMASK_MTUSELEC;
	memset(&q, 0, sizeof(q));
	q.mtu = 0 << 6 | IB_MTU_LEN_2048;	/* greater than 2048 */
	assert_true(fit(m, &q, &r));
	assert_int_equal(r.mtu & 0x3f, IB_MTU_LEN_4096);
	q.mtu = 0 << 6 | IB_MTU_LEN_4096;
	assert_false(fit(m, &q, &r));
	q.mtu = 1 << 6 | IB_MTU_LEN_4096;	/* less than 4096: the largest below */
	assert_true(fit(m, &q, &r));
	assert_int_equal(r.mtu, 2 << 6 | IB_MTU_LEN_2048);
	q.mtu = 1 << 6 | IB_MTU_LEN_256;	/* nothing is below 256 */
	assert_false(fit(m, &q, &r));
	q.mtu = 2 << 6 | IB_MTU_LEN_1024;	/* exactly 1024 */
	assert_true(fit(m, &q, &r));
	assert_int_equal(r.mtu & 0x3f, IB_MTU_LEN_1024);
	q.mtu = 3 << 6 | IB_MTU_LEN_256;	/* largest available */
	assert_true(fit(m, &q, &r));
	assert_int_equal(r.mtu & 0x3f, IB_MTU_LEN_4096);
	q.mtu = 0 << 6 | IB_MTU_LEN_4096;	/* without its selector bit the bound is not read */
	assert_true(fit(IB_PR_COMPMASK_MTU, &q, &r));
}

static void rates_by_speed_not_code(void **state)
{
	ib_path_rec_t q, r;
	ib_net64_t m = IB_PR_COMPMASK_RATE | IB_PR_COMPMASK_RATESELEC;
	assert_int_equal(sa_rate_slower(IB_PATH_RECORD_RATE_5_GBS, IB_PATH_RECORD_RATE_10_GBS),
			 IB_PATH_RECORD_RATE_5_GBS);
	assert_int_equal(sa_rate_slower(0xff, IB_PATH_RECORD_RATE_10_GBS), IB_PATH_RECORD_RATE_10_GBS);
	assert_int_equal(sa_rate_slower(IB_PATH_RECORD_RATE_56_GBS, IB_PATH_RECORD_RATE_14_GBS),
			 IB_PATH_RECORD_RATE_14_GBS);
	memset(&q, 0, sizeof(q));
	q.rate = 1 << 6 | IB_PATH_RECORD_RATE_40_GBS;	/* less than 40: 30 Gb/s, code 4 */
	assert_true(fit(m, &q, &r));
	assert_int_equal(r.rate & 0x3f, IB_PATH_RECORD_RATE_30_GBS);
	q.rate = 0 << 6 | IB_PATH_RECORD_RATE_20_GBS;	/* code 6 > code 7 would say no */
	assert_true(fit(m, &q, &r));
	q.rate = 0 << 6 | IB_PATH_RECORD_RATE_56_GBS;
	assert_false(fit(m, &q, &r));
	q.rate = 2 << 6 | IB_PATH_RECORD_RATE_5_GBS;	/* code 5 > code 7 numerically, slower in fact */
	assert_true(fit(m, &q, &r));
	assert_int_equal(r.rate & 0x3f, IB_PATH_RECORD_RATE_5_GBS);
	q.rate = 2 << 6 | IB_PATH_RECORD_RATE_100_GBS;
	assert_false(fit(m, &q, &r));
	q.rate = 2 << 6 | 63;	/* no such rate */
	assert_false(fit(m, &q, &r));
}

static void lifetime_sl_and_echoed_fields(void **state)
{
	ib_path_rec_t q, r;
	memset(&q, 0, sizeof(q));
	q.pkt_life = 1 << 6 | 10;
	assert_true(fit(IB_PR_COMPMASK_PKTLIFETIME | IB_PR_COMPMASK_PKTLIFETIMESELEC, &q, &r));
	assert_int_equal(r.pkt_life & 0x3f, 9);
	q.pkt_life = 2 << 6 | 20;
	assert_false(fit(IB_PR_COMPMASK_PKTLIFETIME | IB_PR_COMPMASK_PKTLIFETIMESELEC, &q, &r));
	q.qos_class_sl = cl_hton16(0x120 | 2);	/* QoS class 0x12, SL 2: the routing gave SL 1 */
	assert_false(fit(IB_PR_COMPMASK_SL, &q, &r));
	q.qos_class_sl = cl_hton16(0x120 | 1);
	q.tclass = 0x28;
	q.hop_flow_raw = cl_hton32(0x12345u << 8 | 3);
	q.num_path = 0x80;
	assert_true(fit(IB_PR_COMPMASK_SL | IB_PR_COMPMASK_QOS_CLASS | IB_PR_COMPMASK_TCLASS |
			IB_PR_COMPMASK_FLOWLABEL | IB_PR_COMPMASK_HOPLIMIT | IB_PR_COMPMASK_REVERSIBLE, &q, &r));
	assert_int_equal(cl_ntoh16(r.qos_class_sl), 0x121);
	assert_int_equal(r.tclass, 0x28);
	assert_int_equal(cl_ntoh32(r.hop_flow_raw), 0x12345u << 8 | 3);
}

static void multipath_reads_the_same_bounds(void **state)
{
	ib_multipath_rec_t q;
	struct path_want w;
	memset(&q, 0, sizeof(q));
	q.mtu = 1 << 6 | IB_MTU_LEN_4096;
	q.qos_class_sl = cl_hton16(1);
	sa_path_want_of_mpr(&q, IB_MPR_COMPMASK_MTU | IB_MPR_COMPMASK_MTUSELEC | IB_MPR_COMPMASK_SL, &w);
	ib_path_rec_t r = path();
	assert_true(sa_path_fit(&w, &r));
	assert_int_equal(r.mtu & 0x3f, IB_MTU_LEN_2048);
	q.qos_class_sl = cl_hton16(0);
	sa_path_want_of_mpr(&q, IB_MPR_COMPMASK_SL, &w);
	r = path();
	assert_false(sa_path_fit(&w, &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mtu_with_each_selector),
		cmocka_unit_test(rates_by_speed_not_code),
		cmocka_unit_test(lifetime_sl_and_echoed_fields),
		cmocka_unit_test(multipath_reads_the_same_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
