/*
 * DOC: reading the switches' tables
 *
 * One LinearForwardingTable Get per block, all in flight at once (the MAD
 * layer windows them), each answer copied into the switch's lft_held.
 * Used when this process has no clean sweep of its own to compare with,
 * so a restarted fabricd, or a standby taking over, rewrites nothing the
 * switches already hold and traffic keeps its paths.
 */
#include "sm/sweep/readback.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"

struct readback {
	struct cfg_result r;
	unsigned in_flight;
	cfg_done_fn done;
	void *arg;
};

struct block_req {
	struct readback *rb;
	struct node *n;
	unsigned block;
};

static void finish(struct readback *rb)
{
	if (--rb->in_flight)
		return;
	rb->done(rb->arg, &rb->r);
	free(rb);
}

static void on_block(void *ctx, int status, const ib_smp_t *reply)
{
	struct block_req *q = ctx;
	struct sm_node *s = sm_node(q->n);
	if (status != 0) {
		q->rb->r.failed++;
		free(s->lft_held);	/* one unknown block: treat the whole table as unknown */
		s->lft_held = NULL;
	} else if (s->lft_held) {
		unsigned first = q->block * 64u, count = s->lft_held_top + 1u - first;
		memcpy(s->lft_held + first, reply->data, count < 64 ? count : 64);
	}
	struct readback *rb = q->rb;
	free(q);
	finish(rb);
}

int readback_lfts(struct mad_port *mp, struct fabric *f, cfg_done_fn done, void *arg)
{
	struct readback *rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -1;
	*rb = (struct readback){ .in_flight = 1, .done = done, .arg = arg };
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		struct sm_node *s = sm_node(n);
		uint16_t top = s->have_switch_info ? cl_ntoh16(s->switch_info.lin_top) : 0;
		if (n->type != NODE_SWITCH || !top || top >= n->lft_cap || !(s->lft_held = malloc(top + 1u)))
			continue;
		s->lft_held_top = top;
		struct dr_path r = sm_node_route(n, 0);
		for (unsigned block = 0; block <= top / 64u; block++) {
			struct block_req *q = malloc(sizeof(*q));
			if (!q)
				break;
			*q = (struct block_req){ rb, n, block };
			rb->in_flight++;
			if (mad_send_dr(mp, IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, block, r.path, r.hops,
					sm_node_mkey(n, 0), NULL, 0, on_block, q) < 0) {
				rb->in_flight--;
				free(q);
				break;
			}
			rb->r.sent++;
		}
	}
	finish(rb);
	return 0;
}

int readback_tables(const struct fabric *f, const struct routing_tables *like, const struct routing_tables *sls,
		    struct routing_tables *out)
{
	for (size_t i = 0; i < f->nnodes; i++)
		if (like->lft[i] && !sm_node(f->nodes[i])->lft_held)
			return 0;
	if (routing_tables_alloc(out, f, like->max_lid) < 0)
		return -1;
	memcpy(out->sl, like->sl, (size_t)like->max_lid + 1);
	memcpy(out->sl, sls->sl, (size_t)(sls->max_lid < like->max_lid ? sls->max_lid : like->max_lid) + 1);
	memcpy(out->vl_by_sl, like->vl_by_sl, sizeof(out->vl_by_sl));
	out->layers = sls->layers > like->layers ? sls->layers : like->layers;
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *s = sm_node(f->nodes[i]);
		if (out->lft[i] && s->lft_held)
			memcpy(out->lft[i], s->lft_held,
			       (size_t)(s->lft_held_top < like->max_lid ? s->lft_held_top : like->max_lid) + 1);
	}
	return 1;
}
