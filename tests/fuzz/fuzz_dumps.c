/*
 * Fuzz target: fabricctl check's readers of any SM's tables (dump_lfts
 * output, as of now and from before a change; "LID SL" files; smpquery
 * sl2vl output) and the proofs it then runs on whatever they accepted:
 * connectivity walks, forwarding loops, the channel dependency graphs
 * with and without the switches' answers, over SL = VL and over the VLs
 * the maps give, and the transition between the two dumps. The fabric is
 * fixed (dumps_fabric.topo: ibnetdiscover of a 2-level radix-4 tree under
 * fabricd); an input is up to four parts split by "\n%%\n": the LFT dump,
 * the dump from before, the SLs, the SL-to-VL dump (an empty part: none).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/lftdump.h"
#include "cli/sl2vldump.h"
#include "cli/slfile.h"
#include "cli/walk.h"
#include "fuzz_file.h"
#include "routing/cdg.h"
#include "routing/cdg_vl.h"
#include "routing/loops.h"
#include "routing/transition.h"
#include "topology/netfile.h"

enum { AFTER, BEFORE, SLS, SL2VL, PARTS };

/* The next part of data at *at (up to the separator or the end); its length. */
static size_t part(const uint8_t *data, size_t size, size_t *at, const uint8_t **start)
{
	static const char sep[] = "\n%%\n";
	*start = data + *at;
	size_t left = size - *at, n = 0;
	while (n < left && !(left - n >= sizeof(sep) - 1 && memcmp(*start + n, sep, sizeof(sep) - 1) == 0))
		n++;
	*at += n + (n < left ? sizeof(sep) - 1 : 0);
	return n;
}

/* Every CA port's walk to every LID, as fabricctl check's connectivity proof. */
static void walk_all(const struct fabric *f, const struct routing_tables *t)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *src = f->nodes[i];
		for (unsigned sp = 1; src->type != NODE_SWITCH && sp <= src->nports; sp++)
			for (size_t j = 0; j < f->nnodes; j++) {
				const struct node *dst = f->nodes[j];
				for (unsigned dp = 0; dp <= dst->nports; dp++) {
					struct hop hops[WALK_MAX_HOPS];
					char why[160];
					if (dst->ports[dp].lid)
						walk_route(t, src, (uint8_t)sp, dst->ports[dp].lid, dst, (uint8_t)dp, hops,
							   why, sizeof(why));
				}
			}
	}
}

static void prove(const struct fabric *f, const struct routing_tables *t, const struct routing_tables *before,
		  const struct sl2vl_tables *vl)
{
	struct cdg_report r;
	struct loops_report loops;
	struct cdg_vl_missing miss;
	if (loops_find(f, t, &loops) < 0)
		abort();
	struct cdg_mix m = cdg_mix_of(t);
	if (cdg_check_mix(f, &m, &r) < 0)
		abort();
	m.no_answers = true;
	if (cdg_check_mix(f, &m, &r) < 0)
		abort();
	if (before && transition_check_step(f, before, t, before, t, &r) < 0)
		abort();
	for (int answers = 0; vl && answers <= 1; answers++) {
		struct cdg_vl_request q = { .t = t, .vl = vl, .answers = answers };
		if (cdg_vl_check(f, &q, &r, &miss) == -1)
			abort();
		q.before = before;
		if (before && cdg_vl_check(f, &q, &r, &miss) == -1)
			abort();
	}
	walk_all(f, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fabric f;
	static bool have_fabric;
	char err[NETFILE_ERR_LEN];
	if (!have_fabric) {
		if (netfile_read(FUZZ_TOPOLOGY, &f, err) < 0)
			abort();
		have_fabric = true;
	}
	const uint8_t *p[PARTS];
	size_t len[PARTS], at = 0;
	for (int k = 0; k < PARTS; k++)
		len[k] = part(data, size, &at, &p[k]);
	struct routing_tables t, before = { 0 };
	struct sl2vl_tables vl = { 0 };
	if (lftdump_read(fuzz_file(p[AFTER], len[AFTER], "after.lfts"), &f, &t, err, sizeof(err)) < 0)
		return 0;
	bool ok = !len[SLS] || slfile_read(fuzz_file(p[SLS], len[SLS], "sl"), &t, err, sizeof(err)) == 0;
	bool have_before = ok && len[BEFORE] &&
			   lftdump_read_earlier(fuzz_file(p[BEFORE], len[BEFORE], "before.lfts"), &f, &t, &before, err,
						sizeof(err)) == 0;
	if (have_before && len[SLS] && slfile_read(fuzz_file(p[SLS], len[SLS], "sl"), &before, err, sizeof(err)) < 0)
		ok = false;	/* the SLs hosts had before: the same file, as fabricctl check reads it */
	bool have_vl = ok && len[SL2VL] &&
		       sl2vldump_read(fuzz_file(p[SL2VL], len[SL2VL], "sl2vl"), &f, &vl, err, sizeof(err)) == 0;
	if (ok)
		prove(&f, &t, have_before ? &before : NULL, have_vl ? &vl : NULL);
	if (have_vl)
		sl2vl_free(&vl);
	if (have_before)
		routing_tables_free(&before);
	routing_tables_free(&t);
	return 0;
}
