/*
 * DOC: the dispatcher of unsolicited MADs
 *
 * Every MAD that reaches fabricd's port unasked comes here, one handler
 * each: SA queries and changes (and the RMPP ACKs of its answers) to
 * sm/sa/sa.c; traps to sm/trap.c; SMInfo Get, from other SMs and from
 * tools like sminfo, answered with our GUID, priority, state and activity
 * count (the SM_Key only as sm/ha/ha.c allows); SMInfo Set (HANDOVER,
 * ACKNOWLEDGE, ...) to sm/ha/ha.c. Anything else gets "unsupported" back,
 * so no requester waits on us.
 *
 * It also tells the MAD port the SL of each LID as the published routing
 * has it, for the GMPs fabricd starts itself.
 */
#include <string.h>

#include "sm/log.h"
#include "sm/sa/sa.h"
#include "sm/sm.h"
#include "sm/trap.h"

#define MAD_STATUS_UNSUP_METHOD_ATTR 0x000c

static void on_request(void *arg, const ib_smp_t *req, const struct mad_origin *from)
{
	struct sm *sm = arg;
	uint8_t data[IB_SMP_DATA_SIZE] = { 0 };
	if (req->mgmt_class == IB_MCLASS_SUBN_ADM) {
		sa_handle(sm, (const ib_sa_mad_t *)req, from);
		return;
	}
	if (req->method == IB_MAD_METHOD_TRAP || req->method == IB_MAD_METHOD_TRAP_REPRESS) {
		trap_handle(sm, req, from);
		return;
	}
	if (req->attr_id == IB_MAD_ATTR_SM_INFO && req->method == IB_MAD_METHOD_GET) {
		ha_own_info(sm, (ib_sm_info_t *)data, ha_may_read_key(sm, req, from));
		mad_respond(sm->mp, req, from, 0, data);
		return;
	}
	if (req->attr_id == IB_MAD_ATTR_SM_INFO && req->method == IB_MAD_METHOD_SET) {
		ha_on_request(sm, req, from);
		return;
	}
	log_debug("unsupported SMP (method 0x%02x attribute 0x%04x) from LID %u", req->method,
		  cl_ntoh16(req->attr_id), from->slid);
	mad_respond(sm->mp, req, from, MAD_STATUS_UNSUP_METHOD_ATTR, data);
}

/* The SL the published routing gives dlid's traffic (0 before any, or for a LID it does not know). */
static uint8_t published_sl(void *arg, uint16_t dlid)
{
	const struct sm_snapshot *pub = sm_published(arg);
	return pub && pub->tables.sl && dlid <= pub->tables.max_lid ? pub->tables.sl[dlid] : 0;
}

void dispatch_attach(struct sm *sm)
{
	mad_on_request(sm->mp, on_request, sm);
	mad_set_sl_lookup(sm->mp, published_sl, sm);
}
