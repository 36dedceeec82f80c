/*
 * shares.h - a range of independent work items cut into equal shares, one
 * per CPU, each run on its own thread (the first on the caller's).
 */
#ifndef ROUTING_SHARES_H
#define ROUTING_SHARES_H

#include <stddef.h>

#define SHARES_MAX 8

/* Does items [from, to), share k of the run; must touch nothing another share writes. */
typedef void (*share_fn)(void *arg, size_t k, size_t from, size_t to);

/* How many shares n items get: 1 below min_items or on one CPU, else one per CPU, at most SHARES_MAX. */
size_t shares_count(size_t n, size_t min_items);

/*
 * Runs fn over [0, n) cut into nshares (at most SHARES_MAX) consecutive
 * shares, and returns once all are done. A share whose thread cannot be
 * had runs on the caller's after its own: the same calls either way.
 */
void shares_run(size_t nshares, size_t n, share_fn fn, void *arg);

#endif
