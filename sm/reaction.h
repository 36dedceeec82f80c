/*
 * reaction.h - how long fabricd took to answer a reported change: from
 * the report (a trap, a light sweep that found a port change, the table
 * audit finding a table unlike the published one) to the switches holding
 * the new tables (every LFT Set of the sweep that answered it answered).
 * Counted for /metrics (a histogram) and fabricctl status.
 */
#ifndef SM_REACTION_H
#define SM_REACTION_H

#include <stdint.h>

#define REACTION_BOUNDS 9

/* The histogram's upper bounds in milliseconds (its buckets; +Inf beyond). */
extern const uint32_t reaction_bounds_ms[REACTION_BOUNDS];

struct reaction {
	uint64_t count, sum_ms, last_ms;
	uint64_t within[REACTION_BOUNDS];	/* answered within reaction_bounds_ms[i] (cumulative) */
};

/* One change answered ms milliseconds after it was reported. */
void reaction_record(struct reaction *r, uint64_t ms);

#endif
