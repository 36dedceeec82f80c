/*
 * DOC: fabricctl topology, node, links, export
 *
 * Views of the fabric as the last stored sweep found it. links --degraded
 * lists each port whose link runs narrower or slower than both ends
 * support (iblinkinfo's "Could be", topology/linkq.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/osmdump.h"
#include "cli/output.h"
#include "topology/linkq.h"
#include "topology/netfile.h"

static int ibnetdiscover_text(FILE *out, const struct fabric *f)
{
	return netfile_write(out, f, NETFILE_IBNETDISCOVER);
}

static void json_node(FILE *out, const struct node *n)
{
	fprintf(out, "{\"guid\": \"0x%016" PRIx64 "\", \"type\": \"%s\", \"description\": ", n->guid,
		fabric_node_type_name(n->type));
	json_string(out, n->desc);
	fprintf(out, ", \"ports\": %u, \"lid\": %u}", (unsigned)n->nports,
		n->type == NODE_SWITCH ? n->ports[0].lid : n->ports[1].lid);
}

static void json_link(FILE *out, const struct node *n, unsigned p)
{
	const struct port *pt = &n->ports[p];
	char text[16];
	fprintf(out, "{\"from\": ");
	json_string(out, n->desc);
	fprintf(out, ", \"from_guid\": \"0x%016" PRIx64 "\", \"from_port\": %u, \"to\": ", n->guid, p);
	json_string(out, pt->remote ? pt->remote->desc : "");
	fprintf(out, ", \"to_guid\": \"0x%016" PRIx64 "\", \"to_port\": %u, \"link\": \"%s\", \"state\": \"%s\"}",
		pt->remote ? pt->remote->guid : 0, pt->remote_port, netfile_link_text(pt, text),
		ctl_state_name(pt->state));
}

/* Each link once: from the lower node index (or lower port on a loop). */
static bool first_end(const struct node *n, unsigned p)
{
	const struct port *pt = &n->ports[p];
	return pt->remote && (pt->remote->index > n->index ||
			      (pt->remote == n && pt->remote_port > p));
}

static int print_links(struct ctl *c, const struct fabric *f, bool down_only)
{
	static const char *heads[] = { "FROM", "PORT", "TO", "PORT", "LINK", "STATE" };
	struct table t;
	bool any = false;
	table_init(&t, 6, heads);
	if (c->json)
		printf("[");
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct port *pt = &n->ports[p];
			if (!first_end(n, p))
				continue;
			const struct port *rp = &pt->remote->ports[pt->remote_port];
			if (down_only && pt->state == PORT_ACTIVE && rp->state == PORT_ACTIVE)
				continue;
			if (c->json) {
				printf("%s\n  ", any ? "," : "");
				json_link(stdout, n, p);
			} else {
				char ps[8], rps[8], text[16];
				snprintf(ps, sizeof(ps), "%u", p);
				snprintf(rps, sizeof(rps), "%u", pt->remote_port);
				table_row(&t, n->desc, ps, pt->remote->desc, rps, netfile_link_text(pt, text),
					  ctl_state_name(pt->state < rp->state ? pt->state : rp->state));
			}
			any = true;
		}
	}
	if (c->json)
		printf("%s]\n", any ? "\n" : "");
	else
		table_print(&t, stdout);
	table_free(&t);
	return any || !down_only ? EXIT_OK : EXIT_NOT_FOUND;
}

int cmd_topology(struct ctl *c, int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "fabricctl topology: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	struct fabric f;
	if (ctl_load_fabric(c, &f) < 0)
		return EXIT_DB;
	if (c->json) {
		printf("{\"nodes\": [");
		for (size_t i = 0; i < f.nnodes; i++) {
			printf("%s\n  ", i ? "," : "");
			json_node(stdout, f.nodes[i]);
		}
		printf("\n], \"links\": ");
		print_links(c, &f, false);
		printf("}\n");
		fabric_free(&f);
		return EXIT_OK;
	}
	printf("%zu switches, %zu CAs, %zu links\n\n", fabric_count(&f, NODE_SWITCH),
	       fabric_count(&f, NODE_CA), fabric_link_count(&f));
	static const char *heads[] = { "TYPE", "GUID", "LID", "PORTS", "LINKED", "DESCRIPTION" };
	struct table t;
	table_init(&t, 6, heads);
	/* switches first, then CAs, as an operator reads a fabric top-down */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < f.nnodes; i++) {
			const struct node *n = f.nodes[i];
			if ((n->type == NODE_SWITCH) != (pass == 0))
				continue;
			char guid[24], lid[8], ports[8], linked[8];
			unsigned nl = 0;
			for (unsigned p = 1; p <= n->nports; p++)
				nl += n->ports[p].remote != NULL;
			snprintf(guid, sizeof(guid), "0x%016" PRIx64, n->guid);
			snprintf(lid, sizeof(lid), "%u", fabric_port_lid(n, n->type == NODE_SWITCH ? 0 : 1));
			snprintf(ports, sizeof(ports), "%u", n->nports);
			snprintf(linked, sizeof(linked), "%u", nl);
			table_row(&t, fabric_node_type_name(n->type), guid, lid, ports, linked, n->desc);
		}
	table_print(&t, stdout);
	table_free(&t);
	printf("\n");
	print_links(c, &f, false);
	fabric_free(&f);
	return EXIT_OK;
}

/* Each cabled port (both ends of a link, as iblinkinfo) running below what both ends support. */
static int print_degraded(struct ctl *c, const struct fabric *f)
{
	static const char *heads[] = { "NODE", "PORT", "PEER", "PEER PORT", "LINK", "COULD BE" };
	struct table t;
	size_t shown = 0;
	table_init(&t, 6, heads);
	if (c->json)
		printf("[");
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			struct link_could_be cb;
			const struct port *pt = &n->ports[p];
			if (!link_could_be(n, (uint8_t)p, &cb) || !(cb.narrower || cb.slower))
				continue;
			char text[16], could[64];
			link_could_be_text(&cb, could, sizeof(could));
			if (c->json) {
				printf("%s\n  {\"node\": ", shown ? "," : "");
				json_string(stdout, n->desc);
				printf(", \"node_guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"peer\": ", n->guid, p);
				json_string(stdout, pt->remote->desc);
				printf(", \"peer_port\": %u, \"link\": \"%s\", \"could_be_width\": \"%s\", "
				       "\"could_be_speed\": \"%s\", \"narrower\": %s, \"slower\": %s}", pt->remote_port,
				       netfile_link_text(pt, text), link_width_text(cb.width),
				       link_speed_text(cb.speed, cb.speed_ext), cb.narrower ? "true" : "false",
				       cb.slower ? "true" : "false");
			} else {
				char ps[8], rps[8];
				snprintf(ps, sizeof(ps), "%u", p);
				snprintf(rps, sizeof(rps), "%u", pt->remote_port);
				table_row(&t, n->desc, ps, pt->remote->desc, rps, netfile_link_text(pt, text), could);
			}
			shown++;
		}
	}
	if (c->json)
		printf("%s]\n", shown ? "\n" : "");
	else if (shown)
		table_print(&t, stdout);
	else
		printf("every link runs as wide and as fast as both its ends support\n");
	table_free(&t);
	return EXIT_OK;
}

int cmd_links(struct ctl *c, int argc, char **argv)
{
	bool down = false, degraded = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--down") == 0) {
			down = true;
		} else if (strcmp(argv[i], "--degraded") == 0) {
			degraded = true;
		} else {
			fprintf(stderr, "fabricctl links: unknown argument '%s' (expected --down or --degraded)\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	struct fabric f;
	if (ctl_load_fabric(c, &f) < 0)
		return EXIT_DB;
	int rc = degraded ? print_degraded(c, &f) : print_links(c, &f, down);
	fabric_free(&f);
	return rc;
}

int cmd_node(struct ctl *c, int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "fabricctl node: expected one NAME, GUID or LID\n");
		return EXIT_USAGE;
	}
	struct fabric f;
	if (ctl_load_fabric(c, &f) < 0)
		return EXIT_DB;
	const struct node *n = ctl_find_node(c, &f, argv[1]);
	if (!n) {
		fprintf(stderr, "fabricctl: no node '%s' in the fabric (by description, GUID or LID)\n",
			argv[1]);
		fabric_free(&f);
		return EXIT_NOT_FOUND;
	}
	if (c->json) {
		json_node(stdout, n);
		printf("\n");
		fabric_free(&f);
		return EXIT_OK;
	}
	printf("%s %s\n  GUID 0x%016" PRIx64 ", system image 0x%016" PRIx64 ", %u ports, vendor 0x%06x, "
	       "device 0x%04x\n\n", fabric_node_type_name(n->type), n->desc, n->guid, n->sys_guid,
	       n->nports, n->vendor_id, n->device_id);
	static const char *heads[] = { "PORT", "LID", "STATE", "LINK", "PEER", "PEER PORT" };
	struct table t;
	table_init(&t, 6, heads);
	for (unsigned p = n->type == NODE_SWITCH ? 0 : 1; p <= n->nports; p++) {
		const struct port *pt = &n->ports[p];
		char ps[8], lid[8], rp[8], text[16];
		snprintf(ps, sizeof(ps), "%u", p);
		snprintf(lid, sizeof(lid), "%u", fabric_port_lid(n, (uint8_t)p));
		snprintf(rp, sizeof(rp), "%u", pt->remote_port);
		if (p == 0)
			table_row(&t, ps, lid, ctl_state_name(pt->state), "", "(management port)", "");
		else if (pt->remote)
			table_row(&t, ps, lid, ctl_state_name(pt->state), netfile_link_text(pt, text),
				  pt->remote->desc, rp);
		else
			table_row(&t, ps, lid, "Down", "", "", "");
	}
	table_print(&t, stdout);
	table_free(&t);
	fabric_free(&f);
	return EXIT_OK;
}

/* "LID SL" for every LID in use: the SL file fabricctl check --sl reads. */
static int lid_sl_text(FILE *out, const struct fabric *f, const struct routing_tables *t)
{
	fprintf(out, "# LID SL\n");
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = n->type == NODE_SWITCH ? 0 : 1; p <= (n->type == NODE_SWITCH ? 0 : n->nports); p++)
			if (n->ports[p].lid && n->ports[p].lid <= t->max_lid)
				fprintf(out, "%u %u\n", n->ports[p].lid, t->sl[n->ports[p].lid]);
	}
	return ferror(out) ? -1 : 0;
}

/* The formats fabricctl export writes: NULL tables for the fabric alone. */
static const struct export_format {
	const char *name;
	int (*fabric_only)(FILE *out, const struct fabric *f);
	int (*with_tables)(FILE *out, const struct fabric *f, const struct routing_tables *t);
} formats[] = {
	{ "ibnetdiscover", ibnetdiscover_text, NULL },
	{ "opensm-subnet", osmdump_subnet, NULL },
	{ "opensm-fdbs", NULL, osmdump_fdbs },
	{ "ibdmchk-sl", NULL, osmdump_path_sl },
	{ "sl", NULL, lid_sl_text },
};

/*
 * export FORMAT [--lfts DUMP --topology IBNETDISCOVER]: the stored fabric,
 * or (for the formats with tables) any SM's tables from the switches.
 */
int cmd_export(struct ctl *c, int argc, char **argv)
{
	const struct export_format *fmt = NULL;
	const char *lfts = NULL, *topology = NULL;
	for (size_t i = 0; argc >= 2 && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(argv[1], formats[i].name) == 0)
			fmt = &formats[i];
	for (int i = 2; fmt && i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--lfts") == 0)
			lfts = argv[i + 1];
		else if (strcmp(argv[i], "--topology") == 0)
			topology = argv[i + 1];
		else
			fmt = NULL;
	}
	if (!fmt || argc % 2 || !lfts != !topology) {
		fprintf(stderr, "fabricctl export: use ibnetdiscover, opensm-subnet, opensm-fdbs, ibdmchk-sl or sl; "
			"any with --lfts DUMP --topology IBNETDISCOVER for an SM's tables read from the switches\n");
		return EXIT_USAGE;
	}
	struct fabric f;
	struct routing_tables t;
	int rc = EXIT_OK;
	if (fmt->fabric_only && !topology) {
		if (ctl_open_db(c) != EXIT_OK || ctl_load_fabric(c, &f) < 0)
			return EXIT_DB;
		rc = fmt->fabric_only(stdout, &f) < 0 ? EXIT_DB : EXIT_OK;
	} else {
		int loaded = ctl_load_tables(c, topology, lfts, &f, &t);
		if (loaded != EXIT_OK)
			return loaded;
		fabric_index_end_ports(&f);	/* the writers look up every LID; without the index they scan */
		rc = (fmt->with_tables ? fmt->with_tables(stdout, &f, &t) : fmt->fabric_only(stdout, &f)) < 0
			     ? EXIT_DB : EXIT_OK;
		routing_tables_free(&t);
	}
	fabric_free(&f);
	if (rc != EXIT_OK)
		fprintf(stderr, "fabricctl export: cannot write the %s output\n", fmt->name);
	return rc;
}
