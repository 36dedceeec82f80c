/*
 * rmpp_shim.h - the sending side of librmpp-shim.so (rmpp_send.c), for
 * the receiving side (rmpp_shim.c), which owns read, write and poll.
 */
#ifndef TESTS_TOOLS_RMPP_SHIM_H
#define TESTS_TOOLS_RMPP_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Sends an SA answer its writer left to the kernel's RMPP (longer than a MAD, or RMPP-active of no RMPP type); false: not one. */
bool shim_send_answer(int fd, const void *buf, size_t count);
/* Takes an RMPP ACK, STOP or ABORT of a transfer shim_send_answer is making; false: not one (the reader gets it). */
bool shim_take_rmpp_control(int fd, const void *umad, ssize_t n);
/* Sends late windows again; the milliseconds until the next is late, -1 if no transfer is under way. */
int shim_send_timers(void);

#endif
