/*
 * fabric_diff.h - what changed between two views of a fabric.
 */
#ifndef FABRIC_DIFF_H
#define FABRIC_DIFF_H

#include "topology/fabric.h"

enum fabric_change_kind { CHANGE_NODE_ADDED, CHANGE_NODE_REMOVED, CHANGE_LINK_UP, CHANGE_LINK_DOWN };

struct fabric_change {
	enum fabric_change_kind kind;
	char text[192];
};

/*
 * Lists nodes (by GUID) and links (by GUID and port at both ends) found in
 * one fabric and not the other. *out is malloc'ed; -1 on allocation failure.
 */
int fabric_diff(const struct fabric *before, const struct fabric *after, struct fabric_change **out,
		size_t *n);
/* "node_added", "node_removed", "link_up", "link_down". */
const char *fabric_change_name(enum fabric_change_kind k);

#endif
