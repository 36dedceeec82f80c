/*
 * DOC: a memo of a dependency's users
 *
 * An open-addressing table keyed by the dependency (the channel a's node
 * and port, and b's port: a's port leads to b's node), holding the LIDs
 * found making it. The table doubles when half full.
 */
#include "routing/users_memo.h"

#include <stdlib.h>

static uint64_t key_of(const struct cdg_channel *a, const struct cdg_channel *b)
{
	return ((uint64_t)a->node->index + 1) << 16 | (uint64_t)a->port << 8 | b->port;
}

static size_t home(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

void users_memo_init(struct users_memo *m)
{
	*m = (struct users_memo){ 0 };
}

void users_memo_free(struct users_memo *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slot[i].lids);
	free(m->slot);
	users_memo_init(m);
}

static struct users_memo_entry *slot_of(const struct users_memo *m, uint64_t key)
{
	size_t i = home(key, m->cap);
	while (m->slot[i].key && m->slot[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

const struct users_memo_entry *users_memo_find(const struct users_memo *m, const struct cdg_channel *a,
					       const struct cdg_channel *b)
{
	if (!m->cap)
		return NULL;
	const struct users_memo_entry *e = slot_of(m, key_of(a, b));
	return e->key ? e : NULL;
}

static int grow(struct users_memo *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024;
	struct users_memo old = *m;
	m->slot = calloc(cap, sizeof(*m->slot));
	if (!m->slot) {
		*m = old;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].key)
			*slot_of(m, old.slot[i].key) = old.slot[i];
	free(old.slot);
	return 0;
}

int users_memo_keep(struct users_memo *m, const struct cdg_channel *a, const struct cdg_channel *b,
		    const bool *uses, uint16_t max_lid, bool complete)
{
	uint32_t n = 0;
	for (uint32_t lid = 1; lid <= max_lid && n <= USERS_MEMO_MAX_LIDS; lid++)
		n += uses[lid];
	if (n > USERS_MEMO_MAX_LIDS)
		return 0;
	if (2 * (m->used + 1) > m->cap && grow(m) < 0)
		return -1;
	uint16_t *lids = malloc((n ? n : 1) * sizeof(*lids));
	if (!lids)
		return -1;
	n = 0;
	for (uint32_t lid = 1; lid <= max_lid; lid++)
		if (uses[lid])
			lids[n++] = (uint16_t)lid;
	uint64_t key = key_of(a, b);
	struct users_memo_entry *e = slot_of(m, key);
	if (e->key)
		free(e->lids);
	else
		m->used++;
	*e = (struct users_memo_entry){ key, lids, n, complete };
	return 0;
}
