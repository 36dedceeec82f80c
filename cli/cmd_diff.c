/*
 * DOC: fabricctl diff
 *
 * Compares the discovered fabric with a planned one (an ibnetdiscover or
 * ibsim net file), matching nodes by description: missing and unplanned
 * nodes, and every port whose cable goes somewhere else than planned.
 * Exit 0 when they agree, 1 when they differ.
 */
#include <stdio.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "topology/netfile.h"

/* Prints a line for each port of a (in fabric A) that b's twin does not mirror. */
static unsigned compare_ports(const struct node *a, const struct fabric *fb, const char *a_name,
			      const char *b_name, bool report_extra)
{
	unsigned diffs = 0;
	const struct node *b = fabric_find_desc(fb, a->desc);
	for (unsigned p = 1; p <= a->nports; p++) {
		const struct port *pa = &a->ports[p];
		const struct port *pb = b && p <= b->nports ? &b->ports[p] : NULL;
		if (!pa->remote)
			continue;
		if (!pb || !pb->remote) {
			printf("%s link %s[%u] -> %s[%u] is not in %s\n", report_extra ? "unplanned" : "missing",
			       a->desc, p, pa->remote->desc, pa->remote_port, b_name);
			diffs++;
		} else if (strcmp(pb->remote->desc, pa->remote->desc) != 0 ||
			   pb->remote_port != pa->remote_port) {
			/* report miswiring once, from the planned side */
			if (!report_extra) {
				printf("miswired %s[%u]: %s has %s[%u], %s has %s[%u]\n", a->desc, p, a_name,
				       pa->remote->desc, pa->remote_port, b_name, pb->remote->desc,
				       pb->remote_port);
				diffs++;
			}
		}
	}
	return diffs;
}

int cmd_diff(struct ctl *c, int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "fabricctl diff: expected one net file\n");
		return EXIT_USAGE;
	}
	struct fabric plan, found;
	char err[NETFILE_ERR_LEN];
	if (netfile_read(argv[1], &plan, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_USAGE;
	}
	if (ctl_load_fabric(c, &found) < 0) {
		fabric_free(&plan);
		return EXIT_DB;
	}
	unsigned diffs = 0;
	for (size_t i = 0; i < plan.nnodes; i++)
		if (!fabric_find_desc(&found, plan.nodes[i]->desc)) {
			printf("missing node %s\n", plan.nodes[i]->desc);
			diffs++;
		}
	for (size_t i = 0; i < found.nnodes; i++)
		if (!fabric_find_desc(&plan, found.nodes[i]->desc)) {
			printf("unplanned node %s\n", found.nodes[i]->desc);
			diffs++;
		}
	for (size_t i = 0; i < plan.nnodes; i++)
		diffs += compare_ports(plan.nodes[i], &found, "the plan", "the fabric", false);
	for (size_t i = 0; i < found.nnodes; i++)
		diffs += compare_ports(found.nodes[i], &plan, "the fabric", "the plan", true);
	if (diffs == 0)
		printf("the fabric matches %s: %zu nodes, %zu links\n", argv[1], plan.nnodes,
		       fabric_link_count(&plan));
	fabric_free(&plan);
	fabric_free(&found);
	return diffs ? EXIT_NOT_FOUND : EXIT_OK;
}
