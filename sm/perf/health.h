/*
 * health.h - unhealthy ports: judged after each counter sweep, reported,
 * and (health.action) isolated from the routing or disabled.
 *
 * A port is unhealthy while its errors within the last health.window_s
 * (a sliding estimate over two buckets) pass a threshold: estimated BER,
 * symbol errors, link error recoveries, LinkDowned (flapping), receive
 * errors, traps 129-131 about it. It is healthy again once it has stayed
 * under every threshold for health.clean_s, or when fabricctl health
 * clear says so. The verdicts are stored with each counter sweep and
 * taken up again by the next fabricd (health_restore).
 */
#ifndef SM_PERF_HEALTH_H
#define SM_PERF_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "sm/perf/perf.h"
#include "topology/fabric.h"

struct sm;
struct health;

/* A link the sweep took out of the routing's view, to put back after. */
struct health_hidden {
	struct node *a, *b;
	uint8_t pa, pb;
};

struct health *health_new(struct sm *sm);
void health_free(struct health *h);
/*
 * What the last fabricd judged (its stored rows): those ports stay
 * unhealthy, isolated or disabled until they are clean for clean_s from
 * now, so a restart neither forgets a disabled port nor routes at once
 * over an isolated link.
 */
void health_restore(struct health *h, const struct db_port_health *rows, size_t n, double now);
/* After a counter sweep: each port whose c.last is fresh adds it to its window; then every port is judged. */
void health_update(struct health *h, const struct perf_port *ports, size_t n, double now);
/* A trap 129, 130 or 131 from the node with LID lid about its port. */
void health_trap(struct health *h, uint16_t lid, uint8_t port, unsigned trap);
/*
 * For the heavy sweep's routing: unlinks in f (the sweep's own fabric)
 * every isolated link, but none whose loss would cut a node off from the
 * SM (those stay, reported as kept). Returns how many are in out (at most
 * max); health_unhide puts them back.
 */
size_t health_hide(struct health *h, struct fabric *f, struct health_hidden *out, size_t max);
void health_unhide(const struct health_hidden *l, size_t n);
/* How many links health_hide may take out at most. */
size_t health_isolated_count(const struct health *h);
/* Declares (node_guid, port) healthy, or every port when node_guid is 0; how many were unhealthy. */
unsigned health_clear(struct health *h, uint64_t node_guid, unsigned port);
/* The unhealthy ports as stored and served. */
const struct db_port_health *health_rows(const struct health *h, size_t *n);

#endif
