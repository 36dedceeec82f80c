/*
 * sa-client - a host at the SA its port knows, for the SA requests
 * saquery cannot make, in the integration tests:
 *
 *   sa-client set ID NAME LEASE_S | get ID | delete ID NAME
 *   sa-client subscribe TRAP WAIT_S
 *   sa-client join | leave    (the IPoIB broadcast group, full member)
 *   sa-client multipath SGUID[,SGUID...] DGUID[,DGUID...] [NUMBPATH]
 *   sa-client path SLID DLID [mtu=SEL:CODE] [rate=SEL:CODE] [life=SEL:VAL] [sl=N] [tclass=N]
 *
 * set/get/delete: a ServiceRecord whose GID is this port's (fe80::/64 and
 * the port GUID), P_Key 0xffff; prints the answer's status and, for get,
 * the name. subscribe: InformInfo for generic trap TRAP from any LID,
 * then waits up to WAIT_S seconds for the SA's Report of one, prints
 * "report trap N" and answers ReportResp. multipath: a GetMulti of a
 * MultiPathRecord for those port GUIDs (fe80::/64, up to 64), sent as
 * the RMPP request it must be (one segment up to 11 GIDs, else left to
 * the kernel to cut, as libibumad clients do); prints the status, the count and a
 * line "SLID DLID SL" per PathRecord of the answer (run it with the RMPP
 * shim in front of umad2sim: the answer is RMPP). Exits 0 when the SA said
 * 0 (and, for subscribe, a Report came). path: a PathRecord Get by LIDs
 * with those selectors (SEL 0 greater, 1 less, 2 exactly, 3 largest) in
 * the component mask, which saquery cannot send; prints the status and
 * "mtu M rate R life L sl S tclass T" of the answer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#include "sa_header.h"

#define QKEY 0x80010000	/* QP1's well-known Q_Key, host order */

static volatile sig_atomic_t exit_code;

static void leave_now(int sig)
{
	(void)sig;
	_exit(exit_code);
}

/*
 * Leaves through umad2sim's exit handler, which gives ibsim its client slot
 * back (ibsim has ten: leaked ones made later tools fail to attach). That
 * handler joins its receive thread, which can deadlock when a MAD is still
 * in flight (our ReportResp, or an SM's SMInfo Get to a subscriber holding
 * issm): after a second the process leaves without it.
 */
static int finish(int code)
{
	fflush(stdout);
	fflush(stderr);
	exit_code = code;
	signal(SIGALRM, leave_now);
	alarm(1);
	exit(code);
}

/* Puts the comma-separated port GUIDs of list into gids as link-local GIDs; returns how many. */
static unsigned parse_gids(char *list, ib_gid_t *gids, unsigned room)
{
	unsigned n = 0;
	for (char *g = strtok(list, ","); g && n < room; g = strtok(NULL, ","), n++) {
		gids[n].unicast.prefix = cl_hton64(0xfe80000000000000ULL);
		gids[n].unicast.interface_id = cl_hton64(strtoull(g, NULL, 0));
	}
	return n;
}

#define MULTIPATH_GIDS 64	/* more than one segment holds (11): the request goes as several */

static int multipath(int fd, int agent, uint16_t sm_lid, char **argv, int argc)
{
	static uint8_t req[sizeof(struct ib_user_mad) + IB_SA_MAD_HDR_SIZE + sizeof(ib_multipath_rec_t) +
			   MULTIPATH_GIDS * sizeof(ib_gid_t)];
	ib_sa_mad_t *sa = (ib_sa_mad_t *)umad_get_mad(req);
	ib_multipath_rec_t *mpr = (ib_multipath_rec_t *)sa->data;
	ib_gid_t *gids = (ib_gid_t *)(sa->data + offsetof(ib_multipath_rec_t, gids));
	sa_header(sa, IB_MAD_METHOD_GETMULTI, IB_MAD_ATTR_MULTIPATH_RECORD, 0x5b);
	mpr->sgid_count = (uint8_t)parse_gids(argv[2], gids, MULTIPATH_GIDS);
	mpr->dgid_count = (uint8_t)parse_gids(argv[3], gids + mpr->sgid_count, MULTIPATH_GIDS - mpr->sgid_count);
	sa->comp_mask = IB_MPR_COMPMASK_SGIDCOUNT | IB_MPR_COMPMASK_DGIDCOUNT;
	if (argc == 5) {
		mpr->num_path = (uint8_t)strtoul(argv[4], NULL, 0);
		sa->comp_mask |= IB_MPR_COMPMASK_NUMBPATH;
	}
	size_t data = offsetof(ib_multipath_rec_t, gids) + (mpr->sgid_count + mpr->dgid_count) * sizeof(ib_gid_t);
	size_t req_len = data <= IB_SA_DATA_SIZE ? sizeof(ib_sa_mad_t) : IB_SA_MAD_HDR_SIZE + data;
	/* GetMulti goes as RMPP: one segment, first and last, or left to the kernel to cut */
	sa->rmpp_version = 1;
	sa->rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	if (req_len == sizeof(ib_sa_mad_t)) {
		sa->rmpp_type = IB_RMPP_TYPE_DATA;
		sa->rmpp_flags |= IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
		sa->seg_num = cl_hton32(1);
		sa->paylen_newwin = cl_hton32((uint32_t)(20 + data));
	}
	umad_set_addr(req, sm_lid, 1, 0, QKEY);
	if (umad_send(fd, agent, req, (int)req_len, 0, 0) < 0) {
		fprintf(stderr, "sa-client: send failed\n");
		return 1;
	}
	int len = sizeof(ib_sa_mad_t);
	uint8_t *buf = malloc(sizeof(struct ib_user_mad) + (size_t)len);
	for (;;) {
		int rc = buf ? umad_recv(fd, buf, &len, 5000) : -1;
		if (rc < 0 && errno == ENOSPC && (buf = realloc(buf, sizeof(struct ib_user_mad) + (size_t)len)))
			continue;
		if (rc < 0) {
			fprintf(stderr, "sa-client: no answer within 5 s\n");
			return 1;
		}
		sa = (ib_sa_mad_t *)umad_get_mad(buf);
		if (!(sa->rmpp_flags & IB_RMPP_FLAG_ACTIVE) || sa->rmpp_type == IB_RMPP_TYPE_DATA)
			break;	/* not the SA's ACK of the request: the answer */
		len = sizeof(ib_sa_mad_t);
	}
	size_t size = (size_t)cl_ntoh16(sa->attr_offset) * 8;
	size_t n = size && len > (int)IB_SA_MAD_HDR_SIZE ? (len - IB_SA_MAD_HDR_SIZE) / size : 0;
	printf("status 0x%04x paths %zu\n", cl_ntoh16(sa->status), n);
	for (size_t i = 0; i < n; i++) {
		const ib_path_rec_t *pr = (const ib_path_rec_t *)(sa->data + i * size);
		printf("%u %u %u\n", cl_ntoh16(pr->slid), cl_ntoh16(pr->dlid), ib_path_rec_sl(pr));
	}
	return sa->status ? 1 : 0;
}

/* Sets the PathRecord field of one "name=..." argument and its mask bits; false if not one. */
static bool path_selector(const char *arg, ib_path_rec_t *pr, ib_net64_t *mask)
{
	unsigned sel, val;
	if (sscanf(arg, "mtu=%u:%u", &sel, &val) == 2 && sel < 4 && val < 64) {
		pr->mtu = (uint8_t)(sel << 6 | val);
		*mask |= IB_PR_COMPMASK_MTU | IB_PR_COMPMASK_MTUSELEC;
	} else if (sscanf(arg, "rate=%u:%u", &sel, &val) == 2 && sel < 4 && val < 64) {
		pr->rate = (uint8_t)(sel << 6 | val);
		*mask |= IB_PR_COMPMASK_RATE | IB_PR_COMPMASK_RATESELEC;
	} else if (sscanf(arg, "life=%u:%u", &sel, &val) == 2 && sel < 4 && val < 64) {
		pr->pkt_life = (uint8_t)(sel << 6 | val);
		*mask |= IB_PR_COMPMASK_PKTLIFETIME | IB_PR_COMPMASK_PKTLIFETIMESELEC;
	} else if (sscanf(arg, "sl=%u", &val) == 1 && val < 16) {
		pr->qos_class_sl = cl_hton16((uint16_t)val);
		*mask |= IB_PR_COMPMASK_SL;
	} else if (sscanf(arg, "tclass=%u", &val) == 1 && val < 256) {
		pr->tclass = (uint8_t)val;
		*mask |= IB_PR_COMPMASK_TCLASS;
	} else {
		return false;
	}
	return true;
}

static int path(int fd, int agent, uint16_t sm_lid, char **argv, int argc)
{
	uint8_t buf[sizeof(struct ib_user_mad) + sizeof(ib_sa_mad_t)] = { 0 };
	ib_sa_mad_t *sa = (ib_sa_mad_t *)umad_get_mad(buf);
	ib_path_rec_t *pr = (ib_path_rec_t *)sa->data;
	sa_header(sa, IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, 0x5c);
	pr->slid = cl_hton16((uint16_t)strtoul(argv[2], NULL, 0));
	pr->dlid = cl_hton16((uint16_t)strtoul(argv[3], NULL, 0));
	ib_net64_t mask = IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID;
	for (int i = 4; i < argc; i++)
		if (!path_selector(argv[i], pr, &mask)) {
			fprintf(stderr, "sa-client: '%s' is not mtu=, rate=, life=SEL:VAL, sl= or tclass=N\n", argv[i]);
			return 2;
		}
	sa->comp_mask = mask;
	umad_set_addr(buf, sm_lid, 1, 0, QKEY);
	int len = sizeof(ib_sa_mad_t);
	if (umad_send(fd, agent, buf, len, 0, 0) < 0 || umad_recv(fd, buf, &len, 5000) < 0) {
		fprintf(stderr, "sa-client: no answer within 5 s\n");
		return 1;
	}
	printf("status 0x%04x", cl_ntoh16(sa->status));
	if (!sa->status)
		printf(" mtu %u rate %u life %u sl %u tclass %u", pr->mtu & 0x3f, pr->rate & 0x3f, pr->pkt_life & 0x3f,
		       ib_path_rec_sl(pr), pr->tclass);
	printf("\n");
	return sa->status ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool group = argc == 2 && (strcmp(argv[1], "join") == 0 || strcmp(argv[1], "leave") == 0);
	if ((argc < 3 && !group) || (strcmp(argv[1], "set") == 0 && argc != 5) ||
	    (strcmp(argv[1], "delete") == 0 && argc != 4) || (strcmp(argv[1], "subscribe") == 0 && argc != 4) ||
	    (strcmp(argv[1], "multipath") == 0 && argc != 4 && argc != 5) || (strcmp(argv[1], "path") == 0 && argc < 4)) {
		fprintf(stderr, "usage: sa-client set ID NAME LEASE_S | get ID | delete ID NAME | subscribe TRAP WAIT_S |"
				" join | leave | multipath SGUID[,...] DGUID[,...] [NUMBPATH] |"
				" path SLID DLID [mtu=|rate=|life=SEL:VAL] [sl=|tclass=N]...\n");
		return 2;
	}
	bool subscribe = strcmp(argv[1], "subscribe") == 0;
	long methods[16 / sizeof(long)] = { 1L << IB_MAD_METHOD_REPORT };	/* Reports arrive unasked */
	umad_port_t port;
	int fd, agent;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 || (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_MCLASS_SUBN_ADM, 2, 0, subscribe ? methods : NULL)) < 0) {
		fprintf(stderr, "sa-client: cannot open a port with an SA agent\n");
		return finish(1);
	}
	/*
	 * ibsim hands requests on QP1 (a Report is one) only to clients that
	 * hold the issm device, so a subscriber holds it (real HCAs need no
	 * such thing). Then SMs send it SMPs too (SMInfo), and umad2sim crashes
	 * on a MAD of a class nobody registered: take them, and ignore them.
	 */
	char issm[256];
	long smps[16 / sizeof(long)] = { 1L << IB_MAD_METHOD_GET | 1L << IB_MAD_METHOD_SET };
	if (subscribe && (umad_register(fd, IB_MCLASS_SUBN_DIR, 1, 0, smps) < 0 ||
			  umad_register(fd, IB_MCLASS_SUBN_LID, 1, 0, smps) < 0 ||
			  umad_get_issm_path(port.ca_name, port.portnum, issm, sizeof(issm)) < 0 || open(issm, O_RDWR) < 0))
		fprintf(stderr, "sa-client: no issm device: Reports may not reach this client\n");
	if (strcmp(argv[1], "multipath") == 0)
		return finish(multipath(fd, agent, (uint16_t)port.sm_lid, argv, argc));
	if (strcmp(argv[1], "path") == 0)
		return finish(path(fd, agent, (uint16_t)port.sm_lid, argv, argc));
	uint8_t buf[sizeof(struct ib_user_mad) + 2048] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)umad_get_mad(umad);
	ib_service_record_t *sr = (ib_service_record_t *)sa->data;
	sa_header(sa, 0, IB_MAD_ATTR_SERVICE_RECORD, 0x5a);	/* the method below */
	sr->service_id = cl_hton64(group ? 0 : strtoull(argv[2], NULL, 0));
	sr->service_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	sr->service_gid.unicast.interface_id = port.port_guid;	/* network order already */
	sr->service_pkey = cl_hton16(0xffff);
	sa->comp_mask = IB_SR_COMPMASK_SID;
	if (group) {
		static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
		ib_member_rec_t *mr = (ib_member_rec_t *)sa->data;
		memset(mr, 0, sizeof(*mr));
		sa->attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
		sa->method = argv[1][0] == 'j' ? IB_MAD_METHOD_SET : IB_MAD_METHOD_DELETE;
		memcpy(mr->mgid.raw, bcast, sizeof(bcast));
		mr->port_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
		mr->port_gid.unicast.interface_id = port.port_guid;
		mr->scope_state = 1;	/* full member */
		sa->comp_mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE;
	} else if (subscribe) {
		ib_inform_info_t *ii = (ib_inform_info_t *)sa->data;
		memset(ii, 0, sizeof(*ii));
		sa->attr_id = IB_MAD_ATTR_INFORM_INFO;
		sa->method = IB_MAD_METHOD_SET;
		sa->comp_mask = 0;
		ii->lid_range_begin = 0xffff;
		ii->is_generic = 1;
		ii->subscribe = 1;
		ii->trap_type = 0xffff;
		ii->g_or_v.generic.trap_num = cl_hton16((uint16_t)strtoul(argv[2], NULL, 0));
	} else if (strcmp(argv[1], "set") == 0) {
		sa->method = IB_MAD_METHOD_SET;
		snprintf((char *)sr->service_name, sizeof(sr->service_name), "%s", argv[3]);
		sr->service_lease = cl_hton32((uint32_t)strtoul(argv[4], NULL, 0));
		sa->comp_mask = IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SPKEY | IB_SR_COMPMASK_SNAME |
				IB_SR_COMPMASK_SLEASE;
	} else if (strcmp(argv[1], "delete") == 0) {
		sa->method = IB_MAD_METHOD_DELETE;
		snprintf((char *)sr->service_name, sizeof(sr->service_name), "%s", argv[3]);
		sa->comp_mask |= IB_SR_COMPMASK_SNAME;
	} else {
		sa->method = IB_MAD_METHOD_GET;
	}
	umad_set_addr(umad, (int)port.sm_lid, 1, 0, QKEY);
	if (umad_send(fd, agent, umad, sizeof(ib_sa_mad_t), 0, 0) < 0) {
		fprintf(stderr, "sa-client: send failed\n");
		return finish(1);
	}
	int len = sizeof(buf) - sizeof(struct ib_user_mad);
	if (umad_recv(fd, buf, &len, 5000) < 0) {
		fprintf(stderr, "sa-client: no answer within 5 s\n");
		return finish(1);
	}
	unsigned status = cl_ntoh16(sa->status);
	printf("status 0x%04x", status);
	if (!status && strcmp(argv[1], "get") == 0)
		printf(" name %.64s", (const char *)sr->service_name);
	if (!status && group)
		printf(" mlid 0x%04x", cl_ntoh16(((const ib_member_rec_t *)sa->data)->mlid));
	printf("\n");
	if (status || !subscribe)
		return finish(status ? 1 : 0);
	fflush(stdout);
	int wait_ms = (int)strtoul(argv[3], NULL, 0) * 1000;
	while (len = sizeof(buf) - sizeof(struct ib_user_mad), umad_recv(fd, buf, &len, wait_ms) >= 0) {
		if (sa->method != IB_MAD_METHOD_REPORT || sa->attr_id != IB_MAD_ATTR_NOTICE)
			continue;
		const ib_mad_notice_attr_t *ntc = (const ib_mad_notice_attr_t *)sa->data;
		printf("report trap %u\n", cl_ntoh16(ntc->g_or_v.generic.trap_num));
		uint16_t from = cl_ntoh16(umad_get_mad_addr(umad)->lid);
		sa->method = IB_MAD_METHOD_REPORT_RESP;
		umad_set_addr(umad, from, 1, 0, QKEY);
		umad_send(fd, agent, umad, sizeof(ib_sa_mad_t), 0, 0);
		return finish(0);
	}
	fprintf(stderr, "sa-client: no Report within %s s\n", argv[3]);
	return finish(1);
}
