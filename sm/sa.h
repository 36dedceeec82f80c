/*
 * sa.h - the Subnet Administrator on fabricd's port: the queries hosts
 * make (class 0x03): PathRecord, the records of the fabric (nodes,
 * ports, switches, LFTs, links, the SM), ServiceRecords, InformInfo
 * subscriptions (with trap forwarding) and MCMemberRecords (sm/mcast.c);
 * other attributes are answered "unsupported".
 */
#ifndef SM_SA_H
#define SM_SA_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "routing/routing.h"
#include "sm/mad.h"
#include "sm/partition.h"

struct sm;

/* Records for one answer: as many as one MAD holds. */
struct sa_answer {
	uint8_t buf[IB_SA_DATA_SIZE];
	size_t size;		/* one record, rounded up to 8 bytes */
	unsigned n, max;
	bool overflow;		/* more matched than fit */
};

/*
 * The records of the fabric a NodeRecord, PortInfoRecord,
 * SwitchInfoRecord, LFTRecord, LinkRecord or SMInfoRecord query asks
 * for, filtered by its component mask; -1 for other attributes.
 */
int sa_records(const struct sm *sm, const ib_sa_mad_t *req, struct sa_answer *a);

/* ServiceRecords registered by hosts (sa_service.c). */
#define SA_MAX_SERVICES 1024
struct sa_services {
	struct sa_service {
		ib_service_record_t rec;
		uint64_t expires_ms;	/* 0: never */
	} *e;			/* allocated on first use */
	size_t n;
};
void sa_services_free(struct sa_services *st);
/* Set, Get, GetTable or Delete of a ServiceRecord. */
void sa_service_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);

/* InformInfo subscriptions to traps (sa_inform.c). */
#define SA_MAX_SUBSCRIPTIONS 256
struct sa_subscriptions {
	struct sa_subscription {
		ib_gid_t gid;		/* the subscriber's */
		uint16_t lid;		/* where Reports go */
		uint32_t qpn;
		uint16_t trap;		/* generic trap number, 0xffff: all */
		uint16_t lid_begin, lid_end;	/* issuers, 0xffff: any */
	} s[SA_MAX_SUBSCRIPTIONS];
	size_t n;
};
/* InformInfo Set: subscribe or unsubscribe. */
void sa_inform_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);
/* Reports a received trap's Notice to every subscriber it matches. */
void sa_inform_forward(struct sm *sm, const ib_mad_notice_attr_t *ntc);

/*
 * The status of a Get or GetTable that matched `matched` records, of which
 * `fits` go in one answer: a Get wants exactly one; a GetTable longer than
 * one MAD needs RMPP, which does not exist yet.
 */
ib_net16_t sa_query_status(uint8_t method, size_t matched, size_t fits);

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
