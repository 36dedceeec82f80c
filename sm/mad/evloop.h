/*
 * evloop.h - the daemon's event loop: libevent behind a tiny API.
 *
 * The rest of sm/ says "when fd is readable call f", "in N ms call g":
 * nothing else of libevent leaks out of evloop.c.
 */
#ifndef SM_EVLOOP_H
#define SM_EVLOOP_H

#include <stdint.h>

struct evloop;
struct evl_watch;

typedef void (*evl_fn)(void *arg);

struct evloop *evl_new(void);
/* libevent's version, for fabricd --version. */
const char *evl_version(void);
void evl_free(struct evloop *l);
/* Runs until evl_stop(); returns 0, or -1 if the loop failed. */
int evl_run(struct evloop *l);
void evl_stop(struct evloop *l);
/* Waits for the next event and runs what is due then (tests driving a loop by hand); 0, or -1. */
int evl_run_once(struct evloop *l);

/* Calls fn each time fd is readable, until evl_watch_free(). */
struct evl_watch *evl_watch_fd(struct evloop *l, int fd, evl_fn fn, void *arg);
/* A one-shot timer: arm it with evl_timer_arm(), re-arm to move it. */
struct evl_watch *evl_timer(struct evloop *l, evl_fn fn, void *arg);
void evl_timer_arm(struct evl_watch *w, uint64_t ms);
void evl_timer_cancel(struct evl_watch *w);
/* Calls fn on signal signo (from the loop, not the handler). */
struct evl_watch *evl_signal(struct evloop *l, int signo, evl_fn fn, void *arg);
void evl_watch_free(struct evl_watch *w);

/* Monotonic milliseconds, for durations in logs and deadlines. */
uint64_t evl_now_ms(void);

#endif
