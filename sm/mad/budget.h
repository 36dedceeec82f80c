/*
 * budget.h - how many requests each source LID may make a minute (a token
 * bucket per LID), so one host cannot flood the SM with traps or SA work.
 */
#ifndef SM_BUDGET_H
#define SM_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct budget_slot {
	uint64_t last_ms;	/* when the tokens were last brought up to date */
	uint64_t units;		/* tokens x 60000: a minute of per_minute refills exactly */
	bool seen, over;
};

struct budget {
	unsigned per_minute;		/* also the burst; 0: no limit */
	struct budget_slot *slots;	/* one per unicast LID, allocated on first use */
	struct budget_slot shared;	/* LIDs outside the unicast range, or no memory for slots */
};

enum budget_verdict {
	BUDGET_OK,
	BUDGET_FIRST_OVER,	/* refused, and the first refusal since the source was last within budget */
	BUDGET_OVER,		/* refused again */
};

void budget_init(struct budget *b, unsigned per_minute);
void budget_free(struct budget *b);
/* Charges one request of source lid at time now_ms. */
enum budget_verdict budget_charge(struct budget *b, uint16_t lid, uint64_t now_ms);

#endif
