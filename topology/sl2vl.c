/*
 * DOC: SL-to-VL tables
 *
 * A node's tables are one block of (nports + 1)^2 rows of 16 bytes,
 * allocated when its first row is set and filled with SL2VL_UNKNOWN, so a
 * row no dump gave reads as unknown rather than as VL 0.
 */
#include "topology/sl2vl.h"

#include <stdlib.h>
#include <string.h>

int sl2vl_init(struct sl2vl_tables *m, const struct fabric *f)
{
	m->f = f;
	m->vl = calloc(f->nnodes + 1, sizeof(*m->vl));
	return m->vl ? 0 : -1;
}

void sl2vl_free(struct sl2vl_tables *m)
{
	for (size_t i = 0; m->vl && i < m->f->nnodes; i++)
		free(m->vl[i]);
	free(m->vl);
	m->vl = NULL;
}

static size_t row(const struct node *n, unsigned in, unsigned out)
{
	return ((size_t)in * ((size_t)n->nports + 1) + out) * SL2VL_SLS;
}

int sl2vl_set(struct sl2vl_tables *m, const struct node *n, unsigned in, unsigned out, const uint8_t vl[SL2VL_SLS])
{
	uint8_t **t = &m->vl[n->index];
	size_t rows = ((size_t)n->nports + 1) * ((size_t)n->nports + 1);
	if (!*t) {
		if (!(*t = malloc(rows * SL2VL_SLS)))
			return -1;
		memset(*t, SL2VL_UNKNOWN, rows * SL2VL_SLS);
	}
	memcpy(*t + row(n, in, out), vl, SL2VL_SLS);
	return 0;
}

uint8_t sl2vl_get(const struct sl2vl_tables *m, const struct node *n, unsigned in, unsigned out, unsigned sl)
{
	const uint8_t *t = m->vl[n->index];
	if (!t || in > n->nports || out > n->nports || sl >= SL2VL_SLS)
		return SL2VL_UNKNOWN;
	return t[row(n, in, out) + sl];
}
