/*
 * config.h - fabricd's configuration, read from YAML.
 */
#ifndef SM_CONFIG_H
#define SM_CONFIG_H

#include <stdint.h>

#include "sm/sweep/mkey.h"
#include "sm/partition.h"

#define CONFIG_ERR_LEN 512

/* What fabricd does with an unhealthy port. */
enum health_action { HEALTH_REPORT, HEALTH_ISOLATE, HEALTH_DISABLE };

struct fabricd_config {
	char ca[64];		/* "" = first CA */
	int port;		/* 0 = first active port */
	uint64_t port_guid;	/* 0 = by CA/port */
	char database[512];
	char log_file[512];	/* "" = stderr */
	char node_name_map[512];	/* "" = none: infiniband-diags' GUID "name" file */
	char opensm_guid2lid[512];
	char partitions_file[512];	/* "" = none: OpenSM's partitions.conf, instead of partitions: */	/* "" = none: OpenSM's LIDs, taken while the database has none */
	char control_socket[108];	/* unix socket for fabricctl */
	int log_level;		/* enum log_level */
	char routing_engine[32];	/* ftree, updown or minhop */
#define CONFIG_MAX_ROOTS 64
	uint64_t root_guids[CONFIG_MAX_ROOTS];	/* ftree: top switches; none = rank from the leaves */
	unsigned nroots;
#define CONFIG_MAX_SM_PEERS 16
	/* the port GUIDs of the other SMs that may take part in elections; none: every port that says IsSM */
	uint64_t sm_peers[CONFIG_MAX_SM_PEERS];
	unsigned nsm_peers;
	unsigned sm_priority;	/* 0..15 */
	unsigned sm_poll_interval_ms;	/* a standby reads the master's SMInfo this often */
	unsigned sm_poll_retries;	/* unanswered polls in a row before taking over */
	uint64_t subnet_prefix;
	unsigned max_mtu;	/* bytes: 256..4096 */
	unsigned max_op_vls;	/* 1, 2, 4, 8 or 15 data VLs */
	unsigned subnet_timeout;
	unsigned packet_life_time;	/* switches' LifeTimeValue: 4.096 us x 2^n */
	unsigned sweep_interval;	/* seconds between re-sweeps; 0 = only on request */
	unsigned keep_routes;	/* 1: a sweep keeps the routes a change left whole (routing/stable.h) */
	unsigned full_sweep_interval;	/* seconds between full heavy sweeps (the repairs' safety net); 0: none */
	unsigned trap_holddown_ms;	/* after a change trap, sweep this long after it at the latest */
	unsigned trap_quiet_ms;	/* ... or once no other has come for this long; 0: the whole hold-down */
	unsigned react_to_traps;	/* 0: traps are only logged; light sweeps find changes */
	unsigned lft_audit_blocks;	/* LFT blocks read back after each quiet light sweep (sm/sweep/audit.c); 0: none */
	unsigned port_audit_tables;	/* port tables read back likewise (sm/sweep/audit_ports.c); 0: none */
	unsigned trap_budget_per_minute;	/* traps one source LID may send (burst and rate); 0: no limit */
	unsigned mad_window, mad_timeout_ms, mad_retries;
	char vlarb_high[256], vlarb_low[256];	/* "VL:weight,..."; "" = defaults */
	unsigned vl_high_limit;
	/* switch ports' deadlock breakers, as OpenSM's; leaf_*: ports facing CAs */
	unsigned hoq_life, leaf_hoq_life;	/* HOQLife: 4.096 us x 2^n, 20..31 infinite */
	unsigned vl_stall_count, leaf_vl_stall_count;	/* 0..7 */
	/* what one port may hold at the SA (docs/security.md) */
	unsigned sa_services_per_port, sa_subscriptions_per_port, sa_groups_per_port;
	unsigned sa_max_lease_s;	/* ServiceRecord leases are cut to this */
	unsigned keep_sweeps, keep_events, keep_days;	/* database history; 0: no limit */
	/* counter sweeps (sm/perf/) */
	unsigned perf_interval;	/* seconds between counter sweeps; 0: none */
	unsigned perf_window;	/* PerfMgt MADs in flight at once (within mad.window) */
	unsigned perf_keep_hours;	/* samples at full resolution; hourly roll-ups after, for keep_days */
	unsigned perf_max_db_mb;	/* counter history trimmed while the database is bigger; 0: no limit */
	char metrics_listen[64];	/* "address:port" of the Prometheus endpoint; "" = none */
	/* unhealthy ports (sm/perf/health.c): counts within health_window_s over which a port is unhealthy; 0: not judged */
	unsigned health_action;	/* enum health_action */
	unsigned health_window_s, health_clean_s;
	unsigned health_symbol_errors, health_link_error_recovery, health_link_downed, health_rcv_errors,
		health_traps;
	double health_ber;	/* estimated bit error rate over the window; 0: not judged */
	struct mkey_config mkey;	/* M_Keys: off unless m_key: is configured */
	uint64_t sm_key;	/* SMInfo SM_Key, shown only to SMs that present it */
	struct partitions partitions;
	bool partitions_set;	/* the file had a partitions: list */
};

void config_defaults(struct fabricd_config *c);
/* Reads path over c; returns 0, or -1 with "file:line: what is wrong" in err. */
int config_load(const char *path, struct fabricd_config *c, char err[CONFIG_ERR_LEN]);
/* IB encodings of the byte/VL settings. */
/*
 * Settings bound when the daemon starts (port, database, control socket,
 * log file, MAD transport, M_Keys): copies running's into reloaded, for a
 * reload that must keep them. True if reloaded asked for other values.
 */
bool config_keep_bound(struct fabricd_config *reloaded, const struct fabricd_config *running);
/* The names of those settings, for the message that says they need a restart. */
#define CONFIG_BOUND_NAMES "port, database, control_socket, log_file, mad, m_key and metrics_listen"
uint8_t config_mtu_code(unsigned bytes);
uint8_t config_vls_code(unsigned vls);

#endif
