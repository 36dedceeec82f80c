/*
 * lidmgr.h - stable LID assignment.
 */
#ifndef SM_LIDMGR_H
#define SM_LIDMGR_H

#include <stddef.h>
#include "db/db.h"
#include "topology/fabric.h"

struct lid_result {
	struct db_lid *assigned;	/* GUID -> LID pairs that are new or changed */
	size_t n_assigned;
	unsigned kept, reused, fresh;	/* from the store, from the port, newly picked */
};

/*
 * Gives every addressable port of f (CA ports, switch port 0) a LID:
 * the one stored for its GUID if any; else the LID the port already has,
 * if valid and nobody else's; else the lowest LID stored for nobody.
 * LIDs stored for absent GUIDs stay reserved, so a node that comes back
 * gets its LID back. Writes port.lid; returns 0 or -1 (out of LIDs/memory).
 */
int lid_assign(struct fabric *f, const struct db_lid *stored, size_t n_stored, struct lid_result *r);
void lid_result_free(struct lid_result *r);
/*
 * Reads OpenSM's guid2lid file ("0xPORTGUID 0xLID 0xLID" lines, as in
 * /var/cache/opensm/guid2lid) into *out. 0, or -1 with "path:line: what".
 */
int lid_read_guid2lid(const char *path, struct db_lid **out, size_t *n, char *err, size_t len);
/*
 * Gives the ports of f the LIDs of lids (by port GUID) as if they held
 * them: lid_assign then keeps them where nothing stored says otherwise.
 * Returns how many ports took one.
 */
size_t lid_preset(struct fabric *f, const struct db_lid *lids, size_t n);

#endif
