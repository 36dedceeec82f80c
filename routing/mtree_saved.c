/*
 * DOC: multicast trees kept by GUID
 *
 * A tree (routing/mtree.c) is flags per node index of one fabric; the
 * MFTs that hold it outlive that fabric: a repair's plan, and the next
 * programming of the trees, must know what the switches hold on the
 * fabric of now. So the trees programmed are kept as (switch GUID, port)
 * pairs, sorted, and seen again on any fabric: a switch that went drops
 * its part, a link that went adds no dependency (mtree_dependencies
 * follows the links of the fabric it is given).
 */
#include "routing/mtree.h"

#include <stdlib.h>
#include <string.h>

bool **mtree_new(const struct fabric *f)
{
	bool **on = calloc(f->nnodes + 1, sizeof(*on));
	for (size_t i = 0; on && i < f->nnodes; i++)
		if (!(on[i] = calloc((size_t)f->nodes[i]->nports + 1, sizeof(bool)))) {
			mtree_free(on, i);
			return NULL;
		}
	return on;
}

void mtree_free(bool **on, size_t nnodes)
{
	for (size_t i = 0; on && i < nnodes; i++)
		free(on[i]);
	free(on);
}

static int by_guid_port(const void *a, const void *b)
{
	const struct mtree_port *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

/* Sorts s's pairs by GUID, then port, and drops repeats. */
static void sort_unique(struct mtree_saved *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_guid_port);
	size_t n = 0;
	for (size_t k = 0; k < s->n; k++)
		if (n == 0 || by_guid_port(&s->v[k], &s->v[n - 1]) != 0)
			s->v[n++] = s->v[k];
	s->n = n;
}

int mtree_save(const struct fabric *f, bool *const *on, struct mtree_saved *out)
{
	size_t n = 0;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; f->nodes[i]->type == NODE_SWITCH && p <= f->nodes[i]->nports; p++)
			n += on[i][p];
	if (!n)
		return 0;
	if (!(out->v = malloc(n * sizeof(*out->v))))
		return -1;
	for (size_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; f->nodes[i]->type == NODE_SWITCH && p <= f->nodes[i]->nports; p++)
			if (on[i][p])
				out->v[out->n++] = (struct mtree_port){ f->nodes[i]->guid, (uint8_t)p };
	sort_unique(out);
	return 0;
}

int mtree_saved_union(struct mtree_saved *into, const struct mtree_saved *add)
{
	if (!add->n)
		return 0;
	struct mtree_port *v = realloc(into->v, (into->n + add->n) * sizeof(*v));
	if (!v)
		return -1;
	into->v = v;
	memcpy(into->v + into->n, add->v, add->n * sizeof(*v));
	into->n += add->n;
	sort_unique(into);
	return 0;
}

bool mtree_saved_within(const struct mtree_saved *a, const struct mtree_saved *b)
{
	size_t j = 0;
	for (size_t k = 0; k < a->n; k++) {	/* both sorted: one walk */
		while (j < b->n && by_guid_port(&b->v[j], &a->v[k]) < 0)
			j++;
		if (j == b->n || by_guid_port(&b->v[j], &a->v[k]) != 0)
			return false;
	}
	return true;
}

void mtree_load(const struct mtree_saved *s, const struct fabric *f, bool **on)
{
	const struct node *sw = NULL;
	for (size_t k = 0; k < s->n; k++) {
		if (k == 0 || s->v[k].guid != s->v[k - 1].guid)	/* a switch's ports come together */
			sw = fabric_find_guid(f, s->v[k].guid);
		if (sw && sw->type == NODE_SWITCH && s->v[k].port <= sw->nports)
			on[sw->index][s->v[k].port] = true;
	}
}

void mtree_saved_free(struct mtree_saved *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
