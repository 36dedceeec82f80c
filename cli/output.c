/*
 * DOC: table and JSON output
 *
 * Tables buffer their cells so each column can be as wide as its widest
 * cell; numbers are right-aligned, text left-aligned.
 */
#include "cli/output.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "topology/text.h"

void table_init(struct table *t, unsigned ncols, const char *const *heads)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	for (unsigned c = 0; c < ncols; c++)
		t->heads[c] = heads[c];
}

int table_row(struct table *t, ...)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **cells = realloc(t->cells, cap * t->ncols * sizeof(*cells));
		if (!cells)
			return -1;
		t->cells = cells;
		t->cap = cap;
	}
	va_list ap;
	va_start(ap, t);
	bool ok = true;
	for (unsigned c = 0; c < t->ncols; c++) {
		const char *s = va_arg(ap, const char *);
		size_t len = s ? strlen(s) : 0;
		char *cell = malloc(len + 1);
		if (cell)	/* names reach tables from the network and the database: printable only */
			text_clean(cell, s ? s : "", len);
		ok &= cell != NULL;
		t->cells[t->nrows * t->ncols + c] = cell ? cell : strdup("");
	}
	va_end(ap);
	t->nrows++;
	return ok ? 0 : -1;
}

static bool numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

void table_print(const struct table *t, FILE *out)
{
	size_t width[TABLE_MAX_COLS];
	for (unsigned c = 0; c < t->ncols; c++) {
		width[c] = strlen(t->heads[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t w = strlen(t->cells[r * t->ncols + c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	for (unsigned c = 0; c + 1 < t->ncols; c++)
		fprintf(out, "%-*s  ", (int)width[c], t->heads[c]);
	fprintf(out, "%s\n", t->heads[t->ncols - 1]);
	for (size_t r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			if (c + 1 == t->ncols)
				fprintf(out, "%s\n", s);
			else
				fprintf(out, numeric(s) ? "%*s  " : "%-*s  ", (int)width[c], s);
		}
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

void json_string(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t left = strlen(s);
	fputc('"', out);
	while (left) {
		size_t c = text_utf8_char(u, left);
		if (!c) {	/* not UTF-8 (an old database, a hand-made file): JSON must be */
			fputs("\\ufffd", out);
			c = 1;
		} else if (*u == '"' || *u == '\\') {
			fprintf(out, "\\%c", *u);
		} else if (*u < 0x20 || *u == 0x7f) {
			fprintf(out, "\\u%04x", *u);
		} else {
			fwrite(u, 1, c, out);
		}
		u += c;
		left -= c;
	}
	fputc('"', out);
}
