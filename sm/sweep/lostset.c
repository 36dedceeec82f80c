/*
 * DOC: the nodes a sweep lost a Set to
 *
 * A growing array of GUIDs, sorted once at the sweep's end and searched
 * by halves. Running out of memory is not an error here: the set then
 * stands for every node, which only costs the next sweep Sets.
 */
#include "sm/sweep/lostset.h"

#include <stdlib.h>

void lost_set_add(struct lost_set *s, uint64_t guid)
{
	if (s->overflow)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		uint64_t *v = realloc(s->guid, cap * sizeof(*v));
		if (!v) {
			s->overflow = true;
			return;
		}
		s->guid = v;
		s->cap = cap;
	}
	s->guid[s->n++] = guid;
}

void lost_set_merge(struct lost_set *s, const struct lost_set *from)
{
	s->overflow |= from->overflow;
	for (size_t i = 0; i < from->n && !s->overflow; i++)
		lost_set_add(s, from->guid[i]);
}

static int by_guid(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void lost_set_seal(struct lost_set *s)
{
	size_t k = 0;
	if (s->n > 1)
		qsort(s->guid, s->n, sizeof(*s->guid), by_guid);
	for (size_t i = 0; i < s->n; i++)
		if (k == 0 || s->guid[k - 1] != s->guid[i])
			s->guid[k++] = s->guid[i];
	s->n = k;
}

bool lost_set_has(const struct lost_set *s, uint64_t guid)
{
	return s->overflow || (s->n && bsearch(&guid, s->guid, s->n, sizeof(*s->guid), by_guid));
}

void lost_set_free(struct lost_set *s)
{
	free(s->guid);
	*s = (struct lost_set){ 0 };
}
