/*
 * fuzz_answers.h - what the fuzz targets behind tests/common/smp_sim.h do
 * to the nodes' answers: an input is a list of four-byte records, each
 * naming an answer by its number (the first two bytes, little-endian,
 * counted from 0 over the whole input's run), a byte of its data (the
 * third, modulo the data's size) and the value that byte takes (the
 * fourth); a third byte of 0xf0 or more loses the answer instead. The
 * simulator's true fabric is a 2-level radix-4 fat tree. Include after
 * smp_sim.h; call fuzz_answers_start with each input.
 */
#ifndef TESTS_FUZZ_ANSWERS_H
#define TESTS_FUZZ_ANSWERS_H

#include <stdint.h>
#include <stdlib.h>

#include "topology/fattree_gen.h"

#define FUZZ_RECORDS_MAX 256	/* records read of an input: the rest is ignored */

static const uint8_t *fuzz_records;
static size_t fuzz_nrecords;
static unsigned fuzz_answer;	/* the number of the next answer */

/* Whether a record loses answer k. */
static bool fuzz_answer_lost(unsigned k)
{
	for (size_t i = 0; i < fuzz_nrecords; i++) {
		const uint8_t *r = fuzz_records + 4 * i;
		if ((unsigned)(r[0] | r[1] << 8) == k && r[2] >= 0xf0)
			return true;
	}
	return false;
}

/* smp_sim.h's tamper hook: answer k's data as the records say. */
static void fuzz_tamper(const struct node *n, ib_net16_t attr, uint32_t mod, ib_smp_t *r)
{
	for (size_t i = 0; i < fuzz_nrecords; i++) {
		const uint8_t *rec = fuzz_records + 4 * i;
		if ((unsigned)(rec[0] | rec[1] << 8) == fuzz_answer && rec[2] < 0xf0)
			r->data[rec[2] % IB_SMP_DATA_SIZE] = rec[3];
	}
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
	bool lost = fuzz_answer_lost(fuzz_answer);
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
	fuzz_records = data;
	fuzz_nrecords = size / 4 < FUZZ_RECORDS_MAX ? size / 4 : FUZZ_RECORDS_MAX;
	fuzz_answer = 0;
	sim_tamper = fuzz_tamper;
}

#endif
