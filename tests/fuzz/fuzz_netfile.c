/*
 * Fuzz target: the net-file reader (ibsim and ibnetdiscover topologies,
 * fabricctl diff's input). A fabric it accepts is written back out.
 */
#include <stdio.h>

#include "topology/netfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in = fmemopen((void *)data, size ? size : 1, "r");
	if (!in)
		return 0;
	struct fabric f;
	char err[NETFILE_ERR_LEN];
	if (size && netfile_read_stream(in, "fuzz.net", &f, err) == 0) {
		FILE *out = fopen("/dev/null", "w");
		if (out) {
			netfile_write(out, &f, NETFILE_IBSIM);
			fclose(out);
		}
		fabric_free(&f);
	}
	fclose(in);
	return 0;
}
