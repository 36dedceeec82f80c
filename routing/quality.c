/*
 * DOC: route quality
 *
 * Each flow is walked from the source host's switch through the tables to
 * the destination host, adding one to every switch output port it uses
 * (including the last hop down to the host). Injection links always carry
 * exactly one flow in a permutation and are not counted. A permutation's
 * figure is its busiest link; the report keeps the worst and the mean.
 */
#include "routing/quality.h"

#include <stdlib.h>
#include <string.h>

#include "routing/hostorder.h"

struct qrun {
	const struct fabric *f;
	const struct routing_tables *t;
	struct host_ref *hosts;
	size_t n;
	size_t *base;		/* per node: offset of its ports in load[] */
	size_t nch;
	uint32_t *load;
	size_t *dst;		/* the permutation: host i sends to dst[i] */
	double sum_max, sum_mean;
	struct quality_report *r;
};

static int qrun_setup(struct qrun *q, const struct fabric *f, const struct routing_tables *t,
		      struct quality_report *r)
{
	memset(q, 0, sizeof(*q));
	memset(r, 0, sizeof(*r));
	q->f = f;
	q->t = t;
	q->r = r;
	if (host_order(f, &q->hosts, &q->n) < 0)
		return -1;
	r->hosts = q->n;
	q->dst = malloc((q->n + 1) * sizeof(*q->dst));
	q->base = malloc((f->nnodes + 1) * sizeof(*q->base));
	if (!q->dst || !q->base)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++) {
		q->base[i] = q->nch;
		q->nch += (size_t)f->nodes[i]->nports + 1;
	}
	return (q->load = calloc(q->nch + 1, sizeof(*q->load))) ? 0 : -1;
}

static void qrun_free(struct qrun *q)
{
	free(q->hosts);
	free(q->dst);
	free(q->base);
	free(q->load);
}

/* Walks one flow, adding to load[]; false if the tables drop or loop it. */
static bool walk(struct qrun *q, const struct host_ref *src, const struct host_ref *dst)
{
	const struct node *sw = src->leaf;
	for (unsigned hops = 0; hops <= FABRIC_MAX_HOPS; hops++) {
		uint8_t out = routing_next_hop(q->t, sw, dst->lid);
		if (!out)
			return false;
		q->load[q->base[sw->index] + out]++;
		const struct node *next = sw->ports[out].remote;
		if (next->type != NODE_SWITCH)
			return next->ports[sw->ports[out].remote_port].lid == dst->lid;
		sw = next;
	}
	return false;
}

static int cmp_hot(const void *a, const void *b)
{
	const struct quality_link *x = a, *y = b;
	return x->load < y->load ? 1 : x->load > y->load ? -1 : 0;
}

/* Keeps the busiest links of the current permutation as the report's hot list. */
static void take_hot(struct qrun *q)
{
	struct quality_report *r = q->r;
	r->nhot = 0;
	for (size_t i = 0; i < q->f->nnodes; i++) {
		const struct node *n = q->f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t load = q->load[q->base[i] + p];
			if (!load)
				continue;
			if (r->nhot < QUALITY_HOT) {
				r->hot[r->nhot++] = (struct quality_link){ n, (uint8_t)p, load };
				qsort(r->hot, r->nhot, sizeof(r->hot[0]), cmp_hot);
			} else if (load > r->hot[QUALITY_HOT - 1].load) {
				r->hot[QUALITY_HOT - 1] = (struct quality_link){ n, (uint8_t)p, load };
				qsort(r->hot, r->nhot, sizeof(r->hot[0]), cmp_hot);
			}
		}
	}
}

/* Runs the permutation in q->dst and folds it into the report. */
static void run_permutation(struct qrun *q, size_t id)
{
	struct quality_report *r = q->r;
	memset(q->load, 0, q->nch * sizeof(*q->load));
	for (size_t i = 0; i < q->n; i++) {
		if (q->dst[i] == i)
			continue;
		r->flows++;
		if (!walk(q, &q->hosts[i], &q->hosts[q->dst[i]]))
			r->broken++;
	}
	uint32_t max = 0;
	size_t used = 0;
	uint64_t total = 0;
	for (size_t c = 0; c < q->nch; c++) {
		if (q->load[c] > max)
			max = q->load[c];
		used += q->load[c] != 0;
		total += q->load[c];
	}
	if (!r->permutations || max > r->max_load) {
		r->max_load = max;
		r->worst = id;
		take_hot(q);
	}
	r->permutations++;
	q->sum_max += max;
	q->sum_mean += used ? (double)total / (double)used : 0;
	r->mean_max_load = q->sum_max / (double)r->permutations;
	r->mean_load = q->sum_mean / (double)r->permutations;
}

int quality_shifts(const struct fabric *f, const struct routing_tables *t, size_t max_shifts,
		   struct quality_report *r)
{
	struct qrun q;
	int rc = -1;
	if (qrun_setup(&q, f, t, r) < 0)
		goto done;
	size_t shifts = q.n > 1 ? q.n - 1 : 0;
	size_t count = max_shifts && max_shifts < shifts ? max_shifts : shifts;
	for (size_t s = 0; s < count; s++) {
		size_t k = 1 + s * shifts / count;
		for (size_t i = 0; i < q.n; i++)
			q.dst[i] = (i + k) % q.n;
		run_permutation(&q, k);
	}
	rc = 0;
done:
	qrun_free(&q);
	return rc;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int quality_random(const struct fabric *f, const struct routing_tables *t, size_t count, uint64_t seed,
		   struct quality_report *r)
{
	struct qrun q;
	int rc = -1;
	uint64_t state = seed ? seed : 1;
	if (qrun_setup(&q, f, t, r) < 0)
		goto done;
	for (size_t draw = 0; draw < count; draw++) {
		for (size_t i = 0; i < q.n; i++)
			q.dst[i] = i;
		for (size_t i = q.n; i > 1; i--) {	/* Fisher-Yates */
			size_t j = (size_t)(xorshift(&state) % i), tmp = q.dst[i - 1];
			q.dst[i - 1] = q.dst[j];
			q.dst[j] = tmp;
		}
		run_permutation(&q, draw + 1);
	}
	rc = 0;
done:
	qrun_free(&q);
	return rc;
}
