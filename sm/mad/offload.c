/*
 * DOC: work on another thread, its end on the loop
 *
 * A sweep's computations (the routing with its proofs) take from
 * milliseconds to seconds. On the loop's thread they would hold up every
 * MAD meanwhile: the SA's answers, the traps, and the LFT blocks that need
 * no computation. offload_start runs the work on a thread of its own; the
 * thread's last act is a byte into a pipe the loop watches, and the loop
 * then joins it and calls done, so everything after the work happens on
 * the loop's thread as before. One thread per piece of work: a sweep has
 * one or two, and a thread costs microseconds beside them.
 */
#include "sm/mad/offload.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct offload {
	int fd[2];		/* the thread writes one byte into fd[1] when the work returned */
	pthread_t thread;
	struct evl_watch *watch;
	evl_fn work, done;
	void *arg;
};

static void release(struct offload *o)
{
	evl_watch_free(o->watch);
	close(o->fd[0]);
	close(o->fd[1]);
	free(o);
}

static void *run(void *p)
{
	struct offload *o = p;
	char c = 1;
	o->work(o->arg);
	while (write(o->fd[1], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* On the loop: the work returned (the only byte the pipe carries). */
static void finished(void *p)
{
	struct offload *o = p;
	char c;
	if (read(o->fd[0], &c, 1) != 1)
		return;
	pthread_join(o->thread, NULL);
	evl_fn done = o->done;
	void *arg = o->arg;
	release(o);
	done(arg);
}

struct offload *offload_start(struct evloop *l, evl_fn work, evl_fn done, void *arg)
{
	struct offload *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	*o = (struct offload){ .fd = { -1, -1 }, .work = work, .done = done, .arg = arg };
	if (pipe(o->fd) < 0) {
		free(o);
		return NULL;
	}
	if (!(o->watch = evl_watch_fd(l, o->fd[0], finished, o)) || pthread_create(&o->thread, NULL, run, o) != 0) {
		release(o);
		return NULL;
	}
	return o;
}

void offload_abandon(struct offload *o)
{
	if (!o)
		return;
	pthread_join(o->thread, NULL);
	release(o);
}
