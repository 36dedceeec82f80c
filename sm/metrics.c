/*
 * DOC: Prometheus metrics
 *
 * GET /metrics answers in Prometheus' text format (version 0.0.4) from
 * what fabricd holds in memory: the SM's state, the published fabric, the
 * MAD transport's figures, and every port's counters as the last perf
 * sweep left them (sm/perf/). Nothing is read from the database or the
 * fabric to answer, so a scrape costs no MAD and never waits.
 *
 * Port series are labelled node (the NodeDescription, or the name map's
 * name), node_guid and port. Counters are fabricd's 64-bit running totals;
 * data is in bytes (the PMA counts 4-byte words).
 */
#include "sm/metrics.h"

#include <inttypes.h>
#include <string.h>

#include "sm/ha/ha.h"
#include "sm/mad/http.h"
#include "sm/sm.h"

/* How each counter is exported. */
static const struct {
	const char *name, *help;
	uint64_t scale;
} families[PC_COUNT] = {
	[PC_SYMBOL_ERRORS] = { "fabricd_port_symbol_errors_total", "Minor link errors (SymbolErrorCounter).", 1 },
	[PC_LINK_ERROR_RECOVERY] = { "fabricd_port_link_error_recovery_total",
				     "Link retrainings that succeeded (LinkErrorRecoveryCounter).", 1 },
	[PC_LINK_DOWNED] = { "fabricd_port_link_downed_total", "Link retrainings that failed (LinkDownedCounter).", 1 },
	[PC_RCV_ERRORS] = { "fabricd_port_rcv_errors_total", "Packets received with errors (PortRcvErrors).", 1 },
	[PC_RCV_REMOTE_PHYS_ERRORS] = { "fabricd_port_rcv_remote_phys_errors_total",
					"Packets received marked bad by the sender (PortRcvRemotePhysicalErrors).", 1 },
	[PC_RCV_SWITCH_RELAY_ERRORS] = { "fabricd_port_rcv_switch_relay_errors_total",
					 "Packets a switch could not forward (PortRcvSwitchRelayErrors).", 1 },
	[PC_XMIT_DISCARDS] = { "fabricd_port_xmit_discards_total", "Outbound packets discarded (PortXmitDiscards).", 1 },
	[PC_XMIT_CONSTRAINT_ERRORS] = { "fabricd_port_xmit_constraint_errors_total",
					"Packets not sent for partition or rate constraints (PortXmitConstraintErrors).",
					1 },
	[PC_RCV_CONSTRAINT_ERRORS] = { "fabricd_port_rcv_constraint_errors_total",
				       "Packets dropped for partition or rate constraints (PortRcvConstraintErrors).", 1 },
	[PC_LOCAL_LINK_INTEGRITY_ERRORS] = { "fabricd_port_local_link_integrity_errors_total",
					     "Local physical errors over the threshold (LocalLinkIntegrityErrors).", 1 },
	[PC_EXCESSIVE_BUFFER_OVERRUN] = { "fabricd_port_excessive_buffer_overrun_total",
					  "Consecutive flow-control overruns (ExcessiveBufferOverrunErrors).", 1 },
	[PC_VL15_DROPPED] = { "fabricd_port_vl15_dropped_total", "Management packets dropped (VL15Dropped).", 1 },
	[PC_XMIT_DATA] = { "fabricd_port_xmit_data_bytes_total", "Data bytes sent (PortXmitData x 4).", 4 },
	[PC_RCV_DATA] = { "fabricd_port_rcv_data_bytes_total", "Data bytes received (PortRcvData x 4).", 4 },
	[PC_XMIT_PKTS] = { "fabricd_port_xmit_packets_total", "Packets sent (PortXmitPkts).", 1 },
	[PC_RCV_PKTS] = { "fabricd_port_rcv_packets_total", "Packets received (PortRcvPkts).", 1 },
	[PC_XMIT_WAIT] = { "fabricd_port_xmit_wait_ticks_total",
			   "Ticks with data to send and no credits to send it (PortXmitWait).", 1 },
};

/* A label value: backslash, double quote and newline escaped, as the format wants. */
static void label_value(struct http_body *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			http_printf(b, "\\%c", *s);
		else if (*s == '\n')
			http_printf(b, "\\n");
		else
			http_printf(b, "%c", *s);
	}
}

static void family(struct http_body *b, const char *name, const char *type, const char *help)
{
	http_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void port_labels(struct http_body *b, const struct fabric *f, const struct perf_port *pp)
{
	const struct node *n = f ? fabric_find_guid(f, pp->c.node_guid) : NULL;
	http_printf(b, "{node=\"");
	if (n)
		label_value(b, n->desc);
	else
		http_printf(b, "0x%016" PRIx64, pp->c.node_guid);
	http_printf(b, "\",node_guid=\"0x%016" PRIx64 "\",port=\"%u\"}", pp->c.node_guid, pp->c.port);
}

static void sm_metrics(struct http_body *b, const struct sm *sm)
{
	const struct sm_snapshot *pub = sm_published(sm);
	const struct mad_stats *ms = mad_get_stats(sm->mp);
	family(b, "fabricd_info", "gauge", "fabricd's version.");
	http_printf(b, "fabricd_info{version=\"%s\"} 1\n", FABRICD_VERSION);
	family(b, "fabricd_sm_state", "gauge", "This SM's state: 0 not active, 1 discovering, 2 standby, 3 master.");
	http_printf(b, "fabricd_sm_state %d\n", (int)sm->state);
	family(b, "fabricd_sweeps_total", "counter", "Sweeps this SM ran, heavy and light (its SMInfo ActCount).");
	http_printf(b, "fabricd_sweeps_total %u\n", sm->act_count);
	family(b, "fabricd_subnet_clean", "gauge", "1 if every Set of the published sweep landed.");
	http_printf(b, "fabricd_subnet_clean %d\n", sm->last_sweep_ok ? 1 : 0);
	family(b, "fabricd_subnet_nodes", "gauge", "Nodes of the published sweep, by type.");
	http_printf(b, "fabricd_subnet_nodes{type=\"switch\"} %zu\nfabricd_subnet_nodes{type=\"ca\"} %zu\n",
		    pub ? fabric_count(&pub->fabric, NODE_SWITCH) : 0, pub ? fabric_count(&pub->fabric, NODE_CA) : 0);
	family(b, "fabricd_subnet_links", "gauge", "Links of the published sweep.");
	http_printf(b, "fabricd_subnet_links %zu\n", pub ? fabric_link_count(&pub->fabric) : 0);
	family(b, "fabricd_mads_sent_total", "counter", "MADs this SM sent, retries included.");
	http_printf(b, "fabricd_mads_sent_total %" PRIu64 "\n", ms->sent);
	family(b, "fabricd_mads_received_total", "counter", "MADs this SM received.");
	http_printf(b, "fabricd_mads_received_total %" PRIu64 "\n", ms->received);
	family(b, "fabricd_mad_retries_total", "counter", "MADs sent again after no answer.");
	http_printf(b, "fabricd_mad_retries_total %" PRIu64 "\n", ms->retries);
}

static void perf_metrics(struct http_body *b, const struct sm *sm)
{
	const struct sm_snapshot *pub = sm_published(sm);
	const struct fabric *f = pub ? &pub->fabric : NULL;
	const struct perf_stats *st = perf_get_stats(sm->perf);
	size_t n;
	const struct perf_port *ports = perf_ports(sm->perf, &n);
	family(b, "fabricd_perf_sweeps_total", "counter", "Counter sweeps finished.");
	http_printf(b, "fabricd_perf_sweeps_total %u\n", st->sweeps);
	family(b, "fabricd_perf_last_sweep_timestamp_seconds", "gauge", "When the last counter sweep finished.");
	http_printf(b, "fabricd_perf_last_sweep_timestamp_seconds %.3f\n", st->last_unix);
	family(b, "fabricd_perf_last_sweep_duration_seconds", "gauge", "How long the last counter sweep took.");
	http_printf(b, "fabricd_perf_last_sweep_duration_seconds %.3f\n", st->last_seconds);
	family(b, "fabricd_perf_ports_unanswered", "gauge", "Ports whose agent did not answer the last counter sweep.");
	http_printf(b, "fabricd_perf_ports_unanswered %u\n", st->unanswered);
	for (int c = 0; c < PC_COUNT; c++) {
		family(b, families[c].name, "counter", families[c].help);
		for (size_t i = 0; i < n; i++) {
			if (!ports[i].have_raw)
				continue;
			http_printf(b, "%s", families[c].name);
			port_labels(b, f, &ports[i]);
			http_printf(b, " %" PRIu64 "\n", ports[i].c.total.v[c] * families[c].scale);
		}
	}
	family(b, "fabricd_port_bit_error_rate", "gauge",
	       "Symbol errors per bit the link carried in the last counter interval (an estimate).");
	for (size_t i = 0; i < n; i++) {
		if (!ports[i].have_raw || ports[i].c.seconds <= 0)
			continue;
		http_printf(b, "fabricd_port_bit_error_rate");
		port_labels(b, f, &ports[i]);
		http_printf(b, " %.6e\n", pc_ber(ports[i].c.last.v[PC_SYMBOL_ERRORS], ports[i].gbps, ports[i].c.seconds));
	}
}

static int answer(void *arg, const char *path, struct http_body *b)
{
	const struct sm *sm = arg;
	if (strcmp(path, "/metrics") != 0)
		return 404;
	sm_metrics(b, sm);
	if (sm->perf)
		perf_metrics(b, sm);
	return 200;
}

struct http_server *metrics_open(struct sm *sm, char *err, size_t errlen)
{
	return http_listen(sm->loop, sm->cfg.metrics_listen, "text/plain; version=0.0.4; charset=utf-8", answer, sm,
			   err, errlen);
}
