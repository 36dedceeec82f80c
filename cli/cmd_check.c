/*
 * DOC: fabricctl check
 *
 * Two proofs on the stored tables: connectivity (every CA port reaches
 * every LID in the fabric, walking the LFTs) and deadlock freedom (the
 * channel dependency graph of those routes has no cycle). Exit 0 when
 * both hold, 1 with the failures (at most 10 unreachable pairs are named)
 * or the credit loop otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"
#include "cli/walk.h"
#include "routing/cdg.h"

#define SHOW_FAILURES 10

struct target {
	const struct node *node;
	uint8_t port;
	uint16_t lid;
};

/* Every addressed port: switch port 0 and each CA port with a LID. */
static size_t targets(const struct fabric *f, struct target *out)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *nd = f->nodes[i];
		if (nd->type == NODE_SWITCH) {
			if (nd->ports[0].lid)
				out[n++] = (struct target){ nd, 0, nd->ports[0].lid };
			continue;
		}
		for (unsigned p = 1; p <= nd->nports; p++)
			if (nd->ports[p].lid && nd->ports[p].remote)
				out[n++] = (struct target){ nd, (uint8_t)p, nd->ports[p].lid };
	}
	return n;
}

int cmd_check(struct ctl *c, int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "fabricctl check: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	struct fabric f;
	struct routing_tables t;
	if (ctl_load_routed(c, &f, &t) < 0)
		return EXIT_DB;
	size_t nports = 0;
	for (size_t i = 0; i < f.nnodes; i++)
		nports += (size_t)f.nodes[i]->nports + 1;
	struct target *tg = malloc(nports * sizeof(*tg));
	struct cdg_report cdg;
	if (!tg || cdg_check(&f, &t, &cdg) < 0) {
		fprintf(stderr, "fabricctl: out of memory\n");
		free(tg);
		routing_tables_free(&t);
		fabric_free(&f);
		return EXIT_DB;
	}
	size_t nt = targets(&f, tg), routes = 0, failed = 0, sources = 0;
	char failures[SHOW_FAILURES][200];
	for (size_t s = 0; s < nt; s++) {
		if (tg[s].node->type == NODE_SWITCH)
			continue;
		sources++;
		for (size_t d = 0; d < nt; d++) {
			struct hop hops[WALK_MAX_HOPS];
			char why[160];
			if (d == s)
				continue;
			routes++;
			if (walk_route(&t, tg[s].node, tg[s].port, tg[d].lid, tg[d].node, tg[d].port, hops, why,
				       sizeof(why)))
				continue;
			if (failed < SHOW_FAILURES)
				snprintf(failures[failed], sizeof(failures[failed]), "LID %u -> LID %u: %s",
					 tg[s].lid, tg[d].lid, why);
			failed++;
		}
	}
	char loop[1024] = "";
	cdg_cycle_text(&cdg, loop, sizeof(loop));
	if (c->json) {
		printf("{\"sources\": %zu, \"destinations\": %zu, \"routes\": %zu, \"unreachable\": %zu, "
		       "\"vls\": %u, \"channels\": %zu, \"dependencies\": %zu, \"credit_loop\": ", sources, nt,
		       routes, failed, t.layers, cdg.channels, cdg.dependencies);
		if (cdg.cycle_len)
			json_string(stdout, loop);
		else
			printf("null");
		printf("}\n");
	} else {
		if (failed == 0)
			printf("connectivity: ok, %zu CA ports reach all %zu LIDs (%zu routes)\n", sources, nt, routes);
		else
			printf("connectivity: FAILED, %zu of %zu routes do not arrive\n", failed, routes);
		for (size_t i = 0; i < failed && i < SHOW_FAILURES; i++)
			printf("  %s\n", failures[i]);
		if (cdg.cycle_len)
			printf("deadlock:     CREDIT LOOP on VL%u (%zu channels, %zu dependencies):\n  %s\n",
			       cdg.vl, cdg.channels, cdg.dependencies, loop);
		else
			printf("deadlock:     ok, no cycle in the channel dependency graph of any of %u VL%s "
			       "(%zu channels, %zu dependencies)\n", t.layers, t.layers > 1 ? "s" : "",
			       cdg.channels, cdg.dependencies);
	}
	free(tg);
	routing_tables_free(&t);
	fabric_free(&f);
	return failed || cdg.cycle_len ? EXIT_NOT_FOUND : EXIT_OK;
}
