/*
 * DOC: fabricctl health
 *
 *   health                    what the last counter sweep judged (unhealthy
 *                             ports: reported, isolated, disabled, or kept
 *                             with why; flapping is LinkDowned over its
 *                             threshold), then the degraded links (below
 *                             what both ends support), from the database
 *   health clear [NODE[PORT]] asks the running fabricd to declare one port,
 *                             a node's ports, or every port healthy again
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/output.h"
#include "topology/linkq.h"
#include "topology/netfile.h"

/* Degraded ports listed in text before the rest are only counted. */
#define TEXT_DEGRADED_MAX 20

static void print_unhealthy(const struct ctl *c, const struct fabric *f, const struct db_port_health *h, size_t n)
{
	if (c->json) {
		printf("\"unhealthy\": [");
		for (size_t i = 0; i < n; i++) {
			char buf[24];
			printf("%s\n  {\"node\": ", i ? "," : "");
			json_string(stdout, ctl_node_name(f, h[i].node_guid, buf, sizeof(buf)));
			printf(", \"node_guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"state\": ", h[i].node_guid, h[i].port);
			json_string(stdout, h[i].state);
			printf(", \"since\": %.3f, \"why\": ", h[i].since);
			json_string(stdout, h[i].why);
			printf("}");
		}
		printf("%s]", n ? "\n" : "");
		return;
	}
	if (!n) {
		printf("no unhealthy port\n");
		return;
	}
	static const char *heads[] = { "NODE", "PORT", "STATE", "FOR", "WHY" };
	struct table t;
	table_init(&t, 5, heads);
	for (size_t i = 0; i < n; i++) {
		char buf[24], ps[8], age[24];
		double s = (double)time(NULL) - h[i].since;
		snprintf(ps, sizeof(ps), "%u", h[i].port);
		snprintf(age, sizeof(age), "%.0f s", s > 0 ? s : 0);
		table_row(&t, ctl_node_name(f, h[i].node_guid, buf, sizeof(buf)), ps, h[i].state, age, h[i].why);
	}
	table_print(&t, stdout);
	table_free(&t);
}

static void print_degraded(const struct ctl *c, const struct fabric *f)
{
	static const char *heads[] = { "NODE", "PORT", "LINK", "COULD BE" };
	struct table t;
	size_t shown = 0;
	table_init(&t, 4, heads);
	if (c->json)
		printf(", \"degraded\": [");
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			struct link_could_be cb;
			char text[16], could[64], ps[8];
			if (!link_could_be(n, (uint8_t)p, &cb) || !(cb.narrower || cb.slower))
				continue;
			link_could_be_text(&cb, could, sizeof(could));
			if (c->json) {
				printf("%s\n  {\"node\": ", shown ? "," : "");
				json_string(stdout, n->desc);
				printf(", \"node_guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"link\": \"%s\", \"could_be\": \"%s\"}",
				       n->guid, p, netfile_link_text(&n->ports[p], text), could);
			} else if (shown < TEXT_DEGRADED_MAX) {
				snprintf(ps, sizeof(ps), "%u", p);
				table_row(&t, n->desc, ps, netfile_link_text(&n->ports[p], text), could);
			}
			shown++;
		}
	}
	if (c->json) {
		printf("%s]", shown ? "\n" : "");
	} else if (shown) {
		printf("\n%zu port%s below what both ends support:\n", shown, shown == 1 ? "" : "s");
		table_print(&t, stdout);
		if (shown > TEXT_DEGRADED_MAX)
			printf("... and %zu more (fabricctl links --degraded)\n", shown - TEXT_DEGRADED_MAX);
	} else {
		printf("no degraded link\n");
	}
	table_free(&t);
}

static int clear(struct ctl *c, int argc, char **argv)
{
	char request[64] = "health clear", answer[256], why[256];
	if (argc > 3) {
		fprintf(stderr, "fabricctl health clear: expected [NODE[PORT]]\n");
		return EXIT_USAGE;
	}
	if (argc == 3) {
		struct fabric f;
		uint64_t guid;
		uint8_t port;
		if (ctl_load_fabric(c, &f) < 0)
			return EXIT_DB;
		int rc = ctl_node_port(c, &f, argv[2], &guid, &port);
		fabric_free(&f);
		if (rc != EXIT_OK)
			return rc;
		snprintf(request, sizeof(request), "health clear %" PRIx64 " %u", guid, port);
	}
	if (ctl_ask_daemon(c, request, answer, sizeof(answer), why, sizeof(why)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", why);
		return EXIT_DAEMON;
	}
	fputs(answer, stdout);
	return strncmp(answer, "ok", 2) == 0 ? EXIT_OK : EXIT_USAGE;
}

int cmd_health(struct ctl *c, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "clear") == 0)
		return clear(c, argc, argv);
	if (argc > 1) {
		fprintf(stderr, "fabricctl health: expected nothing, or clear [NODE[PORT]]\n");
		return EXIT_USAGE;
	}
	struct fabric f;
	struct db_port_health *h;
	size_t n;
	if (ctl_load_fabric(c, &f) < 0)
		return EXIT_DB;
	if (db_load_port_health(c->db, &h, &n) < 0) {
		fprintf(stderr, "fabricctl: %s\n", db_last_error(c->db));
		fabric_free(&f);
		return EXIT_DB;
	}
	if (c->json)
		printf("{");
	print_unhealthy(c, &f, h, n);
	print_degraded(c, &f);
	if (c->json)
		printf("}\n");
	free(h);
	fabric_free(&f);
	return EXIT_OK;
}
