/*
 * engine.h - routing as the SM asks for it: an engine by name, and a
 * result proven deadlock-free within the VLs the fabric has.
 */
#ifndef ROUTING_ENGINE_H
#define ROUTING_ENGINE_H

#include "routing/layers.h"
#include "routing/loops.h"
#include "routing/routing.h"
#include "routing/stable.h"

enum routing_engine { ENGINE_FTREE, ENGINE_UPDOWN, ENGINE_MINHOP };

struct routing_memo;	/* routing/memo.h */

struct routing_request {
	enum routing_engine engine;
	const uint64_t *roots;	/* ftree: optional top-switch GUIDs */
	size_t nroots;
	unsigned max_layers;	/* VLs available for layering (0 means 1) */
	/*
	 * The tables the switches hold, on keep_fabric (NULL: none known, or
	 * every destination re-balanced): destinations whose routes the
	 * change left whole keep them (routing/stable.h).
	 */
	const struct fabric *keep_fabric;
	const struct routing_tables *keep;
	bool no_mend;	/* with keep: route afresh and merge even after a loss (the mend's transition did not prove out) */
	/*
	 * The last fresh routing (NULL: none kept): taken instead of routing
	 * afresh when it is of the same fabric and request, and replaced by
	 * each fresh routing that proves out.
	 */
	struct routing_memo *memo;
};

struct routing_result {
	struct route_info info;
	struct layers_report layers;
	struct cdg_report cdg;	/* acyclic: sums over layers; cyclic: the cycle */
	struct loops_report loops;	/* switch entries (for any source) that loop */
	struct stable_report stable;	/* with keep: the destinations whose routes were kept */
	bool kept_refused;	/* with keep: the kept routes did not prove out, all were re-balanced */
	bool order_proven;	/* proven by routing/order_proof.c (cdg, loops: empty), not by building the graph */
	bool memo_used;		/* the fresh routing was rq->memo's, routed and proven before on the same fabric */
};

/* 0 and *e set, or -1 for an unknown name. */
int routing_engine_parse(const char *name, enum routing_engine *e);
const char *routing_engine_name(enum routing_engine e);
/* "ftree, updown, minhop": the names routing_engine_parse knows, for messages. */
void routing_engine_list(char *buf, size_t len);

/*
 * Runs the engine and layers the result. With rq->keep and the fat-tree
 * engine, a fabric that only lost something is first mended in place
 * (res->stable.mended: no fresh routing) and taken when that proves out
 * with the switches' answers. Otherwise the engine runs, and with
 * rq->keep the routes the change left whole are kept (res->stable) when
 * the merged tables prove out with the switches' answers; otherwise
 * (res->kept_refused) the fresh routing is proven and returned as
 * without keep. The fresh routing comes from rq->memo when that holds
 * this fabric's (res->memo_used). Returns 0 (out filled, every
 * layer acyclic and no switch entry loops), 1 (out filled but a cycle
 * remains within max_layers, res->cdg names it, or some entry loops,
 * res->loops names it: do not program it), or -1 on allocation failure.
 */
int routing_compute(const struct fabric *f, const struct routing_request *rq, struct routing_tables *out,
		    struct routing_result *res);

#endif
