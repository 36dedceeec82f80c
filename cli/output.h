/*
 * output.h - fabricctl's two output forms: aligned text tables and JSON.
 */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#define TABLE_MAX_COLS 12

/* A text table: columns are sized to their widest cell when printed. */
struct table {
	unsigned ncols;
	const char *heads[TABLE_MAX_COLS];
	char **cells;		/* row-major, ncols per row */
	size_t nrows, cap;
};

void table_init(struct table *t, unsigned ncols, const char *const *heads);
/* Appends one row of ncols printf-style cells: fmt is applied to each vararg string. */
int table_row(struct table *t, ...);
void table_print(const struct table *t, FILE *out);
void table_free(struct table *t);

/* Prints s as a JSON string literal. */
void json_string(FILE *out, const char *s);

#endif
