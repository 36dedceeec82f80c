/*
 * The guards against hostile senders that need no simulator: where an SMP
 * came from (sm/mad/origin.c: a directed-route SMP's return path walked back
 * through the fabric, a LID-routed one's source LID) and the per-source
 * budgets (sm/mad/budget.c: burst, refill, the first refusal named once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sm/mad/budget.h"
#include "sm/mad/origin.h"
#include "fixtures.h"

/* A directed-route SMP that crossed the switches on ports in[1..hops] (each hop's input port) to us. */
static ib_smp_t dr_smp(const uint8_t *in, unsigned hops)
{
	ib_smp_t smp;
	memset(&smp, 0, sizeof(smp));
	smp.mgmt_class = IB_MCLASS_SUBN_DIR;
	smp.dr_slid = smp.dr_dlid = IB_LID_PERMISSIVE;
	smp.hop_count = (uint8_t)hops;
	memcpy(smp.return_path + 1, in, hops);
	return smp;
}

static void directed_route_from_b_and_from_a_switch(void **state)
{
	(void)state;
	struct fabric f;
	ca_switch_switch_ca(&f);
	struct mad_origin dr = { .slid = 0xffff, .directed = true };
	uint8_t port = 99;
	/* B -> S2 (in on 3) -> S1 (in on 4) -> A (in on 1) */
	ib_smp_t smp = dr_smp((const uint8_t[]){ 3, 4, 1 }, 3);
	const struct node *n = smp_origin(&f, 0xa1, &smp, &dr, &port);
	assert_non_null(n);
	assert_string_equal(n->desc, "B");
	assert_int_equal(port, 1);
	assert_true(fabric_port_guid(n, port) == 0xb1);
	/* S2 itself (its port 0) -> S1 (in on 4) -> A */
	smp = dr_smp((const uint8_t[]){ 4, 1 }, 2);
	n = smp_origin(&f, 0xa1, &smp, &dr, &port);
	assert_non_null(n);
	assert_string_equal(n->desc, "S2");
	assert_int_equal(port, 0);
	assert_true(fabric_port_guid(n, port) == 0x52);
	fabric_free(&f);
}

static void paths_that_lead_nowhere_are_refused(void **state)
{
	(void)state;
	struct fabric f;
	ca_switch_switch_ca(&f);
	struct mad_origin dr = { .slid = 0xffff, .directed = true };
	uint8_t port;
	ib_smp_t smp = dr_smp((const uint8_t[]){ 7, 4, 1 }, 3);	/* S2 port 7: nothing there */
	assert_null(smp_origin(&f, 0xa1, &smp, &dr, &port));
	smp = dr_smp((const uint8_t[]){ 3, 4, 2 }, 3);	/* a CA receives on its own port only */
	assert_null(smp_origin(&f, 0xa1, &smp, &dr, &port));
	smp = dr_smp((const uint8_t[]){ 0 }, 0);	/* hop count 0: from ourselves */
	assert_null(smp_origin(&f, 0xa1, &smp, &dr, &port));
	smp = dr_smp((const uint8_t[]){ 3, 4, 1 }, 3);
	smp.dr_slid = cl_hton16(4);	/* a LID-routed part first: the walk would stop short of the sender */
	assert_null(smp_origin(&f, 0xa1, &smp, &dr, &port));
	smp = dr_smp((const uint8_t[]){ 3, 4, 1 }, 3);
	smp.hop_count = 200;	/* beyond the 64-entry path */
	assert_null(smp_origin(&f, 0xa1, &smp, &dr, &port));
	smp = dr_smp((const uint8_t[]){ 3, 4, 1 }, 3);
	assert_null(smp_origin(&f, 0xdead, &smp, &dr, &port));	/* we are not in this fabric */
	fabric_free(&f);
}

static void lid_routed_by_source_lid(void **state)
{
	(void)state;
	struct fabric f;
	ca_switch_switch_ca(&f);
	ib_smp_t smp;
	memset(&smp, 0, sizeof(smp));
	smp.mgmt_class = IB_MCLASS_SUBN_LID;
	uint8_t port;
	struct mad_origin from = { .slid = 3 };
	const struct node *n = smp_origin(&f, 0xa1, &smp, &from, &port);
	assert_non_null(n);
	assert_string_equal(n->desc, "S2");
	from.slid = 9;	/* no such LID */
	assert_null(smp_origin(&f, 0xa1, &smp, &from, &port));
	from.slid = 0xc001;	/* multicast is never a source */
	assert_null(smp_origin(&f, 0xa1, &smp, &from, &port));
	fabric_free(&f);
}

static void budget_burst_refill_and_first_refusal(void **state)
{
	(void)state;
	struct budget b;
	budget_init(&b, 6);	/* 6 a minute: one every 10 s */
	for (int i = 0; i < 6; i++)
		assert_int_equal(budget_charge(&b, 7, 1000), BUDGET_OK);
	assert_int_equal(budget_charge(&b, 7, 1000), BUDGET_FIRST_OVER);
	assert_int_equal(budget_charge(&b, 7, 2000), BUDGET_OVER);
	assert_int_equal(budget_charge(&b, 8, 2000), BUDGET_OK);	/* another source has its own */
	/* 9.999 s is not yet a token, even charged every millisecond in between */
	for (uint64_t t = 2001; t < 11000; t++)
		assert_int_equal(budget_charge(&b, 7, t), BUDGET_OVER);
	assert_int_equal(budget_charge(&b, 7, 11000), BUDGET_OK);
	assert_int_equal(budget_charge(&b, 7, 11001), BUDGET_FIRST_OVER);	/* named again after a success */
	/* an hour of quiet refills only the burst */
	for (int i = 0; i < 6; i++)
		assert_int_equal(budget_charge(&b, 7, 3600000), BUDGET_OK);
	assert_int_equal(budget_charge(&b, 7, 3600000), BUDGET_FIRST_OVER);
	/* LIDs beyond the unicast range share one bucket */
	for (int i = 0; i < 6; i++)
		assert_int_equal(budget_charge(&b, (uint16_t)(0xc000 + i), 0), BUDGET_OK);
	assert_int_equal(budget_charge(&b, 0xffff, 0), BUDGET_FIRST_OVER);
	budget_free(&b);
	budget_init(&b, 0);	/* 0: no limit */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(budget_charge(&b, 7, 0), BUDGET_OK);
	budget_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(directed_route_from_b_and_from_a_switch),
		cmocka_unit_test(paths_that_lead_nowhere_are_refused),
		cmocka_unit_test(lid_routed_by_source_lid),
		cmocka_unit_test(budget_burst_refill_and_first_refusal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
