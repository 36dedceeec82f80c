/*
 * DOC: configuration file
 *
 * A YAML mapping; every key is optional:
 *
 *   port: { ca: mlx5_0, port: 1 }     # or { guid: 0x0002c90300000001 }
 *   database: /var/lib/fabricd/fabricd.db
 *   log_level: info                   # error, warn, info, debug
 *   log_file: /var/log/fabricd.log
 *   node_name_map: /etc/infiniband-diags/node-name-map   # GUID "name" lines: names over NodeDescriptions
 *   opensm_guid2lid: /var/cache/opensm/guid2lid   # OpenSM's LIDs, used while the database holds none
 *   control_socket: /run/fabricd/fabricd.sock
 *   routing_engine: ftree             # ftree, updown or minhop
 *   keep_routes: 1                    # 0: every sweep re-balances every route, not only those a change broke
 *   root_guids: [0x0002c90300000a01]  # ftree: the top switches (default: rank from the leaves)
 *   sm_priority: 0
 *   sm_peers: [0x0002c90300000b01]    # the other SMs' port GUIDs: only they take part in elections
 *   sm_poll_interval_ms: 2000         # standby: read the master's SMInfo this often
 *   sm_poll_retries: 3                # unanswered polls in a row before taking over
 *   subnet_prefix: 0xfe80000000000000
 *   max_mtu: 4096
 *   max_op_vls: 8
 *   subnet_timeout: 18
 *   packet_life_time: 18             # switches' LifeTimeValue (PathRecords carry subnet_timeout, as OpenSM's)
 *   sweep_interval: 10
 *   full_sweep_interval: 600          # a full heavy sweep at least this often, whatever repairs ran
 *   trap_holddown_ms: 50              # after a link-change trap, sweep once, this long after it at the latest
 *   trap_quiet_ms: 1                  # ... or as soon as no other trap came for this long (0: always wait)
 *   react_to_traps: 1                 # 0: traps are logged only
 *   lft_audit_blocks: 256             # LFT blocks read back after each quiet light sweep (0: no audit)
 *   port_audit_tables: 256            # SL-to-VL, VL arbitration and P_Key tables read back likewise (0: none)
 *   trap_budget_per_minute: 20        # traps one source LID may send; the rest are ignored
 *   mad: { window: 64, timeout_ms: 200, retries: 3 }
 *   qos: { vlarb_high: "", vlarb_low: "0:64,1:64", vl_high_limit: 0 }
 *   partitions: [ { name: tenant-a, pkey: 0x0a01, full: ["gpu-a*"], limited: [all] } ]
 *   partitions_file: /etc/opensm/partitions.conf   # OpenSM's syntax, instead of partitions:
 *   m_key: { secret: "long random text", protect: 1, lease_s: 60 }   # or random: true
 *   sm_key: 0x0123456789abcdef
 *   sa: { services_per_port: 32, subscriptions_per_port: 16, groups_per_port: 8, max_lease_s: 86400 }
 *   history: { sweeps: 1000, events: 10000, days: 90 }   # what the database keeps; 0: no limit
 *   perf: { interval: 60, window: 16, keep_hours: 6, max_db_mb: 1024 }   # port counters; interval 0: off
 *   metrics_listen: "127.0.0.1:9683"  # Prometheus /metrics; "" = none
 *   health: { action: report, window_s: 3600, clean_s: 3600, ber: 1e-12, symbol_errors: 0,
 *             link_error_recovery: 10, link_downed: 3, rcv_errors: 100, traps: 10 }   # isolate, disable; 0: not judged
 *
 * Unknown keys and bad values are errors naming the file and line.
 */
#include "sm/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "routing/engine.h"
#include "sm/partconf.h"
#include "sm/log.h"
#include "sm/sa/mcast.h"
#include "sm/sweep/qos.h"
#include "sm/sa/sa.h"
#include "topology/yamldoc.h"

void config_defaults(struct fabricd_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->database, sizeof(c->database), "/var/lib/fabricd/fabricd.db");
	snprintf(c->control_socket, sizeof(c->control_socket), "/run/fabricd/fabricd.sock");
	c->log_level = LOG_INFO;
	snprintf(c->routing_engine, sizeof(c->routing_engine), "ftree");
	c->subnet_prefix = 0xfe80000000000000ULL;
	c->max_mtu = 4096;
	c->max_op_vls = 8;
	c->subnet_timeout = 18;
	c->packet_life_time = 18;	/* OpenSM's packet_life_time */
	c->sweep_interval = 10;
	c->full_sweep_interval = 600;
	c->keep_routes = 1;
	c->sm_poll_interval_ms = 2000;
	c->sm_poll_retries = 3;
	c->trap_holddown_ms = 50;
	c->trap_quiet_ms = 1;
	c->lft_audit_blocks = 256;
	c->port_audit_tables = 256;
	c->react_to_traps = 1;
	c->trap_budget_per_minute = 20;
	c->sa_services_per_port = 32;
	c->sa_subscriptions_per_port = 16;
	c->sa_groups_per_port = 8;
	c->sa_max_lease_s = 86400;
	c->keep_sweeps = 1000;
	c->keep_events = 10000;
	c->keep_days = 90;
	c->perf_interval = 60;
	c->perf_window = 16;
	c->perf_keep_hours = 6;
	c->perf_max_db_mb = 1024;
	c->health_action = HEALTH_REPORT;
	c->health_window_s = 3600;
	c->health_clean_s = 3600;
	c->health_ber = 1e-12;
	c->health_link_error_recovery = 10;
	c->health_link_downed = 3;
	c->health_rcv_errors = 100;
	c->health_traps = 10;
	c->mad_window = 64;
	c->mad_timeout_ms = 200;
	c->mad_retries = 3;
	c->hoq_life = 0x12;	/* OpenSM's head_of_queue_lifetime and leaf_ twin */
	c->leaf_hoq_life = 0x10;
	c->vl_stall_count = 7;
	c->leaf_vl_stall_count = 7;
}

uint8_t config_mtu_code(unsigned bytes)
{
	uint8_t code = 1;
	for (unsigned b = 256; b < bytes && code < 5; b *= 2)
		code++;
	return code;
}

uint8_t config_vls_code(unsigned vls)
{
	return vls >= 15 ? 5 : vls >= 8 ? 4 : vls >= 4 ? 3 : vls >= 2 ? 2 : 1;
}

/* A YAML list of at most max GUIDs into out[0..*n). */
static int get_guid_list(struct ydoc *d, const char *key, const yaml_node_t *v, uint64_t *out, unsigned *n,
			 unsigned max)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return ydoc_fail(d, v, "%s must be a list of GUIDs, e.g. [0x0002c90300000a01]", key);
	*n = 0;
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(&d->doc, *i);
		unsigned long long guid;
		if (*n == max)
			return ydoc_fail(d, item, "%s holds at most %u GUIDs", key, max);
		if (ydoc_uint(d, key, item, 1, UINT64_MAX, &guid) < 0)
			return -1;
		out[(*n)++] = guid;
	}
	return 0;
}

static int port_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct fabricd_config *c = arg;
	unsigned long long n;
	if (strcmp(key, "ca") == 0)
		return ydoc_string(d, "port.ca", v, c->ca, sizeof(c->ca));
	if (strcmp(key, "port") == 0) {
		if (ydoc_uint(d, "port.port", v, 1, 254, &n) < 0)
			return -1;
		c->port = (int)n;
		return 0;
	}
	if (strcmp(key, "guid") == 0) {
		if (ydoc_uint(d, "port.guid", v, 1, UINT64_MAX, &n) < 0)
			return -1;
		c->port_guid = n;
		return 0;
	}
	return ydoc_fail(d, v, "unknown key 'port.%s' (expected ca, port or guid)", key);
}

/* A number of a section (mad, qos, sa, history): its bounds, and where it goes. */
struct number_key {
	const char *key;
	unsigned min, max;
	size_t at;	/* offsetof(struct fabricd_config, the field) */
};

#define NUMBER(key, min, max, field) { key, min, max, offsetof(struct fabricd_config, field) }

/* Reads section.key into its field if keys[] has it: 0, -1 on a bad value, 1 if it is none of them. */
static int number_pair(struct ydoc *d, const char *section, const struct number_key *keys, size_t n, const char *key,
		       const yaml_node_t *v, struct fabricd_config *c)
{
	for (size_t i = 0; i < n; i++) {
		char name[48];
		unsigned long long val;
		if (strcmp(key, keys[i].key) != 0)
			continue;
		snprintf(name, sizeof(name), "%s.%s", section, key);
		if (ydoc_uint(d, name, v, keys[i].min, keys[i].max, &val) < 0)
			return -1;
		*(unsigned *)((char *)c + keys[i].at) = (unsigned)val;
		return 0;
	}
	return 1;
}

static int mad_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	static const struct number_key keys[] = {
		NUMBER("window", 1, 1024, mad_window),
		NUMBER("timeout_ms", 1, 60000, mad_timeout_ms),
		NUMBER("retries", 0, 20, mad_retries),
	};
	int rc = number_pair(d, "mad", keys, sizeof(keys) / sizeof(keys[0]), key, v, arg);
	return rc <= 0 ? rc : ydoc_fail(d, v, "unknown key 'mad.%s' (expected window, timeout_ms or retries)", key);
}

static int arb_list(struct ydoc *d, const char *key, const yaml_node_t *v, char *out, size_t len)
{
	ib_vl_arb_element_t e[QOS_MAX_ARB];
	unsigned n;
	char why[128];
	if (ydoc_string(d, key, v, out, len) < 0)
		return -1;
	if (qos_parse_arb(out, e, &n, why, sizeof(why)) < 0)
		return ydoc_fail(d, v, "%s: %s", key, why);
	return 0;
}

static int mkey_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct fabricd_config *c = arg;
	unsigned long long n;
	const char *s = NULL;
	if (strcmp(key, "secret") == 0) {
		if (ydoc_string(d, "m_key.secret", v, c->mkey.secret, sizeof(c->mkey.secret)) < 0)
			return -1;
		if (strlen(c->mkey.secret) < 16)
			return ydoc_fail(d, v, "m_key.secret must be at least 16 characters");
		return 0;
	}
	if (strcmp(key, "random") == 0) {
		if (ydoc_scalar(d, "m_key.random", v, &s) < 0)
			return -1;
		if (strcmp(s, "true") != 0 && strcmp(s, "false") != 0)
			return ydoc_fail(d, v, "m_key.random must be true or false, not '%s'", s);
		c->mkey.random = s[0] == 't';
		return 0;
	}
	if (strcmp(key, "protect") == 0) {
		if (ydoc_uint(d, "m_key.protect", v, 0, 3, &n) < 0)
			return -1;
		if (n == 3)
			return ydoc_fail(d, v, "m_key.protect 3 is not supported: it hides every Get, and discovery "
					 "must read a node before it knows which key it has");
		c->mkey.protect = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "lease_s") == 0) {
		if (ydoc_uint(d, "m_key.lease_s", v, 0, UINT16_MAX, &n) < 0)
			return -1;
		c->mkey.lease_s = (unsigned)n;
		return 0;
	}
	return ydoc_fail(d, v, "unknown key 'm_key.%s' (expected secret, random, protect or lease_s)", key);
}

static int read_mkey(struct ydoc *d, const yaml_node_t *v, struct fabricd_config *c)
{
	c->mkey = (struct mkey_config){ .enabled = true, .protect = 1, .lease_s = 60 };
	if (ydoc_each_pair(d, "m_key", v, mkey_pair, c) < 0)
		return -1;
	if (c->mkey.random == (c->mkey.secret[0] != 0))
		return ydoc_fail(d, v, "m_key needs either a secret or random: true (not both)");
	return 0;
}

static int qos_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct fabricd_config *c = arg;
	if (strcmp(key, "vlarb_high") == 0)
		return arb_list(d, "qos.vlarb_high", v, c->vlarb_high, sizeof(c->vlarb_high));
	if (strcmp(key, "vlarb_low") == 0)
		return arb_list(d, "qos.vlarb_low", v, c->vlarb_low, sizeof(c->vlarb_low));
	static const struct number_key keys[] = {
		NUMBER("vl_high_limit", 0, 255, vl_high_limit),
		NUMBER("head_of_queue_lifetime", 0, 31, hoq_life),
		NUMBER("leaf_head_of_queue_lifetime", 0, 31, leaf_hoq_life),
		NUMBER("vl_stall_count", 0, 7, vl_stall_count),
		NUMBER("leaf_vl_stall_count", 0, 7, leaf_vl_stall_count),
	};
	int rc = number_pair(d, "qos", keys, sizeof(keys) / sizeof(keys[0]), key, v, c);
	if (rc <= 0)
		return rc;
	return ydoc_fail(d, v, "unknown key 'qos.%s' (expected vlarb_high, vlarb_low, vl_high_limit, "
			 "head_of_queue_lifetime, leaf_head_of_queue_lifetime, vl_stall_count or leaf_vl_stall_count)",
			 key);
}

static int sa_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	static const struct number_key keys[] = {
		NUMBER("services_per_port", 0, SA_MAX_SERVICES, sa_services_per_port),
		NUMBER("subscriptions_per_port", 0, SA_MAX_SUBSCRIPTIONS, sa_subscriptions_per_port),
		NUMBER("groups_per_port", 0, MC_MAX_GROUPS, sa_groups_per_port),
		NUMBER("max_lease_s", 1, 0xfffffffeu, sa_max_lease_s),
	};
	int rc = number_pair(d, "sa", keys, sizeof(keys) / sizeof(keys[0]), key, v, arg);
	return rc <= 0 ? rc : ydoc_fail(d, v, "unknown key 'sa.%s' (expected services_per_port, subscriptions_per_port, "
					 "groups_per_port or max_lease_s)", key);
}

static int history_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	static const struct number_key keys[] = {
		NUMBER("sweeps", 0, 100000000, keep_sweeps),
		NUMBER("events", 0, 100000000, keep_events),
		NUMBER("days", 0, 100000000, keep_days),
	};
	int rc = number_pair(d, "history", keys, sizeof(keys) / sizeof(keys[0]), key, v, arg);
	return rc <= 0 ? rc : ydoc_fail(d, v, "unknown key 'history.%s' (expected sweeps, events or days)", key);
}

static int perf_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	static const struct number_key keys[] = {
		NUMBER("interval", 0, 86400, perf_interval),
		NUMBER("window", 1, 1024, perf_window),
		NUMBER("keep_hours", 0, 100000, perf_keep_hours),
		NUMBER("max_db_mb", 0, 1000000, perf_max_db_mb),
	};
	int rc = number_pair(d, "perf", keys, sizeof(keys) / sizeof(keys[0]), key, v, arg);
	return rc <= 0 ? rc : ydoc_fail(d, v, "unknown key 'perf.%s' (expected interval, window, keep_hours or max_db_mb)",
					 key);
}

static int health_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct fabricd_config *c = arg;
	static const struct number_key keys[] = {
		NUMBER("window_s", 1, 7 * 86400, health_window_s),
		NUMBER("clean_s", 0, 30 * 86400, health_clean_s),
		NUMBER("symbol_errors", 0, 0xffffffffu, health_symbol_errors),
		NUMBER("link_error_recovery", 0, 0xffffffffu, health_link_error_recovery),
		NUMBER("link_downed", 0, 0xffffffffu, health_link_downed),
		NUMBER("rcv_errors", 0, 0xffffffffu, health_rcv_errors),
		NUMBER("traps", 0, 0xffffffffu, health_traps),
	};
	char text[32];
	if (strcmp(key, "action") == 0) {
		static const char *names[] = { "report", "isolate", "disable" };
		if (ydoc_string(d, "health.action", v, text, sizeof(text)) < 0)
			return -1;
		for (unsigned i = 0; i < 3; i++)
			if (strcmp(text, names[i]) == 0) {
				c->health_action = i;
				return 0;
			}
		return ydoc_fail(d, v, "health.action must be report, isolate or disable, not '%s'", text);
	}
	if (strcmp(key, "ber") == 0) {
		char *end;
		if (ydoc_string(d, "health.ber", v, text, sizeof(text)) < 0)
			return -1;
		double ber = strtod(text, &end);
		if (*end || end == text || !(ber >= 0 && ber < 1))
			return ydoc_fail(d, v, "health.ber must be a rate from 0 (off) to below 1, e.g. 1e-12, not '%s'",
					 text);
		c->health_ber = ber;
		return 0;
	}
	int rc = number_pair(d, "health", keys, sizeof(keys) / sizeof(keys[0]), key, v, c);
	return rc <= 0 ? rc : ydoc_fail(d, v, "unknown key 'health.%s' (expected action, window_s, clean_s, ber, "
					 "symbol_errors, link_error_recovery, link_downed, rcv_errors or traps)", key);
}

static int top_pair(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg)
{
	struct fabricd_config *c = arg;
	unsigned long long n;
	const char *s = NULL;
	if (strcmp(key, "port") == 0)
		return ydoc_each_pair(d, "port", v, port_pair, c);
	if (strcmp(key, "mad") == 0)
		return ydoc_each_pair(d, "mad", v, mad_pair, c);
	if (strcmp(key, "qos") == 0)
		return ydoc_each_pair(d, "qos", v, qos_pair, c);
	if (strcmp(key, "sa") == 0)
		return ydoc_each_pair(d, "sa", v, sa_pair, c);
	if (strcmp(key, "history") == 0)
		return ydoc_each_pair(d, "history", v, history_pair, c);
	if (strcmp(key, "perf") == 0)
		return ydoc_each_pair(d, "perf", v, perf_pair, c);
	if (strcmp(key, "health") == 0)
		return ydoc_each_pair(d, "health", v, health_pair, c);
	if (strcmp(key, "metrics_listen") == 0)
		return ydoc_string(d, key, v, c->metrics_listen, sizeof(c->metrics_listen));
	if (strcmp(key, "m_key") == 0)
		return read_mkey(d, v, c);
	if (strcmp(key, "sm_key") == 0) {
		if (ydoc_uint(d, key, v, 0, UINT64_MAX, &n) < 0)
			return -1;
		c->sm_key = n;
		return 0;
	}
	if (strcmp(key, "partitions") == 0) {
		c->partitions_set = true;
		return partitions_parse(d, v, &c->partitions);
	}
	if (strcmp(key, "partitions_file") == 0)
		return ydoc_string(d, key, v, c->partitions_file, sizeof(c->partitions_file));
	if (strcmp(key, "database") == 0)
		return ydoc_string(d, key, v, c->database, sizeof(c->database));
	if (strcmp(key, "log_file") == 0)
		return ydoc_string(d, key, v, c->log_file, sizeof(c->log_file));
	if (strcmp(key, "node_name_map") == 0)
		return ydoc_string(d, key, v, c->node_name_map, sizeof(c->node_name_map));
	if (strcmp(key, "opensm_guid2lid") == 0)
		return ydoc_string(d, key, v, c->opensm_guid2lid, sizeof(c->opensm_guid2lid));
	if (strcmp(key, "control_socket") == 0)
		return ydoc_string(d, key, v, c->control_socket, sizeof(c->control_socket));
	if (strcmp(key, "log_level") == 0) {
		if (ydoc_scalar(d, key, v, &s) < 0)
			return -1;
		if ((c->log_level = log_level_parse(s)) < 0)
			return ydoc_fail(d, v, "log_level must be error, warn, info or debug, not '%s'", s);
		return 0;
	}
	if (strcmp(key, "routing_engine") == 0) {
		if (ydoc_string(d, key, v, c->routing_engine, sizeof(c->routing_engine)) < 0)
			return -1;
		enum routing_engine e;
		char known[64];
		routing_engine_list(known, sizeof(known));
		if (routing_engine_parse(c->routing_engine, &e) < 0)
			return ydoc_fail(d, v, "unknown routing_engine '%s' (known: %s)", c->routing_engine, known);
		return 0;
	}
	if (strcmp(key, "root_guids") == 0)
		return get_guid_list(d, key, v, c->root_guids, &c->nroots, CONFIG_MAX_ROOTS);
	if (strcmp(key, "sm_peers") == 0)
		return get_guid_list(d, key, v, c->sm_peers, &c->nsm_peers, CONFIG_MAX_SM_PEERS);
	if (strcmp(key, "subnet_prefix") == 0) {
		if (ydoc_uint(d, key, v, 0, UINT64_MAX, &n) < 0)
			return -1;
		c->subnet_prefix = n;
		return 0;
	}
	if (strcmp(key, "max_mtu") == 0) {
		if (ydoc_uint(d, key, v, 256, 4096, &n) < 0)
			return -1;
		if (n & (n - 1))
			return ydoc_fail(d, v, "max_mtu must be 256, 512, 1024, 2048 or 4096");
		c->max_mtu = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "max_op_vls") == 0) {
		if (ydoc_uint(d, key, v, 1, 15, &n) < 0)
			return -1;
		if (n != 1 && n != 2 && n != 4 && n != 8 && n != 15)
			return ydoc_fail(d, v, "max_op_vls must be 1, 2, 4, 8 or 15");
		c->max_op_vls = (unsigned)n;
		return 0;
	}
	struct { const char *name; unsigned long long max; unsigned *field; } uints[] = {
		{ "sm_priority", 15, &c->sm_priority },
		{ "sm_poll_interval_ms", 600000, &c->sm_poll_interval_ms },
		{ "sm_poll_retries", 100, &c->sm_poll_retries },
		{ "subnet_timeout", 31, &c->subnet_timeout },
		{ "packet_life_time", 19, &c->packet_life_time },
		{ "sweep_interval", 86400, &c->sweep_interval },
		{ "full_sweep_interval", 604800, &c->full_sweep_interval },
		{ "trap_holddown_ms", 60000, &c->trap_holddown_ms },
		{ "trap_quiet_ms", 60000, &c->trap_quiet_ms },
		{ "react_to_traps", 1, &c->react_to_traps },
		{ "keep_routes", 1, &c->keep_routes },
		{ "lft_audit_blocks", 65536, &c->lft_audit_blocks },
		{ "port_audit_tables", 65536, &c->port_audit_tables },
		{ "trap_budget_per_minute", 100000, &c->trap_budget_per_minute },
	};
	for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++)
		if (strcmp(key, uints[i].name) == 0) {
			if (ydoc_uint(d, key, v, 0, uints[i].max, &n) < 0)
				return -1;
			*uints[i].field = (unsigned)n;
			return 0;
		}
	return ydoc_fail(d, v, "unknown key '%s'", key);
}

int config_load(const char *path, struct fabricd_config *c, char err[CONFIG_ERR_LEN])
{
	struct ydoc d;
	if (ydoc_load(&d, path, err, CONFIG_ERR_LEN) < 0)
		return -1;
	yaml_node_t *root = ydoc_root(&d);
	/* an empty file keeps the defaults */
	int rc = root ? ydoc_each_pair(&d, "the configuration", root, top_pair, c) : 0;
	ydoc_free(&d);
	if (rc == 0 && c->partitions_file[0]) {	/* OpenSM's partitions.conf instead of partitions: */
		char perr[PARTCONF_ERR_LEN];
		if (c->partitions_set) {
			snprintf(err, CONFIG_ERR_LEN, "%s: partitions and partitions_file exclude each other", path);
			return -1;
		}
		if (partconf_load(c->partitions_file, &c->partitions, perr) < 0) {
			snprintf(err, CONFIG_ERR_LEN, "%.511s", perr);
			return -1;
		}
		c->partitions_set = true;
	}
	return rc;
}

bool config_keep_bound(struct fabricd_config *reloaded, const struct fabricd_config *running)
{
	struct fabricd_config *n = reloaded;
	const struct fabricd_config *o = running;
	bool differ = strcmp(n->ca, o->ca) || n->port != o->port || n->port_guid != o->port_guid ||
		      strcmp(n->database, o->database) || strcmp(n->control_socket, o->control_socket) ||
		      strcmp(n->log_file, o->log_file) || n->mad_window != o->mad_window ||
		      n->mad_timeout_ms != o->mad_timeout_ms || n->mad_retries != o->mad_retries ||
		      memcmp(&n->mkey, &o->mkey, sizeof(n->mkey)) != 0 || strcmp(n->metrics_listen, o->metrics_listen);
	memcpy(n->ca, o->ca, sizeof(n->ca));
	n->port = o->port;
	n->port_guid = o->port_guid;
	memcpy(n->database, o->database, sizeof(n->database));
	memcpy(n->control_socket, o->control_socket, sizeof(n->control_socket));
	memcpy(n->log_file, o->log_file, sizeof(n->log_file));
	n->mad_window = o->mad_window;
	n->mad_timeout_ms = o->mad_timeout_ms;
	n->mad_retries = o->mad_retries;
	n->mkey = o->mkey;	/* ports hold the running keys: a new secret needs the old one to set */
	memcpy(n->metrics_listen, o->metrics_listen, sizeof(n->metrics_listen));
	return differ;
}
