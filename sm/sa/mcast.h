/*
 * mcast.h - multicast groups: MCMemberRecord joins and leaves at the SA,
 * the IPoIB broadcast group, and the switches' MulticastForwardingTables.
 */
#ifndef SM_MCAST_H
#define SM_MCAST_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "sm/mad/mad.h"

#define MC_MAX_GROUPS 64
#define MC_MAX_MEMBERS 256
#define MC_FIRST_MLID 0xc000
/* The PacketLifeTime code of a group (4.096 us x 2^18, about 1 s), as for the IPoIB broadcast group. */
#define MC_PACKET_LIFE 18

struct mc_group {
	ib_member_rec_t rec;	/* the group's parameters (port_gid and join state unused) */
	struct mc_member {
		ib_gid_t port_gid;
		uint8_t join_state;	/* full, non, send-only bits */
		bool proxy;		/* joined by another port (IBA ProxyJoin): such a port may leave for it too */
	} m[MC_MAX_MEMBERS];
	unsigned nm;
	uint64_t creator;	/* the port GUID whose join created it (0: fabricd) */
	bool unproven;		/* with the unicast routes on its VL its tree closes a cycle: kept out of the MFTs */
	uint64_t root_guid;	/* its tree's root switch (0: mtree_build's): the first that proved out */
};

struct evl_watch;

struct mcast {
	struct mc_group g[MC_MAX_GROUPS];
	unsigned n;
	struct evl_watch *timer;	/* coalesces joins and leaves (mcast_attach) */
	bool pending;			/* the timer is armed */
	uint32_t next_mgid;		/* the last 32 bits of the next MGID the SA assigns */
	bool vl_unproven[16];		/* VLs whose groups the last programming left out (an event at each change) */
};

struct sm;

/* The group with that MGID, or NULL. */
const struct mc_group *mcast_group(const struct mcast *mc, const ib_gid_t *mgid);
/* The IPoIB broadcast group of the default partition, created at start. */
void mcast_init(struct mcast *mc, uint64_t subnet_prefix);
/* MCMemberRecord Set (join), Delete (leave), Get, GetTable. */
void mcast_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);
/* Creates the timer that coalesces joins and leaves (like fabricd's other timers). */
void mcast_attach(struct sm *sm);
/* mcast_program, once, a few milliseconds from now (after a join or leave). */
void mcast_program_soon(struct sm *sm);
/*
 * Programs every group's MFT entries on every switch of the stored
 * fabric. Returns true if Sets went out; done (may be NULL) runs when all
 * are answered (--once exits then: no MAD may be left in flight).
 */
bool mcast_program(struct sm *sm, void (*done)(struct sm *sm));

struct fabric;
struct node;
/*
 * Every group's tree in f (routing/mtree.c): on[group][node index][port]
 * for the ports its packets leave by; none for a group mcast_program left
 * unproven. NULL on allocation failure; free with mcast_trees_free.
 */
bool ***mcast_trees(const struct mcast *mc, const struct fabric *f);
void mcast_trees_free(bool ***on, unsigned ngroups, const struct fabric *f);
/*
 * The MFT block (32 MLIDs from 0xc000 + 32 * block) of switch n for
 * ports 16 * pos to 16 * pos + 15, as port masks; false when no group
 * has an MLID in the block (masks all 0).
 */
bool mcast_block_masks(const struct mcast *mc, bool ***on, const struct node *n, unsigned block, unsigned pos,
		       ib_net16_t masks[IB_MCAST_BLOCK_SIZE]);

#endif
