/*
 * DOC: work shared out among the CPUs
 *
 * The items are cut into consecutive shares of equal count; share 0 runs
 * on the calling thread, the others on threads of their own, and the call
 * returns when every share is done. The callers keep each share's results
 * apart (a graph each, a slot each) and combine them in share order, so
 * what they compute does not depend on the number of CPUs.
 */
#include "routing/shares.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

struct share {
	share_fn fn;
	void *arg;
	size_t k, from, to;
};

static void *run_share(void *p)
{
	struct share *s = p;
	s->fn(s->arg, s->k, s->from, s->to);
	return NULL;
}

size_t shares_count(size_t n, size_t min_items)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < min_items || cpus < 2)
		return 1;
	return cpus > SHARES_MAX ? SHARES_MAX : (size_t)cpus;
}

void shares_run(size_t nshares, size_t n, share_fn fn, void *arg)
{
	struct share share[SHARES_MAX];
	pthread_t thread[SHARES_MAX];
	bool started[SHARES_MAX] = { false };
	if (nshares > SHARES_MAX)
		nshares = SHARES_MAX;
	if (nshares < 1)
		nshares = 1;
	for (size_t k = 0; k < nshares; k++)
		share[k] = (struct share){ fn, arg, k, n * k / nshares, n * (k + 1) / nshares };
	for (size_t k = 1; k < nshares; k++)
		started[k] = pthread_create(&thread[k], NULL, run_share, &share[k]) == 0;
	run_share(&share[0]);
	for (size_t k = 1; k < nshares; k++) {
		if (started[k])
			pthread_join(thread[k], NULL);
		else	/* no thread to be had: this one does it */
			run_share(&share[k]);
	}
}
