/*
 * OpenSM's partitions.conf (sm/partconf.c): the man page's examples are
 * read (a statement over several lines, comments, defmember, flags, SELF
 * and ALL_SWITCHES, a partition named again to add members, a partition
 * without a P_Key); every CA port then gets the same P_Key table as from
 * the equivalent YAML partitions; bad lines are refused with file:line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sm/config.h"
#include "sm/partconf.h"
#include "fixtures.h"

static char path[64];

static void write_file(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/fabricd-partitions.%d", (int)getpid());
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* As in opensm(8), "PARTITION CONFIGURATION", with GUIDs of this test's CAs. */
static const char opensm_conf[] =
	"# partitions of the cluster\n"
	"Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full ;\n"
	"NewPartition , ipoib : 0x100001=full, 0x100003=limited ;\n"
	"ShareIO = 0x80 , defmember=full : 0x100005,\n"
	"    0x100007;  # the rest will be limited\n"
	"ShareIO = 0x80 : 0x100009, 0x10000b=full;\n"
	"Storage=0x8b01, ipoib, rate=7, mtu=5, sl=1, scope=2 : ALL_CAS=limited, 0x10000d=both ;\n";

static const char yaml_conf[] =
	"partitions:\n"
	"  - { name: Default, pkey: 0x7fff, limited: [all] }\n"
	"  - { name: NewPartition, pkey: 0x0001, full: [0x100001], limited: [0x100003] }\n"
	"  - { name: ShareIO, pkey: 0x0080, full: [0x100005, 0x100007, 0x10000b], limited: [0x100009] }\n"
	"  - { name: Storage, pkey: 0x0b01, full: [0x10000d], limited: [all] }\n";

static void opensm_examples_give_the_yaml_tables(void **state)
{
	struct partitions from_osm, from_yaml;
	char err[PARTCONF_ERR_LEN], cerr[CONFIG_ERR_LEN];
	struct fabricd_config c;
	write_file(opensm_conf);
	assert_int_equal(partconf_load(path, &from_osm, err), 0);
	assert_int_equal(from_osm.n, 4);
	assert_int_equal(from_osm.p[1].pkey, 0x0001);	/* none given: the lowest free */
	assert_int_equal(from_osm.p[2].nmembers, 4);	/* ShareIO's two statements */
	assert_int_equal(load_config_text(yaml_conf, &c, cerr), 0);
	from_yaml = c.partitions;

	struct fabric f;
	fabric_init(&f);
	for (unsigned i = 0; i < 8; i++) {
		struct node *ca = fabric_add_node(&f, NODE_CA, 0x100000 + 2 * i, 1, "ca");
		assert_non_null(ca);
		uint16_t a[32], b[32];
		unsigned da = 0, db = 0;
		unsigned na = partition_keys(&from_osm, ca, 1, false, a, 32, &da);
		unsigned nb = partition_keys(&from_yaml, ca, 1, false, b, 32, &db);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na * sizeof(*a));
	}
	fabric_free(&f);
	unlink(path);
}

static void bad_statements_are_named(void **state)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "Default=0x7fff : ALL ;\nA=0x10 : 0x1=fullest ;\n", ":2: member 0x1: membership must be full, limited or both" },
		{ "A=0x10, turbo : ALL ;\n", ":1: unknown flag 'turbo' of partition A" },
		{ "A=0x10 : ALL\n", ":1: the last statement has no ';'" },
		{ "A=0x10 : mgid=ff12:401b::1 ;\n", ":1: multicast group definitions (mgid=...) are not supported" },
		{ "A=0x10 : ALL ;\nB=0x8010 : ALL ;\n", ":2: P_Key 0x0010 or name B already used by partition A (line 1)" },
		{ "A=zz : ALL ;\n", ":1: P_Key 'zz' of partition A is not a number" },
		{ "A=0x10 : nobody ;\n", ":1: member 'nobody' is not ALL, ALL_CAS, ALL_SWITCHES, SELF or a port GUID" },
		{ "A=0x10 ALL ;\n", ":1: expected 'Name=PKey[,flags] : members ;'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct partitions ps;
		char err[PARTCONF_ERR_LEN];
		write_file(bad[i].text);
		assert_int_equal(partconf_load(path, &ps, err), -1);
		if (!strstr(err, bad[i].want))
			fail_msg("'%s' gave '%s'", bad[i].text, err);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opensm_examples_give_the_yaml_tables),
		cmocka_unit_test(bad_statements_are_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
