/*
 * Fuzz target: fabricctl plan check's reader (topology/roce_planfile.c)
 * and re-proof (routing/roce_recheck.c) of a plan directory, one switch's
 * JSON file per input.
 */
#include "routing/roce_recheck.h"
#include "fuzz_file.h"

#include <libgen.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char err[PLANFILE_ERR_LEN];
	static struct roce_recheck r;
	struct roce_planfiles pf;
	char dir[128];
	snprintf(dir, sizeof(dir), "%s", fuzz_file(data, size, "leaf0.json"));
	if (planfiles_load(dirname(dir), &pf, err) == 0) {
		roce_recheck(&pf, &r);
		planfiles_free(&pf);
	}
	return 0;
}
