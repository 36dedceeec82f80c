/*
 * fibfile.h - a switch's forwarding table as Linux prints it
 * (`ip -j route show`, and `ip -j -6 route show`): per destination prefix,
 * the interfaces its packets leave by. The RoCE digital twin reads what
 * FRR really installed with it (routing/roce_fib.h proves it).
 */
#ifndef TOPOLOGY_FIBFILE_H
#define TOPOLOGY_FIBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "topology/roce.h"

struct fib_route {
	char dst[ROCE_ADDR_LEN];	/* always with a length: "10.0.1.0/24", "10.255.0.2/32" */
	char (*dev)[ROCE_NAME_LEN];	/* the interfaces of its next hops */
	size_t ndev;
	bool connected;		/* scope link: delivered on this switch */
	bool drop;		/* blackhole, unreachable or prohibit */
	unsigned line;
};

struct fib_table {
	struct fib_route *routes;
	size_t nroutes;
};

/*
 * Adds the routes of path (a JSON array of ip's route objects) to t; 0, or
 * -1 with "file:line: what" in err (t keeps what was read before).
 */
int fibfile_load(const char *path, struct fib_table *t, char *err, size_t errlen);
void fibfile_free(struct fib_table *t);
/* The route for exactly prefix dst ("10.0.1.0/24"), or NULL. */
const struct fib_route *fibfile_find(const struct fib_table *t, const char *dst);

#endif
