/*
 * LID assignment: stored LIDs win, a port's own valid LID is taken over,
 * LIDs stored for absent GUIDs stay reserved, new ports get the lowest
 * free LID, and a second assignment from the stored result changes nothing.
 * OpenSM's guid2lid file is read (bad lines named) and its LIDs, preset on
 * the ports of a fabric with an empty store, are kept and stored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sm/sweep/lidmgr.h"

/* One switch (SM on its port 0) with three CAs on ports 1..3. */
static void small_fabric(struct fabric *f)
{
	fabric_init(f);
	struct node *sw = fabric_add_node(f, NODE_SWITCH, 0x200000, 8, "sw");
	for (unsigned i = 0; i < 3; i++) {
		struct node *ca = fabric_add_node(f, NODE_CA, 0x100000 + 2 * i, 1, "ca");
		ca->hops = 1;
		fabric_link(sw, (uint8_t)(i + 1), ca, 1);
	}
}

static uint16_t lid_of(struct fabric *f, size_t node)
{
	struct node *n = f->nodes[node];
	return n->type == NODE_SWITCH ? n->ports[0].lid : n->ports[1].lid;
}

static void test_lid_fresh_fabric_gets_lids_one_to_four(void **state)
{
	struct fabric f;
	struct lid_result r;
	small_fabric(&f);
	assert_int_equal(lid_assign(&f, NULL, 0, &r), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(lid_of(&f, i), i + 1);
	assert_int_equal(r.fresh, 4);
	assert_int_equal(r.n_assigned, 4);
	lid_result_free(&r);
	fabric_free(&f);
}

static void test_lid_stored_lids_are_kept_and_reserved(void **state)
{
	struct fabric f;
	struct lid_result r;
	small_fabric(&f);
	/* the switch had 10, CA 0 had 7; LID 1 belongs to a GUID that is absent */
	struct db_lid stored[] = { { 0x200000, 10 }, { 0x100001, 7 }, { 0xdead, 1 } };
	assert_int_equal(lid_assign(&f, stored, 3, &r), 0);
	assert_int_equal(lid_of(&f, 0), 10);
	assert_int_equal(lid_of(&f, 1), 7);
	assert_int_equal(lid_of(&f, 2), 2);	/* 1 stays reserved for 0xdead */
	assert_int_equal(lid_of(&f, 3), 3);
	assert_int_equal(r.kept, 2);
	assert_int_equal(r.n_assigned, 2);
	lid_result_free(&r);
	fabric_free(&f);
}

static void test_lid_port_lid_is_taken_over_unless_reserved(void **state)
{
	struct fabric f;
	struct lid_result r;
	small_fabric(&f);
	f.nodes[1]->ports[1].lid = 40;	/* set by an earlier SM: keep it */
	f.nodes[2]->ports[1].lid = 5;	/* but 5 is stored for another GUID */
	f.nodes[3]->ports[1].lid = 0xc001;	/* a multicast LID: never */
	struct db_lid stored[] = { { 0xbeef, 5 } };
	assert_int_equal(lid_assign(&f, stored, 1, &r), 0);
	assert_int_equal(lid_of(&f, 1), 40);
	assert_int_equal(lid_of(&f, 0), 1);
	assert_int_equal(lid_of(&f, 2), 2);
	assert_int_equal(lid_of(&f, 3), 3);
	assert_int_equal(r.reused, 1);
	lid_result_free(&r);
	fabric_free(&f);
}

static void test_lid_second_assignment_from_store_changes_nothing(void **state)
{
	struct fabric f, g;
	struct lid_result r1, r2;
	small_fabric(&f);
	small_fabric(&g);
	assert_int_equal(lid_assign(&f, NULL, 0, &r1), 0);
	assert_int_equal(lid_assign(&g, r1.assigned, r1.n_assigned, &r2), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(lid_of(&g, i), lid_of(&f, i));
	assert_int_equal(r2.kept, 4);
	assert_int_equal(r2.n_assigned, 0);
	lid_result_free(&r1);
	lid_result_free(&r2);
	fabric_free(&f);
	fabric_free(&g);
}

static void test_lid_opensm_guid2lid_moves_over(void **state)
{
	char path[64], err[600];
	snprintf(path, sizeof(path), "/tmp/fabricd-guid2lid.%d", (int)getpid());
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	/* the switch (port GUID = node GUID) and the second CA's port, as OpenSM writes them */
	fprintf(fp, "0x0000000000200000 0x0010 0x0010\n0x0000000000100003 0x0020 0x0020\n");
	fclose(fp);
	struct db_lid *lids;
	size_t n;
	assert_int_equal(lid_read_guid2lid(path, &lids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	struct fabric f;
	struct lid_result r;
	small_fabric(&f);
	assert_int_equal(lid_preset(&f, lids, n), 2);
	assert_int_equal(lid_assign(&f, NULL, 0, &r), 0);
	assert_int_equal(lid_of(&f, 0), 0x10);
	assert_int_equal(lid_of(&f, 2), 0x20);
	assert_int_equal(r.reused, 2);
	assert_int_equal(r.n_assigned, 4);	/* all stored, the imported ones too */
	free(lids);
	lid_result_free(&r);
	fabric_free(&f);

	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "0x0000000000200000 0x0010 0x0010\n0x0000000000100003 0xc001 0xc001\n");
	fclose(fp);
	assert_int_equal(lid_read_guid2lid(path, &lids, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: expected '0xGUID 0xLID 0xLID' with a unicast LID"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lid_fresh_fabric_gets_lids_one_to_four),
		cmocka_unit_test(test_lid_stored_lids_are_kept_and_reserved),
		cmocka_unit_test(test_lid_port_lid_is_taken_over_unless_reserved),
		cmocka_unit_test(test_lid_second_assignment_from_store_changes_nothing),
		cmocka_unit_test(test_lid_opensm_guid2lid_moves_over),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
