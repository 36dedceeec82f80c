/*
 * DOC: fabricctl route
 *
 * Follows the stored forwarding tables from SRC to DST, one line per hop,
 * the way ibtracert walks the live fabric: which port each hop leaves by
 * and what is behind it. Exit 1 if the tables drop or loop the packet.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

struct hop {
	const struct node *node;
	uint8_t in, out;
};

static void print_hops(const struct ctl *c, const struct hop *hops, unsigned n, uint16_t slid,
		       uint16_t dlid)
{
	if (c->json) {
		printf("{\"slid\": %u, \"dlid\": %u, \"hops\": [", slid, dlid);
		for (unsigned i = 0; i < n; i++) {
			printf("%s\n  {\"node\": ", i ? "," : "");
			json_string(stdout, hops[i].node->desc);
			printf(", \"guid\": \"0x%016" PRIx64 "\", \"in_port\": %u, \"out_port\": %u}",
			       hops[i].node->guid, hops[i].in, hops[i].out);
		}
		printf("\n]}\n");
		return;
	}
	static const char *heads[] = { "HOP", "NODE", "GUID", "IN", "OUT" };
	struct table t;
	table_init(&t, 5, heads);
	for (unsigned i = 0; i < n; i++) {
		char num[8], guid[24], in[8], out[8];
		snprintf(num, sizeof(num), "%u", i);
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, hops[i].node->guid);
		snprintf(in, sizeof(in), "%u", hops[i].in);
		snprintf(out, sizeof(out), "%u", hops[i].out);
		table_row(&t, num, hops[i].node->desc, guid, i ? in : "-", i + 1 < n ? out : "-");
	}
	printf("route from LID %u to LID %u, %u hops\n", slid, dlid, n - 1);
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
	if (ctl_load_fabric(c, &f) < 0)
		return EXIT_DB;
	int rc = EXIT_NOT_FOUND;
	uint8_t sport, dport;
	const struct node *src = ctl_find_port(c, &f, argv[1], &sport);
	const struct node *dst = ctl_find_port(c, &f, argv[2], &dport);
	if (!src || !dst) {
		fprintf(stderr, "fabricctl: no node '%s' in the fabric\n", src ? argv[2] : argv[1]);
		fabric_free(&f);
		return EXIT_NOT_FOUND;
	}
	if (db_load_tables(c->db, &f, &t) < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		fabric_free(&f);
		return EXIT_DB;
	}
	uint16_t slid = fabric_port_lid(src, sport), dlid = fabric_port_lid(dst, dport);
	struct hop hops[FABRIC_MAX_HOPS + 2];
	unsigned n = 0;
	const struct node *at = src;
	uint8_t in = 0, out = sport;
	for (;;) {
		if (n == FABRIC_MAX_HOPS + 1) {
			fprintf(stderr, "fabricctl: the tables loop: no arrival after %d hops\n", FABRIC_MAX_HOPS);
			goto done;
		}
		/* arrived: at the switch, or in through the CA port that has dlid */
		if (at == dst && (at->type == NODE_SWITCH || in == dport)) {
			hops[n++] = (struct hop){ at, in, 0 };
			break;
		}
		if (at->type == NODE_SWITCH) {
			out = t.lft[at->index] && dlid <= t.max_lid ? t.lft[at->index][dlid] : LFT_NO_PATH;
			if (out == LFT_NO_PATH || out > at->nports || (out == 0 && at != dst)) {
				fprintf(stderr, "fabricctl: %s has no route to LID %u\n", at->desc, dlid);
				goto done;
			}
		}
		hops[n++] = (struct hop){ at, in, out };
		const struct port *p = &at->ports[out];
		if (!p->remote) {
			fprintf(stderr, "fabricctl: %s port %u leads nowhere\n", at->desc, out);
			goto done;
		}
		in = p->remote_port;
		at = p->remote;
		if (at->type != NODE_SWITCH && (at != dst || in != dport)) {
			fprintf(stderr, "fabricctl: the route to LID %u ends at %s\n", dlid, at->desc);
			goto done;
		}
	}
	print_hops(c, hops, n, slid, dlid);
	rc = EXIT_OK;
done:
	routing_tables_free(&t);
	fabric_free(&f);
	return rc;
}
