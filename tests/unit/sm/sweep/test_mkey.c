/*
 * M_Keys: SipHash-2-4 matches the published test vector; derived keys
 * are stable per GUID and differ between GUIDs and secrets; random keys
 * are drawn once per node, handed over for storing, and come back the
 * same from the stored set; the PortInfo fabricd sends carries key,
 * protect bits and lease, again once a lease ran out (and not while the
 * port holds them); every SMP header carries the target's key;
 * bad m_key configuration names the line.
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
#include "sm/sweep/configure.h"
#include "sm/mad/mad.h"
#include "sm/sweep/mkey.h"
#include "sm/smnode.h"

static void test_siphash_matches_the_reference_vector(void **state)
{
	(void)state;
	/* the SipHash paper's vector: key 00..0f, message 00..0e */
	uint8_t msg[15];
	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	assert_true(mkey_siphash(0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL, msg, sizeof(msg)) ==
		    0xa129ca6149be45e5ULL);
}

static void test_derived_keys_are_stable_and_distinct(void **state)
{
	(void)state;
	const char *s1 = "a secret of more than sixteen", *s2 = "another secret, also long";
	uint64_t a = mkey_derive(s1, 0x0002c90300000001ULL);
	assert_true(a != 0);
	assert_true(a == mkey_derive(s1, 0x0002c90300000001ULL));
	assert_true(a != mkey_derive(s1, 0x0002c90300000002ULL));
	assert_true(a != mkey_derive(s2, 0x0002c90300000001ULL));
	struct mkeys m;
	struct mkey_config cfg = { .enabled = true, .protect = 1 };
	snprintf(cfg.secret, sizeof(cfg.secret), "%s", s1);
	assert_int_equal(mkeys_init(&m, &cfg, NULL, 0), 0);
	bool failed = false;
	assert_true(mkeys_key(&m, 0x0002c90300000001ULL, &failed) == a);
	assert_int_equal(m.fresh, 0);	/* nothing to store */
	mkeys_free(&m);
}

static void test_random_keys_are_drawn_once_and_restored(void **state)
{
	(void)state;
	struct mkeys m, back;
	struct mkey_config cfg = { .enabled = true, .random = true, .protect = 2 };
	bool failed = false;
	assert_int_equal(mkeys_init(&m, &cfg, NULL, 0), 0);
	uint64_t k3 = mkeys_key(&m, 3, &failed), k1 = mkeys_key(&m, 1, &failed);
	assert_false(failed);
	assert_true(k3 && k1 && k3 != k1);
	assert_true(mkeys_key(&m, 3, &failed) == k3);
	assert_int_equal(m.fresh, 2);
	struct db_mkey *out;
	size_t n;
	assert_int_equal(mkeys_take_fresh(&m, &out, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(m.fresh, 0);
	/* a restart: the stored keys, not new ones */
	assert_int_equal(mkeys_init(&back, &cfg, out, n), 0);
	assert_true(mkeys_key(&back, 1, &failed) == k1);
	assert_true(mkeys_key(&back, 3, &failed) == k3);
	assert_int_equal(back.fresh, 0);
	free(out);
	mkeys_free(&m);
	mkeys_free(&back);
	/* keys off: no key at all */
	struct mkey_config off = { 0 };
	assert_int_equal(mkeys_init(&m, &off, NULL, 0), 0);
	assert_true(mkeys_key(&m, 1, &failed) == 0);
	mkeys_free(&m);
}

static void test_port_info_and_smp_carry_the_key(void **state)
{
	(void)state;
	ib_port_info_t pi;
	memset(&pi, 0, sizeof(pi));
	struct cfg_params p = { .mkey = true, .mkey_protect = 2, .mkey_lease = 60 };
	cfg_mkey_port_info(&pi, &p, 0x1122334455667788ULL);
	assert_true(cl_ntoh64(pi.m_key) == 0x1122334455667788ULL);
	assert_int_equal(ib_port_info_get_mpb(&pi), 2);
	assert_int_equal(cl_ntoh16(pi.m_key_lease_period), 60);
	struct cfg_params off = { 0 };
	ib_port_info_t untouched = pi;
	cfg_mkey_port_info(&pi, &off, 99);
	assert_memory_equal(&pi, &untouched, sizeof(pi));

	ib_smp_t smp;
	mad_smp_header(&smp, IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 1, 0x1122334455667788ULL,
		       &pi, sizeof(pi));
	assert_true(cl_ntoh64(smp.m_key) == 0x1122334455667788ULL);
	assert_int_equal(smp.method, IB_MAD_METHOD_SET);
}

/* A CA port as it reports itself: LID 7, SM LID 1, defaults elsewhere. */
static void keyed_ca(struct fabric *f, struct node **n)
{
	fabric_init(f);
	*n = fabric_add_node(f, NODE_CA, 0x100, 1, "H");
	assert_int_equal(sm_node_attach(*n), 0);
	(*n)->ports[1].lid = 7;
	sm_node(*n)->mkey[1] = 0xabcdef;
}

static void test_expired_lease_gets_its_key_back(void **state)
{
	(void)state;
	struct fabric f;
	struct node *n;
	keyed_ca(&f, &n);
	struct cfg_params p = { .sm_lid = 1, .mkey = true, .mkey_protect = 1, .mkey_lease = 60 };
	ib_port_info_t reported, want;
	memset(&reported, 0, sizeof(reported));
	sm_node_set_port_info(n, 1, &reported);
	/* fresh port: everything to set, the key among it */
	assert_true(cfg_wanted_port_info(n, 1, &p, &want));
	assert_true(cl_ntoh64(want.m_key) == 0xabcdef);
	/* the port holds all of it: nothing to send */
	sm_node_set_port_info(n, 1, &want);
	ib_port_info_t again;
	assert_false(cfg_wanted_port_info(n, 1, &p, &again));
	/* the lease ran out: protect bits back to 0, key still there */
	ib_port_info_t lapsed = want;
	ib_port_info_set_mpb(&lapsed, 0);
	sm_node_set_port_info(n, 1, &lapsed);
	assert_true(cfg_wanted_port_info(n, 1, &p, &again));
	assert_int_equal(ib_port_info_get_mpb(&again), 1);
	sm_node_detach_all(&f);
	fabric_free(&f);
}

static void expect_error(const char *text, const char *want)
{
	char path[] = "/tmp/fabricd-test-mkey.XXXXXX", err[CONFIG_ERR_LEN];
	int fd = mkstemp(path);
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	struct fabricd_config c;
	config_defaults(&c);
	assert_int_equal(config_load(path, &c, err), -1);
	unlink(path);
	assert_non_null(strstr(err, want));
}

static void test_mkey_config_errors(void **state)
{
	(void)state;
	expect_error("m_key: { random: true, protect: 3 }\n", ":1: m_key.protect 3 is not supported");
	expect_error("m_key: { random: true, secret: \"0123456789abcdefgh\" }\n",
		     ":1: m_key needs either a secret or random: true (not both)");
	expect_error("m_key:\n  secret: short\n", ":2: m_key.secret must be at least 16 characters");
	expect_error("m_key: { random: yes }\n", ":1: m_key.random must be true or false, not 'yes'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_matches_the_reference_vector),
		cmocka_unit_test(test_derived_keys_are_stable_and_distinct),
		cmocka_unit_test(test_random_keys_are_drawn_once_and_restored),
		cmocka_unit_test(test_port_info_and_smp_carry_the_key),
		cmocka_unit_test(test_expired_lease_gets_its_key_back),
		cmocka_unit_test(test_mkey_config_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
