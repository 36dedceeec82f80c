/*
 * sa_header.h - the common MAD header of a request to the SA, for the
 * host-side tools (tests/tools/sa_client.c, bench/sa_bench.c).
 */
#ifndef TOOLS_SA_HEADER_H
#define TOOLS_SA_HEADER_H

#include <iba/ib_types.h>

/* The SA MAD header of a request: method, attribute and TID (the rest of *sa is the caller's). */
static inline void sa_header(ib_sa_mad_t *sa, uint8_t method, ib_net16_t attr, uint64_t tid)
{
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = 2;
	sa->method = method;
	sa->trans_id = cl_hton64(tid);
	sa->attr_id = attr;
}

#endif
