/*
 * sl2vl.h - the SL-to-VL tables of a fabric's switches: for each pair of
 * input and output port, the VL each of the 16 SLs takes on the output.
 * Filled from what the switches hold (cli/sl2vldump.c reads smpquery
 * output) for the deadlock proof over VLs (routing/cdg_vl.c).
 */
#ifndef TOPOLOGY_SL2VL_H
#define TOPOLOGY_SL2VL_H

#include <stdbool.h>
#include <stdint.h>
#include "topology/fabric.h"

#define SL2VL_SLS 16
#define SL2VL_UNKNOWN 0xff	/* a VL no table gave */

struct sl2vl_tables {
	const struct fabric *f;
	uint8_t **vl;		/* per node index: (nports + 1)^2 rows of 16 VLs, NULL until a row is set */
};

/* Empty tables for f's nodes; -1 on allocation failure. */
int sl2vl_init(struct sl2vl_tables *m, const struct fabric *f);
void sl2vl_free(struct sl2vl_tables *m);
/* Records the 16 VLs of (n, in, out), both ports at most n->nports; -1 on allocation failure. */
int sl2vl_set(struct sl2vl_tables *m, const struct node *n, unsigned in, unsigned out, const uint8_t vl[SL2VL_SLS]);
/* The VL sl takes from in to out at n, or SL2VL_UNKNOWN. */
uint8_t sl2vl_get(const struct sl2vl_tables *m, const struct node *n, unsigned in, unsigned out, unsigned sl);

#endif
