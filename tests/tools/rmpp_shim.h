/*
 * rmpp_shim.h - the sending side of librmpp-shim.so (rmpp_send.c), for
 * the receiving side (rmpp_shim.c), which owns read, write and poll; and
 * what both sides use.
 */
#ifndef TESTS_TOOLS_RMPP_SHIM_H
#define TESTS_TOOLS_RMPP_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#define SEG_PAYLOAD 220		/* what RMPP PayloadLength counts per segment: SA header and data */

static inline ib_sa_mad_t *sa_of(const void *umad)
{
	return (ib_sa_mad_t *)umad_get_mad((void *)umad);
}

static inline uint64_t now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

static inline uint64_t now_ms(void)
{
	return now_us() / 1000;
}

/*
 * Sends an SA MAD its writer left to the kernel's RMPP: an answer longer
 * than a MAD or RMPP-active of no RMPP type, or an RMPP-active request
 * longer than a MAD; false: not one.
 */
bool shim_send_segmented(int fd, const void *buf, size_t count);
/* Whether agent id on fd registered with an RMPP version (the kernel then reassembles the requests it gets). */
bool shim_rmpp_agent(int fd, uint32_t id);
/* Takes an RMPP ACK, STOP or ABORT of a transfer shim_send_segmented is making; false: not one (the reader gets it). */
bool shim_take_rmpp_control(int fd, const void *umad, ssize_t n);
/* Sends late windows again; the milliseconds until the next is late, -1 if no transfer is under way. */
int shim_send_timers(void);

#endif
