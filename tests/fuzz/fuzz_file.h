/*
 * fuzz_file.h - the fuzz targets whose readers take a path: each input is
 * written to one file in a directory of the target's own.
 */
#ifndef TESTS_FUZZ_FILE_H
#define TESTS_FUZZ_FILE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_dir[64];

/* At exit: DIR and what the reader left in it (a database's -wal and -shm). */
static inline void fuzz_dir_remove(void)
{
	char path[128];
	DIR *d = opendir(fuzz_dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(fuzz_dir);
}

/* Writes data to DIR/name (DIR made once per process, gone at its exit) and returns its path; aborts if it cannot. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *name)
{
	static char path[128];
	if (!fuzz_dir[0]) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/fabricd-fuzz.XXXXXX");
		if (!mkdtemp(fuzz_dir))
			abort();
		atexit(fuzz_dir_remove);
	}
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	return path;
}

#endif
