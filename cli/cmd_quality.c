/*
 * DOC: fabricctl quality
 *
 * How evenly forwarding tables spread traffic: every shift permutation
 * (host i sends to host i + k, hosts in fat-tree order) and a number of
 * seeded random permutations, each flow walked through the tables; per
 * permutation the busiest link's flow count. Prints the worst and mean,
 * and the hottest links of the worst permutation. The tables are the
 * stored ones, or any SM's from a dump_lfts file with the topology from
 * an ibnetdiscover file (which carries the LIDs). Exit 1 if any flow is
 * dropped or loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"
#include "routing/quality.h"

struct quality_args {
	const char *lfts, *topology;
	size_t shifts, random;
	uint64_t seed;
};

static int parse_args(int argc, char **argv, struct quality_args *a)
{
	*a = (struct quality_args){ .random = 100, .seed = 1 };
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (!val) {
			fprintf(stderr, "fabricctl quality: %s needs a value\n", opt);
			return -1;
		}
		i++;
		if (strcmp(opt, "--lfts") == 0) {
			a->lfts = val;
		} else if (strcmp(opt, "--topology") == 0) {
			a->topology = val;
		} else if (strcmp(opt, "--shifts") == 0 || strcmp(opt, "--random") == 0 ||
			   strcmp(opt, "--seed") == 0) {
			unsigned long long n = strtoull(val, &end, 0);
			if (*val == '\0' || *val == '-' || *end) {
				fprintf(stderr, "fabricctl quality: %s must be a number, not '%s'\n", opt, val);
				return -1;
			}
			if (strcmp(opt, "--shifts") == 0)
				a->shifts = (size_t)n;
			else if (strcmp(opt, "--random") == 0)
				a->random = (size_t)n;
			else
				a->seed = n;
		} else {
			fprintf(stderr, "fabricctl quality: unknown option '%s'\n", opt);
			return -1;
		}
	}
	if (!a->lfts != !a->topology) {
		fprintf(stderr, "fabricctl quality: --lfts and --topology go together\n");
		return -1;
	}
	return 0;
}

static void print_report(const char *what, const struct quality_report *r, bool json, bool last)
{
	if (json) {
		printf("\"%s\": {\"permutations\": %zu, \"flows\": %zu, \"broken\": %zu, \"max_load\": %u, "
		       "\"mean_max_load\": %.3f, \"mean_load\": %.3f, \"worst\": %zu, \"hot\": [",
		       what, r->permutations, r->flows, r->broken, r->max_load, r->mean_max_load, r->mean_load,
		       r->worst);
		for (size_t i = 0; i < r->nhot; i++) {
			printf("%s{\"node\": ", i ? ", " : "");
			json_string(stdout, r->hot[i].sw->desc);
			printf(", \"port\": %u, \"load\": %u}", r->hot[i].port, r->hot[i].load);
		}
		printf("]}%s", last ? "" : ", ");
		return;
	}
	printf("%-7s %6zu permutations %9zu flows  max link load %3u  mean max %6.2f  mean %5.2f  broken %zu\n",
	       what, r->permutations, r->flows, r->max_load, r->mean_max_load, r->mean_load, r->broken);
	if (r->max_load > 1) {
		printf("        hottest links of the worst one (%s %zu):", what, r->worst);
		for (size_t i = 0; i < r->nhot; i++)
			printf(" %s[%u]=%u", r->hot[i].sw->desc, r->hot[i].port, r->hot[i].load);
		printf("\n");
	}
}

int cmd_quality(struct ctl *c, int argc, char **argv)
{
	struct quality_args a;
	struct fabric f;
	struct routing_tables t;
	struct quality_report shift, rnd;
	if (parse_args(argc, argv, &a) < 0)
		return EXIT_USAGE;
	int rc = ctl_load_tables(c, a.topology, a.lfts, &f, &t);
	if (rc != EXIT_OK)
		return rc;
	if (quality_shifts(&f, &t, a.shifts, &shift) < 0 || quality_random(&f, &t, a.random, a.seed, &rnd) < 0) {
		fprintf(stderr, "fabricctl: out of memory\n");
		rc = EXIT_DB;
	} else {
		if (c->json)
			printf("{\"hosts\": %zu, ", shift.hosts);
		else
			printf("%zu hosts, %s\n", shift.hosts, a.lfts ? a.lfts : "stored tables");
		print_report("shift", &shift, c->json, false);
		print_report("random", &rnd, c->json, true);
		if (c->json)
			printf("}\n");
		rc = shift.broken || rnd.broken ? EXIT_NOT_FOUND : EXIT_OK;
	}
	routing_tables_free(&t);
	fabric_free(&f);
	return rc;
}
