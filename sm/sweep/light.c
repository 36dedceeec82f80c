/*
 * DOC: light sweep
 *
 * Every switch sets PortStateChange in its SwitchInfo when one of its
 * ports changes state (a cable pulled, plugged, a node rebooted), and
 * fabricd clears it when it programs the switch. So one SwitchInfo Get per
 * switch, all in flight at once over the routes the last heavy sweep
 * found, tells whether anything changed: a set bit, or a switch that no
 * longer answers, starts a heavy sweep. A change behind a CA alone shows
 * on the CA's switch port. This finds what a lost trap did not report.
 * Whoever started it (sm/sched.c) hears which switches reported a change
 * or did not answer: a repair reads them again (a switch silent because
 * its route crossed a link gone is reached over a new one; one that is
 * gone is cut off through its neighbours' ports, or the repair gives way
 * to a full discovery). A switch whose LinearFDBTop is not the published
 * max LID (reset, or written by another SM or tool: the LIDs past it
 * drop) holds a table the published sweep does not vouch for: it joins
 * sm->lft_unsure, the switches no longer count as clean, and the sweep
 * that follows is full and reads it back first.
 */
#include "sm/sweep/light.h"

#include <stdlib.h>

#include "sm/log.h"
#include "sm/smnode.h"

struct light {
	struct sm *sm;
	light_done_fn done;
	unsigned in_flight, asked, silent;
	uint64_t *changed;	/* GUIDs of the switches that reported PortStateChange or did not answer */
	size_t nchanged;
	uint64_t t0, mads0;
	const char *first;	/* a switch that reported a change, for the log */
	unsigned tops;		/* switches whose LinearFDBTop is not the published max LID */
	const struct node *first_top;
	uint16_t top;		/* its LinearFDBTop */
};

static void finish(struct light *l)
{
	struct sm *sm = l->sm;
	uint64_t ms = evl_now_ms() - l->t0, mads = mad_get_stats(sm->mp)->sent - l->mads0;
	light_done_fn done = l->done;
	struct light_report r = { l->changed, l->nchanged, l->silent };
	sm->sched.sweeping = false;
	if (l->tops) {
		lost_set_seal(&sm->lft_unsure);
		sm->last_sweep_ok = false;	/* the sweep this asks for is full and reads them back */
		log_warn("light sweep: %u switch%s hold%s a table top other than the published max LID %u, e.g. %s "
			 "(LinearFDBTop %u): a full sweep reads %s back", l->tops, l->tops == 1 ? "" : "es",
			 l->tops == 1 ? "s" : "", sm_published(sm)->tables.max_lid, l->first_top->desc, l->top,
			 l->tops == 1 ? "it" : "them");
	}
	if (r.nchanged)
		log_info("light sweep: %zu of %u switches report port changes (or a table top moved)%s%s, %u do not answer "
			 "(%llu ms, %llu SMPs): repair", r.nchanged - l->silent, l->asked, l->first ? ", e.g. " : "",
			 l->first ? l->first : "", l->silent, (unsigned long long)ms, (unsigned long long)mads);
	else
		log_debug("light sweep: no change on %u switches (%llu ms, %llu SMPs)", l->asked,
			  (unsigned long long)ms, (unsigned long long)mads);
	done(sm, &r);
	free(l->changed);
	free(l);
}

struct probe {
	struct light *l;
	const struct node *sw;
};

/* Whether sw's LinearFDBTop (from its SwitchInfo si) is not the published max LID its table was written for. */
static bool top_moved(const struct light *l, const struct node *sw, const ib_switch_info_t *si)
{
	const struct routing_tables *t = &sm_published(l->sm)->tables;
	return t->lft && t->lft[sw->index] && cl_ntoh16(si->lin_top) != t->max_lid;
}

static void on_switch_info(void *ctx, int status, const ib_smp_t *reply)
{
	struct probe *p = ctx;
	struct light *l = p->l;
	const ib_switch_info_t *si = status ? NULL : (const ib_switch_info_t *)reply->data;
	bool moved = si && top_moved(l, p->sw, si);
	if (moved) {
		lost_set_add(&l->sm->lft_unsure, p->sw->guid);
		if (!l->tops++) {
			l->first_top = p->sw;
			l->top = cl_ntoh16(si->lin_top);
		}
	}
	if (status) {
		l->silent++;
		l->changed[l->nchanged++] = p->sw->guid;
	} else if (ib_switch_info_get_state_change(si) || moved) {
		l->changed[l->nchanged++] = p->sw->guid;
		if (!l->first)
			l->first = p->sw->desc;
	}
	free(p);
	if (--l->in_flight == 0)
		finish(l);
}

void light_sweep(struct sm *sm, light_done_fn done)
{
	const struct fabric *f = &sm_published(sm)->fabric;	/* the scheduler runs us only after a clean sweep */
	struct light *l = calloc(1, sizeof(*l));
	uint64_t *changed = l ? calloc(f->nnodes + 1, sizeof(*changed)) : NULL;
	if (!changed) {
		log_error("light sweep: out of memory");
		free(l);
		done(sm, &(struct light_report){ .silent = 1 });
		return;
	}
	l->changed = changed;
	l->sm = sm;
	l->done = done;
	l->t0 = evl_now_ms();
	l->mads0 = mad_get_stats(sm->mp)->sent;
	sm->sched.sweeping = true;	/* a heavy sweep asked for meanwhile waits for us */
	l->in_flight = 1;	/* held until every probe is sent */
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		struct probe *p = n->type == NODE_SWITCH ? malloc(sizeof(*p)) : NULL;
		if (!p)
			continue;
		*p = (struct probe){ l, n };
		if (sm_node_get(sm->mp, n, 0, IB_MAD_ATTR_SWITCH_INFO, 0, on_switch_info, p) < 0) {
			free(p);
			l->silent++;
			continue;
		}
		l->in_flight++;
		l->asked++;
	}
	if (--l->in_flight == 0)
		finish(l);
}
