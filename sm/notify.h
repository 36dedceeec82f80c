/*
 * notify.h - telling systemd how fabricd is (the sd_notify protocol, for
 * a Type=notify unit): READY once it serves its control socket, STATUS
 * after each sweep, WATCHDOG from the event loop, STOPPING at exit.
 * Without $NOTIFY_SOCKET (not under systemd) every call does nothing.
 */
#ifndef SM_NOTIFY_H
#define SM_NOTIFY_H

#include "sm/mad/evloop.h"

struct notifier;

/*
 * From $NOTIFY_SOCKET and $WATCHDOG_USEC (for this pid, if
 * $WATCHDOG_PID says): with a watchdog, a timer on l sends WATCHDOG=1
 * at half its period, so a stuck event loop is what systemd sees.
 * NULL when not under systemd (or out of memory: then nothing is told).
 */
struct notifier *notify_open(struct evloop *l);
/* Sends "READY=1", "STATUS=...", "STOPPING=1"... as one datagram. */
void notify_send(struct notifier *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void notify_close(struct notifier *n);

#endif
