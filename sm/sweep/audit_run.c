/*
 * DOC: one table audit under way: its end and its findings
 *
 * Both parts of an audit (the LFT blocks, audit.c; the port tables,
 * audit_ports.c) count their Gets into one report and name the nodes they
 * find holding something unlike the published sweep here, once each, in
 * the log and the event store. Each answer lets the audit ask for the
 * next block or table (sm/sweep/paced.c), so that no more than
 * AUDIT_IN_FLIGHT Gets are out and queued at a time. The last answer in
 * ends the audit: the
 * figures go into sm->audit, the nodes found unlike into the next sweep
 * (sm->lft_unsure, sm->port_unsure, sealed here), and the scheduler hears
 * the report.
 */
#include "sm/sweep/audit_run.h"

#include <stdlib.h>

#include "sm/log.h"

void audit_answered(struct audit *a)
{
	if (!paced_answered(&a->pace))
		return;
	struct sm *sm = a->sm;
	struct audit_report r = a->r;
	audit_done_fn done = a->done;
	struct sm_audit *c = &sm->audit;
	c->read += r.read;
	c->differed += r.differed;
	c->unanswered += r.unanswered;
	c->port_read += r.port_read;
	c->port_differed += r.port_differed;
	c->port_unanswered += r.port_unanswered;
	if (a->whole) {
		c->wholes++;
		c->last_read = r.read;
		c->last_differed = r.differed;
		c->last_unanswered = r.unanswered;
		c->last_port_read = r.port_read;
		c->last_port_differed = r.port_differed;
		c->last_port_unanswered = r.port_unanswered;
		log_info("table audit: every LFT block read back: %u as published, %u other, %u unanswered; every port "
			 "table: %u as published, %u other, %u unanswered", r.read - r.differed, r.differed, r.unanswered,
			 r.port_read - r.port_differed, r.port_differed, r.port_unanswered);
	}
	if (r.switches) {
		lost_set_seal(&sm->lft_unsure);
		lost_set_seal(&sm->port_unsure);
		sm->last_sweep_ok = false;	/* the next sweep reads them back */
		log_warn("table audit: %u of %u LFT blocks and %u of %u port tables read differ from the published "
			 "sweep's, on %u node%s: a full sweep rewrites %s", r.differed, r.read, r.port_differed, r.port_read,
			 r.switches, r.switches == 1 ? "" : "s", r.switches == 1 ? "it" : "them");
	} else {
		log_debug("table audit: %u LFT blocks and %u port tables as published, %u and %u unanswered (%llu ms)",
			  r.read, r.port_read, r.unanswered, r.port_unanswered,
			  (unsigned long long)(evl_now_ms() - a->t0));
	}
	sm->sched.sweeping = false;
	free(a->tables);
	free(a->unlike);
	free(a);
	done(sm, &r);
}

void audit_note_unlike(struct audit *a, const struct node *n, const char *detail)
{
	if (a->unlike[n->index])
		return;
	a->unlike[n->index] = true;
	a->r.switches++;
	log_warn("table audit: %s", detail);
	sm_event(a->sm, "audit", detail);
}
