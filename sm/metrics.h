/*
 * metrics.h - the Prometheus endpoint: GET /metrics on cfg.metrics_listen.
 */
#ifndef SM_METRICS_H
#define SM_METRICS_H

#include <stddef.h>

struct sm;
struct http_server;

/* Starts serving; NULL with why in err (a bad address, a port in use). */
struct http_server *metrics_open(struct sm *sm, char *err, size_t errlen);

#endif
