/*
 * DOC: fabricctl plan
 *
 *   fabricctl plan roce FILE.yaml --out DIR [--failures N] [--loopbacks] [--routing bgp|static] [--summary-only]
 *   fabricctl plan check DIR
 *
 * "roce" plans an Ethernet fabric (routing/roce_plan.c), writes one file
 * set per switch (unless --summary-only) and DIR/summary.txt, and prints
 * the summary with the time and peak memory the planning took. A design whose own tables would be
 * unsafe gets only the summary, naming the problem. "check" proves a plan
 * directory again from its files alone (topology/roce_planfile.c reads
 * them, routing/roce_recheck.c proves them), so a plan that was edited by
 * hand, or by another tool, can be judged before it is deployed. Both exit
 * 0 when safe and 1 when not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/plan_write.h"
#include "routing/roce_recheck.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int plan_roce(int argc, char **argv)
{
	const char *in = NULL, *dir = NULL;
	struct roce_plan_options o = { .bgp = true };
	bool summary_only = false;	/* for benchmarks: prove, but write only the summary */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "--loopbacks") == 0)
			o.loopbacks = true;
		else if (strcmp(argv[i], "--summary-only") == 0)
			summary_only = true;
		else if (strcmp(argv[i], "--routing") == 0 && i + 1 < argc) {
			const char *r = argv[++i];
			if (strcmp(r, "bgp") != 0 && strcmp(r, "static") != 0) {
				fprintf(stderr, "fabricctl plan roce: --routing is bgp or static, not '%s'\n", r);
				return EXIT_USAGE;
			}
			o.bgp = strcmp(r, "bgp") == 0;
		}
		else if (strcmp(argv[i], "--failures") == 0 && i + 1 < argc) {
			char *end;
			errno = 0;
			unsigned long long n = strtoull(argv[++i], &end, 10);
			if (!*argv[i] || *end || errno || *argv[i] == '-') {
				fprintf(stderr, "fabricctl plan roce: --failures must be a count (0: every link), not '%s'\n",
					argv[i]);
				return EXIT_USAGE;
			}
			o.max_failures = (size_t)n;
		} else if (argv[i][0] != '-' && !in)
			in = argv[i];
		else {
			fprintf(stderr, "fabricctl plan roce: unexpected '%s' (usage: plan roce FILE.yaml --out DIR "
					"[--failures N] [--loopbacks] [--routing bgp|static] [--summary-only])\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!in || !dir) {
		fprintf(stderr, "fabricctl plan roce: needs FILE.yaml and --out DIR\n");
		return EXIT_USAGE;
	}
	struct roce_fabric rf;
	char err[ROCE_ERR_LEN];
	if (roce_load(in, &rf, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_USAGE;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "fabricctl: %s: %s\n", dir, strerror(errno));
		roce_free(&rf);
		return EXIT_USAGE;
	}
	double t0 = now();
	struct roce_plan p;
	if (roce_plan(&rf, &o, &p) < 0) {
		fprintf(stderr, "fabricctl: %s: out of memory while planning\n", in);
		roce_free(&rf);
		return EXIT_NOT_FOUND;
	}
	double planned = now() - t0;
	int rc = EXIT_OK;
	bool design_ok = roce_scenario_safe(&p.design) && !p.design.cut_pairs && roce_bgp_safe(&p, &p.design);
	if (design_ok && !summary_only && plan_write_switches(&p, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		rc = EXIT_NOT_FOUND;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	FILE *sum = fopen(path, "w");
	if (sum) {
		plan_write_summary(sum, &p, in);
		if (!design_ok)
			fprintf(sum, "no switch files written: the design itself is unsafe\n");
		fclose(sum);
	}
	plan_write_summary(stdout, &p, in);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("planned in %.3f s (%zu failure scenarios), written in %.3f s; peak memory %.1f MB; files in %s\n",
	       planned, p.nfailures, now() - t0 - planned, ru.ru_maxrss / 1024.0, dir);
	if (!design_ok && p.bgp && !p.asn.safe)
		fprintf(stderr, "fabricctl: %s: unsafe AS numbers: %s; no switch files written\n", in, p.asn.problem);
	else if (!design_ok && roce_scenario_safe(&p.design) && !p.design.cut_pairs)
		fprintf(stderr, "fabricctl: %s: what eBGP converges to is unsafe (%s); no switch files written "
			"(--routing static plans static routes)\n", in,
			p.design.bgp_unsettled ? "it does not settle" : p.design.bgp.first_problem);
	else if (!design_ok)
		fprintf(stderr, "fabricctl: %s: the design is unsafe; no switch files written (see %s)\n", in, path);
	if (rc == EXIT_OK && !plan_safe(&p))
		rc = EXIT_NOT_FOUND;
	roce_plan_free(&p);
	roce_free(&rf);
	return rc;
}

static int plan_check(const char *dir)
{
	struct roce_planfiles pf;
	static struct roce_recheck r;	/* its message buffer is large */
	char err[PLANFILE_ERR_LEN];
	if (planfiles_load(dir, &pf, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_NOT_FOUND;
	}
	int rc = roce_recheck(&pf, &r);
	planfiles_free(&pf);
	if (rc < 0) {
		fprintf(stderr, "fabricctl: %s: out of memory\n", dir);
		return EXIT_NOT_FOUND;
	}
	if (!r.safe) {
		fprintf(stderr, "fabricctl: %s: UNSAFE: %s\n", dir, r.problem);
		return EXIT_NOT_FOUND;
	}
	printf("%s: %zu switches, %zu links, %zu prefixes: loop-free, every switch with hosts reaches every prefix, "
	       "no CBD (%zu channels, %zu dependencies); PFC on the lossless priorities only, with enough headroom: SAFE\n",
	       dir, r.switches, r.links, r.prefixes, r.channels, r.dependencies);
	return EXIT_OK;
}

int cmd_plan(struct ctl *c, int argc, char **argv)
{
	(void)c;
	if (argc >= 2 && strcmp(argv[1], "roce") == 0)
		return plan_roce(argc, argv);
	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return plan_check(argv[2]);
	fprintf(stderr, "usage: fabricctl plan roce FILE.yaml --out DIR [--failures N] [--loopbacks] [--routing bgp|static] "
			"[--summary-only]\n"
			"       fabricctl plan check DIR\n");
	return EXIT_USAGE;
}
