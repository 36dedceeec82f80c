/*
 * The RMPP sender (sm/mad/rmpp.c) over a fake MAD port: mad_send_gsi is
 * replaced at link time (-Wl,--wrap) and records every MAD; the test is
 * the receiver, sending ACKs, STOPs and bad ACKs, and lets the timeout run
 * on a real event loop for a few milliseconds.
 *
 * - Windows: segment 1 alone until the first ACK; each ACK opens the
 *   window it names; LAST on the last segment; the last ACK ends it.
 * - A repeated request while the answer goes out sends nothing more.
 * - No ACK: the window goes again from the first segment not acknowledged,
 *   up to the retries, then ABORT.
 * - An ACK of a segment never sent, or a window ending before its segment:
 *   ABORT. A STOP ends the transfer quietly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"
#include "sm/mad/rmpp.h"

static struct sent {
	uint8_t type, flags;
	uint32_t seg;
} sent[64];
static unsigned nsent;

int __wrap_mad_send_gsi(struct mad_port *mp, const ib_sa_mad_t *mad, const struct mad_origin *to)
{
	assert_true(nsent < 64);
	assert_int_equal(to->sl, 3);	/* every segment and control MAD on the SL the request came on */
	sent[nsent++] = (struct sent){ mad->rmpp_type, mad->rmpp_flags & 7, cl_ntoh32(mad->seg_num) };
	return 0;
}

static const struct mad_origin host = { .slid = 9, .qpn = 1, .sl = 3 };
static struct evloop *loop;
static struct rmpp_sender *rs;
static uint8_t records[1000];	/* five segments of 200 bytes */

static int setup(void **state)
{
	loop = evl_new();
	rs = rmpp_new(loop, NULL, 30, 2);
	nsent = 0;
	return loop && rs ? 0 : -1;
}

static int teardown(void **state)
{
	rmpp_free(rs);
	evl_free(loop);
	return 0;
}

static ib_sa_mad_t header(uint64_t tid)
{
	ib_sa_mad_t m;
	memset(&m, 0, sizeof(m));
	m.base_ver = 1;
	m.mgmt_class = IB_MCLASS_SUBN_ADM;
	m.class_ver = 2;
	m.method = IB_MAD_METHOD_GETTABLE_RESP;
	m.attr_id = IB_MAD_ATTR_NODE_RECORD;
	m.trans_id = cl_hton64(tid);
	return m;
}

/* What the receiver sends back: type, the segment, the window's last segment. */
static void reply(uint64_t tid, uint8_t type, uint32_t seg, uint32_t window_last)
{
	ib_sa_mad_t m = header(tid);
	m.method = IB_MAD_METHOD_GETTABLE;	/* the data's method, response bit off */
	m.rmpp_version = 1;
	m.rmpp_type = type;
	m.rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	m.seg_num = cl_hton32(seg);
	m.paylen_newwin = cl_hton32(window_last);
	assert_true(rmpp_is_control(&m));
	rmpp_receive(rs, &m, &host);
}

static void run_for(uint64_t ms)
{
	test_run_loop_for(loop, ms);
}

/* The MADs sent since `from`: data segments by number, an ABORT as "A", e.g. "2,2,A". */
static const char *since(unsigned from)
{
	static char text[128];
	size_t at = 0;
	text[0] = '\0';
	for (unsigned i = from; i < nsent && at < sizeof(text); i++) {
		if (sent[i].type == IB_RMPP_TYPE_ABORT)
			at += (size_t)snprintf(text + at, sizeof(text) - at, "%sA", i > from ? "," : "");
		else
			at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%u", i > from ? "," : "", sent[i].seg);
	}
	return text;
}

static void windows_open_with_each_ack(void **state)
{
	ib_sa_mad_t h = header(1);
	assert_int_equal(rmpp_send(rs, &h, &host, records, sizeof(records)), 0);
	assert_string_equal(since(0), "1");
	assert_true(sent[0].flags & IB_RMPP_FLAG_FIRST);
	assert_int_equal(rmpp_send(rs, &h, &host, records, sizeof(records)), 0);	/* asked again */
	assert_int_equal(nsent, 1);
	reply(1, IB_RMPP_TYPE_ACK, 1, 3);
	assert_string_equal(since(1), "2,3");
	reply(1, IB_RMPP_TYPE_ACK, 2, 3);	/* a window reached already: nothing new */
	assert_int_equal(nsent, 3);
	reply(1, IB_RMPP_TYPE_ACK, 3, 5);
	assert_string_equal(since(3), "4,5");
	assert_true(sent[4].flags & IB_RMPP_FLAG_LAST);
	reply(1, IB_RMPP_TYPE_ACK, 5, 5);	/* done: a repeated ACK finds no transfer */
	reply(1, IB_RMPP_TYPE_ACK, 5, 5);
	run_for(100);
	assert_int_equal(nsent, 5);
}

static void no_ack_resends_then_aborts(void **state)
{
	ib_sa_mad_t h = header(2);
	assert_int_equal(rmpp_send(rs, &h, &host, records, sizeof(records)), 0);
	reply(2, IB_RMPP_TYPE_ACK, 1, 2);	/* 2 goes; then silence */
	assert_string_equal(since(0), "1,2");
	run_for(500);	/* 2 retries of the window from segment 2 (30 ms apart), then ABORT */
	assert_string_equal(since(2), "2,2,A");
}

static void bad_acks_abort_and_stop_ends(void **state)
{
	ib_sa_mad_t h = header(3);
	assert_int_equal(rmpp_send(rs, &h, &host, records, sizeof(records)), 0);
	reply(3, IB_RMPP_TYPE_ACK, 4, 5);	/* segment 4 was never sent */
	assert_string_equal(since(1), "A");
	h = header(4);
	assert_int_equal(rmpp_send(rs, &h, &host, records, sizeof(records)), 0);
	reply(4, IB_RMPP_TYPE_ACK, 1, 0);	/* a window ending before its segment */
	assert_string_equal(since(3), "A");
	h = header(5);
	assert_int_equal(rmpp_send(rs, &h, &host, records, sizeof(records)), 0);
	reply(5, IB_RMPP_TYPE_STOP, 1, 0);
	unsigned before = nsent;
	run_for(200);	/* stopped: no resend, no ABORT */
	assert_int_equal(nsent, before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(windows_open_with_each_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(no_ack_resends_then_aborts, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_acks_abort_and_stop_ends, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
