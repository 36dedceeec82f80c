/*
 * cdg.h - the channel dependency graph of a set of forwarding tables, and
 * the deadlock check on it (Dally & Seitz: a routing is deadlock-free on
 * one virtual lane if its channel dependency graph has no cycle).
 * Traffic to a LID travels on that LID's layer (t->sl[lid]) from every
 * CA.
 */
#ifndef CDG_H
#define CDG_H

#include "routing/depgraph.h"
#include "routing/routing.h"

#define CDG_MAX_SETS 3

/*
 * A state of the fabric during a change: at each switch a packet may
 * take the entry of any of lft[] (switches hold one table or the other,
 * and a switch being programmed may hold either), and traffic to a LID
 * may use the SL any of sl[] gives it (hosts that have not asked for the
 * new PathRecord still use the old one). One table and its own SLs is a
 * steady state.
 */
struct cdg_mix {
	const struct routing_tables *lft[CDG_MAX_SETS];
	unsigned nlft;
	const struct routing_tables *sl[CDG_MAX_SETS];
	unsigned nsl;
	bool to_cas_only;	/* only traffic from CAs to CA LIDs (switch LIDs take management traffic only) */
	bool no_answers;	/* leave out what LIDs send on their own SL (answers): the CAs' requests only */
};

/* Whether traffic to lid travels on layer in m: some SL set of m puts lid there. */
static inline bool cdg_on_layer(const struct cdg_mix *m, uint16_t lid, unsigned layer)
{
	for (unsigned k = 0; k < m->nsl; k++)
		if (lid <= m->sl[k]->max_lid && m->sl[k]->sl[lid] == layer)
			return true;
	return false;
}

/* The steady state of t: its own entries and SLs. */
struct cdg_mix cdg_mix_of(const struct routing_tables *t);

/*
 * Builds the dependencies of every layer's CA traffic through t and looks
 * for a cycle. The report is the first cyclic layer's, or, when all are
 * acyclic, the sums over layers. Returns 0, or -1 on allocation failure.
 */
int cdg_check(const struct fabric *f, const struct routing_tables *t, struct cdg_report *r);
/* The same for every layer of a mixture of states (a transition). */
int cdg_check_mix(const struct fabric *f, const struct cdg_mix *m, struct cdg_report *r);
/* The same for one layer of t only. */
int cdg_check_layer(const struct fabric *f, const struct routing_tables *t, unsigned layer,
		    struct cdg_report *r);
/* One layer of a mixture, with more dependencies (multicast trees) added by extra before the cycle search. */
int cdg_check_layer_with(const struct fabric *f, const struct cdg_mix *m, unsigned layer,
			 int (*extra)(void *arg, struct depgraph *g), void *arg, struct cdg_report *r);
/* The same for the layers in the mask (bit l: layer l) together in one graph: those sharing a VL. */
int cdg_check_layers_with(const struct fabric *f, const struct cdg_mix *m, uint32_t layers,
			  int (*extra)(void *arg, struct depgraph *g), void *arg, struct cdg_report *r);

/*
 * Adds to dg (a depgraph_init graph of f) the dependencies one layer of
 * the mixture has for the destinations with lids[lid] set (NULL: all).
 * Graphs built for disjoint sets of LIDs add up to the whole layer's, as
 * each destination's traffic adds its own. -1 on allocation failure.
 */
int cdg_add_layer(const struct fabric *f, const struct cdg_mix *m, unsigned layer, const bool *lids,
		  struct depgraph *dg);

/* True if traffic to lid makes channel a depend on channel b. */
bool cdg_lid_uses(const struct routing_tables *t, uint16_t lid, const struct cdg_channel *a,
		  const struct cdg_channel *b);
/*
 * The search for the LIDs on a layer of t whose traffic makes one
 * dependency (routing/cdg_users.c): as a destination of the CAs, or (with
 * answers) as a source answering CAs. cdg_users_new allocates it (NULL on
 * failure; hops: f's hop map, kept by the caller while it lives);
 * cdg_users_list lists the layer's LIDs as t->sl stands (again after any
 * change); cdg_users_of marks in uses[lid] (max_lid + 1 entries) the LIDs
 * making channel a depend on b and returns how many, or stops at limit
 * when there are at least that many (uses then partly marked).
 */
struct cdg_users;
struct hop_map;
struct cdg_users *cdg_users_new(const struct fabric *f, const struct routing_tables *t, const struct hop_map *hops,
				unsigned layer, bool answers);
void cdg_users_list(struct cdg_users *u);
unsigned cdg_users_of(struct cdg_users *u, const struct cdg_channel *a, const struct cdg_channel *b, bool *uses,
		      unsigned limit);
/* How many LIDs, on any layer, have routes making a depend on b: a cheap guess at how many use it. */
size_t cdg_users_reach(const struct cdg_users *u, const struct cdg_channel *a, const struct cdg_channel *b);
void cdg_users_free(struct cdg_users *u);
/*
 * A switch's own packets (answers from its port 0) leave on VL 0 whatever
 * their SL: sm/sweep/qos.c maps every SL of input port 0 to VL 0. On a
 * layer above 0 they take the layer's VL from the next switch on, so the
 * first hop, often the down-and-up turn of an escape route, is not part of
 * the layer's graph, and on VL 0 it waits only on another VL, which can
 * never wait back.
 */
static inline bool cdg_own_hop_on_vl0(unsigned layer)
{
	return layer > 0;
}
typedef void (*cdg_sender_fn)(void *arg, uint16_t lid, const struct node *sw, bool own);
/*
 * Where the layer's own LIDs send from. A pair of ports talks on one SL
 * both ways (a GMP answer and an RC connection's return traffic keep the
 * request's SL), and fabricd's SL is the destination's: so a CA whose LID
 * is on this layer may send to any CA on this layer's VL (answering
 * another host), and so may a switch whose LID is on it (answering a
 * host's PMA query). Switches do not talk to each other on data VLs: SMPs
 * and traps go on VL15. Calls fn for each LID on the layer (up to max_lid):
 * a CA's with its entry switch, or a switch's own (own) with the switch.
 */
void cdg_each_layer_lid(const struct fabric *f, const struct cdg_mix *m, unsigned layer, uint16_t max_lid,
			cdg_sender_fn fn, void *arg);
/* The switch where traffic from port (0 of a switch, else of a CA) enters the fabric, or NULL. */
const struct node *cdg_entry_switch(const struct node *n, unsigned port);
/*
 * The switches where CAs' traffic enters the fabric, each once, in node
 * and port order, into out (f->nnodes entries); how many, or SIZE_MAX on
 * allocation failure.
 */
size_t cdg_entry_switches(const struct fabric *f, const struct node **out);
/* "L0[9] -> A0[3] -> ... -> L0[9]" into buf. */
void cdg_cycle_text(const struct cdg_report *r, char *buf, size_t len);

#endif
