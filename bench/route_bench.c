/*
 * route-bench - routing computation alone, without a simulator: builds a
 * generated fat tree in memory, numbers its LIDs, and times the routing
 * engine (with its deadlock proof), printing peak memory, the VLs used
 * and the link load under sampled shift permutations.
 *
 *   route-bench [--levels 2|3] [--radix K] [--engine ftree|updown|minhop]
 *               [--remove-links N] [--remove-switches N] [--shifts N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "routing/engine.h"
#include "routing/quality.h"
#include "topology/fattree_gen.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static unsigned number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (*s == '\0' || *end) {
		fprintf(stderr, "route-bench: '%s' is not a number\n", s);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	struct fattree_spec spec = { .levels = 3, .radix = 48, .seed = 1 };
	struct routing_request rq = { .engine = ENGINE_FTREE, .max_layers = 8 };
	size_t shifts = 64;
	static const struct option opts[] = {
		{ "levels", required_argument, NULL, 'l' }, { "radix", required_argument, NULL, 'r' },
		{ "engine", required_argument, NULL, 'e' }, { "remove-links", required_argument, NULL, 'L' },
		{ "remove-switches", required_argument, NULL, 'S' }, { "shifts", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'x' }, { NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': spec.levels = number(optarg); break;
		case 'r': spec.radix = number(optarg); break;
		case 'L': spec.remove_links = number(optarg); break;
		case 'S': spec.remove_switches = number(optarg); break;
		case 's': shifts = number(optarg); break;
		case 'x': spec.seed = number(optarg); break;
		case 'e':
			if (routing_engine_parse(optarg, &rq.engine) < 0) {
				fprintf(stderr, "route-bench: unknown engine '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			return 2;
		}
	}
	struct fabric f;
	char err[256];
	double t0 = now_ms();
	if (fattree_generate(&spec, &f, err) < 0) {
		fprintf(stderr, "route-bench: %s\n", err);
		return 2;
	}
	uint16_t lid = 1;	/* CAs first, as fabricd numbers a new fabric */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < f.nnodes; i++) {
			struct node *n = f.nodes[i];
			if ((n->type == NODE_SWITCH) == (pass == 1))
				n->ports[n->type == NODE_SWITCH ? 0 : 1].lid = lid++;
		}
	long rss_model = peak_rss_mb();
	double t1 = now_ms();
	struct routing_tables t;
	struct routing_result res;
	int rc = routing_compute(&f, &rq, &t, &res);
	double t2 = now_ms();
	if (rc < 0) {
		fprintf(stderr, "route-bench: out of memory\n");
		return 1;
	}
	printf("fabric: %u levels, radix %u: %zu switches, %zu hosts, max LID %u (built in %.0f ms)\n",
	       spec.levels, spec.radix, fabric_count(&f, NODE_SWITCH), fabric_count(&f, NODE_CA), t.max_lid,
	       t1 - t0);
	char how[80];
	if (res.order_proven)
		snprintf(how, sizeof(how), "every turn rises in up*-down* order");
	else if (res.layers.ordered)
		snprintf(how, sizeof(how), "%u layer%s by up*-down* order, the others' channel dependency graphs",
			 res.layers.ordered, res.layers.ordered > 1 ? "s" : "");
	else
		snprintf(how, sizeof(how), "channel dependency graph");
	printf("route:  engine %s, %.0f ms (with the deadlock proof), %u VL%s, %s (%s)%s; peak RSS %ld MB (model %ld MB)\n",
	       res.info.engine, t2 - t1, t.layers, t.layers > 1 ? "s" : "", rc ? "CYCLIC" : "acyclic", how,
	       res.order_proven || res.layers.answers_proven ? "" : ", switches' answers not within the VLs",
	       peak_rss_mb(), rss_model);
	struct quality_report q;
	if (shifts && quality_shifts(&f, &t, shifts, &q) == 0)
		printf("load:   %zu shift permutations, max link load %u, mean max %.2f, %zu of %zu flows broken (%.0f ms)\n",
		       q.permutations, q.max_load, q.mean_max_load, q.broken, q.flows, now_ms() - t2);
	routing_tables_free(&t);
	fabric_free(&f);
	return rc ? 1 : 0;
}
