/*
 * yamldoc.h - reading a YAML file as a document tree, with errors that
 * name the file and line ("fabric.yaml:12: speed must be a number").
 * Shared by fabricd's configuration and the RoCE planning input.
 */
#ifndef TOPOLOGY_YAMLDOC_H
#define TOPOLOGY_YAMLDOC_H

#include <stddef.h>
#include <yaml.h>

struct ydoc {
	const char *file;
	yaml_document_t doc;
	char *err;		/* where the first error goes */
	size_t errlen;
};

/* Loads path; 0, or -1 with "file:line: what" (or "file: why") in err. */
int ydoc_load(struct ydoc *d, const char *path, char *err, size_t errlen);
void ydoc_free(struct ydoc *d);
/* The top node, or NULL for an empty file. */
yaml_node_t *ydoc_root(struct ydoc *d);

/* Writes "file:line: ..." for node n into the error buffer; returns -1. */
int ydoc_fail(struct ydoc *d, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Getters: 0, or -1 with an error naming key. */
int ydoc_scalar(struct ydoc *d, const char *key, const yaml_node_t *v, const char **out);
int ydoc_uint(struct ydoc *d, const char *key, const yaml_node_t *v, unsigned long long min,
	      unsigned long long max, unsigned long long *out);
int ydoc_number(struct ydoc *d, const char *key, const yaml_node_t *v, double min, double max, double *out);
int ydoc_string(struct ydoc *d, const char *key, const yaml_node_t *v, char *out, size_t len);

/* Calls fn for each key: value of a mapping (what names it in errors). */
typedef int (*ydoc_pair_fn)(struct ydoc *d, const char *key, const yaml_node_t *v, void *arg);
int ydoc_each_pair(struct ydoc *d, const char *what, const yaml_node_t *map, ydoc_pair_fn fn, void *arg);
/* Calls fn for each item of a sequence. */
typedef int (*ydoc_item_fn)(struct ydoc *d, const yaml_node_t *item, void *arg);
int ydoc_each_item(struct ydoc *d, const char *what, const yaml_node_t *seq, ydoc_item_fn fn, void *arg);

#endif
