/*
 * partition.h - P_Key partitions as configured: named P_Keys with full
 * and limited members (node description patterns, GUIDs or "all"), and
 * which keys each CA port gets.
 */
#ifndef SM_PARTITION_H
#define SM_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/fabric.h"
#include "topology/yamldoc.h"

#define PART_MAX 32		/* partitions */
#define PART_MAX_MEMBERS 32	/* member entries per partition */
#define PART_DEFAULT_PKEY 0x7fff
#define PART_FULL 0x8000	/* the membership bit of a P_Key table entry */

struct part_member {
	char pattern[64];	/* "all", a GUID (node or port), or a node description glob */
	uint64_t guid;		/* when the pattern is a GUID */
	bool all, full;
	unsigned line;		/* in the configuration file */
};

struct partition {
	char name[32];
	uint16_t pkey;		/* 0x0001..0x7fff, without the membership bit */
	struct part_member members[PART_MAX_MEMBERS];
	unsigned nmembers;
	unsigned line;
};

struct partitions {
	struct partition p[PART_MAX];
	unsigned n;
};

/*
 * Reads the "partitions:" list (docs/configuration.md) from a config
 * document into ps; 0, or -1 with "file:line: what" in d's error.
 */
int partitions_parse(struct ydoc *d, const yaml_node_t *v, struct partitions *ps);
/*
 * The P_Key table entries of CA port (n, port): every partition it is a
 * member of, PART_FULL set for full members, in configuration order; the
 * default partition (full for everyone) unless 0x7fff is configured. The
 * SM's own port is a full member of every partition. Returns the count,
 * at most max (the rest is dropped: *dropped says how many).
 */
unsigned partition_keys(const struct partitions *ps, const struct node *n, uint8_t port, bool sm_port,
			uint16_t *keys, unsigned max, unsigned *dropped);
/* True if member m names CA port (n, port). */
bool partition_member_matches(const struct part_member *m, const struct node *n, uint8_t port);

#endif
