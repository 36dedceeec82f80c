/*
 * sa.h - the Subnet Administrator on fabricd's port: the queries hosts
 * make (class 0x03): PathRecord, the records of the fabric (nodes,
 * ports, switches, LFTs, links, the SM), ServiceRecords, InformInfo
 * subscriptions (with trap forwarding) and MCMemberRecords (sm/sa/mcast.c);
 * other attributes are answered "unsupported".
 */
#ifndef SM_SA_H
#define SM_SA_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "routing/routing.h"
#include "sm/mad/mad.h"
#include "sm/partition.h"
#include "sm/mad/rmpp.h"

struct sm;

/* The records of one answer, grown as they are added: a GetTable answer goes out by RMPP, however long. */
struct sa_answer {
	uint8_t *buf;
	size_t size;		/* one record, rounded up to 8 bytes */
	size_t n, cap;
	bool failed;		/* a record could not be stored: out of memory */
};
void sa_answer_init(struct sa_answer *a, size_t rec_size);
/* A zeroed record at the end of a, or NULL (and a->failed) when memory runs out. */
void *sa_answer_add(struct sa_answer *a);
/*
 * Answers a Get, GetTable or GetMulti with the records in a, and frees
 * them: a Get wants exactly one (else NO_RECORDS or TOO_MANY_RECORDS),
 * the others get every one.
 */
void sa_answer_send(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from, struct sa_answer *a);

/*
 * Answers req with status and n records of rec_size bytes: a GetTable or
 * GetMulti by RMPP, whatever the length; any other method in one MAD (at most
 * IB_SA_DATA_SIZE bytes of records). status is in network order
 * (IB_SA_MAD_STATUS_*, IB_MAD_STATUS_*).
 */
void sa_respond(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from, ib_net16_t status,
		const void *records, size_t rec_size, size_t n);

/*
 * Fills a with the records of the fabric a NodeRecord, PortInfoRecord,
 * SwitchInfoRecord, LFTRecord, LinkRecord or SMInfoRecord query asks
 * for, filtered by its component mask; -1 for other attributes.
 */
int sa_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a);

/* The port GUID of the requester (by its source LID in the published fabric); 0 if unknown. */
uint64_t sa_requester(const struct sm *sm, const struct mad_origin *from);
/* A P_Key both ports hold, not limited at both ends (IBA: two limited members cannot talk), want if given; 0 if none. */
uint16_t sa_shared_pkey(const struct partitions *ps, const struct node *a, uint8_t pa, const struct node *b,
			uint8_t pb, uint16_t want);
/* Whether the end ports with these GUIDs share a partition in which they can talk (not both limited). */
bool sa_share_partition(const struct sm *sm, uint64_t port_a, uint64_t port_b);
/* The link rate code and the neighbour MTU code of port (n, p) as its PortInfo reports them. */
uint8_t sa_port_rate(const struct node *n, uint8_t p);
uint8_t sa_port_mtu(const struct node *n, uint8_t p);
/* The request carries the configured SM_Key: it may act for other ports. */
bool sa_trusted(const struct sm *sm, const ib_sa_mad_t *req);
/* Whether a refusal of from's request may be logged (a few a minute per source: no log floods). */
bool sa_may_log(struct sm *sm, const struct mad_origin *from);

/* ServiceRecords registered by hosts (sa_service.c). */
#define SA_MAX_SERVICES 1024
struct sa_services {
	struct sa_service {
		ib_service_record_t rec;
		uint64_t owner;		/* the port GUID that registered it */
		uint64_t expires_ms;
	} *e;			/* allocated on first use */
	size_t n;
	bool unsaved;		/* the database did not take the last change: written again at the next request */
};
void sa_services_free(struct sa_services *st);
/* The ServiceRecords stored by an earlier run that have not expired (logged, not fatal, if unreadable). */
void sa_services_load(struct sm *sm);
/* Stores the ServiceRecords if a change is not stored yet (the database was busy or failing). */
void sa_services_store_pending(struct sm *sm);
/* Set, Get, GetTable or Delete of a ServiceRecord. */
void sa_service_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);

/* InformInfo subscriptions to traps (sa_inform.c). */
#define SA_MAX_SUBSCRIPTIONS 256
struct sa_subscriptions {
	struct sa_subscription {
		ib_gid_t gid;		/* the subscriber's */
		uint16_t lid;		/* where Reports go */
		uint32_t qpn;
		bool generic;		/* generic traps; else vendor traps by device ID */
		uint16_t trap;		/* generic trap number or vendor device ID, 0xffff: all */
		uint16_t lid_begin, lid_end;	/* issuers, 0xffff: any */
		uint64_t owner;		/* the port GUID that subscribed */
	} s[SA_MAX_SUBSCRIPTIONS];
	size_t n;
};
/* InformInfo Set: subscribe or unsubscribe. */
void sa_inform_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);
/* The InformInfoRecords of the subscriptions, filtered by SubscriberGID and Enum. */
void sa_inform_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a);
/* Reports a received trap's Notice to every subscriber it matches. */
void sa_inform_forward(struct sm *sm, const ib_mad_notice_attr_t *ntc);

/* The status of a Get (or Delete) that matched `matched` records: it wants exactly one. */
ib_net16_t sa_get_status(size_t matched);

/* Answers one SA request (the whole MAD as received). */
void sa_handle(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);

/*
 * The PathRecord from the port with LID slid to the one with dlid, from
 * the fabric and the tables programmed: the hops the LFTs give, the SL
 * (the VL layer that keeps the path deadlock-free), the smallest MTU and
 * rate on the way, a P_Key both ports share (pkey 0: any). Returns 0,
 * 1 when no such path exists (no route, no shared partition), or -1 for
 * unknown LIDs.
 */
int sa_path_record(const struct fabric *f, const struct routing_tables *t, const struct partitions *ps,
		   uint64_t subnet_prefix, uint8_t packet_life, uint16_t slid, uint16_t dlid, uint16_t pkey,
		   ib_path_rec_t *out);

#endif
