/*
 * DOC: smpquery sl2vl reader
 *
 * "smpquery sl2vl LID PORT" prints a header naming the LID ("# SL2VL
 * table: Lid 5"), the SL row, and one row per input port for that output
 * port ("ports: in  0, out  5: | 0| 0| ...| 0|"): sixteen VLs. A file may
 * hold many such runs one after another (a loop over every switch and
 * port). Only LID-addressed runs name their switch; a directed-route
 * header is refused rather than guessed.
 */
#include "cli/sl2vldump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *path;
	unsigned long lineno;
	char *err;
	size_t len;
};

static int fail(const struct cursor *c, const char *what)
{
	snprintf(c->err, c->len, "%s:%lu: %s", c->path, c->lineno, what);
	return -1;
}

/* "| 0| 1|...|15|": sixteen VLs up to 15; false if the row is not that. */
static bool parse_vls(const char *s, uint8_t vl[SL2VL_SLS])
{
	for (unsigned sl = 0; sl < SL2VL_SLS; sl++) {
		unsigned v;
		int used;
		if (sscanf(s, " |%u%n", &v, &used) != 1 || v > 15)
			return false;
		vl[sl] = (uint8_t)v;
		s += used;
	}
	return sscanf(s, " | %c", &(char){ 0 }) != 1;	/* a "|" and nothing after it */
}

/* A "ports:" row of the switch n (NULL: a CA's, skipped). */
static int parse_row(const struct cursor *c, const char *line, const struct node *n, struct sl2vl_tables *m)
{
	unsigned in, out;
	int used = -1;	/* set only once the ':' after the ports is met: sscanf counts the two numbers either way */
	uint8_t vl[SL2VL_SLS];
	if (sscanf(line, "ports: in %u, out %u:%n", &in, &out, &used) != 2 || used < 0 || !parse_vls(line + used, vl))
		return fail(c, "expected 'ports: in N, out M: ' and 16 VLs up to 15 between '|'");
	if (!n)
		return 0;
	if (in > n->nports || out > n->nports)
		return fail(c, "a port past the switch's last port");
	if (sl2vl_set(m, n, in, out, vl) < 0)
		return fail(c, "out of memory");
	return 0;
}

static int parse(FILE *fp, struct cursor *c, const struct fabric *f, struct sl2vl_tables *m)
{
	char line[512];
	bool in_table = false;
	const struct node *sw = NULL;	/* the table's switch; NULL in a CA's table */
	while (fgets(line, sizeof(line), fp)) {
		c->lineno++;
		unsigned lid;
		char tail;
		if (!strchr(line, '\n') && !feof(fp))
			return fail(c, "line too long");
		if (sscanf(line, "# SL2VL table: Lid %u %c", &lid, &tail) == 1) {
			uint8_t port;
			const struct node *n = lid <= 0xffff ? fabric_find_lid(f, (uint16_t)lid, &port) : NULL;
			if (!n)
				return fail(c, "no port of the topology has this LID");
			sw = n->type == NODE_SWITCH ? n : NULL;
			in_table = true;
		} else if (strncmp(line, "# SL2VL table:", 14) == 0) {
			return fail(c, "not a LID-addressed table: run smpquery sl2vl with LIDs");
		} else if (strncmp(line, "ports:", 6) == 0) {
			if (!in_table)
				return fail(c, "a table row before any '# SL2VL table: Lid N' header");
			if (parse_row(c, line, sw, m) < 0)
				return -1;
		} else if (line[0] != '#' && sscanf(line, " %c", &tail) == 1) {
			return fail(c, "not smpquery sl2vl output");
		}
	}
	if (ferror(fp))
		return fail(c, "read error");
	if (!in_table)
		return fail(c, "no SL2VL table in the file");
	return 0;
}

int sl2vldump_read(const char *path, const struct fabric *f, struct sl2vl_tables *m, char *err, size_t len)
{
	struct cursor c = { path, 0, err, len };
	FILE *fp = fopen(path, "r");
	if (!fp) {
		snprintf(err, len, "%s: cannot open", path);
		return -1;
	}
	int rc = sl2vl_init(m, f) < 0 ? fail(&c, "out of memory") : parse(fp, &c, f, m);
	fclose(fp);
	if (rc < 0)
		sl2vl_free(m);
	return rc;
}
