/*
 * ahead.h - work done one step ahead on another CPU. A loop over a known
 * list of items needs, for each item in turn, a result that depends on
 * the item alone (an up/down routing's candidate ports towards one
 * destination switch) and then does work that depends on the items
 * before it (choosing ports by the load so far). The first part runs on
 * a second thread, up to AHEAD_SLOTS items ahead (and on the caller's
 * while its next item is not ready), into buffers that the caller takes
 * over by swapping its own for them: no copy, and the caller's order and
 * results are exactly those of doing both in turn.
 */
#ifndef ROUTING_AHEAD_H
#define ROUTING_AHEAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define AHEAD_SLOTS 8

/* Computes the part for item into buf; ctx is the caller's and must not change while it runs. */
typedef void (*ahead_fill_fn)(const void *ctx, void *buf, size_t item);

struct ahead {
	ahead_fill_fn fill;
	const void *ctx;
	const size_t *items;
	size_t n;
	void *slot[AHEAD_SLOTS];	/* buffers filled in turn, item i into slot i % AHEAD_SLOTS */
	bool ready[AHEAD_SLOTS];	/* the slot holds its item, filled */
	size_t claimed, taken;		/* items handed to a filler, and to the caller, so far */
	bool threaded, stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

/*
 * Starts filling items[0..n) ahead, into slot buffers spare[0..AHEAD_SLOTS)
 * (the caller's, shaped like the buffer it works in), when threaded and a
 * thread can be had; otherwise ahead_next fills each item itself.
 */
void ahead_start(struct ahead *a, ahead_fill_fn fill, const void *ctx, const size_t *items, size_t n,
		 void *const spare[AHEAD_SLOTS], bool threaded);
/*
 * The next item's part in *buf: a filled slot's buffer swapped for *buf
 * (which becomes a spare), or, without a thread, filled into *buf.
 */
void ahead_next(struct ahead *a, void **buf);
/* Stops the thread (if the caller leaves the loop early) and waits for it. */
void ahead_end(struct ahead *a);

#endif
