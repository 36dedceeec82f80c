/*
 * DOC: fabricctl plan
 *
 *   fabricctl plan roce FILE.yaml --out DIR [--failures N] [--loopbacks] [--routing bgp|static] [--summary-only]
 *                       [--allow-unsafe]
 *   fabricctl plan check DIR
 *   fabricctl plan fib DIR FIBDIR [--down SWITCH:PORT]...
 *   fabricctl plan wiring DIR
 *
 * "roce" plans an Ethernet fabric (routing/roce_plan.c), writes one file
 * set per switch (unless --summary-only) and DIR/summary.txt, and prints
 * the summary with the time and peak memory the planning took. A design whose own tables would be
 * unsafe gets only the summary, naming the problem, unless --allow-unsafe asks for the
 * files anyway (to show a bad design on the twin, never to deploy).
 * "check" proves a plan
 * directory again from its files alone (topology/roce_planfile.c reads
 * them, routing/roce_recheck.c proves them), so a plan that was edited by
 * hand, or by another tool, can be judged before it is deployed. Both exit
 * 0 when safe and 1 when not. "fib" proves what the switches really
 * installed: FIBDIR/<switch>.json (and .v6.json) as `ip -j route show`
 * prints them, with the named links down (routing/roce_fib.c), and
 * compares them with the plan's eBGP simulation; 0 when safe and equal.
 * "wiring" lists a plan's links and connected prefixes, one per line, for
 * scripts that build the fabric (scripts/roce-twin.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/fabricctl.h"
#include "cli/plan_write.h"
#include "routing/roce_fib.h"
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
	bool allow_unsafe = false;	/* write an unsafe design's files too (for the twin's counter-example) */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "--loopbacks") == 0)
			o.loopbacks = true;
		else if (strcmp(argv[i], "--summary-only") == 0)
			summary_only = true;
		else if (strcmp(argv[i], "--allow-unsafe") == 0)
			allow_unsafe = true;
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
					"[--failures N] [--loopbacks] [--routing bgp|static] [--summary-only] [--allow-unsafe])\n",
				argv[i]);
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
	if ((design_ok || allow_unsafe) && !summary_only && plan_write_switches(&p, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		rc = EXIT_NOT_FOUND;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	FILE *sum = fopen(path, "w");
	if (sum) {
		plan_write_summary(sum, &p, in);
		if (!design_ok)
			fprintf(sum, allow_unsafe ? "switch files written for an UNSAFE design (--allow-unsafe)\n"
						  : "no switch files written: the design itself is unsafe\n");
		fclose(sum);
	}
	plan_write_summary(stdout, &p, in);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("planned in %.3f s (%zu link and %zu switch failure scenarios), written in %.3f s; peak memory %.1f MB; "
	       "files in %s\n", planned, p.nfailures, p.nswitch_failures, now() - t0 - planned, ru.ru_maxrss / 1024.0, dir);
	const char *written = allow_unsafe ? "switch files written anyway (--allow-unsafe)" : "no switch files written";
	if (!design_ok && p.bgp && !p.asn.safe)
		fprintf(stderr, "fabricctl: %s: unsafe AS numbers: %s; %s\n", in, p.asn.problem, written);
	else if (!design_ok && roce_scenario_safe(&p.design) && !p.design.cut_pairs)
		fprintf(stderr, "fabricctl: %s: what eBGP converges to is unsafe (%s); %s "
			"(--routing static plans static routes)\n", in,
			p.design.bgp_unsettled ? "it does not settle" : p.design.bgp.first_problem, written);
	else if (!design_ok)
		fprintf(stderr, "fabricctl: %s: the design is unsafe; %s (see %s)\n", in, written, path);
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

/* Marks the link at SWITCH:PORT down; false (with a message) when there is none. */
static bool mark_down(const struct roce_fabric *rf, const char *arg, bool *down)
{
	const char *colon = strrchr(arg, ':');
	char name[ROCE_NAME_LEN];
	if (!colon || (size_t)(colon - arg) >= sizeof(name)) {
		fprintf(stderr, "fabricctl plan fib: --down takes SWITCH:PORT, not '%s'\n", arg);
		return false;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(colon - arg), arg);
	size_t s = roce_find_switch(rf, name);
	size_t p = s == ROCE_NONE ? ROCE_NONE : roce_find_port(&rf->sw[s], colon + 1);
	for (size_t i = 0; p != ROCE_NONE && i < rf->nlinks; i++) {
		const struct roce_link *l = &rf->links[i];
		if ((l->a == s && l->pa == p) || (l->b == s && l->pb == p)) {
			down[i] = true;
			return true;
		}
	}
	fprintf(stderr, "fabricctl plan fib: --down %s: no such fabric link in the plan\n", arg);
	return false;
}

/* Reads DIR/<switch>.json and, when there, DIR/<switch>.v6.json for every switch; -1 with a message. */
static int load_fibs(const struct roce_fabric *rf, const char *dir, struct fib_table *fib)
{
	char err[PLANFILE_ERR_LEN];
	for (size_t s = 0; s < rf->nsw; s++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.json", dir, rf->sw[s].name);
		if (fibfile_load(path, &fib[s], err, sizeof(err)) < 0) {
			fprintf(stderr, "fabricctl: %s\n", err);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%s.v6.json", dir, rf->sw[s].name);
		if (access(path, F_OK) == 0 && fibfile_load(path, &fib[s], err, sizeof(err)) < 0) {
			fprintf(stderr, "fabricctl: %s\n", err);
			return -1;
		}
	}
	return 0;
}

static int plan_fib(int argc, char **argv)
{
	struct roce_planfiles pf;
	static struct roce_fib_report r;	/* its message buffer is large */
	char err[PLANFILE_ERR_LEN];
	if (argc < 4 || argv[2][0] == '-' || argv[3][0] == '-') {
		fprintf(stderr, "fabricctl plan fib: needs DIR FIBDIR [--down SWITCH:PORT]...\n");
		return EXIT_USAGE;
	}
	if (planfiles_load(argv[2], &pf, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_NOT_FOUND;
	}
	bool *down = calloc(pf.rf.nlinks + 1, sizeof(*down));
	struct fib_table *fib = calloc(pf.rf.nsw + 1, sizeof(*fib));
	int rc = down && fib ? EXIT_OK : EXIT_NOT_FOUND;
	size_t ndown = 0;
	for (int i = 4; i < argc && rc == EXIT_OK; i++) {
		if (strcmp(argv[i], "--down") == 0 && i + 1 < argc)
			rc = mark_down(&pf.rf, argv[++i], down) ? EXIT_OK : EXIT_USAGE;
		else {
			fprintf(stderr, "fabricctl plan fib: unexpected '%s'\n", argv[i]);
			rc = EXIT_USAGE;
		}
		ndown++;
	}
	if (rc == EXIT_OK && load_fibs(&pf.rf, argv[3], fib) < 0)
		rc = EXIT_NOT_FOUND;
	if (rc == EXIT_OK && roce_fib_prove(&pf, fib, down, &r) < 0) {
		fprintf(stderr, "fabricctl: %s: out of memory\n", argv[3]);
		rc = EXIT_NOT_FOUND;
	}
	if (rc == EXIT_OK) {
		printf("%s: %zu switches, %zu prefixes, %zu links down: ", argv[3], pf.rf.nsw, r.prefixes, ndown);
		if (r.safe)
			printf("loop-free, every switch with hosts reaches every prefix a path joins, no CBD (%zu channels, "
			       "%zu dependencies): SAFE\n", r.channels, r.dependencies);
		else
			printf("UNSAFE: %s\n", r.problem);
		if (!r.safe && !r.cbd)
			printf("  no cyclic buffer dependency (%zu channels, %zu dependencies)\n", r.channels, r.dependencies);
		if (r.cut_pairs)
			printf("  %zu (switch, prefix) pairs have no path left\n", r.cut_pairs);
		printf("  the planned tables: %s on %zu of %zu switches\n", r.plan_differs ? "differ" : "identical",
		       r.plan_differs ? r.plan_differs : pf.rf.nsw, pf.rf.nsw);
		if (!r.simulated)
			printf("  eBGP simulation: none (not every switch has an ASN)\n");
		else if (r.sim_differs || r.sim_unsettled)
			printf("  eBGP simulation: DIFFERS on %zu of %zu switches (%zu unsettled); first: %s\n", r.sim_differs,
			       pf.rf.nsw, r.sim_unsettled, r.first_difference);
		else
			printf("  eBGP simulation: identical on all %zu switches\n", pf.rf.nsw);
		if (!r.safe || (r.simulated && (r.sim_differs || r.sim_unsettled)))
			rc = EXIT_NOT_FOUND;
	}
	for (size_t s = 0; fib && s < pf.rf.nsw; s++)
		fibfile_free(&fib[s]);
	free(fib);
	free(down);
	planfiles_free(&pf);
	return rc;
}

static int plan_wiring(const char *dir)
{
	struct roce_planfiles pf;
	char err[PLANFILE_ERR_LEN];
	if (planfiles_load(dir, &pf, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_NOT_FOUND;
	}
	for (size_t i = 0; i < pf.rf.nlinks; i++) {
		const struct roce_link *l = &pf.rf.links[i];
		printf("link %s %s %s %s\n", pf.rf.sw[l->a].name, pf.rf.sw[l->a].ports[l->pa].name, pf.rf.sw[l->b].name,
		       pf.rf.sw[l->b].ports[l->pb].name);
	}
	for (size_t s = 0; s < pf.rf.nsw; s++)
		for (size_t k = 0; k < pf.x[s].nroutes; k++)
			if (pf.x[s].routes[k].connected)
				printf("prefix %s %s %s\n", pf.rf.sw[s].name, pf.x[s].routes[k].prefix,
				       pf.x[s].routes[k].host ? "hosts" : "loopback");
	planfiles_free(&pf);
	return EXIT_OK;
}

int cmd_plan(struct ctl *c, int argc, char **argv)
{
	(void)c;
	if (argc >= 2 && strcmp(argv[1], "roce") == 0)
		return plan_roce(argc, argv);
	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return plan_check(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "fib") == 0)
		return plan_fib(argc, argv);
	if (argc == 3 && strcmp(argv[1], "wiring") == 0)
		return plan_wiring(argv[2]);
	fprintf(stderr, "usage: fabricctl plan roce FILE.yaml --out DIR [--failures N] [--loopbacks] [--routing bgp|static] "
			"[--summary-only] [--allow-unsafe]\n"
			"       fabricctl plan check DIR\n"
			"       fabricctl plan fib DIR FIBDIR [--down SWITCH:PORT]...\n"
			"       fabricctl plan wiring DIR\n");
	return EXIT_USAGE;
}
