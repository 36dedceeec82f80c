/*
 * DOC: node-name-map
 *
 * infiniband-diags' format: per line a node GUID (0x hex or decimal), then
 * the node's name in double quotes; '#' starts a comment; blank lines are
 * skipped. A GUID listed twice is an error, as are a missing quote and
 * trailing words. The names replace NodeDescriptions in fabricd's model
 * (so in its log, its database and every fabricctl table and argument).
 */
#include "topology/namemap.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/text.h"

static int by_guid(const void *a, const void *b)
{
	const struct namemap_entry *x = a, *y = b;
	return (x->guid > y->guid) - (x->guid < y->guid);
}

/* One line into e; 1 if it holds an entry, 0 if blank or a comment, -1 with why. */
static int parse_line(char *line, struct namemap_entry *e, const char **why)
{
	char *s = line, *end;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	errno = 0;
	e->guid = strtoull(s, &end, 0);
	if (end == s || errno || *s == '-' || !isspace((unsigned char)*end)) {
		*why = "expected a GUID, then a quoted name";
		return -1;
	}
	s = end;
	while (isspace((unsigned char)*s))
		s++;
	char *close = *s == '"' ? strchr(s + 1, '"') : NULL;
	if (!close) {
		*why = "the name must be in double quotes";
		return -1;
	}
	*close = '\0';
	for (end = close + 1; isspace((unsigned char)*end); end++)
		;
	if (*end && *end != '#') {
		*why = "unexpected text after the name";
		return -1;
	}
	if (close == s + 1) {
		*why = "the name is empty";
		return -1;
	}
	text_clean(e->name, s + 1, FABRIC_DESC_LEN);
	return 1;
}

int namemap_load(const char *path, struct namemap *m, char err[NAMEMAP_ERR_LEN])
{
	FILE *fp = fopen(path, "r");
	char line[1024];
	unsigned lineno = 0;
	size_t cap = 0;
	memset(m, 0, sizeof(*m));
	if (!fp) {
		snprintf(err, NAMEMAP_ERR_LEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		struct namemap_entry e;
		const char *why = NULL;
		lineno++;
		int rc = parse_line(line, &e, &why);
		if (rc < 0) {
			snprintf(err, NAMEMAP_ERR_LEN, "%s:%u: %s", path, lineno, why);
			goto fail;
		}
		if (rc == 0)
			continue;
		if (m->n == cap) {
			struct namemap_entry *more = realloc(m->e, (cap = cap ? 2 * cap : 256) * sizeof(*more));
			if (!more) {
				snprintf(err, NAMEMAP_ERR_LEN, "%s: out of memory", path);
				goto fail;
			}
			m->e = more;
		}
		m->e[m->n++] = e;
	}
	fclose(fp);
	qsort(m->e, m->n, sizeof(*m->e), by_guid);
	for (size_t i = 1; i < m->n; i++)
		if (m->e[i].guid == m->e[i - 1].guid) {
			snprintf(err, NAMEMAP_ERR_LEN, "%s: GUID 0x%016" PRIx64 " is named twice", path, m->e[i].guid);
			namemap_free(m);
			return -1;
		}
	return 0;
fail:
	fclose(fp);
	namemap_free(m);
	return -1;
}

void namemap_free(struct namemap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

const char *namemap_name(const struct namemap *m, uint64_t guid)
{
	struct namemap_entry key = { .guid = guid };
	const struct namemap_entry *e = m->n ? bsearch(&key, m->e, m->n, sizeof(*m->e), by_guid) : NULL;
	return e ? e->name : NULL;
}

size_t namemap_apply(const struct namemap *m, struct fabric *f)
{
	size_t named = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		const char *name = namemap_name(m, f->nodes[i]->guid);
		if (name) {
			snprintf(f->nodes[i]->desc, sizeof(f->nodes[i]->desc), "%s", name);
			named++;
		}
	}
	return named;
}
