/*
 * users_memo.h - the LIDs found making a dependency, remembered while VL
 * layering breaks one layer's cycles, so that a dependency asked about
 * again (cycles found one after the other share many) is not searched
 * again.
 */
#ifndef ROUTING_USERS_MEMO_H
#define ROUTING_USERS_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/depgraph.h"

struct users_memo_entry {
	uint64_t key;		/* 0: a free slot */
	uint16_t *lids;
	uint32_t n;
	bool complete;		/* every user then (else: at least those) */
};

struct users_memo {
	struct users_memo_entry *slot;
	size_t cap, used;
};

#define USERS_MEMO_MAX_LIDS 4096	/* a dependency with more users is not remembered */

void users_memo_init(struct users_memo *m);
void users_memo_free(struct users_memo *m);
/* What m remembers of a -> b, or NULL. */
const struct users_memo_entry *users_memo_find(const struct users_memo *m, const struct cdg_channel *a,
					       const struct cdg_channel *b);
/*
 * Remembers the LIDs set in uses[1 .. max_lid] for a -> b (replacing what
 * was), unless they are more than USERS_MEMO_MAX_LIDS (what was then
 * stays: still true as far as it goes). -1 on allocation failure.
 */
int users_memo_keep(struct users_memo *m, const struct cdg_channel *a, const struct cdg_channel *b,
		    const bool *uses, uint16_t max_lid, bool complete);

#endif
