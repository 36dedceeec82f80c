/*
 * DOC: InformInfo subscriptions and trap forwarding
 *
 * A host subscribes with InformInfo Set (Subscribe 1) to a generic trap
 * number, or to the vendor traps of a device ID (0xffff: all), from a LID
 * range (0xffff: any), and unsubscribes with Subscribe 0 (a subscription
 * it does not hold: REQ_INVALID). Every trap fabricd receives is then
 * forwarded to the matching subscribers as an SA Report of the Notice, to the LID the
 * subscription came from and the QP it names. Reports go through the MAD
 * window like the SM's own requests: resent until the host's ReportResp
 * comes, given up after the retries. Subscriptions live in memory, like
 * ServiceRecords. A port holds at most sa.subscriptions_per_port of them
 * (a client with the SM_Key is exempt), so one host cannot fill the table
 * or multiply every trap into hundreds of Reports. InformInfoRecords
 * list the subscriptions: the subscriber's port GID, its n-th
 * subscription (Enum), and the InformInfo as it was given.
 */
#include "sm/sa/sa.h"

#include <stdint.h>
#include <string.h>

#include "sm/log.h"
#include "sm/sm.h"

#define ANY 0xffff

static bool same(const struct sa_subscription *s, const ib_inform_info_t *ii, uint16_t lid)
{
	return s->lid == lid && s->generic == (ii->is_generic != 0) && s->trap == cl_ntoh16(ii->g_or_v.generic.trap_num) &&
	       memcmp(&s->gid, &ii->gid, sizeof(s->gid)) == 0;
}

void sa_inform_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	struct sa_subscriptions *st = &sm->sa.subscriptions;
	const ib_inform_info_t *ii = (const ib_inform_info_t *)req->data;
	if (req->method != IB_MAD_METHOD_SET) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_REQ_INVALID, NULL, 0, 0);
		return;
	}
	size_t i = 0;
	while (i < st->n && !same(&st->s[i], ii, from->slid))
		i++;
	uint64_t owner = sa_requester(sm, from);
	size_t owned = 0;
	for (size_t j = 0; j < st->n; j++)
		owned += st->s[j].owner == owner;
	ib_net16_t status = 0;
	const char *why = "";
	if (!ii->subscribe && i == st->n) {
		status = IB_SA_MAD_STATUS_REQ_INVALID;
		why = " refused: no such subscription";
	} else if (!ii->subscribe) {
		st->s[i] = st->s[--st->n];
	} else if (i == st->n && !sa_trusted(sm, req) && owned >= sm->cfg.sa_subscriptions_per_port) {
		status = IB_SA_MAD_STATUS_NO_RESOURCES;
		why = " refused: the port holds its quota (sa.subscriptions_per_port)";
	} else if (i == st->n && st->n == SA_MAX_SUBSCRIPTIONS) {
		status = IB_SA_MAD_STATUS_NO_RESOURCES;
		why = " refused: store full";
	} else {
		ib_net32_t qpn;
		uint8_t resp_time;
		ib_inform_info_get_qpn_resp_time(ii->g_or_v.generic.qpn_resp_time_val, &qpn, &resp_time);
		st->s[i] = (struct sa_subscription){ ii->gid, from->slid, cl_ntoh32(qpn) ? cl_ntoh32(qpn) : from->qpn,
						     ii->is_generic != 0, cl_ntoh16(ii->g_or_v.generic.trap_num),
						     cl_ntoh16(ii->lid_range_begin), cl_ntoh16(ii->lid_range_end), owner };
		st->n += i == st->n;
	}
	if (!status || sa_may_log(sm, from))
		log_info("sa: InformInfo from LID %u: %s %s %u%s", from->slid,
			 ii->subscribe ? "subscribe to" : "unsubscribe from",
			 ii->is_generic ? "trap" : "the vendor traps of device", cl_ntoh16(ii->g_or_v.generic.trap_num), why);
	sa_respond(sm, req, from, status, ii, sizeof(*ii), status ? 0 : 1);
}

static void on_report_answered(void *ctx, int status, const ib_smp_t *reply)
{
	(void)reply;
	if (status)
		log_debug("sa: a Report to LID %u got no ReportResp (status %d)", (unsigned)(uintptr_t)ctx, status);
}

void sa_inform_forward(struct sm *sm, const ib_mad_notice_attr_t *ntc)
{
	const struct sa_subscriptions *st = &sm->sa.subscriptions;
	bool generic = ib_notice_is_generic(ntc);
	unsigned num = cl_ntoh16(generic ? ntc->g_or_v.generic.trap_num : ntc->g_or_v.vend.dev_id);
	uint16_t issuer = cl_ntoh16(ntc->issuer_lid);
	for (size_t i = 0; i < st->n; i++) {
		const struct sa_subscription *s = &st->s[i];
		if (s->generic != generic || (s->trap != ANY && s->trap != num) ||
		    (s->lid_begin != ANY && (issuer < s->lid_begin || issuer > (s->lid_end == ANY ? s->lid_begin : s->lid_end))))
			continue;
		if (mad_send_report(sm->mp, s->lid, s->qpn, ntc, sizeof(*ntc), on_report_answered,
				    (void *)(uintptr_t)s->lid) < 0)
			log_warn("sa: Report of trap %u to LID %u not sent", num, s->lid);
		else
			log_debug("sa: trap %u reported to LID %u", num, s->lid);
	}
}

void sa_inform_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a)
{
	const struct sa_subscriptions *st = &sm->sa.subscriptions;
	const ib_inform_info_record_t *q = (const ib_inform_info_record_t *)req->data;
	for (size_t i = 0; i < st->n; i++) {
		const struct sa_subscription *s = &st->s[i];
		uint16_t nth = 0;	/* Enum: this subscription's place among its subscriber's */
		for (size_t j = 0; j < i; j++)
			nth += st->s[j].owner == s->owner;
		ib_gid_t gid;
		gid.unicast.prefix = cl_hton64(sm->cfg.subnet_prefix);
		gid.unicast.interface_id = cl_hton64(s->owner);
		if (((req->comp_mask & IB_IIR_COMPMASK_SUBSCRIBERGID) &&
		     memcmp(&q->subscriber_gid, &gid, sizeof(gid)) != 0) ||
		    ((req->comp_mask & IB_IIR_COMPMASK_ENUM) && cl_ntoh16(q->subscriber_enum) != nth))
			continue;
		ib_inform_info_record_t *r = sa_answer_add(a);
		if (!r)
			return;
		r->subscriber_gid = gid;
		r->subscriber_enum = cl_hton16(nth);
		ib_inform_info_t *ii = &r->inform_info;
		ii->gid = s->gid;
		ii->lid_range_begin = cl_hton16(s->lid_begin);
		ii->lid_range_end = cl_hton16(s->lid_end);
		ii->is_generic = s->generic;
		ii->subscribe = 1;
		ii->trap_type = cl_hton16(ANY);
		ii->g_or_v.generic.trap_num = cl_hton16(s->trap);
		ib_inform_info_set_qpn(ii, cl_hton32(s->qpn));
	}
}
