/*
 * DOC: SMInfo agent
 *
 * fabricd's port receives the SMPs addressed to the SM: SMInfo Get from
 * other SMs and from tools like sminfo, and traps. SMInfo Get is answered
 * with our GUID, priority, state and activity count; traps go to
 * sm/trap.c; anything else the SM does not serve gets "unsupported" back,
 * so no requester waits on us.
 */
#include <string.h>

#include "sm/log.h"
#include "sm/sm.h"
#include "sm/trap.h"

#define MAD_STATUS_UNSUP_METHOD_ATTR 0x000c

static void on_request(void *arg, const ib_smp_t *req, const struct mad_origin *from)
{
	struct sm *sm = arg;
	uint8_t data[IB_SMP_DATA_SIZE] = { 0 };
	if (req->method == IB_MAD_METHOD_TRAP || req->method == IB_MAD_METHOD_TRAP_REPRESS) {
		trap_handle(sm, req, from);
		return;
	}
	if (req->attr_id == IB_MAD_ATTR_SM_INFO && req->method == IB_MAD_METHOD_GET) {
		ib_sm_info_t *si = (ib_sm_info_t *)data;
		const ib_sm_info_t *asked = (const ib_sm_info_t *)req->data;
		si->guid = cl_hton64(mad_port_guid(sm->mp));
		/* the SM_Key goes only to a requester that presents it (IBA 14.4.1) */
		si->sm_key = sm->cfg.sm_key && cl_ntoh64(asked->sm_key) == sm->cfg.sm_key ? asked->sm_key : 0;
		si->act_count = cl_hton32(sm->act_count);
		si->pri_state = (uint8_t)((sm->cfg.sm_priority << 4) | sm->state);
		mad_respond(sm->mp, req, from, 0, data);
		return;
	}
	log_debug("unsupported SMP (method 0x%02x attribute 0x%04x) from LID %u", req->method,
		  cl_ntoh16(req->attr_id), from->slid);
	mad_respond(sm->mp, req, from, MAD_STATUS_UNSUP_METHOD_ATTR, data);
}

void sminfo_attach(struct sm *sm)
{
	mad_on_request(sm->mp, on_request, sm);
}
