/*
 * DOC: fabricctl status
 *
 * The newest sweep from the database. Exit 0 if it brought the subnet up
 * cleanly; 1 if it was degraded, failed, or none has run.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

/* The daemon's status line in words: pid, SM state, priority, the other SMs. */
static void print_daemon(const char *daemon)
{
	int pid;
	unsigned sweeps, priority;
	char state[16], sweeping[8], others[1600] = "";
	int got = sscanf(daemon, "{\"pid\": %d, \"state\": \"%15[A-Z]\", \"sweeping\": %7[a-z], \"sweeps\": %u, "
			 "\"priority\": %u, \"other_sms\": \"%1599[^\"]", &pid, state, sweeping, &sweeps, &priority, others);
	if (got < 5) {
		printf("daemon:     %s\n", daemon);
		return;
	}
	printf("daemon:     running, pid %d, %s (priority %u)%s\n", pid, state, priority,
	       strcmp(sweeping, "true") == 0 ? ", sweeping now" : "");
	printf("other SMs:  %s\n", others[0] ? others : "none seen");
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
	char daemon[2048], why[256];
	bool running = ctl_ask_daemon(c, "status", daemon, sizeof(daemon), why, sizeof(why)) == 0;
	if (running)
		daemon[strcspn(daemon, "\n")] = '\0';
	if (!found) {	/* a standby never sweeps: its daemon still says what it is */
		if (c->json)
			printf("{\"sweep\": null, \"daemon\": %s}\n", running ? daemon : "null");
		else if (running)
			print_daemon(daemon);
		fprintf(stderr, "fabricctl: no sweep recorded yet in %s\n", c->db_path);
		return EXIT_NOT_FOUND;
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
		printf(", \"daemon\": %s}\n", running ? daemon : "null");
	} else {
		printf("subnet:     %s\n", ok ? "UP" : up ? "UP (degraded)" : "NOT UP");
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
	}
	return ok ? EXIT_OK : EXIT_NOT_FOUND;
}
