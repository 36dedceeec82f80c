/*
 * DOC: fabricctl status
 *
 * The daemon (asked over its control socket) and the newest sweep from
 * the database. The exit code says whether this SM is looking after the
 * subnet: 0 when fabricd runs as MASTER and its last sweep brought the
 * subnet up cleanly; 1 when that sweep was degraded or failed, none has
 * run, or fabricd runs but neither masters nor stands by (NOTACTIVE,
 * DISCOVERING); 4 when fabricd is not running or not answering; 5 when it
 * stands by for another master (healthy, but not this SM's subnet).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

/* The SM state in the daemon's status line, "" if it has none. */
static void daemon_state(const char *daemon, char state[16])
{
	state[0] = '\0';
	const char *at = strstr(daemon, "\"state\": \"");
	if (at)
		sscanf(at + 10, "%15[A-Z]", state);
}

/* The exit code for the daemon's SM state (not running: none) and the last sweep's verdict. */
static int verdict(bool running, const char *state, bool sweep_ok)
{
	if (!running)
		return EXIT_DAEMON;
	if (strcmp(state, "STANDBY") == 0)
		return EXIT_STANDBY;
	return strcmp(state, "MASTER") == 0 && sweep_ok ? EXIT_OK : EXIT_NOT_FOUND;
}

/* "database: PATH, SIZE, N sweeps and M events kept (retention ...)": the retention is the daemon's. */
static void print_database(struct ctl *c, const char *daemon, bool running)
{
	uint64_t bytes;
	unsigned sweeps, events, keep[3];
	if (db_size(c->db, &bytes, &sweeps, &events) < 0) {
		printf("database:   %s: %s\n", c->db_path, db_last_error(c->db));
		return;
	}
	double kib = bytes / 1024.0;
	printf("database:   %s, %.1f %s, %u sweeps and %u events kept", c->db_path, kib >= 1024 ? kib / 1024 : kib,
	       kib >= 1024 ? "MiB" : "KiB", sweeps, events);
	const char *at = running ? strstr(daemon, "\"keep\": [") : NULL;
	if (at && sscanf(at, "\"keep\": [%u, %u, %u]", &keep[0], &keep[1], &keep[2]) == 3)
		printf(" (retention %u, %u, %u days)", keep[0], keep[1], keep[2]);
	printf("\n");
}

/* The daemon's status line in words: pid, SM state, priority, the other SMs, the table audit's figures. */
static void print_daemon(const char *daemon)
{
	int pid;
	unsigned sweeps, priority;
	char version[32], state[16], sweeping[8], others[1600] = "";
	int got = sscanf(daemon, "{\"version\": \"%31[^\"]\", \"pid\": %d, \"state\": \"%15[A-Z]\", \"sweeping\": %7[a-z], "
			 "\"sweeps\": %u, \"priority\": %u, \"other_sms\": \"%1599[^\"]", version, &pid, state, sweeping,
			 &sweeps, &priority, others);
	if (got < 6) {
		printf("daemon:     %s\n", daemon);
		return;
	}
	printf("daemon:     running, pid %d, %s (priority %u)%s, fabricd %s\n", pid, state, priority,
	       strcmp(sweeping, "true") == 0 ? ", sweeping now" : "", version);
	printf("other SMs:  %s\n", others[0] ? others : "none seen");
	struct ctl_audit a;
	if (ctl_audit_figures(daemon, &a))
		printf("LFT audit:  %llu blocks read back, %llu unlike the published tables; %llu rotations done\n",
		       a.read, a.differed, a.rotations);
	if (a.ports)
		printf("port audit: %llu SL-to-VL, VL arbitration and P_Key tables read back, %llu unlike the published "
		       "sweep's; %llu rotations done\n", a.port_read, a.port_differed, a.port_rotations);
	unsigned long long answered, last_ms, sum_ms;
	const char *at = strstr(daemon, "\"reaction\": [");
	if (at && sscanf(at, "\"reaction\": [%llu, %llu, %llu]", &answered, &last_ms, &sum_ms) == 3 && answered)
		printf("reactions:  %llu reported changes answered; the switches held the new tables %llu ms after the "
		       "last was reported (%llu ms on average)\n", answered, last_ms, sum_ms / answered);
	else if (at)
		printf("reactions:  no reported change answered yet\n");
	unsigned groups, mlids, memberships, unproven, two_phase;
	at = strstr(daemon, "\"multicast\": [");
	if (at && sscanf(at, "\"multicast\": [%u, %u, %u, %u, %u]", &groups, &mlids, &memberships, &unproven,
			 &two_phase) == 5)
		printf("multicast:  %u group%s on %u MLID%s, %u membership%s; %u group%s left out of the MFTs (not proven); "
		       "%u programming%s cleared trees before writing them\n", groups, groups == 1 ? "" : "s", mlids,
		       mlids == 1 ? "" : "s", memberships, memberships == 1 ? "" : "s", unproven, unproven == 1 ? "" : "s",
		       two_phase, two_phase == 1 ? "" : "s");
}

int cmd_status(struct ctl *c, int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "fabricctl status: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	struct db_sweep s;
	int found = db_last_sweep(c->db, &s);
	if (found < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		return EXIT_DB;
	}
	char daemon[2560], why[256];
	bool running = ctl_ask_daemon(c, "status", daemon, sizeof(daemon), why, sizeof(why)) == 0;
	char state[16] = "";
	if (running) {
		daemon[strcspn(daemon, "\n")] = '\0';
		daemon_state(daemon, state);
	}
	if (!found) {	/* a standby never sweeps: its daemon still says what it is */
		if (c->json)
			printf("{\"sweep\": null, \"daemon\": %s}\n", running ? daemon : "null");
		else if (running)
			print_daemon(daemon);
		fprintf(stderr, "fabricctl: no sweep recorded yet in %s\n", c->db_path);
		int rc = verdict(running, state, false);
		return rc == EXIT_OK ? EXIT_NOT_FOUND : rc;
	}
	char when[32];
	time_t t = (time_t)s.started;
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
	bool ok = strcmp(s.result, "ok") == 0;
	bool up = ok || strncmp(s.result, "degraded", 8) == 0;
	if (c->json) {
		printf("{\"sweep\": %lld, \"kind\": ", (long long)s.id);
		json_string(stdout, s.kind);
		printf(", \"started\": \"%s\", \"duration_ms\": %.0f, \"result\": ", when,
		       (s.finished - s.started) * 1000);
		json_string(stdout, s.result);
		printf(", \"subnet_up\": %s, \"nodes\": %u, \"switches\": %u, \"cas\": %u, \"links\": %u, "
		       "\"mads\": %llu, \"routing\": ", up ? "true" : "false", s.nodes, s.switches,
		       s.nodes - s.switches, s.links, (unsigned long long)s.mads);
		json_string(stdout, s.routing);
		printf(", \"vlarb\": ");
		json_string(stdout, s.vlarb);
		uint64_t bytes;
		unsigned sweeps, events;
		if (db_size(c->db, &bytes, &sweeps, &events) == 0)
			printf(", \"database\": {\"bytes\": %llu, \"sweeps\": %u, \"events\": %u}",
			       (unsigned long long)bytes, sweeps, events);
		printf(", \"daemon\": %s}\n", running ? daemon : "null");
	} else {
		bool watched = running && (!strcmp(state, "MASTER") || !strcmp(state, "STANDBY"));
		printf("subnet:     %s%s\n", ok ? "UP" : up ? "UP (degraded)" : "NOT UP",
		       watched ? "" : running ? " at the last sweep; fabricd is not master: nothing sweeps it now"
			       : " at the last sweep; fabricd is not running: nothing watches it now");
		if (running)
			print_daemon(daemon);
		else
			printf("daemon:     %s\n", why);
		printf("last sweep: #%lld %s at %s, %.0f ms, %llu MADs\n", (long long)s.id, s.kind, when,
		       (s.finished - s.started) * 1000, (unsigned long long)s.mads);
		printf("result:     %s\n", s.result);
		printf("fabric:     %u switches, %u CAs, %u links\n", s.switches, s.nodes - s.switches,
		       s.links);
		if (s.routing[0])
			printf("routing:    %s\n", s.routing);
		if (s.vlarb[0])
			printf("VL arb:     %s\n", s.vlarb);
		print_database(c, daemon, running);
	}
	return verdict(running, state, ok);
}
