/*
 * harness.h - what the unit tests of the daemon's parts share: running an
 * event loop for a while, and removing a scratch database with its
 * write-ahead log and shared-memory index. Include after <cmocka.h>.
 */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "sm/mad/evloop.h"

static inline void test_loop_stop(void *arg)
{
	evl_stop(arg);
}

/* Runs loop l for ms milliseconds. */
static inline void test_run_loop_for(struct evloop *l, uint64_t ms)
{
	struct evl_watch *t = evl_timer(l, test_loop_stop, l);
	evl_timer_arm(t, ms);
	assert_int_equal(evl_run(l), 0);
	evl_watch_free(t);
}

/* Removes the database at path, and its -wal and -shm files. */
static inline void test_remove_db(const char *path)
{
	char side[4200];
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

#endif
