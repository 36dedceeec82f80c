/*
 * paced.h - Gets asked a few at a time: the next asked as each answer
 * comes, so that a read of thousands of tables (the table audit, the
 * read-back of every switch's LFT) never holds more than `limit` MADs
 * queued.
 */
#ifndef SM_PACED_H
#define SM_PACED_H

#include <stdbool.h>

#include "sm/mad/mad.h"
#include "topology/fabric.h"

struct paced {
	unsigned in_flight;	/* Gets out (and 1 while the owner sets out, so nothing ends early) */
	unsigned limit;
	bool asking;		/* in the loop that asks for more */
	bool (*ask_more)(void *owner);	/* asks for the next Get (paced_get); false when none is left */
	void *owner;
};

/* A Get of attr (modifier mod) about n's port (0 on a switch), counted out; false when it could not go. */
bool paced_get(struct paced *p, struct mad_port *mp, const struct node *n, uint8_t port, ib_net16_t attr,
	       uint32_t mod, mad_done_fn done, void *ctx);

/*
 * One Get answered (or never to be): asks for more while any is left and
 * fewer than limit are out. True when that was the last answer: the
 * owner's read is over. An answer given inside the asking loop (a send
 * that failed at once) only counts.
 */
bool paced_answered(struct paced *p);

#endif
