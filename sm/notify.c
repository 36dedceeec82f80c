/*
 * DOC: systemd notification
 *
 * The sd_notify protocol without libsystemd: each message is one datagram
 * of "KEY=value" lines to the AF_UNIX socket named by $NOTIFY_SOCKET (a
 * path, or an abstract name when it starts with '@'). A failed send is
 * not an error for fabricd: systemd may have gone, the fabric has not.
 * The watchdog timer lives on the event loop, so it stops when the loop
 * does.
 */
#include "sm/notify.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct notifier {
	int fd;
	struct sockaddr_un addr;
	socklen_t addr_len;
	struct evl_watch *watchdog;
	uint64_t watchdog_ms;	/* half the period systemd waits */
};

static void on_watchdog(void *arg)
{
	struct notifier *n = arg;
	notify_send(n, "WATCHDOG=1");
	evl_timer_arm(n->watchdog, n->watchdog_ms);
}

/* $WATCHDOG_USEC, if it is meant for this process; 0 if none. */
static unsigned long long watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	if (!usec || (pid && strtoll(pid, NULL, 10) != (long long)getpid()))
		return 0;
	return strtoull(usec, NULL, 10);
}

struct notifier *notify_open(struct evloop *l)
{
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len = path ? strlen(path) : 0;
	struct notifier *n = len && len < sizeof(n->addr.sun_path) ? calloc(1, sizeof(*n)) : NULL;
	if (!n)
		return NULL;
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	n->addr.sun_family = AF_UNIX;
	memcpy(n->addr.sun_path, path, len);
	if (path[0] == '@')
		n->addr.sun_path[0] = '\0';
	n->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	unsigned long long usec = watchdog_usec();
	if (n->fd >= 0 && usec) {
		n->watchdog_ms = usec / 2000 ? usec / 2000 : 1;
		if ((n->watchdog = evl_timer(l, on_watchdog, n)))
			evl_timer_arm(n->watchdog, n->watchdog_ms);
	}
	if (n->fd < 0) {
		free(n);
		return NULL;
	}
	return n;
}

void notify_send(struct notifier *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (!n)
		return;
	va_start(ap, fmt);
	int len = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (len > 0)
		(void)!sendto(n->fd, msg, (size_t)len < sizeof(msg) ? (size_t)len : sizeof(msg) - 1, MSG_NOSIGNAL,
			      (const struct sockaddr *)&n->addr, n->addr_len);
}

void notify_close(struct notifier *n)
{
	if (!n)
		return;
	evl_watch_free(n->watchdog);
	close(n->fd);
	free(n);
}
