/*
 * Buffer credits for full rate: a 4x SDR link (8 Gb/s of data) on 5 m
 * needs 70 credits per VL, a 4x EDR link (100 Gb/s) 115, and 100 m of
 * cable adds what flies during the longer round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "routing/credits.h"
#include "topology/fabric.h"

static const struct credit_params five_m = { .cable_m = 5, .latency_ns = 100, .mtu = 4096 };

static void test_credits_data_rate_follows_width_and_speed(void **state)
{
	struct port sdr = { .width_active = 2, .speed_active = 1 };
	struct port edr = { .width_active = 2, .speed_active = 1, .speed_ext_active = 2 };
	struct port hdr1x = { .width_active = 1, .speed_ext_active = 4 };
	assert_true(fabric_port_data_gbps(&sdr) == 8.0);
	assert_true(fabric_port_data_gbps(&edr) == 100.0);
	assert_true(fabric_port_data_gbps(&hdr1x) == 50.0);
}

static void test_credits_per_vl_cover_a_round_trip_and_a_packet(void **state)
{
	/* 1 byte/ns * 250 ns + 4096 + 128 = 4474 bytes = 69.9 credits */
	assert_int_equal(credits_per_vl(8.0, &five_m), 70);
	/* 12.5 bytes/ns * 250 ns + 4224 = 7349 bytes */
	assert_int_equal(credits_per_vl(100.0, &five_m), 115);
	struct credit_params long_cable = five_m;
	long_cable.cable_m = 100;	/* RTT 1200 ns: 1200 + 4224 bytes */
	assert_int_equal(credits_per_vl(8.0, &long_cable), 85);
	assert_int_equal(credits_per_vl(0, &five_m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credits_data_rate_follows_width_and_speed),
		cmocka_unit_test(test_credits_per_vl_cover_a_round_trip_and_a_packet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
