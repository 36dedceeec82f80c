/*
 * DOC: routing entry point
 *
 * What the SM calls: after a loss, mend the tables the switches hold in
 * place (routing/stable.c, stable_patch); else run the configured engine
 * (merged with the held tables where they still deliver). Then prove the
 * result deadlock-free and free of forwarding loops from every switch:
 * at once when every turn rises in the up*-down* order
 * (routing/order_proof.c, a healthy fat tree), else with the channel
 * dependency graph, splitting it into VL layers when one VL is not
 * enough. Nothing cyclic or looping leaves this function as a success.
 */
#include "routing/engine.h"
#include "routing/memo.h"
#include "routing/order_proof.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { [ENGINE_FTREE] = "ftree", [ENGINE_UPDOWN] = "updown",
				      [ENGINE_MINHOP] = "minhop" };

int routing_engine_parse(const char *name, enum routing_engine *e)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0) {
			*e = (enum routing_engine)i;
			return 0;
		}
	return -1;
}

const char *routing_engine_name(enum routing_engine e)
{
	return names[e];
}

void routing_engine_list(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]) && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i]);
}

static int run_engine(const struct fabric *f, const struct routing_request *rq, struct routing_tables *out,
		      struct route_info *info)
{
	switch (rq->engine) {
	case ENGINE_FTREE:
		return ftree_route(f, rq->roots, rq->nroots, rq->max_layers, out, info);
	case ENGINE_UPDOWN:
		return updown_route(f, out, info);
	case ENGINE_MINHOP:
		memset(info, 0, sizeof(*info));
		snprintf(info->engine, sizeof(info->engine), "minhop");
		return minhop_route(f, out);
	}
	return -1;
}

/*
 * The loop check's helper beside the layering, at idle priority: it takes
 * the check's blocks while the layering leaves a CPU idle, and never
 * slows the layering's own walks on both CPUs.
 */
static void *help_idle(void *arg)
{
	struct sched_param no_priority = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &no_priority);
	loops_work_take(arg, 1);
	return NULL;
}

/*
 * Layers t and looks for loops (at the LIDs in loop_lids; NULL: all, the
 * others known to deliver without one): 0 proven, 1 not (res says why),
 * -1 on allocation failure. offer: the LIDs whose layers are the engine's
 * first guess (layers_assign), not kept or mended ones whose SLs hosts
 * already use; NULL: none.
 */
static int prove(const struct fabric *f, const struct routing_request *rq, struct routing_tables *t,
		 const bool *loop_lids, const bool *offer, struct routing_result *res)
{
	unsigned max_layers = rq->max_layers ? rq->max_layers : 1;
	/* every turn rising in the up*-down* order proves it all at once; else build the graph */
	int ordered = t->layers <= max_layers ? order_proof(f, t) : 0;
	if (ordered < 0)
		return -1;
	res->order_proven = ordered;
	if (ordered) {
		memset(&res->layers, 0, sizeof(res->layers));
		res->layers.layers = t->layers;
		res->layers.answers_proven = true;
		memset(&res->cdg, 0, sizeof(res->cdg));
		memset(&res->loops, 0, sizeof(res->loops));
		return 0;
	}
	/*
	 * The layering's searches leave a CPU idle much of the time: the loop
	 * check takes it, at idle priority (help_idle), and the blocks left
	 * when the layering is done are taken here, at this thread's: idle
	 * priority gets next to no CPU on a busy machine, so nothing waits on
	 * it but the one block it may be in.
	 */
	struct loops_work *lw = loops_work_new(f, t, loop_lids, 2);
	if (!lw)
		return -1;
	pthread_t thread;
	bool beside = pthread_create(&thread, NULL, help_idle, lw) == 0;
	int rc = layers_assign(f, t, max_layers, offer, &res->layers);
	loops_work_take(lw, 0);
	if (beside)
		pthread_join(thread, NULL);
	if (loops_work_end(lw, &res->loops) < 0)
		rc = -1;
	res->cdg = res->layers.cdg;
	return rc < 0 ? -1 : rc || res->loops.entries ? 1 : 0;
}

/*
 * Replaces fresh by its merge with rq->keep when the merge keeps some
 * route and proves out with the answers: 1 when it did (res proven), 0
 * when fresh stays (res->kept_refused if the merge was tried), -1 on
 * allocation failure.
 */
static int keep_routes(const struct fabric *f, const struct routing_request *rq, struct routing_tables *fresh,
		       struct routing_result *res)
{
	struct routing_tables merged;
	bool *from_fresh = calloc((size_t)fresh->max_lid + 1, sizeof(*from_fresh));
	if (!from_fresh || stable_merge(rq->keep_fabric, rq->keep, f, fresh, &merged, &res->stable, from_fresh) < 0) {
		free(from_fresh);
		return -1;
	}
	size_t some = res->stable.kept + res->stable.patched;
	int rc = some ? prove(f, rq, &merged, from_fresh, from_fresh, res) : 1;	/* the merge walked the other columns */
	free(from_fresh);
	if (rc == 0 && res->layers.answers_proven) {
		routing_tables_free(fresh);
		*fresh = merged;
		return 1;
	}
	routing_tables_free(&merged);
	res->kept_refused = some > 0;
	res->stable.kept = res->stable.patched = 0;
	return rc < 0 ? -1 : 0;
}

/*
 * rq->keep mended in place after a loss (the fat-tree engine only), into
 * out: 1 when the mend proves out with the answers (res proven), 0 when
 * the fresh routing is needed (res cleared), -1 on allocation failure.
 */
static int mend(const struct fabric *f, const struct routing_request *rq, struct routing_tables *out,
		struct routing_result *res)
{
	if (rq->engine != ENGINE_FTREE || rq->no_mend)
		return 0;
	int rc = ftree_mend(f, rq->roots, rq->nroots, rq->max_layers ? rq->max_layers : 1, rq->keep_fabric, rq->keep,
			    out, &res->info, &res->stable);
	if (rc)
		return rc < 0 ? -1 : 0;
	bool *none = calloc((size_t)out->max_lid + 1, sizeof(*none));	/* the mend walked every column */
	rc = none ? prove(f, rq, out, none, NULL, res) : -1;
	free(none);
	if (rc == 0 && res->layers.answers_proven)
		return 1;
	routing_tables_free(out);
	memset(res, 0, sizeof(*res));
	return rc < 0 ? -1 : 0;
}

/* What a fresh routing's proof gave (a memo's), into res, which keeps what the kept routes' merge said. */
static void fresh_result_of(struct routing_result *res, const struct routing_result *fresh)
{
	res->info = fresh->info;
	res->layers = fresh->layers;
	res->cdg = fresh->cdg;
	res->loops = fresh->loops;
	res->order_proven = fresh->order_proven;
	res->memo_used = true;
}

int routing_compute(const struct fabric *f, const struct routing_request *rq, struct routing_tables *out,
		    struct routing_result *res)
{
	memset(res, 0, sizeof(*res));
	int mended = rq->keep ? mend(f, rq, out, res) : 0;
	if (mended)
		return mended < 0 ? -1 : 0;
	bool memo = routing_memo_fits(rq->memo, f, rq);
	if (memo ? routing_tables_copy(out, &rq->memo->t) < 0 : run_engine(f, rq, out, &res->info) < 0)
		return -1;
	int rc = rq->keep ? keep_routes(f, rq, out, res) : 0;
	if (rc == 1)
		return 0;
	if (rc == 0 && memo) {
		fresh_result_of(res, &rq->memo->res);
		return 0;
	}
	if (rc == 0) {
		bool *every = malloc((size_t)out->max_lid + 1);	/* the engine's tables, every layer its guess */
		if (every)
			memset(every, true, (size_t)out->max_lid + 1);
		rc = every ? prove(f, rq, out, NULL, every, res) : -1;
		free(every);
	}
	/* kept only when proven whole: a cycle or loop in res names nodes of this fabric */
	if (rc == 0 && rq->memo && res->layers.answers_proven && routing_memo_keep(rq->memo, f, rq, out, res) < 0)
		rc = -1;
	if (rc < 0)
		routing_tables_free(out);
	return rc;
}
