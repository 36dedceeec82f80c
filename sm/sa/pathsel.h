/*
 * pathsel.h - what a PathRecord or MultiPathRecord request asks of a
 * path beyond its ends (IBA 15.2.5.16: MTU, rate and packet lifetime with
 * their selectors, SL, TClass, FlowLabel, HopLimit, Reversible,
 * QoSClass), and fitting a computed path to it.
 */
#ifndef SM_SA_PATHSEL_H
#define SM_SA_PATHSEL_H

#include <stdbool.h>
#include <stdint.h>
#include <iba/ib_types.h>

/* A value and its selector, when the request's mask gives both. */
struct path_bound {
	bool set;
	uint8_t sel;		/* 0 greater than, 1 less than, 2 exactly, 3 largest available */
	uint8_t val;
};

struct path_want {
	struct path_bound mtu, rate, life;
	bool sl_set, tclass_set, flow_set, hop_set, qos_set, reversible;
	uint8_t sl, tclass, hop;
	uint32_t flow;
	uint16_t qos;
};

void sa_path_want_of_pr(const ib_path_rec_t *req, ib_net64_t mask, struct path_want *w);
void sa_path_want_of_mpr(const ib_multipath_rec_t *req, ib_net64_t mask, struct path_want *w);
/* An MCMemberRecord join's MTU, rate and packet lifetime bounds (IBA o15-0.1.8), as a path's. */
void sa_path_want_of_mcmr(const ib_member_rec_t *req, ib_net64_t mask, struct path_want *w);
/*
 * Fits rec (a path as the fabric gives it) to w: false if the path cannot
 * satisfy it (another SL than the routing's, an MTU or rate below a
 * bound); else a "less than" or "exactly" lowers MTU, rate or lifetime
 * to the value asked (a slower, smaller path is always usable), and
 * TClass, FlowLabel, HopLimit and QoSClass are answered as asked.
 */
bool sa_path_fit(const struct path_want *w, ib_path_rec_t *rec);
/* The slower of two PathRecord rate codes (the codes are not in speed order). */
uint8_t sa_rate_slower(uint8_t a, uint8_t b);

#endif
