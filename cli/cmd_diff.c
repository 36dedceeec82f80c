/*
 * DOC: fabricctl diff
 *
 * Compares the discovered fabric with a planned one (an ibnetdiscover or
 * ibsim net file). Each planned node is matched to a found node by GUID
 * (an ibnetdiscover file carries them; for an ibsim file without GUID
 * lines the reader numbers nodes as ibsim does); failing that, by
 * description when the description names one node on each side (a
 * hand-written plan of real hardware). Then: planned nodes with no match
 * (missing), found nodes nobody planned (unplanned), and every port whose
 * cable goes elsewhere than planned. Nodes that share a description (four
 * spines all called "MF0;spine:SX6536/U1") are told apart by GUID, so
 * they do not look miswired. Exit 0 when they agree, 1 when they differ.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "topology/netfile.h"

/* The node of f with description desc, if exactly one has it. */
static const struct node *only_desc(const struct fabric *f, const char *desc)
{
	const struct node *found = NULL;
	for (size_t i = 0; i < f->nnodes; i++)
		if (strcmp(f->nodes[i]->desc, desc) == 0) {
			if (found)
				return NULL;
			found = f->nodes[i];
		}
	return found;
}

/* match[i]: the found node planned node i is, or NULL; taken[j]: found node j is matched. */
static void match_nodes(const struct fabric *plan, const struct fabric *found, const struct node **match,
			bool *taken)
{
	for (size_t i = 0; i < plan->nnodes; i++) {
		const struct node *n = fabric_find_guid(found, plan->nodes[i]->guid);
		if (n && n->type == plan->nodes[i]->type && !taken[n->index]) {
			match[i] = n;
			taken[n->index] = true;
		}
	}
	for (size_t i = 0; i < plan->nnodes; i++) {
		const struct node *n = match[i] ? NULL : only_desc(found, plan->nodes[i]->desc);
		if (n && !taken[n->index] && only_desc(plan, plan->nodes[i]->desc)) {
			match[i] = n;
			taken[n->index] = true;
		}
	}
}

/* "desc" or, when another node shares it, "desc (0xGUID)". */
static const char *name(const struct fabric *f, const struct node *n, char *buf, size_t len)
{
	if (only_desc(f, n->desc))
		return n->desc;
	snprintf(buf, len, "%s (0x%016" PRIx64 ")", n->desc, n->guid);
	return buf;
}

/* Lines for the ports of planned node a (found as b) whose cables differ; their count. */
static unsigned compare_ports(const struct fabric *plan, const struct fabric *found, const struct node *a,
			      const struct node *b, const struct node **match)
{
	unsigned diffs = 0;
	char an[160], ra[160], rb[160];
	for (unsigned p = 1; p <= a->nports || (b && p <= b->nports); p++) {
		const struct port *pa = p <= a->nports ? &a->ports[p] : NULL;
		const struct port *pb = b && p <= b->nports ? &b->ports[p] : NULL;
		const struct node *want = pa && pa->remote ? match[pa->remote->index] : NULL;
		if (pa && pa->remote && (!pb || !pb->remote)) {
			printf("missing link %s[%u] -> %s[%u]\n", name(plan, a, an, sizeof(an)), p,
			       name(plan, pa->remote, ra, sizeof(ra)), pa->remote_port);
			diffs++;
		} else if ((!pa || !pa->remote) && pb && pb->remote) {
			printf("unplanned link %s[%u] -> %s[%u]\n", name(plan, a, an, sizeof(an)), p,
			       name(found, pb->remote, rb, sizeof(rb)), pb->remote_port);
			diffs++;
		} else if (pa && pa->remote && (pb->remote != want || pb->remote_port != pa->remote_port)) {
			printf("miswired %s[%u]: the plan has %s[%u], the fabric has %s[%u]\n", name(plan, a, an, sizeof(an)),
			       p, name(plan, pa->remote, ra, sizeof(ra)), pa->remote_port,
			       name(found, pb->remote, rb, sizeof(rb)), pb->remote_port);
			diffs++;
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
	char err[NETFILE_ERR_LEN], nb[160];
	if (netfile_read(argv[1], &plan, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_USAGE;
	}
	if (ctl_load_fabric(c, &found) < 0) {
		fabric_free(&plan);
		return EXIT_DB;
	}
	const struct node **match = calloc(plan.nnodes + 1, sizeof(*match));
	bool *taken = calloc(found.nnodes + 1, sizeof(*taken));
	if (!match || !taken) {
		fprintf(stderr, "fabricctl: out of memory\n");
		free(match);
		free(taken);
		fabric_free(&plan);
		fabric_free(&found);
		return EXIT_DB;
	}
	match_nodes(&plan, &found, match, taken);
	unsigned diffs = 0;
	for (size_t i = 0; i < plan.nnodes; i++) {
		if (!match[i]) {
			printf("missing node %s\n", name(&plan, plan.nodes[i], nb, sizeof(nb)));
			diffs++;
		} else {
			diffs += compare_ports(&plan, &found, plan.nodes[i], match[i], match);
		}
	}
	for (size_t j = 0; j < found.nnodes; j++)
		if (!taken[j]) {
			printf("unplanned node %s\n", name(&found, found.nodes[j], nb, sizeof(nb)));
			diffs++;
		}
	if (diffs == 0)
		printf("the fabric matches %s: %zu nodes, %zu links\n", argv[1], plan.nnodes, fabric_link_count(&plan));
	free(match);
	free(taken);
	fabric_free(&plan);
	fabric_free(&found);
	return diffs ? EXIT_NOT_FOUND : EXIT_OK;
}
