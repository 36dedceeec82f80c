/*
 * DOC: fabricctl route
 *
 * Follows the stored forwarding tables from SRC to DST, one line per hop,
 * the way ibtracert walks the live fabric: which port each hop leaves by
 * and what is behind it, and the VL it travels on (the SL of the
 * destination's layer through the stored SL-to-VL map). Exit 1 if the
 * tables drop or loop the packet.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"
#include "cli/walk.h"

static void print_hops(const struct ctl *c, const struct hop *hops, unsigned n, uint16_t slid,
		       uint16_t dlid, unsigned sl, unsigned vl)
{
	if (c->json) {
		printf("{\"slid\": %u, \"dlid\": %u, \"sl\": %u, \"hops\": [", slid, dlid, sl);
		for (unsigned i = 0; i < n; i++) {
			printf("%s\n  {\"node\": ", i ? "," : "");
			json_string(stdout, hops[i].node->desc);
			printf(", \"guid\": \"0x%016" PRIx64 "\", \"in_port\": %u, \"out_port\": %u, \"vl\": %u}",
			       hops[i].node->guid, hops[i].in, hops[i].out, vl);
		}
		printf("\n]}\n");
		return;
	}
	static const char *heads[] = { "HOP", "NODE", "GUID", "IN", "OUT", "VL" };
	struct table t;
	table_init(&t, 6, heads);
	for (unsigned i = 0; i < n; i++) {
		char num[12], guid[24], in[8], out[8], vlt[8];
		snprintf(num, sizeof(num), "%u", i);
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, hops[i].node->guid);
		snprintf(in, sizeof(in), "%u", hops[i].in);
		snprintf(out, sizeof(out), "%u", hops[i].out);
		snprintf(vlt, sizeof(vlt), "%u", vl);
		table_row(&t, num, hops[i].node->desc, guid, i ? in : "-", i + 1 < n ? out : "-", i + 1 < n ? vlt : "-");
	}
	printf("route from LID %u to LID %u, %u hops, SL %u\n", slid, dlid, n - 1, sl);
	table_print(&t, stdout);
	table_free(&t);
}

int cmd_route(struct ctl *c, int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "fabricctl route: expected SRC and DST (description, GUID or LID)\n");
		return EXIT_USAGE;
	}
	struct fabric f;
	struct routing_tables t;
	if (ctl_load_routed(c, &f, &t) < 0)
		return EXIT_DB;
	int rc = EXIT_NOT_FOUND;
	uint8_t sport, dport;
	const struct node *src = ctl_find_port(c, &f, argv[1], &sport);
	const struct node *dst = ctl_find_port(c, &f, argv[2], &dport);
	if (!src || !dst) {
		fprintf(stderr, "fabricctl: no node '%s' in the fabric\n", src ? argv[2] : argv[1]);
		goto done;
	}
	uint16_t slid = fabric_port_lid(src, sport), dlid = fabric_port_lid(dst, dport);
	struct hop hops[WALK_MAX_HOPS];
	char why[160];
	unsigned n = walk_route(&t, src, sport, dlid, dst, dport, hops, why, sizeof(why));
	if (!n) {
		fprintf(stderr, "fabricctl: %s\n", why);
		goto done;
	}
	unsigned sl = dlid <= t.max_lid ? t.sl[dlid] : 0;
	print_hops(c, hops, n, slid, dlid, sl, t.vl_by_sl[sl & 15]);
	rc = EXIT_OK;
done:
	routing_tables_free(&t);
	fabric_free(&f);
	return rc;
}
