/*
 * mcast.h - multicast groups: MCMemberRecord joins and leaves at the SA,
 * the IPoIB broadcast group, and the switches' MulticastForwardingTables.
 */
#ifndef SM_MCAST_H
#define SM_MCAST_H

#include <stdbool.h>
#include <iba/ib_types.h>

#include "routing/mtree.h"
#include "sm/mad/mad.h"

/*
 * Groups at most: one per end port and a few more (each host's IPv6
 * solicited-node group is a group of its own, though they share an MLID:
 * mcast.c). MLIDs are fewer: MC_FIRST_MLID up to 0xfffe.
 */
#define MC_MAX_GROUPS 49152
/* MLIDs in use at most: each is a tree, a flag per port of the fabric, built and proven at every programming. */
#define MC_MAX_MLIDS 256
/* A group's members at most: one per end port a subnet can address (its unicast LIDs). */
#define MC_MAX_MEMBERS 49152
/* Members of all groups together at most: every port in 8 groups. */
#define MC_MAX_MEMBERSHIPS (8 * MC_MAX_MEMBERS)
#define MC_FIRST_MLID 0xc000
/* The PacketLifeTime code of a group (4.096 us x 2^18, about 1 s), as for the IPoIB broadcast group. */
#define MC_PACKET_LIFE 18

struct mc_group {
	ib_member_rec_t rec;	/* the group's parameters (port_gid and join state unused) */
	struct mc_member {
		ib_gid_t port_gid;
		uint8_t join_state;	/* full, non, send-only bits */
		bool proxy;		/* joined by another port (IBA ProxyJoin): such a port may leave for it too */
	} *m;			/* [nm], grown as ports join (the broadcast group: every host's) */
	unsigned nm, cap;
	uint64_t creator;	/* the port GUID whose join created it (0: fabricd) */
	bool unproven;		/* with the unicast routes on its VL its tree closes a cycle: kept out of the MFTs */
	uint64_t root_guid;	/* its tree's root switch, kept while it is there and proves out (0: none yet) */
};

/* An MFT entry the switches hold (sm/sa/mcast_held.c): an MLID's tree by switch GUID, and its group's SL. */
struct mc_held {
	uint16_t mlid;
	uint8_t sl;
	struct mtree_saved tree;
};

struct evl_watch;

struct mcast {
	struct mc_group *g;	/* [n], room for cap */
	unsigned n, cap;
	unsigned memberships;		/* the members of all groups */
	struct evl_watch *timer;	/* coalesces joins and leaves (mcast_attach) */
	bool pending;			/* the timer is armed */
	uint64_t last_ms;		/* how long the last programming held the event loop */
	bool deferred;			/* the timer fired during a heavy sweep: programmed after it */
	uint32_t next_mgid;		/* the last 32 bits of the next MGID the SA assigns */
	bool vl_unproven[16];		/* VLs whose groups the last programming left out (an event at each change) */
	/*
	 * What the MFTs hold: the trees of the last programming whose Sets
	 * were all answered, with those of any programming since (whose Sets
	 * may have landed or not) added.
	 */
	struct mc_held *held;
	unsigned nheld;
	bool held_known;		/* false at start and after standing by: another SM, or this one before, wrote them */
	unsigned programmings;		/* bumped by each: a later one ends an earlier one's second phase */
	unsigned two_phase;		/* programmings that cleared some groups before writing their trees */
};

struct sm;

/* The group with that MGID, or NULL. */
const struct mc_group *mcast_group(const struct mcast *mc, const ib_gid_t *mgid);
/* The IPoIB broadcast group of the default partition, created at start. -1 on allocation failure. */
int mcast_init(struct mcast *mc, uint64_t subnet_prefix);
/* What fabricctl status shows of the groups. */
struct mcast_figures {
	unsigned groups, mlids, memberships;
	unsigned unproven;	/* groups left out of the MFTs */
	unsigned two_phase;	/* programmings that cleared before they wrote */
};
struct mcast_figures mcast_figures(const struct mcast *mc);
/* Frees what mc holds (its timer, the groups' members, the trees held). */
void mcast_free(struct mcast *mc);
/*
 * A new member of g (a group of mc) with port GID gid, no JoinState bits
 * yet; NULL when g or mc is full or memory ran out.
 */
struct mc_member *mcast_add_member(struct mcast *mc, struct mc_group *g, const ib_gid_t *gid);
/* MCMemberRecord Set (join), Delete (leave), Get, GetTable. */
void mcast_request(struct sm *sm, const ib_sa_mad_t *req, const struct mad_origin *from);
/* Creates the timer that coalesces joins and leaves (like fabricd's other timers). */
void mcast_attach(struct sm *sm);
/* mcast_program, once, a few milliseconds from now (after a join or leave). */
void mcast_program_soon(struct sm *sm);
/*
 * Programs every group's MFT entries on every switch of the published
 * fabric (sm/sa/mcast_program.c), in two phases where rewriting the trees
 * held in place is not proven. Returns true if Sets went out; done (may
 * be NULL) runs when all are answered (--once exits then: no MAD may be
 * left in flight). During a heavy sweep, nothing: its end programs them.
 */
bool mcast_program(struct sm *sm, void (*done)(struct sm *sm));
/*
 * Clears the entries of every tree the switches hold, on the switches of
 * f (a sweep's fabric): for a repair whose stages are proven only without
 * them. cleared(arg, ok) runs when every Set is answered (ok: all were,
 * and the switches hold no tree). False when memory ran out (nothing
 * sent, cleared does not run).
 */
bool mcast_clear_held(struct sm *sm, const struct fabric *f, void (*cleared)(void *arg, bool ok), void *arg);

/* MFT blocks of the MLIDs from MC_FIRST_MLID up: 32 each. */
#define MCAST_BLOCKS ((0x10000 - MC_FIRST_MLID) / IB_MCAST_BLOCK_SIZE)

/* The block of an MLID, MCAST_BLOCKS for one outside the multicast range. */
static inline unsigned mcast_block_of(uint16_t mlid)
{
	return mlid >= MC_FIRST_MLID ? (unsigned)(mlid - MC_FIRST_MLID) / IB_MCAST_BLOCK_SIZE : MCAST_BLOCKS;
}

struct fabric;
struct node;
/* Trees on one fabric, by MLID (sm/sa/mcast_held.c). */
struct mc_trees {
	unsigned n;
	size_t nnodes;		/* of their fabric */
	uint16_t *mlid;		/* [k] */
	uint8_t *sl;		/* [k]: its group's SL */
	bool ***on;		/* [k][node index][port]: the ports its packets leave by */
};
/* n empty trees on f (MLIDs and SLs 0). -1 on allocation failure. */
int mc_trees_new(struct mc_trees *t, unsigned n, const struct fabric *f);
void mc_trees_free(struct mc_trees *t);
/*
 * Every group's tree in f (routing/mtree.c), tree k of group k; none for
 * a group mcast_program left unproven. -1 on allocation failure.
 */
int mcast_trees(const struct mcast *mc, const struct fabric *f, struct mc_trees *out);
/*
 * The MFT block (32 MLIDs from 0xc000 + 32 * block) of switch n for
 * ports 16 * pos to 16 * pos + 15, as port masks, from t (trees of n's
 * fabric); false when t has no MLID in the block (masks all 0).
 */
bool mc_trees_masks(const struct mc_trees *t, const struct node *n, unsigned block, unsigned pos,
		    ib_net16_t masks[IB_MCAST_BLOCK_SIZE]);

#endif
