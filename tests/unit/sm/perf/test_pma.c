/*
 * The PerfMgt wire format (sm/perf/pma.c) and the running-total arithmetic
 * (topology/portcounters.c):
 * - a reset names each counter by its IBA CounterSelect bit (XmitWait by
 *   CounterSelect2), a Get names none;
 * - every PortCounters field decodes to its counter, the 4-bit pair too;
 *   an answer for another port is refused;
 * - ClassPortInfo capability bits;
 * - deltas across a reset, a saturated reading, and the BER estimate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "sm/perf/pma.h"

static void request_selects(void **state)
{
	uint8_t data[IB_PM_DATA_SIZE];
	bool reset[PC_COUNT] = { 0 };
	ib_port_counters_t pc;
	pma_counters_request(data, 5, NULL);
	memcpy(&pc, data, sizeof(pc));
	assert_int_equal(pc.port_select, 5);
	assert_int_equal(pc.counter_select, 0);
	assert_int_equal(pc.counter_select2, 0);
	reset[PC_SYMBOL_ERRORS] = reset[PC_LINK_DOWNED] = reset[PC_RCV_PKTS] = reset[PC_XMIT_WAIT] = true;
	pma_counters_request(data, 7, reset);
	memcpy(&pc, data, sizeof(pc));
	assert_int_equal(cl_ntoh16(pc.counter_select), (1u << 0) | (1u << 2) | (1u << 15));
	assert_int_equal(pc.counter_select2, 1);
}

static void decode_counters(void **state)
{
	uint8_t data[IB_PM_DATA_SIZE] = { 0 };
	ib_port_counters_t pc = {
		.port_select = 3,
		.symbol_err_cnt = cl_hton16(0xfffe),
		.link_err_recover = 9,
		.link_downed = 2,
		.rcv_err = cl_hton16(11),
		.xmit_discards = cl_hton16(12),
		.link_int_buffer_overrun = 0x53,
		.vl15_dropped = cl_hton16(13),
		.xmit_data = cl_hton32(0xdeadbeef),
		.rcv_pkts = cl_hton32(77),
		.xmit_wait = cl_hton32(1234),
	};
	struct pc_values v;
	memcpy(data, &pc, sizeof(pc));
	assert_int_equal(pma_decode_counters(data, 3, true, &v), 0);
	assert_int_equal(v.v[PC_SYMBOL_ERRORS], 0xfffe);
	assert_int_equal(v.v[PC_LINK_ERROR_RECOVERY], 9);
	assert_int_equal(v.v[PC_LINK_DOWNED], 2);
	assert_int_equal(v.v[PC_RCV_ERRORS], 11);
	assert_int_equal(v.v[PC_XMIT_DISCARDS], 12);
	assert_int_equal(v.v[PC_LOCAL_LINK_INTEGRITY_ERRORS], 5);
	assert_int_equal(v.v[PC_EXCESSIVE_BUFFER_OVERRUN], 3);
	assert_int_equal(v.v[PC_VL15_DROPPED], 13);
	assert_int_equal(v.v[PC_XMIT_DATA], 0xdeadbeef);
	assert_int_equal(v.v[PC_RCV_PKTS], 77);
	assert_int_equal(v.v[PC_XMIT_WAIT], 1234);
	assert_int_equal(pma_decode_counters(data, 3, false, &v), 0);
	assert_int_equal(v.v[PC_XMIT_WAIT], 0);	/* not offered: not believed */
	assert_int_equal(pma_decode_counters(data, 4, true, &v), -1);

	ib_port_counters_ext_t ext = { .port_select = 3, .xmit_data = cl_hton64(1ULL << 40) };
	memset(data, 0, sizeof(data));
	memcpy(data, &ext, sizeof(ext));
	assert_int_equal(pma_decode_extended(data, 3, &v), 0);
	assert_int_equal(v.v[PC_XMIT_DATA], 1ULL << 40);
	assert_int_equal(pma_decode_extended(data, 1, &v), -1);
}

static void decode_caps(void **state)
{
	uint8_t data[IB_PM_DATA_SIZE] = { 0 };
	ib_class_port_info_t cpi = { .cap_mask = IB_PM_EXT_WIDTH_SUPPORTED | IB_PM_PC_XMIT_WAIT_SUP };
	memcpy(data, &cpi, sizeof(cpi));
	struct pma_caps c = pma_decode_caps(data);
	assert_true(c.extended && c.xmit_wait && !c.all_port_select);
	cpi.cap_mask = IB_PM_ALL_PORT_SELECT;
	memcpy(data, &cpi, sizeof(cpi));
	c = pma_decode_caps(data);
	assert_true(!c.extended && !c.xmit_wait && c.all_port_select);
}

static void deltas(void **state)
{
	bool sat = false;
	assert_int_equal(pc_delta(10, 25, pc_max(PC_SYMBOL_ERRORS), &sat), 15);
	assert_false(sat);
	assert_int_equal(pc_delta(500, 20, pc_max(PC_SYMBOL_ERRORS), &sat), 20);	/* reset or reboot */
	assert_false(sat);
	assert_int_equal(pc_delta(0, 0xffff, pc_max(PC_SYMBOL_ERRORS), &sat), 0xffff);
	assert_true(sat);
	sat = false;
	assert_int_equal(pc_delta(1ULL << 40, (1ULL << 40) + 5, UINT64_MAX, &sat), 5);
	assert_false(sat);
	assert_int_equal(pc_max(PC_LINK_DOWNED), 0xff);
	assert_string_equal(pc_name(PC_XMIT_WAIT), "xmit_wait");
	/* 4x EDR (100 Gb/s) for 10 s: 1e12 bits; 100 symbol errors: 1e-10 */
	assert_float_equal(pc_ber(100, 100, 10), 1e-10, 1e-15);
	assert_float_equal(pc_ber(100, 0, 10), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_selects),
		cmocka_unit_test(decode_counters),
		cmocka_unit_test(decode_caps),
		cmocka_unit_test(deltas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
