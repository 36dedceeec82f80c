/*
 * DOC: "LID SL" file reader
 *
 * One destination per line: its LID and the SL hosts send to it on, as
 * `fabricctl export sl` writes them; blank lines and '#' comments are
 * skipped. A LID beyond the tables or an SL above 15 is refused with the
 * line that holds it.
 */
#include "cli/slfile.h"

#include <stdio.h>

int slfile_read(const char *path, struct routing_tables *t, char *err, size_t len)
{
	FILE *fp = fopen(path, "r");
	char line[128];
	unsigned lineno = 0;
	if (!fp) {
		snprintf(err, len, "%s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		long lid, sl;
		char tail;
		lineno++;
		if (sscanf(line, " %c", &tail) < 1 || tail == '#')
			continue;
		if (sscanf(line, "%li %li %c", &lid, &sl, &tail) != 2 || lid < 1 || lid > t->max_lid || sl < 0 ||
		    sl > 15) {
			snprintf(err, len, "%s:%u: expected 'LID SL' with a LID up to %u and an SL up to 15", path, lineno,
				 t->max_lid);
			fclose(fp);
			return -1;
		}
		t->sl[lid] = (uint8_t)sl;
		if ((unsigned)sl + 1 > t->layers)
			t->layers = (unsigned)sl + 1;
	}
	fclose(fp);
	return 0;
}
