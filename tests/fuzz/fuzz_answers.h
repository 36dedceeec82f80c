/*
 * fuzz_answers.h - what the fuzz targets behind tests/common/smp_sim.h do
 * to the nodes' answers, as fuzz_records.h reads an input: a record
 * rewrites a byte of an SMP's data, or with a third byte of 0xf0 or more
 * loses the answer. The simulator's true fabric is a 2-level radix-4 fat
 * tree. Include after smp_sim.h; call fuzz_answers_start with each input.
 */
#ifndef TESTS_FUZZ_ANSWERS_H
#define TESTS_FUZZ_ANSWERS_H

#include <stdint.h>
#include <stdlib.h>

#include "fuzz_records.h"
#include "topology/fattree_gen.h"

static unsigned fuzz_answer;	/* the number of the next answer */

/* smp_sim.h's tamper hook: answer k's data as the records say. */
static void fuzz_tamper(const struct node *n, ib_net16_t attr, uint32_t mod, ib_smp_t *r)
{
	fuzz_record_write(fuzz_answer, r->data, IB_SMP_DATA_SIZE);
}

/*
 * The wrapped mad_send_dr's part: queues the simulator's answer, tampered
 * or lost as the records say. -1 when the queue is full (as a port out of
 * memory: the caller copes).
 */
static int fuzz_queue(uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path, uint8_t hops,
		      const void *data, size_t len, mad_done_fn done, void *ctx)
{
	if (queued == QUEUE)
		return -1;
	bool lost = fuzz_record_control(fuzz_answer) != 0;
	sim_queue(method, attr, mod, path, hops, data, len, done, ctx);
	fuzz_answer++;
	if (lost)
		queue[queued - 1].status = MAD_TIMEOUT;
	return 0;
}

/* Starts an input's run (the true fabric made on the first). */
static void fuzz_answers_start(const uint8_t *data, size_t size)
{
	char err[256];
	if (!truth.nnodes && fattree_generate(&(struct fattree_spec){ .levels = 2, .radix = 4 }, &truth, err) < 0)
		abort();
	fuzz_records_take(data, size);
	fuzz_answer = 0;
	sim_tamper = fuzz_tamper;
}

#endif
