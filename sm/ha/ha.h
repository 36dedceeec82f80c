/*
 * ha.h - several SMs on one subnet: finding the others through SMInfo,
 * electing the master, standing by (polling the master), taking over, and
 * the HANDOVER / ACKNOWLEDGE / DISABLE / STANDBY / DISCOVER requests of
 * IBA 14.4.
 */
#ifndef SM_HA_H
#define SM_HA_H

#include <stdbool.h>
#include <stdint.h>
#include <iba/ib_types.h>

#include "sm/mad/mad.h"
#include "sm/smnode.h"

#define HA_MAX_PEERS 16

/* SMInfo SubnSet attribute modifiers (IBA 14.4.1). */
enum ha_request { HA_HANDOVER = 1, HA_ACKNOWLEDGE = 2, HA_DISABLE = 3, HA_STANDBY = 4, HA_DISCOVER = 5 };

/* Another SM, as its SMInfo answered. */
struct sm_peer {
	uint64_t guid;
	uint8_t priority;
	uint8_t state;		/* enum sm_state */
	uint32_t act_count;
	struct dr_path route;	/* to its port */
	uint64_t mkey;		/* its port's M_Key, for the SMPs that reach it */
	char desc[FABRIC_DESC_LEN + 1];
	uint16_t lid;
};

struct ha {
	struct sm_peer peers[HA_MAX_PEERS];	/* the other SMs the last survey found */
	unsigned npeers;
	struct sm_peer master;		/* the one we stand by for */
	unsigned poll_failures;
	struct evl_watch *poll_timer;
	bool handover_sent;		/* to the better standby, waiting for its answer */
	uint64_t handover_to;		/* its GUID */
	uint64_t last_answer_ms;	/* the master's last answer to a poll */
	uint64_t master_lost_ms;	/* when polling gave up on it (0: not lost) */
	uint64_t left_out[HA_MAX_PEERS];	/* ports that said IsSM outside sm_peers, an event told already */
	unsigned nleft_out;
	/* standing by: the fabric our last sweep discovered, to tell where SMInfo Sets come from */
	struct fabric seen;
	bool have_seen;
};

struct sm;
typedef void (*ha_done_fn)(void *arg);

/* Creates the poll timer; -1 on failure. */
int ha_init(struct sm *sm);
void ha_free(struct sm *sm);
/*
 * Reads SMInfo of every other port in f that says IsSM, into sm->ha.peers,
 * then calls done. -1 on allocation failure.
 */
int ha_survey(struct sm *sm, const struct fabric *f, ha_done_fn done, void *arg);
/*
 * After a survey: true if this SM is (or now becomes) master. Otherwise
 * it is STANDBY for the master it found and polls it; the caller drops
 * its sweep. A master that sees a better standby hands over to it.
 */
bool ha_elect(struct sm *sm);
/* Keeps f (moved; f is left empty) as the fabric a standby knows. */
void ha_keep_seen(struct sm *sm, struct fabric *f);
/* Answers an SMInfo SubnSet from another SM (the request's data is its SMInfo). */
void ha_on_request(struct sm *sm, const ib_smp_t *req, const struct mad_origin *from);
/*
 * Whether an SMInfo Get may read our SM_Key: it carries our port's M_Key
 * (a port without one authenticates nobody), or it comes from the port of
 * the master we stand by for (OpenSM ignores a standby whose answers do
 * not carry the key it shares).
 */
bool ha_may_read_key(const struct sm *sm, const ib_smp_t *req, const struct mad_origin *from);
/* This SM's SMInfo as it answers it; with_key: include the SM_Key. */
void ha_own_info(const struct sm *sm, ib_sm_info_t *si, bool with_key);
const char *ha_state_name(unsigned state);

#endif
