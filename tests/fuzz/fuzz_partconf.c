/*
 * Fuzz target: OpenSM's partitions.conf reader (sm/partconf.c), which
 * fabricd reads when the configuration names one. Partitions it accepts
 * give the P_Key tables of eight CA ports, as the sweep asks them.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "sm/partconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fabric f;
	static struct partitions ps;	/* large: not on the stack */
	char err[PARTCONF_ERR_LEN];
	if (!f.nnodes) {
		fabric_init(&f);
		for (unsigned i = 0; i < 8; i++)	/* the GUIDs of the corpus's members */
			if (!fabric_add_node(&f, NODE_CA, 0x100000 + 2 * i, 1, "ca"))
				abort();
	}
	if (partconf_load(fuzz_file(data, size, "partitions.conf"), &ps, err) < 0)
		return 0;
	for (size_t i = 0; i < f.nnodes; i++) {
		uint16_t keys[32];
		unsigned dropped;
		partition_keys(&ps, f.nodes[i], 1, i == 0, keys, 32, &dropped);
	}
	return 0;
}
