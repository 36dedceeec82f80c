/*
 * plan_sonic.h - a RoCE plan's QoS for SONiC switches (config_db.json
 * fragments) and for the hosts' NICs (a shell snippet).
 */
#ifndef CLI_PLAN_SONIC_H
#define CLI_PLAN_SONIC_H

#include <stdio.h>
#include "cli/output.h"
#include "routing/roce_plan.h"

/* Switch s's PORT_QOS_MAP, maps, buffers, WRED/ECN, scheduling and PFC watchdog as a config_db fragment. */
void plan_write_sonic(FILE *out, const struct roce_plan *p, size_t s);
/* The host NIC settings (DSCP trust, PFC, DCQCN, RDMA CM ToS) as a POSIX shell script. */
void plan_write_nic(FILE *out, const struct roce_plan *p);

#endif
