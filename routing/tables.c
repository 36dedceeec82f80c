/*
 * DOC: routing tables
 *
 * Allocation helpers for the per-switch linear forwarding tables that every
 * routing engine fills, and views that share a table's unchanged rows.
 */
#include "routing/routing.h"
#include "routing/shares.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

unsigned routing_switch_hops(const struct routing_tables *t, const struct node *sw, uint16_t lid)
{
	const struct node *at = sw;
	for (unsigned hops = 0; hops < FABRIC_MAX_HOPS; hops++) {
		uint8_t out = routing_next_hop(t, at, lid);
		const struct node *next = out ? at->ports[out].remote : NULL;
		if (routing_lft_entry(t, at, lid) == 0 || (next && next->type != NODE_SWITCH))
			return hops;	/* at is lid's switch, or hands it to the CA */
		if (!next)
			return ROUTING_HOPS_NONE;
		at = next;
	}
	return ROUTING_HOPS_NONE;	/* circles */
}

void routing_tables_free(struct routing_tables *t)
{
	free(t->lft);
	free(t->rows);
	free(t->sl);
	memset(t, 0, sizeof(*t));
}

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_BLOCK ((size_t)32 << 20)	/* blocks this big are asked for in huge pages */

/*
 * t sized for nnodes nodes up to max_lid, with a row (not yet set) for
 * each node that has_row, all in one block: a
 * 27,648-host fabric's tables are 88 MB, and faulting them in page by
 * 4 KiB page cost more than routing half of them. (The kernel gives huge
 * pages to a block that asks, where it has them; the advice is only that.)
 * Smaller blocks do not ask: a huge page is always fresh memory the kernel
 * must clear (and a VM's host back), where 4 KiB pages come back from the
 * heap. The repair of a radix-24 tree (3 MB tables, copied a few times per
 * sweep) spent a third of its plan clearing huge pages.
 */
static int tables_init(struct routing_tables *t, size_t nnodes, uint16_t max_lid,
		       bool (*has_row)(const void *arg, size_t i), const void *arg)
{
	size_t width = (size_t)max_lid + 1, nrows = 0;
	memset(t, 0, sizeof(*t));
	t->max_lid = max_lid;
	t->nnodes = nnodes;
	t->layers = 1;
	for (size_t i = 0; i < nnodes; i++)
		nrows += has_row(arg, i);
	size_t size = nrows * width;
	if (size >= HUGE_BLOCK) {
		size_t whole = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
		if ((t->rows = aligned_alloc(HUGE_PAGE, whole)))
			madvise(t->rows, whole, MADV_HUGEPAGE);
	} else {
		t->rows = malloc(size ? size : 1);
	}
	t->lft = calloc(nnodes ? nnodes : 1, sizeof(*t->lft));
	t->sl = calloc(width, 1);
	if (!t->rows || !t->lft || !t->sl) {
		routing_tables_free(t);
		return -1;
	}
	for (size_t i = 0, k = 0; i < nnodes; i++)
		if (has_row(arg, i))
			t->lft[i] = t->rows + k++ * width;
	return 0;
}

static bool is_switch(const void *arg, size_t i)
{
	const struct fabric *f = arg;
	return f->nodes[i]->type == NODE_SWITCH;
}

/* The switches routing_tables_alloc_some gives rows to. */
struct some_rows {
	const struct fabric *f;
	const bool *rows;
};

static bool some_row(const void *arg, size_t i)
{
	const struct some_rows *s = arg;
	return is_switch(s->f, i) && (!s->rows || s->rows[i]);
}

/* Sets rows [from, to) of a block to LFT_NO_PATH. */
static void clear_share(void *arg, size_t k, size_t from, size_t to)
{
	struct routing_tables *t = arg;
	(void)k;
	size_t width = (size_t)t->max_lid + 1;
	memset(t->rows + from * width, LFT_NO_PATH, (to - from) * width);
}

int routing_tables_alloc_some(struct routing_tables *t, const struct fabric *f, uint16_t max_lid, const bool *rows)
{
	struct some_rows s = { f, rows };
	size_t nrows = 0;
	if (tables_init(t, f->nnodes, max_lid, some_row, &s) < 0)
		return -1;
	for (size_t i = 0; i < f->nnodes; i++)
		nrows += t->lft[i] != NULL;
	/*
	 * The rows lie in one block: a big one is fresh memory the kernel
	 * clears page by page as it is first written (on this VM 90-220 ms
	 * for the 88 MB of a 27,648-host fabric), and the CPUs fault it in
	 * side by side.
	 */
	size_t size = nrows * ((size_t)max_lid + 1);
	shares_run(size >= HUGE_BLOCK ? shares_count(nrows, 2) : 1, nrows, clear_share, t);
	return 0;
}

int routing_tables_alloc(struct routing_tables *t, const struct fabric *f, uint16_t max_lid)
{
	return routing_tables_alloc_some(t, f, max_lid, NULL);
}

/* What routing_tables_share gives dst rows for: the nodes src has one for and own[] marks (NULL: all). */
struct shared_rows {
	const struct routing_tables *src;
	const bool *own;
};

static bool owns_row(const void *arg, size_t i)
{
	const struct shared_rows *s = arg;
	return s->src->lft[i] && (!s->own || s->own[i]);
}

/* Each row written once: copied, not first set to LFT_NO_PATH. */
int routing_tables_share(struct routing_tables *dst, const struct routing_tables *src, const bool *own)
{
	struct shared_rows s = { src, own };
	if (tables_init(dst, src->nnodes, src->max_lid, owns_row, &s) < 0)
		return -1;
	dst->layers = src->layers;
	memcpy(dst->vl_by_sl, src->vl_by_sl, sizeof(dst->vl_by_sl));
	memcpy(dst->sl, src->sl, (size_t)src->max_lid + 1);
	for (size_t i = 0; i < src->nnodes; i++) {
		if (dst->lft[i])
			memcpy(dst->lft[i], src->lft[i], (size_t)src->max_lid + 1);
		else
			dst->lft[i] = src->lft[i];	/* src's (or NULL): routing_tables_free frees only dst->rows */
	}
	return 0;
}

int routing_tables_copy(struct routing_tables *dst, const struct routing_tables *src)
{
	return routing_tables_share(dst, src, NULL);
}

void routing_lid_owners(const struct fabric *f, uint16_t max_lid, struct lid_owner *own)
{
	for (size_t i = 0; i < f->nnodes; i++)
		FOR_END_PORTS(f->nodes[i], p) {
			const struct port *pt = &f->nodes[i]->ports[p];
			for (uint32_t lid = pt->lid; pt->lid && lid < pt->lid + (1u << (pt->lmc & 7)); lid++)
				if (lid <= max_lid)
					own[lid] = (struct lid_owner){ f->nodes[i], (uint8_t)p };
		}
}

uint16_t routing_max_lid(const struct fabric *f)
{
	uint16_t max = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++)
			if (n->ports[p].exists && n->ports[p].lid > max)
				max = n->ports[p].lid;
	}
	return max;
}
