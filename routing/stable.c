/*
 * DOC: stable routing
 *
 * A destination's route is the column of its LID across every switch's
 * table. Old columns are judged on the new fabric with the same
 * three-state walk as routing/loops.c: from every switch the entries must
 * lead, without circling, to the port that holds the LID (the LID's own
 * switch answers with entry 0). A column that passes is kept. One that
 * fails from some switches is patched: those switches (the ones whose
 * route ran into the change) take the fresh routing's entry, the others
 * keep theirs, and the walk must then pass from every switch; if it does
 * not, the column is the fresh one whole. A kept column keeps its old
 * SL; a patched one takes the fresh routing's, the layer the fresh
 * routing proved its changed routes on (with the old one, the merge of a
 * 3-level radix-24 tree needed 37 LIDs moved up a layer, several proofs
 * more; with the fresh one, none).
 *
 * That is for a fabric that lost capacity. When the fresh routing uses a
 * link the old tables did not (a link or switch back, a new cable, an
 * isolated link healthy again), the fabric gained some, and the fresh
 * routing is taken whole: merging columns balanced for different fabrics
 * over several events leaves links overloaded (a spine back after its
 * links returned one trap at a time did, four flows on a link where a
 * fresh routing has one). After a loss and its return the fresh routing
 * differs from the patched tables only where they were patched.
 *
 * Without a fresh routing (stable_patch), a loss is mended in place: the
 * failing switches of a broken column are re-pointed at neighbours that
 * deliver (routing/patch.c) and the column keeps its SL; any sign that
 * the fabric gained (a switch or a link the old tables did not use), or a
 * column no mend delivers, asks the caller for the fresh routing.
 *
 * Every column kept or patched here delivers from every switch without a
 * loop (the walks said so); one taken from the fresh routing is as that
 * routing made it. Whether the mixture is deadlock-free, and whether the
 * fresh columns loop, is for the caller's proof, which refuses it like
 * any engine's tables.
 */
#include "routing/stable.h"

#include <stdlib.h>
#include <string.h>

#include "routing/patch.h"
#include "routing/shares.h"
#include "routing/transition.h"

#define PORT_SLOTS (FABRIC_MAX_PORTS + 1)

/* One merge: f's switches, what the old tables knew of each, and the work arrays of the walks. */
struct merge {
	const struct node **sw;	/* f's switches */
	size_t nsw;
	const struct node **oldof;	/* [k]: sw[k] in the old fabric, NULL if the old tables lack it */
	bool *carried;		/* [k * PORT_SLOTS + p]: some old entry of sw[k] sent out of port p */
	const struct routing_tables *fresh;	/* NULL: the failing switches are mended in place (patch) */
	struct column_patch *patch;
	unsigned max_layers;	/* with patch: the VLs the layering may use */
	struct routing_tables *out;
	uint8_t *state;		/* [k]: the column walk's verdicts */
	size_t *walk;
	uint32_t *k_of;		/* [node index]: its k in sw[] */
	uint32_t *peer;		/* [k * PORT_SLOTS + p]: the k of the switch port p of sw[k] leads to, or PEER_* */
	uint16_t *batch;	/* the LIDs whose columns are gathered */
	uint8_t *cols;		/* [j * nsw + k]: sw[k]'s entry for batch[j] */
};

enum { PEER_CA = UINT32_MAX - 1, PEER_NONE = UINT32_MAX };

/* Columns gathered at once: a column walk reads one byte per switch, each from another row. */
#define MERGE_BATCH 256

/* One hop from sw[k], whose entry is e: COLUMN_DELIVERS, COLUMN_FAILS, or 0 with *next the k it leads to. */
static int step(const struct merge *m, size_t k, uint8_t e, const struct lid_owner *dst, size_t *next)
{
	if (e == 0)
		return m->sw[k] == dst->node ? COLUMN_DELIVERS : COLUMN_FAILS;
	uint32_t to = e < PORT_SLOTS ? m->peer[k * PORT_SLOTS + e] : PEER_NONE;	/* LFT_NO_PATH is beyond */
	if (to == PEER_CA) {
		const struct port *pt = &m->sw[k]->ports[e];
		return pt->remote == dst->node && pt->remote_port == dst->port ? COLUMN_DELIVERS : COLUMN_FAILS;
	}
	if (to == PEER_NONE)
		return COLUMN_FAILS;
	*next = to;
	return 0;
}

/*
 * Walks lid's column (col[k]: sw[k]'s entry) from every switch: leaves
 * each switch's verdict (COLUMN_DELIVERS or COLUMN_FAILS) in m->state[k]
 * and returns how many fail. Everything it reads is indexed by k: a walk
 * touches no node.
 */
static size_t column_fails(const struct merge *m, const uint8_t *col, const struct lid_owner *dst)
{
	size_t failing = 0;
	memset(m->state, COLUMN_UNSEEN, m->nsw);
	for (size_t i = 0; i < m->nsw; i++) {
		size_t at = i, n = 0;
		int verdict = 0;
		while (!verdict && m->state[at] == COLUMN_UNSEEN) {
			size_t next = at;
			m->state[at] = COLUMN_ON_WALK;
			m->walk[n++] = at;
			verdict = step(m, at, col[at], dst, &next);
			at = next;
		}
		if (!verdict)	/* met a decided switch, or one on this walk: a loop */
			verdict = m->state[at] == COLUMN_DELIVERS ? COLUMN_DELIVERS : COLUMN_FAILS;
		for (size_t k = 0; k < n; k++)
			m->state[m->walk[k]] = (uint8_t)verdict;
		failing += verdict == COLUMN_FAILS ? n : 0;
	}
	return failing;
}

/* Whether port p of sw[k] reaches the port it reached in the old fabric (both cabled). */
static bool same_peer(const struct merge *m, size_t k, uint8_t p)
{
	const struct node *o = m->oldof[k];
	const struct port *now = &m->sw[k]->ports[p];
	return now->remote && p <= o->nports && o->ports[p].remote && o->ports[p].remote->guid == now->remote->guid &&
	       o->ports[p].remote_port == now->remote_port;
}

/*
 * Whether link (sw[k], p) is capacity the old tables did not use: the old
 * switch had another peer or none there, or no old entry sent out of it
 * (a link the old routing was kept off, as an isolated one).
 */
static bool link_is_new(const struct merge *m, size_t k, uint8_t p)
{
	return !m->carried[k * PORT_SLOTS + p] || !same_peer(m, k, p);
}

/*
 * Whether fresh routes some LID that has an owner over a link new at a
 * switch the old tables know. Switch by switch, each table read as it
 * lies in memory, and only at switches that have a new link at all (after
 * a loss, none has).
 */
static bool fresh_uses_new_link(const struct merge *m, const struct lid_owner *own)
{
	bool new_port[256];	/* by LFT entry: port 0, LFT_NO_PATH and unlinked ports stay false */
	for (size_t k = 0; k < m->nsw; k++) {
		const struct node *sw = m->sw[k];
		bool any = false;
		if (!m->oldof[k])
			continue;
		memset(new_port, 0, sizeof(new_port));
		for (unsigned p = 1; p <= sw->nports; p++)
			any |= new_port[p] = sw->ports[p].remote && link_is_new(m, k, (uint8_t)p);
		const uint8_t *lft = m->fresh->lft[sw->index];
		for (uint32_t lid = 1; any && lid <= m->fresh->max_lid; lid++)
			if (new_port[lft[lid]] && own[lid].node)
				return true;
	}
	return false;
}

/* One share of find_suspects: switches [from, to) mark into its own array. */
struct suspect_run {
	const struct merge *m;
	const struct lid_owner *own;
	uint16_t max_lid;
	bool *suspect[SHARES_MAX];
};

static void suspect_share(void *arg, size_t share, size_t from, size_t to)
{
	enum { FINE, DROPS, TO_CA, HERE };
	const struct suspect_run *run = arg;
	const struct merge *m = run->m;
	const struct lid_owner *own = run->own;
	bool *suspect = run->suspect[share];
	uint8_t kind[256];
	for (size_t k = from; k < to; k++) {
		const struct node *sw = m->sw[k];
		memset(kind, DROPS, sizeof(kind));
		kind[0] = HERE;
		for (unsigned p = 1; p <= sw->nports; p++)
			if (same_peer(m, k, (uint8_t)p))
				kind[p] = sw->ports[p].remote->type == NODE_SWITCH ? FINE : TO_CA;
		const uint8_t *lft = m->out->lft[sw->index];
		for (uint32_t lid = 1; lid <= run->max_lid; lid++) {
			uint8_t e = lft[lid];
			switch (kind[e]) {
			case FINE:
				break;
			case TO_CA:
				suspect[lid] |= own[lid].node != sw->ports[e].remote || own[lid].port != sw->ports[e].remote_port;
				break;
			case HERE:
				suspect[lid] |= own[lid].node != sw;
				break;
			default:
				suspect[lid] = true;
			}
		}
	}
}

#define SUSPECT_SHARE_MIN_SWITCHES 256

/*
 * Marks the LIDs whose old column could fail on f, reading each switch's
 * row as it lies in memory (a column walk reads one byte per switch, each
 * a cache miss): an entry that drops, that leads out of a port whose link
 * is gone or now reaches another peer, to a CA port that does not hold
 * the LID, or 0 (here) at a switch that does not hold it. Every other
 * column takes, on f, the hops it took on old_f, where it was loop-free
 * (old comes from routing_compute, which returns no looping table), so it
 * still delivers from every switch. All are marked when f has a switch
 * the old tables lack: its row is fresh's and may lead anywhere. The rows
 * are shared out among the CPUs (one scan of them all reads 88 MB on the
 * 27,648-host tree). -1 on allocation failure.
 */
static int find_suspects(const struct merge *m, const struct lid_owner *own, uint16_t max_lid, bool *suspect)
{
	for (size_t k = 0; k < m->nsw; k++)
		if (!m->oldof[k]) {
			memset(suspect, 1, (size_t)max_lid + 1);
			return 0;
		}
	struct suspect_run run = { m, own, max_lid, { suspect } };
	size_t nshares = shares_count(m->nsw, SUSPECT_SHARE_MIN_SWITCHES), k;
	for (k = 1; k < nshares; k++)
		if (!(run.suspect[k] = calloc((size_t)max_lid + 1, sizeof(*suspect))))
			break;
	int rc = k == nshares ? 0 : -1;
	if (rc == 0)
		shares_run(nshares, m->nsw, suspect_share, &run);
	for (k = 1; k < nshares && run.suspect[k]; k++) {
		for (uint32_t lid = 1; rc == 0 && lid <= max_lid; lid++)
			suspect[lid] |= run.suspect[k][lid];
		free(run.suspect[k]);
	}
	return rc;
}

/* lid's column and SL from fresh; without fresh (a LID no port holds), dropped everywhere. */
static void take_fresh(const struct merge *m, uint16_t lid)
{
	for (size_t k = 0; k < m->nsw; k++)
		m->out->lft[m->sw[k]->index][lid] = m->fresh ? m->fresh->lft[m->sw[k]->index][lid] : LFT_NO_PATH;
	m->out->sl[lid] = m->fresh ? m->fresh->sl[lid] : 0;
}

enum settled { KEPT, PATCHED, FRESH, NEEDS_FRESH };

/*
 * Mends the switches of lid's column that fail (routing/patch.c, which
 * walks them again: each must then deliver). When a leaf reaches a
 * switch's LID only by an escape, the LID goes to layer 1 (at least), as
 * the fat-tree engine's escape layer puts it; a CA's LID that some leaf
 * cannot reach up*-down* is beyond the fat-tree engine (it routes such a
 * fabric up/down whole): NEEDS_FRESH, as without a second VL.
 */
static enum settled mend(const struct merge *m, uint16_t lid, const struct lid_owner *dst)
{
	bool leaf_escapes;
	if (column_patch_mend(m->patch, lid, dst, m->state, &leaf_escapes) ||
	    (leaf_escapes && (dst->node->type != NODE_SWITCH || m->max_layers < 2)))
		return NEEDS_FRESH;
	if (leaf_escapes && !m->out->sl[lid])
		m->out->sl[lid] = 1;
	return PATCHED;
}

/*
 * Settles lid's column in out (old's, remapped; col: its entries as
 * gathered, kept up to date): kept whole, patched (the switches whose old
 * route fails take fresh's entry, or without fresh are mended in place,
 * and then every switch delivers), or fresh's whole (NEEDS_FRESH without
 * fresh).
 */
static enum settled settle(const struct merge *m, uint16_t lid, uint8_t *col, const struct lid_owner *dst)
{
	if (!dst->node) {
		take_fresh(m, lid);
		return FRESH;
	}
	if (!column_fails(m, col, dst))
		return KEPT;
	if (!m->fresh)
		return mend(m, lid, dst);
	for (size_t k = 0; k < m->nsw; k++)
		if (m->state[k] == COLUMN_FAILS)
			col[k] = m->out->lft[m->sw[k]->index][lid] = m->fresh->lft[m->sw[k]->index][lid];
	if (!column_fails(m, col, dst)) {
		m->out->sl[lid] = m->fresh->sl[lid];
		return PATCHED;
	}
	take_fresh(m, lid);
	return FRESH;
}

/* Fills peer[] from the switches' links, once sw[] and k_of[] number them. */
static void link_peers(struct merge *m)
{
	for (size_t k = 0; k < m->nsw; k++) {
		const struct node *sw = m->sw[k];
		for (unsigned p = 0; p < PORT_SLOTS; p++) {
			const struct node *r = p && p <= sw->nports ? sw->ports[p].remote : NULL;
			m->peer[k * PORT_SLOTS + p] = !r ? PEER_NONE : r->type == NODE_SWITCH ? m->k_of[r->index] : PEER_CA;
		}
	}
}

/* Fills sw, k_of, peer, oldof and carried; the rows of switches the old tables lack become fresh's. */
static void match_switches(struct merge *m, const struct fabric *old_f, const struct routing_tables *old,
			   const struct fabric *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		if (!m->out->lft[i])
			continue;
		size_t k = m->nsw++;
		const struct node *o = fabric_find_guid(old_f, f->nodes[i]->guid);
		m->sw[k] = f->nodes[i];
		m->k_of[i] = (uint32_t)k;
		if (!o || !old->lft[o->index]) {
			if (m->fresh)
				memcpy(m->out->lft[i], m->fresh->lft[i], (size_t)m->fresh->max_lid + 1);
			continue;
		}
		m->oldof[k] = o;
		for (uint32_t lid = 1; lid <= old->max_lid; lid++)
			if (old->lft[o->index][lid] != LFT_NO_PATH)
				m->carried[k * PORT_SLOTS + old->lft[o->index][lid]] = true;
	}
	link_peers(m);
}

/* Fills a merge's arrays for f; -1 on allocation failure. */
static int merge_init(struct merge *m, const struct fabric *f)
{
	size_t nn = f->nnodes + 1, nsw = fabric_count(f, NODE_SWITCH) + 1;
	m->sw = malloc(nsw * sizeof(*m->sw));
	m->oldof = calloc(nsw, sizeof(*m->oldof));
	m->carried = calloc(nsw * PORT_SLOTS, sizeof(*m->carried));
	m->state = malloc(nsw);
	m->walk = malloc(nsw * sizeof(*m->walk));
	m->k_of = malloc(nn * sizeof(*m->k_of));
	m->peer = malloc(nsw * PORT_SLOTS * sizeof(*m->peer));
	m->batch = malloc(MERGE_BATCH * sizeof(*m->batch));
	m->cols = malloc(MERGE_BATCH * nsw);
	return m->sw && m->oldof && m->carried && m->state && m->walk && m->k_of && m->peer && m->batch && m->cols ?
	       0 : -1;
}

static void merge_free(struct merge *m)
{
	free(m->sw);
	free(m->oldof);
	free(m->carried);
	free(m->state);
	free(m->walk);
	free(m->k_of);
	free(m->peer);
	free(m->batch);
	free(m->cols);
}

/*
 * The LIDs one share of settle_all settles: the CAs' (whose mends share
 * the ports' load counts, so they go in LID order, as ever) or the others
 * (the switches' and the LIDs no port holds), whose columns touch nothing
 * the CAs' read. Each share gives the same columns alone as interleaved.
 */
enum lid_class { CA_LIDS, OTHER_LIDS, LID_CLASSES };

static bool of_class(const struct lid_owner *o, enum lid_class c)
{
	bool ca = o->node && o->node->type != NODE_SWITCH;
	return c == CA_LIDS ? ca : !ca;
}

/*
 * Settles every suspect column of class c in out (and every LID no port
 * holds), and counts them in r, from_fresh marking the columns taken
 * whole from fresh. False when some column needs a fresh routing that m
 * does not have.
 */
static bool settle_class(const struct merge *m, const struct lid_owner *own, const bool *suspect,
			 struct stable_report *r, bool *from_fresh, enum lid_class c)
{
	size_t nb = 0;
	for (uint32_t lid = 1; lid <= m->out->max_lid; lid++) {
		if (of_class(&own[lid], c)) {
			if (suspect[lid] || !own[lid].node)
				m->batch[nb++] = (uint16_t)lid;
			else
				r->kept++;
			if (from_fresh)
				from_fresh[lid] = false;
			r->lids += own[lid].node != NULL;
		}
		if (nb < MERGE_BATCH && (lid < m->out->max_lid || !nb))
			continue;
		for (size_t k = 0; k < m->nsw; k++) {	/* row by row, as the rows lie in memory */
			const uint8_t *row = m->out->lft[m->sw[k]->index];
			for (size_t j = 0; j < nb; j++)
				m->cols[j * m->nsw + k] = row[m->batch[j]];
		}
		for (size_t j = 0; j < nb; j++) {
			uint16_t at = m->batch[j];
			enum settled how = settle(m, at, &m->cols[j * m->nsw], &own[at]);
			if (how == NEEDS_FRESH)
				return false;
			if (from_fresh)
				from_fresh[at] = how == FRESH;
			r->kept += how == KEPT;
			r->patched += how == PATCHED;
		}
		nb = 0;
	}
	return true;
}

/* The classes, a share each on two CPUs (one merge's work arrays, and mend state, per class). */
struct settle_run {
	struct merge part[LID_CLASSES];
	const struct lid_owner *own;
	const bool *suspect;
	bool *from_fresh;
	struct stable_report r[LID_CLASSES];
	bool ok[LID_CLASSES];
};

static void settle_share(void *arg, size_t share, size_t from, size_t to)
{
	struct settle_run *run = arg;
	for (size_t c = from; c < to; c++)
		run->ok[c] = settle_class(&run->part[c], run->own, run->suspect, &run->r[c], run->from_fresh,
					  (enum lid_class)c);
}

/* A merge like m for another class's share: its own work arrays (and mend state, with own). -1 on failure. */
static int merge_part(struct merge *part, const struct merge *m, struct column_patch *patch,
		      const struct lid_owner *own)
{
	*part = *m;
	part->state = malloc(m->nsw + 1);
	part->walk = malloc((m->nsw + 1) * sizeof(*part->walk));
	part->batch = malloc(MERGE_BATCH * sizeof(*part->batch));
	part->cols = malloc(MERGE_BATCH * (m->nsw + 1));
	part->patch = m->patch ? patch : NULL;
	if (!part->state || !part->walk || !part->batch || !part->cols)
		return -1;
	return m->patch ? column_patch_init(patch, own, m->patch->x, m->patch->r, m->patch->t) : 0;
}

static void merge_part_free(struct merge *part)
{
	free(part->state);
	free(part->walk);
	free(part->batch);
	free(part->cols);
}

/*
 * Fabrics whose LIDs are worth a second CPU (a thread costs tens of
 * microseconds; a switch's loss at 3,456 hosts mends 420 CA and 466
 * switch LIDs, 3-level radix-8 trees take both shares too).
 */
#define SETTLE_SHARE_MIN_LIDS 128

/*
 * Settles every suspect column of out (and every LID no port holds), and
 * counts them in r, from_fresh marking the columns taken whole from fresh;
 * out->layers from the SLs. The CAs' LIDs and the others on two CPUs where
 * there are two (settle_class). False when some column needs a fresh
 * routing that m does not have. -1 on allocation failure.
 */
static int settle_all(struct merge *m, const struct lid_owner *own, const bool *suspect, struct stable_report *r,
		      bool *from_fresh)
{
	struct settle_run run = { .own = own, .suspect = suspect, .from_fresh = from_fresh };
	struct column_patch patch = { 0 };
	size_t nshares = shares_count(m->out->max_lid, SETTLE_SHARE_MIN_LIDS) > 1 ? 2 : 1;
	run.part[CA_LIDS] = *m;
	run.part[OTHER_LIDS] = *m;	/* one share: the same merge, one class after the other */
	int rc = nshares > 1 ? merge_part(&run.part[OTHER_LIDS], m, &patch, own) : 0;
	if (rc == 0)
		shares_run(nshares, LID_CLASSES, settle_share, &run);
	if (nshares > 1) {
		merge_part_free(&run.part[OTHER_LIDS]);
		column_patch_free(&patch);
	}
	if (rc < 0)
		return -1;
	for (size_t c = 0; c < LID_CLASSES; c++) {
		r->lids += run.r[c].lids;
		r->kept += run.r[c].kept;
		r->patched += run.r[c].patched;
	}
	if (!run.ok[CA_LIDS] || !run.ok[OTHER_LIDS])
		return 0;
	unsigned layers = 1;
	for (uint32_t lid = 1; lid <= m->out->max_lid; lid++)
		if (m->out->sl[lid] + 1u > layers)
			layers = m->out->sl[lid] + 1u;
	m->out->layers = layers;
	return 1;
}

int stable_merge(const struct fabric *old_f, const struct routing_tables *old, const struct fabric *f,
		 const struct routing_tables *fresh, struct routing_tables *out, struct stable_report *r,
		 bool *from_fresh)
{
	memset(r, 0, sizeof(*r));
	memset(out, 0, sizeof(*out));
	struct merge m = { .fresh = fresh, .out = out };
	struct lid_owner *own = calloc((size_t)fresh->max_lid + 1, sizeof(*own));
	bool *suspect = calloc((size_t)fresh->max_lid + 1, sizeof(*suspect));
	int rc = -1;
	if (!own || !suspect || merge_init(&m, f) < 0 || transition_remap(old_f, old, f, fresh, out) < 0)
		goto done;
	match_switches(&m, old_f, old, f);
	routing_lid_owners(f, fresh->max_lid, own);
	r->grew = fresh_uses_new_link(&m, own);
	if (!r->grew) {
		if (find_suspects(&m, own, fresh->max_lid, suspect) < 0)
			goto done;
		if (settle_all(&m, own, suspect, r, from_fresh) < 0)	/* with fresh, every column settles */
			goto done;
	} else {	/* the fresh routing whole: every link carries its share again */
		for (size_t k = 0; k < m.nsw; k++)
			memcpy(out->lft[m.sw[k]->index], fresh->lft[m.sw[k]->index], (size_t)fresh->max_lid + 1);
		memcpy(out->sl, fresh->sl, (size_t)fresh->max_lid + 1);
		out->layers = fresh->layers;
		if (from_fresh)
			memset(from_fresh, 1, (size_t)fresh->max_lid + 1);
	}
	rc = 0;
done:
	if (rc < 0)
		routing_tables_free(out);
	free(own);
	free(suspect);
	merge_free(&m);
	return rc;
}

/* Whether f has a link, at a switch the old tables know, that they did not use, or a switch they lack. */
static bool gained(const struct merge *m)
{
	for (size_t k = 0; k < m->nsw; k++) {
		if (!m->oldof[k])
			return true;
		for (unsigned p = 1; p <= m->sw[k]->nports; p++)
			if (m->sw[k]->ports[p].remote && link_is_new(m, k, (uint8_t)p))
				return true;
	}
	return false;
}

int stable_patch(const struct fabric *old_f, const struct routing_tables *old, const struct fabric *f,
		 const struct swindex *x, const struct rank *rk, unsigned max_layers, struct routing_tables *out,
		 struct stable_report *r)
{
	memset(r, 0, sizeof(*r));
	memset(out, 0, sizeof(*out));
	struct routing_tables like = { .max_lid = routing_max_lid(f), .layers = 1 };
	struct column_patch patch = { 0 };
	struct merge m = { .patch = &patch, .max_layers = max_layers, .out = out };
	struct lid_owner *own = calloc((size_t)like.max_lid + 1, sizeof(*own));
	bool *suspect = calloc((size_t)like.max_lid + 1, sizeof(*suspect));
	int rc = -1;
	like.sl = calloc((size_t)like.max_lid + 1, 1);	/* LIDs the old tables lack: SL 0 */
	if (!own || !suspect || !like.sl || merge_init(&m, f) < 0 || transition_remap(old_f, old, f, &like, out) < 0)
		goto done;
	routing_lid_owners(f, like.max_lid, own);
	if (column_patch_init(&patch, own, x, rk, out) < 0)
		goto done;
	match_switches(&m, old_f, old, f);
	if (gained(&m))
		rc = 1;
	else if (find_suspects(&m, own, like.max_lid, suspect) == 0 && (rc = settle_all(&m, own, suspect, r, NULL)) >= 0)
		rc = rc == 1 ? 0 : 1;
	r->mended = rc == 0;
done:
	if (rc) {
		routing_tables_free(out);
		memset(r, 0, sizeof(*r));
	}
	column_patch_free(&patch);
	free(like.sl);
	free(own);
	free(suspect);
	merge_free(&m);
	return rc;
}
