/*
 * offload.h - work done on another thread, its end on the event loop's.
 */
#ifndef SM_OFFLOAD_H
#define SM_OFFLOAD_H

#include "sm/mad/evloop.h"

struct offload;

/*
 * Runs work(arg) on a thread of its own and, once it has returned,
 * done(arg) on l's thread, from the loop. work must touch nothing the loop
 * changes meanwhile. NULL when no thread (or pipe, or memory) can be had:
 * then nothing ran, and the caller does the work itself.
 */
struct offload *offload_start(struct evloop *l, evl_fn work, evl_fn done, void *arg);
/* Waits for the work to return and frees o; done never runs (at exit). NULL is fine. */
void offload_abandon(struct offload *o);

#endif
