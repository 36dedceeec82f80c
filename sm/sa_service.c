/*
 * DOC: ServiceRecords
 *
 * Services hosts register with the SA (SubnAdmSet), look up (Get,
 * GetTable) and withdraw (SubnAdmDelete). A record is identified by its
 * ServiceID, ServiceGID and ServiceP_Key: a Set with the same three
 * replaces it. ServiceLease is in seconds (0xffffffff: forever); expired
 * records are dropped when the store is next touched. Queries match the
 * ServiceID, GID, P_Key and name fields the component mask selects. The
 * store lives in memory: hosts re-register after an SM restart, as the
 * IBA expects of them.
 */
#include "sm/sa.h"

#include <stdlib.h>
#include <string.h>

#include "sm/evloop.h"
#include "sm/log.h"
#include "sm/sm.h"

#define LEASE_FOREVER 0xffffffffu

static void expire(struct sa_services *st)
{
	uint64_t now = evl_now_ms();
	for (size_t i = 0; i < st->n;)
		if (st->e[i].expires_ms && st->e[i].expires_ms <= now)
			st->e[i] = st->e[--st->n];
		else
			i++;
}

static bool same_key(const ib_service_record_t *a, const ib_service_record_t *b)
{
	return a->service_id == b->service_id && a->service_pkey == b->service_pkey &&
	       memcmp(&a->service_gid, &b->service_gid, sizeof(a->service_gid)) == 0;
}

static bool matches(const ib_sa_mad_t *req, const ib_service_record_t *q, const ib_service_record_t *r)
{
	ib_net64_t m = req->comp_mask;
	return (!(m & IB_SR_COMPMASK_SID) || q->service_id == r->service_id) &&
	       (!(m & IB_SR_COMPMASK_SGID) || memcmp(&q->service_gid, &r->service_gid, sizeof(q->service_gid)) == 0) &&
	       (!(m & IB_SR_COMPMASK_SPKEY) || q->service_pkey == r->service_pkey) &&
	       (!(m & IB_SR_COMPMASK_SNAME) || memcmp(q->service_name, r->service_name, sizeof(q->service_name)) == 0);
}

void sa_services_free(struct sa_services *st)
{
	free(st->e);
	memset(st, 0, sizeof(*st));
}

/* Set: add or replace; the answer is the record as stored. */
static ib_net16_t set(struct sa_services *st, const ib_service_record_t *rec)
{
	size_t i = 0;
	while (i < st->n && !same_key(&st->e[i].rec, rec))
		i++;
	if (i == st->n) {
		if (st->n == SA_MAX_SERVICES)
			return IB_SA_MAD_STATUS_NO_RESOURCES;
		st->n++;
	}
	uint32_t lease = cl_ntoh32(rec->service_lease);
	st->e[i].rec = *rec;
	st->e[i].expires_ms = lease == LEASE_FOREVER ? 0 : evl_now_ms() + (uint64_t)lease * 1000;
	return 0;
}

void sa_service_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	struct sa_services *st = &sm->services;
	const ib_service_record_t *q = (const ib_service_record_t *)req->data;
	if (!st->e && !(st->e = calloc(SA_MAX_SERVICES, sizeof(*st->e)))) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_NO_RESOURCES, NULL, 0, 0);
		return;
	}
	expire(st);
	if (req->method == IB_MAD_METHOD_SET) {
		ib_net16_t status = set(st, q);
		log_info("sa: ServiceRecord 0x%016llx \"%.64s\" %s", (unsigned long long)cl_ntoh64(q->service_id),
			 (const char *)q->service_name, status ? "refused: store full" : "registered");
		sa_respond(sm, req, from, status, q, sizeof(*q), status ? 0 : 1);
		return;
	}
	if (req->method == IB_MAD_METHOD_DELETE) {
		size_t n = 0, first = SIZE_MAX;
		for (size_t i = 0; i < st->n; i++)
			if (matches(req, q, &st->e[i].rec) && n++ == 0)
				first = i;
		ib_service_record_t found = n ? st->e[first].rec : *q;
		if (n == 1) {
			log_info("sa: ServiceRecord 0x%016llx \"%.64s\" deleted",
				 (unsigned long long)cl_ntoh64(found.service_id), (const char *)found.service_name);
			st->e[first] = st->e[--st->n];
		}
		ib_net16_t status = sa_get_status(n);	/* one, as for a Get */
		sa_respond(sm, req, from, status, &found, sizeof(found), status ? 0 : 1);
		return;
	}
	struct sa_answer a;
	sa_answer_init(&a, sizeof(ib_service_record_t));
	for (size_t i = 0; i < st->n; i++) {
		ib_service_record_t *r = matches(req, q, &st->e[i].rec) ? sa_answer_add(&a) : NULL;
		if (r)
			*r = st->e[i].rec;
	}
	sa_answer_send(sm, req, from, &a);
}
