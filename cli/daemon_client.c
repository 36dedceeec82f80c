/*
 * DOC: talking to the daemon
 *
 * One request line to fabricd's control socket, one answer line back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/fabricctl.h"

int ctl_ask_daemon(const struct ctl *c, const char *request, char *answer, size_t len, char *why,
		   size_t whylen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", c->socket_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (e == EACCES || e == EPERM)
			snprintf(why, whylen, "%s: permission denied (the control socket is root's: run as root)",
				 c->socket_path);
		else if (e == ENOENT || e == ECONNREFUSED)
			snprintf(why, whylen, "fabricd is not running (nothing listens on %s)", c->socket_path);
		else
			snprintf(why, whylen, "%s: %s", c->socket_path, strerror(e));
		return -1;
	}
	struct timeval tv = { .tv_sec = 5 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char line[128];
	snprintf(line, sizeof(line), "%s\n", request);
	size_t got = 0;
	if (write(fd, line, strlen(line)) == (ssize_t)strlen(line)) {
		ssize_t n;
		while (got < len - 1 && (n = read(fd, answer + got, len - 1 - got)) > 0)
			got += (size_t)n;
	}
	close(fd);
	answer[got] = '\0';
	char *nl = strchr(answer, '\n');
	if (nl)
		*nl = '\0';
	if (!got) {
		snprintf(why, whylen, "fabricd did not answer on %s", c->socket_path);
		return -1;
	}
	return 0;
}

int cmd_resweep(struct ctl *c, int argc, char **argv)
{
	char answer[256], why[256];
	bool rebalance = argc > 1 && strcmp(argv[1], "--rebalance") == 0;
	if (argc > 1 + rebalance) {
		fprintf(stderr, "fabricctl resweep: unexpected argument '%s' (expected --rebalance)\n", argv[1 + rebalance]);
		return EXIT_USAGE;
	}
	if (ctl_ask_daemon(c, rebalance ? "resweep rebalance" : "resweep", answer, sizeof(answer), why, sizeof(why)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", why);
		return EXIT_DAEMON;
	}
	printf("%s\n", answer);
	return strncmp(answer, "ok", 2) == 0 ? EXIT_OK : EXIT_DAEMON;
}
