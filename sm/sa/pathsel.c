/*
 * DOC: PathRecord selectors
 *
 * A bound applies only when the mask gives both its value and its
 * selector, as OpenSM reads them, so the two SMs answer alike. MTU and
 * packet lifetime codes grow with what they mean; rate codes do not
 * (5 Gb/s is code 5, 10 Gb/s code 3), so rates are compared through
 * their speeds. The SL is the routing's (the deadlock proof holds for
 * it alone): a request for another gets no path rather than an unproven
 * one.
 */
#include "sm/sa/pathsel.h"

#include <stddef.h>

enum { SEL_GREATER, SEL_LESS, SEL_EXACTLY, SEL_LARGEST };

/* Speed of each rate code, in 100 Mb/s; 0 for a code IBA does not define. */
static const uint16_t rate_speed[] = {
	[2] = 25, [3] = 100, [4] = 300, [5] = 50, [6] = 200, [7] = 400, [8] = 600, [9] = 800, [10] = 1200,
	[11] = 140, [12] = 560, [13] = 1120, [14] = 1680, [15] = 250, [16] = 1000, [17] = 2000, [18] = 3000,
	[19] = 280, [20] = 500, [21] = 4000, [22] = 6000,
};
#define NRATES (sizeof(rate_speed) / sizeof(rate_speed[0]))

static unsigned speed(uint8_t code)
{
	return code < NRATES ? rate_speed[code] : 0;
}

uint8_t sa_rate_slower(uint8_t a, uint8_t b)
{
	return speed(b) && (!speed(a) || speed(b) < speed(a)) ? b : a;
}

/* The fastest rate code slower than code, or 0 if none. */
static uint8_t rate_below(uint8_t code)
{
	uint8_t best = 0;
	for (uint8_t c = 0; c < NRATES; c++)
		if (speed(c) && speed(c) < speed(code) && speed(c) > speed(best))
			best = c;
	return best;
}

static struct path_bound bound(ib_net64_t mask, ib_net64_t val_bit, ib_net64_t sel_bit, uint8_t field)
{
	return (struct path_bound){ (mask & val_bit) && (mask & sel_bit), (uint8_t)(field >> 6), field & 0x3f };
}

void sa_path_want_of_pr(const ib_path_rec_t *req, ib_net64_t mask, struct path_want *w)
{
	uint32_t hop_flow = cl_ntoh32(req->hop_flow_raw);
	*w = (struct path_want){
		.mtu = bound(mask, IB_PR_COMPMASK_MTU, IB_PR_COMPMASK_MTUSELEC, req->mtu),
		.rate = bound(mask, IB_PR_COMPMASK_RATE, IB_PR_COMPMASK_RATESELEC, req->rate),
		.life = bound(mask, IB_PR_COMPMASK_PKTLIFETIME, IB_PR_COMPMASK_PKTLIFETIMESELEC, req->pkt_life),
		.sl_set = mask & IB_PR_COMPMASK_SL, .sl = cl_ntoh16(req->qos_class_sl) & 0xf,
		.tclass_set = mask & IB_PR_COMPMASK_TCLASS, .tclass = req->tclass,
		.flow_set = mask & IB_PR_COMPMASK_FLOWLABEL, .flow = (hop_flow >> 8) & 0xfffff,
		.hop_set = mask & IB_PR_COMPMASK_HOPLIMIT, .hop = hop_flow & 0xff,
		.qos_set = mask & IB_PR_COMPMASK_QOS_CLASS, .qos = cl_ntoh16(req->qos_class_sl) >> 4,
		.reversible = (mask & IB_PR_COMPMASK_REVERSIBLE) && (req->num_path & 0x80),
	};
}

/* A MultiPathRecord's fields are a PathRecord's under other mask bits: read as the PathRecord they name. */
void sa_path_want_of_mpr(const ib_multipath_rec_t *req, ib_net64_t mask, struct path_want *w)
{
	static const struct {
		ib_net64_t mpr, pr;
	} bits[] = {
		{ IB_MPR_COMPMASK_MTU, IB_PR_COMPMASK_MTU },
		{ IB_MPR_COMPMASK_MTUSELEC, IB_PR_COMPMASK_MTUSELEC },
		{ IB_MPR_COMPMASK_RATE, IB_PR_COMPMASK_RATE },
		{ IB_MPR_COMPMASK_RATESELEC, IB_PR_COMPMASK_RATESELEC },
		{ IB_MPR_COMPMASK_PKTLIFETIME, IB_PR_COMPMASK_PKTLIFETIME },
		{ IB_MPR_COMPMASK_PKTLIFETIMESELEC, IB_PR_COMPMASK_PKTLIFETIMESELEC },
		{ IB_MPR_COMPMASK_SL, IB_PR_COMPMASK_SL },
		{ IB_MPR_COMPMASK_TCLASS, IB_PR_COMPMASK_TCLASS },
		{ IB_MPR_COMPMASK_FLOWLABEL, IB_PR_COMPMASK_FLOWLABEL },
		{ IB_MPR_COMPMASK_HOPLIMIT, IB_PR_COMPMASK_HOPLIMIT },
		{ IB_MPR_COMPMASK_QOS_CLASS, IB_PR_COMPMASK_QOS_CLASS },
		{ IB_MPR_COMPMASK_REVERSIBLE, IB_PR_COMPMASK_REVERSIBLE },
	};
	ib_path_rec_t pr = { .hop_flow_raw = req->hop_flow_raw, .tclass = req->tclass, .num_path = req->num_path,
			     .qos_class_sl = req->qos_class_sl, .mtu = req->mtu, .rate = req->rate,
			     .pkt_life = req->pkt_life };
	ib_net64_t pr_mask = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		pr_mask |= mask & bits[i].mpr ? bits[i].pr : 0;
	sa_path_want_of_pr(&pr, pr_mask, w);
}

void sa_path_want_of_mcmr(const ib_member_rec_t *req, ib_net64_t mask, struct path_want *w)
{
	*w = (struct path_want){
		.mtu = bound(mask, IB_MCR_COMPMASK_MTU, IB_MCR_COMPMASK_MTU_SEL, req->mtu),
		.rate = bound(mask, IB_MCR_COMPMASK_RATE, IB_MCR_COMPMASK_RATE_SEL, req->rate),
		.life = bound(mask, IB_MCR_COMPMASK_LIFE, IB_MCR_COMPMASK_LIFE_SEL, req->pkt_life),
	};
}

/* MTU or packet lifetime: codes in order of size. False if have cannot meet b. */
static bool fit_ordered(const struct path_bound *b, uint8_t *have)
{
	if (!b->set)
		return true;
	switch (b->sel) {
	case SEL_GREATER:
		return *have > b->val;
	case SEL_LESS:
		if (*have < b->val)
			return true;
		if (b->val <= 1)
			return false;
		*have = (uint8_t)(b->val - 1);
		return true;
	case SEL_EXACTLY:
		if (*have < b->val)
			return false;
		*have = b->val;
		return true;
	default:
		return true;
	}
}

static bool fit_rate(const struct path_bound *b, uint8_t *have)
{
	if (!b->set)
		return true;
	switch (b->sel) {
	case SEL_GREATER:
		return speed(b->val) && speed(*have) > speed(b->val);
	case SEL_LESS:
		if (speed(*have) < speed(b->val))
			return true;
		*have = rate_below(b->val);
		return *have != 0;
	case SEL_EXACTLY:
		if (!speed(b->val) || speed(*have) < speed(b->val))
			return false;
		*have = b->val;
		return true;
	default:
		return true;
	}
}

bool sa_path_fit(const struct path_want *w, ib_path_rec_t *rec)
{
	uint8_t mtu = rec->mtu & 0x3f, rate = rec->rate & 0x3f, life = rec->pkt_life & 0x3f;
	uint16_t qos_sl = cl_ntoh16(rec->qos_class_sl);
	if ((w->sl_set && w->sl != (qos_sl & 0xf)) || (w->reversible && !(rec->num_path & 0x80)) ||
	    !fit_ordered(&w->mtu, &mtu) || !fit_rate(&w->rate, &rate) || !fit_ordered(&w->life, &life))
		return false;
	rec->mtu = (uint8_t)(SEL_EXACTLY << 6 | mtu);
	rec->rate = (uint8_t)(SEL_EXACTLY << 6 | rate);
	rec->pkt_life = (uint8_t)(SEL_EXACTLY << 6 | life);
	uint32_t hop_flow = cl_ntoh32(rec->hop_flow_raw);
	if (w->flow_set)
		hop_flow = (hop_flow & ~(0xfffffu << 8)) | w->flow << 8;
	if (w->hop_set)
		hop_flow = (hop_flow & ~0xffu) | w->hop;
	rec->hop_flow_raw = cl_hton32(hop_flow);
	if (w->tclass_set)
		rec->tclass = w->tclass;
	if (w->qos_set)
		rec->qos_class_sl = cl_hton16((uint16_t)(w->qos << 4 | (qos_sl & 0xf)));
	return true;
}
