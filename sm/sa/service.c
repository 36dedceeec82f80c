/*
 * DOC: ServiceRecords
 *
 * Services hosts register with the SA (SubnAdmSet), look up (Get,
 * GetTable) and withdraw (SubnAdmDelete). A record is identified by its
 * ServiceID, ServiceGID and ServiceP_Key: a Set with the same three
 * replaces it. Queries and deletes match the ServiceKey too when the
 * component mask selects it. ServiceLease is in seconds, cut to sa.max_lease_s (an
 * "infinite" 0xffffffff too: the answer carries the lease granted);
 * expired records are dropped when the store is next touched. Queries
 * match the ServiceID, GID, P_Key and name fields the component mask
 * selects. The store lives in memory and in the database (db/services.c),
 * written whenever a Set or Delete changes it and read at start, leases
 * running on: hosts need not register again after fabricd restarts. A
 * database another process holds is not waited for; the next request
 * writes the store again. The ServiceKey a host sets is kept but never
 * sent back: every answer carries it zeroed, as clients expect.
 *
 * A port registers services of its own GID only, holds at most
 * sa.services_per_port of them, and deletes only its own (a client with
 * the SM_Key is exempt): one host can neither fill the store nor withdraw
 * another's service.
 */
#include "sm/sa/sa.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sm/mad/evloop.h"
#include "sm/log.h"
#include "sm/sm.h"
#include "topology/text.h"

static void expire(struct sa_services *st)
{
	uint64_t now = evl_now_ms();
	for (size_t i = 0; i < st->n;)
		if (st->e[i].expires_ms <= now)
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
	       (!(m & IB_SR_COMPMASK_SKEY) || memcmp(q->service_key, r->service_key, sizeof(q->service_key)) == 0) &&
	       (!(m & IB_SR_COMPMASK_SNAME) || memcmp(q->service_name, r->service_name, sizeof(q->service_name)) == 0);
}

_Static_assert(sizeof(ib_service_record_t) == DB_SERVICE_RECORD_LEN, "a stored ServiceRecord is the attribute");

/* Writes the whole store to the database; a failure is logged once, and the next request writes again. */
static void persist(struct sm *sm)
{
	struct sa_services *st = &sm->sa.services;
	if (sm->db_busy) {	/* a sweep's store holds the database: stored once it is done */
		st->unsaved = true;
		return;
	}
	struct db_service *rows = calloc(st->n + 1, sizeof(*rows));
	double now = (double)time(NULL);
	uint64_t now_ms = evl_now_ms();
	for (size_t i = 0; rows && i < st->n; i++) {
		memcpy(rows[i].record, &st->e[i].rec, DB_SERVICE_RECORD_LEN);
		rows[i].owner = st->e[i].owner;
		rows[i].expires = now + (double)(st->e[i].expires_ms - now_ms) / 1000.0;
	}
	bool was_unsaved = st->unsaved;
	st->unsaved = !rows || db_save_services(sm->db, rows, st->n) < 0;
	free(rows);
	if (!st->unsaved)
		sm_db_written(sm);
	if (st->unsaved && !was_unsaved)
		log_warn("sa: ServiceRecords not stored (%s): they are answered from memory and stored at the next "
			 "request", rows ? db_last_error(sm->db) : "out of memory");
	else if (was_unsaved && !st->unsaved)
		log_info("sa: the ServiceRecords are stored again");
}

void sa_services_store_pending(struct sm *sm)
{
	if (sm->sa.services.unsaved)
		persist(sm);
}

void sa_services_load(struct sm *sm)
{
	struct sa_services *st = &sm->sa.services;
	struct db_service *rows;
	size_t n;
	if (db_load_services(sm->db, &rows, &n) < 0) {
		log_warn("sa: the stored ServiceRecords cannot be read (%s): hosts must register again",
			 db_last_error(sm->db));
		return;
	}
	if (n && !st->e && !(st->e = calloc(SA_MAX_SERVICES, sizeof(*st->e)))) {
		log_warn("sa: no memory for the stored ServiceRecords: hosts must register again");
		free(rows);
		return;
	}
	double now = (double)time(NULL);
	for (size_t i = 0; i < n && st->n < SA_MAX_SERVICES; i++) {
		struct sa_service *e = &st->e[st->n++];
		memcpy(&e->rec, rows[i].record, sizeof(e->rec));
		e->owner = rows[i].owner;
		e->expires_ms = evl_now_ms() + (uint64_t)((rows[i].expires - now) * 1000.0);
	}
	free(rows);
	if (n)
		log_info("sa: %zu ServiceRecords registered before the restart, leases running on", st->n);
}

void sa_services_free(struct sa_services *st)
{
	free(st->e);
	memset(st, 0, sizeof(*st));
}

/*
 * Set: add or replace *rec (its lease cut to what is granted) for owner;
 * the status, and in *why what a refusal means.
 */
static ib_net16_t set(struct sa_services *st, ib_service_record_t *rec, uint64_t owner, bool trusted,
		      const struct fabricd_config *cfg, const char **why)
{
	if (!trusted && cl_ntoh64(rec->service_gid.unicast.interface_id) != owner) {
		*why = "its ServiceGID is not the requester's port";
		return IB_SA_MAD_STATUS_REQ_INVALID;
	}
	size_t i = 0, owned = 0;
	while (i < st->n && !same_key(&st->e[i].rec, rec))
		owned += st->e[i++].owner == owner;
	for (size_t j = i; j < st->n; j++)
		owned += st->e[j].owner == owner && j != i;
	if (i == st->n) {
		*why = !trusted && owned >= cfg->sa_services_per_port ? "the port holds its quota (sa.services_per_port)"
		       : st->n == SA_MAX_SERVICES ? "store full" : NULL;
		if (*why)
			return IB_SA_MAD_STATUS_NO_RESOURCES;
		st->n++;
	}
	uint32_t lease = cl_ntoh32(rec->service_lease);
	if (lease > cfg->sa_max_lease_s)
		lease = cfg->sa_max_lease_s;
	rec->service_lease = cl_hton32(lease);
	st->e[i] = (struct sa_service){ *rec, owner, evl_now_ms() + (uint64_t)lease * 1000 };
	return 0;
}

void sa_service_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from)
{
	struct sa_services *st = &sm->sa.services;
	const ib_service_record_t *q = (const ib_service_record_t *)req->data;
	if (!st->e && !(st->e = calloc(SA_MAX_SERVICES, sizeof(*st->e)))) {
		sa_respond(sm, req, from, IB_SA_MAD_STATUS_NO_RESOURCES, NULL, 0, 0);
		return;
	}
	expire(st);
	if (st->unsaved)
		persist(sm);
	uint64_t owner = sa_requester(sm, from);
	bool trusted = sa_trusted(sm, req);
	if (req->method == IB_MAD_METHOD_SET) {
		ib_service_record_t rec = *q;
		const char *why = NULL;
		ib_net16_t status = set(st, &rec, owner, trusted, &sm->cfg, &why);
		char name[sizeof(q->service_name) + 1];	/* a host chooses it: no control characters in the log */
		text_clean(name, (const char *)q->service_name, sizeof(q->service_name));
		if (!why || sa_may_log(sm, from))
			log_info("sa: ServiceRecord 0x%016llx \"%s\" from port 0x%016llx %s%s",
				 (unsigned long long)cl_ntoh64(q->service_id), name, (unsigned long long)owner,
				 why ? "refused: " : "registered", why ? why : "");
		if (!status)
			persist(sm);
		memset(rec.service_key, 0, sizeof(rec.service_key));	/* the key proves ownership: never sent back */
		sa_respond(sm, req, from, status, &rec, sizeof(rec), status ? 0 : 1);
		return;
	}
	if (req->method == IB_MAD_METHOD_DELETE) {
		size_t n = 0, first = SIZE_MAX;
		for (size_t i = 0; i < st->n; i++)	/* a port withdraws its own services only */
			if ((trusted || st->e[i].owner == owner) && matches(req, q, &st->e[i].rec) && n++ == 0)
				first = i;
		ib_service_record_t found = n ? st->e[first].rec : *q;
		if (n == 1) {
			char name[sizeof(found.service_name) + 1];
			text_clean(name, (const char *)found.service_name, sizeof(found.service_name));
			log_info("sa: ServiceRecord 0x%016llx \"%s\" deleted", (unsigned long long)cl_ntoh64(found.service_id),
				 name);
			st->e[first] = st->e[--st->n];
			persist(sm);
		}
		ib_net16_t status = sa_get_status(n);	/* one, as for a Get */
		memset(found.service_key, 0, sizeof(found.service_key));
		sa_respond(sm, req, from, status, &found, sizeof(found), status ? 0 : 1);
		return;
	}
	struct sa_answer a;
	sa_answer_init(&a, sizeof(ib_service_record_t));
	for (size_t i = 0; i < st->n; i++) {
		ib_service_record_t *r = matches(req, q, &st->e[i].rec) ? sa_answer_add(&a) : NULL;
		if (r) {
			*r = st->e[i].rec;
			memset(r->service_key, 0, sizeof(r->service_key));
		}
	}
	sa_answer_send(sm, req, from, &a);
}
