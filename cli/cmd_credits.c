/*
 * DOC: fabricctl credits
 *
 * Per link, the receive buffer one VL needs for full rate (see
 * routing/credits.c), from the link's width and speed as discovered and
 * the cable length, per-end latency and MTU given (defaults: 5 m, 100 ns,
 * 4096 bytes); then that times the VLs the routing uses. Compare the
 * figure with the port's buffer (vendor data sheet) to see which links
 * will stall on long cables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"
#include "routing/credits.h"
#include "topology/netfile.h"

static int parse_args(int argc, char **argv, struct credit_params *p)
{
	*p = (struct credit_params){ .cable_m = 5.0, .latency_ns = 100.0, .mtu = 4096 };
	for (int i = 1; i < argc; i += 2) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (!val) {
			fprintf(stderr, "fabricctl credits: %s needs a value\n", opt);
			return -1;
		}
		double v = strtod(val, &end);
		if (*val == '\0' || *end || v < 0 || v > 1e6) {
			fprintf(stderr, "fabricctl credits: %s must be a number 0..1000000, not '%s'\n", opt, val);
			return -1;
		}
		if (strcmp(opt, "--cable-length") == 0)
			p->cable_m = v;
		else if (strcmp(opt, "--latency") == 0)
			p->latency_ns = v;
		else if (strcmp(opt, "--mtu") == 0 && v >= 256 && v <= 4096)
			p->mtu = (unsigned)v;
		else {
			fprintf(stderr, "fabricctl credits: unknown option '%s' (or --mtu outside 256..4096)\n", opt);
			return -1;
		}
	}
	return 0;
}

int cmd_credits(struct ctl *c, int argc, char **argv)
{
	struct credit_params p;
	struct fabric f;
	struct routing_tables t;
	if (parse_args(argc, argv, &p) < 0)
		return EXIT_USAGE;
	if (ctl_load_routed(c, &f, &t) < 0)
		return EXIT_DB;
	static const char *heads[] = { "LINK", "PEER", "RATE", "GB/S", "CREDITS/VL", "VLS", "CREDITS" };
	struct table tab;
	table_init(&tab, 7, heads);
	bool first = true;
	if (c->json)
		printf("{\"cable_m\": %.1f, \"latency_ns\": %.1f, \"mtu\": %u, \"vls\": %u, \"links\": [", p.cable_m,
		       p.latency_ns, p.mtu, t.layers);
	for (size_t i = 0; i < f.nnodes; i++) {
		const struct node *n = f.nodes[i];
		for (unsigned port = 1; port <= n->nports; port++) {
			const struct port *pt = &n->ports[port];
			/* each link once, from its lower (GUID, port) end */
			if (!pt->remote || pt->remote->guid < n->guid ||
			    (pt->remote == n && pt->remote_port < port))
				continue;
			double gbps = fabric_port_data_gbps(pt);
			unsigned per_vl = credits_per_vl(gbps, &p);
			char link[96], peer[96], rate[16], g[16], cv[16], vls[8], total[16];
			snprintf(link, sizeof(link), "%s[%u]", n->desc, port);
			snprintf(peer, sizeof(peer), "%s[%u]", pt->remote->desc, pt->remote_port);
			netfile_link_text(pt, rate);
			snprintf(g, sizeof(g), "%.1f", gbps);
			snprintf(cv, sizeof(cv), "%u", per_vl);
			snprintf(vls, sizeof(vls), "%u", t.layers);
			snprintf(total, sizeof(total), "%u", per_vl * t.layers);
			if (c->json) {
				printf("%s\n  {\"link\": ", first ? "" : ",");
				json_string(stdout, link);
				printf(", \"peer\": ");
				json_string(stdout, peer);
				printf(", \"rate\": \"%s\", \"gbps\": %.2f, \"credits_per_vl\": %u, \"credits\": %u}", rate,
				       gbps, per_vl, per_vl * t.layers);
			} else {
				table_row(&tab, link, peer, rate, g, cv, vls, total);
			}
			first = false;
		}
	}
	if (c->json) {
		printf("\n]}\n");
	} else {
		printf("credits of %d bytes per VL for full rate: %.1f m cable, %.0f ns per end, MTU %u\n",
		       CREDIT_BYTES, p.cable_m, p.latency_ns, p.mtu);
		table_print(&tab, stdout);
	}
	table_free(&tab);
	routing_tables_free(&t);
	fabric_free(&f);
	return EXIT_OK;
}
