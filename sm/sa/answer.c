/*
 * DOC: SA answers
 *
 * What every SA handler answers with: one MAD (Get, Set, Delete), an RMPP
 * transfer (GetTable, GetMulti; sm/mad/rmpp.c), the status a Get's match count
 * means, and who asks (the requester's port, whether it holds the SM_Key,
 * whether one more refusal of its may be logged). The handlers call these;
 * these call none of them (sm/sa/sa.c dispatches).
 */
#include "sm/sa/sa.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/sm.h"

ib_net16_t sa_get_status(size_t matched)
{
	return matched == 1 ? 0 : matched ? IB_SA_MAD_STATUS_TOO_MANY_RECORDS : IB_SA_MAD_STATUS_NO_RECORDS;
}

void sa_answer_init(struct sa_answer *a, size_t rec_size)
{
	memset(a, 0, sizeof(*a));
	a->size = (rec_size + 7) & ~(size_t)7;	/* records are spaced in 8-byte words */
}

void *sa_answer_add(struct sa_answer *a)
{
	if (a->failed)
		return NULL;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		uint8_t *buf = realloc(a->buf, cap * a->size);
		if (!buf) {
			a->failed = true;
			return NULL;
		}
		a->buf = buf;
		a->cap = cap;
	}
	void *r = a->buf + a->n++ * a->size;
	memset(r, 0, a->size);
	return r;
}

void sa_answer_send(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from, struct sa_answer *a)
{
	ib_net16_t status = a->failed ? IB_SA_MAD_STATUS_NO_RESOURCES
			    : req->method == IB_MAD_METHOD_GET ? sa_get_status(a->n) : 0;
	if (a->failed)
		log_warn("sa: out of memory answering a query for attribute 0x%04x", cl_ntoh16(req->attr_id));
	sa_respond(sm, req, from, status, a->buf, a->size, status ? 0 : a->n);
	free(a->buf);
	a->buf = NULL;
}

void sa_respond(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from, ib_net16_t status,
		const void *records, size_t rec_size, size_t n)
{
	ib_sa_mad_t m;
	memcpy(&m, req, IB_SA_MAD_HDR_SIZE);
	memset(m.data, 0, sizeof(m.data));
	m.status = status;
	m.attr_offset = cl_hton16((uint16_t)(rec_size / 8));	/* in 8-byte words */
	m.rmpp_version = m.rmpp_type = m.rmpp_flags = m.rmpp_status = 0;
	m.seg_num = m.paylen_newwin = 0;
	if (req->method == IB_MAD_METHOD_GETTABLE || req->method == IB_MAD_METHOD_GETMULTI) {
		m.method = (uint8_t)(req->method | IB_MAD_METHOD_RESP_MASK);
		if (rmpp_send(sm->rmpp, &m, from, records, n * rec_size) == 0)
			return;
		log_warn("sa: cannot start an RMPP answer to LID %u (%zu records): too many at once", from->slid, n);
		m.status = IB_SA_MAD_STATUS_NO_RESOURCES;
		rmpp_send(sm->rmpp, &m, from, NULL, 0);	/* one segment: needs no transfer state */
		return;
	}
	m.method = (uint8_t)(req->method | IB_MAD_METHOD_RESP_MASK);
	if (n * rec_size > sizeof(m.data))
		n = 0;	/* a caller's bug: never more than one MAD here */
	if (n)
		memcpy(m.data, records, n * rec_size);
	mad_send_gsi(sm->mp, &m, from);
}

uint64_t sa_requester(const struct sm *sm, const struct mad_origin *from)
{
	uint8_t port = 0;
	const struct sm_snapshot *pub = sm_published(sm);
	const struct node *n = pub ? fabric_find_lid(&pub->fabric, from->slid, &port) : NULL;	/* none for LID 0, mcast */
	return n ? fabric_port_guid(n, port) : 0;
}

bool sa_trusted(const struct sm *sm, const ib_sa_mad_t *req)
{
	return sm->cfg.sm_key && cl_ntoh64(req->sm_key) == sm->cfg.sm_key;
}

bool sa_may_log(struct sm *sm, const struct mad_origin *from)
{
	enum budget_verdict v = budget_charge(&sm->sa.log_budget, from->slid, evl_now_ms());
	if (v == BUDGET_FIRST_OVER)
		log_warn("sa: more refusals for LID %u this minute: not logged", from->slid);
	return v == BUDGET_OK;
}
