/*
 * DOC: HTTP server
 *
 * evhttp on the daemon's event_base: requests are answered from the loop,
 * between MADs, never from another thread. Requests are small and short
 * (headers at most 8 KiB, no body, 10 s to arrive): a client that sends
 * more or dawdles is dropped by libevent.
 */
#include "sm/mad/http.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/mad/evloop_base.h"

struct http_server {
	struct evhttp *http;
	http_get_fn fn;
	void *arg;
	char content_type[64];
};

struct http_body {
	struct evbuffer *buf;
};

void http_printf(struct http_body *body, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	evbuffer_add_vprintf(body->buf, fmt, ap);
	va_end(ap);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct http_server *s = arg;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
		evhttp_send_error(req, 405, "Method Not Allowed");
		return;
	}
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	struct http_body body = { evbuffer_new() };
	if (!body.buf) {
		evhttp_send_error(req, 503, "Out of memory");
		return;
	}
	int status = s->fn(s->arg, path ? path : "/", &body);
	if (status == 200) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", s->content_type);
		evhttp_send_reply(req, 200, "OK", body.buf);
	} else {
		evhttp_send_error(req, status, NULL);
	}
	evbuffer_free(body.buf);
}

/* Splits "host:port" (host may be "[v6]" or empty); -1 if it is not that. */
static int split_listen(const char *listen, char *host, size_t hlen, unsigned *port)
{
	const char *colon = strrchr(listen, ':');
	if (!colon)
		return -1;
	char *end;
	unsigned long p = strtoul(colon + 1, &end, 10);
	if (*end || colon[1] == 0 || p == 0 || p > 65535)
		return -1;
	size_t n = (size_t)(colon - listen);
	const char *h = listen;
	if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
		h++;
		n -= 2;
	}
	if (n >= hlen)
		return -1;
	memcpy(host, h, n);
	host[n] = 0;
	*port = (unsigned)p;
	return 0;
}

struct http_server *http_listen(struct evloop *l, const char *listen, const char *content_type, http_get_fn fn,
				void *arg, char *err, size_t errlen)
{
	char host[64];
	unsigned port;
	if (split_listen(listen, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "metrics_listen '%s' is not ADDRESS:PORT (e.g. 127.0.0.1:9683)", listen);
		return NULL;
	}
	struct http_server *s = calloc(1, sizeof(*s));
	if (!s || !(s->http = evhttp_new(evl_event_base(l)))) {
		free(s);
		snprintf(err, errlen, "cannot start an HTTP server: out of memory");
		return NULL;
	}
	s->fn = fn;
	s->arg = arg;
	snprintf(s->content_type, sizeof(s->content_type), "%s", content_type);
	evhttp_set_max_headers_size(s->http, 8192);
	evhttp_set_max_body_size(s->http, 0);
	evhttp_set_timeout(s->http, 10);
	evhttp_set_gencb(s->http, on_request, s);
	errno = 0;
	if (!evhttp_bind_socket_with_handle(s->http, host[0] ? host : "0.0.0.0", (uint16_t)port)) {
		snprintf(err, errlen, "cannot listen on %s: %s", listen, errno ? strerror(errno) : "bad address");
		http_close(s);
		return NULL;
	}
	return s;
}

void http_close(struct http_server *s)
{
	if (!s)
		return;
	evhttp_free(s->http);
	free(s);
}
