/*
 * DOC: reading the switches' tables
 *
 * One LinearForwardingTable Get per block, READBACK_IN_FLIGHT out at a
 * time, the next asked as each answer comes (sm/sweep/paced.c; all at
 * once, the 27,648-host tree's 1.41 million blocks would hold some 600 MB
 * of MADs queued), each answer copied into the switch's lft_held.
 * Used when this process has no clean sweep of its own to compare with,
 * so a restarted fabricd, or a standby taking over, rewrites nothing the
 * switches already hold and traffic keeps its paths. After a sweep that
 * lost some Sets, only the switches it lost one to (or that show a reset)
 * are read: the others hold the published tables.
 */
#include "sm/sweep/readback.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"
#include "sm/sweep/paced.h"

struct readback {
	struct cfg_result r;
	struct paced pace;
	struct mad_port *mp;
	struct fabric *f;
	size_t node;		/* the next block to ask for: f->nodes[node]'s */
	unsigned block;
	cfg_done_fn done;
	void *arg;
};

struct block_req {
	struct readback *rb;
	struct mad_port *mp;
	struct node *n;
	unsigned block;
	unsigned asked;		/* times the block was asked for (each with the MAD layer's own tries) */
};

/*
 * One unreadable block leaves the whole transition unplanned, so a block
 * whose Get ran out of tries is asked for again, up to this many times in
 * all: a few Gets more under MAD loss, where a table read back is worth
 * far more than one Get.
 */
#define BLOCK_ASKS 3

/* s's table unknown: its read failed, or could not be made. */
static void unknown(struct sm_node *s)
{
	free(s->lft_held);
	s->lft_held = NULL;
	s->lft_unknown = true;
}

static bool ask_block(struct block_req *q, bool first);

/*
 * Asks for the next block to read (of a switch whose lft_held waits for
 * it: none after a block of its could not be read); false when none is left.
 */
static bool ask_next(void *owner)
{
	struct readback *rb = owner;
	while (rb->node < rb->f->nnodes) {
		struct node *n = rb->f->nodes[rb->node];
		struct sm_node *s = sm_node(n);
		if (n->type != NODE_SWITCH || !s->lft_held || !s->lft_held_top || rb->block > s->lft_held_top / 64u) {
			rb->node++;
			rb->block = 0;
			continue;
		}
		struct block_req *q = malloc(sizeof(*q));
		if (q) {
			*q = (struct block_req){ .rb = rb, .mp = rb->mp, .n = n, .block = rb->block++ };
			if (ask_block(q, true))
				return true;
			free(q);
		}
		unknown(s);	/* a block that cannot be asked for: the rest of its table is not asked either */
	}
	return false;
}

/* One Get's answer is in: the last ends the read. */
static void answered(struct readback *rb)
{
	if (!paced_answered(&rb->pace))
		return;
	rb->done(rb->arg, &rb->r);
	free(rb);
}

static void on_block(void *ctx, int status, const ib_smp_t *reply)
{
	struct block_req *q = ctx;
	struct sm_node *s = sm_node(q->n);
	if (status != 0 && q->asked < BLOCK_ASKS && s->lft_held && ask_block(q, false))
		return;	/* asked again: this answer will come */
	if (status != 0) {
		q->rb->r.failed++;
		unknown(s);	/* one unknown block: treat the whole table as unknown */
	} else if (s->lft_held) {
		unsigned first = q->block * 64u, count = s->lft_held_top + 1u - first;
		memcpy(s->lft_held + first, reply->data, count < 64 ? count : 64);
	}
	struct readback *rb = q->rb;
	free(q);
	answered(rb);
}

/* Sends q's Get (counted in r.sent; the first time also counted out); false when it could not go. */
static bool ask_block(struct block_req *q, bool first)
{
	struct readback *rb = q->rb;
	bool sent = first ? paced_get(&rb->pace, q->mp, q->n, 0, IB_MAD_ATTR_LIN_FWD_TBL, q->block, on_block, q)
			  : sm_node_get(q->mp, q->n, 0, IB_MAD_ATTR_LIN_FWD_TBL, q->block, on_block, q) == 0;
	if (sent) {
		q->asked++;
		rb->r.sent++;
	}
	return sent;
}

int readback_lfts(struct mad_port *mp, struct fabric *f, const struct fabric *prev, const struct routing_tables *prev_t,
		  const struct lost_set *lost, cfg_done_fn done, void *arg)
{
	struct readback *rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -1;
	*rb = (struct readback){ .mp = mp, .f = f, .done = done, .arg = arg,
				 .pace = { .in_flight = 1, .limit = READBACK_IN_FLIGHT, .ask_more = ask_next, .owner = rb } };
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		struct sm_node *s = sm_node(n);
		uint16_t top = s->have_switch_info ? cl_ntoh16(s->switch_info.lin_top) : 0, max;
		if (n->type != NODE_SWITCH ||
		    (prev && !lost_set_has(lost, n->guid) && cfg_table_held(n, prev, prev_t, &max)))
			continue;	/* the published table */
		/* without SwitchInfo, how far its table goes is not known */
		if (!s->have_switch_info || top >= n->lft_cap || !(s->lft_held = malloc(top + 1u))) {
			unknown(s);
			continue;
		}
		s->lft_held_top = top;
		s->lft_held[0] = LFT_NO_PATH;	/* LinearFDBTop 0: no table, every LID drops (nothing to read) */
	}
	answered(rb);	/* the hold on pace.in_flight: the first Gets go out */
	return 0;
}

void readback_done(struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		struct sm_node *s = sm_node(f->nodes[i]);
		free(s->lft_held);
		s->lft_held = NULL;
		s->lft_unknown = false;
	}
}

int readback_tables(const struct fabric *f, const struct routing_tables *like, const struct fabric *prev,
		    const struct routing_tables *prev_t, const struct routing_tables *sls, struct routing_tables *out,
		    const struct node **unknown_at)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		uint16_t max;
		if (like->lft[i] && !cfg_table_held(f->nodes[i], prev, prev_t, &max)) {
			*unknown_at = f->nodes[i];
			return 0;
		}
	}
	if (routing_tables_alloc(out, f, like->max_lid) < 0)
		return -1;
	memcpy(out->sl, like->sl, (size_t)like->max_lid + 1);
	memcpy(out->sl, sls->sl, (size_t)(sls->max_lid < like->max_lid ? sls->max_lid : like->max_lid) + 1);
	memcpy(out->vl_by_sl, like->vl_by_sl, sizeof(out->vl_by_sl));
	out->layers = sls->layers > like->layers ? sls->layers : like->layers;
	for (size_t i = 0; i < f->nnodes; i++) {
		uint16_t max;
		const uint8_t *held = out->lft[i] && like->lft[i] ? cfg_table_held(f->nodes[i], prev, prev_t, &max) : NULL;
		if (held)
			memcpy(out->lft[i], held, (size_t)(max < like->max_lid ? max : like->max_lid) + 1);
	}
	return 1;
}
