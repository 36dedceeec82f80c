/*
 * http.h - a small HTTP server on the event loop (libevent's evhttp), for
 * read-only text endpoints such as Prometheus' /metrics.
 */
#ifndef SM_MAD_HTTP_H
#define SM_MAD_HTTP_H

#include <stddef.h>

#include "sm/mad/evloop.h"

struct http_server;
struct http_body;

/* Writes the answer to a GET of path into body; returns the HTTP status (200, or 404 for an unknown path). */
typedef int (*http_get_fn)(void *arg, const char *path, struct http_body *body);

/* Appends printf-style text to the answer. */
void http_printf(struct http_body *body, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Listens on "address:port" ("127.0.0.1:9683", "[::1]:9683", ":9683" for
 * every address); answers GET and HEAD with fn's text as content_type,
 * anything else with 405. NULL with why in err.
 */
struct http_server *http_listen(struct evloop *l, const char *listen, const char *content_type, http_get_fn fn,
				void *arg, char *err, size_t errlen);
void http_close(struct http_server *s);

#endif
