/*
 * Fuzz target: fabricd's YAML configuration reader.
 */
#include "sm/config.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabricd_config c;
	char err[CONFIG_ERR_LEN];
	config_defaults(&c);
	config_load(fuzz_file(data, size, "fabricd.yaml"), &c, err);
	return 0;
}
