/*
 * Work done ahead on another thread (routing/ahead.c): the caller sees
 * every item's result in order, in buffers it takes over by swapping,
 * threaded or not; a caller that leaves the loop early stops the thread;
 * a caller whose next item is late fills items itself, in order all the
 * same; and up/down routing, which fills each destination's candidates ahead on
 * fabrics of 256 switches or more, gives the same tables run after run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "routing/ahead.h"
#include "routing/routing.h"
#include "topology/fattree_gen.h"

struct square {
	size_t item, value;
};

static void fill_square(const void *ctx, void *buf, size_t item)
{
	struct square *s = buf;
	s->item = item;
	s->value = item * item + *(const size_t *)ctx;
}

/* Runs n items through ahead (threaded or not), taking `take` of them; checks each result. */
static void run(size_t n, size_t take, bool threaded)
{
	size_t offset = 7, *items = malloc(n * sizeof(*items));
	struct square sets[1 + AHEAD_SLOTS];
	void *spare[AHEAD_SLOTS];
	for (size_t k = 0; k < AHEAD_SLOTS; k++)
		spare[k] = &sets[k + 1];
	for (size_t i = 0; i < n; i++)
		items[i] = (i * 7919) % 1000;	/* not in order: the list's order is kept */
	struct square *mine = &sets[0];
	struct ahead a;
	ahead_start(&a, fill_square, &offset, items, n, spare, threaded);
	for (size_t i = 0; i < take; i++) {
		ahead_next(&a, (void **)&mine);
		assert_int_equal(mine->item, items[i]);
		assert_int_equal(mine->value, items[i] * items[i] + offset);
	}
	ahead_end(&a);
	/* the caller's buffer and the slots are the three buffers it started with */
	bool seen[1 + AHEAD_SLOTS] = { false };
	seen[mine - sets] = true;
	for (size_t k = 0; k < AHEAD_SLOTS; k++) {
		struct square *s = a.slot[k];
		assert_false(seen[s - sets]);
		seen[s - sets] = true;
	}
	free(items);
}

static void test_ahead_in_order_threaded_or_not(void **state)
{
	run(5000, 5000, true);
	run(5000, 5000, false);
	run(1, 1, true);
	run(0, 0, true);
}

static void test_ahead_stops_when_the_caller_leaves_early(void **state)
{
	run(5000, 10, true);
	run(5000, 0, true);
}

struct slow_filler {
	pthread_t caller;
	size_t by_caller;	/* written by the caller's thread only */
};

/* Squares, slowly (1 ms) on any thread but the caller's. */
static void fill_slowly_off_caller(const void *ctx, void *buf, size_t item)
{
	struct slow_filler *w = (struct slow_filler *)ctx;
	struct square *s = buf;
	s->item = item;
	s->value = item * item;
	if (pthread_equal(pthread_self(), w->caller))
		w->by_caller++;
	else
		usleep(1000);
}

static void test_ahead_caller_fills_when_the_thread_is_late(void **state)
{
	(void)state;
	size_t n = 200, items[200];
	struct square sets[1 + AHEAD_SLOTS], *mine = &sets[0];
	void *spare[AHEAD_SLOTS];
	struct slow_filler w = { .caller = pthread_self() };
	for (size_t k = 0; k < AHEAD_SLOTS; k++)
		spare[k] = &sets[k + 1];
	for (size_t i = 0; i < n; i++)
		items[i] = n - i;
	struct ahead a;
	ahead_start(&a, fill_slowly_off_caller, &w, items, n, spare, true);
	for (size_t i = 0; i < n; i++) {
		ahead_next(&a, (void **)&mine);
		assert_int_equal(mine->item, items[i]);
		assert_int_equal(mine->value, items[i] * items[i]);
	}
	ahead_end(&a);
	print_message("filled by the caller: %zu of %zu\n", w.by_caller, n);
	assert_true(w.by_caller > n / 2);
}

static void number_lids(struct fabric *f)
{
	uint16_t lid = 1;
	for (size_t i = 0; i < f->nnodes; i++)
		f->nodes[i]->ports[f->nodes[i]->type == NODE_SWITCH ? 0 : 1].lid = lid++;
}

/*
 * A degraded radix-16 tree has 320 switches: ftree fills ahead there (its
 * other tests check what the tables are). Here: runs give the same tables
 * entry for entry, whatever the threads' timing.
 */
static void test_ahead_ftree_tables_do_not_depend_on_timing(void **state)
{
	char err[256];
	struct fabric f;
	struct fattree_spec spec = { .levels = 3, .radix = 16, .remove_links = 24, .remove_switches = 4, .seed = 7 };
	assert_int_equal(fattree_generate(&spec, &f, err), 0);
	assert_true(fabric_count(&f, NODE_SWITCH) >= 256);
	number_lids(&f);
	struct routing_tables first, again;
	struct route_info info;
	assert_int_equal(ftree_route(&f, NULL, 0, 8, &first, &info), 0);
	for (int run = 0; run < 5; run++) {
		assert_int_equal(ftree_route(&f, NULL, 0, 8, &again, &info), 0);
		for (size_t i = 0; i < f.nnodes; i++)
			if (first.lft[i])
				assert_memory_equal(first.lft[i], again.lft[i], first.max_lid + 1u);
		routing_tables_free(&again);
	}
	routing_tables_free(&first);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ahead_in_order_threaded_or_not),
		cmocka_unit_test(test_ahead_stops_when_the_caller_leaves_early),
		cmocka_unit_test(test_ahead_caller_fills_when_the_thread_is_late),
		cmocka_unit_test(test_ahead_ftree_tables_do_not_depend_on_timing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
