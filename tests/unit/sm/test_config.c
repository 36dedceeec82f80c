/*
 * The YAML configuration: every key is read, defaults hold for the rest,
 * and each bad value names the file and line.
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


static void test_config_reads_every_key(void **state)
{
	struct fabricd_config c;
	char err[CONFIG_ERR_LEN];
	assert_int_equal(load_config_text("port: { ca: mlx5_1, port: 2 }\n"
			      "database: /tmp/x.db\nlog_level: debug\nlog_file: /tmp/x.log\n"
			      "routing_engine: minhop\nsm_priority: 7\nsm_peers: [0xb1, 0xc1]\n"
			      "subnet_prefix: 0xfe80000000000001\n"
			      "max_mtu: 2048\nmax_op_vls: 4\nsubnet_timeout: 17\nsweep_interval: 0\n"
			      "mad:\n  window: 128\n  timeout_ms: 50\n  retries: 5\n"
			      "trap_budget_per_minute: 0\n"
			      "sa: { services_per_port: 4, subscriptions_per_port: 2, groups_per_port: 1, max_lease_s: 60 }\n"
			      "perf: { interval: 0, window: 4, keep_hours: 2, max_db_mb: 64 }\n"
			      "metrics_listen: \"[::1]:9683\"\n",
			      &c, err), 0);
	assert_string_equal(c.ca, "mlx5_1");
	assert_int_equal(c.port, 2);
	assert_string_equal(c.database, "/tmp/x.db");
	assert_int_equal(c.log_level, 3);
	assert_int_equal(c.sm_priority, 7);
	assert_int_equal(c.nsm_peers, 2);
	assert_true(c.sm_peers[0] == 0xb1 && c.sm_peers[1] == 0xc1);
	assert_int_equal(c.subnet_prefix, 0xfe80000000000001ULL);
	assert_int_equal(config_mtu_code(c.max_mtu), 4);
	assert_int_equal(config_vls_code(c.max_op_vls), 3);
	assert_int_equal(c.subnet_timeout, 17);
	assert_int_equal(c.sweep_interval, 0);
	assert_int_equal(c.mad_window, 128);
	assert_int_equal(c.mad_timeout_ms, 50);
	assert_int_equal(c.mad_retries, 5);
	assert_int_equal(c.trap_budget_per_minute, 0);
	assert_int_equal(c.sa_services_per_port, 4);
	assert_int_equal(c.sa_subscriptions_per_port, 2);
	assert_int_equal(c.sa_groups_per_port, 1);
	assert_int_equal(c.sa_max_lease_s, 60);
	assert_int_equal(c.perf_interval, 0);
	assert_int_equal(c.perf_window, 4);
	assert_int_equal(c.perf_keep_hours, 2);
	assert_int_equal(c.perf_max_db_mb, 64);
	assert_string_equal(c.metrics_listen, "[::1]:9683");
}

static void test_config_empty_file_keeps_defaults(void **state)
{
	struct fabricd_config c, d;
	char err[CONFIG_ERR_LEN];
	assert_int_equal(load_config_text("", &c, err), 0);
	config_defaults(&d);
	assert_memory_equal(&c, &d, sizeof(c));
	assert_int_equal(d.mad_window, 64);
	assert_int_equal(d.sweep_interval, 10);
	assert_int_equal(d.sm_key, 0);	/* no SMInfo Set obeyed until one is configured */
	assert_int_equal(d.trap_budget_per_minute, 20);
	assert_int_equal(d.sa_services_per_port, 32);
}

static void expect(const char *text, const char *want)
{
	struct fabricd_config c;
	char err[CONFIG_ERR_LEN];
	assert_int_equal(load_config_text(text, &c, err), -1);
	if (strcmp(err, want) != 0)
		fail_msg("got '%s', want '%s'", err, want);
}

static void test_config_errors_name_the_line(void **state)
{
	expect("sm_priority: 3\nsm_priority: 16\n", "f.yaml:2: sm_priority must be 0..15, not 16");
	expect("mad:\n  retries: -1\n", "f.yaml:2: mad.retries must be a number, not '-1'");
	expect("mad:\n  speed: 1\n", "f.yaml:2: unknown key 'mad.speed' (expected window, timeout_ms or retries)");
	expect("port: 3\n", "f.yaml:1: port must be a mapping of key: value");
	expect("routing_engine: ftree2\n", "f.yaml:1: unknown routing_engine 'ftree2' (known: ftree, updown, minhop)");
	expect("qos: { vlarb_low: \"0:64,1\" }\n", "f.yaml:1: qos.vlarb_low: '1': expected VL:weight with VL 0..14");
	expect("qos: { vlarb_high: \"0:300\" }\n", "f.yaml:1: qos.vlarb_high: '300': the weight must be 0..255");
	expect("root_guids: 0x10\n", "f.yaml:1: root_guids must be a list of GUIDs, e.g. [0x0002c90300000a01]");
	expect("root_guids: [0x10, -3]\n", "f.yaml:1: root_guids must be a number, not '-3'");
	expect("sm_peers: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\n",
	       "f.yaml:1: sm_peers holds at most 16 GUIDs");
	expect("max_op_vls: 3\n", "f.yaml:1: max_op_vls must be 1, 2, 4, 8 or 15");
	expect("- a\n- b\n", "f.yaml:1: the configuration must be a mapping of key: value");
	expect("log_level: loud\n", "f.yaml:1: log_level must be error, warn, info or debug, not 'loud'");
	expect("sa: { services: 3 }\n", "f.yaml:1: unknown key 'sa.services' (expected services_per_port, "
	       "subscriptions_per_port, groups_per_port or max_lease_s)");
	expect("sa: { max_lease_s: 0 }\n", "f.yaml:1: sa.max_lease_s must be 1..4294967294, not 0");
	expect("perf: { window: 0 }\n", "f.yaml:1: perf.window must be 1..1024, not 0");
	expect("perf: { every: 3 }\n", "f.yaml:1: unknown key 'perf.every' (expected interval, window, keep_hours or "
	       "max_db_mb)");
	expect("sa: { services_per_port: 2000 }\n", "f.yaml:1: sa.services_per_port must be 0..1024, not 2000");
}

/* A reload keeps what the daemon bound at start and says whether it asked for other values. */
static void test_config_reload_keeps_bound_settings(void **state)
{
	struct fabricd_config running, reloaded;
	(void)state;
	config_defaults(&running);
	running.port = 2;
	snprintf(running.database, sizeof(running.database), "/var/lib/fabricd/a.db");
	reloaded = running;
	reloaded.sm_priority = 9;	/* not bound: a reload may change it */
	assert_false(config_keep_bound(&reloaded, &running));
	assert_int_equal(reloaded.sm_priority, 9);
	snprintf(reloaded.database, sizeof(reloaded.database), "/tmp/b.db");
	reloaded.mad_window = running.mad_window + 1;
	assert_true(config_keep_bound(&reloaded, &running));
	assert_string_equal(reloaded.database, "/var/lib/fabricd/a.db");
	assert_int_equal(reloaded.mad_window, running.mad_window);
	assert_int_equal(reloaded.port, 2);
	assert_int_equal(reloaded.sm_priority, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_reads_every_key),
		cmocka_unit_test(test_config_empty_file_keeps_defaults),
		cmocka_unit_test(test_config_errors_name_the_line),
		cmocka_unit_test(test_config_reload_keeps_bound_settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
