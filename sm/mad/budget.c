/*
 * DOC: per-source budgets
 *
 * A token bucket per source LID: per_minute tokens at most, refilled at
 * per_minute a minute, one spent per request. Tokens are counted in
 * 1/60000ths so that every millisecond adds exactly per_minute units and
 * nothing is lost to rounding however often a source sends. The slots are
 * one array indexed by LID (48k entries), allocated the first time a
 * budget is charged: a lookup costs nothing however many hosts send.
 */
#include "sm/mad/budget.h"

#include <stdlib.h>

#include "topology/fabric.h"

#define UNITS_PER_TOKEN 60000u

void budget_init(struct budget *b, unsigned per_minute)
{
	*b = (struct budget){ .per_minute = per_minute };
}

void budget_free(struct budget *b)
{
	free(b->slots);
	b->slots = NULL;
}

enum budget_verdict budget_charge(struct budget *b, uint16_t lid, uint64_t now_ms)
{
	if (!b->per_minute)
		return BUDGET_OK;
	if (!b->slots)
		b->slots = calloc(FABRIC_MAX_UCAST_LID + 1, sizeof(*b->slots));
	struct budget_slot *s = b->slots && lid <= FABRIC_MAX_UCAST_LID ? &b->slots[lid] : &b->shared;
	uint64_t full = (uint64_t)b->per_minute * UNITS_PER_TOKEN;
	if (!s->seen) {
		*s = (struct budget_slot){ now_ms, full, true, false };
	} else if (now_ms > s->last_ms) {
		uint64_t units = s->units + (now_ms - s->last_ms) * b->per_minute;
		s->units = units > full ? full : units;
		s->last_ms = now_ms;
	}
	if (s->units >= UNITS_PER_TOKEN) {
		s->units -= UNITS_PER_TOKEN;
		s->over = false;
		return BUDGET_OK;
	}
	bool first = !s->over;
	s->over = true;
	return first ? BUDGET_FIRST_OVER : BUDGET_OVER;
}
