/*
 * DOC: YAML documents with located errors
 *
 * libyaml's document API keeps each node's start mark, so every error can
 * point at the line of the value that is wrong. Readers walk the tree
 * with ydoc_each_pair/ydoc_each_item and stop at the first error.
 */
#include "topology/yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ydoc_load(struct ydoc *d, const char *path, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->file = path;
	d->err = err;
	d->errlen = errlen;
	FILE *in = fopen(path, "r");
	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	yaml_parser_t parser;
	int rc = 0;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, in);
	if (!yaml_parser_load(&parser, &d->doc)) {
		snprintf(err, errlen, "%s:%lu: %s", path, (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "YAML syntax error");
		memset(&d->doc, 0, sizeof(d->doc));
		rc = -1;
	}
	yaml_parser_delete(&parser);
	fclose(in);
	return rc;
}

void ydoc_free(struct ydoc *d)
{
	yaml_document_delete(&d->doc);
}

yaml_node_t *ydoc_root(struct ydoc *d)
{
	return yaml_document_get_root_node(&d->doc);
}

int ydoc_fail(struct ydoc *d, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int len = snprintf(d->err, d->errlen, "%s:%lu: ", d->file, (unsigned long)(n ? n->start_mark.line + 1 : 1));
	if (len < 0 || (size_t)len >= d->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(d->err + len, d->errlen - (size_t)len, fmt, ap);
	va_end(ap);
	return -1;
}

int ydoc_scalar(struct ydoc *d, const char *key, const yaml_node_t *v, const char **out)
{
	if (v->type != YAML_SCALAR_NODE)
		return ydoc_fail(d, v, "%s must be a single value", key);
	*out = (const char *)v->data.scalar.value;
	return 0;
}

int ydoc_uint(struct ydoc *d, const char *key, const yaml_node_t *v, unsigned long long min,
	      unsigned long long max, unsigned long long *out)
{
	const char *s = NULL;
	char *end;
	if (ydoc_scalar(d, key, v, &s) < 0)
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (*s == '\0' || *s == '-' || *end || errno)
		return ydoc_fail(d, v, "%s must be a number, not '%s'", key, s);
	if (*out < min || *out > max)
		return ydoc_fail(d, v, "%s must be %llu..%llu, not %llu", key, min, max, *out);
	return 0;
}

int ydoc_number(struct ydoc *d, const char *key, const yaml_node_t *v, double min, double max, double *out)
{
	const char *s = NULL;
	char *end;
	if (ydoc_scalar(d, key, v, &s) < 0)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	if (*s == '\0' || *end || errno || !isfinite(*out))
		return ydoc_fail(d, v, "%s must be a number, not '%s'", key, s);
	if (*out < min || *out > max)
		return ydoc_fail(d, v, "%s must be %g..%g, not %g", key, min, max, *out);
	return 0;
}

int ydoc_string(struct ydoc *d, const char *key, const yaml_node_t *v, char *out, size_t len)
{
	const char *s = NULL;
	if (ydoc_scalar(d, key, v, &s) < 0)
		return -1;
	if (strlen(s) >= len)
		return ydoc_fail(d, v, "%s is longer than %zu characters", key, len - 1);
	snprintf(out, len, "%s", s);
	return 0;
}

int ydoc_each_pair(struct ydoc *d, const char *what, const yaml_node_t *map, ydoc_pair_fn fn, void *arg)
{
	if (map->type != YAML_MAPPING_NODE)
		return ydoc_fail(d, map, "%s must be a mapping of key: value", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&d->doc, p->value);
		if (k->type != YAML_SCALAR_NODE)
			return ydoc_fail(d, k, "keys must be plain words");
		if (fn(d, (const char *)k->data.scalar.value, v, arg) < 0)
			return -1;
	}
	return 0;
}

int ydoc_each_item(struct ydoc *d, const char *what, const yaml_node_t *seq, ydoc_item_fn fn, void *arg)
{
	if (seq->type != YAML_SEQUENCE_NODE)
		return ydoc_fail(d, seq, "%s must be a list", what);
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++)
		if (fn(d, yaml_document_get_node(&d->doc, *i), arg) < 0)
			return -1;
	return 0;
}
