/*
 * roce_gen.h - a generated fat tree written as RoCE planning input, so
 * the planner's tests and benchmarks use the same Clos shapes as the IB
 * ones.
 */
#ifndef TOPOLOGY_ROCE_GEN_H
#define TOPOLOGY_ROCE_GEN_H

#include <stdio.h>
#include "topology/fabric.h"

/*
 * Writes f (from fattree_generate: L leaves, S or A and C above) as the
 * YAML of docs/roce.md: tiers from the names, port N as swpN, one /24 per
 * leaf from 10.0.0.0/8, loopbacks from 172.16.0.0/12, hosts at 100G on
 * 2 m cables, fabric links at 400G on 10 m (leaf) and 30 m (higher)
 * cables. -1 on a write error.
 */
int roce_gen_write(FILE *out, const struct fabric *f, const char *name);

#endif
