/*
 * DOC: work one step ahead
 *
 * A filler thread and the caller share a ring of AHEAD_SLOTS buffers under
 * one mutex. Item i is filled into slot i % AHEAD_SLOTS once the caller
 * has taken the item that was there (claimed - taken < AHEAD_SLOTS); the
 * caller takes slot taken % AHEAD_SLOTS once that item is filled, leaving
 * its own buffer in its place. Whoever claims an item fills it outside the
 * lock; a slot being filled is never the caller's at that time.
 *
 * A caller whose next item is not filled yet claims the next unclaimed
 * one and fills it itself rather than wait: where filling costs more than
 * the caller's own work, both CPUs fill. Which CPU fills an item does not
 * change what is filled, so the caller's results stay those of doing both
 * in turn.
 */
#include "routing/ahead.h"

/* Fills the next unclaimed item (a->lock held; released while filling). */
static void fill_one(struct ahead *a)
{
	size_t item = a->claimed++;
	void *buf = a->slot[item % AHEAD_SLOTS];
	pthread_mutex_unlock(&a->lock);
	a->fill(a->ctx, buf, a->items[item]);
	pthread_mutex_lock(&a->lock);
	a->ready[item % AHEAD_SLOTS] = true;
	pthread_cond_broadcast(&a->changed);
}

static bool can_claim(const struct ahead *a)
{
	return a->claimed < a->n && a->claimed - a->taken < AHEAD_SLOTS;
}

static void *run(void *arg)
{
	struct ahead *a = arg;
	pthread_mutex_lock(&a->lock);
	while (!a->stop && a->claimed < a->n) {
		if (can_claim(a))
			fill_one(a);
		else	/* every slot claimed: wait for the caller */
			pthread_cond_wait(&a->changed, &a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

void ahead_start(struct ahead *a, ahead_fill_fn fill, const void *ctx, const size_t *items, size_t n,
		 void *const spare[AHEAD_SLOTS], bool threaded)
{
	*a = (struct ahead){ .fill = fill, .ctx = ctx, .items = items, .n = n };
	for (size_t k = 0; k < AHEAD_SLOTS; k++)
		a->slot[k] = spare[k];
	if (!threaded || n < 2)
		return;
	if (pthread_mutex_init(&a->lock, NULL) != 0)
		return;
	if (pthread_cond_init(&a->changed, NULL) != 0) {
		pthread_mutex_destroy(&a->lock);
		return;
	}
	a->threaded = pthread_create(&a->thread, NULL, run, a) == 0;
	if (!a->threaded) {	/* no thread to be had: the caller fills each item itself */
		pthread_cond_destroy(&a->changed);
		pthread_mutex_destroy(&a->lock);
	}
}

void ahead_next(struct ahead *a, void **buf)
{
	if (!a->threaded) {
		a->fill(a->ctx, *buf, a->items[a->taken++]);
		return;
	}
	pthread_mutex_lock(&a->lock);
	size_t k = a->taken % AHEAD_SLOTS;
	while (!a->ready[k]) {
		if (can_claim(a))
			fill_one(a);
		else
			pthread_cond_wait(&a->changed, &a->lock);
	}
	void *full = a->slot[k];
	a->slot[k] = *buf;
	*buf = full;
	a->ready[k] = false;
	a->taken++;
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->lock);
}

void ahead_end(struct ahead *a)
{
	if (!a->threaded)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->changed);
	pthread_mutex_destroy(&a->lock);
	a->threaded = false;
}
