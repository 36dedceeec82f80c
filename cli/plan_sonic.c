/*
 * DOC: a RoCE plan's QoS in the formats switches and hosts load
 *
 * DIR/<switch>.sonic.json is a SONiC config_db fragment (load it with
 * `config load` or `sonic-cfggen -j FILE --write-to-db`): the tables and
 * keys of SONiC's YANG models (sonic-port-qos-map, sonic-dscp-tc-map,
 * sonic-tc-queue-map, sonic-tc-priority-group-map,
 * sonic-pfc-priority-queue-map, sonic-buffer-profile, sonic-buffer-pg,
 * sonic-cable-length, sonic-wred-profile, sonic-scheduler, sonic-queue,
 * sonic-pfcwd), every value a string as config_db keeps them.
 *
 * - Traffic class = 802.1p priority = egress queue; a lossless class gets
 *   the priority group of its own number, every other class PG 0.
 * - One lossless buffer profile per (speed, cable) pair, named as SONiC
 *   names its own (pg_lossless_<Mb/s>_<m>m_profile): xoff is the planned
 *   PFC headroom, xon two MTUs, size their sum, on the device's
 *   ingress_lossless_pool (pools are the ASIC's: the fragment does not set them).
 * - ECN on the lossless queues through a WRED profile per port speed with
 *   the plan's marking thresholds; CNPs' queue strict priority, the others
 *   DWRR; the PFC watchdog drops on a storm on every fabric and host port.
 *
 * DIR/hosts-nic.sh is the hosts' side: DSCP trust and PFC on the lossless
 * priorities with iproute2's dcb (any DCB NIC), RDMA CM's ToS, and DCQCN
 * on (mlx5's sysfs knobs, where the NIC has them).
 */
#include "cli/plan_sonic.h"

#include <string.h>

#include "routing/pfc.h"

#define SONIC_MAP "FABRICD"	/* the name of every QoS map the fragment defines */
#define XON_MTUS 2

struct sonic {
	FILE *out;
	const struct roce_plan *p;
	const struct roce_switch *sw;
	bool first_table, first_entry;
};

static bool lossless(const struct roce_qos *q, unsigned prio)
{
	for (unsigned k = 0; k < q->nlossless; k++)
		if (q->lossless[k] == prio)
			return true;
	return false;
}

static void table(struct sonic *c, const char *name)
{
	fprintf(c->out, "%s\n  \"%s\": {", c->first_table ? "" : "\n  },", name);
	c->first_table = false;
	c->first_entry = true;
}

/* Starts entry KEY (printf-style) of the current table: `"KEY": {`. */
static void entry(struct sonic *c, const char *fmt, const char *a, const char *b)
{
	char key[2 * ROCE_NAME_LEN + 16];
	snprintf(key, sizeof(key), fmt, a, b);
	fprintf(c->out, "%s\n    ", c->first_entry ? "" : ",");
	json_string(c->out, key);
	fprintf(c->out, ": {");
	c->first_entry = false;
}

/* The lossless priorities as "3,4". */
static void prio_list(const struct roce_qos *q, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (unsigned k = 0; k < q->nlossless && off < len; k++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", k ? "," : "", q->lossless[k]);
}

static void write_maps(struct sonic *c)
{
	const struct roce_qos *q = &c->p->rf->qos;
	uint8_t tc_of_dscp[ROCE_DSCPS];
	memcpy(tc_of_dscp, q->prio_of_dscp, sizeof(tc_of_dscp));
	tc_of_dscp[q->cnp_dscp] = q->cnp_prio;
	table(c, "DSCP_TO_TC_MAP");
	entry(c, "%s", SONIC_MAP, NULL);
	for (unsigned d = 0; d < ROCE_DSCPS; d++)
		fprintf(c->out, "%s\"%u\": \"%u\"", d ? ", " : "", d, tc_of_dscp[d]);
	fprintf(c->out, "}");
	const char *maps[] = { "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "TC_TO_PRIORITY_GROUP_MAP" };
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		bool pg = strcmp(maps[m], "TC_TO_PRIORITY_GROUP_MAP") == 0;
		table(c, maps[m]);
		entry(c, "%s", SONIC_MAP, NULL);
		for (unsigned t = 0; t < ROCE_PRIOS; t++)
			fprintf(c->out, "%s\"%u\": \"%u\"", t ? ", " : "", t, !pg || lossless(q, t) ? t : 0);
		fprintf(c->out, "}");
	}
}

static void write_port_qos(struct sonic *c)
{
	char prios[32];
	prio_list(&c->p->rf->qos, prios, sizeof(prios));
	table(c, "PORT_QOS_MAP");
	for (size_t i = 0; i < c->sw->nports; i++) {
		entry(c, "%s", c->sw->ports[i].name, NULL);
		fprintf(c->out, "\"dscp_to_tc_map\": \"" SONIC_MAP "\", \"tc_to_queue_map\": \"" SONIC_MAP "\", "
				"\"tc_to_pg_map\": \"" SONIC_MAP "\", \"pfc_to_queue_map\": \"" SONIC_MAP "\", "
				"\"pfc_enable\": \"%s\", \"pfcwd_sw_enable\": \"%s\"}", prios, prios);
	}
}

/* The lossless buffer profile name of port pt, as SONiC names them. */
static void profile_name(const struct roce_port *pt, char *buf, size_t len)
{
	snprintf(buf, len, "pg_lossless_%.0f_%.0fm_profile", pt->gbps * 1000, pt->cable_m);
}

static void write_buffers(struct sonic *c)
{
	const struct roce_fabric *rf = c->p->rf;
	table(c, "CABLE_LENGTH");
	entry(c, "%s", SONIC_MAP, NULL);
	for (size_t i = 0; i < c->sw->nports; i++)
		fprintf(c->out, "%s\"%s\": \"%.0fm\"", i ? ", " : "", c->sw->ports[i].name, c->sw->ports[i].cable_m);
	fprintf(c->out, "}");
	table(c, "BUFFER_PROFILE");
	for (size_t i = 0; i < c->sw->nports; i++) {
		const struct roce_port *pt = &c->sw->ports[i];
		char name[64], other[64];
		profile_name(pt, name, sizeof(name));
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			profile_name(&c->sw->ports[k], other, sizeof(other));
			seen = strcmp(name, other) == 0;
		}
		if (seen)
			continue;
		unsigned xoff = pfc_headroom_bytes(pt->gbps, pt->cable_m, rf->mtu), xon = XON_MTUS * rf->mtu;
		entry(c, "%s", name, NULL);
		fprintf(c->out, "\"pool\": \"ingress_lossless_pool\", \"xon\": \"%u\", \"xoff\": \"%u\", \"size\": \"%u\", "
				"\"dynamic_th\": \"0\"}", xon, xoff, xon + xoff);
	}
	table(c, "BUFFER_PG");
	for (size_t i = 0; i < c->sw->nports; i++) {
		char name[64], pg[8];
		profile_name(&c->sw->ports[i], name, sizeof(name));
		for (unsigned k = 0; k < rf->qos.nlossless; k++) {
			snprintf(pg, sizeof(pg), "%u", rf->qos.lossless[k]);
			entry(c, "%s|%s", c->sw->ports[i].name, pg);
			fprintf(c->out, "\"profile\": \"%s\"}", name);
		}
	}
}

/* The WRED/ECN profile name for a port speed. */
static void wred_name(double gbps, char *buf, size_t len)
{
	snprintf(buf, len, "FABRICD_ECN_%.0fG", gbps);
}

static void write_wred(struct sonic *c)
{
	table(c, "WRED_PROFILE");
	for (size_t i = 0; i < c->sw->nports; i++) {
		const struct roce_port *pt = &c->sw->ports[i];
		char name[40];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = c->sw->ports[k].gbps == pt->gbps;
		if (seen)
			continue;
		struct ecn_marking ecn = ecn_for_port(&c->p->rf->qos, pt->gbps);
		unsigned long long min = (unsigned long long)(ecn.min_kb * 1024), max = (unsigned long long)(ecn.max_kb * 1024);
		wred_name(pt->gbps, name, sizeof(name));
		entry(c, "%s", name, NULL);
		fprintf(c->out, "\"wred_green_enable\": \"true\", \"wred_yellow_enable\": \"true\", \"wred_red_enable\": \"true\", "
				"\"ecn\": \"ecn_all\"");
		const char *colour[] = { "green", "yellow", "red" };
		for (int k = 0; k < 3; k++)
			fprintf(c->out, ", \"%s_min_threshold\": \"%llu\", \"%s_max_threshold\": \"%llu\", "
					"\"%s_drop_probability\": \"%.0f\"", colour[k], min, colour[k], max, colour[k],
				ecn.probability < 1 ? 1 : ecn.probability);
		fprintf(c->out, "}");
	}
}

static void write_scheduling(struct sonic *c)
{
	const struct roce_qos *q = &c->p->rf->qos;
	table(c, "SCHEDULER");
	entry(c, "%s", "FABRICD_STRICT", NULL);
	fprintf(c->out, "\"type\": \"STRICT\"}");
	entry(c, "%s", "FABRICD_LOSSLESS", NULL);
	fprintf(c->out, "\"type\": \"DWRR\", \"weight\": \"%u\"}", 50 / (q->nlossless ? q->nlossless : 1));
	unsigned lossy = ROCE_PRIOS - q->nlossless - !lossless(q, q->cnp_prio);
	entry(c, "%s", "FABRICD_LOSSY", NULL);
	fprintf(c->out, "\"type\": \"DWRR\", \"weight\": \"%u\"}", 50 / (lossy ? lossy : 1));
	table(c, "QUEUE");
	for (size_t i = 0; i < c->sw->nports; i++)
		for (unsigned t = 0; t < ROCE_PRIOS; t++) {
			char wred[40], qi[8];
			snprintf(qi, sizeof(qi), "%u", t);
			entry(c, "%s|%s", c->sw->ports[i].name, qi);
			if (t == q->cnp_prio)
				fprintf(c->out, "\"scheduler\": \"FABRICD_STRICT\"}");
			else if (lossless(q, t)) {
				wred_name(c->sw->ports[i].gbps, wred, sizeof(wred));
				fprintf(c->out, "\"scheduler\": \"FABRICD_LOSSLESS\", \"wred_profile\": \"%s\"}", wred);
			} else
				fprintf(c->out, "\"scheduler\": \"FABRICD_LOSSY\"}");
		}
	table(c, "PFC_WD");
	entry(c, "%s", "GLOBAL", NULL);
	fprintf(c->out, "\"POLL_INTERVAL\": \"200\"}");
	for (size_t i = 0; i < c->sw->nports; i++) {
		entry(c, "%s", c->sw->ports[i].name, NULL);
		fprintf(c->out, "\"action\": \"drop\", \"detection_time\": \"200\", \"restoration_time\": \"200\"}");
	}
}

void plan_write_sonic(FILE *out, const struct roce_plan *p, size_t s)
{
	struct sonic c = { .out = out, .p = p, .sw = &p->rf->sw[s], .first_table = true };
	fprintf(out, "{");
	write_maps(&c);
	write_port_qos(&c);
	write_buffers(&c);
	write_wred(&c);
	write_scheduling(&c);
	fprintf(out, "\n  }\n}\n");
}

void plan_write_nic(FILE *out, const struct roce_plan *p)
{
	const struct roce_qos *q = &p->rf->qos;
	unsigned roce_dscp = ROCE_DSCPS;
	for (unsigned d = 0; d < ROCE_DSCPS && roce_dscp == ROCE_DSCPS; d++)
		if (q->prio_of_dscp[d] && lossless(q, q->prio_of_dscp[d]))
			roce_dscp = d;
	if (roce_dscp == ROCE_DSCPS)
		roce_dscp = 0;
	fprintf(out, "#!/bin/sh\n# RoCE v2 settings for a host NIC on %s, planned by fabricd: trust DSCP, PFC on the\n"
		     "# lossless priorities only, RoCE traffic in DSCP %u (priority %u), DCQCN on, CNPs in DSCP %u.\n"
		     "#   hosts-nic.sh IFACE [RDMA_DEVICE]\nset -eu\n"
		     "IF=${1:?usage: hosts-nic.sh IFACE [RDMA_DEVICE]}\nDEV=${2:-}\n\n"
		     "# DSCP to priority, as the switches map it (iproute2's dcb: any DCB-capable NIC)\n"
		     "dcb app replace dev \"$IF\" dscp-prio", p->rf->name[0] ? p->rf->name : "this fabric", roce_dscp,
		q->prio_of_dscp[roce_dscp], q->cnp_dscp);
	for (unsigned d = 0; d < ROCE_DSCPS; d++)
		if (q->prio_of_dscp[d] || d == q->cnp_dscp)
			fprintf(out, " %u:%u", d, d == q->cnp_dscp ? q->cnp_prio : q->prio_of_dscp[d]);
	fprintf(out, "\n# PFC on the lossless priorities only\ndcb pfc set dev \"$IF\" prio-pfc");
	for (unsigned t = 0; t < ROCE_PRIOS; t++)
		fprintf(out, " %u:%s", t, lossless(q, t) ? "on" : "off");
	fprintf(out, "\n\n# NVIDIA ConnectX (mlx5): trust DSCP in the NIC, DCQCN on the lossless priorities\n"
		     "if command -v mlnx_qos >/dev/null 2>&1; then\n\tmlnx_qos -i \"$IF\" --trust dscp --pfc ");
	for (unsigned t = 0; t < ROCE_PRIOS; t++)
		fprintf(out, "%s%d", t ? "," : "", lossless(q, t));
	fprintf(out, "\nfi\nif [ -d \"/sys/class/net/$IF/ecn\" ]; then\n");
	for (unsigned k = 0; k < q->nlossless; k++)
		fprintf(out, "\techo 1 >\"/sys/class/net/$IF/ecn/roce_np/enable/%u\"\n"
			     "\techo 1 >\"/sys/class/net/$IF/ecn/roce_rp/enable/%u\"\n", q->lossless[k], q->lossless[k]);
	fprintf(out, "\techo %u >\"/sys/class/net/$IF/ecn/roce_np/cnp_dscp\"\n"
		     "\techo %u >\"/sys/class/net/$IF/ecn/roce_np/cnp_802p_prio\"\nfi\n\n"
		     "# RDMA CM connections carry the RoCE DSCP, ECN-capable (ToS %u)\n"
		     "if [ -n \"$DEV\" ] && command -v cma_roce_tos >/dev/null 2>&1; then\n"
		     "\tcma_roce_tos -d \"$DEV\" -t %u\nfi\n",
		q->cnp_dscp, q->cnp_prio, roce_dscp << 2 | 2, roce_dscp << 2 | 2);
}
