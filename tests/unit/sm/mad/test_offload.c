/*
 * Work on another thread, its end on the loop (sm/mad/offload.c): the
 * work runs on a thread that is not the caller's, its end only once the
 * loop runs, on the loop's thread, after the work; several at once each
 * end once; abandoned, the work is waited for and its end never runs.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>

#include "sm/mad/offload.h"

struct job {
	pthread_t worked_on, ended_on;
	bool worked, ended;
	unsigned ends;
	unsigned sleep_ms;
};

static void work(void *arg)
{
	struct job *j = arg;
	usleep(j->sleep_ms * 1000);
	j->worked_on = pthread_self();
	j->worked = true;
}

static void end(void *arg)
{
	struct job *j = arg;
	assert_true(j->worked);	/* after the work, always */
	j->ended_on = pthread_self();
	j->ended = true;
	j->ends++;
}

static void work_elsewhere_end_on_the_loop(void **state)
{
	(void)state;
	struct evloop *l = evl_new();
	struct job a = { .sleep_ms = 20 }, b = { .sleep_ms = 1 };
	assert_non_null(offload_start(l, work, end, &a));
	assert_non_null(offload_start(l, work, end, &b));
	assert_false(a.ended);	/* not before the loop runs */
	while (!a.ended || !b.ended)
		assert_int_equal(evl_run_once(l), 0);
	assert_false(pthread_equal(a.worked_on, pthread_self()));
	assert_false(pthread_equal(b.worked_on, pthread_self()));
	assert_true(pthread_equal(a.ended_on, pthread_self()));
	assert_true(pthread_equal(b.ended_on, pthread_self()));
	assert_int_equal(a.ends, 1);
	assert_int_equal(b.ends, 1);
	evl_free(l);
}

static void abandoned_work_is_waited_for_and_never_ended(void **state)
{
	(void)state;
	struct evloop *l = evl_new();
	struct job a = { .sleep_ms = 20 };
	struct offload *o = offload_start(l, work, end, &a);
	assert_non_null(o);
	offload_abandon(o);
	assert_true(a.worked);
	assert_false(a.ended);
	offload_abandon(NULL);
	evl_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(work_elsewhere_end_on_the_loop),
		cmocka_unit_test(abandoned_work_is_waited_for_and_never_ended),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
