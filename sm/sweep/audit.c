/*
 * DOC: table audit
 *
 * A clean sweep's tables are vouched for by the answers to its Sets, and
 * no later sweep reads them again: it compares its new tables with the
 * published ones and writes only what differs. A block that changed on a
 * switch afterwards would stay wrong for as long as its LIDs' routes do,
 * and the deadlock proof be of tables the fabric does not hold: a Set that
 * timed out yet landed after a later write of its block (a lossy link,
 * the MAD layer's own retries), another SM or tool writing the switch, a
 * switch's firmware losing part of its table. So after each light sweep
 * that found nothing, lft_audit_blocks LFT blocks are read back, all in
 * flight, in a rotation over the published switches (block by block,
 * switch after switch, round again when all were read), and compared
 * with the published tables up to their max LID. A switch holding a block
 * unlike them is named in the log and the event store, joins
 * sm->lft_unsure, and the switches no longer count as holding the
 * published sweep: the full sweep the scheduler then asks for reads that
 * switch back, plans its transition from what it holds (proven like any
 * other) and rewrites what differs. A Get without an answer proves
 * nothing either way: its block comes round again next rotation. The
 * port tables have their own rotation and budget (audit_ports.c), in the same
 * audit.
 */
#include "sm/sweep/audit_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/smnode.h"
#include "sm/sweep/configure.h"

struct block_get {
	struct audit *a;
	const struct node *n;
	unsigned block;
};

/* Names the first of a switch's blocks found unlike the published tables: its entries, the first that differs. */
static void note_unlike(struct audit *a, const struct node *n, unsigned block, const uint8_t *held,
			const uint8_t *want, unsigned count)
{
	unsigned differ = 0, at = 0;
	for (unsigned k = count; k-- > 0;)
		if (held[k] != want[k]) {
			differ++;
			at = k;
		}
	a->r.differed++;
	lost_set_add(&a->sm->lft_unsure, n->guid);
	char detail[256];
	snprintf(detail, sizeof(detail), "%s (0x%016llx) holds LFT block %u unlike the published tables: %u of its %u "
		 "entries differ (LID %u: port %u, published %u)", n->desc, (unsigned long long)n->guid, block, differ,
		 count, block * 64u + at, held[at], want[at]);
	audit_note_unlike(a, n, detail);
}

static void on_block(void *ctx, int status, const ib_smp_t *reply)
{
	struct block_get *q = ctx;
	struct audit *a = q->a;
	if (status) {
		a->r.unanswered++;
	} else {
		const struct routing_tables *t = &a->pub->tables;
		uint8_t want[IB_SMP_DATA_SIZE];
		unsigned first = q->block * 64u, count = t->max_lid + 1u - first;
		count = count < 64 ? count : 64;	/* the switch ignores what lies past its LinearFDBTop */
		cfg_lft_block(t->lft[q->n->index], t->max_lid, q->block, want);
		a->r.read++;
		if (memcmp(reply->data, want, count))
			note_unlike(a, q->n, q->block, reply->data, want, count);
	}
	free(q);
	audit_answered(a);
}

static void ask_block(struct audit *a, const struct node *n, unsigned block)
{
	struct block_get *q = malloc(sizeof(*q));
	if (q) {
		*q = (struct block_get){ a, n, block };
		if (paced_get(&a->pace, a->sm->mp, n, 0, IB_MAD_ATTR_LIN_FWD_TBL, block, on_block, q))
			return;
		free(q);
	}
	a->r.unanswered++;
}

size_t audit_blocks_published(const struct sm_snapshot *pub)
{
	size_t n = 0, per_switch = pub->tables.max_lid / 64u + 1u;
	for (size_t i = 0; i < pub->fabric.nnodes; i++)
		n += pub->tables.lft[i] ? per_switch : 0;
	return n;
}

/* Asks for the rotation's next block; false when the audit has none left to ask (a->lft_left). */
static bool ask_next_block(struct audit *a)
{
	struct sm_audit *c = &a->sm->audit;
	const struct fabric *f = &a->pub->fabric;
	unsigned per_switch = a->pub->tables.max_lid / 64u + 1u;
	if (!a->lft_left)
		return false;
	while (c->node >= f->nnodes || !a->pub->tables.lft[c->node] || c->block >= per_switch) {
		if (c->node >= f->nnodes) {	/* round again */
			c->node = 0;
			c->rotations++;
		} else {	/* no table, or its blocks all asked */
			c->node++;
		}
		c->block = 0;
	}
	a->lft_left--;
	ask_block(a, f->nodes[c->node], c->block++);
	return true;
}

/* The LFT blocks first, then the port tables. */
static bool ask_more(void *owner)
{
	return ask_next_block(owner) || audit_ports_ask_next(owner);
}

void audit_tables(struct sm *sm, audit_done_fn done)
{
	const struct sm_snapshot *pub = sm_published(sm);
	struct audit *a = calloc(1, sizeof(*a));
	bool *unlike = a && pub ? calloc(pub->fabric.nnodes + 1, sizeof(*unlike)) : NULL;
	if (!unlike) {
		free(a);
		log_error("table audit: %s", pub ? "out of memory" : "no published sweep");
		done(sm, &(struct audit_report){ 0 });
		return;
	}
	*a = (struct audit){ .sm = sm, .pub = pub, .done = done, .unlike = unlike, .t0 = evl_now_ms(),
			     .whole = sm->audit.whole_wanted,
			     .pace = { .in_flight = 1, .limit = AUDIT_IN_FLIGHT, .ask_more = ask_more, .owner = a } };
	sm->audit.whole_wanted = false;
	sm->sched.sweeping = true;	/* a heavy sweep asked for meanwhile waits for us */
	size_t all = pub->tables.lft ? audit_blocks_published(pub) : 0;
	a->lft_left = a->whole || sm->cfg.lft_audit_blocks > all ? all : sm->cfg.lft_audit_blocks;	/* no block twice */
	audit_ports_start(a, sm->cfg.port_audit_tables);
	audit_answered(a);	/* the hold on pace.in_flight: the first Gets go out */
}
