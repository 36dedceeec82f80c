/*
 * lostset.h - the nodes a sweep lost a Set to, by GUID: what such a node
 * holds is unknown, so the next sweep writes it whole; the others hold
 * what the published sweep says.
 */
#ifndef SM_LOSTSET_H
#define SM_LOSTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lost_set {
	uint64_t *guid;		/* sorted and unique once lost_set_seal ran */
	size_t n, cap;
	bool overflow;		/* a GUID could not be kept: every node counts as lost */
};

/* Adds guid (no memory: overflow). */
void lost_set_add(struct lost_set *s, uint64_t guid);
/* Adds every GUID of from, and its overflow. */
void lost_set_merge(struct lost_set *s, const struct lost_set *from);
/* Sorts and drops repeats, for lost_set_has. */
void lost_set_seal(struct lost_set *s);
/* Whether a Set to guid was lost (a sealed set; an overflowed one says yes to all). */
bool lost_set_has(const struct lost_set *s, uint64_t guid);
void lost_set_free(struct lost_set *s);

#endif
