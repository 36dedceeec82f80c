/*
 * Partitions: the configuration names members by pattern, GUID or "all";
 * each CA port gets exactly its partitions' keys with the right
 * membership bit, the default partition unless 0x7fff is configured, and
 * fabricd's own port every key as a full member; bad partition
 * configuration names the file and line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sm/config.h"
#include "fixtures.h"
#include "topology/fattree_gen.h"


static void expect_error(const char *text, const char *want)
{
	struct fabricd_config c;
	char err[CONFIG_ERR_LEN];
	assert_int_equal(load_config_text(text, &c, err), -1);
	assert_string_equal(err, want);
}

static void test_partition_config_errors_name_the_line(void **state)
{
	(void)state;
	expect_error("partitions:\n  - { name: a, pkey: 0x0a01, full: [all] }\n  - { name: b, pkey: 0x0a01, full: [all] }\n",
		     "f.yaml:3: duplicate P_Key 0x0a01 (partition a, line 2)");
	expect_error("partitions:\n  - { name: a, pkey: 0, full: [all] }\n",
		     "f.yaml:2: pkey must be 0x0001..0x7fff (membership is set per member), not 0x0");
	expect_error("partitions:\n  - { name: a, full: [all] }\n", "f.yaml:2: partition a needs a pkey (P_Key 0 is not valid)");
	expect_error("partitions:\n  - { name: a, pkey: 0x8001, full: [all] }\n",
		     "f.yaml:2: pkey must be 0x0001..0x7fff (membership is set per member), not 0x8001");
	expect_error("partitions:\n  - name: a\n    pkey: 0x10\n    full:\n      - 0xZZ12\n",
		     "f.yaml:5: unknown member '0xZZ12': not a GUID");
	expect_error("partitions:\n  - { name: a, pkey: 0x10, full: [ { node: x } ] }\n",
		     "f.yaml:2: unknown member: a member is all, a GUID or a node description pattern");
	expect_error("partitions:\n  - { name: a, pkey: 0x10 }\n", "f.yaml:2: partition a has no members (full: or limited:)");
	expect_error("partitions:\n  - { name: a, pkey: 0x10, members: [all] }\n",
		     "f.yaml:2: unknown partition key 'members' (expected name, pkey, full or limited)");
}

static void tree(struct fabric *f)
{
	char err[256];
	struct fattree_spec spec = { .levels = 2, .radix = 4 };
	assert_int_equal(fattree_generate(&spec, f, err), 0);
}

static unsigned keys_of(const struct partitions *ps, const struct fabric *f, const char *desc, bool sm_port,
			uint16_t *keys)
{
	unsigned dropped;
	unsigned n = partition_keys(ps, fabric_find_desc(f, desc), 1, sm_port, keys, 8, &dropped);
	assert_int_equal(dropped, 0);
	return n;
}

static void test_partition_keys_follow_membership(void **state)
{
	(void)state;
	struct fabricd_config c;
	struct fabric f;
	char err[CONFIG_ERR_LEN];
	uint16_t k[8];
	assert_int_equal(load_config_text("partitions:\n"
			      "  - { name: a, pkey: 0x0a01, full: [\"H0_*\"], limited: [all] }\n"
			      "  - { name: b, pkey: 0x0b01, full: [0x100006] }\n",
			      &c, err), 0);
	tree(&f);
	assert_string_equal(fabric_find_guid(&f, 0x100006)->desc, "H1_1");
	/* H0_1: full in a (full wins over limited), default partition */
	assert_int_equal(keys_of(&c.partitions, &f, "H0_1", false, k), 2);
	assert_int_equal(k[0], 0x8a01);
	assert_int_equal(k[1], 0xffff);
	/* H1_1: limited in a, full in b by GUID */
	assert_int_equal(keys_of(&c.partitions, &f, "H1_1", false, k), 3);
	assert_int_equal(k[0], 0x0a01);
	assert_int_equal(k[1], 0x8b01);
	/* the SM's port is a full member everywhere */
	assert_int_equal(keys_of(&c.partitions, &f, "H3_0", true, k), 3);
	assert_int_equal(k[1], 0x8b01);
	fabric_free(&f);

	/* a configured 0x7fff replaces the all-full default */
	assert_int_equal(load_config_text("partitions:\n  - { name: default, pkey: 0x7fff, limited: [all] }\n", &c, err), 0);
	tree(&f);
	assert_int_equal(keys_of(&c.partitions, &f, "H0_0", false, k), 1);
	assert_int_equal(k[0], 0x7fff);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition_config_errors_name_the_line),
		cmocka_unit_test(test_partition_keys_follow_membership),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
