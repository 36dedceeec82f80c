/*
 * sa-client - a host registering, finding and withdrawing a ServiceRecord
 * at the SA its port knows, for the integration tests (saquery can only
 * read them):
 *
 *   sa-client set ID NAME LEASE_S | get ID | delete ID NAME
 *
 * The service's GID is this port's (fe80::/64 and the port GUID), its
 * P_Key 0xffff. Prints the answer's status and, for get, the name; exits
 * 0 when the SA's status is 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define QKEY 0x80010000	/* QP1's well-known Q_Key, host order */

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "set") == 0 && argc != 5) || (strcmp(argv[1], "delete") == 0 && argc != 4)) {
		fprintf(stderr, "usage: sa-client set ID NAME LEASE_S | get ID | delete ID NAME\n");
		return 2;
	}
	umad_port_t port;
	int fd, agent;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 || (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_MCLASS_SUBN_ADM, 2, 0, NULL)) < 0) {
		fprintf(stderr, "sa-client: cannot open a port with an SA agent\n");
		return 1;
	}
	uint8_t buf[sizeof(struct ib_user_mad) + 2048] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)umad_get_mad(umad);
	ib_service_record_t *sr = (ib_service_record_t *)sa->data;
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = 2;
	sa->trans_id = cl_hton64(0x5a);
	sa->attr_id = IB_MAD_ATTR_SERVICE_RECORD;
	sr->service_id = cl_hton64(strtoull(argv[2], NULL, 0));
	sr->service_gid.unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	sr->service_gid.unicast.interface_id = port.port_guid;	/* network order already */
	sr->service_pkey = cl_hton16(0xffff);
	sa->comp_mask = IB_SR_COMPMASK_SID;
	if (strcmp(argv[1], "set") == 0) {
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
		return 1;
	}
	int len = sizeof(buf) - sizeof(struct ib_user_mad);
	if (umad_recv(fd, buf, &len, 5000) < 0) {
		fprintf(stderr, "sa-client: no answer within 5 s\n");
		return 1;
	}
	unsigned status = cl_ntoh16(sa->status);
	printf("status 0x%04x", status);
	if (!status && strcmp(argv[1], "get") == 0)
		printf(" name %.64s", (const char *)sr->service_name);
	printf("\n");
	return status ? 1 : 0;
}
