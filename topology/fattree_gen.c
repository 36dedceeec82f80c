/*
 * DOC: fat-tree generator
 *
 * Builds k-ary fat trees in the fabric model, numbering GUIDs in the order
 * ibsim numbers them when it reads the same nodes from a net file (CAs from
 * 0x100000 stepping by ports + 1, switches from 0x200000), so a generated
 * model and the simulated fabric name the same GUIDs. Removals use a
 * seeded xorshift generator so a seed means the same fabric everywhere.
 */
#include "topology/fattree_gen.h"

#include <stdio.h>
#include <stdlib.h>

struct gen {
	struct fabric *f;
	uint64_t next_ca, next_sw;
	uint64_t rng;
};

static uint64_t rng_next(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static struct node *add_switch(struct gen *g, unsigned radix, const char *fmt, unsigned i)
{
	char name[32];
	snprintf(name, sizeof(name), fmt, i);
	return fabric_add_node(g->f, NODE_SWITCH, g->next_sw++, (uint8_t)radix, name);
}

/* Ports 1..k/2 face down, k/2+1..k face up, on every switch but the top. */
static int build(struct gen *g, const struct fattree_spec *s, struct node **leaves, unsigned nleaves)
{
	unsigned k = s->radix, h = k / 2;
	for (unsigned l = 0; l < nleaves; l++)
		if (!(leaves[l] = add_switch(g, k, "L%u", l)))
			return -1;
	if (s->levels == 2) {
		for (unsigned sp = 0; sp < h; sp++) {
			struct node *spine = add_switch(g, k, "S%u", sp);
			if (!spine)
				return -1;
			for (unsigned l = 0; l < nleaves; l++)
				fabric_link(leaves[l], (uint8_t)(h + 1 + sp), spine, (uint8_t)(l + 1));
		}
		return 0;
	}
	/* three levels: pods of h leaves and h aggregation switches */
	unsigned pods = nleaves / h;
	struct node **aggs = calloc((size_t)pods * h, sizeof(*aggs));
	if (!aggs)
		return -1;
	for (unsigned a = 0; a < pods * h; a++) {
		if (!(aggs[a] = add_switch(g, k, "A%u", a)))
			goto fail;
		unsigned pod = a / h;
		for (unsigned e = 0; e < h; e++)
			fabric_link(leaves[pod * h + e], (uint8_t)(h + 1 + a % h), aggs[a], (uint8_t)(e + 1));
	}
	for (unsigned c = 0; c < h * h; c++) {
		struct node *core = add_switch(g, k, "C%u", c);
		if (!core)
			goto fail;
		unsigned j = c / h, i = c % h;	/* core c hangs off aggregation j of every pod */
		for (unsigned pod = 0; pod < pods; pod++)
			fabric_link(aggs[pod * h + j], (uint8_t)(h + 1 + i), core, (uint8_t)(pod + 1));
	}
	free(aggs);
	return 0;
fail:
	free(aggs);
	return -1;
}

static int add_hosts(struct gen *g, unsigned k, struct node **leaves, unsigned nleaves)
{
	for (unsigned l = 0; l < nleaves; l++)
		for (unsigned i = 0; i < k / 2; i++) {
			char name[32];
			snprintf(name, sizeof(name), "H%u_%u", l, i);
			struct node *hca = fabric_add_node(g->f, NODE_CA, g->next_ca, 1, name);
			if (!hca)
				return -1;
			g->next_ca += 2;
			fabric_link(leaves[l], (uint8_t)(i + 1), hca, 1);
		}
	return 0;
}

static bool is_top(const struct fattree_spec *s, const struct node *n)
{
	return n->desc[0] == (s->levels == 2 ? 'S' : 'C');
}

/* Top switches face only down; the others face down on ports 1..k/2. */
static bool port_is_up(const struct fattree_spec *s, const struct node *n, unsigned p)
{
	return !is_top(s, n) && p > s->radix / 2;
}

static unsigned side_links(const struct fattree_spec *s, const struct node *n, bool up)
{
	unsigned c = 0;
	for (unsigned p = 1; p <= n->nports; p++)
		if (n->ports[p].remote && port_is_up(s, n, p) == up)
			c++;
	return c;
}

/* True when dropping n's port p would leave its peer, or n, without a link on that side. */
static bool cuts_last_link(const struct fattree_spec *s, const struct node *n, unsigned p)
{
	const struct port *pt = &n->ports[p];
	bool up = port_is_up(s, n, p);
	return side_links(s, n, up) < 2 || side_links(s, pt->remote, !up) < 2;
}

static unsigned remove_links(struct gen *g, const struct fattree_spec *s)
{
	unsigned done = 0, tries = 0;
	while (done < s->remove_links && tries++ < s->remove_links * 1000u) {
		struct node *n = g->f->nodes[rng_next(g) % g->f->nnodes];
		if (n->type != NODE_SWITCH || is_top(s, n))
			continue;
		unsigned p = s->radix / 2 + 1 + (unsigned)(rng_next(g) % (s->radix / 2));
		if (!n->ports[p].remote || cuts_last_link(s, n, p))
			continue;
		fabric_unlink(n, (uint8_t)p);
		done++;
	}
	return done;
}

static unsigned remove_switches(struct gen *g, const struct fattree_spec *s)
{
	unsigned done = 0, tries = 0;
	while (done < s->remove_switches && tries++ < s->remove_switches * 1000u) {
		struct node *n = g->f->nodes[rng_next(g) % g->f->nnodes];
		if (n->type != NODE_SWITCH || n->desc[0] == 'L' || n->user)
			continue;
		bool cuts = false;
		for (unsigned p = 1; p <= n->nports && !cuts; p++) {
			const struct port *pt = &n->ports[p];
			if (pt->remote && side_links(s, pt->remote, !port_is_up(s, n, p)) < 2)
				cuts = true;
		}
		if (cuts)
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			fabric_unlink(n, (uint8_t)p);
		n->user = n;	/* marked for deletion */
		done++;
	}
	return done;
}

/* Drops the switches remove_switches() marked and renumbers GUIDs as ibsim would. */
static int compact(struct fabric *f)
{
	struct fabric out;
	uint64_t next_sw = 0x200000;
	fabric_init(&out);
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		if (n->user)
			continue;
		uint64_t guid = n->type == NODE_SWITCH ? next_sw++ : n->guid;
		struct node *c = fabric_add_node(&out, n->type, guid, n->nports, n->desc);
		if (!c) {
			fabric_free(&out);
			return -1;
		}
		n->user = c;
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		if (n->user == n)
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			if (n->ports[p].remote)
				fabric_link(n->user, (uint8_t)p, n->ports[p].remote->user,
					    n->ports[p].remote_port);
	}
	for (size_t i = 0; i < out.nnodes; i++)
		out.nodes[i]->user = NULL;
	fabric_free(f);
	fabric_move(f, &out);
	return 0;
}

int fattree_generate(const struct fattree_spec *s, struct fabric *f, char err[256])
{
	fabric_init(f);
	if (s->levels != 2 && s->levels != 3) {
		snprintf(err, 256, "levels must be 2 or 3, not %u", s->levels);
		return -1;
	}
	if (s->radix < 4 || s->radix % 2 || s->radix > FABRIC_MAX_PORTS) {
		snprintf(err, 256, "radix must be even and 4..%d, not %u", FABRIC_MAX_PORTS, s->radix);
		return -1;
	}
	struct gen g = { .f = f, .next_ca = 0x100000, .next_sw = 0x200000, .rng = s->seed * 2 + 1 };
	unsigned pods = s->pods ? s->pods : s->radix;
	if (pods > s->radix || (s->levels == 2 && pods < 2)) {
		snprintf(err, 256, "pods (leaves on 2 levels) must be %u..%u, not %u", s->levels == 2 ? 2 : 1,
			 s->radix, pods);
		return -1;
	}
	unsigned nleaves = s->levels == 2 ? pods : pods * s->radix / 2;
	struct node **leaves = calloc(nleaves, sizeof(*leaves));
	int rc = leaves ? build(&g, s, leaves, nleaves) : -1;
	if (rc == 0)
		rc = add_hosts(&g, s->radix, leaves, nleaves);
	free(leaves);
	if (rc < 0) {
		snprintf(err, 256, "out of memory");
		fabric_free(f);
		return -1;
	}
	unsigned sw = remove_switches(&g, s);
	unsigned ln = remove_links(&g, s);
	if (sw < s->remove_switches || ln < s->remove_links) {
		snprintf(err, 256, "could remove only %u switches and %u links without cutting a switch off",
			 sw, ln);
		fabric_free(f);
		return -1;
	}
	if (sw && compact(f) < 0) {
		snprintf(err, 256, "out of memory");
		fabric_free(f);
		return -1;
	}
	return 0;
}
