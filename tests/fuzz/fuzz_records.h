/*
 * fuzz_records.h - how the fuzz targets that play the nodes read their
 * input: a list of four-byte records, each naming an answer by its number
 * (the first two bytes, little-endian, counted from 0 over the whole
 * input's run), a byte of its data (the third, modulo the data's size)
 * and the value that byte takes (the fourth); a third byte of 0xf0 or
 * more does something else to the answer instead (loses it, say), which
 * each target defines. Include once per target.
 */
#ifndef TESTS_FUZZ_RECORDS_H
#define TESTS_FUZZ_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_RECORDS_MAX 256	/* records read of an input: the rest is ignored */
#define FUZZ_CONTROL 0xf0	/* a third byte from here on is no data byte */

static const uint8_t *fuzz_records;
static size_t fuzz_nrecords;

static void fuzz_records_take(const uint8_t *data, size_t size)
{
	fuzz_records = data;
	fuzz_nrecords = size / 4 < FUZZ_RECORDS_MAX ? size / 4 : FUZZ_RECORDS_MAX;
}

static unsigned fuzz_record_answer(const uint8_t *r)
{
	return (unsigned)(r[0] | r[1] << 8);
}

/* The third byte of the first record naming answer k with one of FUZZ_CONTROL or more, or 0: none. */
static uint8_t fuzz_record_control(unsigned k)
{
	for (size_t i = 0; i < fuzz_nrecords; i++) {
		const uint8_t *r = fuzz_records + 4 * i;
		if (fuzz_record_answer(r) == k && r[2] >= FUZZ_CONTROL)
			return r[2];
	}
	return 0;
}

/* Answer k's data (len bytes) as the records say. */
static void fuzz_record_write(unsigned k, uint8_t *data, size_t len)
{
	for (size_t i = 0; i < fuzz_nrecords; i++) {
		const uint8_t *r = fuzz_records + 4 * i;
		if (fuzz_record_answer(r) == k && r[2] < FUZZ_CONTROL)
			data[r[2] % len] = r[3];
	}
}

#endif
