/*
 * DOC: event loop
 *
 * Wraps libevent's event_base. Each watch is one struct event whose
 * callback forwards to a plain fn(arg), so callers never see libevent types.
 */
#include "sm/mad/evloop.h"
#include "sm/mad/evloop_base.h"

#include <event2/event.h>
#include <stdlib.h>
#include <time.h>

struct evloop {
	struct event_base *base;
};

struct evl_watch {
	struct event *ev;
	evl_fn fn;
	void *arg;
};

struct evloop *evl_new(void)
{
	struct evloop *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->base = event_base_new();
	if (!l->base) {
		free(l);
		return NULL;
	}
	return l;
}

struct event_base *evl_event_base(struct evloop *l)
{
	return l->base;
}

void evl_free(struct evloop *l)
{
	if (!l)
		return;
	event_base_free(l->base);
	free(l);
}

int evl_run(struct evloop *l)
{
	return event_base_dispatch(l->base) < 0 ? -1 : 0;
}

int evl_run_once(struct evloop *l)
{
	return event_base_loop(l->base, EVLOOP_ONCE) < 0 ? -1 : 0;
}

void evl_stop(struct evloop *l)
{
	event_base_loopbreak(l->base);
}

static void forward(evutil_socket_t fd, short what, void *arg)
{
	struct evl_watch *w = arg;
	w->fn(w->arg);
}

static struct evl_watch *watch_new(struct evloop *l, int fd, short what, evl_fn fn, void *arg)
{
	struct evl_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fn = fn;
	w->arg = arg;
	w->ev = event_new(l->base, fd, what, forward, w);
	if (!w->ev) {
		free(w);
		return NULL;
	}
	return w;
}

struct evl_watch *evl_watch_fd(struct evloop *l, int fd, evl_fn fn, void *arg)
{
	struct evl_watch *w = watch_new(l, fd, EV_READ | EV_PERSIST, fn, arg);
	if (w && event_add(w->ev, NULL) < 0) {
		evl_watch_free(w);
		return NULL;
	}
	return w;
}

struct evl_watch *evl_timer(struct evloop *l, evl_fn fn, void *arg)
{
	return watch_new(l, -1, 0, fn, arg);
}

void evl_timer_arm(struct evl_watch *w, uint64_t ms)
{
	struct timeval tv = { .tv_sec = (time_t)(ms / 1000), .tv_usec = (suseconds_t)(ms % 1000) * 1000 };
	event_add(w->ev, &tv);
}

void evl_timer_cancel(struct evl_watch *w)
{
	event_del(w->ev);
}

struct evl_watch *evl_signal(struct evloop *l, int signo, evl_fn fn, void *arg)
{
	struct evl_watch *w = watch_new(l, signo, EV_SIGNAL | EV_PERSIST, fn, arg);
	if (w && event_add(w->ev, NULL) < 0) {
		evl_watch_free(w);
		return NULL;
	}
	return w;
}

void evl_watch_free(struct evl_watch *w)
{
	if (!w)
		return;
	event_free(w->ev);
	free(w);
}

uint64_t evl_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *evl_version(void)
{
	return event_get_version();
}
