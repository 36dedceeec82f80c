/*
 * DOC: routing entry point
 *
 * What the SM calls: run the configured engine, then prove the result
 * deadlock-free with the channel dependency graph, splitting it into VL
 * layers when one VL is not enough, and free of forwarding loops from
 * every switch. Nothing cyclic or looping leaves this function as a
 * success.
 */
#include "routing/engine.h"

#include <stdio.h>
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

int routing_compute(const struct fabric *f, const struct routing_request *rq, struct routing_tables *out,
		    struct routing_result *res)
{
	memset(res, 0, sizeof(*res));
	if (run_engine(f, rq, out, &res->info) < 0)
		return -1;
	int rc = layers_assign(f, out, rq->max_layers ? rq->max_layers : 1, &res->layers);
	if (rc >= 0 && loops_find(f, out, &res->loops) < 0)
		rc = -1;
	if (rc < 0) {
		routing_tables_free(out);
		return -1;
	}
	res->cdg = res->layers.cdg;
	return rc || res->loops.entries ? 1 : 0;
}
