/*
 * notify_listen PATH: stands in for systemd's notification socket. Binds
 * an AF_UNIX datagram socket at PATH and prints each message it receives
 * on one line (its "KEY=value" lines joined by spaces), until killed. The
 * service test points fabricd's $NOTIFY_SOCKET at it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (argc != 2 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: notify_listen PATH\n");
		return 2;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	unlink(argv[1]);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		perror("notify_listen");
		return 1;
	}
	char msg[4096];
	for (;;) {
		ssize_t n = recv(fd, msg, sizeof(msg) - 1, 0);
		if (n < 0)
			return 1;
		msg[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (msg[i] == '\n')
				msg[i] = ' ';
		printf("%s\n", msg);
		fflush(stdout);
	}
}
