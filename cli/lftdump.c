/*
 * DOC: dump_lfts reader
 *
 * dump_lfts prints, per switch, a header naming the switch's GUID
 * ("Unicast lids [0x0-0x2c] of switch ... guid 0x0000000000200007 (L7):")
 * and one line per LID ("0x0001 005 : (Channel Adapter ...)"). Entries are
 * collected first, since the highest LID is known only at the end. A
 * dump from before a change (fabricctl check --before) may name switches
 * that have gone and LIDs nobody holds now: those are left out.
 */
#include "cli/lftdump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	size_t node;
	uint16_t lid;
	uint8_t port;
};

struct reader {
	struct entry *e;
	size_t n, cap;
	uint16_t max_lid;
	bool earlier;		/* a dump from before a change: gone switches and LIDs past limit drop */
	uint16_t limit;
};

static int add(struct reader *r, size_t node, unsigned lid, unsigned port)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		struct entry *e = realloc(r->e, cap * sizeof(*e));
		if (!e)
			return -1;
		r->e = e;
		r->cap = cap;
	}
	r->e[r->n++] = (struct entry){ node, (uint16_t)lid, (uint8_t)port };
	if (lid > r->max_lid)
		r->max_lid = (uint16_t)lid;
	return 0;
}

static int parse(FILE *in, const char *path, const struct fabric *f, struct reader *r, char *err, size_t len)
{
	char line[512];
	unsigned long lineno = 0;
	const struct node *sw = NULL;
	bool skip = false;
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		unsigned lid, port;
		uint64_t guid;
		const char *g = strstr(line, " guid 0x");
		if (strncmp(line, "Unicast lids", 12) == 0) {
			if (!g || sscanf(g, " guid 0x%" SCNx64, &guid) != 1) {
				snprintf(err, len, "%s:%lu: a switch header without its GUID", path, lineno);
				return -1;
			}
			sw = fabric_find_guid(f, guid);
			if (!sw && r->earlier) {	/* gone since: nothing reaches its table any more */
				skip = true;
				continue;
			}
			skip = false;
			if (!sw || sw->type != NODE_SWITCH) {
				snprintf(err, len, "%s:%lu: switch 0x%016" PRIx64 " is not in the topology", path,
					 lineno, guid);
				return -1;
			}
		} else if (sscanf(line, "0x%x %u :", &lid, &port) == 2) {
			if (skip || (r->earlier && lid > r->limit))
				continue;
			if (!sw) {
				snprintf(err, len, "%s:%lu: a LID line before any switch header", path, lineno);
				return -1;
			}
			if (port == LFT_NO_PATH)
				continue;
			if (lid > FABRIC_MAX_UCAST_LID || port > sw->nports) {
				snprintf(err, len, "%s:%lu: LID 0x%04x port %u is out of range for %s", path, lineno,
					 lid, port, sw->desc);
				return -1;
			}
			if (add(r, sw->index, lid, port) < 0) {
				snprintf(err, len, "out of memory");
				return -1;
			}
		}
	}
	if (ferror(in)) {
		snprintf(err, len, "%s: read error", path);
		return -1;
	}
	if (!r->n) {
		snprintf(err, len, "%s: no forwarding table entries (is it dump_lfts output?)", path);
		return -1;
	}
	return 0;
}

static int read_dump(const char *path, const struct fabric *f, struct reader *rd, struct routing_tables *t,
		     char *err, size_t len)
{
	FILE *in = fopen(path, "r");
	struct reader r = *rd;
	if (!in) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = parse(in, path, f, &r, err, len);
	fclose(in);
	uint16_t max = r.earlier ? r.limit : routing_max_lid(f);
	if (rc == 0 && routing_tables_alloc(t, f, r.max_lid > max ? r.max_lid : max) < 0) {
		snprintf(err, len, "out of memory");
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < r.n; i++)
		t->lft[r.e[i].node][r.e[i].lid] = r.e[i].port;
	free(r.e);
	return rc;
}

int lftdump_read(const char *path, const struct fabric *f, struct routing_tables *t, char *err, size_t len)
{
	struct reader r = { 0 };
	return read_dump(path, f, &r, t, err, len);
}

int lftdump_read_earlier(const char *path, const struct fabric *f, const struct routing_tables *like,
			 struct routing_tables *t, char *err, size_t len)
{
	struct reader r = { .earlier = true, .limit = like->max_lid };
	return read_dump(path, f, &r, t, err, len);
}
