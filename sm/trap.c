/*
 * DOC: traps
 *
 * Switches and CAs send traps to the SM LID fabricd writes into their
 * PortInfo. Every trap is answered with TrapRepress (so the sender stops
 * repeating it), logged, kept for the event log of the next stored sweep,
 * and, for the ones that mean the fabric changed (128 link state change,
 * 144 capability change, 145 system image GUID change) from a node other
 * than our own port, turned into a sweep after a hold-down: the burst of
 * traps one link flap causes (one per end, repeats) becomes one sweep.
 * Traps are a hint, not the only source: the periodic sweep finds what a
 * lost trap did not report.
 */
#include "sm/trap.h"

#include <stdio.h>
#include <string.h>

#include "sm/log.h"
#include "sm/sa.h"
#include "sm/smnode.h"

static const char *trap_name(unsigned num)
{
	switch (num) {
	case 128: return "link state change";
	case 129: return "local link integrity threshold";
	case 130: return "excessive buffer overrun";
	case 131: return "flow control update watchdog";
	case 144: return "capability mask change";
	case 145: return "system image GUID change";
	case 256: return "bad M_Key";
	case 257: return "bad P_Key";
	case 258: return "bad Q_Key";
	}
	return "trap";
}

static bool means_change(unsigned num)
{
	return num == 128 || num == 144 || num == 145;
}

/* The node that has LID lid in the last sweep's fabric, or NULL. */
static const char *name_of(const struct sm *sm, uint16_t lid)
{
	uint8_t port;
	const struct node *n = sm->have_fabric ? fabric_find_lid(&sm->fabric, lid, &port) : NULL;
	return n ? n->desc : NULL;
}

void trap_handle(struct sm *sm, const ib_smp_t *req, const struct mad_origin *from)
{
	const ib_mad_notice_attr_t *ntc = (const ib_mad_notice_attr_t *)req->data;
	char text[160];
	if (req->method == IB_MAD_METHOD_TRAP_REPRESS)
		return;	/* only an SM sends those */
	mad_repress(sm->mp, req, from);
	if (!ib_notice_is_generic(ntc)) {
		snprintf(text, sizeof(text), "vendor trap from LID %u", from->slid);
		log_info("trap: %s", text);
		sm_event(sm, "trap", text);
		return;
	}
	unsigned num = cl_ntoh16(ntc->g_or_v.generic.trap_num);
	uint16_t issuer = cl_ntoh16(ntc->issuer_lid);
	uint16_t about = num == 128 ? cl_ntoh16(ntc->data_details.ntc_128.sw_lid) : issuer;
	const char *who = name_of(sm, about);
	snprintf(text, sizeof(text), "trap %u (%s) from LID %u%s%s%s", num, trap_name(num), issuer,
		 who ? " (" : "", who ? who : "", who ? ")" : "");
	log_info("trap: %s", text);
	sm_event(sm, "trap", text);
	sa_inform_forward(sm, ntc);
	uint16_t own = sm->have_fabric ? sm_node_own_lid(&sm->fabric) : 0;	/* 0 before the first sweep */
	if (means_change(num) && issuer != own && sm->cfg.react_to_traps)
		sm_sweep_soon(sm);
}
