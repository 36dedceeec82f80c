/*
 * configure.h - programming the fabric: PortInfo, SwitchInfo, LFTs, and
 * the INIT -> ARMED -> ACTIVE walk.
 */
#ifndef SM_CONFIGURE_H
#define SM_CONFIGURE_H

#include "routing/routing.h"
#include "sm/mad/mad.h"
#include "topology/fabric.h"

struct lost_set;

struct cfg_params {
	uint16_t sm_lid;
	uint8_t sm_sl;		/* MasterSMSL: the SL of the SM's LID, as the routing proved it */
	uint64_t subnet_prefix;
	uint8_t max_mtu;	/* IB encoding: 1=256 .. 5=4096 */
	uint8_t max_op_vls;	/* IB encoding: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14 */
	uint8_t subnet_timeout;
	uint8_t life_time;	/* switches' SwitchInfo LifeTimeValue */
	uint8_t vl_high_limit;
	uint8_t hoq_life, leaf_hoq_life;	/* switch ports; leaf_: facing a CA */
	uint8_t vl_stall, leaf_vl_stall;
	bool mkey;		/* give each node its M_Key (sm_node->mkey) */
	uint8_t mkey_protect;	/* M_KeyProtectBits */
	uint16_t mkey_lease;	/* M_KeyLeasePeriod, seconds */
};

struct cfg_result {
	unsigned sent;		/* Set MADs issued */
	unsigned failed;	/* Sets that failed or were refused */
	unsigned lft_blocks_sent, lft_blocks_skipped;
	unsigned lft_failed;	/* LFT block Sets among the failed (or not sent: a switch left out) */
	unsigned skipped_nodes;	/* VL programming: nodes already holding the tables */
	const struct lost_set *lost;	/* the nodes a Set failed to (or left out), while done runs (a batch's); or NULL */
};

typedef void (*cfg_done_fn)(void *arg, const struct cfg_result *r);

/*
 * One table a sweep writes on a node's port: an SL-to-VL map of a port
 * pair, a VL arbitration block or a P_Key block; how to address it and
 * what it holds (sm/sweep/qos.c, pkeys.c; the table audit reads them back).
 */
struct port_table {
	ib_net16_t attr;	/* SLtoVLMappingTable, VLArbitrationTable or P_KeyTable */
	uint32_t mod;		/* its attribute modifier */
	uint8_t at;		/* the port its SMPs go to: 0 on a switch, the port itself on a CA */
	uint8_t in, out;	/* the ports it is of: the map's pair; another table's port twice */
	uint8_t size;		/* bytes a Set carries */
	uint8_t len;		/* bytes of them the port holds (entries within its caps) */
	uint8_t data[IB_SMP_DATA_SIZE];
};
/* Called for each table of a node in turn, until it returns false. */
typedef bool (*port_table_fn)(void *arg, const struct port_table *t);

struct sm;
/*
 * The PortInfo values fabricd wants, as sm is configured, on fabric f
 * routed by t (sm_lid: its own port in f; sm_sl: that LID's SL in t).
 */
struct cfg_params cfg_params_of_sm(const struct sm *sm, const struct fabric *f, const struct routing_tables *t);

/*
 * Writes LIDs, SM LID, subnet prefix, MTU and OperationalVLs into every
 * PortInfo that differs, LinearFDBTop into SwitchInfo, and the LFT
 * blocks. Ports keep their state. With the previous sweep's fabric and
 * tables (both may be NULL), an LFT block is skipped when this process
 * already programmed the same block into the same switch and the switch
 * shows no sign of having lost it (same LID on port 0, same LinearFDBTop).
 * SwitchInfo is written where LinearFDBTop or LifeTimeValue differs or
 * PortStateChange is set (to clear it). lfts_only: the LFT blocks alone (a transition's
 * later stages, once the first has set the rest). A PortInfo is not
 * written again when prev's sweep wrote the same values, had them
 * answered, and the port reads as it answered then.
 */
int cfg_program(struct mad_port *mp, struct fabric *f, const struct routing_tables *t,
		const struct fabric *prev, const struct routing_tables *prev_t, const struct cfg_params *p,
		bool lfts_only, cfg_done_fn done, void *arg);
/*
 * cfg_program's LFT blocks (lfts_only) of only the switches in `only`
 * (sealed), as against prev/prev_t: a stage's blocks sent again to the
 * switches some of them were lost to.
 */
int cfg_program_lfts_of(struct mad_port *mp, struct fabric *f, const struct routing_tables *t,
			const struct fabric *prev, const struct routing_tables *prev_t, const struct lost_set *only,
			cfg_done_fn done, void *arg);
/*
 * The LFT switch n holds, as far as this process knows (LIDs 0..*max):
 * none when its read back failed; the one read back from it this sweep,
 * if it was; else prev_t's (the
 * published sweep's, when its switches hold it), if n shows no sign of
 * having lost it (the same LID on port 0, the same LinearFDBTop if its
 * SwitchInfo was read: a switch that rebooted comes back with LID 0 or
 * another top); else NULL.
 */
/* LFT block `block` of a table holding LIDs 0..max, as it is written: LIDs past max drop. */
void cfg_lft_block(const uint8_t *lft, uint16_t max, unsigned block, uint8_t out[IB_SMP_DATA_SIZE]);
const uint8_t *cfg_table_held(const struct node *n, const struct fabric *prev, const struct routing_tables *prev_t,
			      uint16_t *max);
/*
 * Fills pi with the PortInfo fabricd wants on (n, port), from what the port
 * last reported; true if it differs, so a Set is needed (a port whose M_Key
 * lease ran out, with its protect bits back at 0, differs).
 */
bool cfg_wanted_port_info(const struct node *n, unsigned port, const struct cfg_params *p, ib_port_info_t *pi);
/* Sets pi's M_Key, protect bits and lease as p says (nothing when p->mkey is off). */
void cfg_mkey_port_info(ib_port_info_t *pi, const struct cfg_params *p, uint64_t key);
/*
 * Moves every linked port that is in state from (INIT or ARMED) one step
 * up (ARMED or ACTIVE). Run it for ARMED on all ports, then for ACTIVE:
 * a port may only go ACTIVE once its peer is ARMED.
 */
int cfg_step_state(struct mad_port *mp, struct fabric *f, enum port_state to, cfg_done_fn done,
		   void *arg);

#endif
