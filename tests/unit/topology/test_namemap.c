/*
 * infiniband-diags' node-name-map (topology/namemap.c): GUIDs in hex or
 * decimal, quoted names with spaces, comments and blank lines; a missing
 * quote, text after the name and a GUID named twice are refused with the
 * file and line; the names replace the NodeDescriptions of the nodes they
 * name, and only those.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "topology/namemap.h"

static char path[64];

static void write_map(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/fabricd-namemap.%d", (int)getpid());
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void names_replace_descriptions(void **state)
{
	struct namemap m;
	char err[NAMEMAP_ERR_LEN];
	write_map("# rack 12\n"
		  "0x0002c90300000001 \"rack12 leaf 1\"\n"
		  "\n"
		  "  2097153   \"spine-2\"   # decimal GUID 0x200001\n");
	assert_int_equal(namemap_load(path, &m, err), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(namemap_name(&m, 0x0002c90300000001ULL), "rack12 leaf 1");
	assert_string_equal(namemap_name(&m, 0x200001), "spine-2");
	assert_null(namemap_name(&m, 0x200002));

	struct fabric f;
	fabric_init(&f);
	assert_non_null(fabric_add_node(&f, NODE_SWITCH, 0x200001, 8, "MF0;sw:SX6036/U1"));
	assert_non_null(fabric_add_node(&f, NODE_SWITCH, 0x200002, 8, "MF0;sw:SX6036/U1"));
	assert_int_equal(namemap_apply(&m, &f), 1);
	assert_string_equal(f.nodes[0]->desc, "spine-2");
	assert_string_equal(f.nodes[1]->desc, "MF0;sw:SX6036/U1");
	fabric_free(&f);
	namemap_free(&m);
	unlink(path);
}

static void bad_lines_are_named(void **state)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "0x1 \"a\"\n0x2 b\n", ":2: the name must be in double quotes" },
		{ "0x1 \"a\" extra\n", ":1: unexpected text after the name" },
		{ "spine \"a\"\n", ":1: expected a GUID, then a quoted name" },
		{ "0x1 \"\"\n", ":1: the name is empty" },
		{ "0x1 \"a\"\n1 \"b\"\n", "GUID 0x0000000000000001 is named twice" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct namemap m;
		char err[NAMEMAP_ERR_LEN];
		write_map(bad[i].text);
		assert_int_equal(namemap_load(path, &m, err), -1);
		assert_non_null(strstr(err, bad[i].want));
		assert_int_equal(m.n, 0);
	}
	unlink(path);
	struct namemap m;
	char err[NAMEMAP_ERR_LEN];
	assert_int_equal(namemap_load("/nonexistent/node-name-map", &m, err), -1);
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_replace_descriptions),
		cmocka_unit_test(bad_lines_are_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
