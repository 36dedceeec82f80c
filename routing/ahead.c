/*
 * DOC: work one step ahead
 *
 * A single producer (the thread) and a single consumer (the caller) share
 * a ring of AHEAD_SLOTS buffers under one mutex: the thread fills slot
 * filled % AHEAD_SLOTS once the caller has taken the item that was there,
 * the caller takes slot taken % AHEAD_SLOTS once it is filled, leaving its
 * own buffer in its place for the thread to fill next. The thread fills
 * outside the lock; a slot it fills is never the caller's at that time.
 */
#include "routing/ahead.h"

static void *run(void *arg)
{
	struct ahead *a = arg;
	pthread_mutex_lock(&a->lock);
	while (!a->stop && a->filled < a->n) {
		if (a->filled - a->taken == AHEAD_SLOTS) {	/* every slot full: wait for the caller */
			pthread_cond_wait(&a->changed, &a->lock);
			continue;
		}
		size_t item = a->filled;
		void *buf = a->slot[item % AHEAD_SLOTS];
		pthread_mutex_unlock(&a->lock);
		a->fill(a->ctx, buf, a->items[item]);
		pthread_mutex_lock(&a->lock);
		a->filled++;
		pthread_cond_broadcast(&a->changed);
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
	while (a->filled == a->taken)
		pthread_cond_wait(&a->changed, &a->lock);
	size_t k = a->taken % AHEAD_SLOTS;
	void *full = a->slot[k];
	a->slot[k] = *buf;
	*buf = full;
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
