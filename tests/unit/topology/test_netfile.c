/*
 * Net-file reader and writer: the ibsim examples parse into the right
 * fabric, written files read back identically, and each malformed input
 * is rejected with its file and line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "topology/netfile.h"

static int parse_text(const char *text, struct fabric *f, char err[NETFILE_ERR_LEN])
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int rc = netfile_read_stream(in, "t.net", f, err);
	fclose(in);
	return rc;
}

static void expect_error(const char *text, const char *want)
{
	struct fabric f;
	char err[NETFILE_ERR_LEN] = "";
	assert_int_equal(parse_text(text, &f, err), -1);
	if (strcmp(err, want) != 0)
		fail_msg("got '%s', want '%s'", err, want);
}

static void test_netfile_reads_ibsim_example(void **state)
{
	static const char text[] =
		"# comment\n"
		"Switch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[3]\t\"Switch2\"[3]\n[5] \"Switch2\"[5]\n\n"
		"Switch 8 \"Switch2\"\n[3] \"Switch1\"[3]\n[5] \"Switch1\"[5]\n\n"
		"Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n";
	struct fabric f;
	char err[NETFILE_ERR_LEN];
	assert_int_equal(parse_text(text, &f, err), 0);
	assert_int_equal(f.nnodes, 3);
	assert_int_equal(fabric_count(&f, NODE_SWITCH), 2);
	assert_int_equal(fabric_link_count(&f), 3);
	struct node *s1 = fabric_find_desc(&f, "Switch1"), *h = fabric_find_desc(&f, "Hca1");
	/* GUIDs numbered as ibsim does: switches from 0x200000, CAs from 0x100000 */
	assert_int_equal(s1->guid, 0x200000);
	assert_int_equal(h->guid, 0x100000);
	assert_ptr_equal(s1->ports[1].remote, h);
	assert_int_equal(h->ports[1].remote_port, 1);
	assert_ptr_equal(fabric_find_guid(&f, 0x200001), fabric_find_desc(&f, "Switch2"));
	fabric_free(&f);
}

static void test_netfile_reads_ibnetdiscover_guids_and_descriptions(void **state)
{
	static const char text[] =
		"vendid=0x2c9\ndevid=0xc738\nsysimgguid=0x7cfe900300a5a2a0\n"
		"switchguid=0x7cfe900300a5a2a0(7cfe900300a5a2a0)\n"
		"Switch\t36 \"S-7cfe900300a5a2a0\"\t\t# \"leaf-1\" enhanced port 0 lid 3 lmc 0\n"
		"[1]\t\"H-0002c90300000001\"[1](2c90300000002)\t\t# \"node01 HCA-1\" lid 7 4xEDR\n\n"
		"caguid=0x0002c90300000001\n"
		"Ca\t1 \"H-0002c90300000001\"\t\t# \"node01 HCA-1\"\n"
		"[1](2c90300000002)\t\"S-7cfe900300a5a2a0\"[1]\t\t# lid 7 lmc 0 \"leaf-1\" lid 3 4xEDR\n";
	struct fabric f;
	char err[NETFILE_ERR_LEN];
	assert_int_equal(parse_text(text, &f, err), 0);
	struct node *sw = fabric_find_guid(&f, 0x7cfe900300a5a2a0ULL);
	assert_non_null(sw);
	assert_string_equal(sw->desc, "leaf-1");
	assert_int_equal(sw->nports, 36);
	struct node *ca = fabric_find_desc(&f, "node01 HCA-1");
	assert_non_null(ca);
	assert_int_equal(ca->guid, 0x0002c90300000001ULL);
	assert_ptr_equal(ca->ports[1].remote, sw);
	/* the LIDs in the comments: the switch's port 0, the CA port's own */
	assert_int_equal(sw->ports[0].lid, 3);
	assert_int_equal(ca->ports[1].lid, 7);
	fabric_free(&f);
}

static void test_netfile_write_then_read_is_identical(void **state)
{
	static const char text[] =
		"Switch 4 \"A\"\n[1] \"B\"[2]\n[2] \"H\"[1]\n\nSwitch 4 \"B\"\n[2] \"A\"[1]\n\nHca 1 \"H\"\n[1] \"A\"[2]\n";
	for (int style = NETFILE_IBNETDISCOVER; style <= NETFILE_IBSIM; style++) {
		struct fabric f, g;
		char err[NETFILE_ERR_LEN], buf[4096];
		assert_int_equal(parse_text(text, &f, err), 0);
		FILE *out = fmemopen(buf, sizeof(buf), "w");
		assert_int_equal(netfile_write(out, &f, (enum netfile_style)style), 0);
		fclose(out);
		assert_int_equal(parse_text(buf, &g, err), 0);
		assert_int_equal(g.nnodes, f.nnodes);
		assert_int_equal(fabric_link_count(&g), fabric_link_count(&f));
		for (size_t i = 0; i < f.nnodes; i++) {
			struct node *a = f.nodes[i], *b = fabric_find_guid(&g, a->guid);
			assert_non_null(b);
			assert_string_equal(a->desc, b->desc);
			for (unsigned p = 1; p <= a->nports; p++) {
				assert_int_equal(a->ports[p].remote_port, b->ports[p].remote_port);
				if (a->ports[p].remote)
					assert_int_equal(a->ports[p].remote->guid, b->ports[p].remote->guid);
			}
		}
		fabric_free(&f);
		fabric_free(&g);
	}
}

static void test_netfile_errors_name_file_and_line(void **state)
{
	expect_error("Switch 4 \"A\"\n[5] \"B\"[1]\n", "t.net:2: port 5 out of range 1..4 for \"A\"");
	expect_error("Router 4 \"A\"\n", "t.net:1: unknown node type in 'Router 4 \"A\"' (expected Switch, Hca, Ca or Rt)");
	expect_error("Switch 0 \"A\"\n", "t.net:1: port count must be 1..254");
	expect_error("Switch 4 A\n", "t.net:1: node id must be a quoted string");
	expect_error("Switch 4 \"A\"\n\nSwitch 4 \"A\"\n", "t.net:3: node \"A\" is defined twice");
	expect_error("Switch 4 \"A\"\n[1] \"Z\"[1]\n", "t.net:2: unknown node \"Z\"");
	expect_error("Switch 4 \"A\"\n[1] \"B\"[9]\n\nSwitch 4 \"B\"\n", "t.net:2: port 9 out of range 1..4 for \"B\"");
	expect_error("Switch 4 \"A\"\n[1] \"B\"\n", "t.net:2: bad remote port, expected \"id\"[number]");
	expect_error("[1] \"B\"[1]\n", "t.net:1: port line outside a node record");
	expect_error("Switch 4 \"A\"\n[1] \"B\"[1]\n[1] \"B\"[2]\n\nSwitch 4 \"B\"\n",
		     "t.net:3: port 1 of \"A\" is listed twice");
	expect_error("Switch 4 \"A\"\n[1] \"B\"[1]\n\nSwitch 4 \"B\"\n[1] \"C\"[1]\n\nSwitch 4 \"C\"\n",
		     "t.net:5: link mismatch: \"B\"[1] is already linked to \"A\"[1]");
	expect_error("# nothing\n", "t.net:1: no nodes defined");
	expect_error("include other.net\n", "t.net:1: 'include' directives are ibsim console features, not topology");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netfile_reads_ibsim_example),
		cmocka_unit_test(test_netfile_reads_ibnetdiscover_guids_and_descriptions),
		cmocka_unit_test(test_netfile_write_then_read_is_identical),
		cmocka_unit_test(test_netfile_errors_name_file_and_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
