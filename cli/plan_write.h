/*
 * plan_write.h - a RoCE plan as files: per switch JSON, YAML and an FRR
 * static-route config, and the summary report.
 */
#ifndef CLI_PLAN_WRITE_H
#define CLI_PLAN_WRITE_H

#include <stdio.h>
#include "routing/roce_plan.h"
#include "topology/roce_planfile.h"	/* PLAN_FORMAT */

/*
 * Writes DIR/<switch>.json, .yaml, .frr.conf and .sonic.json for every
 * switch and DIR/hosts-nic.sh; -1 with why in err.
 */
int plan_write_switches(const struct roce_plan *p, const char *dir, char *err, size_t len);
/* The summary report: what was proven, as designed and per failure. */
void plan_write_summary(FILE *out, const struct roce_plan *p, const char *input);
/* True when the design and every analysed failure are safe. */
bool plan_safe(const struct roce_plan *p);

#endif
