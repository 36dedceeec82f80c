/*
 * DOC: proving installed FIBs
 *
 * The FIB of each switch becomes ECMP tables over the plan's fabric, the
 * links that are down taken out: towards each plan prefix, the fabric
 * ports its route leaves by (a route over a link that is down is a bad
 * hop; a route out of any interface that is not a fabric port is named
 * as the problem). ecmp_check proves them like the plan itself: no loop,
 * no dead end on a path from a switch with hosts (beyond the pairs the
 * failures cut apart), no cyclic buffer dependency in the host prefixes'
 * lossless traffic. When every switch has an ASN, the FIB is compared,
 * switch by switch, with what ecmp_bgp predicts for the same links: the
 * twin is the judge of the simulation as much as of the plan.
 */
#include "routing/roce_fib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/roce_plan.h"
#include "routing/swindex.h"

struct prover {
	const struct roce_planfiles *pf;
	const struct fib_table *fib;
	const struct plan_prefixes *pp;
	struct roce_fib_report *r;
	char (*canon)[ROCE_ADDR_LEN + 8];	/* per prefix: as ip prints it */
};

static int cmp_port(const void *a, const void *b)
{
	return *(const uint8_t *)a - *(const uint8_t *)b;
}

/* Switch s's next-hop ports for prefix d into out (sorted, no repeats); their count, or -1 with the problem set. */
static int fib_ports(struct prover *v, size_t s, size_t d, uint8_t *out)
{
	const struct roce_switch *sw = &v->pf->rf.sw[s];
	const struct fib_route *rt = fibfile_find(&v->fib[s], v->canon[d]);
	size_t n = 0;
	if (!rt || s == v->pp->owner[d])
		return 0;
	for (size_t i = 0; i < rt->ndev; i++) {
		size_t p = roce_find_port(sw, rt->dev[i]);
		if (p == ROCE_NONE || sw->ports[p].host || sw->ports[p].peer_sw == ROCE_NONE) {
			snprintf(v->r->problem, sizeof(v->r->problem), "%s's FIB sends %s out of %s, which is not a fabric link",
				 sw->name, v->pp->name[d], rt->dev[i]);
			return -1;
		}
		out[n++] = (uint8_t)(p + 1);
	}
	qsort(out, n, 1, cmp_port);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	return (int)k;
}

/* The FIBs as tables over t->f (allocated by ecmp_alloc); -1 out of memory, -2 with the problem set. */
static int fib_tables(struct prover *v, struct ecmp_tables *t)
{
	const struct roce_fabric *rf = &v->pf->rf;
	uint8_t hops[256];
	for (size_t d = 0; d < v->pp->n; d++) {
		size_t total = 0;
		t->dst_node[d] = v->pp->owner[d];
		if (!(t->start[d] = calloc(rf->nsw + 1, sizeof(**t->start))))
			return -1;
		for (size_t s = 0; s < rf->nsw; s++)
			total += rf->sw[s].nports;
		if (!(t->port[d] = malloc(total + 1)))
			return -1;
		for (size_t s = 0, k = 0; s < rf->nsw; s++) {
			int n = fib_ports(v, s, d, hops);
			if (n < 0)
				return -2;
			t->start[d][s] = (uint32_t)k;
			memcpy(t->port[d] + k, hops, (size_t)n);
			k += (size_t)n;
			t->start[d][s + 1] = (uint32_t)k;
		}
	}
	t->dst_label = v->pp->name;
	return 0;
}

/* Pairs of a source switch and a prefix no live link path joins. */
static size_t cut_pairs(const struct swindex *x, const bool *source,
			const struct plan_prefixes *pp, size_t *queue, bool *seen)
{
	size_t cut = 0;
	for (size_t s = 0; s < x->nsw; s++) {
		if (!source[s])
			continue;
		size_t head = 0, tail = 0;
		memset(seen, 0, x->nsw * sizeof(*seen));
		seen[s] = true;
		queue[tail++] = s;
		while (head < tail) {
			size_t u = queue[head++];
			for (unsigned p = 1; p <= x->sw[u]->nports; p++) {
				size_t w = swindex_peer(x, x->sw[u], p);
				if (w != SW_NONE && !seen[w]) {
					seen[w] = true;
					queue[tail++] = w;
				}
			}
		}
		for (size_t d = 0; d < pp->n; d++)
			cut += !seen[pp->owner[d]];
	}
	return cut;
}

/* Switches whose next hops differ between a and b (destination d of a is table_of[d] of b), the first in words. */
static size_t differences(const struct roce_planfiles *pf, const struct ecmp_tables *a, const struct ecmp_tables *b,
			  const size_t *table_of, char *first, size_t len)
{
	size_t differ = 0;
	for (size_t s = 0; s < pf->rf.nsw; s++) {
		bool seen = false;
		for (size_t d = 0; d < a->ndst && !seen; d++) {
			const uint8_t *pa, *pb;
			unsigned ka = ecmp_hops(a, d, s, &pa), kb = ecmp_hops(b, table_of[d], s, &pb);
			if (ka == kb && memcmp(pa, pb, ka) == 0)
				continue;
			seen = true;
			if (first && !first[0]) {
				const struct roce_switch *sw = &pf->rf.sw[s];
				size_t off = (size_t)snprintf(first, len, "%s to %s: FIB", sw->name, a->dst_label[d]);
				for (unsigned i = 0; i < ka && off < len; i++)
					off += (size_t)snprintf(first + off, len - off, " %s", sw->ports[pa[i] - 1].name);
				off += off < len ? (size_t)snprintf(first + off, len - off, "%s, simulation", ka ? "" : " none") : 0;
				for (unsigned i = 0; i < kb && off < len; i++)
					off += (size_t)snprintf(first + off, len - off, " %s", sw->ports[pb[i] - 1].name);
				if (!kb && off < len)
					snprintf(first + off, len - off, " none");
			}
		}
		differ += seen;
	}
	return differ;
}

/* ecmp_bgp with the plan's ASNs over f; fills r's simulation fields. -1 out of memory. */
static int simulate(struct prover *v, const struct fabric *f, const struct swindex *x, const struct ecmp_tables *fibt)
{
	const struct roce_fabric *rf = &v->pf->rf;
	uint32_t *asn = calloc(rf->nsw + 1, sizeof(*asn));
	bool *want = calloc(rf->nsw + 1, sizeof(*want));
	size_t *table_of = calloc(v->pp->n + 1, sizeof(*table_of));
	struct ecmp_tables sim = { 0 };
	int rc = asn && want && table_of ? 0 : -1;
	v->r->simulated = rc == 0;
	for (size_t s = 0; s < rf->nsw && rc == 0; s++) {
		asn[s] = rf->sw[s].asn;
		v->r->simulated &= asn[s] != 0;
	}
	for (size_t d = 0; d < v->pp->n && rc == 0; d++)
		want[v->pp->owner[d]] = true;
	if (rc == 0 && v->r->simulated) {
		rc = ecmp_bgp(f, x, asn, want, &sim, &v->r->sim_unsettled);
		for (size_t d = 0; d < v->pp->n && rc == 0; d++)
			for (size_t k = 0; k < sim.ndst; k++)
				if (sim.dst_node[k] == v->pp->owner[d])
					table_of[d] = k;
		if (rc == 0)
			v->r->sim_differs = differences(v->pf, fibt, &sim, table_of, v->r->first_difference,
							sizeof(v->r->first_difference));
		if (rc == 0)
			ecmp_free(&sim);
	}
	free(asn);
	free(want);
	free(table_of);
	return rc;
}

/* The planned tables over the full fabric model, compared with the FIB's. */
static int compare_plan(struct prover *v, const struct ecmp_tables *fibt)
{
	struct fabric full;
	struct ecmp_tables plan = { 0 };
	size_t *same = calloc(v->pp->n + 1, sizeof(*same));
	char err[PLANFILE_ERR_LEN];
	int rc = -1;
	fabric_init(&full);
	if (same && roce_model(&v->pf->rf, &full) == 0 && ecmp_alloc(&plan, &full, v->pp->n) == 0) {
		rc = roce_plan_tables(v->pf, v->pp, &plan, err);
		if (rc < 0 && err[0]) {	/* the plan files themselves are wrong */
			snprintf(v->r->problem, sizeof(v->r->problem), "%s", err);
			rc = 0;
		}
		for (size_t d = 0; d < v->pp->n; d++)
			same[d] = d;
		if (rc == 0)
			v->r->plan_differs = differences(v->pf, fibt, &plan, same, NULL, 0);
	}
	ecmp_free(&plan);
	fabric_free(&full);
	free(same);
	return rc;
}

static int prove(struct prover *v, struct fabric *f, const bool *down)
{
	const struct roce_fabric *rf = &v->pf->rf;
	struct roce_fib_report *r = v->r;
	struct ecmp_tables t = { 0 };
	struct ecmp_report er;
	struct swindex x = { 0 };
	bool *source = NULL, *seen = NULL;
	size_t *queue = NULL;
	int rc = -1;
	if (roce_model(rf, f) < 0)
		return -1;
	for (size_t i = 0; i < rf->nlinks; i++)
		if (down[i])
			fabric_unlink(f->nodes[rf->links[i].a], (uint8_t)(rf->links[i].pa + 1));
	if (swindex_build(&x, f) < 0 || ecmp_alloc(&t, f, v->pp->n) < 0 || !(source = roce_plan_sources(v->pf, v->pp)) ||
	    !(seen = calloc(rf->nsw + 1, sizeof(*seen))) || !(queue = calloc(rf->nsw + 1, sizeof(*queue))))
		goto done;
	int filled = fib_tables(v, &t);
	if (filled == -1)
		goto done;
	rc = 0;
	if (filled == -2)
		goto done;
	r->cut_pairs = cut_pairs(&x, source, v->pp, queue, seen);
	if (ecmp_check(&t, source, v->pp->host, &er) < 0 || simulate(v, f, &x, &t) < 0 || compare_plan(v, &t) < 0) {
		rc = -1;
		goto done;
	}
	r->channels = er.cbd.channels;
	r->dependencies = er.cbd.dependencies;
	r->cbd = er.cbd.cycle_len > 0;
	if (r->problem[0])
		goto done;
	if (!roce_report_safe(&er, r->cut_pairs))
		roce_plan_problem(rf, &er, r->problem, sizeof(r->problem));
	else
		r->safe = true;
done:
	ecmp_free(&t);
	swindex_free(&x);
	free(source);
	free(seen);
	free(queue);
	return rc;
}

int roce_fib_prove(const struct roce_planfiles *pf, const struct fib_table *fib, const bool *down,
		   struct roce_fib_report *r)
{
	struct plan_prefixes pp;
	struct prover v = { .pf = pf, .fib = fib, .pp = &pp, .r = r };
	struct fabric f;
	memset(r, 0, sizeof(*r));
	fabric_init(&f);
	if (roce_plan_prefixes(pf, &pp, r->problem) < 0)
		return r->problem[0] ? 0 : -1;
	r->prefixes = pp.n;
	int rc = -1;
	if ((v.canon = calloc(pp.n + 1, sizeof(*v.canon)))) {
		for (size_t d = 0; d < pp.n; d++)
			if (!roce_canonical_prefix(pp.name[d], v.canon[d], sizeof(v.canon[d])))
				snprintf(v.canon[d], sizeof(v.canon[d]), "%s", pp.name[d]);
		rc = pp.n ? prove(&v, &f, down) : 0;
		if (!pp.n)
			snprintf(r->problem, sizeof(r->problem), "the plan announces no prefix: nothing is routed");
	}
	fabric_free(&f);
	free(v.canon);
	roce_plan_prefixes_free(&pp);
	return rc;
}
