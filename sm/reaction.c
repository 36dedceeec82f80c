/*
 * DOC: reaction times
 *
 * The changes fabricd answered, counted by how long their tables took to
 * be in place (sm/reaction.h): cumulative buckets, as a Prometheus
 * histogram wants them, from 50 ms (a repair on a few thousand hosts) to
 * 30 s (a sweep that failed and the one after it).
 */
#include "sm/reaction.h"

const uint32_t reaction_bounds_ms[REACTION_BOUNDS] = { 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000 };

void reaction_record(struct reaction *r, uint64_t ms)
{
	r->count++;
	r->sum_ms += ms;
	r->last_ms = ms;
	for (unsigned i = 0; i < REACTION_BOUNDS; i++)
		r->within[i] += ms <= reaction_bounds_ms[i];
}
