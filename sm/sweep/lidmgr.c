/*
 * DOC: LID manager
 *
 * Works on a byte map of the unicast LID space: which LIDs are reserved
 * by the store (for any GUID) and which are taken in this assignment. A
 * complib map from GUID to stored LID answers "what did this port have".
 * A site moving from OpenSM brings its guid2lid file: on the first sweep
 * with an empty store its LIDs are given to the ports as if they held
 * them, and stored from then on.
 */
#include "sm/sweep/lidmgr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <complib/cl_qmap.h>

#include "sm/log.h"

struct stored_item {
	cl_map_item_t item;
	uint16_t lid;
};

enum { LID_FREE = 0, LID_RESERVED = 1, LID_TAKEN = 2 };

static int add_result(struct lid_result *r, size_t *cap, uint64_t guid, uint16_t lid)
{
	if (r->n_assigned == *cap) {
		size_t ncap = *cap ? *cap * 2 : 128;
		struct db_lid *a = realloc(r->assigned, ncap * sizeof(*a));
		if (!a)
			return -1;
		r->assigned = a;
		*cap = ncap;
	}
	r->assigned[r->n_assigned].guid = guid;
	r->assigned[r->n_assigned++].lid = lid;
	return 0;
}

static bool needs_lid(const struct node *n, unsigned p)
{
	if (n->type == NODE_SWITCH)
		return p == 0;
	/* a CA port needs a LID if it is cabled, or is the SM's own port */
	return p > 0 && (n->ports[p].remote || (n->hops == 0 && p == n->local_port));
}

int lid_assign(struct fabric *f, const struct db_lid *stored, size_t n_stored, struct lid_result *r)
{
	memset(r, 0, sizeof(*r));
	uint8_t *space = calloc(FABRIC_MAX_UCAST_LID + 1, 1);
	struct stored_item *items = calloc(n_stored ? n_stored : 1, sizeof(*items));
	cl_qmap_t by_guid;
	size_t cap = 0;
	int rc = -1;
	if (!space || !items)
		goto done;
	cl_qmap_init(&by_guid);
	for (size_t i = 0; i < n_stored; i++) {
		if (!stored[i].lid || stored[i].lid > FABRIC_MAX_UCAST_LID)
			continue;
		items[i].lid = stored[i].lid;
		cl_qmap_insert(&by_guid, stored[i].guid, &items[i].item);
		space[stored[i].lid] = LID_RESERVED;
	}
	/* pass 1: ports whose GUID has a stored LID */
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++) {
			struct port *pt = &n->ports[p];
			if (!needs_lid(n, p))
				continue;
			cl_map_item_t *it = cl_qmap_get(&by_guid, pt->guid);
			if (it == cl_qmap_end(&by_guid)) {
				if (pt->lid > FABRIC_MAX_UCAST_LID)
					pt->lid = 0;	/* not a unicast LID: never reuse it */
				continue;
			}
			uint16_t lid = ((struct stored_item *)it)->lid;
			space[lid] = LID_TAKEN;
			if (pt->lid != lid && pt->lid)
				log_info("LID: %s port %u had LID %u, restoring stored LID %u", n->desc, p,
					 pt->lid, lid);
			pt->lid = lid;
			pt->lmc = 0;
			r->kept++;
		}
	}
	/* pass 2: the rest keep their current LID if free, else get the lowest free one */
	uint16_t next = 1;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];
		for (unsigned p = 0; p <= n->nports; p++) {
			struct port *pt = &n->ports[p];
			if (!needs_lid(n, p) || cl_qmap_get(&by_guid, pt->guid) != cl_qmap_end(&by_guid))
				continue;
			if (pt->lid && space[pt->lid] == LID_FREE) {
				r->reused++;
			} else {
				while (next <= FABRIC_MAX_UCAST_LID && space[next] != LID_FREE)
					next++;
				if (next > FABRIC_MAX_UCAST_LID) {
					log_error("LID: the unicast LID space is exhausted");
					goto done;
				}
				pt->lid = next;
				r->fresh++;
			}
			pt->lmc = 0;
			space[pt->lid] = LID_TAKEN;
			if (add_result(r, &cap, pt->guid, pt->lid) < 0)
				goto done;
		}
	}
	rc = 0;
done:
	free(space);
	free(items);
	if (rc < 0)
		lid_result_free(r);
	return rc;
}

void lid_result_free(struct lid_result *r)
{
	free(r->assigned);
	memset(r, 0, sizeof(*r));
}

int lid_read_guid2lid(const char *path, struct db_lid **out, size_t *n, char *err, size_t len)
{
	FILE *fp = fopen(path, "r");
	char line[256];
	unsigned lineno = 0;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (!fp) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		uint64_t guid;
		unsigned lid, top;
		char tail;
		lineno++;
		if (sscanf(line, " %c", &tail) < 1 || tail == '#')
			continue;
		if (sscanf(line, "%" SCNx64 " %x %x %c", &guid, &lid, &top, &tail) != 3 || !lid ||
		    lid > FABRIC_MAX_UCAST_LID || top < lid) {
			snprintf(err, len, "%s:%u: expected '0xGUID 0xLID 0xLID' with a unicast LID", path, lineno);
			goto fail;
		}
		if (*n == cap) {
			struct db_lid *more = realloc(*out, (cap = cap ? 2 * cap : 256) * sizeof(*more));
			if (!more) {
				snprintf(err, len, "%s: out of memory", path);
				goto fail;
			}
			*out = more;
		}
		(*out)[(*n)++] = (struct db_lid){ guid, (uint16_t)lid };
	}
	fclose(fp);
	return 0;
fail:
	fclose(fp);
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

size_t lid_preset(struct fabric *f, const struct db_lid *lids, size_t n)
{
	size_t given = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		struct node *nd = f->nodes[i];
		for (unsigned p = 0; p <= nd->nports; p++) {
			if (!needs_lid(nd, p))
				continue;
			for (size_t k = 0; k < n; k++)
				if (lids[k].guid == nd->ports[p].guid) {
					nd->ports[p].lid = lids[k].lid;
					given++;
					break;
				}
		}
	}
	return given;
}
