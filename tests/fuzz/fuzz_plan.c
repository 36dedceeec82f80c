/*
 * Fuzz target: fabricctl plan check's reader and re-proof of a plan
 * directory (one switch's JSON file per input).
 */
#include "cli/plan_read.h"
#include "fuzz_file.h"

#include <libgen.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[128];
	snprintf(dir, sizeof(dir), "%s", fuzz_file(data, size, "leaf0.json"));
	plan_check(dirname(dir));
	return 0;
}
