/*
 * DOC: talking to the daemon
 *
 * One request line to fabricd's control socket, one answer line back.
 * fabricctl audit asks for an audit of every LFT block and then follows
 * the status line until that audit is done.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

bool ctl_audit_figures(const char *status, struct ctl_audit *a)
{
	const char *at = strstr(status, "\"lft_audit\": ["), *ports = strstr(status, "\"port_audit\": [");
	memset(a, 0, sizeof(*a));
	a->ports = ports && sscanf(ports, "\"port_audit\": [%llu, %llu, %llu, %llu, %u, %u, %u]", &a->port_read,
				   &a->port_differed, &a->port_unanswered, &a->port_rotations, &a->last_port_read,
				   &a->last_port_differed, &a->last_port_unanswered) == 7;
	return at && sscanf(at, "\"lft_audit\": [%llu, %llu, %llu, %llu, %u, %u, %u, %u]", &a->read, &a->differed,
			    &a->unanswered, &a->rotations, &a->wholes, &a->last_read, &a->last_differed,
			    &a->last_unanswered) == 8;
}

/* The daemon's audit figures now; false (why printed) when it cannot say. */
static bool audit_now(const struct ctl *c, struct ctl_audit *a)
{
	char status[2560], why[256];
	if (ctl_ask_daemon(c, "status", status, sizeof(status), why, sizeof(why)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", why);
		return false;
	}
	if (!ctl_audit_figures(status, a)) {
		fprintf(stderr, "fabricctl: fabricd's status has no table audit figures (an older fabricd?)\n");
		return false;
	}
	return true;
}

/*
 * Waits for the audit of every block the daemon began after `before`:
 * 10 s and a second per 2,000 blocks (the MAD layer's pace on hardware is
 * far above that), polled every 100 ms.
 */
static bool await_whole_audit(const struct ctl *c, unsigned before, unsigned long long blocks, struct ctl_audit *a)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	for (unsigned long long waited = 0; waited < 100 + blocks / 200; waited++) {
		if (!audit_now(c, a))
			return false;
		if (a->wholes > before)
			return true;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "fabricctl: the audit of %llu LFT blocks has not ended (see fabricd's log)\n", blocks);
	return false;
}

int cmd_audit(struct ctl *c, int argc, char **argv)
{
	char answer[256], why[256];
	struct ctl_audit a;
	if (argc > 1) {
		fprintf(stderr, "fabricctl audit: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	if (!audit_now(c, &a))
		return EXIT_DAEMON;
	unsigned before = a.wholes;
	if (ctl_ask_daemon(c, "audit", answer, sizeof(answer), why, sizeof(why)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", why);
		return EXIT_DAEMON;
	}
	unsigned long long blocks, tables = 0;
	if (sscanf(answer, "ok: %llu LFT blocks and %llu", &blocks, &tables) < 1) {
		fprintf(stderr, "fabricctl: %s\n", answer);
		return EXIT_DAEMON;
	}
	if (!await_whole_audit(c, before, blocks + tables, &a))
		return EXIT_DAEMON;
	if (c->json)
		printf("{\"blocks\": %u, \"published\": %u, \"other\": %u, \"unanswered\": %u, \"port_tables\": %u, "
		       "\"port_published\": %u, \"port_other\": %u, \"port_unanswered\": %u}\n",
		       a.last_read + a.last_unanswered, a.last_read - a.last_differed, a.last_differed, a.last_unanswered,
		       a.last_port_read + a.last_port_unanswered, a.last_port_read - a.last_port_differed,
		       a.last_port_differed, a.last_port_unanswered);
	else
		printf("%u LFT blocks read back: %u as published, %u other%s, %u unanswered\n"
		       "%u port tables read back: %u as published, %u other%s, %u unanswered\n",
		       a.last_read + a.last_unanswered, a.last_read - a.last_differed, a.last_differed,
		       a.last_differed ? " (a full sweep reads those switches back and rewrites them: fabricctl events)"
				       : "", a.last_unanswered,
		       a.last_port_read + a.last_port_unanswered, a.last_port_read - a.last_port_differed,
		       a.last_port_differed, a.last_port_differed ? " (a full sweep writes every port table of those nodes again: fabricctl "
					      "events)" : "", a.last_port_unanswered);
	bool bad = a.last_differed || a.last_unanswered || a.last_port_differed || a.last_port_unanswered;
	return bad ? EXIT_NOT_FOUND : EXIT_OK;
}
