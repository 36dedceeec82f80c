/*
 * DOC: control socket
 *
 * A listening unix stream socket watched by the event loop. Each client
 * sends one short line; the answer is written at once (it is far below
 * the socket buffer) and the connection closed, so no client can hold the
 * daemon up. The socket is created under umask 077: root only.
 */
#include "sm/control.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sm/log.h"

#define MAX_CLIENTS 16
#define LINE_MAX_LEN 128

struct client {
	struct control *ctl;
	int fd;
	struct evl_watch *watch;
	char buf[LINE_MAX_LEN];
	size_t len;
};

struct control {
	struct sm *sm;
	int fd;
	char path[108];
	struct evl_watch *watch;
	struct client clients[MAX_CLIENTS];
};

/*
 * "0x... (H3_1) priority 3 STANDBY; ..." for the other SMs the last
 * election saw, then "0x... left out (not in sm_peers)" for each port
 * outside sm_peers that claimed to be an SM since the start.
 */
static void peers_text(const struct sm *sm, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < sm->ha.npeers && off < len; i++) {
		const struct sm_peer *p = &sm->ha.peers[i];
		char desc[sizeof(p->desc)];
		snprintf(desc, sizeof(desc), "%s", p->desc);
		for (char *c = desc; *c; c++)	/* it goes into a JSON string */
			if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
				*c = '_';
		int n = snprintf(buf + off, len - off, "%s0x%016llx (%s) priority %u %s", i ? "; " : "",
				 (unsigned long long)p->guid, desc, p->priority, ha_state_name(p->state));
		off = n < 0 ? len : off + (size_t)n;
	}
	for (unsigned i = 0; i < sm->ha.nleft_out && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s0x%016llx left out (not in sm_peers)", off ? "; " : "",
				 (unsigned long long)sm->ha.left_out[i]);
		off = n < 0 ? len : off + (size_t)n;
	}
}

static void client_close(struct client *cl)
{
	evl_watch_free(cl->watch);
	close(cl->fd);
	cl->watch = NULL;
	cl->fd = -1;
	cl->len = 0;
}

static void answer(struct client *cl, const char *line)
{
	struct sm *sm = cl->ctl->sm;
	char out[2560], peers[1536];
	if (strcmp(line, "status") == 0) {
		struct mcast_figures mf = mcast_figures(&sm->mcast);
		peers_text(sm, peers, sizeof(peers));
		snprintf(out, sizeof(out),
			 "{\"version\": \"%s\", \"pid\": %d, \"state\": \"%s\", \"sweeping\": %s, \"sweeps\": %u, "
			 "\"priority\": %u, \"other_sms\": \"%s\", \"keep\": [%u, %u, %u], "
			 "\"lft_audit\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u, %u, %u, %u], "
			 "\"port_audit\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u, %u, %u], "
			 "\"reaction\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "], \"multicast\": [%u, %u, %u, %u, %u]}\n",
			 FABRICD_VERSION, (int)getpid(), ha_state_name(sm->state), sm->sched.sweeping ? "true" : "false", sm->act_count,
			 sm->cfg.sm_priority, peers, sm->cfg.keep_sweeps, sm->cfg.keep_events, sm->cfg.keep_days,
			 sm->audit.read, sm->audit.differed, sm->audit.unanswered, sm->audit.rotations, sm->audit.wholes,
			 sm->audit.last_read, sm->audit.last_differed, sm->audit.last_unanswered, sm->audit.port_read,
			 sm->audit.port_differed, sm->audit.port_unanswered, sm->audit.port_rotations, sm->audit.last_port_read,
			 sm->audit.last_port_differed, sm->audit.last_port_unanswered, sm->reaction.count,
			 sm->reaction.last_ms, sm->reaction.sum_ms, mf.groups, mf.mlids, mf.memberships, mf.unproven,
			 mf.two_phase);
	} else if (strcmp(line, "resweep") == 0 || strcmp(line, "resweep rebalance") == 0) {
		bool rebalance = line[7] != '\0';
		log_info("control: re-sweep requested%s", rebalance ? ", every route re-balanced" : "");
		sm->sched.rebalance_wanted |= rebalance;
		sm_sweep_request(sm);
		snprintf(out, sizeof(out), "ok: sweep requested%s\n", rebalance ? ", every route re-balanced" : "");
	} else if (strcmp(line, "audit") == 0) {
		char why[160];
		size_t blocks, tables;
		bool ok = sm_audit_request(sm, &blocks, &tables, why, sizeof(why)) == 0;
		log_info("control: table audit of every LFT block and port table requested%s%s", ok ? "" : ": ",
			 ok ? "" : why);
		if (ok)
			snprintf(out, sizeof(out), "ok: %zu LFT blocks and %zu port tables to read back\n", blocks, tables);
		else
			snprintf(out, sizeof(out), "error: %s\n", why);
	} else if (strncmp(line, "health clear", 12) == 0) {
		unsigned long long guid = 0;
		unsigned port = 0;
		if (line[12] && sscanf(line + 12, " %llx %u", &guid, &port) < 1) {
			snprintf(out, sizeof(out), "error: expected 'health clear [GUID [PORT]]'\n");
		} else {
			unsigned n = health_clear(sm->health, guid, port);
			log_info("control: health clear: %u port%s declared healthy", n, n == 1 ? "" : "s");
			snprintf(out, sizeof(out), "ok: %u port%s declared healthy\n", n, n == 1 ? "" : "s");
		}
	} else {
		snprintf(out, sizeof(out), "error: unknown command '%.64s'\n", line);
	}
	if (write(cl->fd, out, strlen(out)) < 0)
		log_debug("control: client went away: %s", strerror(errno));
}

static void on_client(void *arg)
{
	struct client *cl = arg;
	ssize_t n = read(cl->fd, cl->buf + cl->len, sizeof(cl->buf) - 1 - cl->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(cl);
		return;
	}
	cl->len += (size_t)n;
	cl->buf[cl->len] = '\0';
	char *nl = strchr(cl->buf, '\n');
	if (!nl && cl->len < sizeof(cl->buf) - 1)
		return;	/* wait for the rest of the line */
	if (nl)
		*nl = '\0';
	answer(cl, cl->buf);
	client_close(cl);
}

static void on_accept(void *arg)
{
	struct control *c = arg;
	int fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];
		if (cl->fd >= 0)
			continue;
		cl->fd = fd;
		cl->watch = evl_watch_fd(c->sm->loop, fd, on_client, cl);
		if (!cl->watch)
			client_close(cl);
		return;
	}
	static const char busy[] = "error: busy\n";
	if (write(fd, busy, sizeof(busy) - 1) < 0)
		log_debug("control: client went away");
	close(fd);
}

struct control *control_open(struct sm *sm, const char *path, char err[256])
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, 256, "control socket path is longer than %zu characters", sizeof(addr.sun_path) - 1);
		return NULL;
	}
	struct control *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	c->sm = sm;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		c->clients[i].fd = -1;
		c->clients[i].ctl = c;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* a socket left by a daemon that died is stale: only a live one answers connect() */
	if (c->fd >= 0 && connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
		snprintf(err, 256, "%s: another fabricd is running", path);
		close(c->fd);
		free(c);
		return NULL;
	}
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	unlink(path);
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(c->fd, 8) < 0 ||
	    chmod(path, 0600) < 0 || !(c->watch = evl_watch_fd(sm->loop, c->fd, on_accept, c))) {
		snprintf(err, 256, "%s: cannot listen: %s", path, strerror(errno));
		if (c->fd >= 0)
			close(c->fd);
		free(c);
		return NULL;
	}
	return c;
}

void control_close(struct control *c)
{
	if (!c)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (c->clients[i].fd >= 0)
			client_close(&c->clients[i]);
	evl_watch_free(c->watch);
	close(c->fd);
	unlink(c->path);
	free(c);
}
