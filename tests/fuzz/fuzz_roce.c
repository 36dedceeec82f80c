/*
 * Fuzz target: the RoCE fabric description reader (fabricctl plan's input).
 */
#include "topology/roce.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_fabric rf;
	char err[ROCE_ERR_LEN];
	if (roce_load(fuzz_file(data, size, "fabric.yaml"), &rf, err) == 0)
		roce_free(&rf);
	return 0;
}
