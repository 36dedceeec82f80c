/*
 * sim_port.h - the MAD port calls a whole sweep makes besides
 * mad_send_dr (smp_sim.h's), wrapped at link time: the port is the SM's
 * CA port 1 in the simulator's true fabric, and no other SM answers a
 * LID-routed MAD. For the programs that run sweeps over the simulator
 * (test_sweep, fuzz_sweep); include after smp_sim.h, once.
 */
#ifndef TESTS_COMMON_SIM_PORT_H
#define TESTS_COMMON_SIM_PORT_H

#include "sm/mad/mad.h"

int __wrap_mad_send_lid(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
			uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	return -1;	/* no other SM to ask */
}

uint64_t __wrap_mad_port_guid(const struct mad_port *mp)
{
	return fabric_port_guid(sim_sm_node(), 1);
}

int __wrap_mad_port_num(const struct mad_port *mp)
{
	return 1;
}

const char *__wrap_mad_port_ca(const struct mad_port *mp)
{
	return "sim0";
}

const struct mad_stats *__wrap_mad_get_stats(const struct mad_port *mp)
{
	static const struct mad_stats none;
	return &none;
}

int __wrap_mad_claim_sm(struct mad_port *mp, char err[MAD_ERR_LEN])
{
	return 0;
}

#endif
