/*
 * DOC: multicast trees proven and programmed
 *
 * A group's packets travel on the VL its SL maps to, and the SL is the
 * creator's choice (IBA: the join that creates a group names it), so the
 * trees are proven VL by VL, each with the unicast layers on that VL. A
 * tree is the union of the members' paths to a root switch: the
 * best-connected one for a new group, then the root it had, while that
 * switch is there (a repair then changes the tree only around the
 * failure). Where the trees close a cycle, other roots are tried (the
 * best-connected switch, then up to MCAST_ROOT_TRIES in all, those whose
 * trees cross fewest leaves first: mtree_roots); a VL that none proves
 * keeps its groups out of the MFTs (their entries cleared: their packets
 * are dropped, not deadlocked) until the next programming proves them,
 * with an event when that starts ("mcast_unproven") and when it ends
 * ("mcast_proven"); the other VLs' groups are programmed.
 *
 * IPv6 solicited-node groups share an MLID (sm/sa/mcast.c): a tree is an
 * MLID's, the union of its groups' members, from its first group's root.
 *
 * The MFTs are written a Set at a time, so while they go out each switch
 * holds its old entry or its new one: the trees the switches hold
 * (sm/sa/mcast_held.c) and the new ones together must be acyclic with the
 * unicast layers too. Where that union closes a cycle on a VL (after a
 * repair moved the routes under the trees), its groups go in two phases:
 * their entries cleared on every switch first (every state of that phase
 * holds part of the old trees, whose dependencies were proven with these
 * routes by the repair's plan, or by the programming before), then the
 * new trees (every state holds part of them). Between the phases those
 * groups' packets are dropped, never deadlocked.
 *
 * What the switches hold is not known when fabricd starts or after it
 * stood by (a previous run, or another SM, wrote the MFTs): the first
 * programming then goes in two phases for every group.
 *
 * No programming starts during a heavy sweep: its plan proved the stages
 * with the trees held when it began, and the sweep's end programs the
 * trees anyway (sched.c).
 */
#include "sm/sa/mcast.h"

#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "sm/log.h"
#include "sm/sa/mcast_held.h"
#include "sm/sm.h"
#include "sm/sweep/batch.h"

/* The CA ports of g's members in f. */
static size_t members_of(const struct fabric *f, const struct mc_group *g, struct mtree_member *out)
{
	size_t n = 0;
	for (unsigned k = 0; k < g->nm; k++) {
		uint8_t port;
		const struct node *ca = fabric_find_port_guid(f, cl_ntoh64(g->m[k].port_gid.unicast.interface_id), &port);
		if (ca && ca->type != NODE_SWITCH)
			out[n++] = (struct mtree_member){ ca, port };
	}
	return n;
}

/* The first group of mc with MLID mlid (there is one for every MLID a tree is built for). */
static const struct mc_group *first_of(const struct mcast *mc, uint16_t mlid)
{
	for (unsigned i = 0; i < mc->n; i++)
		if (cl_ntoh16(mc->g[i].rec.mlid) == mlid)
			return &mc->g[i];
	return NULL;
}

/*
 * The tree of MLID mlid in f into on (cleared first): the members of
 * every group with that MLID (IPv6 solicited-node groups share one), from
 * the first such group's root_guid (mtree_build's root when that switch
 * is not in f); none when that group is unproven. -1 on allocation
 * failure.
 */
static int build_tree(const struct fabric *f, const struct mcast *mc, uint16_t mlid, struct mtree_member *mem,
		      bool **on)
{
	const struct mc_group *first = first_of(mc, mlid);
	for (size_t i = 0; i < f->nnodes; i++)
		memset(on[i], 0, (size_t)f->nodes[i]->nports + 1);
	if (!first || first->unproven)
		return 0;
	size_t n = 0;
	for (const struct mc_group *g = first; g < mc->g + mc->n; g++)
		if (cl_ntoh16(g->rec.mlid) == mlid)
			n += members_of(f, g, mem + n);	/* mem: members_room */
	int rc = mtree_build_at(f, mem, n, first->root_guid, on);
	if (rc == 1)
		rc = mtree_build(f, mem, n, on);
	return rc < 0 ? -1 : 0;
}

static uint8_t group_sl(const struct mc_group *g)
{
	uint8_t sl, hop;
	uint32_t flow;
	ib_member_get_sl_flow_hop(g->rec.sl_flow_hop, &sl, &flow, &hop);
	return sl & 15;
}

/* Room for the members of every group of mc at once (other_roots takes a VL's groups together). */
static struct mtree_member *members_room(const struct mcast *mc)
{
	size_t n = 1;
	for (unsigned g = 0; g < mc->n; g++)
		n += mc->g[g].nm;
	return malloc(n * sizeof(struct mtree_member));
}

/* The MLIDs of mc's groups, each once, in the order of their first groups, into out; how many. */
static unsigned mlids_of(const struct mcast *mc, uint16_t *out)
{
	bool *seen = calloc(0x10000 - MC_FIRST_MLID, sizeof(*seen));
	unsigned n = 0;
	for (unsigned i = 0; seen && i < mc->n; i++) {
		uint16_t mlid = cl_ntoh16(mc->g[i].rec.mlid);
		if (mlid >= MC_FIRST_MLID && !seen[mlid - MC_FIRST_MLID]) {
			seen[mlid - MC_FIRST_MLID] = true;
			out[n++] = mlid;
		}
	}
	free(seen);
	return n;
}

struct mcast_figures mcast_figures(const struct mcast *mc)
{
	struct mcast_figures f = { .groups = mc->n, .memberships = mc->memberships, .two_phase = mc->two_phase };
	uint16_t *mlids = malloc((mc->n + 1) * sizeof(*mlids));
	f.mlids = mlids ? mlids_of(mc, mlids) : 0;
	free(mlids);
	for (unsigned i = 0; i < mc->n; i++)
		f.unproven += mc->g[i].unproven;
	return f;
}

int mcast_trees(const struct mcast *mc, const struct fabric *f, struct mc_trees *out)
{
	struct mtree_member *mem = members_room(mc);
	uint16_t *mlids = malloc((mc->n + 1) * sizeof(*mlids));
	unsigned n = mlids ? mlids_of(mc, mlids) : 0;
	int rc = mem && mlids ? mc_trees_new(out, n, f) : -1;
	for (unsigned k = 0; rc == 0 && k < n; k++) {
		out->mlid[k] = mlids[k];
		out->sl[k] = group_sl(first_of(mc, mlids[k]));
		rc = build_tree(f, mc, mlids[k], mem, out->on[k]);
	}
	if (rc < 0 && mem && mlids)
		mc_trees_free(out);
	free(mem);
	free(mlids);
	return rc;
}

/* Trees, and the VL whose channel dependencies they join. */
struct trees {
	const struct fabric *f;
	const struct routing_tables *t;
	const struct mc_trees *set;	/* one tree per MLID: a mixture is the union of an MLID's two */
	unsigned vl;		/* the trees of this VL only */
};

static int add_trees(void *arg, struct depgraph *g)
{
	const struct trees *t = arg;
	for (unsigned k = 0; k < t->set->n; k++)
		if (t->t->vl_by_sl[t->set->sl[k]] == t->vl && mtree_dependencies(t->f, t->set->on[k], g) < 0)
			return -1;
	return 0;
}

/* How many trees of t take VL vl. */
static unsigned trees_on_vl(const struct routing_tables *rt, const struct mc_trees *t, unsigned vl)
{
	unsigned n = 0;
	for (unsigned k = 0; k < t->n; k++)
		n += rt->vl_by_sl[t->sl[k]] == vl;
	return n;
}

/* At most this many roots (the first, then mtree_roots' order) are tried for a VL's trees... */
#define MCAST_ROOT_TRIES 8
/* ... and no new one once this long went into the tries (the event loop waits on them). */
#define MCAST_RETRY_MS 250

/* The check of VL t->vl's trees with its unicast layers: 0, or -1 out of memory. */
static int check_vl(const struct sm_snapshot *pub, const struct cdg_mix *m, struct trees *t, struct cdg_report *r)
{
	uint32_t layers = 0;
	for (unsigned l = 0; l < pub->tables.layers && l < 16; l++)
		layers |= (uint32_t)(pub->tables.vl_by_sl[l] == t->vl) << l;
	return cdg_check_layers_with(&pub->fabric, m, layers, add_trees, t, r);
}

/*
 * VL t->vl's groups' trees (into next) from the switch root: 1 when they
 * prove out, 0 when not, -1 out of memory.
 */
static int try_root(const struct sm_snapshot *pub, const struct cdg_mix *m, struct mcast *mc, struct trees *t,
		    struct mc_trees *next, uint64_t root, struct mtree_member *mem)
{
	for (unsigned i = 0; i < mc->n; i++)
		if (pub->tables.vl_by_sl[group_sl(&mc->g[i])] == t->vl)
			mc->g[i].root_guid = root;
	for (unsigned k = 0; k < next->n; k++)
		if (pub->tables.vl_by_sl[next->sl[k]] == t->vl &&
		    build_tree(&pub->fabric, mc, next->mlid[k], mem, next->on[k]) < 0)
			return -1;
	struct cdg_report r;
	return check_vl(pub, m, t, &r) < 0 ? -1 : r.cycle_len == 0;
}

/*
 * The roots to try for VL vl's trees after the roots they kept: the
 * best-connected switch (0) when the first group kept another (the kept
 * root is most often that switch, pinned at the first programming: its
 * tree has just been refused), then mtree_roots' (which leaves the
 * best-connected out), for the members of all its groups, but the root
 * the first group kept. How many into out.
 */
static size_t other_roots(const struct sm_snapshot *pub, const struct mcast *mc, unsigned vl,
			  struct mtree_member *mem, uint64_t *out, size_t max)
{
	size_t n = 0, k = 0;
	uint64_t kept = 0;
	for (unsigned i = 0; i < mc->n; i++)
		if (pub->tables.vl_by_sl[group_sl(&mc->g[i])] == vl) {	/* mem: members_room */
			n += members_of(&pub->fabric, &mc->g[i], mem + n);
			kept = kept ? kept : mc->g[i].root_guid;
		}
	if (kept && kept != mtree_first_root(&pub->fabric) && max)
		out[k++] = 0;
	uint64_t more[MCAST_ROOT_TRIES];
	size_t m = mtree_roots(&pub->fabric, mem, n, more, MCAST_ROOT_TRIES);
	for (size_t j = 0; j < m && k < max; j++)
		if (more[j] != kept)
			out[k++] = more[j];
	return k;
}

/* VL vl's groups proven: an event if the last programming left them out. */
static void vl_proven_again(struct sm *sm, unsigned vl)
{
	if (!sm->mcast.vl_unproven[vl])
		return;
	sm->mcast.vl_unproven[vl] = false;
	char detail[96];
	snprintf(detail, sizeof(detail), "the trees of the groups on VL %u proven again: programmed", vl);
	log_info("mcast: %s", detail);
	sm_event(sm, "mcast_proven", detail);
}

/* VL vl's groups, none of whose trees proves out: marked unproven, their trees in next emptied. */
static void leave_out(struct sm *sm, struct mc_trees *next, unsigned vl, unsigned groups, size_t tried,
		      const char *cycle, struct mtree_member *mem)
{
	const struct sm_snapshot *pub = sm_published(sm);
	struct mcast *mc = &sm->mcast;
	char detail[700];
	snprintf(detail, sizeof(detail), "the trees of the %u group%s on VL %u and the unicast routes there close "
		 "a cycle from each of %zu roots (from the first: %s); left out of the MFTs", groups,
		 groups == 1 ? "" : "s", vl, tried, cycle);
	log_error("mcast: %s", detail);
	if (!mc->vl_unproven[vl])
		sm_event(sm, "mcast_unproven", detail);
	mc->vl_unproven[vl] = true;
	for (unsigned i = 0; i < mc->n; i++)
		if (pub->tables.vl_by_sl[group_sl(&mc->g[i])] == vl) {
			mc->g[i].unproven = true;
			mc->g[i].root_guid = 0;
		}
	for (unsigned k = 0; k < next->n; k++)
		if (pub->tables.vl_by_sl[next->sl[k]] == vl)
			build_tree(&pub->fabric, mc, next->mlid[k], mem, next->on[k]);	/* unproven: emptied */
}

/*
 * The groups' trees (next, from their first roots) on each VL together
 * with the unicast layers on it must keep its channel dependency graph
 * acyclic. When the trees from the first root close a cycle, other roots
 * are tried (the same for every group of the VL); the groups of a VL that
 * none proves are marked unproven and their trees emptied. False when
 * memory ran out (nothing is programmed then).
 */
static bool prove_trees(struct sm *sm, struct mc_trees *next)
{
	const struct sm_snapshot *pub = sm_published(sm);
	struct mcast *mc = &sm->mcast;
	struct trees t = { &pub->fabric, &pub->tables, next, 0 };
	struct cdg_mix m = cdg_mix_of(&pub->tables);
	struct mtree_member *mem = members_room(mc);
	bool ok = mem != NULL;
	for (t.vl = 0; ok && t.vl < 16; t.vl++) {
		unsigned groups = 0;
		for (unsigned i = 0; i < mc->n; i++)
			groups += pub->tables.vl_by_sl[group_sl(&mc->g[i])] == t.vl;
		struct cdg_report r;
		if (!groups) {
			mc->vl_unproven[t.vl] = false;
			continue;
		}
		if (check_vl(pub, &m, &t, &r) < 0) {
			ok = false;
			break;
		}
		const char *plural = groups == 1 ? "" : "s";
		if (!r.cycle_len) {
			log_debug("mcast: the trees of %u group%s and the routes on VL %u acyclic (%zu channels, %zu "
				  "dependencies)", groups, plural, t.vl, r.channels, r.dependencies);
			vl_proven_again(sm, t.vl);
			continue;
		}
		char cycle[512];
		cdg_cycle_text(&r, cycle, sizeof(cycle));
		uint64_t roots[MCAST_ROOT_TRIES - 1];
		size_t nroots = other_roots(pub, mc, t.vl, mem, roots, MCAST_ROOT_TRIES - 1), tried = 1;
		int proven = 0;
		uint64_t t0 = evl_now_ms();	/* on a big fabric each try is a graph of a whole layer: bounded */
		while (proven == 0 && tried <= nroots && evl_now_ms() - t0 < MCAST_RETRY_MS)
			proven = try_root(pub, &m, mc, &t, next, roots[tried++ - 1], mem);
		if (proven < 0) {
			ok = false;
		} else if (proven == 1) {
			char root[48] = "the best-connected switch";
			if (roots[tried - 2])
				snprintf(root, sizeof(root), "switch 0x%016llx", (unsigned long long)roots[tried - 2]);
			log_info("mcast: the trees of %u group%s on VL %u close a cycle with the unicast routes there from "
				 "their root (%s); proven from %s instead (root %zu tried)", groups, plural, t.vl, cycle,
				 root, tried);
			vl_proven_again(sm, t.vl);
		} else {
			leave_out(sm, next, t.vl, groups, tried, cycle, mem);
		}
	}
	uint64_t first = ok ? mtree_first_root(&pub->fabric) : 0;
	for (unsigned i = 0; i < mc->n; i++)	/* the root taken is kept: the next tree changes only where it must */
		if (!mc->g[i].unproven && !mc->g[i].root_guid)
			mc->g[i].root_guid = first;
	if (!ok)
		log_error("mcast: out of memory proving the trees");
	free(mem);
	return ok;
}

/*
 * Whether every tree held on VL vl lies within the new tree of its MLID
 * (then[0..nthen)): the union is the new trees then, proven already (a
 * join, or trees that stay as they were, as after most sweeps).
 */
static bool held_within_new(const struct mcast *mc, const struct mc_held *then, unsigned nthen,
			    const struct routing_tables *t, unsigned vl)
{
	for (unsigned k = 0; k < mc->nheld; k++) {
		const struct mc_held *h = &mc->held[k];
		unsigned j = 0;
		if (t->vl_by_sl[h->sl] != vl || !h->tree.n)
			continue;
		while (j < nthen && then[j].mlid != h->mlid)
			j++;
		if (j == nthen || !mtree_saved_within(&h->tree, &then[j].tree))
			return false;
	}
	return true;
}

/*
 * Whether rewriting each VL's trees in place, from those held to next
 * (each switch holding either entry meanwhile: mixed, an MLID's trees
 * united), keeps the VL acyclic with its unicast layers: apart[vl] set
 * where it does not (those groups go in two phases). False when memory
 * ran out.
 */
static bool prove_mixtures(const struct sm_snapshot *pub, const struct mcast *mc, const struct mc_held *then,
			   unsigned nthen, const struct mc_trees *next, const struct mc_trees *held,
			   const struct mc_trees *mixed, bool apart[16])
{
	struct trees t = { &pub->fabric, &pub->tables, mixed, 0 };
	struct cdg_mix m = cdg_mix_of(&pub->tables);
	for (t.vl = 0; t.vl < 16; t.vl++) {
		struct cdg_report r;
		apart[t.vl] = false;
		if (!trees_on_vl(&pub->tables, next, t.vl) || !trees_on_vl(&pub->tables, held, t.vl) ||
		    held_within_new(mc, then, nthen, &pub->tables, t.vl))
			continue;	/* every state is within one proven set of trees: the new ones, or those held */
		if (check_vl(pub, &m, &t, &r) < 0)
			return false;
		if (!r.cycle_len)
			continue;
		char cycle[512];
		cdg_cycle_text(&r, cycle, sizeof(cycle));
		log_info("mcast: the trees held on VL %u and their new ones close a cycle with the unicast routes "
			 "there (%s): their entries cleared first, then written", t.vl, cycle);
		apart[t.vl] = true;
	}
	return true;
}

/* One programming: its phase in flight, and the one to follow. */
struct programming {
	struct sm *sm;
	void (*done)(struct sm *sm);		/* after the last phase (may be NULL) */
	void (*cleared)(void *arg, bool ok);	/* or this, for mcast_clear_held */
	void *arg;
	unsigned id;				/* mc->programmings when it began */
	struct mc_held *now, *then;		/* this phase's trees; the next phase's (NULL: none) */
	unsigned nnow, nthen;
};

static void programming_end(struct programming *p, bool ok)
{
	if (p->cleared)
		p->cleared(p->arg, ok);
	else if (p->done)
		p->done(p->sm);
	mc_held_free(p->now, p->nnow);
	mc_held_free(p->then, p->nthen);
	free(p);
}

static void on_programmed(void *arg, const struct cfg_result *r);

/*
 * Sends p->now's trees (t: the same on f) into every switch of f, each
 * MFT block that holds one of their MLIDs or one held (a group gone since
 * has its entry cleared), a Set per 16-port position; what the switches
 * may hold grows by them first. False when memory ran out (nothing sent).
 */
static bool issue_phase(struct programming *p, const struct fabric *f, const struct mc_trees *t)
{
	struct mcast *mc = &p->sm->mcast;
	bool *blocks = calloc(MCAST_BLOCKS + 1, sizeof(*blocks));
	if (!blocks)
		return false;
	for (unsigned k = 0; k < t->n; k++)
		blocks[mcast_block_of(t->mlid[k])] = true;
	for (unsigned k = 0; k < mc->nheld; k++)
		blocks[mcast_block_of(mc->held[k].mlid)] = true;
	struct batch *b = mcast_held_add(mc, p->now, p->nnow) == 0 ? batch_new(p->sm->mp, on_programmed, p) : NULL;
	for (size_t i = 0; b && i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];
		for (unsigned block = 0; n->type == NODE_SWITCH && block < MCAST_BLOCKS &&
					 block * IB_MCAST_BLOCK_SIZE < n->mft_cap; block++)
			for (unsigned pos = 0; blocks[block] && pos * 16u <= n->nports; pos++) {
				ib_net16_t masks[IB_MCAST_BLOCK_SIZE];
				mc_trees_masks(t, n, block, pos, masks);
				batch_set(b, n, 0, IB_MAD_ATTR_MCAST_FWD_TBL, pos << 28 | block, masks, sizeof(masks));
			}
	}
	free(blocks);
	if (b)
		batch_issued(b);	/* done at once when nothing went out */
	return b != NULL;
}

/*
 * A phase answered: the switches hold its trees (unless a later
 * programming wrote meanwhile, whose own were added to what they may
 * hold). The next phase goes out if nothing began since, every Set of this
 * one was answered (else the mixture is not known: programmed again soon)
 * and no heavy sweep is on (its plan did not count that phase: its end
 * programs the trees).
 */
static void on_programmed(void *arg, const struct cfg_result *r)
{
	struct programming *p = arg;
	struct sm *sm = p->sm;
	struct mcast *mc = &sm->mcast;
	const struct sm_snapshot *pub = sm_published(sm);
	bool latest = p->id == mc->programmings;
	if (r->failed)
		log_warn("mcast: %u MFT Sets failed", r->failed);
	else
		log_debug("mcast: %u MFT blocks sent", r->sent);
	if (!r->failed && latest) {
		mcast_held_take(mc, p->now, p->nnow);
		p->now = NULL;
		p->nnow = 0;
	}
	if (!p->then || !latest) {
		programming_end(p, !r->failed);
		return;
	}
	if (r->failed || sm->sched.heavy || sm->state != SM_MASTER || !pub) {
		mc->deferred = sm->sched.heavy;
		if (r->failed && !sm->sched.heavy && sm->state == SM_MASTER)
			mcast_program_soon(sm);
		programming_end(p, false);
		return;
	}
	struct mc_trees t;
	bool sent = false;
	if (mc_held_trees(p->then, p->nthen, &pub->fabric, &t) == 0) {
		mc_held_free(p->now, p->nnow);
		p->now = p->then;
		p->nnow = p->nthen;
		p->then = NULL;
		p->nthen = 0;
		sent = issue_phase(p, &pub->fabric, &t);
		mc_trees_free(&t);
	}
	if (!sent) {
		log_error("mcast: out of memory; the new trees not programmed after their entries were cleared");
		programming_end(p, false);
	}
}

/* p (its now and then saved, its id given) out with the trees t of f; false when memory ran out (p freed). */
static bool start(struct programming *p, const struct fabric *f, const struct mc_trees *t)
{
	if (mc_held_save(t, f, &p->now, &p->nnow) == 0 && issue_phase(p, f, t))
		return true;
	mc_held_free(p->now, p->nnow);
	mc_held_free(p->then, p->nthen);
	free(p);
	return false;
}

bool mcast_program(struct sm *sm, void (*done)(struct sm *sm))
{
	const struct sm_snapshot *pub = sm_published(sm);
	struct mcast *mc = &sm->mcast;
	if (!pub || sm->state != SM_MASTER)
		return false;
	if (sm->sched.heavy) {	/* its plan counted the trees held when it began; its end programs them */
		mc->deferred = true;
		return false;
	}
	const struct fabric *f = &pub->fabric;
	uint64_t t0 = evl_now_ms();
	mc->deferred = false;
	mc->programmings++;
	for (unsigned g = 0; g < mc->n; g++) {	/* proven afresh below, on the routes of now */
		mc->g[g].unproven = false;
		const struct node *root = mc->g[g].root_guid ? fabric_find_guid(f, mc->g[g].root_guid) : NULL;
		if (!root || root->type != NODE_SWITCH)	/* a tree keeps its root while it is there */
			mc->g[g].root_guid = 0;
	}
	struct mc_trees next = { 0 }, held = { 0 }, mixed = { 0 };
	struct mc_held *all = NULL;	/* the trees held, and the new ones added */
	unsigned nall = 0;
	bool apart[16], two = false;
	struct programming *p = calloc(1, sizeof(*p));
	bool ok = p && mcast_trees(mc, f, &next) == 0 && prove_trees(sm, &next) &&
		  mc_held_save(&next, f, &p->then, &p->nthen) == 0 &&
		  mc_held_union(&all, &nall, mc->held, mc->nheld) == 0 && mc_held_union(&all, &nall, p->then, p->nthen) == 0 &&
		  mcast_held_trees(mc, f, &held) == 0 && mc_held_trees(all, nall, f, &mixed) == 0 &&
		  prove_mixtures(pub, mc, p->then, p->nthen, &next, &held, &mixed, apart);
	if (ok) {
		struct mc_held *then = p->then;
		unsigned nthen = p->nthen;
		*p = (struct programming){ .sm = sm, .done = done, .id = mc->programmings };
		for (unsigned vl = 0; vl < 16; vl++) {
			apart[vl] |= !mc->held_known && trees_on_vl(&pub->tables, &next, vl);
			two |= apart[vl];
		}
		if (!mc->held_known && two)
			log_info("mcast: what the switches' MFTs hold is not known (a start, or another SM wrote them): "
				 "the groups' entries cleared first, then written");
		if (two) {	/* the first phase clears those VLs' entries; the new trees follow */
			p->then = then;
			p->nthen = nthen;
			mc->two_phase++;
		} else {
			mc_held_free(then, nthen);
		}
		for (unsigned k = 0; two && k < next.n; k++)
			for (size_t i = 0; apart[pub->tables.vl_by_sl[next.sl[k]]] && i < f->nnodes; i++)
				memset(next.on[k][i], 0, (size_t)f->nodes[i]->nports + 1);
		ok = start(p, f, &next);
		p = NULL;	/* start freed it if it failed */
	}
	mc_trees_free(&next);
	mc_trees_free(&held);
	mc_trees_free(&mixed);
	mc_held_free(all, nall);
	if (p)
		mc_held_free(p->then, p->nthen);
	free(p);
	if (!ok)
		log_error("mcast: out of memory; MFTs not programmed");
	mc->last_ms = evl_now_ms() - t0;
	return ok;
}

bool mcast_clear_held(struct sm *sm, const struct fabric *f, void (*cleared)(void *arg, bool ok), void *arg)
{
	struct mcast *mc = &sm->mcast;
	struct mc_trees none;
	struct programming *p = calloc(1, sizeof(*p));
	if (!p || mc_trees_new(&none, mc->nheld, f) < 0) {
		free(p);
		return false;
	}
	for (unsigned k = 0; k < mc->nheld; k++) {
		none.mlid[k] = mc->held[k].mlid;
		none.sl[k] = mc->held[k].sl;
	}
	mc->programmings++;	/* a second phase in flight would write trees the plan does not count */
	*p = (struct programming){ .sm = sm, .cleared = cleared, .arg = arg, .id = mc->programmings };
	bool ok = start(p, f, &none);
	mc_trees_free(&none);
	return ok;
}

/*
 * Hosts join in bursts (every IPoIB port at boot): one tree computation,
 * proof and MFT update serves every join and leave of the next few
 * milliseconds, and at least twice as long as the last programming took
 * on the event loop (310-370 ms for a 27,648-host broadcast group), so a
 * burst leaves the SA two thirds of the loop to answer in.
 */
#define MCAST_COALESCE_MS 10

static void on_mcast_timer(void *arg)
{
	struct sm *sm = arg;
	sm->mcast.pending = false;
	mcast_program(sm, NULL);
}

void mcast_attach(struct sm *sm)
{
	sm->mcast.timer = evl_timer(sm->loop, on_mcast_timer, sm);
}

void mcast_program_soon(struct sm *sm)
{
	if (!sm->mcast.pending) {
		sm->mcast.pending = true;
		uint64_t wait = 2 * sm->mcast.last_ms;
		evl_timer_arm(sm->mcast.timer, wait > MCAST_COALESCE_MS ? wait : MCAST_COALESCE_MS);
	}
}
