/*
 * DOC: traps
 *
 * Switches and CAs send traps to the SM LID fabricd writes into their
 * PortInfo. Every trap is answered with TrapRepress (so the sender stops
 * repeating it), logged, kept for the event log of the next stored sweep,
 * and, for the ones that mean the fabric changed (128 link state change,
 * 144 capability change, 145 system image GUID change) from a node other
 * than our own port (or a 128 from the switch whose port 0 we run on),
 * turned into a sweep after a hold-down: the burst of
 * traps one link flap causes (one per end, repeats) becomes one sweep.
 * Traps are a hint, not the only source: the periodic sweep finds what a
 * lost trap did not report.
 *
 * Any host can send a trap naming any issuer, so a trap counts (is
 * recorded, forwarded to subscribers, may start a sweep) only when it came
 * from the port it names as issuer, and only within its source's budget
 * (trap_budget_per_minute, a token bucket per source LID): a storm from
 * one port costs one log line and at most that many sweeps a minute.
 * Every trap is still repressed, so a real node stops repeating it.
 */
#include "sm/trap.h"

#include <stdio.h>
#include <string.h>

#include "sm/log.h"
#include "sm/sa/sa.h"
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

/*
 * Nodes send traps LID-routed from the issuing port: the source LID the
 * fabric reported must be the issuer's (or another LID of the same port,
 * with an LMC).
 */
static bool from_issuer(const struct sm *sm, const ib_smp_t *req, const struct mad_origin *from, uint16_t issuer)
{
	if (req->mgmt_class != IB_MCLASS_SUBN_LID)
		return false;
	if (from->slid == issuer)
		return true;
	uint8_t p1 = 0, p2 = 0;
	const struct sm_snapshot *pub = sm_published(sm);
	const struct node *a = pub ? fabric_find_lid(&pub->fabric, from->slid, &p1) : NULL;
	const struct node *b = a ? fabric_find_lid(&pub->fabric, issuer, &p2) : NULL;
	return a && a == b && p1 == p2;
}

/* The node that has LID lid in the last sweep's fabric, or NULL. */
static const char *name_of(const struct sm *sm, uint16_t lid)
{
	uint8_t port;
	const struct sm_snapshot *pub = sm_published(sm);
	const struct node *n = pub ? fabric_find_lid(&pub->fabric, lid, &port) : NULL;
	return n ? n->desc : NULL;
}

void trap_handle(struct sm *sm, const ib_smp_t *req, const struct mad_origin *from)
{
	const ib_mad_notice_attr_t *ntc = (const ib_mad_notice_attr_t *)req->data;
	char text[160];
	if (req->method == IB_MAD_METHOD_TRAP_REPRESS)
		return;	/* only an SM sends those */
	mad_repress(sm->mp, req, from);
	enum budget_verdict v = budget_charge(&sm->trap_budget, from->slid, evl_now_ms());
	if (v != BUDGET_OK) {
		if (v == BUDGET_FIRST_OVER)
			log_warn("trap: traps from LID %u over its budget (%u a minute): ignored until it sends fewer",
				 from->slid, sm->trap_budget.per_minute);
		return;
	}
	uint16_t issuer = cl_ntoh16(ntc->issuer_lid);
	if (!from_issuer(sm, req, from, issuer)) {
		log_warn("trap: trap %u claiming issuer LID %u from LID %u ignored",
			 ib_notice_is_generic(ntc) ? cl_ntoh16(ntc->g_or_v.generic.trap_num) : 0u, issuer, from->slid);
		return;
	}
	if (!ib_notice_is_generic(ntc)) {
		snprintf(text, sizeof(text), "vendor trap from LID %u", from->slid);
		log_info("trap: %s", text);
		sm_event(sm, "trap", text);
		return;
	}
	unsigned num = cl_ntoh16(ntc->g_or_v.generic.trap_num);
	uint16_t about = num == 128 ? cl_ntoh16(ntc->data_details.ntc_128.sw_lid) : issuer;
	const char *who = name_of(sm, about);
	snprintf(text, sizeof(text), "trap %u (%s) from LID %u%s%s%s", num, trap_name(num), issuer,
		 who ? " (" : "", who ? who : "", who ? ")" : "");
	log_info("trap: %s", text);
	sm_event(sm, "trap", text);
	sa_inform_forward(sm, ntc);
	if (num >= 129 && num <= 131 && sm->health)	/* the port's errors count against its health */
		health_trap(sm->health, cl_ntoh16(ntc->data_details.ntc_129_131.lid),
			    ntc->data_details.ntc_129_131.port_num, num);
	/*
	 * Our own port's traps about itself (IsSM set: 144) would sweep for
	 * ever; but an SM on a switch's port 0 hears that switch's 128 about
	 * its other ports, which is news.
	 */
	const struct sm_snapshot *pub = sm_published(sm);
	uint16_t own = pub ? sm_node_own_lid(&pub->fabric) : 0;	/* 0 before the first sweep */
	if (!means_change(num) || (issuer == own && num != 128) || !sm->cfg.react_to_traps)
		return;
	/* a switch's port changed: a repair reads that switch again; anything else, a full sweep */
	uint8_t port;
	const struct node *sw = num == 128 && pub ? fabric_find_lid(&pub->fabric, about, &port) : NULL;
	if (sw && sw->type == NODE_SWITCH)
		sm_repair_soon(sm, sw->guid);
	else
		sm_sweep_soon(sm);
}
