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
 * name), node_guid, port, and the peer's node and port. Counters are
 * fabricd's 64-bit running totals; data is in bytes (the PMA counts 4-byte
 * words). To keep the series few on big fabrics (docs/monitoring.md), a
 * port has 7 series always (4 data counters, XmitWait, state, rate) and an
 * error counter or BER series only once that counter is not zero (a
 * missing error series reads as 0 in PromQL with "or vector(0)").
 */
#include "sm/metrics.h"

#include <inttypes.h>
#include <string.h>

#include "sm/ha/ha.h"
#include "topology/netfile.h"
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

/* The reported changes answered, as a histogram of the time until their tables were in place. */
static void reaction_metrics(struct http_body *b, const struct reaction *r)
{
	family(b, "fabricd_change_to_tables_seconds", "histogram",
	       "From a reported change (trap, light sweep, table audit) to the switches holding its new tables.");
	for (unsigned i = 0; i < REACTION_BOUNDS; i++)
		http_printf(b, "fabricd_change_to_tables_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
			    reaction_bounds_ms[i] / 1000.0, r->within[i]);
	http_printf(b, "fabricd_change_to_tables_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n"
		    "fabricd_change_to_tables_seconds_sum %.3f\n"
		    "fabricd_change_to_tables_seconds_count %" PRIu64 "\n", r->count, r->sum_ms / 1000.0, r->count);
}

/* {node=...,node_guid=...,port=...,peer=...,peer_port=...}, extra (",link=\"4xSDR\"") inside. */
static void labels(struct http_body *b, const struct fabric *f, uint64_t guid, uint8_t port, const char *extra)
{
	const struct node *n = f ? fabric_find_guid(f, guid) : NULL;
	const struct port *pt = n && port <= n->nports ? &n->ports[port] : NULL;
	http_printf(b, "{node=\"");
	if (n)
		label_value(b, n->desc);
	else
		http_printf(b, "0x%016" PRIx64, guid);
	http_printf(b, "\",node_guid=\"0x%016" PRIx64 "\",port=\"%u\",peer=\"", guid, port);
	if (pt && pt->remote)
		label_value(b, pt->remote->desc);
	http_printf(b, "\",peer_port=\"%u\"%s}", pt && pt->remote ? pt->remote_port : 0, extra);
}

/* A counter of what the table audit read, by what it held: as published, other, no answer. */
static void audit_counter(struct http_body *b, const char *name, const char *help, uint64_t read, uint64_t differed,
			  uint64_t unanswered)
{
	family(b, name, "counter", help);
	http_printf(b, "%s{held=\"published\"} %" PRIu64 "\n%s{held=\"other\"} %" PRIu64 "\n"
		    "%s{held=\"unanswered\"} %" PRIu64 "\n", name, read - differed, name, differed, name, unanswered);
}

static void port_labels(struct http_body *b, const struct fabric *f, const struct perf_port *pp)
{
	labels(b, f, pp->c.node_guid, pp->c.port, "");
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
	audit_counter(b, "fabricd_lft_audit_blocks_total",
		      "LFT blocks the table audit asked switches for, by what they held: the published entries, others, "
		      "no answer.", sm->audit.read, sm->audit.differed, sm->audit.unanswered);
	family(b, "fabricd_lft_audit_rotations_total", "counter",
	       "Times the table audit went round every published switch's LFT blocks.");
	http_printf(b, "fabricd_lft_audit_rotations_total %" PRIu64 "\n", sm->audit.rotations);
	audit_counter(b, "fabricd_port_audit_tables_total",
		      "SL-to-VL maps, VL arbitration and P_Key tables the table audit asked nodes for, by what they held: "
		      "what the published sweep wrote, others, no answer.", sm->audit.port_read, sm->audit.port_differed,
		      sm->audit.port_unanswered);
	family(b, "fabricd_port_audit_rotations_total", "counter",
	       "Times the table audit went round every published node's port tables.");
	http_printf(b, "fabricd_port_audit_rotations_total %" PRIu64 "\n", sm->audit.port_rotations);
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
	family(b, "fabricd_heavy_sweeps_total", "counter", "Heavy sweeps this SM ran.");
	http_printf(b, "fabricd_heavy_sweeps_total %u\n", sm->sched.heavy_sweeps);
	family(b, "fabricd_heavy_sweep_failures_total", "counter", "Heavy sweeps that published nothing.");
	http_printf(b, "fabricd_heavy_sweep_failures_total %u\n", sm->sched.failed_sweeps);
	family(b, "fabricd_last_heavy_sweep_duration_seconds", "gauge", "How long the last heavy sweep took.");
	http_printf(b, "fabricd_last_heavy_sweep_duration_seconds %.3f\n", sm->sched.last_sweep_seconds);
	family(b, "fabricd_last_heavy_sweep_mads", "gauge", "MADs the last heavy sweep sent.");
	http_printf(b, "fabricd_last_heavy_sweep_mads %" PRIu64 "\n", sm->sched.last_sweep_mads);
	reaction_metrics(b, &sm->reaction);
	struct mcast_figures mf = mcast_figures(&sm->mcast);
	family(b, "fabricd_multicast_groups", "gauge",
	       "The SA's multicast groups, by state: programmed, or left out of the MFTs (no root proved their tree).");
	http_printf(b, "fabricd_multicast_groups{state=\"programmed\"} %u\nfabricd_multicast_groups{state=\"left_out\"} %u\n",
		    mf.groups - mf.unproven, mf.unproven);
	family(b, "fabricd_multicast_mlids", "gauge", "MLIDs the groups take (IPv6 solicited-node groups share one).");
	http_printf(b, "fabricd_multicast_mlids %u\n", mf.mlids);
	family(b, "fabricd_multicast_memberships", "gauge", "Members of all multicast groups together.");
	http_printf(b, "fabricd_multicast_memberships %u\n", mf.memberships);
	family(b, "fabricd_multicast_cleared_first_total", "counter",
	       "MFT programmings that cleared some groups' entries before writing their new trees (a rewrite in place "
	       "not proven, or what the switches held not known).");
	http_printf(b, "fabricd_multicast_cleared_first_total %u\n", mf.two_phase);
	if (!pub)
		return;
	family(b, "fabricd_routing_info", "gauge", "The routing engine of the published tables.");
	http_printf(b, "fabricd_routing_info{engine=\"");
	label_value(b, pub->engine[0] ? pub->engine : "unknown");
	http_printf(b, "\"} 1\n");
	family(b, "fabricd_routing_vls", "gauge", "Data VLs (layers) the published routing uses.");
	http_printf(b, "fabricd_routing_vls %u\n", pub->tables.layers);
	const struct fabric *f = &pub->fabric;
	family(b, "fabricd_port_state", "gauge", "Port state of each cabled port: 1 down, 2 init, 3 armed, 4 active.");
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i]->nports; p++)
			if (f->nodes[i]->ports[p].remote) {
				http_printf(b, "fabricd_port_state");
				labels(b, f, f->nodes[i]->guid, (uint8_t)p, "");
				http_printf(b, " %u\n", f->nodes[i]->ports[p].state);
			}
	family(b, "fabricd_port_rate_gbps", "gauge", "Data rate of each cabled port (lanes x lane rate), link as width x speed.");
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i]->nports; p++) {
			const struct port *pt = &f->nodes[i]->ports[p];
			char text[16], extra[40];
			if (!pt->remote)
				continue;
			snprintf(extra, sizeof(extra), ",link=\"%s\"", netfile_link_text(pt, text));
			http_printf(b, "fabricd_port_rate_gbps");
			labels(b, f, f->nodes[i]->guid, (uint8_t)p, extra);
			http_printf(b, " %g\n", fabric_port_data_gbps(pt));
		}
}

static void health_metrics(struct http_body *b, const struct sm *sm)
{
	const struct sm_snapshot *pub = sm_published(sm);
	size_t n;
	const struct db_port_health *rows = health_rows(sm->health, &n);
	family(b, "fabricd_unhealthy_ports", "gauge", "Ports over a health threshold.");
	http_printf(b, "fabricd_unhealthy_ports %zu\n", n);
	family(b, "fabricd_port_unhealthy", "gauge", "1 for each unhealthy port; state: unhealthy, isolating, isolated, "
	       "disabled or kept.");
	for (size_t i = 0; i < n; i++) {
		char extra[48];
		snprintf(extra, sizeof(extra), ",state=\"%s\"", rows[i].state);
		http_printf(b, "fabricd_port_unhealthy");
		labels(b, pub ? &pub->fabric : NULL, rows[i].node_guid, rows[i].port, extra);
		http_printf(b, " 1\n");
	}
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
			if (!ports[i].have_raw || (pc_is_error(c) && !ports[i].c.total.v[c]))
				continue;
			http_printf(b, "%s", families[c].name);
			port_labels(b, f, &ports[i]);
			http_printf(b, " %" PRIu64 "\n", ports[i].c.total.v[c] * families[c].scale);
		}
	}
	family(b, "fabricd_port_bit_error_rate", "gauge",
	       "Symbol errors per bit the link carried in the last counter interval (an estimate).");
	for (size_t i = 0; i < n; i++) {
		if (!ports[i].have_raw || ports[i].c.seconds <= 0 || !ports[i].c.last.v[PC_SYMBOL_ERRORS])
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
	if (sm->health)
		health_metrics(b, sm);
	return 200;
}

struct http_server *metrics_open(struct sm *sm, char *err, size_t errlen)
{
	return http_listen(sm->loop, sm->cfg.metrics_listen, "text/plain; version=0.0.4; charset=utf-8", answer, sm,
			   err, errlen);
}
