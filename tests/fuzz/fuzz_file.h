/*
 * fuzz_file.h - the fuzz targets whose readers take a path: each input is
 * written to one file in a directory of the target's own.
 */
#ifndef TESTS_FUZZ_FILE_H
#define TESTS_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes data to DIR/name (DIR made once per process) and returns its path; aborts if it cannot. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *name)
{
	static char dir[64], path[128];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fabricd-fuzz.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	return path;
}

#endif
