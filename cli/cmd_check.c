/*
 * DOC: fabricctl check
 *
 * Three proofs on a set of tables: connectivity (every CA port reaches
 * every LID in the fabric, walking the LFTs), no forwarding loop in any
 * switch's entry for any LID, and deadlock freedom (the channel
 * dependency graph of the CAs' routes has no cycle on any VL). The tables
 * are the stored ones, or any SM's: a dump_lfts file with the topology
 * from an ibnetdiscover file, and optionally each LID's SL (a file of
 * "LID SL" lines, as the SA's PathRecords give them; without it, all on
 * VL 0). With --before and --after (two dumps of one fabric) it judges
 * the transition between them: every mixture of the two tables, with
 * both SLs (--before-sl: the SLs hosts had before, if they changed), must
 * be acyclic. --ca-to-ca limits the deadlock proof to routes between CAs,
 * the scope ibdmchk checks without -a. With --sl2vl (smpquery sl2vl
 * output of the switches) the deadlock proofs follow each hop's VL as
 * the switches map it, over (channel, VL) pairs, instead of assuming
 * SL = VL, for a transition too. Exit 0 when all hold, 1 with the failures
 * (at most 10 unreachable pairs are named) or the cycle otherwise. One
 * more verdict is printed and not counted: whether hosts that talk to
 * switches on SL 0 whatever the SA says (perfquery does) close a cycle,
 * with the switches' answers on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"
#include "cli/walk.h"
#include "cli/lftdump.h"
#include "cli/sl2vldump.h"
#include "cli/slfile.h"
#include "routing/cdg.h"
#include "routing/cdg_vl.h"
#include "routing/loops.h"
#include "routing/transition.h"
#include "topology/netfile.h"

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

struct check_args {
	const char *lfts, *topology, *sl, *before, *after, *before_sl, *sl2vl;
	bool ca_to_ca;		/* deadlock proof for routes to CA LIDs only, as ibdmchk checks by default */
};

static int parse_args(int argc, char **argv, struct check_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i += 2) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(opt, "--ca-to-ca") == 0) {
			a->ca_to_ca = true;
			i--;
			continue;
		}
		const char **slot = strcmp(opt, "--lfts") == 0 ? &a->lfts : strcmp(opt, "--topology") == 0 ? &a->topology
				    : strcmp(opt, "--sl") == 0 ? &a->sl : strcmp(opt, "--before") == 0 ? &a->before
				    : strcmp(opt, "--after") == 0 ? &a->after
				    : strcmp(opt, "--before-sl") == 0 ? &a->before_sl
				    : strcmp(opt, "--sl2vl") == 0 ? &a->sl2vl : NULL;
		if (!slot) {
			fprintf(stderr, "fabricctl check: unknown option '%s'\n", opt);
			return -1;
		}
		if (!val) {
			fprintf(stderr, "fabricctl check: %s needs a file\n", opt);
			return -1;
		}
		*slot = val;
	}
	bool files = a->lfts || a->before || a->after;
	if (files != !!a->topology || (a->lfts && (a->before || a->after)) || !a->before != !a->after ||
	    (a->sl && !files) || (a->before_sl && !a->before)) {
		fprintf(stderr, "fabricctl check: use [--lfts F --topology F [--sl F]] [--sl2vl F], or --before F "
			"--after F --topology F [--sl F] [--before-sl F] [--sl2vl F]\n");
		return -1;
	}
	return 0;
}

/* Reads "LID SL" lines into t->sl (and t->layers); -1 with the error printed. */
static int read_sls(const char *path, struct routing_tables *t)
{
	char err[256];
	if (slfile_read(path, t, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "fabricctl: %s\n", err);
	return -1;
}

/* The tables to judge: stored, or from files (the --after ones for a transition; *before too). */
static int load(struct ctl *c, const struct check_args *a, struct fabric *f, struct routing_tables *t,
		struct routing_tables *before)
{
	char err[NETFILE_ERR_LEN];
	int rc = ctl_load_tables(c, a->topology, a->lfts ? a->lfts : a->after, f, t);
	if (rc != EXIT_OK || !a->topology)
		return rc;
	if (a->sl && read_sls(a->sl, t) < 0)
		rc = EXIT_USAGE;
	if (rc == EXIT_OK && a->before) {
		if (lftdump_read_earlier(a->before, f, t, before, err, sizeof(err)) < 0) {
			fprintf(stderr, "fabricctl: %s\n", err);
			rc = EXIT_USAGE;
		} else if ((a->before_sl || a->sl) && read_sls(a->before_sl ? a->before_sl : a->sl, before) < 0) {
			rc = EXIT_USAGE;
		}
		if (rc != EXIT_OK)
			routing_tables_free(before);
	}
	if (rc != EXIT_OK) {
		routing_tables_free(t);
		fabric_free(f);
	}
	return rc;
}

/*
 * The deadlock proofs: the CAs' traffic into *cdg and, unless it has a
 * cycle or only CA-to-CA routes are asked for, with the answers of every
 * LID into *answers. Over VLs as vl maps them if given, else SL = VL.
 * 0; -1 out of memory; -2 a route crosses a port pair vl has no table
 * for (printed).
 */
static void no_table(const struct check_args *a, const struct cdg_vl_missing *miss)
{
	fprintf(stderr, "fabricctl: %s has no SL-to-VL table for %s in %u out %u, which routes cross\n", a->sl2vl,
		miss->node->desc, miss->in, miss->out);
}

static int prove(const struct check_args *a, const struct fabric *f, const struct routing_tables *t,
		 const struct sl2vl_tables *vl, struct cdg_report *cdg, struct cdg_report *answers)
{
	int rc;
	memset(answers, 0, sizeof(*answers));
	if (vl) {
		struct cdg_vl_request q = { .t = t, .vl = vl, .to_cas_only = a->ca_to_ca };
		struct cdg_vl_missing miss;
		rc = cdg_vl_check(f, &q, cdg, &miss);
		if (rc == 0 && !a->ca_to_ca && !cdg->cycle_len) {
			q.answers = true;
			rc = cdg_vl_check(f, &q, answers, &miss);
		}
		if (rc == -2)
			no_table(a, &miss);
		return rc;
	}
	struct cdg_mix steady = cdg_mix_of(t);
	steady.to_cas_only = a->ca_to_ca;
	steady.no_answers = true;
	struct cdg_mix with_answers = cdg_mix_of(t);	/* and what LIDs answer on their own SL */
	rc = cdg_check_mix(f, &steady, cdg);
	if (rc == 0 && !a->ca_to_ca && !cdg->cycle_len)
		rc = cdg_check_mix(f, &with_answers, answers);
	return rc;
}

/*
 * What hosts that talk to switches on SL 0 whatever the SA says (perfquery
 * and every infiniband-diags GMP tool) add, with the switches' answers on
 * it: t's entries, each switch LID on its own SL and on SL 0. 0 with the
 * verdict in *r and in *moved how many switch LIDs are on another SL (none:
 * nothing to add, no proof run); -1 out of memory; -2 a table vl lacks
 * (printed).
 */
static int prove_sl0(const struct check_args *a, const struct fabric *f, const struct routing_tables *t,
		     const struct sl2vl_tables *vl, struct cdg_report *r, size_t *moved)
{
	struct routing_tables on0 = *t;	/* t's entries; only the SLs are its own */
	memset(r, 0, sizeof(*r));
	*moved = 0;
	if (!(on0.sl = malloc((size_t)t->max_lid + 1)))
		return -1;
	memcpy(on0.sl, t->sl, (size_t)t->max_lid + 1);
	for (size_t i = 0; i < f->nnodes; i++) {
		uint16_t lid = f->nodes[i]->type == NODE_SWITCH ? f->nodes[i]->ports[0].lid : 0;
		if (lid && lid <= t->max_lid && on0.sl[lid]) {
			on0.sl[lid] = 0;
			++*moved;
		}
	}
	int rc = 0;
	if (*moved && vl) {
		struct cdg_vl_request q = { .t = t, .before = &on0, .vl = vl, .answers = true };
		struct cdg_vl_missing miss;
		if ((rc = cdg_vl_check(f, &q, r, &miss)) == -2)
			no_table(a, &miss);
	} else if (*moved) {
		struct cdg_mix both = { .lft = { t }, .nlft = 1, .sl = { t, &on0 }, .nsl = 2 };
		rc = cdg_check_mix(f, &both, r);
	}
	free(on0.sl);
	return rc;
}

/*
 * The transition before -> t: its mixture's dependencies (the CAs'
 * traffic), over SL = VL or, with vl, over the VLs the switches map. 0,
 * -1 out of memory, -2 a table vl lacks (printed).
 */
static int prove_transition(const struct check_args *a, const struct fabric *f, const struct routing_tables *before,
			    const struct routing_tables *t, const struct sl2vl_tables *vl, struct cdg_report *r)
{
	if (!vl)
		return transition_check_step(f, before, t, before, t, r);
	struct cdg_vl_request q = { .t = t, .before = before, .vl = vl, .to_cas_only = a->ca_to_ca };
	struct cdg_vl_missing miss;
	int rc = cdg_vl_check(f, &q, r, &miss);
	if (rc == -2)
		fprintf(stderr, "fabricctl: %s has no SL-to-VL table for %s in %u out %u, which routes cross\n",
			a->sl2vl, miss.node->desc, miss.in, miss.out);
	return rc;
}

static void print_transition(const struct check_args *a, const struct cdg_report *r, bool json)
{
	char cycle[1024] = "";
	cdg_cycle_text(r, cycle, sizeof(cycle));
	if (json) {
		printf("{\"transition\": {\"channels\": %zu, \"dependencies\": %zu, \"credit_loop\": ", r->channels,
		       r->dependencies);
		if (r->cycle_len)
			json_string(stdout, cycle);
		else
			printf("null");
		printf("}}\n");
	} else if (r->cycle_len && a->sl2vl) {
		printf("transition:   CYCLE over the VLs the switches map, in a mixture of %s and %s:\n  %s\n",
		       a->before, a->after, cycle);
	} else if (r->cycle_len) {
		printf("transition:   CYCLE on VL%u in a mixture of %s and %s:\n  %s\n", r->vl, a->before, a->after,
		       cycle);
	} else {
		printf("transition:   ok, every mixture of %s and %s (both SLs) is acyclic%s (%zu channels, %zu "
		       "dependencies)\n", a->before, a->after, a->sl2vl ? " over the VLs the switches map" : "",
		       r->channels, r->dependencies);
	}
}

int cmd_check(struct ctl *c, int argc, char **argv)
{
	struct check_args a;
	struct fabric f;
	struct routing_tables t, before = { 0 };
	if (parse_args(argc, argv, &a) < 0)
		return EXIT_USAGE;
	int rc = load(c, &a, &f, &t, &before);
	if (rc != EXIT_OK)
		return rc;
	struct sl2vl_tables vl = { 0 };
	char err[512];
	if (a.sl2vl && sl2vldump_read(a.sl2vl, &f, &vl, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		routing_tables_free(&before);
		routing_tables_free(&t);
		fabric_free(&f);
		return EXIT_USAGE;
	}
	if (a.before) {
		struct cdg_report step = { 0 };
		int proof = prove_transition(&a, &f, &before, &t, a.sl2vl ? &vl : NULL, &step);
		if (proof == -1)
			fprintf(stderr, "fabricctl: out of memory\n");
		else if (proof == 0)
			print_transition(&a, &step, c->json);
		if (a.sl2vl)
			sl2vl_free(&vl);
		routing_tables_free(&before);
		routing_tables_free(&t);
		fabric_free(&f);
		return proof == -1 ? EXIT_DB : proof == -2 ? EXIT_USAGE : step.cycle_len ? EXIT_NOT_FOUND : EXIT_OK;
	}
	size_t nports = 0;
	for (size_t i = 0; i < f.nnodes; i++)
		nports += (size_t)f.nodes[i]->nports + 1;
	struct target *tg = malloc(nports * sizeof(*tg));
	struct cdg_report cdg, answers, sl0 = { 0 };
	struct loops_report loops;
	size_t sl0_moved = 0;
	if (!tg || loops_find(&f, &t, &loops) < 0) {
		rc = EXIT_DB;
	} else {
		int proof = prove(&a, &f, &t, a.sl2vl ? &vl : NULL, &cdg, &answers);
		if (proof == 0 && !a.ca_to_ca && !cdg.cycle_len)
			proof = prove_sl0(&a, &f, &t, a.sl2vl ? &vl : NULL, &sl0, &sl0_moved);
		rc = proof == -2 ? EXIT_USAGE : proof < 0 ? EXIT_DB : EXIT_OK;
	}
	if (a.sl2vl)
		sl2vl_free(&vl);
	if (rc != EXIT_OK) {
		if (rc == EXIT_DB)
			fprintf(stderr, "fabricctl: out of memory\n");
		free(tg);
		routing_tables_free(&t);
		fabric_free(&f);
		return rc;
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
	char loop[1024] = "", looping[512] = "", answer_loop[1024] = "", sl0_loop[1024] = "";
	const char *scope = a.ca_to_ca ? ", routes between CAs" : "";
	cdg_cycle_text(&cdg, loop, sizeof(loop));
	cdg_cycle_text(&answers, answer_loop, sizeof(answer_loop));
	cdg_cycle_text(&sl0, sl0_loop, sizeof(sl0_loop));
	loops_text(&loops, looping, sizeof(looping));
	if (c->json) {
		printf("{\"sources\": %zu, \"destinations\": %zu, \"routes\": %zu, \"unreachable\": %zu, "
		       "\"looping_entries\": %zu, \"looping_lids\": %zu, \"first_loop\": ", sources, nt, routes, failed,
		       loops.entries, loops.lids);
		if (loops.entries)
			json_string(stdout, looping);
		else
			printf("null");
		printf(", \"vls\": %u, \"per_vl\": %s, \"channels\": %zu, \"dependencies\": %zu, \"credit_loop\": ",
		       t.layers, cdg.per_vl ? "true" : "false", cdg.channels, cdg.dependencies);
		if (cdg.cycle_len)
			json_string(stdout, loop);
		else
			printf("null");
		printf(", \"answers_credit_loop\": ");
		if (answers.cycle_len)
			json_string(stdout, answer_loop);
		else
			printf("null");
		printf(", \"switch_lids_off_sl0\": %zu, \"sl0_tools_credit_loop\": ", sl0_moved);
		if (sl0.cycle_len)
			json_string(stdout, sl0_loop);
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
		if (loops.entries)
			printf("loops:        FAILED, %zu switch entries for %zu LIDs loop, %s\n", loops.entries,
			       loops.lids, looping);
		else
			printf("loops:        ok, no switch entry loops for any LID\n");
		if (cdg.cycle_len && a.sl2vl)
			printf("deadlock:     CREDIT LOOP over the VLs the switches map%s (%zu channel-VLs, %zu "
			       "dependencies):\n  %s\n", scope, cdg.channels, cdg.dependencies, loop);
		else if (cdg.cycle_len)
			printf("deadlock:     CREDIT LOOP on VL%u%s (%zu channels, %zu dependencies):\n  %s\n",
			       cdg.vl, scope, cdg.channels, cdg.dependencies, loop);
		else if (a.sl2vl)
			printf("deadlock:     ok, no cycle over (channel, VL) pairs as the switches' SL-to-VL tables map "
			       "them%s (%zu channel-VLs, %zu dependencies)\n", scope, cdg.channels, cdg.dependencies);
		else
			printf("deadlock:     ok, no cycle in the channel dependency graph of any of %u VL%s%s "
			       "(%zu channels, %zu dependencies)\n", t.layers, t.layers > 1 ? "s" : "", scope,
			       cdg.channels, cdg.dependencies);
		const char *how = a.sl2vl ? "VLs as the switches map them" : "VL 0 from port 0";
		if (answers.cycle_len)
			printf("answers:      CREDIT LOOP once switches answer hosts on their LIDs' SLs (%s):\n  %s\n",
			       how, answer_loop);
		else if (!a.ca_to_ca && !cdg.cycle_len)
			printf("answers:      ok, switches answering hosts (each on its LID's SL, %s) close no cycle "
			       "(%zu dependencies in all)\n", how, answers.dependencies);
		/* not in the exit status: the SA gives those LIDs other SLs; a tool that asks for none goes outside */
		if (sl0.cycle_len)
			printf("SL 0 tools:   CREDIT LOOP once hosts talk to the %zu switch LIDs on other SLs on SL 0, as "
			       "perfquery does, and they answer on it (%s; not counted in the exit status):\n  %s\n",
			       sl0_moved, how, sl0_loop);
		else if (sl0_moved)
			printf("SL 0 tools:   ok, hosts talking to the %zu switch LIDs on other SLs on SL 0 as perfquery "
			       "does, and their answers on it, close no cycle (%s)\n", sl0_moved, how);
		else if (!a.ca_to_ca && !cdg.cycle_len)
			printf("SL 0 tools:   ok, every switch LID is on SL 0: tools that send on it use the proven "
			       "routes\n");
	}
	free(tg);
	routing_tables_free(&t);
	fabric_free(&f);
	return failed || cdg.cycle_len || answers.cycle_len || loops.entries ? EXIT_NOT_FOUND : EXIT_OK;
}
