/*
 * DOC: ECMP tables and their proofs
 *
 * Tables hold, per destination, every node's next-hop ports in one array
 * (CSR by node index), so a destination's whole forwarding graph is two
 * arrays. Every check walks that graph per destination:
 *
 * - loops: Kahn's algorithm on the graph "node -> each next hop's switch";
 *   what cannot be ordered is on or behind a loop, and following next hops
 *   inside that rest closes the loop that gets named;
 * - dead ends: in reverse topological order a node is bad if it has no
 *   next hop (and is not the destination) or one of its next hops is bad;
 *   a source is cut off if it is bad;
 * - buffer dependencies: from the sources forward, every switch the
 *   traffic reaches makes each incoming channel wait on each outgoing one
 *   (PFC pauses hop by hop), into a depgraph whose cycle is a CBD.
 */
#include "routing/ecmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/updown.h"

void ecmp_free(struct ecmp_tables *t)
{
	for (size_t d = 0; d < t->ndst && t->start; d++) {
		free(t->start[d]);
		free(t->port[d]);
	}
	free(t->start);
	free(t->port);
	free(t->dst_node);
	memset(t, 0, sizeof(*t));
}

int ecmp_alloc(struct ecmp_tables *t, const struct fabric *f, size_t ndst)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->ndst = ndst;
	t->dst_node = calloc(ndst + 1, sizeof(*t->dst_node));
	t->start = calloc(ndst + 1, sizeof(*t->start));
	t->port = calloc(ndst + 1, sizeof(*t->port));
	if (!t->dst_node || !t->start || !t->port) {
		ecmp_free(t);
		return -1;
	}
	return 0;
}

/* Room for destination d's hops: start filled by the caller, port[] sized from it. */
static int alloc_destination(struct ecmp_tables *t, size_t d, size_t nhops)
{
	t->start[d] = calloc(t->f->nnodes + 1, sizeof(**t->start));
	t->port[d] = malloc(nhops + 1);
	return t->start[d] && t->port[d] ? 0 : -1;
}

struct collect {
	struct ecmp_tables *t;
	const struct swindex *x;
	size_t *table_of;	/* per switch: its destination index in t */
};

static int collect_updown(void *arg, size_t sd, const struct updown_next *next)
{
	struct collect *c = arg;
	struct ecmp_tables *t = c->t;
	size_t d = c->table_of[sd];
	size_t total = 0;
	for (size_t s = 0; s < c->x->nsw; s++)
		total += next->ncand[s];
	if (alloc_destination(t, d, total) < 0)
		return -1;
	size_t k = 0;
	for (size_t s = 0; s < c->x->nsw; s++) {
		size_t n = c->x->sw[s]->index;
		t->start[d][n] = (uint32_t)k;
		memcpy(t->port[d] + k, next->cand + next->base[s], next->ncand[s]);
		k += next->ncand[s];
		t->escapes += next->ncand[s] && next->dist[s] == UINT16_MAX;
	}
	/* nodes are switches in f->nodes order: the last start closes the array */
	t->start[d][t->f->nnodes] = (uint32_t)k;
	return 0;
}

/* Fills the starts of nodes that are not switches (there are none in an Ethernet fabric) */
static void close_starts(struct ecmp_tables *t, size_t d)
{
	for (size_t n = t->f->nnodes; n-- > 0;)
		if (t->f->nodes[n]->type != NODE_SWITCH)
			t->start[d][n] = t->start[d][n + 1];
}

/* Numbers the wanted switches as destinations; SIZE_MAX for the others. */
static size_t *number_destinations(const struct swindex *x, const bool *want, size_t *n)
{
	size_t *table_of = malloc((x->nsw + 1) * sizeof(*table_of));
	*n = 0;
	for (size_t s = 0; s < x->nsw && table_of; s++)
		table_of[s] = !want || want[s] ? (*n)++ : SIZE_MAX;
	return table_of;
}

/* Tables for the wanted switches of x, their dst_node filled. */
static int alloc_for(struct ecmp_tables *t, const struct fabric *f, const struct swindex *x, const bool *want,
		     size_t **table_of)
{
	size_t n;
	if (!(*table_of = number_destinations(x, want, &n)) || ecmp_alloc(t, f, n) < 0) {
		free(*table_of);
		return -1;
	}
	for (size_t s = 0; s < x->nsw; s++)
		if ((*table_of)[s] != SIZE_MAX)
			t->dst_node[(*table_of)[s]] = x->sw[s]->index;
	return 0;
}

int ecmp_updown(const struct fabric *f, const struct swindex *x, const struct rank *r, const bool *want,
		struct ecmp_tables *out)
{
	struct updown_plan plan = { .x = x, .r = r };
	struct collect c = { out, x, NULL };
	if (alloc_for(out, f, x, want, &c.table_of) < 0)
		return -1;
	int rc = updown_each_destination(f, &plan, want, collect_updown, &c) != 0 ? -1 : 0;
	for (size_t d = 0; d < out->ndst && rc == 0; d++) {
		/* switches the ranking did not reach (a cut-off part) are routed nowhere */
		if (!out->start[d] && alloc_destination(out, d, 0) < 0)
			rc = -1;
		else
			close_starts(out, d);
	}
	free(c.table_of);
	if (rc < 0)
		ecmp_free(out);
	return rc;
}

int ecmp_shortest(const struct fabric *f, const struct swindex *x, const bool *want, struct ecmp_tables *out)
{
	size_t nsw = x->nsw, *queue = malloc((nsw + 1) * sizeof(*queue)), *table_of = NULL;
	uint32_t *dist = malloc((nsw + 1) * sizeof(*dist));
	size_t ports = 0;
	for (size_t s = 0; s < nsw; s++)
		ports += x->sw[s]->nports;
	int rc = queue && dist ? alloc_for(out, f, x, want, &table_of) : -1;
	for (size_t sd = 0; sd < nsw && rc == 0; sd++) {
		size_t head = 0, tail = 0, k = 0, d = table_of[sd];
		if (d == SIZE_MAX)
			continue;
		for (size_t s = 0; s < nsw; s++)
			dist[s] = UINT32_MAX;
		dist[sd] = 0;
		queue[tail++] = sd;
		while (head < tail) {
			size_t v = queue[head++];
			for (unsigned p = 1; p <= x->sw[v]->nports; p++) {
				size_t w = swindex_peer(x, x->sw[v], p);
				if (w != SW_NONE && dist[w] == UINT32_MAX) {
					dist[w] = dist[v] + 1;
					queue[tail++] = w;
				}
			}
		}
		if (alloc_destination(out, d, ports) < 0) {
			rc = -1;
			break;
		}
		for (size_t s = 0; s < nsw; s++) {
			const struct node *n = x->sw[s];
			out->start[d][n->index] = (uint32_t)k;
			for (unsigned p = 1; p <= n->nports && s != sd && dist[s] != UINT32_MAX; p++) {
				size_t w = swindex_peer(x, n, p);
				if (w != SW_NONE && dist[w] + 1 == dist[s])
					out->port[d][k++] = (uint8_t)p;
			}
		}
		out->start[d][f->nnodes] = (uint32_t)k;
		close_starts(out, d);
	}
	if (rc < 0 && table_of)
		ecmp_free(out);
	free(queue);
	free(dist);
	free(table_of);
	return rc;
}

/* eBGP's AS paths are at most this long here; a longer one is not kept (a Clos never needs it). */
#define BGP_MAX_PATH 32

struct bgp_route {
	uint8_t len;		/* ASNs in the path; 0xff: no route */
	uint32_t path[BGP_MAX_PATH];	/* as the switch advertises it, its own ASN first */
};

static bool path_has(const struct bgp_route *r, uint32_t asn)
{
	for (unsigned i = 0; i < r->len; i++)
		if (r->path[i] == asn)
			return true;
	return false;
}

/*
 * One destination's path-vector fixed point: rounds in which every switch
 * takes, from its neighbours' advertisements, the shortest AS path without
 * its own ASN (the loop check). Returns the rounds taken, or 0 if it did not
 * settle within nsw + 2.
 */
static size_t bgp_converge(const struct swindex *x, const uint32_t *asn, size_t sd, struct bgp_route *rt,
			   struct bgp_route *next)
{
	size_t nsw = x->nsw;
	for (size_t s = 0; s < nsw; s++)
		rt[s].len = 0xff;
	rt[sd].len = 1;
	rt[sd].path[0] = asn[sd];
	for (size_t round = 1; round <= nsw + 2; round++) {
		bool changed = false;
		for (size_t v = 0; v < nsw; v++) {
			struct bgp_route best = { .len = 0xff };
			for (unsigned p = 1; v != sd && p <= x->sw[v]->nports; p++) {
				size_t w = swindex_peer(x, x->sw[v], p);
				const struct bgp_route *r = w != SW_NONE ? &rt[w] : NULL;
				/* among equal lengths the first session's path is advertised */
				if (!r || r->len == 0xff || r->len + 1 > BGP_MAX_PATH || path_has(r, asn[v]) ||
				    r->len + 1 >= best.len)
					continue;
				best.len = (uint8_t)(r->len + 1);
				best.path[0] = asn[v];
				memcpy(best.path + 1, r->path, r->len * sizeof(*r->path));
			}
			if (v == sd)
				best = rt[sd];
			next[v] = best;
			changed |= best.len != rt[v].len ||
				   (best.len != 0xff && memcmp(best.path, rt[v].path, best.len * sizeof(*best.path)));
		}
		memcpy(rt, next, nsw * sizeof(*rt));
		if (!changed)
			return round;
	}
	return 0;
}

int ecmp_bgp(const struct fabric *f, const struct swindex *x, const uint32_t *asn, const bool *want,
	     struct ecmp_tables *out, size_t *unsettled)
{
	size_t nsw = x->nsw, ports = 0, *table_of = NULL;
	struct bgp_route *rt = malloc((nsw + 1) * sizeof(*rt)), *next = malloc((nsw + 1) * sizeof(*next));
	for (size_t s = 0; s < nsw; s++)
		ports += x->sw[s]->nports;
	*unsettled = 0;
	int rc = rt && next ? alloc_for(out, f, x, want, &table_of) : -1;
	for (size_t sd = 0; sd < nsw && rc == 0; sd++) {
		size_t d = table_of[sd], k = 0;
		if (d == SIZE_MAX)
			continue;
		*unsettled += bgp_converge(x, asn, sd, rt, next) == 0;
		if (alloc_destination(out, d, ports) < 0) {
			rc = -1;
			break;
		}
		/* multipath-relax: every session offering an accepted path of the best length is a next hop */
		for (size_t s = 0; s < nsw; s++) {
			const struct node *n = x->sw[s];
			out->start[d][n->index] = (uint32_t)k;
			for (unsigned p = 1; p <= n->nports && s != sd && rt[s].len != 0xff; p++) {
				size_t w = swindex_peer(x, n, p);
				if (w != SW_NONE && rt[w].len != 0xff && rt[w].len + 1 == rt[s].len && !path_has(&rt[w], asn[s]))
					out->port[d][k++] = (uint8_t)p;
			}
		}
		out->start[d][f->nnodes] = (uint32_t)k;
		close_starts(out, d);
	}
	if (rc < 0 && table_of)
		ecmp_free(out);
	free(rt);
	free(next);
	free(table_of);
	return rc;
}

struct walk {
	const struct ecmp_tables *t;
	size_t *order;		/* topological order of the current destination */
	uint32_t *indeg;
	bool *bad, *seen;
	size_t *queue;
	uint64_t *in_ports;	/* per node, DEPGRAPH_WORDS words from in_base: in-ports traffic entered by */
	size_t *in_base;
	struct ecmp_report *r;
	struct depgraph g;
};

static const char *dst_name(const struct ecmp_tables *t, size_t d)
{
	return t->dst_label ? t->dst_label[d] : t->f->nodes[t->dst_node[d]]->desc;
}

static void problem(struct walk *w, const char *fmt, const char *a, const char *b)
{
	if (!w->r->first_problem[0])
		snprintf(w->r->first_problem, sizeof(w->r->first_problem), fmt, a, b);
}

/*
 * Names a loop among the nodes the order left out (seen == false): those
 * are on a loop or downstream of one, so a depth-first search through
 * them meets a node still on its stack. Reuses order (next-hop positions),
 * queue (the stack) and indeg (colours: 0 new, 1 on the stack, 2 done).
 */
static void name_loop(struct walk *w, size_t d)
{
	const struct ecmp_tables *t = w->t;
	const struct fabric *f = t->f;
	uint32_t *colour = w->indeg;
	size_t *stack = w->queue, *next = w->order, depth = 0, from = SIZE_MAX;
	for (size_t n = 0; n < f->nnodes; n++)
		colour[n] = 0;
	for (size_t root = 0; root < f->nnodes && from == SIZE_MAX; root++) {
		if (w->seen[root] || colour[root])
			continue;
		stack[0] = root;
		next[0] = 0;
		colour[root] = 1;
		depth = 1;
		while (depth && from == SIZE_MAX) {
			size_t v = stack[depth - 1];
			const uint8_t *p;
			unsigned k = ecmp_hops(t, d, v, &p);
			if (next[depth - 1] == k) {
				colour[v] = 2;
				depth--;
				continue;
			}
			const struct node *m = routing_next_switch(f->nodes[v], p[next[depth - 1]++]);
			if (!m || w->seen[m->index] || colour[m->index] == 2)
				continue;
			if (colour[m->index] == 1) {	/* back to the stack: the loop runs from m to v */
				for (from = depth - 1; stack[from] != m->index; from--)
					;
				break;
			}
			colour[m->index] = 1;
			stack[depth] = m->index;
			next[depth++] = 0;
		}
	}
	char text[ECMP_TEXT_LEN / 2];
	size_t off = 0;
	for (size_t i = from; i <= depth && from != SIZE_MAX; i++) {
		const char *name = f->nodes[stack[i < depth ? i : from]]->desc;
		int len = snprintf(text + off, sizeof(text) - off, "%s%s", i > from ? " -> " : "", name);
		off = len < 0 || off + (size_t)len >= sizeof(text) ? sizeof(text) - 1 : off + (size_t)len;
	}
	if (from == SIZE_MAX)
		snprintf(text, sizeof(text), "?");
	problem(w, "forwarding loop towards %s: %s", dst_name(t, d), text);
}

/* Topological order of destination d's next-hop graph into w->order; returns how many got ordered. */
static size_t order_destination(struct walk *w, size_t d)
{
	const struct ecmp_tables *t = w->t;
	const struct fabric *f = t->f;
	size_t head = 0, tail = 0;
	for (size_t n = 0; n < f->nnodes; n++) {
		w->indeg[n] = 0;
		w->seen[n] = false;
	}
	for (size_t n = 0; n < f->nnodes; n++) {
		const uint8_t *p;
		unsigned k = ecmp_hops(t, d, n, &p);
		for (unsigned i = 0; i < k; i++) {
			const struct node *m = routing_next_switch(f->nodes[n], p[i]);
			if (m)
				w->indeg[m->index]++;
			else {
				w->r->bad_hops++;
				char port[8];
				snprintf(port, sizeof(port), "%u", p[i]);
				problem(w, "%s: next hop port %s leads to no switch", f->nodes[n]->desc, port);
			}
		}
	}
	for (size_t n = 0; n < f->nnodes; n++)
		if (!w->indeg[n]) {
			w->order[tail++] = n;
			w->seen[n] = true;
		}
	while (head < tail) {
		size_t n = w->order[head++];
		const uint8_t *p;
		unsigned k = ecmp_hops(t, d, n, &p);
		for (unsigned i = 0; i < k; i++) {
			const struct node *m = routing_next_switch(f->nodes[n], p[i]);
			if (m && !--w->indeg[m->index]) {
				w->order[tail++] = m->index;
				w->seen[m->index] = true;
			}
		}
	}
	return tail;
}

static void find_dead_ends(struct walk *w, size_t d, const bool *source)
{
	const struct ecmp_tables *t = w->t;
	const struct fabric *f = t->f;
	for (size_t i = f->nnodes; i-- > 0;) {
		size_t n = w->order[i];
		const uint8_t *p;
		unsigned k = ecmp_hops(t, d, n, &p);
		bool bad = n != t->dst_node[d] && k == 0;
		for (unsigned j = 0; j < k && !bad; j++) {
			const struct node *m = routing_next_switch(f->nodes[n], p[j]);
			bad = !m || w->bad[m->index];
		}
		w->bad[n] = bad;
	}
	for (size_t n = 0; n < f->nnodes; n++)
		if (source[n] && n != t->dst_node[d] && w->bad[n]) {
			w->r->unreachable++;
			problem(w, "%s cannot reach %s: its paths dead-end", f->nodes[n]->desc, dst_name(t, d));
		}
}

/*
 * The buffer dependencies of the sources' traffic to d: walking forward
 * from the sources marks, at each switch the traffic enters, the in-ports
 * it enters by; each marked in-port then waits on every next hop there.
 */
static int add_dependencies(struct walk *w, size_t d, const bool *source)
{
	const struct ecmp_tables *t = w->t;
	const struct fabric *f = t->f;
	size_t head = 0, tail = 0, dst = t->dst_node[d];
	for (size_t n = 0; n < f->nnodes; n++) {
		w->seen[n] = source[n] && n != dst;
		if (w->seen[n])
			w->queue[tail++] = n;
	}
	while (head < tail) {
		const struct node *a = f->nodes[w->queue[head++]];
		const uint8_t *p;
		unsigned k = ecmp_hops(t, d, a->index, &p);
		for (unsigned i = 0; i < k; i++) {
			const struct node *b = routing_next_switch(a, p[i]);
			if (!b || b->index == dst)
				continue;	/* delivered: hosts drain their queues */
			uint8_t in = a->ports[p[i]].remote_port;
			w->in_ports[w->in_base[b->index] + in / 64] |= 1ull << (in % 64);
			if (!w->seen[b->index]) {
				w->seen[b->index] = true;
				w->queue[tail++] = b->index;
			}
		}
	}
	for (size_t i = 0; i < tail; i++) {
		const struct node *b = f->nodes[w->queue[i]];
		uint64_t *in = w->in_ports + w->in_base[b->index], out[DEPGRAPH_WORDS(b)];
		const uint8_t *p;
		unsigned k = ecmp_hops(t, d, b->index, &p);
		memset(out, 0, sizeof(out));
		for (unsigned j = 0; j < k; j++)
			out[p[j] / 64] |= 1ull << (p[j] % 64);
		for (unsigned port = 0; port <= b->nports; port++)
			if (in[port / 64] & (1ull << (port % 64)) && depgraph_add_turns(&w->g, b, (uint8_t)port, out) < 0)
				return -1;
		memset(in, 0, DEPGRAPH_WORDS(b) * sizeof(*in));
	}
	return 0;
}

int ecmp_check(const struct ecmp_tables *t, const bool *source, const bool *lossless, struct ecmp_report *r)
{
	const struct fabric *f = t->f;
	struct walk w = { .t = t, .r = r };
	int rc = -1;
	memset(r, 0, sizeof(*r));
	size_t nn = f->nnodes + 1;
	w.order = malloc(nn * sizeof(*w.order));
	w.indeg = malloc(nn * sizeof(*w.indeg));
	w.bad = malloc(nn * sizeof(*w.bad));
	w.seen = malloc(nn * sizeof(*w.seen));
	w.queue = malloc(nn * sizeof(*w.queue));
	w.in_base = malloc(nn * sizeof(*w.in_base));
	if (!w.order || !w.indeg || !w.bad || !w.seen || !w.queue || !w.in_base || depgraph_init(&w.g, f) < 0)
		goto done;
	size_t words = 0;
	for (size_t n = 0; n < f->nnodes; n++) {
		w.in_base[n] = words;
		words += DEPGRAPH_WORDS(f->nodes[n]);
	}
	if (!(w.in_ports = calloc(words + 1, sizeof(*w.in_ports))))
		goto done;
	for (size_t d = 0; d < t->ndst; d++) {
		size_t ordered = order_destination(&w, d);
		if (ordered < f->nnodes) {
			r->loops++;
			name_loop(&w, d);
			continue;	/* dead ends and dependencies need an order */
		}
		find_dead_ends(&w, d, source);
		if (lossless[d] && add_dependencies(&w, d, source) < 0)
			goto done;
	}
	rc = depgraph_check(&w.g, &r->cbd);
done:
	depgraph_free(&w.g);
	free(w.order);
	free(w.indeg);
	free(w.bad);
	free(w.seen);
	free(w.queue);
	free(w.in_base);
	free(w.in_ports);
	return rc;
}

bool ecmp_report_ok(const struct ecmp_report *r)
{
	return !r->loops && !r->unreachable && !r->bad_hops && !r->cbd.cycle_len;
}

size_t ecmp_changed_switches(const struct ecmp_tables *a, const struct ecmp_tables *b)
{
	size_t changed = 0;
	for (size_t n = 0; n < a->f->nnodes; n++) {
		bool differs = false;
		for (size_t d = 0; d < a->ndst && !differs; d++) {
			const uint8_t *pa, *pb;
			unsigned ka = ecmp_hops(a, d, n, &pa), kb = ecmp_hops(b, d, n, &pb);
			differs = ka != kb || memcmp(pa, pb, ka) != 0;
		}
		changed += differs;
	}
	return changed;
}
