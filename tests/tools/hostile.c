/*
 * hostile - what a root user on one host of the fabric can send the SM,
 * for the integration tests (tests/integration/hostile.sh):
 *
 *   hostile sminfo-get                 SMInfo Get of the SM port: prints its state and the SM_Key it gave
 *   hostile sminfo-set MOD GUID KEY    SMInfo Set (1 HANDOVER .. 5 DISCOVER) naming SM GUID, with SM_Key KEY
 *   hostile replies FIRST COUNT ROUNDS ROUNDS times COUNT GetResps (PortInfo, classes 0x01 and 0x03) to
 *                                      the SM, TIDs FIRST, FIRST+1, ...: answers to requests it never saw
 *   hostile traps COUNT GAP_MS ISSUER  COUNT Trap 128s (link state change) claiming issuer LID ISSUER
 *   hostile mcast-leave GUID           leaves the IPoIB broadcast group for the port GUID (another host's)
 *   hostile mcast-join GUID            joins it, naming that port GUID
 *   hostile services COUNT [GUID]      registers COUNT ServiceRecords (infinite lease), GIDs of GUID
 *                                      (default: our own port), one per ServiceID
 *   hostile service-delete ID          deletes ServiceRecord ID naming only its ServiceID
 *   hostile subscribe COUNT            COUNT InformInfo subscriptions, each with a different GID
 *   hostile lft-set LID BLOCK INDEX PORT  reads LFT block BLOCK of the switch at LID (an SMP routed by
 *                                      LID, no M_Key), sets entry INDEX (0..63) to PORT, writes it
 *                                      back: prints "was P" and the Set's answer
 *   hostile lft-top LID TOP            sets LinearFDBTop of the switch at LID to TOP (SwitchInfo read,
 *                                      changed, written back, routed by LID, no M_Key)
 *   hostile pkey-set LID BLOCK INDEX KEY  sets entry INDEX (0..31) of P_Key block BLOCK of the CA port at
 *                                      LID to KEY (read, changed, written back, routed by LID, no
 *                                      M_Key): prints "was K"
 *   hostile sl2vl-set LID IN OUT SL VL  sets SL's VL in the SL-to-VL map of ports (IN, OUT) of the switch
 *                                      at LID (read, changed, written back, routed by LID, no M_Key):
 *                                      prints "was" and the map's byte that held it
 *   hostile fuzz COUNT SEED            COUNT MADs of random bytes on a valid header (SA: any method
 *                                      and attribute; LID-routed SMPs: SMInfo and Notice, the ones the
 *                                      simulator hands the SM rather than answering itself, and whose
 *                                      SMA crashes on some others), then one SMInfo Get: prints
 *                                      "answered" if the SM still answers
 *
 * Everything goes LID-routed to the SM LID our port knows (lft-set: to
 * the switch it names). Each command
 * prints one line per answer the SM gave ("status 0x.. ..."), or
 * "no answer" after a second; the tests judge what the SM did, not this.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define QKEY 0x80010000	/* QP1's well-known Q_Key, host order */

struct host {
	int fd, smi, sa;
	umad_port_t port;
	uint8_t buf[sizeof(struct ib_user_mad) + 256];
};

/* Closes the port; exit() runs umad2sim's handler, which gives ibsim its client slot back. */
static int finish(struct host *h, int code)
{
	if (h->fd > 0)
		umad_close_port(h->fd);
	exit(code);
}

static void *new_mad(struct host *h, uint8_t mclass, uint8_t method, ib_net16_t attr, uint32_t mod, uint64_t tid)
{
	memset(h->buf, 0, sizeof(h->buf));
	ib_mad_t *m = umad_get_mad(h->buf);
	m->base_ver = 1;
	m->mgmt_class = mclass;
	m->class_ver = mclass == IB_MCLASS_SUBN_ADM ? 2 : 1;
	m->method = method;
	m->attr_id = attr;
	m->attr_mod = cl_hton32(mod);
	m->trans_id = cl_hton64(tid);
	return m;
}

static int send_to(struct host *h, uint16_t lid, bool sa, int timeout_ms)
{
	struct ib_user_mad *u = (struct ib_user_mad *)h->buf;
	umad_set_addr(u, lid, sa ? 1 : 0, 0, sa ? QKEY : 0);
	return umad_send(h->fd, sa ? h->sa : h->smi, u, 256, timeout_ms, 0);
}

static int send_to_sm(struct host *h, bool sa, int timeout_ms)
{
	return send_to(h, (uint16_t)h->port.sm_lid, sa, timeout_ms);
}

/* Waits up to a second for one answer; returns it (in h->buf) or NULL. */
static const ib_mad_t *answer(struct host *h)
{
	struct pollfd p = { .fd = umad_get_fd(h->fd), .events = POLLIN };
	int len = 256;
	if (poll(&p, 1, 1000) <= 0 || umad_recv(h->fd, h->buf, &len, 0) < 0 ||
	    ((struct ib_user_mad *)h->buf)->status) {
		printf("no answer\n");
		return NULL;
	}
	const ib_mad_t *m = umad_get_mad(h->buf);
	printf("status 0x%04x\n", cl_ntoh16(m->status));
	return m;
}

/* Waits up to a second for the answer to what was just sent: true if it came with status 0. */
static bool answered_ok(struct host *h)
{
	struct pollfd p = { .fd = umad_get_fd(h->fd), .events = POLLIN };
	int len = 256;
	return poll(&p, 1, 1000) > 0 && umad_recv(h->fd, h->buf, &len, 0) >= 0 &&
	       !((struct ib_user_mad *)h->buf)->status && !((ib_mad_t *)umad_get_mad(h->buf))->status;
}

static int sminfo_get(struct host *h)
{
	new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, 0x4801);
	if (send_to_sm(h, false, 1000) < 0)
		return 1;
	const ib_smp_t *r = (const ib_smp_t *)answer(h);
	if (!r)
		return 1;
	const ib_sm_info_t *si = (const ib_sm_info_t *)r->data;
	printf("state %u sm_key 0x%016llx\n", ib_sminfo_get_state(si), (unsigned long long)cl_ntoh64(si->sm_key));
	return 0;
}

static int sminfo_set(struct host *h, uint32_t mod, uint64_t guid, uint64_t key)
{
	ib_smp_t *smp = new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_SET, IB_MAD_ATTR_SM_INFO, mod, 0x4802);
	ib_sm_info_t *si = (ib_sm_info_t *)smp->data;
	si->guid = cl_hton64(guid);
	si->sm_key = cl_hton64(key);
	si->pri_state = 15 << 4 | 3;	/* "priority 15, MASTER" */
	if (send_to_sm(h, false, 1000) < 0)
		return 1;
	const ib_smp_t *r = (const ib_smp_t *)answer(h);
	if (r)
		printf("state %u\n", ib_sminfo_get_state((const ib_sm_info_t *)r->data));
	return 0;
}

static int replies(struct host *h, uint64_t first, unsigned count, unsigned rounds)
{
	for (unsigned i = 0; i < count * rounds; i++) {
		uint8_t mclass = i % 2 ? IB_MCLASS_SUBN_ADM : IB_MCLASS_SUBN_LID;
		ib_smp_t *smp = new_mad(h, mclass, IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_PORT_INFO, 0, first + i % count);
		ib_port_info_t *pi = (ib_port_info_t *)smp->data;
		pi->state_info1 = IB_LINK_DOWN;	/* "this port is down" */
		if (send_to_sm(h, mclass == IB_MCLASS_SUBN_ADM, 0) < 0)
			return 1;
	}
	printf("sent %u replies\n", count * rounds);
	return 0;
}

static int traps(struct host *h, unsigned count, unsigned gap_ms, uint16_t issuer)
{
	for (unsigned i = 0; i < count; i++) {
		ib_smp_t *smp = new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_TRAP, IB_MAD_ATTR_NOTICE, 0, 0x5400 + i);
		ib_mad_notice_attr_t *n = (ib_mad_notice_attr_t *)smp->data;
		n->generic_type = 0x80 | IB_NOTICE_TYPE_URGENT;
		n->g_or_v.generic.trap_num = cl_hton16(128);
		n->issuer_lid = cl_hton16(issuer);
		n->data_details.ntc_128.sw_lid = cl_hton16(issuer);
		if (send_to_sm(h, false, 0) < 0)
			return 1;
		struct timespec ts = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	printf("sent %u traps\n", count);
	return 0;
}

static void port_gid(ib_gid_t *gid, uint64_t guid)
{
	gid->unicast.prefix = cl_hton64(0xfe80000000000000ULL);
	gid->unicast.interface_id = cl_hton64(guid);
}

static int mcast(struct host *h, uint8_t method, uint64_t guid)
{
	static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	ib_sa_mad_t *sa = new_mad(h, IB_MCLASS_SUBN_ADM, method, IB_MAD_ATTR_MCMEMBER_RECORD, 0, 0x4d01);
	ib_member_rec_t *mr = (ib_member_rec_t *)sa->data;
	memcpy(mr->mgid.raw, bcast, sizeof(bcast));
	port_gid(&mr->port_gid, guid);
	mr->scope_state = 1;	/* full member */
	sa->comp_mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE;
	if (send_to_sm(h, true, 1000) < 0)
		return 1;
	return answer(h) ? 0 : 1;
}

static int services(struct host *h, unsigned count, uint64_t guid)
{
	unsigned ok = 0;
	for (unsigned i = 0; i < count; i++) {
		ib_sa_mad_t *sa = new_mad(h, IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_SET, IB_MAD_ATTR_SERVICE_RECORD, 0,
					  0x5300 + i);
		ib_service_record_t *sr = (ib_service_record_t *)sa->data;
		sr->service_id = cl_hton64(0x10000000ULL + i);
		port_gid(&sr->service_gid, guid);
		sr->service_pkey = cl_hton16(0xffff);
		sr->service_lease = cl_hton32(0xffffffff);
		snprintf((char *)sr->service_name, sizeof(sr->service_name), "squat-%u", i);
		sa->comp_mask = IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SPKEY |
				IB_SR_COMPMASK_SLEASE | IB_SR_COMPMASK_SNAME;
		if (send_to_sm(h, true, 1000) < 0)
			return 1;
		ok += answered_ok(h);
	}
	printf("%u of %u services registered\n", ok, count);
	return 0;
}

static int service_delete(struct host *h, uint64_t id)
{
	ib_sa_mad_t *sa = new_mad(h, IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_DELETE, IB_MAD_ATTR_SERVICE_RECORD, 0, 0x5d01);
	((ib_service_record_t *)sa->data)->service_id = cl_hton64(id);
	sa->comp_mask = IB_SR_COMPMASK_SID;
	if (send_to_sm(h, true, 1000) < 0)
		return 1;
	return answer(h) ? 0 : 1;
}

static int subscribe(struct host *h, unsigned count)
{
	unsigned ok = 0;
	for (unsigned i = 0; i < count; i++) {
		ib_sa_mad_t *sa = new_mad(h, IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_SET, IB_MAD_ATTR_INFORM_INFO, 0,
					  0x4900 + i);
		ib_inform_info_t *ii = (ib_inform_info_t *)sa->data;
		ib_gid_t gid;	/* a different "subscriber" each time */
		port_gid(&gid, 0x0badc0de00000000ULL + i);
		memcpy(&ii->gid, &gid, sizeof(gid));
		ii->lid_range_begin = 0xffff;
		ii->is_generic = 1;
		ii->subscribe = 1;
		ii->trap_type = cl_hton16(0xffff);
		ii->g_or_v.generic.trap_num = cl_hton16(0xffff);
		if (send_to_sm(h, true, 1000) < 0)
			return 1;
		ok += answered_ok(h);
	}
	printf("%u of %u subscriptions taken\n", ok, count);
	return 0;
}

/* xorshift64: the same MADs for the same seed, so a failure can be replayed */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int fuzz(struct host *h, unsigned count, uint64_t seed)
{
	static const uint16_t attrs[] = { 0x0001, 0x0002, 0x0003, 0x0011, 0x0012, 0x0015, 0x0016, 0x0017, 0x0018,
					  0x0019, 0x0020, 0x0031, 0x0035, 0x0038, 0x003a, 0x00f2, 0xf000, 0xffff };
	static const uint8_t methods[] = { 0x01, 0x02, 0x05, 0x06, 0x07, 0x12, 0x13, 0x14, 0x15, 0x81, 0x86, 0x92 };
	uint64_t s = seed | 1;
	for (unsigned i = 0; i < count; i++) {
		bool sa = next_random(&s) & 1;
		uint8_t method = methods[next_random(&s) % sizeof(methods)];
		uint16_t attr = attrs[next_random(&s) % (sizeof(attrs) / sizeof(attrs[0]))];
		if (!sa)
			attr = cl_ntoh16(next_random(&s) & 1 ? IB_MAD_ATTR_SM_INFO : IB_MAD_ATTR_NOTICE);
		uint8_t *m = new_mad(h, sa ? IB_MCLASS_SUBN_ADM : IB_MCLASS_SUBN_LID, method, cl_hton16(attr),
				     (uint32_t)next_random(&s), 0x4600 + i);
		for (size_t b = 24; b < 256; b += 8) {	/* past the common header: anything */
			uint64_t r = next_random(&s);
			memcpy(m + b, &r, 8);
		}
		if (send_to_sm(h, sa, 0) < 0)
			return 1;
		struct pollfd p = { .fd = umad_get_fd(h->fd), .events = POLLIN };
		int len = 256;
		while (poll(&p, 1, 0) > 0 && umad_recv(h->fd, h->buf, &len, 0) >= 0)	/* answers: drop them */
			len = 256;
		usleep(300);	/* umad2sim's socket to ibsim fills and fails at full speed */
	}
	usleep(200000);
	new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, 0x4aaa);
	for (unsigned tries = 0; tries < 20; tries++) {	/* our own answer, past any late ones */
		if (send_to_sm(h, false, 1000) < 0)
			return 1;
		struct pollfd p = { .fd = umad_get_fd(h->fd), .events = POLLIN };
		int len = 256;
		while (poll(&p, 1, 500) > 0 && umad_recv(h->fd, h->buf, &len, 0) >= 0) {
			const ib_mad_t *r = umad_get_mad(h->buf);
			if (r->trans_id == cl_hton64(0x4aaa) || (cl_ntoh64(r->trans_id) & 0xffffffff) == 0x4aaa) {
				printf("sent %u; answered\n", count);
				return 0;
			}
			len = 256;
		}
		new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, 0x4aaa);
	}
	printf("sent %u; no answer\n", count);
	return 1;
}

/*
 * Reads attribute attr (modifier mod) of the node at lid, sets the byte at
 * `at` of its data (with word, the big-endian 16 bits there) to value, and
 * writes it back: 0 when the Set was answered with status 0. Prints what
 * was there.
 */
static int read_change_write(struct host *h, uint16_t lid, ib_net16_t attr, uint32_t mod, unsigned at, bool word,
			     unsigned value)
{
	new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, attr, mod, 0x4803);
	if (at + word >= IB_SMP_DATA_SIZE || send_to(h, lid, false, 1000) < 0)
		return 1;
	const ib_smp_t *r = (const ib_smp_t *)answer(h);
	if (!r || r->status)
		return 1;
	uint8_t data[IB_SMP_DATA_SIZE];
	memcpy(data, r->data, sizeof(data));
	printf("was %u\n", word ? (unsigned)data[at] << 8 | data[at + 1] : data[at]);
	if (word)
		data[at++] = (uint8_t)(value >> 8);
	data[at] = (uint8_t)value;
	ib_smp_t *smp = new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_SET, attr, mod, 0x4804);
	memcpy(smp->data, data, sizeof(data));
	if (send_to(h, lid, false, 1000) < 0)
		return 1;
	r = (const ib_smp_t *)answer(h);
	return r && !r->status ? 0 : 1;
}

/* SL sl on VL vl in the switch's map of ports (in, out): byte sl / 2, the high nibble for an even SL. */
static int sl2vl_set(struct host *h, uint16_t lid, unsigned in, unsigned out, unsigned sl, unsigned vl)
{
	new_mad(h, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_SLVL_TABLE, in << 8 | out, 0x4805);
	if (sl > 15 || vl > 15 || send_to(h, lid, false, 1000) < 0)
		return 1;
	const ib_smp_t *r = (const ib_smp_t *)answer(h);
	if (!r || r->status)
		return 1;
	uint8_t byte = r->data[sl / 2];
	byte = sl % 2 ? (uint8_t)((byte & 0xf0) | vl) : (uint8_t)((byte & 0x0f) | vl << 4);
	return read_change_write(h, lid, IB_MAD_ATTR_SLVL_TABLE, in << 8 | out, sl / 2, false, byte);
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

int main(int argc, char **argv)
{
	static struct host h;
	const char *cmd = argc > 1 ? argv[1] : "";
	static const struct { const char *name; int args; } cmds[] = {
		{ "sminfo-get", 0 }, { "sminfo-set", 3 }, { "replies", 3 }, { "traps", 3 }, { "mcast-leave", 1 },
		{ "mcast-join", 1 }, { "services", 1 }, { "service-delete", 1 }, { "subscribe", 1 }, { "fuzz", 2 },
		{ "lft-set", 4 }, { "lft-top", 2 }, { "sl2vl-set", 5 }, { "pkey-set", 4 },
	};
	bool known = false;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		known |= !strcmp(cmd, cmds[i].name) &&
			 (argc - 2 == cmds[i].args || (!strcmp(cmd, "services") && argc == 4));
	if (!known) {
		fprintf(stderr, "usage: hostile sminfo-get | sminfo-set MOD GUID KEY | replies FIRST COUNT ROUNDS | "
				"traps COUNT GAP_MS ISSUER | mcast-leave GUID | mcast-join GUID | "
				"services COUNT [GUID] | service-delete ID | subscribe COUNT | fuzz COUNT SEED | "
				"lft-set LID BLOCK INDEX PORT | lft-top LID TOP | sl2vl-set LID IN OUT SL VL | "
				"pkey-set LID BLOCK INDEX KEY\n");
		return 2;
	}
	long smp_methods[16 / sizeof(long)] = { 1L << IB_MAD_METHOD_TRAP_REPRESS };
	long sa_methods[16 / sizeof(long)] = { 1L << IB_MAD_METHOD_REPORT };	/* a fuzzed subscription's Reports */
	if (umad_init() < 0 || umad_get_port(NULL, 0, &h.port) < 0 || (h.fd = umad_open_port(NULL, 0)) < 0 ||
	    (h.smi = umad_register(h.fd, IB_MCLASS_SUBN_LID, 1, 0, smp_methods)) < 0 ||
	    (h.sa = umad_register(h.fd, IB_MCLASS_SUBN_ADM, 2, 0, sa_methods)) < 0) {
		fprintf(stderr, "hostile: cannot open a port with SMI and SA agents\n");
		return finish(&h, 1);
	}
	uint64_t own = cl_ntoh64(h.port.port_guid);
	if (!strcmp(cmd, "sminfo-get"))
		return finish(&h, sminfo_get(&h));
	if (!strcmp(cmd, "sminfo-set"))
		return finish(&h, sminfo_set(&h, (uint32_t)num(argv[2]), num(argv[3]), num(argv[4])));
	if (!strcmp(cmd, "replies"))
		return finish(&h, replies(&h, num(argv[2]), (unsigned)num(argv[3]), (unsigned)num(argv[4])));
	if (!strcmp(cmd, "traps"))
		return finish(&h, traps(&h, (unsigned)num(argv[2]), (unsigned)num(argv[3]), (uint16_t)num(argv[4])));
	if (!strcmp(cmd, "mcast-leave") || !strcmp(cmd, "mcast-join"))
		return finish(&h, mcast(&h, cmd[6] == 'l' ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET, num(argv[2])));
	if (!strcmp(cmd, "services"))
		return finish(&h, services(&h, (unsigned)num(argv[2]), argc == 4 ? num(argv[3]) : own));
	if (!strcmp(cmd, "service-delete"))
		return finish(&h, service_delete(&h, num(argv[2])));
	if (!strcmp(cmd, "lft-set"))
		return finish(&h, read_change_write(&h, (uint16_t)num(argv[2]), IB_MAD_ATTR_LIN_FWD_TBL,
						    (uint32_t)num(argv[3]), (unsigned)num(argv[4]), false,
						    (unsigned)num(argv[5])));
	if (!strcmp(cmd, "lft-top"))	/* LinearFDBTop: SwitchInfo's bytes 4-5 */
		return finish(&h, read_change_write(&h, (uint16_t)num(argv[2]), IB_MAD_ATTR_SWITCH_INFO, 0,
						    offsetof(ib_switch_info_t, lin_top), true, (unsigned)num(argv[3])));
	if (!strcmp(cmd, "pkey-set"))	/* big-endian 16-bit entries */
		return finish(&h, read_change_write(&h, (uint16_t)num(argv[2]), IB_MAD_ATTR_P_KEY_TABLE,
						    (uint32_t)num(argv[3]), 2 * (unsigned)num(argv[4]), true,
						    (unsigned)num(argv[5])));
	if (!strcmp(cmd, "sl2vl-set"))
		return finish(&h, sl2vl_set(&h, (uint16_t)num(argv[2]), (unsigned)num(argv[3]), (unsigned)num(argv[4]),
					    (unsigned)num(argv[5]), (unsigned)num(argv[6])));
	if (!strcmp(cmd, "fuzz"))
		return finish(&h, fuzz(&h, (unsigned)num(argv[2]), num(argv[3])));
	return finish(&h, subscribe(&h, (unsigned)num(argv[2])));
}
