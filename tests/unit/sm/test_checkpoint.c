/*
 * The database's write-ahead log copied back when fabricd is idle
 * (sm/checkpoint.c): a write arms the copy, which happens on the loop
 * half a second later, not while a sweep runs (it waits for its end),
 * and not at all without a write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"
#include "sm/sm.h"

static char path[64];

static off_t file_size(void)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* A write the log takes (and the file not, until a checkpoint). */
static void write_something(struct sm *sm)
{
	struct db_new_event ev = { "test", "a row for the log" };
	for (int i = 0; i < 200; i++)
		assert_int_equal(db_add_events_now(sm->db, &ev, 1), 0);
	sm_db_written(sm);
}

static void the_log_goes_back_when_idle(void **state)
{
	(void)state;
	char err[DB_ERR_LEN];
	struct sm sm;
	memset(&sm, 0, sizeof(sm));
	snprintf(path, sizeof(path), "/tmp/fabricd-test-ckpt.%d.db", (int)getpid());
	unlink(path);
	sm.db = db_open(path, DB_READ_WRITE, err);
	assert_non_null(sm.db);
	sm.loop = evl_new();
	assert_int_equal(checkpoint_init(&sm), 0);

	test_run_loop_for(sm.loop, 700);	/* nothing written: nothing armed */
	assert_false(sm.checkpoint.pending);
	off_t before = file_size();
	write_something(&sm);
	assert_true(sm.checkpoint.pending);
	assert_int_equal(file_size(), before);	/* in the log only */
	sm.sched.sweeping = true;
	test_run_loop_for(sm.loop, 700);	/* due meanwhile, but a sweep runs: not yet */
	assert_true(sm.checkpoint.pending);
	assert_int_equal(file_size(), before);
	sm.sched.sweeping = false;
	test_run_loop_for(sm.loop, 700);
	assert_false(sm.checkpoint.pending);
	assert_true(file_size() > before);

	checkpoint_free(&sm);
	db_close(sm.db);
	evl_free(sm.loop);
	test_remove_db(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_log_goes_back_when_idle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
